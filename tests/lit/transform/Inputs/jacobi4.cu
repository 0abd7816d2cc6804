// One sweep of a fourth-order Jacobi scheme for the 2-D Poisson equation:
// the neighbours of u one and two elements away written out, the border
// left alone.
__global__ void jacobi4_sweep(const double *u, const double *f, double *unew, int n, double h2) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  int y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < 2 || y < 2 || x > n - 3 || y > n - 3) return;
  unew[y * n + x] = (16.0 * (u[(y - 1) * n + x] + u[(y + 1) * n + x] + u[y * n + x - 1] + u[y * n + x + 1]) -
                     (u[(y - 2) * n + x] + u[(y + 2) * n + x] + u[y * n + x - 2] + u[y * n + x + 2]) +
                     12.0 * h2 * f[y * n + x]) /
                    60.0;
}

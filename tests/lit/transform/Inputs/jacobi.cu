// One Jacobi sweep of the 2-D Poisson equation: the four neighbours of u
// written out, the border left alone.
__global__ void jacobi_sweep(const double *u, const double *f, double *unew, int n, double h2) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  int y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < 1 || y < 1 || x > n - 2 || y > n - 2) return;
  unew[y * n + x] =
      0.25 * (u[(y - 1) * n + x] + u[(y + 1) * n + x] + u[y * n + x - 1] + u[y * n + x + 1] - h2 * f[y * n + x]);
}

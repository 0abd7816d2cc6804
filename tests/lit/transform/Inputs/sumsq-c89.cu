// Sum of squares of each column of a column-major matrix, written C89 style:
// declarations first, a while loop ending in its increment, locals the items
// reuse, an inner loop over a variable declared at the top.
__global__ void sumsq(int rows, int cols, const float *x, double *out) {
  int i, j, x0, x1;
  double sum;
  j = threadIdx.x + blockIdx.x * blockDim.x;
  while (j < cols) {
    x0 = j * rows;
    x1 = x0 + rows;
    sum = 0;
    for (i = x0; i < x1; i++) sum += x[i] * x[i];
    out[j] = sum;
    j += blockDim.x * gridDim.x;
  }
}

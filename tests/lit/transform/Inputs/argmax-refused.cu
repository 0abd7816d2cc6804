// Loops that look like selections but are not (split_loop_across_warp refuses).

// The carried index is read in the loop: each iteration sees the last update.
__global__ void carried_read(int n, int cols, const float *x, int *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float best = -1e30f;
  int arg = 0, moves = 0;
  for (int c = 0; c < cols; ++c) {
    if (x[r * cols + c] > best) {
      best = x[r * cols + c];
      arg = c;
    }
    moves += arg;
  }
  out[r] = moves;
}

// The best value is set to something other than what the test compared.
__global__ void other_value(int n, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float best = -1e30f;
  for (int c = 0; c < cols; ++c)
    if (x[r * cols + c] > best) best = x[r * cols + c] * 0.5f;
  out[r] = best;
}

// An else branch writes the carried index too.
__global__ void with_else(int n, int cols, const float *x, int *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float best = -1e30f;
  int arg = 0;
  for (int c = 0; c < cols; ++c) {
    if (x[r * cols + c] > best) {
      best = x[r * cols + c];
      arg = c;
    } else {
      arg = -c;
    }
  }
  out[r] = arg;
}

// ?: picks that are no selection: the value kept when the test holds
// (with NaNs, `m > v ? m : v` takes v where `if (v >= m)` would not), and a
// picked value with a side effect.
__global__ void pick_kept(int n, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float m = -3.0e38f;
  for (int c = 0; c < cols; ++c)
    m = m > x[r * cols + c] ? m : x[r * cols + c];
  out[r] = m;
}

__global__ void pick_effect(int n, int cols, const float *x, float *out, int *reads) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float m = -3.0e38f;
  for (int c = 0; c < cols; ++c)
    m = x[r * cols + c] + (float)atomicAdd(reads, 1) > m ? x[r * cols + c] + (float)atomicAdd(reads, 1) : m;
  out[r] = m;
}

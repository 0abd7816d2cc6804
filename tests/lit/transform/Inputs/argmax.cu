// Selections of a row's best element (split_loop_across_warp applies to each).
#include <math.h>

// The first index of the largest value: a strict test, best on the right.
__global__ void argmax_first(int n, int cols, const float *x, int *arg_out, float *max_out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const float *row = x + (size_t)r * cols;
  float best = row[0];
  int arg = 0;
  for (int c = 1; c < cols; ++c) {
    if (row[c] > best) {
      best = row[c];
      arg = c;
    }
  }
  arg_out[r] = arg;
  max_out[r] = best;
}

// The last index of the smallest value: a non-strict test, best on the left,
// a value cached in a local, and a row that may have none (arg stays -1).
__global__ void argmin_last(int n, int cols, const float *x, int *arg_out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float best = INFINITY;
    int arg = -1;
    for (int c = 0; c < cols; ++c) {
      float v = x[(size_t)r * cols + c];
      if (best >= v) {
        best = v;
        arg = c;
      }
    }
    arg_out[r] = arg;
  }
}

// The nearest of k centres, as k-means assigns points: the test reads a
// distance summed by an inner loop, and two variables go with the best.
__global__ void nearest(int n, int k, int d, const float *p, const float *centres, int *label, float *code) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float best = 3.0e38f, second_key = 0.0f;
  int bestc = -1;
  for (int c = 0; c < k; ++c) {
    float dist = 0.0f;
    for (int f = 0; f < d; ++f) {
      float diff = p[i * d + f] - centres[c * d + f];
      dist += diff * diff;
    }
    if (dist < best) {
      best = dist;
      bestc = c;
      second_key = centres[c * d];
    }
  }
  label[i] = bestc;
  code[i] = second_key;
}

// The largest element of each row, picked with ?: as C code writes max.
__global__ void row_max_pick(int n, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float m = -3.0e38f;
  for (int c = 0; c < cols; ++c)
    m = m < x[r * cols + c] ? x[r * cols + c] : m;
  out[r] = m;
}

// The largest count of each row, written as a MAX would expand: the kept
// value first, which integers allow.
__global__ void row_max_keep(int n, int cols, const int *x, int *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  int m = x[r * cols];
  for (int c = 1; c < cols; ++c)
    m = (m > x[r * cols + c]) ? m : x[r * cols + c];
  out[r] = m;
}

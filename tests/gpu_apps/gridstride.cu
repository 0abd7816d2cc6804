// Grid-stride loops launched with fixed grids, as real programs launch them:
// a C89-style column sum of squares (one column per item), an element-wise
// update and a matrix sum in two nested loops, the row index in x; and a
// matrix scale whose index multiplies blockIdx by a constant tile, also
// with the row index in x; and per-block sums whose tree steps start with
// the barrier and combine cells 2 * s * t and 2 * s * t + s, after a
// grid-stride loop into each thread's cell; and per-channel means whose
// block partial sums thread 0 adds up in a loop, C89 style; and a dot
// product (float), squared norm (double) and nonzero count that every
// element adds to with its own atomics on three fixed addresses, and row
// totals of a matrix that every element adds to its row's cell by an
// atomic. Each is run
// on several sizes, including ones that are not multiples of any block and
// one smaller than the grid, and checked against a CPU reference: "<kernel>
// <size> ok" or "... WRONG".
#include "common.h"

#include <cmath>
#include <utility>
#include <vector>

__global__ void col_sumsq(int rows, int cols, const float *x, float *out) {
  int i, j, x0, x1;
  float sum;
  j = threadIdx.x + blockIdx.x * blockDim.x;
  while (j < cols) {
    x0 = j * rows;
    x1 = x0 + rows;
    sum = 0;
    for (i = x0; i < x1; i++)
      sum += x[i] * x[i];
    out[j] = sum;
    j += blockDim.x * gridDim.x;
  }
}

__global__ void scale_add(int n, float a, const float *x, float *y) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) {
    if (x[i] == 0.0f) continue;
    y[i] = a * x[i] + y[i];
  }
}

__global__ void mat_add_rows(int n, const float *a, const float *b, float *c) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  while (i < n) {
    j = threadIdx.y + blockIdx.y * blockDim.y;
    while (j < n) {
      c[i * n + j] = a[i * n + j] + b[i * n + j];
      j += blockDim.y * gridDim.y;
    }
    i += blockDim.x * gridDim.x;
  }
}

#define TILE 16
__global__ void mat_scale_tile(int n, const float *a, float *c) {
  int r = blockIdx.x * TILE + threadIdx.x;
  int col = blockIdx.y * TILE + threadIdx.y;
  if (r < n && col < n) c[r * n + col] = 2.0f * a[r * n + col];
}

#define SUM_BLOCK 256
__global__ void block_sums(const float *in, float *out, int n) {
  __shared__ float sdata[SUM_BLOCK];
  int tid = threadIdx.x;
  sdata[tid] = 0.0f;
  for (int i = threadIdx.x + blockDim.x * blockIdx.x; i < n; i += gridDim.x * blockDim.x)
    sdata[tid] += in[i];
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    __syncthreads();
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

#define MEAN_THREADS 512
__global__ void channel_mean(const float *x, int batch, int channels, int spatial, float *mean) {
  __shared__ float local[MEAN_THREADS];
  int id = threadIdx.x;
  int filter = blockIdx.x;
  int i, j;
  local[id] = 0;
  for (j = 0; j < batch; ++j) {
    for (i = 0; i < spatial; i += MEAN_THREADS) {
      int index = j * spatial * channels + filter * spatial + i + id;
      local[id] += (i + id < spatial) ? x[index] : 0;
    }
  }
  __syncthreads();
  if (id == 0) {
    mean[filter] = 0;
    for (i = 0; i < MEAN_THREADS; ++i) {
      mean[filter] += local[i];
    }
    mean[filter] /= spatial * batch;
  }
}

__global__ void dot_norm(int n, const float *a, const float *b, float *dot, double *norm, unsigned *nonzero) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&dot[0], a[i] * b[i]);
    atomicAdd(norm, (double)a[i] * a[i]);
    if (a[i] != 0.0f) atomicAdd(nonzero, 1u);
  }
}

__global__ void row_totals(int rows, int cols, const float *a, float *total) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < rows * cols; k += blockDim.x * gridDim.x)
    atomicAdd(&total[k / cols], a[k]);
}

namespace {

void report(const char *kernel, int size, bool ok) { std::printf("%s %d %s\n", kernel, size, ok ? "ok" : "WRONG"); }

bool check_sumsq(int rows, int cols, const std::vector<float> &x, const float *dout) {
  std::vector<float> out(cols);
  CHECK(cudaMemcpy(out.data(), dout, cols * sizeof(float), cudaMemcpyDeviceToHost));
  for (int c = 0; c < cols; ++c) {
    double want = 0;
    for (int r = 0; r < rows; ++r)
      want += (double)x[(size_t)c * rows + r] * x[(size_t)c * rows + r];
    if (std::fabs(out[c] - want) > 1e-4 * want + 1e-5) return false;
  }
  return true;
}

} // namespace

int main() {
  const int rows = 1000, max_cols = 3001, max_n = 1 << 20;
  std::vector<float> x((size_t)rows * max_cols), v(max_n), y0(max_n);
  fill(x.data(), static_cast<int>(x.size()), 11);
  fill(v.data(), max_n, 12);
  fill(y0.data(), max_n, 13);
  for (int i = 0; i < max_n; i += 7)
    v[i] = 0.0f; // skipped by `continue`
  float *dx = nullptr, *dout = nullptr, *dv = nullptr, *dy = nullptr;
  CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&dout, max_cols * sizeof(float)));
  CHECK(cudaMalloc(&dv, max_n * sizeof(float)));
  CHECK(cudaMalloc(&dy, max_n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, v.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));

  for (int cols : {3001, 1024, 77}) {
    CHECK(cudaMemset(dout, 0, max_cols * sizeof(float)));
    col_sumsq<<<8, 128>>>(rows, cols, dx, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    report("col_sumsq", cols, check_sumsq(rows, cols, x, dout));
  }
  for (int n : {max_n, 1000003 % max_n, 100}) {
    CHECK(cudaMemcpy(dy, y0.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
    scale_add<<<32, 256>>>(n, 2.5f, dv, dy);
    CHECK(cudaGetLastError());
    std::vector<float> y(max_n);
    CHECK(cudaMemcpy(y.data(), dy, max_n * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < max_n; ++i) {
      float want = i < n && v[i] != 0.0f ? 2.5f * v[i] + y0[i] : y0[i];
      ok = ok && std::fabs(y[i] - want) <= 1e-6f * std::fabs(want) + 1e-7f;
    }
    report("scale_add", n, ok);
  }
  const int max_m = 2048;
  const size_t cells = (size_t)max_m * max_m;
  std::vector<float> a(cells), b(cells), c(cells);
  fill(a.data(), static_cast<int>(cells), 14);
  fill(b.data(), static_cast<int>(cells), 15);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  CHECK(cudaMalloc(&da, cells * sizeof(float)));
  CHECK(cudaMalloc(&db, cells * sizeof(float)));
  CHECK(cudaMalloc(&dc, cells * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
  for (int m : {max_m, 1001, 77}) {
    CHECK(cudaMemset(dc, 0, cells * sizeof(float)));
    mat_add_rows<<<dim3(16, 16), dim3(16, 16)>>>(m, da, db, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, cells * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t k = 0; k < cells; ++k) {
      float want = k < (size_t)m * m ? a[k] + b[k] : 0.0f;
      ok = ok && std::fabs(c[k] - want) <= 1e-6f * std::fabs(want) + 1e-7f;
    }
    report("mat_add_rows", m, ok);
  }
  for (int m : {max_m, 1001, 77}) {
    CHECK(cudaMemset(dc, 0, cells * sizeof(float)));
    dim3 grid((m + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    mat_scale_tile<<<grid, dim3(TILE, TILE)>>>(m, da, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, cells * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t k = 0; k < cells; ++k) {
      float want = k < (size_t)m * m ? 2.0f * a[k] : 0.0f;
      ok = ok && std::fabs(c[k] - want) <= 1e-6f * std::fabs(want) + 1e-7f;
    }
    report("mat_scale_tile", m, ok);
  }
  for (int n : {(int)cells, 1000003, 100}) {
    int blocks = (n + SUM_BLOCK - 1) / SUM_BLOCK;
    CHECK(cudaMemset(dc, 0, cells * sizeof(float)));
    block_sums<<<blocks, SUM_BLOCK>>>(da, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int b = 0; b < blocks; ++b) {
      double want = 0, scale = 0;
      for (int i = b * SUM_BLOCK; i < n && i < (b + 1) * SUM_BLOCK; ++i)
        want += a[i], scale += std::fabs(a[i]);
      ok = ok && std::fabs(c[b] - want) <= 1e-5 * scale + 1e-6;
    }
    report("block_sums", n, ok);
  }
  const int channels = 64;
  for (auto [batch, spatial] : {std::pair{16, 4096}, std::pair{3, 3136}, std::pair{1, 100}}) {
    CHECK(cudaMemset(dc, 0, channels * sizeof(float)));
    channel_mean<<<channels, MEAN_THREADS>>>(da, batch, channels, spatial, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, channels * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int f = 0; f < channels; ++f) {
      double want = 0, scale = 0;
      for (int j = 0; j < batch; ++j)
        for (int i = 0; i < spatial; ++i) {
          float v = a[((size_t)j * channels + f) * spatial + i];
          want += v, scale += std::fabs(v);
        }
      want /= (double)spatial * batch;
      scale /= (double)spatial * batch;
      ok = ok && std::fabs(c[f] - want) <= 1e-5 * scale + 1e-6;
    }
    report("channel_mean", batch * spatial, ok);
  }
  for (size_t k = 0; k < cells; k += 5)
    a[k] = 0.0f; // not counted as nonzero
  CHECK(cudaMemcpy(da, a.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
  unsigned *dcount = nullptr;
  double *dnorm = nullptr;
  CHECK(cudaMalloc(&dcount, sizeof(unsigned)));
  CHECK(cudaMalloc(&dnorm, sizeof(double)));
  for (int n : {1 << 20, 100003, 100}) {
    CHECK(cudaMemset(dc, 0, sizeof(float)));
    CHECK(cudaMemset(dnorm, 0, sizeof(double)));
    CHECK(cudaMemset(dcount, 0, sizeof(unsigned)));
    dot_norm<<<64, 256>>>(n, da, db, dc, dnorm, dcount);
    CHECK(cudaGetLastError());
    float got = 0;
    double got_norm = 0;
    unsigned count = 0;
    CHECK(cudaMemcpy(&got, dc, sizeof(got), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got_norm, dnorm, sizeof(got_norm), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&count, dcount, sizeof(count), cudaMemcpyDeviceToHost));
    double dot = 0, dot_scale = 0, norm = 0;
    unsigned want_count = 0;
    for (int i = 0; i < n; ++i) {
      dot += (double)a[i] * b[i], dot_scale += std::fabs((double)a[i] * b[i]);
      norm += (double)a[i] * a[i];
      want_count += a[i] != 0.0f;
    }
    // Atomics add in any order: allow what reordering 1M terms can cost.
    bool ok = std::fabs(got - dot) <= 1e-4 * dot_scale + 1e-6 && std::fabs(got_norm - norm) <= 1e-9 * norm + 1e-12 &&
              count == want_count;
    report("dot_norm", n, ok);
  }
  for (auto [rows, cols] : {std::pair{2048, 1000}, std::pair{1001, 37}, std::pair{3, 5}}) {
    CHECK(cudaMemset(dc, 0, rows * sizeof(float)));
    row_totals<<<128, 256>>>(rows, cols, da, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, rows * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int r = 0; r < rows; ++r) {
      double want = 0, scale = 0;
      for (int j = 0; j < cols; ++j)
        want += a[(size_t)r * cols + j], scale += std::fabs(a[(size_t)r * cols + j]);
      ok = ok && std::fabs(c[r] - want) <= 1e-5 * scale + 1e-6;
    }
    report("row_totals", rows * cols, ok);
  }
  return 0;
}

// Naive cosine similarity of each embedding row with a query: one thread per
// row, the dot products in a __device__ helper called three times.
#include "bench_common.h"

__device__ float dot(const float *a, const float *b, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += a[j] * b[j];
  return s;
}

__global__ void cosine_sim(int rows, int dim, const float *emb, const float *query, float *sim) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *e = emb + (size_t)r * dim;
  float num = dot(e, query, dim);
  float den = sqrtf(dot(e, e, dim)) * sqrtf(dot(query, query, dim)) + 1e-8f;
  sim[r] = num / den;
}

int main(int argc, char **argv) {
  const int rows = 16384, dim = 512;
  auto e = bench::random_floats((size_t)rows * dim, 71);
  auto q = bench::random_floats(dim, 72);
  float *de = bench::to_device(e), *dq = bench::to_device(q), *ds = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { cosine_sim<<<(rows + 127) / 128, 128>>>(rows, dim, de, dq, ds); });
  double qq = 0;
  for (int j = 0; j < dim; ++j)
    qq += (double)q[j] * q[j];
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    double num = 0, ee = 0;
    for (int j = 0; j < dim; ++j) {
      num += (double)e[(size_t)r * dim + j] * q[j];
      ee += (double)e[(size_t)r * dim + j] * e[(size_t)r * dim + j];
    }
    want[r] = num / (std::sqrt(ee) * std::sqrt(qq) + 1e-8);
  }
  bool ok = bench::all_close(bench::to_host(ds, rows), want, 1e-4, 1e-5);
  return bench::report("cosine_sim", ok, ms, 4.0 * rows * dim, 4.0 * rows * dim);
}

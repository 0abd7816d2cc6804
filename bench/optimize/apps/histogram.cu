// Naive 256-bin histogram: one global atomicAdd per input byte.
#include "bench_common.h"

__global__ void histogram256(int n, const unsigned char *data, unsigned *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}

int main(int argc, char **argv) {
  const int n = 1 << 24;
  auto v = bench::random_ints(n, 12, 256);
  std::vector<unsigned char> bytes(v.begin(), v.end());
  unsigned char *dd = bench::to_device(bytes);
  unsigned *dbins = bench::device_zeros<unsigned>(256);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { CHECK(cudaMemset(dbins, 0, 256 * sizeof(unsigned))); },
      [&] { histogram256<<<(n + 255) / 256, 256>>>(n, dd, dbins); });
  std::vector<unsigned> want(256, 0);
  for (unsigned char b : bytes)
    ++want[b];
  auto got = bench::to_host(dbins, 256);
  bool ok = got == want;
  if (!ok) std::fprintf(stderr, "histogram differs (bin 0: got %u, want %u)\n", got[0], want[0]);
  return bench::report("histogram", ok, ms, 0, 1.0 * n);
}

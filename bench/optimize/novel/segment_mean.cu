// The mean of each segment of a sorted array, segments given by offsets
// (offsets[s] to offsets[s + 1]), one thread per segment: segment lengths vary
// from 0 to 2 * the average.
#include "bench_common.h"

__global__ void segment_mean(const float *v, const int *offsets, float *out, int segments) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < segments) {
    int lo = offsets[s], hi = offsets[s + 1];
    float acc = 0.f;
    for (int k = lo; k < hi; ++k)
      acc += v[k];
    out[s] = hi > lo ? acc / (hi - lo) : 0.f;
  }
}

int main(int argc, char **argv) {
  const int segments = 1 << 16, average = 128;
  std::vector<int> len = bench::random_ints(segments, 561, 2 * average + 1), offsets(segments + 1, 0);
  for (int s = 0; s < segments; ++s)
    offsets[s + 1] = offsets[s] + len[s];
  const int n = offsets[segments];
  auto v = bench::random_floats(n, 562);
  float *dv = bench::to_device(v), *dout = bench::device_zeros<float>(segments);
  int *doff = bench::to_device(offsets);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { segment_mean<<<(segments + 255) / 256, 256>>>(dv, doff, dout, segments); });
  std::vector<double> want(segments);
  for (int s = 0; s < segments; ++s) {
    double acc = 0;
    for (int k = offsets[s]; k < offsets[s + 1]; ++k)
      acc += v[k];
    want[s] = len[s] > 0 ? acc / len[s] : 0.0;
  }
  bool ok = bench::all_close(bench::to_host(dout, segments), want, 1e-3, 1e-4);
  return bench::report("segment_mean", ok, ms, 1.0 * n, 4.0 * ((double)n + 2.0 * segments));
}

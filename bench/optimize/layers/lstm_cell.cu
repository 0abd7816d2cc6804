// The pointwise part of an LSTM step: each cell's four gate pre-activations
// lie together (i, f, g, o), one thread per cell updates c and h.
#include "bench_common.h"

__device__ float sigmoidf(float v) { return 1.f / (1.f + expf(-v)); }

__global__ void lstm_cell(const float *gates, const float *c_prev, float *c, float *h, int cells) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < cells) {
    float ig = sigmoidf(gates[4 * k]);
    float fg = sigmoidf(gates[4 * k + 1]);
    float gg = tanhf(gates[4 * k + 2]);
    float og = sigmoidf(gates[4 * k + 3]);
    float cn = fg * c_prev[k] + ig * gg;
    c[k] = cn;
    h[k] = og * tanhf(cn);
  }
}

int main(int argc, char **argv) {
  const int cells = 1 << 22;
  auto gates = bench::random_floats(4 * (size_t)cells, 611, -3.f, 3.f), cp = bench::random_floats(cells, 612);
  float *dg = bench::to_device(gates), *dcp = bench::to_device(cp);
  float *dc = bench::device_zeros<float>(cells), *dh = bench::device_zeros<float>(cells);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { lstm_cell<<<(cells + 255) / 256, 256>>>(dg, dcp, dc, dh, cells); });
  std::vector<double> wc(cells), wh(cells);
  auto sig = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  for (int k = 0; k < cells; ++k) {
    double cn = sig(gates[4 * k + 1]) * cp[k] + sig(gates[4 * k]) * std::tanh((double)gates[4 * k + 2]);
    wc[k] = cn;
    wh[k] = sig(gates[4 * k + 3]) * std::tanh(cn);
  }
  bool ok = bench::all_close(bench::to_host(dc, cells), wc, 1e-5, 1e-5) &&
            bench::all_close(bench::to_host(dh, cells), wh, 1e-5, 1e-5);
  return bench::report("lstm_cell", ok, ms, 40.0 * cells, 4.0 * 7.0 * cells);
}

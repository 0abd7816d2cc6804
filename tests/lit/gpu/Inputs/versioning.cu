// Runs kernel WHICH of transform/Inputs/versioning.cu as written and as
// versioned on the values SPEC (VARIANT), once with the arguments the
// version was made for and once with others, and prints "<kernel> same"
// when every output is bitwise the original's both times.
//   0 filter2d (k, width, height), 1 add_bias (hw, c), 2 row_sums (per),
//   3 moving_sum (taps), 4 clamped_taps (taps, assigned in the body),
//   5 written_once (n, reps; a label, a directive, nested shared arrays)
#include "twin.h"

#if WHICH == 0
// The k x k filter over a width x height image; `k` odd.
bool run(int width, int height, int k) {
  const size_t n = (size_t)width * height;
  float *in = upload(values(n)), *w = upload(values(k * k));
  float *o0 = upload(std::vector<float>(n, -7)), *o1 = upload(std::vector<float>(n, -7));
  const dim3 grid(blocks(width, 16), blocks(height, 16)), block(16, 16);
  LAUNCH(orig::filter2d, grid, block, in, w, o0, width, height, k);
  LAUNCH(var::filter2d, grid, block, in, w, o1, width, height, k);
  return same("filter2d", download(o0, n), download(o1, n), 0);
}
#elif WHICH == 1
bool run(long n, unsigned hw, unsigned c) {
  std::vector<float> x = values(n);
  float *x0 = upload(x), *x1 = upload(x), *bias = upload(values(c));
  LAUNCH(orig::add_bias, blocks(n, 256), 256, x0, bias, n, hw, c);
  LAUNCH(var::add_bias, blocks(n, 256), 256, x1, bias, n, hw, c);
  return same("add_bias", download(x0, n), download(x1, n), 0);
}
#elif WHICH == 2
bool run(int rows, int per) {
  const int cols = 256 * per;
  float *x = upload(values((size_t)rows * cols));
  float *o0 = upload(std::vector<float>(rows, -7)), *o1 = upload(std::vector<float>(rows, -7));
  LAUNCH(orig::row_sums, rows, 256, x, o0, cols, per);
  LAUNCH(var::row_sums, rows, 256, x, o1, cols, per);
  return same("row_sums", download(o0, rows), download(o1, rows), 0);
}
#elif WHICH == 4
bool run(int n, int taps) {
  float *x = upload(values(n + 8));
  float *y0 = upload(std::vector<float>(n, -7)), *y1 = upload(std::vector<float>(n, -7));
  LAUNCH(orig::clamped_taps, blocks(n, 256), 256, x, y0, n, taps);
  LAUNCH(var::clamped_taps, blocks(n, 256), 256, x, y1, n, taps);
  return same("clamped_taps", download(y0, n), download(y1, n), 0);
}
#elif WHICH == 5
bool run(int n, int reps) {
  float *x = upload(values(n));
  float *y0 = upload(std::vector<float>(n, -7)), *y1 = upload(std::vector<float>(n, -7));
  LAUNCH(orig::written_once, blocks(n, 128), 128, x, y0, n, reps);
  LAUNCH(var::written_once, blocks(n, 128), 128, x, y1, n, reps);
  return same("written_once", download(y0, n), download(y1, n), 0);
}
#else
bool run(int n, int taps) {
  float *x = upload(values(n));
  float *y0 = upload(std::vector<float>(n, -7)), *y1 = upload(std::vector<float>(n, -7));
  LAUNCH(orig::moving_sum, blocks(n, 256), 256, x, y0, n, taps);
  LAUNCH(var::moving_sum, blocks(n, 256), 256, x, y1, n, taps);
  return same("moving_sum", download(y0, n), download(y1, n), 0);
}
#endif

int main() {
#if WHICH == 0
  bool ok = run(997, 131, 5) && run(997, 131, 3) && run(640, 77, 5);
  return verdict("filter2d", ok);
#elif WHICH == 1
  bool ok = run(1000003, 4096, 3) && run(1000003, 4095, 7) && run(77, 5, 3);
  return verdict("add_bias", ok);
#elif WHICH == 2
  bool ok = run(1001, 16) && run(333, 3);
  return verdict("row_sums", ok);
#elif WHICH == 4
  bool ok = run(100003, 4) && run(100003, 12) && run(31, 3);
  return verdict("clamped_taps", ok);
#elif WHICH == 5
  bool ok = run(4096, 3) && run(4096, 70) && run(1000, 3);
  return verdict("written_once", ok);
#else
  bool ok = run(100003, 33) && run(100003, 17) && run(31, 33);
  return verdict("moving_sum", ok);
#endif
}

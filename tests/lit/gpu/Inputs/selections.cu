// Runs kernel WHICH of transform/Inputs/argmax.cu as written and as rewritten
// (VARIANT, launched as its mapping says: ITEMS rows per block of BLOCK
// threads) on rows full of ties, NaNs, infinities and signed zeros, and
// prints "<kernel> same" when every output is bitwise equal, else the first
// difference.
#include "twin.h"

#include <climits>

namespace {

// Values with many ties: small integers, NaN, +-0 and +-inf; some rows all
// equal, all NaN or all +inf.
[[maybe_unused]] std::vector<float> tie_rows(int rows, int cols) {
  std::vector<float> x((size_t)rows * cols);
  unsigned s = 12345;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      s = s * 1664525u + 1013904223u;
      unsigned v = s >> 24;
      float f = (float)(v % 4);
      if (v % 53 == 0) f = NAN;
      if (v % 61 == 0) f = -0.0f;
      if (v % 67 == 0) f = (v & 1) ? INFINITY : -INFINITY;
      if (r % 97 == 1) f = 2.0f;
      if (r % 97 == 2) f = NAN;
      if (r % 97 == 3) f = INFINITY;
      x[(size_t)r * cols + c] = f;
    }
  return x;
}

// Integers with many ties, and the extremes.
[[maybe_unused]] std::vector<int> tie_ints(int rows, int cols) {
  std::vector<int> x((size_t)rows * cols);
  unsigned s = 54321;
  for (auto &v : x) {
    s = s * 1664525u + 1013904223u;
    unsigned u = s >> 24;
    v = u % 59 == 0 ? INT_MIN : u % 61 == 0 ? INT_MAX : (int)(u % 4) - 2;
  }
  return x;
}

} // namespace

int main() {
  const int rows = 1000, cols = 777;
  (void)cols;
  const dim3 grid((rows + 127) / 128), block(128);
  const dim3 vgrid((grid.x * block.x + ITEMS - 1) / ITEMS), vblock(BLOCK);
  bool ok = true;
  const char *name = "";
#if WHICH == 0
  name = "argmax_first";
  float *x = upload(tie_rows(rows, cols));
  int *a0 = upload(std::vector<int>(rows, 7)), *a1 = upload(std::vector<int>(rows, 7));
  float *m0 = upload(std::vector<float>(rows)), *m1 = upload(std::vector<float>(rows));
  LAUNCH(orig::argmax_first, grid, block, rows, cols, x, a0, m0);
  LAUNCH(var::argmax_first, vgrid, vblock, rows, cols, x, a1, m1);
  ok = same(name, download(a0, rows), download(a1, rows), 0) && same(name, download(m0, rows), download(m1, rows), 0);
#elif WHICH == 1
  name = "argmin_last";
  float *x = upload(tie_rows(rows, cols));
  int *a0 = upload(std::vector<int>(rows, 7)), *a1 = upload(std::vector<int>(rows, 7));
  LAUNCH(orig::argmin_last, grid, block, rows, cols, x, a0);
  LAUNCH(var::argmin_last, vgrid, vblock, rows, cols, x, a1);
  ok = same(name, download(a0, rows), download(a1, rows), 0);
#elif WHICH == 3
  name = "row_max_pick";
  float *x = upload(tie_rows(rows, cols));
  float *m0 = upload(std::vector<float>(rows)), *m1 = upload(std::vector<float>(rows));
  LAUNCH(orig::row_max_pick, grid, block, rows, cols, x, m0);
  LAUNCH(var::row_max_pick, vgrid, vblock, rows, cols, x, m1);
  ok = same(name, download(m0, rows), download(m1, rows), 0);
#elif WHICH == 4
  name = "row_max_keep";
  int *x = upload(tie_ints(rows, cols));
  int *m0 = upload(std::vector<int>(rows)), *m1 = upload(std::vector<int>(rows));
  LAUNCH(orig::row_max_keep, grid, block, rows, cols, x, m0);
  LAUNCH(var::row_max_keep, vgrid, vblock, rows, cols, x, m1);
  ok = same(name, download(m0, rows), download(m1, rows), 0);
#else
  name = "nearest";
  const int k = 37, d = 3;
  std::vector<float> pts((size_t)rows * d), cen((size_t)k * d);
  for (size_t i = 0; i < pts.size(); ++i)
    pts[i] = (float)((i * 7) % 5);
  for (size_t i = 0; i < cen.size(); ++i)
    cen[i] = (float)((i * 3) % 4);
  float *p = upload(pts), *c = upload(cen);
  int *l0 = upload(std::vector<int>(rows, 7)), *l1 = upload(std::vector<int>(rows, 7));
  float *k0 = upload(std::vector<float>(rows)), *k1 = upload(std::vector<float>(rows));
  LAUNCH(orig::nearest, grid, block, rows, k, d, p, c, l0, k0);
  LAUNCH(var::nearest, vgrid, vblock, rows, k, d, p, c, l1, k1);
  ok = same(name, download(l0, rows), download(l1, rows), 0) && same(name, download(k0, rows), download(k1, rows), 0);
#endif
  return verdict(name, ok);
}

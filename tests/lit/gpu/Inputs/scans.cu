// Runs kernel WHICH of transform/Inputs/scan.cu as written and as rewritten
// (VARIANT, launched as its mapping says: ITEMS rows per block of BLOCK
// threads) on rows of lengths no chunk divides, and prints "<kernel> same"
// when the outputs agree (bitwise for integers and maxima; for the float
// cumulative distribution within the bound of its reordered sums), else the
// first difference.
#include "twin.h"

int main() {
  const int rows = 300, cols = 1001;
  const size_t size = (size_t)rows * cols;
  const dim3 grid((rows + 127) / 128), block(128);
  const dim3 vgrid((grid.x * block.x + ITEMS - 1) / ITEMS), vblock(BLOCK);
  std::vector<float> xf(size);
  std::vector<int> xi(size);
  for (size_t i = 0; i < size; ++i) {
    xi[i] = (int)((i * 2654435761u) % 2001) - 1000;
    xf[i] = (float)((i * 40503u) % 1000) / 1000.0f;
    if (i % 37 == 0) xf[i] = -xf[i];
  }
  bool ok = true;
  const char *name = "";
#if WHICH == 0
  name = "cumsum_int";
  int *x = upload(xi);
  long long *y0 = upload(std::vector<long long>(size, 7)), *y1 = upload(std::vector<long long>(size, 7));
  LAUNCH(orig::cumsum_int, grid, block, rows, cols, x, y0);
  LAUNCH(var::cumsum_int, vgrid, vblock, rows, cols, x, y1);
  ok = same(name, download(y0, size), download(y1, size), 0);
#elif WHICH == 1
  name = "cummax";
  float *x = upload(xf);
  float *y0 = upload(std::vector<float>(size, 7)), *y1 = upload(std::vector<float>(size, 7));
  float *l0 = upload(std::vector<float>(rows, 7)), *l1 = upload(std::vector<float>(rows, 7));
  LAUNCH(orig::cummax, grid, block, rows, cols, x, y0, l0);
  LAUNCH(var::cummax, vgrid, vblock, rows, cols, x, y1, l1);
  ok = same(name, download(y0, size), download(y1, size), 0) && same(name, download(l0, rows), download(l1, rows), 0);
#else
  name = "cdf";
  float *p = upload(xf);
  float *o0 = upload(std::vector<float>(size, 7)), *o1 = upload(std::vector<float>(size, 7));
  LAUNCH(orig::cdf, grid, block, rows, cols, p, o0);
  LAUNCH(var::cdf, vgrid, vblock, rows, cols, p, o1);
  // At most `cols` terms of magnitude <= 1, divided by cols: reordering moves
  // each output by at most 2 * cols * 2^-24 * cols / cols.
  ok = same(name, download(o0, size), download(o1, size), 2.0 * cols * std::ldexp(1.0, -24));
#endif
  return verdict(name, ok);
}

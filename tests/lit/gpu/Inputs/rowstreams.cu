// Runs kernel WHICH of transform/Inputs/row-streams.cu as written and as
// rewritten by smem_transpose_staging's row form (VARIANT, in blocks of BX
// threads over the same rows) on ROWS rows of COLS columns, and prints
// "<kernel> same" when every output is bitwise equal:
//   0 welford, 1 iir_rows (NaNs in the rows, skipped), 2 decay_last,
//   3 seeded_decay (the first 9 columns, or all of them when fewer)
#include "twin.h"

int main() {
  const int rows = ROWS, cols = COLS;
  const unsigned grid = blocks(rows, 256), vgrid = blocks(grid * 256, BX);
  std::vector<float> x = values<float>((size_t)rows * cols);
  bool ok = true;
  const char *name = "";
#if WHICH == 0
  name = "welford";
  float *dx = upload(x);
  float *m0 = upload(std::vector<float>(rows, -7)), *m1 = upload(std::vector<float>(rows, -7));
  float *v0 = upload(std::vector<float>(rows, -7)), *v1 = upload(std::vector<float>(rows, -7));
  LAUNCH(orig::welford, grid, 256, dx, m0, v0, rows, cols);
  LAUNCH(var::welford, vgrid, BX, dx, m1, v1, rows, cols);
  ok = same(name, download(m0, rows), download(m1, rows), 0) && same(name, download(v0, rows), download(v1, rows), 0);
#elif WHICH == 1
  name = "iir_rows";
  for (size_t i = 0; i < x.size(); i += 7)
    x[i] = NAN;
  float *dx = upload(x), *dg = upload(values<float>((size_t)rows * cols + 3));
  std::vector<float> init((size_t)rows * cols, -7);
  float *y0 = upload(init), *y1 = upload(init);
  LAUNCH(orig::iir_rows, grid, 256, dx, dg, y0, rows, cols, 0.75f);
  LAUNCH(var::iir_rows, vgrid, BX, dx, dg, y1, rows, cols, 0.75f);
  ok = same(name, download(y0, init.size()), download(y1, init.size()), 0);
#elif WHICH == 2
  name = "decay_last"; // columns 0 to cols - 2 of rows cols wide
  double *dx = upload(values<double>((size_t)rows * cols));
  double *o0 = upload(std::vector<double>(rows, -7)), *o1 = upload(std::vector<double>(rows, -7));
  LAUNCH(orig::decay_last, grid, 256, dx, o0, rows, cols, cols - 2);
  LAUNCH(var::decay_last, vgrid, BX, dx, o1, rows, cols, cols - 2);
  ok = same(name, download(o0, rows), download(o1, rows), 0);
#elif WHICH == 3
  name = "seeded_decay";
  float *dx = upload(x);
  std::vector<float> init((size_t)rows * cols, -7);
  float *y0 = upload(init), *y1 = upload(init);
  const int warm = cols < 9 ? cols : 9;
  LAUNCH(orig::seeded_decay, grid, 256, dx, y0, rows, cols, warm, 0.25f);
  LAUNCH(var::seeded_decay, vgrid, BX, dx, y1, rows, cols, warm, 0.25f);
  ok = same(name, download(y0, init.size()), download(y1, init.size()), 0);
#endif
  return verdict(name, ok);
}

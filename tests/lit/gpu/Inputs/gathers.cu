// Runs kernel WHICH of transform/Inputs/gather2d.cu as written (16 x 16
// blocks) and as rewritten (VARIANT, launched as its mapping says: tiles of
// TILE, blocks of TILE x BY) on sizes no tile divides, and prints
// "<kernel> same" when every output is bitwise equal, else the first
// difference.
#include "twin.h"

int main() {
  const dim3 block(16, 16);
  bool ok = true;
  const char *name = "";
#if WHICH == 0
  name = "transpose_read";
  const int rows = 1000, cols = 777;
  const dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  const size_t size = (size_t)rows * cols;
  float *in = upload(values<float>(size));
  float *o0 = upload(std::vector<float>(size, -1.0f)), *o1 = upload(std::vector<float>(size, -1.0f));
  LAUNCH(orig::transpose_read, grid, block, rows, cols, in, o0);
  LAUNCH(var::transpose_read, dim3((grid.x * 16 + TILE - 1) / TILE, (grid.y * 16 + TILE - 1) / TILE), dim3(TILE, BY),
         rows, cols, in, o1);
  ok = same(name, download(o0, size), download(o1, size), 0);
#else
  name = "add_transpose";
  const int n = 999;
  const dim3 grid((n + 15) / 16, (n + 15) / 16);
  const size_t size = (size_t)n * n;
  double *a = upload(values<double>(size));
  double *o0 = upload(std::vector<double>(size, -1.0)), *o1 = upload(std::vector<double>(size, -1.0));
  LAUNCH(orig::add_transpose, grid, block, n, a, o0);
  LAUNCH(var::add_transpose, dim3((grid.x * 16 + TILE - 1) / TILE, (grid.y * 16 + TILE - 1) / TILE), dim3(TILE, BY), n,
         a, o1);
  ok = same(name, download(o0, size), download(o1, size), 0);
#endif
  return verdict(name, ok);
}

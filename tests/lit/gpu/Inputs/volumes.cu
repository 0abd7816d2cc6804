// Runs kernel WHICH of transform/Inputs/volume.cu as written and as
// rewritten (VARIANT, launched as its mapping says: UX x UY x UZ threads of
// the original per block, blocks of BX x BY x BZ threads) on sizes no block
// divides, and prints "<kernel> same" when the outputs agree bitwise:
// 0 stencil7, 1 box_axpy.
#include "twin.h"

int main() {
  const char *name = "";
  bool ok = true;
  const dim3 b0(8, 8, 8); // the original's launch
#if WHICH == 0
  name = "stencil7";
  const unsigned n = 67;
  const size_t cells = (size_t)n * n * n;
  float *x = upload(values(cells));
  float *y0 = upload(std::vector<float>(cells, -7)), *y1 = upload(std::vector<float>(cells, -7));
  const dim3 g0(blocks(n, 8), blocks(n, 8), blocks(n, 8));
  LAUNCH(orig::stencil7, g0, b0, x, y0, n, 0.5f, 0.1f, 0.1f, 0.1f, 0.1f, 0.05f, 0.05f);
  LAUNCH(var::stencil7, dim3(blocks(g0.x * 8, UX), blocks(g0.y * 8, UY), blocks(g0.z * 8, UZ)), dim3(BX, BY, BZ), x, y1,
         n, 0.5f, 0.1f, 0.1f, 0.1f, 0.1f, 0.05f, 0.05f);
  ok = same(name, download(y0, cells), download(y1, cells), 0);
#else
  name = "box_axpy";
  const int nx = 101, ny = 37, nz = 19;
  const size_t cells = (size_t)nx * ny * nz;
  float *x = upload(values(cells));
  std::vector<float> y(cells);
  for (size_t i = 0; i < cells; ++i)
    y[i] = (float)(i % 7) - 3;
  float *y0 = upload(y), *y1 = upload(y);
  const dim3 g0(blocks(nx, 8), blocks(ny, 8), blocks(nz, 8));
  LAUNCH(orig::box_axpy, g0, b0, nx, ny, nz, 1.5f, x, y0);
  LAUNCH(var::box_axpy, dim3(blocks(g0.x * 8, UX), blocks(g0.y * 8, UY), blocks(g0.z * 8, UZ)), dim3(BX, BY, BZ), nx,
         ny, nz, 1.5f, x, y1);
  ok = same(name, download(y0, cells), download(y1, cells), 0);
#endif
  return verdict(name, ok);
}

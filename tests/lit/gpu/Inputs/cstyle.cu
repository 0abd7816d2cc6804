// Runs kernel WHICH, written C-style, as written and as rewritten (VARIANT,
// launched as its mapping says: DX (DY) outputs per block in x (y), blocks
// of BX x BY) and prints "<kernel> same" when the outputs agree: bitwise for
// the staged copies, where each output's operations keep their order, and
// within the bound of reordered sums for the rows split across lanes.
//   0 blur_skip, 1 blur_rows, 2 filter2d (of radius RADIUS, 3 unless
//   defined), 5 batch_blur (transform/Inputs/borders.cu);
//   3 fir_c89 (transform/Inputs/fir-c89.cu); 4 row_norms
//   (transform/Inputs/rows-c89.cu)
#include "twin.h"

int main() {
  bool ok = true;
  const char *name = "";
#if WHICH <= 1
  // The image of the macros W x H (1000 x 77): no tile divides it.
  const int width = 1000, height = 77;
  const size_t n = (size_t)width * height;
  float *in = upload(values(n));
  float *o0 = upload(std::vector<float>(n, -7)), *o1 = upload(std::vector<float>(n, -7));
  const dim3 grid(blocks(width, 32), blocks(height, 8)), vgrid(blocks(grid.x * 32, DX), blocks(grid.y * 8, DY));
#if WHICH == 0
  name = "blur_skip";
  LAUNCH(orig::blur_skip, grid, dim3(32, 8), in, o0);
  LAUNCH(var::blur_skip, vgrid, dim3(BX, BY), in, o1);
#else
  name = "blur_rows";
  LAUNCH(orig::blur_rows, grid, dim3(32, 8), in, o0);
  LAUNCH(var::blur_rows, vgrid, dim3(BX, BY), in, o1);
#endif
  ok = same(name, download(o0, n), download(o1, n), 0);
#elif WHICH == 2
  name = "filter2d";
#ifndef RADIUS
#define RADIUS 3
#endif
  const int width = 997, height = 131, radius = RADIUS, side = 2 * radius + 1;
  const size_t n = (size_t)width * height;
  float *in = upload(values(n)), *w = upload(values(side * side));
  float *o0 = upload(std::vector<float>(n, -7)), *o1 = upload(std::vector<float>(n, -7));
  const dim3 grid(blocks(width, 16), blocks(height, 16));
  LAUNCH(orig::filter2d, grid, dim3(16, 16), in, w, o0, width, height, radius);
  LAUNCH(var::filter2d, dim3(blocks(grid.x * 16, DX), blocks(grid.y * 16, DY)), dim3(BX, BY), in, w, o1, width, height,
         radius);
  ok = same(name, download(o0, n), download(o1, n), 0);
#elif WHICH == 5
  name = "batch_blur";
  const int width = 333, height = 77, batch = 3;
  const size_t n = (size_t)width * height * batch;
  float *in = upload(values(n));
  float *o0 = upload(std::vector<float>(n, -7)), *o1 = upload(std::vector<float>(n, -7));
  const dim3 grid(blocks(width, 32), blocks(height, 8), batch);
  LAUNCH(orig::batch_blur, grid, dim3(32, 8), in, o0, width, height);
  LAUNCH(var::batch_blur, dim3(blocks(grid.x * 32, DX), blocks(grid.y * 8, DY), batch), dim3(BX, BY), in, o1, width,
         height);
  ok = same(name, download(o0, n), download(o1, n), 0);
#elif WHICH == 4
  name = "row_norms";
  const int rows = 1001, cols = 777; // neither a multiple of a warp or a block
  float *x = upload(values((size_t)rows * cols));
  float *y0 = upload(std::vector<float>(rows, -7)), *y1 = upload(std::vector<float>(rows, -7));
  const unsigned grid = blocks(rows, 128);
  LAUNCH(orig::row_norms, grid, 128, x, y0, rows, cols);
  LAUNCH(var::row_norms, blocks(grid * 128, DX), BX, x, y1, rows, cols);
  ok = same(name, download(y0, rows), download(y1, rows), 1e-3);
#else
  name = "fir_c89";
  const int n = 100003, taps = 17;
  float *x = upload(values(n)), *w = upload(values(taps));
  float *y0 = upload(std::vector<float>(n, -7)), *y1 = upload(std::vector<float>(n, -7));
  const unsigned grid = blocks(n, 256);
  LAUNCH(orig::fir_c89, grid, 256, x, w, y0, n, taps);
  LAUNCH(var::fir_c89, blocks(grid * 256, DX), BX, x, w, y1, n, taps);
  ok = same(name, download(y0, n), download(y1, n), 0);
#endif
  return verdict(name, ok);
}

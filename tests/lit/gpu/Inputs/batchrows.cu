// Runs kernel WHICH of ORIGINAL as written and as rewritten (VARIANT,
// launched as its mapping says: DX threads of the original (or of its
// form) per block in x, blocks of BX threads) and prints "<kernel> same"
// when the outputs agree within TOL (0: bitwise).
//   transform/Inputs/batch.cu, grid.y kept: 0 row_bias (the row in
//   blockIdx.y), 1 head_rowsum (the head in blockIdx.y);
//   transform/Inputs/blockstride.cu: 2 scale_rows (a block per row, its
//   form's grid ceil(cols / 128) x rows).
#include "twin.h"

int main() {
  const char *name = "";
  bool ok = true;
#if WHICH == 0
  name = "row_bias";
  const int rows = 37, cols = 1001; // cols: a multiple of no warp or block
  float *x = upload(values((size_t)rows * cols)), *b = upload(values(cols));
  float *y0 = upload(std::vector<float>((size_t)rows * cols, -7)),
        *y1 = upload(std::vector<float>((size_t)rows * cols, -7));
  const dim3 grid(blocks(cols, 128), rows);
  LAUNCH(orig::row_bias, grid, 128, cols, x, b, y0);
  LAUNCH(var::row_bias, dim3(blocks(grid.x * 128, DX), grid.y), BX, cols, x, b, y1);
  ok = same(name, download(y0, (size_t)rows * cols), download(y1, (size_t)rows * cols), TOL);
#elif WHICH == 2
  name = "scale_rows";
  const int rows = 37, cols = 1001;
  float *x = upload(values((size_t)rows * cols)), *f = upload(values(rows));
  float *y0 = upload(std::vector<float>((size_t)rows * cols, -7)),
        *y1 = upload(std::vector<float>((size_t)rows * cols, -7));
  LAUNCH(orig::scale_rows, rows, 128, cols, x, f, y0);
  LAUNCH(var::scale_rows, dim3(blocks(blocks(cols, 128) * 128, DX), rows), BX, cols, x, f, y1);
  ok = same(name, download(y0, (size_t)rows * cols), download(y1, (size_t)rows * cols), TOL);
#else
  name = "head_rowsum";
  const int heads = 5, rows = 1001, cols = 777;
  float *x = upload(values((size_t)heads * rows * cols));
  float *y0 = upload(std::vector<float>((size_t)heads * rows, -7)),
        *y1 = upload(std::vector<float>((size_t)heads * rows, -7));
  const dim3 grid(blocks(rows, 128), heads);
  LAUNCH(orig::head_rowsum, grid, 128, rows, cols, x, y0);
  LAUNCH(var::head_rowsum, dim3(blocks(grid.x * 128, DX), grid.y), BX, rows, cols, x, y1);
  ok = same(name, download(y0, (size_t)heads * rows), download(y1, (size_t)heads * rows), TOL);
#endif
  return verdict(name, ok);
}

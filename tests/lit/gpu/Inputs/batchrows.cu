// Runs kernel WHICH of transform/Inputs/batch.cu as written and as rewritten
// (VARIANT, launched as its mapping says: DX original threads per block in
// x, blocks of BX threads, grid.y kept) and prints "<kernel> same" when the
// outputs agree: bitwise for the row bias, within the bound of reordered
// sums for the head row sums (TOL).
//   0 row_bias (the row in blockIdx.y), 1 head_rowsum (the head in blockIdx.y)
#include "twin.h"

namespace {

std::vector<float> values(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (float)((long)((i * 2654435761u) % 2001) - 1000) / 1000.0f;
  return v;
}

unsigned blocks(unsigned items, unsigned per_block) { return (items + per_block - 1) / per_block; }

} // namespace

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
  orig::row_bias<<<grid, 128>>>(cols, x, b, y0);
  var::row_bias<<<dim3(blocks(grid.x * 128, DX), grid.y), BX>>>(cols, x, b, y1);
  ok = same(name, download(y0, (size_t)rows * cols), download(y1, (size_t)rows * cols), TOL);
#else
  name = "head_rowsum";
  const int heads = 5, rows = 1001, cols = 777;
  float *x = upload(values((size_t)heads * rows * cols));
  float *y0 = upload(std::vector<float>((size_t)heads * rows, -7)),
        *y1 = upload(std::vector<float>((size_t)heads * rows, -7));
  const dim3 grid(blocks(rows, 128), heads);
  orig::head_rowsum<<<grid, 128>>>(rows, cols, x, y0);
  var::head_rowsum<<<dim3(blocks(grid.x * 128, DX), grid.y), BX>>>(rows, cols, x, y1);
  ok = same(name, download(y0, (size_t)heads * rows), download(y1, (size_t)heads * rows), TOL);
#endif
  return verdict(name, ok);
}

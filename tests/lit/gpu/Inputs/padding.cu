// Runs kernel WHICH of transform/Inputs/padding.cu (0 to 3) or of
// transform/Inputs/dot-while.cu (4) as written and as rewritten (VARIANT,
// launched as written, or with block.x / ITEMS threads for the dot) on sizes
// no tile divides, and prints "<kernel> same" when every output is bitwise
// equal (within the bound of a reordered sum for the dot), else the first
// difference.
#include "twin.h"

int main() {
  bool ok = true;
  const char *name = "";
#if WHICH == 0
  name = "transpose_tiles";
  const int w = 1000, h = 777;
  const size_t size = (size_t)w * h;
  float *in = upload(values<float>(size));
  float *o0 = upload(std::vector<float>(size, -1.0f)), *o1 = upload(std::vector<float>(size, -1.0f));
  const dim3 grid(blocks(w, 32), blocks(h, 32)), block(32, 8);
  LAUNCH(orig::transpose_tiles, grid, block, o0, in, w, h);
  LAUNCH(var::transpose_tiles, grid, block, o1, in, w, h);
  ok = same(name, download(o0, size), download(o1, size), 0);
#elif WHICH == 1
  name = "transpose_doubles";
  const int n = 999;
  const size_t size = (size_t)n * n;
  double *in = upload(values<double>(size));
  double *o0 = upload(std::vector<double>(size, -1.0)), *o1 = upload(std::vector<double>(size, -1.0));
  const dim3 grid(blocks(n, 16), blocks(n, 16)), block(16, 16);
  LAUNCH(orig::transpose_doubles, grid, block, o0, in, n);
  LAUNCH(var::transpose_doubles, grid, block, o1, in, n);
  ok = same(name, download(o0, size), download(o1, size), 0);
#elif WHICH == 2
  name = "byte_rows";
  const int rows = 4099;
  std::vector<unsigned char> bytes((size_t)rows * 64);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = (unsigned char)(i * 2654435761u >> 7);
  unsigned char *in = upload(bytes);
  int *o0 = upload(std::vector<int>(rows, -1)), *o1 = upload(std::vector<int>(rows, -1));
  LAUNCH(orig::byte_rows, blocks(rows, 32), 128, in, o0, rows);
  LAUNCH(var::byte_rows, blocks(rows, 32), 128, in, o1, rows);
  ok = same(name, download(o0, rows), download(o1, rows), 0);
#elif WHICH == 3
  name = "planes";
  const int n = 2000;
  float *in = upload(values<float>((size_t)64 * n));
  float *o0 = upload(std::vector<float>(n, -1.0f)), *o1 = upload(std::vector<float>(n, -1.0f));
  LAUNCH(orig::planes, blocks(n, 32), dim3(32, 8), o0, in, n);
  LAUNCH(var::planes, blocks(n, 32), dim3(32, 8), o1, in, n);
  ok = same(name, download(o0, n), download(o1, n), 0);
#else
  name = "dot_partials";
  const int n = 1000003, grid = 40;
  float *a = upload(values<float>(n)), *b = upload(values<float>(n + 7));
  float *o0 = upload(std::vector<float>(grid, -1.0f)), *o1 = upload(std::vector<float>(grid, -1.0f));
  LAUNCH(orig::dot_partials, grid, 256, n, a, b, o0);
  LAUNCH(var::dot_partials, grid, 256 / ITEMS, n, a, b, o1);
  // Each partial sums about n / grid products of magnitude at most 1.
  ok = same(name, download(o0, grid), download(o1, grid), 1e-6 * 256 * (n / grid / 256 + 1) * 8);
#endif
  return verdict(name, ok);
}

// Runs kernel WHICH of transform/Inputs/split-index.cu as written (blocks of
// 256 threads over the flattened output, or a fixed grid of them for a
// grid-stride loop) and as rewritten (VARIANT, launched
// as its mapping says: the form's 32 x 8 blocks over W columns, re-cut in
// units of UX x UY threads, each a block of BX x BY) on sizes no tile
// divides, and prints "<kernel> same" when every output is bitwise equal.
#include "twin.h"

int main() {
  const unsigned block = 256, form_bx = 32, form_by = block / 32;
  bool ok = true;
  const char *name = "";
#if WHICH == 0
  name = "mm_flat";
  const int M = 333, K = 77, N = 101;
  float *A = upload(values<float>((size_t)M * K)), *B = upload(values<float>((size_t)K * N));
  float *c0 = upload(std::vector<float>((size_t)M * N, -1.0f)), *c1 = upload(std::vector<float>((size_t)M * N, -1.0f));
  LAUNCH(orig::mm_flat, blocks(M * N, block), block, c0, A, B, M, K, N);
  const unsigned fx = blocks(N, 32) * form_bx, fy = blocks(M, form_by) * form_by;
  LAUNCH(var::mm_flat, dim3(blocks(fx, UX), blocks(fy, UY)), dim3(BX, BY), c1, A, B, M, K, N);
  ok = same(name, download(c0, (size_t)M * N), download(c1, (size_t)M * N), 0);
#elif WHICH == 3
  name = "mm_rows";
  const unsigned M = 257, K = 45, N = 130;
  float *A = upload(values<float>((size_t)M * K)), *B = upload(values<float>((size_t)K * N));
  float *c0 = upload(std::vector<float>((size_t)M * N, -1.0f)), *c1 = upload(std::vector<float>((size_t)M * N, -1.0f));
  LAUNCH(orig::mm_rows, blocks(M * N, block), block, A, B, c0, M, K, N);
  const unsigned fx = blocks(N, 32) * form_bx, fy = blocks(M, form_by) * form_by;
  LAUNCH(var::mm_rows, dim3(blocks(fx, UX), blocks(fy, UY)), dim3(BX, BY), A, B, c1, M, K, N);
  ok = same(name, download(c0, (size_t)M * N), download(c1, (size_t)M * N), 0);
#elif WHICH == 4
  name = "mm_gs"; // a grid-stride loop, launched with a fixed grid
  const int M = 333, K = 77, N = 101;
  float *A = upload(values<float>((size_t)M * K)), *B = upload(values<float>((size_t)K * N));
  float *c0 = upload(std::vector<float>((size_t)M * N, -1.0f)), *c1 = upload(std::vector<float>((size_t)M * N, -1.0f));
  LAUNCH(orig::mm_gs, 40, block, A, B, c0, M, K, N);
  const unsigned fx = blocks(N, 32) * form_bx, fy = blocks(M, form_by) * form_by;
  LAUNCH(var::mm_gs, dim3(blocks(fx, UX), blocks(fy, UY)), dim3(BX, BY), A, B, c1, M, K, N);
  ok = same(name, download(c0, (size_t)M * N), download(c1, (size_t)M * N), 0);
#elif WHICH == 5
  name = "transpose_gs";
  const int rows = 1000, cols = 777;
  const size_t size = (size_t)rows * cols;
  float *in = upload(values<float>(size));
  float *o0 = upload(std::vector<float>(size, -1.0f)), *o1 = upload(std::vector<float>(size, -1.0f));
  LAUNCH(orig::transpose_gs, 100, block, in, o0, rows, cols);
  const unsigned fx = blocks(cols, 32) * form_bx, fy = blocks(rows, form_by) * form_by;
  LAUNCH(var::transpose_gs, dim3(blocks(fx, UX), blocks(fy, UY)), dim3(BX, BY), in, o1, rows, cols);
  ok = same(name, download(o0, size), download(o1, size), 0);
#elif WHICH == 2
  name = "scale_transpose";
  const int rows = 1000, cols = 777, n = rows * cols - 300; // the last row partly
  float *in = upload(values<float>((size_t)n));
  float *o0 = upload(std::vector<float>((size_t)rows * cols, -1.0f));
  float *o1 = upload(std::vector<float>((size_t)rows * cols, -1.0f));
  LAUNCH(orig::scale_transpose, blocks(n, block), block, in, o0, 1.5f, n, rows, cols);
  const unsigned fx = blocks(cols, 32) * form_bx, fy = blocks(blocks(n, cols), form_by) * form_by;
  LAUNCH(var::scale_transpose, dim3(blocks(fx, UX), blocks(fy, UY)), dim3(BX, BY), in, o1, 1.5f, n, rows, cols);
  ok = same(name, download(o0, (size_t)rows * cols), download(o1, (size_t)rows * cols), 0);
#else
  name = "transpose_flat";
  const int rows = 1000, cols = 777;
  const size_t size = (size_t)rows * cols;
  float *in = upload(values<float>(size));
  float *o0 = upload(std::vector<float>(size, -1.0f)), *o1 = upload(std::vector<float>(size, -1.0f));
  LAUNCH(orig::transpose_flat, blocks(size, block), block, in, o0, rows, cols);
  const unsigned fx = blocks(cols, 32) * form_bx, fy = blocks(rows, form_by) * form_by;
  LAUNCH(var::transpose_flat, dim3(blocks(fx, UX), blocks(fy, UY)), dim3(BX, BY), in, o1, rows, cols);
  ok = same(name, download(o0, size), download(o1, size), 0);
#endif
  return verdict(name, ok);
}

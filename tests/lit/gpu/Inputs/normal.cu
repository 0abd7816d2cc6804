// Runs kernel WHICH as written and as rewritten (VARIANT, launched as its
// mapping says: DX (DY) items per block in x (y), blocks of BX x BY) and
// prints "<kernel> same" when the outputs agree: bitwise for the histogram,
// within the bound of reordered sums for the rows.
//   0 helper_matvec, 1 helper_norms, 2 while_rowsum, 4 helper_reference
//   (transform/Inputs/helpers.cu); 3 histogram2d (transform/Inputs/histogram2d.cu);
//   5 acc_matmul (bitwise), 6 acc_rows, 7 acc_nested, 8 acc_bias (bitwise)
//   (transform/Inputs/accumulators.cu); 9 mm_rowptr, 10 scores (bitwise)
//   (transform/Inputs/row-pointers.cu); 11 norm_rows, 12 softmax_inplace,
//   13 masked_reads (bitwise, blocks of BX threads, a row per block;
//   transform/Inputs/block-rows.cu)
#include "twin.h"

int main() {
  bool ok = true;
  const char *name = "";
#if WHICH != 3 && WHICH != 5 && (WHICH < 8 || WHICH > 13)
  const int rows = 1001, n = 777; // neither a multiple of a warp or a block
  const unsigned grid = blocks(rows, 128), covered = grid * 128;
  const dim3 vgrid(blocks(covered, DX)), vblock(BX, BY);
#endif
#if WHICH == 0
  name = "helper_matvec";
  float *A = upload(values<float>((size_t)rows * n)), *x = upload(values<float>(n));
  float *y0 = upload(std::vector<float>(rows, -7)), *y1 = upload(std::vector<float>(rows, -7));
  LAUNCH(orig::helper_matvec, grid, 128, rows, n, A, x, y0);
  LAUNCH(var::helper_matvec, vgrid, vblock, rows, n, A, x, y1);
  ok = same(name, download(y0, rows), download(y1, rows), 1e-3);
#elif WHICH == 1
  name = "helper_norms";
  float *A = upload(values<float>((size_t)rows * n));
  float *y0 = upload(std::vector<float>(rows, -7)), *y1 = upload(std::vector<float>(rows, -7));
  LAUNCH(orig::helper_norms, grid, 128, rows, n, A, y0);
  LAUNCH(var::helper_norms, vgrid, vblock, rows, n, A, y1);
  ok = same(name, download(y0, rows), download(y1, rows), 1e-3);
#elif WHICH == 2
  name = "while_rowsum";
  double *m = upload(values<double>((size_t)rows * n));
  double *y0 = upload(std::vector<double>(rows, -7)), *y1 = upload(std::vector<double>(rows, -7));
  LAUNCH(orig::while_rowsum, grid, 128, m, y0, rows, n);
  LAUNCH(var::while_rowsum, vgrid, vblock, m, y1, rows, n);
  ok = same(name, download(y0, rows), download(y1, rows), 1e-9);
#elif WHICH == 4
  name = "helper_reference";
  float *A = upload(values<float>((size_t)rows * n));
  float *y0 = upload(std::vector<float>(rows, -7)), *y1 = upload(std::vector<float>(rows, -7));
  LAUNCH(orig::helper_reference, grid, 128, rows, n, A, y0);
  LAUNCH(var::helper_reference, vgrid, vblock, rows, n, A, y1);
  ok = same(name, download(y0, rows), download(y1, rows), 1e-3);
#elif WHICH == 5
  name = "acc_matmul";
  const int n = 333; // no tile divides it
  float *A = upload(values<float>((size_t)n * n)), *B = upload(values<float>((size_t)n * n));
  float *c0 = upload(std::vector<float>((size_t)n * n, -7)), *c1 = upload(std::vector<float>((size_t)n * n, -7));
  const dim3 grid(blocks(n, 16), blocks(n, 16));
  LAUNCH(orig::acc_matmul, grid, dim3(16, 16), A, B, c0, n);
  LAUNCH(var::acc_matmul, dim3(blocks(grid.x * 16, DX), blocks(grid.y * 16, DY)), dim3(BX, BY), A, B, c1, n);
  ok = same(name, download(c0, (size_t)n * n), download(c1, (size_t)n * n), 0);
#elif WHICH == 6
  name = "acc_rows";
  double *x = upload(values<double>((size_t)rows * n));
  double *y0 = upload(std::vector<double>(rows, -7)), *y1 = upload(std::vector<double>(rows, -7));
  LAUNCH(orig::acc_rows, grid, 128, x, y0, rows, n);
  LAUNCH(var::acc_rows, vgrid, vblock, x, y1, rows, n);
  ok = same(name, download(y0, rows), download(y1, rows), 1e-12);
#elif WHICH == 7
  name = "acc_nested";
  const int batch = 3; // rows filters of n positions, per sample
  float *d = upload(values<float>((size_t)batch * rows * n));
  float *s0 = upload(std::vector<float>(rows, -7)), *s1 = upload(std::vector<float>(rows, -7));
  LAUNCH(orig::acc_nested, grid, 128, d, s0, batch, rows, n);
  LAUNCH(var::acc_nested, vgrid, vblock, d, s1, batch, rows, n);
  ok = same(name, download(s0, rows), download(s1, rows), 1e-3);
#elif WHICH == 8
  name = "acc_bias";
  const int M = 333, N = 201, K = 77; // no tile divides them
  float *A = upload(values<float>((size_t)M * K)), *W = upload(values<float>((size_t)K * N));
  float *bias = upload(values<float>(N));
  float *o0 = upload(std::vector<float>((size_t)M * N, -7)), *o1 = upload(std::vector<float>((size_t)M * N, -7));
  const dim3 grid(blocks(N, 16), blocks(M, 16));
  LAUNCH(orig::acc_bias, grid, dim3(16, 16), A, W, bias, o0, M, N, K);
  LAUNCH(var::acc_bias, dim3(blocks(grid.x * 16, DX), blocks(grid.y * 16, DY)), dim3(BX, BY), A, W, bias, o1, M, N, K);
  ok = same(name, download(o0, (size_t)M * N), download(o1, (size_t)M * N), 0);
#elif WHICH == 9
  name = "mm_rowptr";
  const int M = 333, N = 201, K = 77; // no tile divides them
  float *A = upload(values<float>((size_t)M * K)), *B = upload(values<float>((size_t)K * N));
  float *c0 = upload(std::vector<float>((size_t)M * N, -7)), *c1 = upload(std::vector<float>((size_t)M * N, -7));
  const dim3 grid(blocks(N, 16), blocks(M, 16));
  LAUNCH(orig::mm_rowptr, grid, dim3(16, 16), A, B, c0, M, N, K);
  LAUNCH(var::mm_rowptr, dim3(blocks(grid.x * 16, DX), blocks(grid.y * 16, DY)), dim3(BX, BY), A, B, c1, M, N, K);
  ok = same(name, download(c0, (size_t)M * N), download(c1, (size_t)M * N), 0);
#elif WHICH == 10
  name = "scores";
  const int heads = 3, seq = 101, d = 37; // no tile divides them
  float *Q = upload(values<float>((size_t)heads * seq * d)), *Kt = upload(values<float>((size_t)heads * seq * d));
  const size_t out = (size_t)heads * seq * seq;
  float *s0 = upload(std::vector<float>(out, -7)), *s1 = upload(std::vector<float>(out, -7));
  const dim3 grid(blocks(seq, 16), blocks(seq, 16), heads);
  LAUNCH(orig::scores, grid, dim3(16, 16), Q, Kt, s0, seq, d, 0.125f);
  LAUNCH(var::scores, dim3(blocks(grid.x * 16, DX), blocks(grid.y * 16, DY), heads), dim3(BX, BY), Q, Kt, s1, seq, d,
         0.125f);
  ok = same(name, download(s0, out), download(s1, out), 0);
#elif WHICH == 11
  name = "norm_rows";
  const int rows = 37, cols = COLS;
  float *x = upload(values<float>((size_t)rows * cols)), *g = upload(values<float>(cols)),
        *b = upload(values<float>(cols));
  float *y0 = upload(std::vector<float>((size_t)rows * cols, -7)),
        *y1 = upload(std::vector<float>((size_t)rows * cols, -7));
  LAUNCH(orig::norm_rows, rows, BX, x, y0, g, b, cols, 1e-5f);
  LAUNCH(var::norm_rows, rows, BX, x, y1, g, b, cols, 1e-5f);
  ok = same(name, download(y0, (size_t)rows * cols), download(y1, (size_t)rows * cols), 0);
#elif WHICH == 12
  name = "softmax_inplace";
  const int rows = 37, n = COLS;
  std::vector<float> h = values<float>((size_t)rows * n);
  float *x0 = upload(h), *x1 = upload(h);
  LAUNCH(orig::softmax_inplace, rows, BX, x0, n);
  LAUNCH(var::softmax_inplace, rows, BX, x1, n);
  ok = same(name, download(x0, (size_t)rows * n), download(x1, (size_t)rows * n), 0);
#elif WHICH == 13
  name = "masked_reads";
  const int rows = 37, n = COLS;
  float *x = upload(values<float>((size_t)rows * n));
  std::vector<int> m(n);
  for (int c = 0; c < n; ++c)
    m[c] = (c * 7) % 3 != 0;
  int *mask = upload(m);
  float *y0 = upload(std::vector<float>((size_t)rows * n, -7)), *y1 = upload(std::vector<float>((size_t)rows * n, -7));
  LAUNCH(orig::masked_reads, rows, BX, x, mask, y0, n);
  LAUNCH(var::masked_reads, rows, BX, x, mask, y1, n);
  ok = same(name, download(y0, (size_t)rows * n), download(y1, (size_t)rows * n), 0);
#else
  name = "histogram2d";
  const int width = 1000, height = 999;
  std::vector<unsigned char> img((size_t)width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      img[(size_t)y * width + x] = (unsigned char)((x / 16 + y / 16 + (x * 7 + y * 13) % 5) & 255);
  unsigned char *d = upload(img);
  unsigned *h0 = upload(std::vector<unsigned>(256, 3)), *h1 = upload(std::vector<unsigned>(256, 3));
  const dim3 grid(blocks(width, 32), blocks(height, 8));
  LAUNCH(orig::histogram2d, grid, dim3(32, 8), d, width, height, h0);
  LAUNCH(var::histogram2d, dim3(blocks(grid.x * 32, DX), blocks(grid.y * 8, DY)), dim3(BX, BY), d, width, height, h1);
  ok = same(name, download(h0, 256), download(h1, 256), 0);
#endif
  return verdict(name, ok);
}

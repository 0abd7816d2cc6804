// Runs kernel WHICH of transform/Inputs/update-streams.cu as written and
// as vectorized_loads or cache_hint_streaming rewrote it (VARIANT, launched
// as its mapping says: DX threads of the original per block, blocks of BX
// threads), on 1001, 4096 and 3 items (no vector, warp or block divides
// the first or the last), and prints "<kernel> same" when every output is
// bitwise the original's:
//   0 axpy_update, also with x and y the same array (each item reads its
//   own element before storing it, so the result is defined);
//   1 accumulate (8-byte elements); 2 scale_keep; 3 sgd_momentum and
//   4 store_twice (read after stores; their distinct pointers are the
//   mapping's precondition); 5 relu_inplace (a read behind a branch).
#include "twin.h"

// Whether the rewrite of kernel WHICH computes what the original does on n items.
bool check(const char *&name, int n) {
  const unsigned grid = blocks(n, 128), vgrid = blocks(grid * 128, DX);
  bool ok = true;
#if WHICH == 0
  name = "axpy_update";
  float *x = upload(values(n)), *y0 = upload(values(n + 7)), *y1 = upload(values(n + 7));
  LAUNCH(orig::axpy_update, grid, 128, n, 1.5f, x, y0);
  LAUNCH(var::axpy_update, vgrid, BX, n, 1.5f, x, y1);
  ok = same(name, download(y0, n + 7), download(y1, n + 7), 0);
  LAUNCH(orig::axpy_update, grid, 128, n, -0.25f, y0, y0);
  LAUNCH(var::axpy_update, vgrid, BX, n, -0.25f, y1, y1);
  ok = ok && same(name, download(y0, n + 7), download(y1, n + 7), 0);
#elif WHICH == 1
  name = "accumulate";
  double *x = upload(values<double>(n)), *y0 = upload(values<double>(n + 3)), *y1 = upload(values<double>(n + 3));
  LAUNCH(orig::accumulate, grid, 128, n, x, y0);
  LAUNCH(var::accumulate, vgrid, BX, n, x, y1);
  ok = same(name, download(y0, n + 3), download(y1, n + 3), 0);
#elif WHICH == 3
  name = "sgd_momentum";
  float *g = upload(values(n)), *w0 = upload(values(n + 1)), *w1 = upload(values(n + 1));
  float *v0 = upload(values(n + 2)), *v1 = upload(values(n + 2));
  LAUNCH(orig::sgd_momentum, grid, 128, w0, v0, g, 0.125f, 0.9f, n);
  LAUNCH(var::sgd_momentum, vgrid, BX, w1, v1, g, 0.125f, 0.9f, n);
  ok = same(name, download(w0, n + 1), download(w1, n + 1), 0) &&
       same(name, download(v0, n + 2), download(v1, n + 2), 0);
#elif WHICH == 4
  name = "store_twice";
  float *x = upload(values(n)), *y0 = upload(std::vector<float>(n + 1, -7)),
        *y1 = upload(std::vector<float>(n + 1, -7));
  float *z0 = upload(std::vector<float>(n + 1, 5)), *z1 = upload(std::vector<float>(n + 1, 5));
  LAUNCH(orig::store_twice, grid, 128, n, x, y0, z0);
  LAUNCH(var::store_twice, vgrid, BX, n, x, y1, z1);
  ok = same(name, download(y0, n + 1), download(y1, n + 1), 0) &&
       same(name, download(z0, n + 1), download(z1, n + 1), 0);
#elif WHICH == 5
  name = "relu_inplace";
  float *x0 = upload(values(n + 1)), *x1 = upload(values(n + 1));
  LAUNCH(orig::relu_inplace, grid, 128, n, x0);
  LAUNCH(var::relu_inplace, vgrid, BX, n, x1);
  ok = same(name, download(x0, n + 1), download(x1, n + 1), 0);
#else
  name = "scale_keep";
  std::vector<int> h(n + 5);
  for (int i = 0; i < n + 5; ++i)
    h[i] = (i * 7919) % 1009 - 500;
  int *y0 = upload(h), *y1 = upload(h), *o0 = upload(std::vector<int>(n + 5, -7)),
      *o1 = upload(std::vector<int>(n + 5, -7));
  LAUNCH(orig::scale_keep, grid, 128, n, y0, o0, 3);
  LAUNCH(var::scale_keep, vgrid, BX, n, y1, o1, 3);
  ok = same(name, download(y0, n + 5), download(y1, n + 5), 0) &&
       same(name, download(o0, n + 5), download(o1, n + 5), 0);
#endif
  return ok;
}

int main() {
  const char *name = "";
  bool ok = true;
  for (int n : {1001, 4096, 3})
    ok = ok && check(name, n);
  return verdict(name, ok);
}

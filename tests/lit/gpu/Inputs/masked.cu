// Runs kernel WHICH of transform/Inputs/masked-stores.cu as written and as
// vectorized_loads or cache_hint_streaming rewrote it (VARIANT, launched as
// its mapping says: DX threads of the original per block, blocks of BX
// threads), on 1001, 4096 and 3 items (no vector, warp or block divides the
// first or the last), with outputs that start at values the kernel may
// leave, and prints "<kernel> same" when every output is bitwise the
// original's. Each kernel runs twice: with tests some items pass and some
// fail, and with tests every item passes (the whole-vector store of a
// mask). 0 clamp_some, 1 relu_backward, 2 leaky_relu, 3 dropout_inplace,
// 4 dropout_select (also in place on its test's array, which its mapping
// allows), 5 clamp_copy, 6 store_then_read, 7 mark_negative (1-byte
// elements, 16 items per thread).
#include "twin.h"

// v, each element shifted by `by`.
std::vector<float> shifted(std::vector<float> v, float by) {
  for (float &e : v)
    e += by;
  return v;
}

// Whether the rewrite of kernel WHICH computes what the original does on n
// items; `all`: with tests every item passes.
bool check(const char *&name, int n, bool all) {
  const unsigned grid = blocks(n, 128), vgrid = blocks(grid * 128, DX);
  const float t = all ? 2.0f : 0.25f; // the values lie in [-1, 1]
  bool ok = true;
#if WHICH == 0
  name = "clamp_some";
  float *x0 = upload(values(n + 3)), *x1 = upload(values(n + 3));
  LAUNCH(orig::clamp_some, grid, 128, n, x0, all ? -2.0f : 0.25f);
  LAUNCH(var::clamp_some, vgrid, BX, n, x1, all ? -2.0f : 0.25f);
  ok = same(name, download(x0, n + 3), download(x1, n + 3), 0);
#elif WHICH == 1
  name = "relu_backward";
  float *x = upload(shifted(values(n), all ? -2.0f : 0.0f));
  float *d0 = upload(std::vector<float>(n + 5, 7.0f)), *d1 = upload(std::vector<float>(n + 5, 7.0f));
  LAUNCH(orig::relu_backward, grid, 128, n, x, d0);
  LAUNCH(var::relu_backward, vgrid, BX, n, x, d1);
  ok = same(name, download(d0, n + 5), download(d1, n + 5), 0);
#elif WHICH == 2
  name = "leaky_relu";
  float *x = upload(shifted(values(n), all ? 2.0f : 0.0f));
  float *y0 = upload(std::vector<float>(n + 1, 7.0f)), *y1 = upload(std::vector<float>(n + 1, 7.0f));
  LAUNCH(orig::leaky_relu, grid, 128, n, x, y0, 0.125f);
  LAUNCH(var::leaky_relu, vgrid, BX, n, x, y1, 0.125f);
  ok = same(name, download(y0, n + 1), download(y1, n + 1), 0);
#elif WHICH == 3 || WHICH == 4
  float *r = upload(values(n)), *x0 = upload(values(n + 2)), *x1 = upload(values(n + 2));
#if WHICH == 3
  name = "dropout_inplace";
  LAUNCH(orig::dropout_inplace, grid, 128, n, x0, r, t, 1.25f);
  LAUNCH(var::dropout_inplace, vgrid, BX, n, x1, r, t, 1.25f);
#else
  name = "dropout_select";
  LAUNCH(orig::dropout_select, grid, 128, n, x0, r, t, 1.25f);
  LAUNCH(var::dropout_select, vgrid, BX, n, x1, r, t, 1.25f);
  ok = same(name, download(x0, n + 2), download(x1, n + 2), 0);
  LAUNCH(orig::dropout_select, grid, 128, n, x0, x0, t, 1.25f);
  LAUNCH(var::dropout_select, vgrid, BX, n, x1, x1, t, 1.25f);
#endif
  ok = ok && same(name, download(x0, n + 2), download(x1, n + 2), 0);
#elif WHICH == 5
  name = "clamp_copy";
  float *x = upload(values(n)), *y0 = upload(shifted(values(n + 4), all ? 2.0f : 0.0f));
  float *y1 = upload(shifted(values(n + 4), all ? 2.0f : 0.0f));
  LAUNCH(orig::clamp_copy, grid, 128, n, x, y0);
  LAUNCH(var::clamp_copy, vgrid, BX, n, x, y1);
  ok = same(name, download(y0, n + 4), download(y1, n + 4), 0);
#elif WHICH == 6
  name = "store_then_read";
  float *x = upload(values(n)), *y0 = upload(std::vector<float>(n + 1, 3.0f)),
        *y1 = upload(std::vector<float>(n + 1, 3.0f));
  float *z0 = upload(std::vector<float>(n + 1, 5.0f)), *z1 = upload(std::vector<float>(n + 1, 5.0f));
  LAUNCH(orig::store_then_read, grid, 128, n, x, y0, z0, all ? -2.0f : 0.25f);
  LAUNCH(var::store_then_read, vgrid, BX, n, x, y1, z1, all ? -2.0f : 0.25f);
  ok = same(name, download(y0, n + 1), download(y1, n + 1), 0) &&
       same(name, download(z0, n + 1), download(z1, n + 1), 0);
#else
  name = "mark_negative";
  std::vector<signed char> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = all ? -1 - i % 100 : (signed char)((i * 7919) % 201 - 100);
  signed char *x = upload(h), *f0 = upload(std::vector<signed char>(n + 9, 9)),
              *f1 = upload(std::vector<signed char>(n + 9, 9));
  LAUNCH(orig::mark_negative, grid, 128, n, x, f0);
  LAUNCH(var::mark_negative, vgrid, BX, n, x, f1);
  ok = same(name, download(f0, n + 9), download(f1, n + 9), 0);
#endif
  return ok;
}

int main() {
  const char *name = "";
  bool ok = true;
  for (int n : {1001, 4096, 3})
    for (bool all : {false, true})
      ok = ok && check(name, n, all);
  return verdict(name, ok);
}

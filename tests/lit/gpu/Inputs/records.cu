// Runs kernel WHICH of transform/Inputs/record-streams.cu as written and as
// vectorized_loads rewrote it (VARIANT, launched as its mapping says: DX
// threads of the original per block, blocks of BX threads), on 1001, 4096
// and 3 items (no vector, warp or block divides the first or the last), with
// outputs one record longer than the items' and filled with a value neither
// writes, and prints "<kernel> same" when every output is bitwise the
// original's: 0 rotate_pairs (pairs), 1 lstm_gates (records of 4), 2 rgb_gray
// (records of 3 bytes, 16 items per thread), 3 rgb_luma (a 12-byte vector)
// and 4 complex_scale (pairs updated in place).
#include "twin.h"

// n bytes spread by a multiplicative hash of the index.
std::vector<unsigned char> bytes(size_t n) {
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (unsigned char)((i * 2654435761u) >> 7);
  return v;
}

// Whether the rewrite of kernel WHICH computes what the original does on n items.
bool check(const char *&name, int n) {
  const unsigned grid = blocks(n, 128), vgrid = blocks(grid * 128, DX);
  bool ok = true;
#if WHICH == 0
  name = "rotate_pairs";
  float *x = upload(values(2 * n)), *cs = upload(values(n + 1)), *sn = upload(values(n + 2));
  float *y0 = upload(std::vector<float>(2 * n + 2, 7.0f)), *y1 = upload(std::vector<float>(2 * n + 2, 7.0f));
  LAUNCH(orig::rotate_pairs, grid, 128, x, cs, sn, y0, n);
  LAUNCH(var::rotate_pairs, vgrid, BX, x, cs, sn, y1, n);
  ok = same(name, download(y0, 2 * n + 2), download(y1, 2 * n + 2), 0);
#elif WHICH == 1
  name = "lstm_gates";
  float *g = upload(values(4 * n)), *cp = upload(values(n));
  float *c0 = upload(std::vector<float>(n + 1, 7.0f)), *c1 = upload(std::vector<float>(n + 1, 7.0f));
  float *h0 = upload(std::vector<float>(n + 1, 5.0f)), *h1 = upload(std::vector<float>(n + 1, 5.0f));
  LAUNCH(orig::lstm_gates, grid, 128, g, cp, c0, h0, n);
  LAUNCH(var::lstm_gates, vgrid, BX, g, cp, c1, h1, n);
  ok = same(name, download(c0, n + 1), download(c1, n + 1), 0) &&
       same(name, download(h0, n + 1), download(h1, n + 1), 0);
#elif WHICH == 2
  name = "rgb_gray";
  unsigned char *rgb = upload(bytes(3 * n));
  unsigned char *g0 = upload(std::vector<unsigned char>(n + 1, 3)), *g1 = upload(std::vector<unsigned char>(n + 1, 3));
  LAUNCH(orig::rgb_gray, grid, 128, rgb, g0, n);
  LAUNCH(var::rgb_gray, vgrid, BX, rgb, g1, n);
  ok = same(name, download(g0, n + 1), download(g1, n + 1), 0);
#elif WHICH == 3
  name = "rgb_luma";
  unsigned char *rgb = upload(bytes(3 * n));
  float *l0 = upload(std::vector<float>(n + 1, 7.0f)), *l1 = upload(std::vector<float>(n + 1, 7.0f));
  LAUNCH(orig::rgb_luma, grid, 128, rgb, l0, n);
  LAUNCH(var::rgb_luma, vgrid, BX, rgb, l1, n);
  ok = same(name, download(l0, n + 1), download(l1, n + 1), 0);
#else
  name = "complex_scale";
  float *z0 = upload(values(2 * n + 2)), *z1 = upload(values(2 * n + 2));
  LAUNCH(orig::complex_scale, grid, 128, z0, 0.375f, n);
  LAUNCH(var::complex_scale, vgrid, BX, z1, 0.375f, n);
  ok = same(name, download(z0, 2 * n + 2), download(z1, 2 * n + 2), 0);
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

// Runs kernel WHICH of transform/Inputs/nests.cu as written and as rewritten
// by split_loop_across_warp with nest=flat, inner or deep (VARIANT, launched as its mapping
// says: ITEMS items per block of BLOCK threads, CLUSTER blocks per item
// with clusters) on nests whose inner range is
// empty, shorter than the lanes, or a length no lane count divides, and
// prints "<kernel> same" when the outputs agree: bitwise for the integer
// kernels, within the bound of the reordered sums for the float ones.
#include "twin.h"

#include <algorithm>
#include <climits>

#ifndef CLUSTER
#define CLUSTER 1
#endif

// One problem: items, the outer range and the inner range.
struct Shape {
  int items, outer, inner;
};

// Whether the rewrite agrees with the original on `s`.
bool check(const char *name, const Shape &s) {
  const dim3 grid(blocks(s.items, 128)), block(128);
  const dim3 vgrid(blocks(grid.x * block.x, ITEMS) * CLUSTER), vblock(BLOCK);
  // window_means reads 3 columns; triangle `outer` elements per item.
  const size_t size = (size_t)s.items * s.outer * std::max(s.inner * 3, 1) + 1;
  std::vector<int> xi(size);
  for (size_t i = 0; i < size; ++i)
    xi[i] = (int)((i * 2654435761u) % 4001u) - 2000 + (i % 97 == 0 ? INT_MAX / 8 : 0);
#if WHICH == 0
  int *x = upload(xi), *s0 = upload(std::vector<int>(s.items, 7)), *s1 = upload(std::vector<int>(s.items, 7));
  int *m0 = upload(std::vector<int>(s.items, 7)), *m1 = upload(std::vector<int>(s.items, 7));
  LAUNCH(orig::channel_sums, grid, block, x, s0, m0, s.outer, s.items, s.inner);
  LAUNCH(var::channel_sums, vgrid, vblock, x, s1, m1, s.outer, s.items, s.inner);
  return same(name, download(s0, s.items), download(s1, s.items), 0) &&
         same(name, download(m0, s.items), download(m1, s.items), 0);
#elif WHICH == 1
  // Inner range lo..hi inclusive: hi = inner - 1 from lo = 1 (empty for inner <= 1).
  int *x = upload(xi), *c0 = upload(std::vector<int>(s.items, 7)), *c1 = upload(std::vector<int>(s.items, 7));
  LAUNCH(orig::filter_counts, grid, block, x, c0, s.items, s.outer, 1, s.inner - 1);
  LAUNCH(var::filter_counts, vgrid, vblock, x, c1, s.items, s.outer, 1, s.inner - 1);
  return same(name, download(c0, s.items), download(c1, s.items), 0);
#elif WHICH == 3
  // The pairs b < a of `outer` elements per item (inner unused), integers
  // of magnitude <= 8: every partial sum is exact in float, compared bitwise.
  std::vector<float> xf(size);
  for (size_t i = 0; i < size; ++i)
    xf[i] = (float)((long)((i * 2654435761u) % 17u) - 8);
  float *x = upload(xf), *y0 = upload(std::vector<float>(s.items, 7)), *y1 = upload(std::vector<float>(s.items, 7));
  LAUNCH(orig::triangle, grid, block, x, y0, s.items, s.outer);
  LAUNCH(var::triangle, vgrid, vblock, x, y1, s.items, s.outer);
  return same(name, download(y0, s.items), download(y1, s.items), 0);
#elif WHICH == 5
  // fields = outer, dim = inner: the pairs' products of 4-bit values.
  int *x = upload(xi), *y0 = upload(std::vector<int>(s.items, 7)), *y1 = upload(std::vector<int>(s.items, 7));
  LAUNCH(orig::pair_products, grid, block, x, y0, s.items, s.outer, s.inner);
  LAUNCH(var::pair_products, vgrid, vblock, x, y1, s.items, s.outer, s.inner);
  return same(name, download(y0, s.items), download(y1, s.items), 0);
#elif WHICH == 4
  std::vector<int> wt(s.outer + 1);
  for (int r = 0; r <= s.outer; ++r)
    wt[r] = (int)((r * 2654435761u) % 13u);
  int *x = upload(xi), *w = upload(wt), *y0 = upload(std::vector<int>(s.items, 7)),
      *y1 = upload(std::vector<int>(s.items, 7));
  LAUNCH(orig::weighted_counts, grid, block, x, w, y0, s.items, s.outer, s.inner);
  LAUNCH(var::weighted_counts, vgrid, vblock, x, w, y1, s.items, s.outer, s.inner);
  return same(name, download(y0, s.items), download(y1, s.items), 0);
#else
  // rows = inner, cols = 3: the mean of outer * inner * 3 terms of magnitude
  // <= 1, moved by reordering by at most 2 * terms * 2^-24.
  std::vector<float> xf = values(size);
  float *x = upload(xf), *y0 = upload(std::vector<float>(s.items, 7)), *y1 = upload(std::vector<float>(s.items, 7));
  LAUNCH(orig::window_means, grid, block, x, y0, s.items, s.outer, s.inner, 3);
  LAUNCH(var::window_means, vgrid, vblock, x, y1, s.items, s.outer, s.inner, 3);
  // An empty nest divides 0 by 0 in both: compared bitwise.
  double terms = (double)s.outer * s.inner * 3;
  return same(name, download(y0, s.items), download(y1, s.items), 2.0 * terms * std::ldexp(1.0, -24));
#endif
}

int main() {
  const char *names[] = {"channel_sums", "filter_counts",   "window_means",
                         "triangle",     "weighted_counts", "pair_products"};
  const char *name = names[WHICH];
  bool ok = true;
  for (Shape s :
       {Shape{300, 32, 49}, Shape{77, 5, 1000}, Shape{129, 3, 0}, Shape{64, 0, 9}, Shape{5, 333, 7}, Shape{1, 1, 1}})
    ok = ok && check(name, s);
  return verdict(name, ok);
}

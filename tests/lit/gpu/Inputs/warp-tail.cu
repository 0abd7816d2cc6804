// Runs kernel WHICH of transform/Inputs/warp-tail.cu as written and as
// rewritten by shuffle_collectives (VARIANT: ITEMS cells per thread, or
// FACTOR blocks merged) and prints "<kernel> same" when the outputs agree:
// bitwise for the integer count and the maximum, within a reordered sum's
// bound for the float sums. Blocks of BLOCK threads (32 takes the code as
// written in the variant).
#include "twin.h"

#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef FACTOR
#define FACTOR 1
#endif

int main() {
  bool ok = true;
  const char *name = "";
  const unsigned n = 1000003;
#if WHICH == 0
  name = "reduce_pairs";
  const unsigned grid = blocks(n, 2 * BLOCK);
  float *in = upload(values<float>(n));
  float *o0 = upload(std::vector<float>(grid, -1.0f)), *o1 = upload(std::vector<float>(grid, -1.0f));
  orig::reduce_pairs<<<grid, BLOCK>>>(in, o0, n);
  var::reduce_pairs<<<grid, BLOCK / ITEMS>>>(in, o1, n);
  // Each block sums 2 * BLOCK values of magnitude at most 1.
  ok = same(name, download(o0, grid), download(o1, grid), 1e-6 * 2 * BLOCK * 8);
#elif WHICH == 1
  name = "count_matches";
  const unsigned grid = blocks(blocks(n, BLOCK), 8) * 8; // a multiple of every factor tried
  std::vector<int> keys(n);
  for (unsigned i = 0; i < n; ++i)
    keys[i] = (int)((i * 2654435761u) % 7);
  int *in = upload(keys);
  int *c0 = upload(std::vector<int>(1, 0)), *c1 = upload(std::vector<int>(1, 0));
  orig::count_matches<<<grid, BLOCK>>>(in, 3, n, c0);
  var::count_matches<<<grid / FACTOR, BLOCK>>>(in, 3, n, c1);
  ok = same(name, download(c0, 1), download(c1, 1), 0);
#else
  name = "block_max";
  const unsigned grid = blocks(n, BLOCK);
  float *in = upload(values<float>(n));
  float *o0 = upload(std::vector<float>(grid, -1.0f)), *o1 = upload(std::vector<float>(grid, -1.0f));
  orig::block_max<<<grid, BLOCK>>>(in, o0, n);
  var::block_max<<<grid, BLOCK / ITEMS>>>(in, o1, n);
  ok = same(name, download(o0, grid), download(o1, grid), 0);
#endif
  return verdict(name, ok);
}

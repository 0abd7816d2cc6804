// Runs kernel WHICH of transform/Inputs/written-steps.cu as written and as
// rewritten by shuffle_collectives (VARIANT: ITEMS cells per thread, or
// FACTOR blocks merged) and prints "<kernel> same" when the outputs agree:
// bitwise for the integer maximum, within a reordered sum's bound for the
// sums. Blocks of BLOCK threads.
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
  name = "sum_written";
  const unsigned grid = blocks(n, BLOCK);
  float *in = upload(values<float>(n));
  float *o0 = upload(std::vector<float>(grid, -1.0f)), *o1 = upload(std::vector<float>(grid, -1.0f));
  orig::sum_written<<<grid, BLOCK>>>(in, o0, n);
  var::sum_written<<<grid, BLOCK / ITEMS>>>(in, o1, n);
  // Each block sums BLOCK values of magnitude at most 1.
  ok = same(name, download(o0, grid), download(o1, grid), 1e-6 * BLOCK * 8);
#elif WHICH == 1
  name = "max_written";
  const unsigned grid = blocks(blocks(n, BLOCK), 16) * 16; // a multiple of every factor tried
  std::vector<int> keys(n);
  for (unsigned i = 0; i < n; ++i)
    keys[i] = (int)((i * 2654435761u) % 1000003) - 500000;
  int *in = upload(keys);
  int *m0 = upload(std::vector<int>(1, -2147483647 - 1)), *m1 = upload(std::vector<int>(1, -2147483647 - 1));
  orig::max_written<<<grid, BLOCK>>>(in, m0, n);
  var::max_written<<<grid / FACTOR, BLOCK>>>(in, m1, n);
  ok = same(name, download(m0, 1), download(m1, 1), 0);
#elif WHICH == 2
  name = "sum_template";
  const unsigned grid = 120; // each block strides over the input
  double *in = upload(values<double>(n));
  double *o0 = upload(std::vector<double>(grid, -1.0)), *o1 = upload(std::vector<double>(grid, -1.0));
  orig::sum_template<256><<<grid, BLOCK, BLOCK * sizeof(double)>>>(in, o0, n);
  var::sum_template<256><<<grid, BLOCK / ITEMS, BLOCK * sizeof(double)>>>(in, o1, n);
  // Each block sums about n / grid values of magnitude at most 1.
  ok = same(name, download(o0, grid), download(o1, grid), 1e-14 * n);
#elif WHICH == 4
  name = "sum_helper";
  const unsigned grid = blocks(n, 128);
  float *in = upload(values<float>(n));
  float *o0 = upload(std::vector<float>(grid, -1.0f)), *o1 = upload(std::vector<float>(grid, -1.0f));
  orig::sum_helper<128, float><<<grid, BLOCK>>>(in, o0, n);
  var::sum_helper<128, float><<<grid, BLOCK / ITEMS>>>(in, o1, n);
  ok = same(name, download(o0, grid), download(o1, grid), 1e-6 * BLOCK * 8);
#else // WHICH == 3
  name = "sum_fixed";
  const unsigned grid = blocks(n, BLOCK);
  float *in = upload(values<float>(n));
  float *o0 = upload(std::vector<float>(grid, -1.0f)), *o1 = upload(std::vector<float>(grid, -1.0f));
  orig::sum_fixed<<<grid, BLOCK>>>(in, o0, n);
  var::sum_fixed<<<grid, BLOCK / ITEMS>>>(in, o1, n);
  ok = same(name, download(o0, grid), download(o1, grid), 1e-6 * BLOCK * 8);
#endif
  return verdict(name, ok);
}

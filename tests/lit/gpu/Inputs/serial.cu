// Runs kernel WHICH of transform/Inputs/serial.cu as written, as one thread,
// and as rewritten by split_loop_across_warp (VARIANT, launched as its
// mapping says: CLUSTER blocks of BLOCK threads), for n = 0, 1, 31, 1000 and
// 100003, and prints "<kernel> same" when the outputs agree: bitwise, but
// for the variance, within the bound of its reordered sum.
#include "twin.h"

#include <algorithm>

#ifndef CLUSTER
#define CLUSTER 1
#endif

// Whether the rewrite agrees with the original for `n` elements.
bool check(const char *name, int n) {
  const dim3 one(1), vgrid(CLUSTER), vblock(BLOCK);
  const size_t size = std::max(n, 1);
  std::vector<int> xi(size);
  std::vector<float> xf(size); // small integers: many ties, and sums exact in float
  for (size_t i = 0; i < size; ++i) {
    xi[i] = (int)((i * 2654435761u) % 4001u) - 2000;
    xf[i] = (float)((long)((i * 2654435761u) % 17u) - 8);
  }
#if WHICH == 0
  int *x = upload(xi), *o0 = upload(std::vector<int>(2, 7)), *o1 = upload(std::vector<int>(2, 7));
  LAUNCH(orig::serial_sum_max, one, one, x, o0, n);
  LAUNCH(var::serial_sum_max, vgrid, vblock, x, o1, n);
  return same(name, download(o0, 2), download(o1, 2), 0);
#elif WHICH == 1
  float *x = upload(xf), *o0 = upload(std::vector<float>(2, 7)), *o1 = upload(std::vector<float>(2, 7));
  LAUNCH(orig::serial_moments, one, one, x, o0, n);
  LAUNCH(var::serial_moments, vgrid, vblock, x, o1, n);
  std::vector<float> a = download(o0, 2), b = download(o1, 2);
  // The mean is exact in either order; the variance's n terms are at most
  // 16^2, so its reordered sum over n moves by at most 2 * n * 256 * 2^-24.
  return same(name, std::vector<float>{a[0]}, std::vector<float>{b[0]}, 0) &&
         same(name, std::vector<float>{a[1]}, std::vector<float>{b[1]}, 2.0 * n * 256 * std::ldexp(1.0, -24));
#elif WHICH == 2
  float *x = upload(xf);
  int *w0 = upload(std::vector<int>(1, 7)), *w1 = upload(std::vector<int>(1, 7));
  LAUNCH(orig::serial_argmax, one, one, x, w0, n);
  LAUNCH(var::serial_argmax, vgrid, vblock, x, w1, n);
  return same(name, download(w0, 1), download(w1, 1), 0);
#else
  int *x = upload(xi), *y0 = upload(std::vector<int>(size, 7)), *y1 = upload(std::vector<int>(size, 7));
  LAUNCH(orig::serial_cumsum, one, one, x, y0, n);
  LAUNCH(var::serial_cumsum, vgrid, vblock, x, y1, n);
  return same(name, download(y0, size), download(y1, size), 0);
#endif
}

int main() {
  const char *names[] = {"serial_sum_max", "serial_moments", "serial_argmax", "serial_cumsum"};
  const char *name = names[WHICH];
  bool ok = true;
  for (int n : {0, 1, 31, 1000, 100003})
    ok = ok && check(name, n);
  return verdict(name, ok);
}

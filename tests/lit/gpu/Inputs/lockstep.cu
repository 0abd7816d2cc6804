// Runs kernel WHICH of transform/Inputs/lockstep.cu as written and as
// coarsened across its barriers (VARIANT, launched with the block's extents
// divided by FX in x and FY in y, as its mapping says), on sizes no
// tile or block divides, and prints "<kernel> same" when every output is
// bitwise equal, else the first difference:
//   0 mm_tiled, 1 mm_guarded, 2 transpose_tile, 3 stencil_halo,
//   4 block_sums, 5 chunk_max, 6 pair_sums, 7 skip_tail.
// On a GPU (nvcc) or on the CPU (g++ -include emu.h).
#include "twin.h"

// `block` as the variant launches it.
dim3 coarse(dim3 block) { return dim3(block.x / FX, block.y / FY); }

int main() {
  bool ok = true;
  const char *name = "";
#if WHICH <= 1
  // mm_guarded's last blocks reach past the matrix: their threads there skip
  // the barriers and leave tile cells unwritten that the others read, so
  // only the blocks inside the matrix have defined outputs to compare.
  const int n = WHICH == 0 ? 77 : 72;
  const size_t size = (size_t)n * n;
  float *a = upload(values(size)), *b = upload(values(size + 5));
  float *c0 = upload(std::vector<float>(size, -7)), *c1 = upload(std::vector<float>(size, -7));
  const dim3 grid(blocks(n, 16), blocks(n, 16)), block(16, 16);
#if WHICH == 0
  name = "mm_tiled";
  LAUNCH(orig::mm_tiled, grid, block, a, b, c0, n);
  LAUNCH(var::mm_tiled, grid, coarse(block), a, b, c1, n);
#else
  name = "mm_guarded";
  LAUNCH(orig::mm_guarded, grid, block, a, b, c0, n);
  LAUNCH(var::mm_guarded, grid, coarse(block), a, b, c1, n);
#endif
  std::vector<float> h0 = download(c0, size), h1 = download(c1, size);
  const int defined = WHICH == 0 ? n : n / 16 * 16;
  std::vector<float> d0, d1;
  for (int r = 0; r < defined; ++r)
    for (int col = 0; col < defined; ++col) {
      d0.push_back(h0[(size_t)r * n + col]);
      d1.push_back(h1[(size_t)r * n + col]);
    }
  ok = same(name, d0, d1, 0);
#elif WHICH == 2
  name = "transpose_tile";
  const int width = 100, height = 67;
  const size_t size = (size_t)width * height;
  float *in = upload(values(size));
  float *o0 = upload(std::vector<float>(size, -7)), *o1 = upload(std::vector<float>(size, -7));
  const dim3 grid(blocks(width, 32), blocks(height, 32)), block(32, 32);
  LAUNCH(orig::transpose_tile, grid, block, o0, in, width, height);
  LAUNCH(var::transpose_tile, grid, coarse(block), o1, in, width, height);
  ok = same(name, download(o0, size), download(o1, size), 0);
#elif WHICH == 3
  name = "stencil_halo";
  const int n = 1000;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = (i * 7919) % 1013 - 500;
  int *in = upload(host);
  int *o0 = upload(std::vector<int>(n, -7)), *o1 = upload(std::vector<int>(n, -7));
  LAUNCH(orig::stencil_halo, blocks(n, 128), dim3(128), in, o0, n);
  LAUNCH(var::stencil_halo, blocks(n, 128), coarse(dim3(128)), in, o1, n);
  // The last RADIUS outputs read window cells of threads that left: undefined.
  ok = same(name, download(o0, n - RADIUS), download(o1, n - RADIUS), 0);
#elif WHICH == 4
  name = "block_sums";
  const int n = 1000;
  std::vector<unsigned> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = (unsigned)(i * 2654435761u) >> 8;
  unsigned *in = upload(host);
  unsigned *o0 = upload(std::vector<unsigned>(4, 7)), *o1 = upload(std::vector<unsigned>(4, 7));
  LAUNCH(orig::block_sums, 4, dim3(256), in, o0, n);
  LAUNCH(var::block_sums, 4, coarse(dim3(256)), in, o1, n);
  ok = same(name, download(o0, 4), download(o1, 4), 0);
#elif WHICH == 5
  name = "chunk_max";
  const int n = 1000, chunk = 4;
  float *in = upload(values(n));
  float *o0 = upload(std::vector<float>(2, -7)), *o1 = upload(std::vector<float>(2, -7));
  LAUNCH(orig::chunk_max, 2, dim3(256), in, o0, n, chunk);
  LAUNCH(var::chunk_max, 2, coarse(dim3(256)), in, o1, n, chunk);
  ok = same(name, download(o0, 2), download(o1, 2), 0);
#elif WHICH == 6
  name = "pair_sums";
  const int n = 1000, pairs = 37;
  float *a = upload(values((size_t)pairs * n)), *b = upload(values(n + 3));
  float *o0 = upload(std::vector<float>(pairs, -7)), *o1 = upload(std::vector<float>(pairs, -7));
  LAUNCH(orig::pair_sums, pairs + 2, dim3(128), a, b, o0, n, pairs);
  LAUNCH(var::pair_sums, pairs + 2, coarse(dim3(128)), a, b, o1, n, pairs);
  ok = same(name, download(o0, pairs), download(o1, pairs), 0);
#else
  name = "skip_tail";
  const int n = 1000;
  float *in = upload(values(n));
  float *o0 = upload(std::vector<float>(n, -7)), *o1 = upload(std::vector<float>(n, -7));
  LAUNCH(orig::skip_tail, blocks(n, 128), dim3(128), in, o0, n);
  LAUNCH(var::skip_tail, blocks(n, 128), coarse(dim3(128)), in, o1, n);
  ok = same(name, download(o0, n), download(o1, n), 0);
#endif
  return verdict(name, ok);
}

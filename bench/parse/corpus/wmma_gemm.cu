// Tensor cores through wmma (half inputs, float accumulation).
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

__global__ void wmma_tile(const half *a, const half *b, float *c, int k) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int i = 0; i < k; i += 16) {
    wmma::load_matrix_sync(fa, a + i, k);
    wmma::load_matrix_sync(fb, b + i, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

void launch(const half *a, const half *b, float *c, int k) { wmma_tile<<<1, 32>>>(a, b, c, k); }

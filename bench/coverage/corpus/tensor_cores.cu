// Tensor cores through nvcuda::wmma (half inputs, float accumulate).
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

__global__ void wmma_16x16(const half *a, const half *b, float *c, int k) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  for (int t = 0; t < k; t += 16) {
    wmma::load_matrix_sync(fa, a + t, k);
    wmma::load_matrix_sync(fb, b + t, k);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

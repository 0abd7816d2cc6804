// Rewrite round trip: `marked` gets a variant per arch, `untouched` none.
#include "unit_helpers.h"

__global__ void marked(unsigned *out) {
  out[threadIdx.x] = ORIGINAL_MARK + helper(threadIdx.x);
}

__global__ void untouched(unsigned *out) { out[threadIdx.x] = 0x7e57; }

void launch(unsigned *out) {
  marked<<<1, 32>>>(out);
  untouched<<<1, 32>>>(out);
}

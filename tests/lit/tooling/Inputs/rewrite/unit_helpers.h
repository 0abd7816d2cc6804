#pragma once
#define ORIGINAL_MARK 0x0badf00du
__device__ inline unsigned helper(unsigned x) { return x * 3u; }

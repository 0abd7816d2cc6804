// Shared by both units: stored once in the store's closure files.
#pragma once
#include <cuda_runtime.h>

#define SCALE_FACTOR 3.0f

__device__ inline float scale_one(float v) { return v * SCALE_FACTOR; }

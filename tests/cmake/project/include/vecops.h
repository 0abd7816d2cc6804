#pragma once
// Device helper defined in vecops.cu (needs relocatable device code).
__device__ float vecops_combine(float a, float b);
// Host entry points of the library.
void vecops_scale(float *d_x, float a, int n);
void vecops_axpy(float *d_y, const float *d_x, float a, int n);

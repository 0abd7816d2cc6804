#pragma once
// No unit includes this header.
__global__ void orphan(float *p) { p[0] = 2.f; }

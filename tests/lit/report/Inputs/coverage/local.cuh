#pragma once
__global__ void in_header(float *p) { p[0] = 1.f; }

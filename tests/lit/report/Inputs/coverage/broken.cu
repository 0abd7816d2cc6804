// nvcc would need the build's include path for this header; kbcc's parse
// without it fails (parse-fatal) and its kernel is lost with that reason.
#include "generated_config.h"
__global__ void after_missing_include(float *p) { p[0] = 3.f; }

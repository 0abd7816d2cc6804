// A kernel in a preprocessor branch the flags disable: the text has it, the
// parse does not, and the benchmark reports it as not found.
#ifdef NEVER_DEFINED
__global__ void disabled_by_flags(float *p) { p[0] = 0.f; }
#endif
__global__ void kept(float *p) { p[0] = 1.f; }

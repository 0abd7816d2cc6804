// Host entry points of the build-overhead project: one translation unit each.
#pragma once

void vec_add(int n, const float *a, const float *b, float *c);
void scale(int n, float s, float *x);
void relu(int n, const float *x, float *y);
void sigmoid(int n, const float *x, float *y);
void clamp(int n, float lo, float hi, float *x);
void axpby(int n, float a, const float *x, float b, float *y);
void dot(int n, const float *x, const float *y, float *out);
void gather(int n, const int *idx, const float *src, float *dst);
void scatter_add(int n, const int *idx, const float *src, float *dst);
void histogram(int n, const int *x, int bins, int *hist);
void stencil3(int n, const float *x, float *y);
void poly(int n, const float *x, float *y);
void matvec(int n, int cols, const float *m, const float *v, float *y);
void transpose(int n, int rows, int cols, const float *in, float *out);
void conv1d(int n, int taps, const float *w, const float *x, float *y);
void softmax_rows(int n, int cols, const float *x, float *y);
void thrust_sort(int n, float *keys);
float thrust_sum_squares(int n, const float *x);
void cub_sum(int n, const float *in, float *out);
void cub_block_scan(int n, const int *in, int *out);
void cg_reduce(int n, const float *x, float *out);
void cg_normalize(int n, float *x, float *max_abs);

// Kernel templates, instantiated for several types: a row sum (float and
// double), a row softmax (float) and a column count of values above a
// threshold (unsigned int, a type of two words). They are launched with
// explicit template arguments, with deduced ones, through cudaLaunchKernel,
// and from a host function template (whose site launches whichever instance
// each of its instantiations names). Each is run on several sizes, including
// ones that are not multiples of any block, and checked against a CPU
// reference: "<kernel> <rows>x<cols> ok" or "... WRONG".
#include "common.h"

#include <cmath>
#include <vector>

namespace nn {

template <typename T>
__global__ void row_sum(const T *x, T *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  T s = T(0);
  for (int c = 0; c < cols; ++c)
    s += x[(size_t)r * cols + c];
  out[r] = s;
}

template <typename T>
__global__ void row_softmax(const T *x, T *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const T *row = x + (size_t)r * cols;
  T m = row[0];
  for (int c = 1; c < cols; ++c)
    m = row[c] > m ? row[c] : m;
  T s = T(0);
  for (int c = 0; c < cols; ++c)
    s += exp(row[c] - m);
  for (int c = 0; c < cols; ++c)
    y[(size_t)r * cols + c] = exp(row[c] - m) / s;
}

template <typename T, int LIMIT = 700>
__global__ void count_above(const T *x, T *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  T n = 0;
  for (int r = 0; r < rows; ++r)
    n += x[(size_t)r * cols + c] > T(LIMIT) ? 1 : 0;
  out[c] = n;
}

} // namespace nn

template <class T> void run_count(const T *x, T *out, int rows, int cols) {
  nn::count_above<T><<<(cols + 127) / 128, 128>>>(x, out, rows, cols);
}

template <class T> bool close(T got, T want) {
  return std::fabs((double)got - (double)want) <= 1e-5 * std::fabs((double)want) + 1e-6;
}

// Each row's sum within what summing its terms in another order may round
// away in T's precision (a statistical bound, far below one term's size).
template <class T> bool check_row_sum(const std::vector<T> &x, const std::vector<T> &got, int rows, int cols) {
  bool ok = true;
  for (int r = 0; r < rows; ++r) {
    double s = 0, magnitude = 0;
    for (int c = 0; c < cols; ++c) {
      s += x[(size_t)r * cols + c];
      magnitude += std::fabs((double)x[(size_t)r * cols + c]);
    }
    double eps = sizeof(T) == 4 ? 1.2e-7 : 2.3e-16;
    double bound = 4 * eps * std::sqrt((double)cols) * magnitude + 1e-12;
    if (ok && !(std::fabs((double)got[r] - s) <= bound))
      std::fprintf(stderr, "row %d: got %.17g, want %.17g (within %.3g)\n", r, (double)got[r], s, bound), ok = false;
  }
  return ok;
}

void report(const char *name, int rows, int cols, bool ok) {
  std::printf("%s %dx%d %s\n", name, rows, cols, ok ? "ok" : "WRONG");
}

template <class T> T *upload(const std::vector<T> &h) {
  T *d = nullptr;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T> std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int main() {
  const int max_rows = 4096, max_cols = 3001;
  const size_t cells = (size_t)max_rows * max_cols;
  std::vector<float> xf(cells);
  fill(xf.data(), static_cast<int>(cells), 21);
  std::vector<double> xd(xf.begin(), xf.end());
  std::vector<unsigned int> xu(cells);
  for (size_t i = 0; i < cells; ++i)
    xu[i] = (unsigned int)((xf[i] + 1.0f) * 500.0f);
  float *dxf = upload(xf), *dyf = upload(std::vector<float>(cells));
  double *dxd = upload(xd), *dyd = upload(std::vector<double>(max_rows));
  unsigned int *dxu = upload(xu), *dyu = upload(std::vector<unsigned int>(max_cols));
  const int shapes[][2] = {{max_rows, max_cols}, {1000, 1024}, {77, 33}};
  for (const auto &shape : shapes) {
    int rows = shape[0], cols = shape[1];
    std::vector<float> x(xf.begin(), xf.begin() + (size_t)rows * cols);
    nn::row_sum<float><<<(rows + 127) / 128, 128>>>(dxf, dyf, rows, cols);
    CHECK(cudaGetLastError());
    report("row_sum<float>", rows, cols, check_row_sum(x, download(dyf, rows), rows, cols));

    nn::row_sum<<<(rows + 255) / 256, 256>>>(dxd, dyd, rows, cols);
    CHECK(cudaGetLastError());
    report("row_sum<double>", rows, cols,
           check_row_sum(std::vector<double>(x.begin(), x.end()), download(dyd, rows), rows, cols));

    void *args[] = {&dxf, &dyf, &rows, &cols};
    cudaError_t launched = cudaLaunchKernel((const void *)nn::row_softmax<float>, dim3((rows + 63) / 64), dim3(64), args, 0, 0);
    CHECK(launched);
    std::vector<float> y = download(dyf, (size_t)rows * cols);
    bool ok = true;
    for (int r = 0; r < rows; ++r) {
      double m = x[(size_t)r * cols], s = 0;
      for (int c = 0; c < cols; ++c)
        m = std::fmax(m, x[(size_t)r * cols + c]);
      for (int c = 0; c < cols; ++c)
        s += std::exp(x[(size_t)r * cols + c] - m);
      for (int c = 0; c < cols; ++c)
        ok = ok && close<double>(y[(size_t)r * cols + c], std::exp(x[(size_t)r * cols + c] - m) / s);
    }
    report("row_softmax<float>", rows, cols, ok);

    run_count(dxu, dyu, rows, cols);
    CHECK(cudaGetLastError());
    std::vector<unsigned int> n = download(dyu, cols);
    ok = true;
    for (int c = 0; c < cols; ++c) {
      unsigned int want = 0;
      for (int r = 0; r < rows; ++r)
        want += xu[(size_t)r * cols + c] > 700u ? 1 : 0;
      ok = ok && n[c] == want;
    }
    report("count_above<unsigned int>", rows, cols, ok);
  }
  return 0;
}

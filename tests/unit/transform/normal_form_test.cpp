// Normal forms: loop hints dropped, helper calls inlined, while loops
// written as for loops and accumulators in memory kept in registers,
// the calls each refusal keeps, and the structural transforms offered the
// form of a kernel they refuse as written.
#include "parsed.h"
#include "transform/normal_form.h"
#include "transform/transform.h"

#include <gtest/gtest.h>

using namespace kbcc::transform;
using kbcc::transform::test::parsed;

namespace {

// normal_form's definition, or its error's code and message.
std::string form_of(const std::string &text) {
  KernelAst k = parsed(text);
  auto f = normal_form(k);
  if (!f) return f.error().code + ": " + f.error().message;
  return f->source();
}

// `helpers` then a one-thread-per-row kernel whose guarded statement is `use`.
std::string unit(const std::string &helpers, const std::string &use) {
  return helpers +
         "\n__global__ void k(int rows, int n, const float *A, const float *x, float *y) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < rows) " +
         use + "\n}";
}

const char *kDot = R"(__device__ float dot(const float *a, const float *b, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += a[j] * b[j];
  return s;
})";

TEST(NormalForm, AHelperIsInlinedWithItsArguments) {
  std::string f = form_of(unit(kDot, "y[i] = dot(A + (size_t)i * n, x, n);"));
  // An expression argument becomes a local; variables of the parameter's
  // type stand for parameters the helper does not assign.
  EXPECT_NE(f.find("{ const float *a_1 = A + (size_t)i * n; "), std::string::npos) << f;
  EXPECT_NE(f.find("s += a_1[j] * x[j];"), std::string::npos) << f;
  EXPECT_NE(f.find("y[i] = (s); }"), std::string::npos) << f;
  EXPECT_EQ(f.find("dot("), std::string::npos) << f;
}

TEST(NormalForm, AssignedOrConvertedParametersAreCopies) {
  const char *helper = R"(__device__ float tail(const float *a, int n, double scale) {
  float s = 0.0f;
  while (n > 0) { s += a[--n]; }
  return s * scale;
})";
  std::string f = form_of(unit(helper, "y[i] = tail(A + i * n, n, 2.0);"));
  EXPECT_NE(f.find("int n_1 = n; double scale_1 = 2.0; "), std::string::npos) << f;
  EXPECT_NE(f.find("s += a_1[--n_1]"), std::string::npos) << f;
  // The value keeps the function's return type.
  EXPECT_NE(f.find("y[i] = static_cast<float>(s * scale_1);"), std::string::npos) << f;
}

TEST(NormalForm, HelperLocalsTheKernelNamesGoInABlockOfTheirOwn) {
  std::string text = unit(kDot, "{ float s = dot(A + i * n, x, n); y[i] = s * s; }");
  std::string f = form_of(text);
  EXPECT_NE(f.find("float dot_1; { const float *a_1 = A + i * n; "), std::string::npos) << f;
  EXPECT_NE(f.find("dot_1 = (s);"), std::string::npos) << f;
  EXPECT_NE(f.find("float s = dot_1;"), std::string::npos) << f;
}

TEST(NormalForm, HelpersOfHelpersAndVoidHelpersAreInlined) {
  const char *helpers = R"(__device__ float sq(float v) { return v * v; }
__device__ void store_norm(float *out, const float *a, int n) {
  float acc = 0.0f;
  for (int j = 0; j < n; ++j) acc += sq(a[j]);
  *out = sqrtf(acc);
})";
  std::string f = form_of(unit(helpers, "store_norm(y + i, A + i * n, n);"));
  EXPECT_EQ(f.find("sq("), std::string::npos) << f;
  EXPECT_EQ(f.find("store_norm("), std::string::npos) << f;
  EXPECT_NE(f.find("*out_1 = sqrtf(acc);"), std::string::npos) << f;
  EXPECT_NE(f.find("float v_1 = a_1[j];"), std::string::npos) << f;
}

TEST(NormalForm, WhereHelpersAreDefinedAndHowTheyAreCalled) {
  // Defined after the kernel, declared before it; a reference parameter
  // stands for the kernel's variable; two calls in one loop body.
  std::string f = form_of(R"(__device__ void add_to(float &acc, float v);
__device__ float twice(float v);
__global__ void k(int rows, int n, const float *A, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float s = 0;
  for (int j = 0; j < n; ++j) {
    add_to(s, A[i * n + j]);
    add_to(s, twice(A[i * n + j]));
  }
  y[i] = s;
}
__device__ void add_to(float &acc, float v) { acc += v; }
__device__ float twice(float v) { return 2 * v; })");
  EXPECT_NE(f.find("float v_1 = A[i * n + j];  s += v_1;"), std::string::npos) << f;
  EXPECT_EQ(f.find("add_to("), std::string::npos) << f;
  EXPECT_EQ(f.find("twice("), std::string::npos) << f;
  // A macro argument is copied whole.
  std::string m = form_of("#define ROW(r) (A + (r) * n)\n" + unit(kDot, "y[i] = dot(ROW(i), x, n);"));
  EXPECT_NE(m.find("const float *a_1 = ROW(i);"), std::string::npos) << m;
}

TEST(NormalForm, InstancesOfHelperTemplatesReadTheirArguments) {
  const char *helper = R"(template <typename T, int SCALE>
__device__ T dot(const T *a, const T *b, int n) {
  T s = T(0);
  for (int j = 0; j < n; ++j) s += a[j] * b[j];
  return s * SCALE;
})";
  std::string f = form_of(unit(helper, "y[i] = dot<float, 2>(A + (size_t)i * n, x, n);"));
  EXPECT_NE(f.find("{ const float *a_1 = A + (size_t)i * n; "), std::string::npos) << f;
  EXPECT_NE(f.find("float s = float(0);"), std::string::npos) << f;
  EXPECT_NE(f.find("y[i] = (s * 2); }"), std::string::npos) << f;
  // Deduced arguments too.
  std::string d = form_of(unit("template <class T> __device__ T twice(T v) { return v + v; }", "y[i] = twice(x[i]);"));
  EXPECT_NE(d.find("{ float v_1 = x[i]; "), std::string::npos) << d;
  EXPECT_NE(d.find("y[i] = (v_1 + v_1); }"), std::string::npos) << d;
}

TEST(NormalForm, CallsThatCannotMoveStay) {
  auto none = [](const std::string &helper, const std::string &use) {
    std::string f = form_of(unit(helper, use));
    EXPECT_EQ(f.rfind("no-form:", 0), 0u) << use << "\n" << f;
  };
  // Evaluated only sometimes, or again at each iteration.
  none(kDot, "y[i] = x[i] > 0 ? dot(A, x, n) : 0.0f;");
  none(kDot, "y[i] = x[i] > 0 && dot(A, x, n) > 0;");
  none(kDot, "for (int r = 0; r < dot(A, x, n); ++r) y[i] += 1;");
  // Something else in the statement has an effect.
  none(kDot, "y[i++] = dot(A, x, n);");
  // Helpers that cannot be spliced in.
  none("__device__ float f(float v) { if (v < 0) return 0; return v; }", "y[i] = f(x[i]);");
  none("__device__ float f(float v) { return v < 1 ? v : f(v / 2); }", "y[i] = f(x[i]);");
  none("__device__ float f(float v) { static float last; last = v; return last; }", "y[i] = f(x[i]);");
  none("__device__ float f(float v, float w = 1) { return v * w; }", "y[i] = f(x[i]);");
  none("template <int... N> __device__ float f(float v) { return v; }", "y[i] = f<1, 2>(x[i]);");
  // A name the helper uses from outside that the kernel declares again.
  none("__device__ float scale;\n__device__ float f(float v) { return v * scale; }",
       "{ float scale = 2; y[i] = f(x[i]) * scale; }");
}

TEST(NormalForm, WhileLoopsBecomeCountedForLoops) {
  std::string f = form_of(R"(__global__ void k(const double *m, double *out, int rows, int cols) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r >= rows) return;
  double s = 0;
  int c = 0;
  while (c < cols) {
    s += m[r * cols + c];
    c++;
  }
  out[r] = s;
})");
  EXPECT_NE(f.find("for (int c = 0; c < cols; c++) {"), std::string::npos) << f;
  EXPECT_EQ(f.find("while"), std::string::npos) << f;
  // A continue would skip the increment; a read after the loop needs the variable.
  auto kept = [](const std::string &body) {
    std::string text = "__global__ void k(const float *a, float *out, int n) {\n  float s = 0;\n  int c = 0;\n" + body +
                       "\n  out[0] = s;\n}";
    std::string f = form_of(text);
    EXPECT_EQ(f.rfind("no-form:", 0), 0u) << body << "\n" << f;
  };
  kept("  while (c < n) { if (a[c] < 0) continue; s += a[c]; c++; }");
  kept("  while (c < n) { s += a[c]; c++; }\n  s += c;");
  kept("  while (c < n) { s += a[c]; c += 2; c++; }");
  // A step that reads the variable on both sides, or has a side effect.
  kept("  while (c < n) { s += a[c]; c = c * c; }");
  kept("  while (c < n) { s += a[c]; c += n++; }");
}

TEST(NormalForm, WhileLoopsMayStepByAnyConstantAmount) {
  std::string f = form_of(R"(__global__ void k(float *buf) {
  int i = blockDim.x / 2;
  while (i != 0) {
    if (threadIdx.x < i) buf[threadIdx.x] += buf[threadIdx.x + i];
    __syncthreads();
    i /= 2;
  }
  unsigned d = 1;
  while (d < 64) { buf[d] = 0; d <<= 1; }
  int j = 8;
  while (j > 0) { buf[j] = 1; j--; }
})");
  EXPECT_NE(f.find("for (int i = blockDim.x / 2; i != 0; i /= 2) {"), std::string::npos) << f;
  EXPECT_NE(f.find("for (unsigned d = 1; d < 64; d <<= 1) {"), std::string::npos) << f;
  EXPECT_NE(f.find("for (int j = 8; j > 0; j--) {"), std::string::npos) << f;
  EXPECT_EQ(f.find("while"), std::string::npos) << f;
}

// A one-thread-per-row kernel of `body` (parameters x, y, z, rows, n; `r`
// the row, past the guard).
std::string rows_kernel(const std::string &body) {
  return "__global__ void k(const float *x, float *y, float *z, int rows, int n) {\n"
         "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (r >= rows) return;\n" +
         body + "\n}";
}

TEST(NormalForm, AccumulatorsInMemoryAreKeptInRegisters) {
  std::string f = form_of(rows_kernel("  y[r] = 1.5f;\n  int m = n / 2;\n"
                                      "  for (int j = 0; j < m; ++j) y[r] = y[r] * 0.5f + x[r * n + j];\n"
                                      "  y[r] += 1;"));
  // The store becomes the register's declaration; the loop's reads and
  // writes of the element, the register; the element is stored after the
  // loop (also when it runs no step, with the value the store had).
  EXPECT_NE(f.find("float y_acc_1 = 1.5f;\n  int m = n / 2;"), std::string::npos) << f;
  EXPECT_NE(f.find("y_acc_1 = y_acc_1 * 0.5f + x[r * n + j];\ny[r] = y_acc_1;\n  y[r] += 1;"), std::string::npos) << f;
  // Nested loops, a name the kernel already uses, and two accumulators.
  std::string g =
      form_of(rows_kernel("  int y_acc_1 = 0;\n  y[r] = 0;\n"
                          "  for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) y[r] += x[i * n + j];\n"
                          "  z[r] = 0;\n  for (int j = 0; j < n; ++j) z[r] += x[j] * y_acc_1;"));
  EXPECT_NE(g.find("float y_acc_2 = 0;"), std::string::npos) << g;
  EXPECT_NE(g.find("y_acc_2 += x[i * n + j];\ny[r] = y_acc_2;"), std::string::npos) << g;
  EXPECT_NE(g.find("float z_acc_1 = 0;"), std::string::npos) << g;
  EXPECT_NE(g.find("z_acc_1 += x[j] * y_acc_1;\nz[r] = z_acc_1;"), std::string::npos) << g;
  // An index that reads the builtins itself.
  std::string h =
      form_of(rows_kernel("  y[blockIdx.x * blockDim.x + threadIdx.x] = 0;\n"
                          "  for (int j = 0; j < n; ++j) y[blockIdx.x * blockDim.x + threadIdx.x] += x[j];"));
  EXPECT_NE(h.find("y_acc_1 += x[j];\ny[blockIdx.x * blockDim.x + threadIdx.x] = y_acc_1;"), std::string::npos) << h;
}

TEST(NormalForm, AccumulatorsStayInMemoryWhereARegisterWouldDiffer) {
  auto kept = [](const std::string &body) {
    std::string f = form_of(rows_kernel(body));
    EXPECT_EQ(f.rfind("no-form:", 0), 0u) << body << "\n" << f;
  };
  // Another element, another array written, the buffer read through a copy
  // of the pointer, the element's address taken.
  kept("  y[r] = 0;\n  for (int j = 0; j < n; ++j) y[r] += y[j];");
  kept("  y[r] = 0;\n  for (int j = 0; j < n; ++j) { y[r] += x[j]; z[j] = 1; }");
  kept("  float *w = y;\n  y[r] = 0;\n  for (int j = 0; j < n; ++j) y[r] += w[j];");
  kept("  y[r] = 0;\n  for (int j = 0; j < n; ++j) { float *p = &y[r]; *p += x[j]; }");
  // The index changes in the loop, or between the store and the loop.
  kept("  int c = r;\n  y[c] = 0;\n  for (int j = 0; j < n; ++j) { y[c] += x[j]; c = c; }");
  kept("  int c = r;\n  y[c] = 0;\n  c = 0;\n  for (int j = 0; j < n; ++j) y[c] += x[j];");
  // Memory written, or control leaving, between the store and the loop.
  kept("  y[r] = 0;\n  z[r] = 1;\n  for (int j = 0; j < n; ++j) y[r] += x[j];");
  kept("  y[r] = 0;\n  if (n < 0) return;\n  for (int j = 0; j < n; ++j) y[r] += x[j];");
  // A return, a barrier or an atomic in the loop; an index that loads.
  kept("  y[r] = 0;\n  for (int j = 0; j < n; ++j) { if (x[j] < 0) return; y[r] += x[j]; }");
  kept("  y[r] = 0;\n  for (int j = 0; j < n; ++j) { y[r] += x[j]; __syncthreads(); }");
  kept("  y[r] = 0;\n  for (int j = 0; j < n; ++j) { y[r] += x[j]; atomicAdd(z, 1.0f); }");
  kept("  y[(int)x[r]] = 0;\n  for (int j = 0; j < n; ++j) y[(int)x[r]] += x[j];");
}

TEST(NormalForm, LoopHintsAreDropped) {
  std::string f = form_of(R"(__global__ void k(const float *m, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0;
  #pragma unroll 4

  // each column
  #pragma clang loop vectorize(enable)
  for (int c = 0; c < cols; ++c) {
#pragma unroll
    for (int t = 0; t < 4; ++t) s += m[(r * cols + c) * 4 + t];
  }
#pragma nounroll
  while (s > 1) s /= 2;
  out[r] = s;
})");
  EXPECT_EQ(f.find("#pragma"), std::string::npos) << f;
  EXPECT_NE(f.find("  float s = 0;\n  for (int c = 0; c < cols; ++c) {\n    for (int t = 0;"), std::string::npos) << f;
  // Nothing but a hint to drop is still a form; a loop without one is not.
  EXPECT_EQ(form_of("__global__ void k(float *y, int n) {\n  for (int i = 0; i < n; ++i) y[i] = 0;\n}").rfind(
                "no-form:", 0),
            0u);
}

TEST(NormalForm, StructuralTransformsRunOnTheFormOfAKernelTheyRefuse) {
  KernelAst k = parsed(unit(kDot, "y[i] = dot(A + (size_t)i * n, x, n);"));
  Input in{k.source(), &k, {}, {}, {}};
  const Transform *split = find_transform("split_loop_across_warp");
  ASSERT_NE(split, nullptr);
  auto o = offer(*split, in);
  ASSERT_TRUE(o) << o.error().message;
  auto out = apply_offer(*split, *o, {{"lanes", "32"}, {"block", "256"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->source.find("__shfl_xor_sync"), std::string::npos) << out->source;
  EXPECT_EQ(out->source.find("dot("), std::string::npos) << out->source;
  // A kernel the transform accepts as written is rewritten as before.
  KernelAst plain = parsed(R"(__global__ void k(int rows, int n, const float *A, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) { float s = 0; for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j]; y[i] = s; }
})");
  Input pin{plain.source(), &plain, {}, {}, {}};
  auto po = offer(*split, pin);
  ASSERT_TRUE(po);
  EXPECT_EQ(po->form_ast, nullptr);
}

} // namespace

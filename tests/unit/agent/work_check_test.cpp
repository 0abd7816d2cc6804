#include "agent/work_check.h"
#include "support/fs.h"
#include "test_support.h"
#include "transform/transform.h"

#include <gtest/gtest.h>

using namespace kbcc::agent;

TEST(WorkCheck, AcceptsEquivalentRewrite) {
  std::string cand = R"(__global__ void saxpy(int n, float a, const float * __restrict__ x, float *y) {
  int stride = blockDim.x * gridDim.x;
  #pragma unroll 4
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fmaf(a, x[i], y[i]);
})";
  EXPECT_TRUE(check_candidate(test::kSaxpy, cand));
}

TEST(WorkCheck, RejectsUnwrittenOutput) {
  std::string cand = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) { float v = x[i] * a; (void)v; }
})";
  auto st = check_candidate(test::kSaxpy, cand);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "removed-work");
}

TEST(WorkCheck, AnElementsAddressMayBeWrittenThrough) {
  // The address of y's element goes into a local pointer that an atomic writes through.
  std::string orig = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&y[i], a * x[i]);
})";
  std::string cand = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { auto const p = (&y[i]); atomicAdd(p, a * x[i]); }
})";
  EXPECT_TRUE(check_candidate(orig, cand));
  std::string reads = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = y[i] + a * x[i]; (void)v; }
})";
  EXPECT_FALSE(check_candidate(orig, reads)) << "reading an element writes nothing";
}

TEST(WorkCheck, RejectsDroppedLoop) {
  std::string cand = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = threadIdx.x;
  y[i] = a * x[i] + y[i];
})";
  auto st = check_candidate(test::kSaxpy, cand);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "removed-work");
  EXPECT_NE(st.error().message.find("'n'"), std::string::npos);
}

TEST(WorkCheck, AGridOverTheLoopsBoundKeepsTheWork) {
  // A grid-stride loop run one item per thread: the grid grows with n.
  const char *strided = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
})";
  const char *per_item = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { y[i] = a * x[i] + y[i]; }
})";
  kbcc::launch::LaunchMapping m;
  m.grid[0] = "ceil_div(n, block.x)";
  EXPECT_TRUE(check_candidate(strided, per_item, m));
  // Without that grid the loop's work is gone.
  EXPECT_FALSE(check_candidate(strided, per_item));
  m.grid[0] = "grid.x * 2";
  EXPECT_FALSE(check_candidate(strided, per_item, m));
}

TEST(WorkCheck, ABlockBoundedLoopMayRunFixedSteps) {
  // A block-stride loop run as 4 guarded steps: only where n <= 4 * block.x.
  const char *strided = R"(__global__ void s(int n, const float *x, float *y) {
  for (int c = threadIdx.x; c < n; c += blockDim.x) y[c] = x[c];
})";
  const char *steps = R"(__global__ void s(int n, const float *x, float *y) {
  for (int q = 0; q < 4; ++q) { int c = threadIdx.x + q * blockDim.x; if (c < n) y[c] = x[c]; }
})";
  kbcc::launch::LaunchMapping m;
  m.preconditions = {"n >= 0"};
  EXPECT_FALSE(check_candidate(strided, steps, m));
  m.preconditions.push_back("n <= 4 * block.x");
  EXPECT_TRUE(check_candidate(strided, steps, m));
}

TEST(WorkCheck, AMemberNameIsNotAParameter) {
  // `blockDim.x` bounds the loop, not the parameter `x`: a rewrite without the loop keeps the work.
  std::string orig = R"(__global__ void scan(int n, const float *x, float *y) {
  __shared__ float buf[1024];
  buf[threadIdx.x] = x[threadIdx.x];
  for (int off = 1; off < blockDim.x; off *= 2) { __syncthreads(); }
  y[threadIdx.x] = buf[threadIdx.x];
})";
  std::string cand = R"(__global__ void scan(int n, const float *x, float *y) {
  y[threadIdx.x] = x[threadIdx.x];
})";
  EXPECT_TRUE(check_candidate(orig, cand));
  std::string by_x = orig;
  by_x.replace(by_x.find("off < blockDim.x"), 16, "off < (int)x[0]");
  auto st = check_candidate(by_x, cand);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("'x'"), std::string::npos);
}

TEST(WorkCheck, RejectsSignatureChanges) {
  auto st = check_candidate(test::kSaxpy, "__global__ void saxpy(int n, double a, const float *x, float *y) {}");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "signature-changed");
  st = check_candidate(test::kSaxpy, "__global__ void saxpy2(int n, float a, const float *x, float *y) {}");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "signature-changed");
}

TEST(WorkCheck, AnInstanceSpecializationWritesTheArgumentsButKeepsTheWork) {
  const std::string tmpl = "template <typename T> __global__ void scale(int n, T a, const T *x, T *y) {\n"
                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i];\n}";
  EXPECT_TRUE(check_candidate(tmpl,
                              "template <> __global__ void scale<float>(int n, float a, const float *x, float *y) "
                              "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i];\n}"));
  auto st =
      check_candidate(tmpl, "template <> __global__ void scale<float>(int n, float a, const float *x, float *y) {}");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "removed-work");
  st = check_candidate(tmpl, "template <> __global__ void scale<float>(int n, float a, const float *x) {}");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "signature-changed");
}

TEST(WorkCheck, WritesThroughForms) {
  EXPECT_TRUE(writes_through("{ out[i] += 1; }", "out"));
  EXPECT_TRUE(writes_through("{ *out = 1; }", "out"));
  EXPECT_TRUE(writes_through("{ atomicAdd(&out[0], 1); }", "out"));
  EXPECT_TRUE(writes_through("{ out[i]++; }", "out"));
  EXPECT_FALSE(writes_through("{ v = out[i] == 1; }", "out"));
  EXPECT_FALSE(writes_through("{ // out[i] = 1;\n }", "out"));
}

TEST(WorkCheck, MechanicalTransformsOfTheExampleKernelsPass) {
  // Every transform that applies to the example app's kernels keeps the
  // contract the static check enforces (no false "removed work").
  for (const char *file :
       {"examples/src/saxpy.cu", "examples/src/matmul.cu", "examples/src/reduce.cu", "bench/optimize/apps/layernorm.cu",
        "bench/optimize/apps/softmax.cu", "bench/optimize/apps/histogram.cu", "bench/optimize/apps/transpose.cu",
        "bench/optimize/apps/matmul.cu", "bench/optimize/apps/spmv.cu", "bench/optimize/apps/conv1d.cu",
        "bench/optimize/extra/embedding_sum.cu", "bench/optimize/extra/conv2d.cu"}) {
    std::string path = std::string(KBCC_SOURCE_DIR) + "/" + file;
    auto text = kbcc::read_file(path);
    ASSERT_TRUE(text) << file;
    kbcc::tooling::ParseRequest request;
    request.source = path;
    request.arch = "sm_90";
    request.flags = {"-I" + std::string(KBCC_SOURCE_DIR) + "/bench/optimize/apps"};
    auto ast = kbcc::transform::parse_kernel(request, *text, "");
    ASSERT_TRUE(ast) << file << ": " << ast.error().message;
    kbcc::transform::Input in{ast->source(), &*ast, {}, {{"registers_per_thread", 40}}};
    in.launches.resize(1);
    in.launches[0].block[0] = 256;
    int applied = 0;
    for (const kbcc::transform::Transform &t : kbcc::transform::transforms()) {
      auto axes = t.space(in);
      if (!axes) {
        EXPECT_EQ(axes.error().code, "not-applicable") << file << " " << t.id;
        continue;
      }
      auto out = t.apply(in, kbcc::transform::configurations(*axes).front());
      if (!out) {
        EXPECT_EQ(out.error().code, "not-applicable") << file << " " << t.id;
        continue;
      }
      ++applied;
      auto st = check_candidate(ast->source(), out->source);
      EXPECT_TRUE(st) << file << " " << t.id << ": " << (st ? "" : st.error().message);
    }
    EXPECT_GE(applied, 1) << file;
  }
}

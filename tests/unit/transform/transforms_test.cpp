// The transforms on small kernels: what they produce, the launch mapping
// they return, and the reasons they refuse.
#include "cache/variant.h"
#include "kb/policy.h"
#include "support/fs.h"
#include "transform/analysis.h"
#include "transform/transform.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace kbcc::transform;

namespace {

const char *kSaxpy = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";

const char *kRows = R"(__global__ void rows(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f, m = x[(size_t)r * cols];
  for (int c = 0; c < cols; ++c) {
    s += x[(size_t)r * cols + c];
    m = fmaxf(m, x[(size_t)r * cols + c]);
  }
  y[r] = s * m;
})";

const char *kMatmul = R"(__global__ void mm(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
})";

// A parsed kernel and an Input over it.
struct Parsed {
  std::string text;
  std::optional<KernelAst> ast;
  Input in;
  explicit Parsed(const std::string &source) : text(source) {
    kbcc::tooling::ParseRequest r;
    r.source = "/virtual/k.cu";
    r.arch = "sm_90";
    auto a = parse_kernel(r, text, "");
    EXPECT_TRUE(a) << (a ? "" : a.error().message);
    if (!a) return;
    ast = std::move(*a);
    in.source = ast->source();
    in.ast = &*ast;
    kbcc::launch::Launch l;
    l.grid[0] = 16;
    l.block[0] = 128;
    in.launches = {l};
  }
};

Output applied(const char *id, const std::string &source, Params params = {}) {
  Parsed p(source);
  const Transform *t = find_transform(id);
  EXPECT_NE(t, nullptr) << id;
  auto axes = t->space(p.in);
  EXPECT_TRUE(axes) << (axes ? "" : axes.error().message);
  Params use = configurations(*axes).front();
  for (const auto &[k, v] : params)
    use[k] = v;
  auto out = t->apply(p.in, use);
  EXPECT_TRUE(out) << (out ? "" : out.error().message);
  return out ? *out : Output{};
}

std::string refusal(const char *id, const std::string &source) {
  Parsed p(source);
  auto axes = find_transform(id)->space(p.in);
  if (axes) return "applies";
  EXPECT_EQ(axes.error().code, "not-applicable");
  return axes.error().message;
}

} // namespace

TEST(Transforms, TheTableHasEveryKbMechanicalLowering) {
  for (const char *id : kbcc::kb::kMechanicalLowerings)
    EXPECT_NE(find_transform(id), nullptr) << id;
  EXPECT_EQ(transforms().size(), kbcc::kb::kMechanicalLowerings.size()); // and no transform the KB cannot name
}

TEST(Transforms, ConfigurationsAreTheCartesianProductInOrder) {
  auto all = configurations({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}});
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0], (Params{{"a", "1"}, {"b", "x"}}));
  EXPECT_EQ(all[5], (Params{{"a", "2"}, {"b", "z"}}));
}

TEST(Transforms, LaunchBoundsUsesTheLargestCurrentBlock) {
  Parsed p(kSaxpy);
  p.in.launches[0].block[0] = 32, p.in.launches[0].block[1] = 8;
  auto out = find_transform("launch_bounds")->apply(p.in, {});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->source.find("__launch_bounds__(256) saxpy("), std::string::npos) << out->source;
  EXPECT_FALSE(out->launch);
}

TEST(Transforms, MaxnregFollowsTheProfile) {
  Parsed p(kSaxpy);
  p.in.metrics["registers_per_thread"] = 96;
  auto out = find_transform("maxnreg")->apply(p.in, {{"percent", "75"}});
  ASSERT_TRUE(out);
  EXPECT_NE(out->source.find("__maxnreg__(72) saxpy("), std::string::npos) << out->source;
  p.in.metrics["registers_per_thread"] = 24;
  EXPECT_FALSE(find_transform("maxnreg")->space(p.in));
}

TEST(Transforms, FastMathIsApproximate) {
  auto out = applied("fast_math", R"(__global__ void e(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(x[i]);
})");
  EXPECT_NE(out.source.find("__expf(x[i])"), std::string::npos);
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsApproximate);
}

TEST(Transforms, BlockSizeRecomputesTheGridAndKeepsCoverage) {
  Output out = applied("block_size", kSaxpy, {{"block", "512"}});
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 512)");
  EXPECT_EQ(out.launch->block[0], "512");
  auto &pre = out.launch->preconditions;
  EXPECT_NE(std::find(pre.begin(), pre.end(), "(grid.x * block.x) % 512 == 0 || n <= grid.x * block.x"), pre.end());
  EXPECT_NE(out.source.find("__launch_bounds__(512)"), std::string::npos);
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
}

TEST(Transforms, SplitLoopSharesTheInnerLoopAndReducesEachAccumulator) {
  Output out = applied("split_loop_across_warp", kRows, {{"lanes", "32"}, {"block", "256"}});
  EXPECT_NE(out.source.find("c += 32"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__shfl_xor_sync"), std::string::npos);
  EXPECT_NE(out.source.find("fmaxf(__kbcc_p"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("{ if (__kbcc_lane == 0) y[r] = s * m;"), std::string::npos) << out.source;
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 8)");
  EXPECT_EQ(out.launch->block[0], "256");
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsReassociates);
  EXPECT_EQ(out.reduction_length, "cols");
  EXPECT_EQ(out.size_params, (std::vector<std::string>{"cols", "rows"}));
}

// A loop whose body ends in a macro invocation (`AT(...)`) is shared: its
// end is past the invocation.
TEST(Transforms, SplitLoopSharesALoopEndingInAMacro) {
  const char *macro = R"(#define AT(m, r, c, w) m[(r) * (w) + (c)]
__global__ void rowsum(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += AT(x, r, c, cols);
    y[r] = s;
  }
})";
  Output out = applied("split_loop_across_warp", macro, {{"lanes", "32"}});
  EXPECT_NE(out.source.find("c += 32) __kbcc_p0 += AT(x, r, c, cols);\n"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("s += __kbcc_p0;"), std::string::npos) << out.source;
}

TEST(Transforms, SplitLoopAcrossABlockUsesSharedMemory) {
  Output out = applied("split_loop_across_warp", kRows, {{"lanes", "256"}});
  EXPECT_NE(out.source.find("__shared__"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__syncthreads()"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 1)");
}

namespace {

// A thread per column summing it over the rows: a column read.
const char *kColumns = R"(__global__ void colsum(int rows, int cols, const float *dy, float *db) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r)
    s += dy[(size_t)r * cols + c];
  db[c] = s;
})";

std::vector<Axis> axes_of(const char *id, const std::string &source) {
  Parsed p(source);
  auto axes = find_transform(id)->space(p.in);
  EXPECT_TRUE(axes) << (axes ? "" : axes.error().message);
  return axes ? *axes : std::vector<Axis>{};
}

} // namespace

TEST(Transforms, SplitLoopOffersItemsMajorGroupsForColumnReads) {
  // Rows (x[r * cols + c], the loop walking c): lanes of a group stay consecutive.
  EXPECT_EQ(axes_of("split_loop_across_warp", kRows).size(), 2u);
  // A column: the search tries items-major groups first.
  std::vector<Axis> axes = axes_of("split_loop_across_warp", kColumns);
  ASSERT_EQ(axes.size(), 3u);
  EXPECT_EQ(axes[0].name, "order");
  EXPECT_EQ(axes[0].values, (std::vector<std::string>{"items", "lanes"}));
  Output out = applied("split_loop_across_warp", kColumns, {{"lanes", "64"}, {"block", "512"}});
  EXPECT_NE(out.source.find("__kbcc_lane = threadIdx.x / 8u;"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__kbcc_s1[threadIdx.x % 8u + __kbcc_w * 32]"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 8)");
  EXPECT_EQ(out.launch->block[0], "512");
  // 32 items per block: each warp holds one lane of 32 columns, so no shuffle.
  out = applied("split_loop_across_warp", kColumns, {{"lanes", "8"}, {"block", "256"}});
  EXPECT_EQ(out.source.find("__shfl_xor_sync"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__kbcc_s1[threadIdx.x % 32u + __kbcc_w * 32]"), std::string::npos);
  // Within a warp: 8 items x 4 lanes, no shared memory, a warp barrier.
  out = applied("split_loop_across_warp", kColumns, {{"lanes", "4"}, {"block", "32"}});
  EXPECT_EQ(out.source.find("__shared__"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__syncwarp(__kbcc_mask)"), std::string::npos);
  // The work under `if (c < cols) { ... }`, the last statement: a thread
  // failing the test reaches no barrier after it, as if it returned.
  std::string wrapped = kColumns;
  wrapped.replace(wrapped.find("  if (c >= cols) return;\n"), 26, "  if (c < cols) {\n");
  wrapped.replace(wrapped.rfind('}'), 1, "}\n}");
  EXPECT_EQ(axes_of("split_loop_across_warp", wrapped).size(), 3u) << wrapped;
  // Groups spanning warps meet at block barriers: a store under a condition
  // followed by more statements would let some threads skip one and meet another.
  std::string nested = kColumns;
  nested.replace(nested.find("  db[c] = s;"), 11, "  if (s > 0.0f) db[c] = s;\n  db[c + cols] = s;");
  EXPECT_EQ(axes_of("split_loop_across_warp", nested).size(), 2u);
  Parsed p(nested);
  auto refused =
      find_transform("split_loop_across_warp")->apply(p.in, {{"order", "items"}, {"lanes", "64"}, {"block", "512"}});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("at the top level of the body"), std::string::npos);
}

TEST(Transforms, SplitLoopRefusals) {
  EXPECT_NE(refusal("split_loop_across_warp", kSaxpy).find("no loop"), std::string::npos);
  // A loop-carried scalar that is neither an accumulation nor a scan (an
  // exclusive prefix sum, read before its update).
  EXPECT_NE(refusal("split_loop_across_warp", R"(__global__ void scan(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) {
    y[r * cols + c] = s;
    s += x[r * cols + c];
  }
})")
                .find("no loop"),
            std::string::npos);
  EXPECT_NE(refusal("split_loop_across_warp", R"(__global__ void b(int n, float *y) {
  __shared__ float t[32];
  t[threadIdx.x] = y[threadIdx.x];
  __syncthreads();
  for (int c = 0; c < n; ++c) y[c] += t[c % 32];
})")
                .find("barriers"),
            std::string::npos);
  EXPECT_NE(refusal("split_loop_across_warp", R"(__global__ void g(int n, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int c = 0; c < n; ++c) y[i * n + c] = gridDim.x;
})")
                .find("outside the global-index idiom"),
            std::string::npos);
}

namespace {

// The selections of the first top-level `for` of a kernel's body.
std::vector<Selection> selections_of(const Parsed &p) {
  const auto *body = clang::cast<clang::CompoundStmt>(p.ast->kernel()->getBody());
  for (const clang::Stmt *s : body->body())
    if (const auto *f = clang::dyn_cast<clang::ForStmt>(s)) return selections(f, p.ast->context());
  return {};
}

} // namespace

// Which `if (X OP best) { best = X; ... }` are selections, and which way
// each keeps its best element and breaks ties.
TEST(Analysis, AVariableBoundToAWritableReferenceIsWritten) {
  // A loop whose sum a helper adds to through a reference: lanes splitting
  // it would each add their share to their own copy of `s`.
  std::string text = R"(#include <cstdio>
__device__ void add_to(float &acc, float v) { acc += v; }
__device__ float read(const float &v) { return v; }
__global__ void k(int rows, int n, const float *A, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float s = 0, t = 1;
  for (int j = 0; j < n; ++j) {
    add_to(s, A[i * n + j] * read(t));
    printf("%f", t); // a variadic argument is passed by value
  }
  y[i] = s;
})";
  Parsed p(text);
  ASSERT_TRUE(p.ast);
  const auto *body = llvm::cast<clang::CompoundStmt>(p.ast->kernel()->getBody());
  const auto *decl = llvm::cast<clang::DeclStmt>(body->body_begin()[2]);
  std::vector<const clang::VarDecl *> vars;
  for (const clang::Decl *d : decl->decls())
    vars.push_back(llvm::cast<clang::VarDecl>(d));
  const auto *loop = llvm::cast<clang::ForStmt>(body->body_begin()[3]);
  EXPECT_TRUE(assigns(loop, vars[0]));  // s: float &
  EXPECT_FALSE(assigns(loop, vars[1])); // t: const float &
  EXPECT_FALSE(accumulations(loop, p.ast->context(), {}));
  EXPECT_NE(refusal("split_loop_across_warp", text).find("other than by accumulation"), std::string::npos);
}

TEST(Analysis, SelectionsKeepABestElementAndWhatGoesWithIt) {
  Parsed argmax(R"(__global__ void k(int n, const float *x, int *out) {
  float best = x[0], low = x[0];
  int arg = 0, at = 0;
  for (int c = 1; c < n; ++c) {
    if (x[c] > best) { best = x[c]; arg = c; }
    float v = x[c];
    if (low >= v) low = v;
  }
  out[0] = arg + at;
})");
  ASSERT_TRUE(argmax.ast);
  std::vector<Selection> sels = selections_of(argmax);
  ASSERT_EQ(sels.size(), 2u);
  EXPECT_EQ(sels[0].best->getName(), "best");
  ASSERT_EQ(sels[0].carried.size(), 1u);
  EXPECT_EQ(sels[0].carried[0]->getName(), "arg");
  EXPECT_TRUE(sels[0].greater && sels[0].strict);
  EXPECT_EQ(sels[1].best->getName(), "low");
  EXPECT_TRUE(sels[1].carried.empty());
  EXPECT_FALSE(sels[1].greater || sels[1].strict); // low >= v: v <= low, the last of equals

  // Not selections: the best value set to another value, a carried variable
  // read by the loop, an else branch, and a test inside a nested loop.
  for (const char *body :
       {"if (x[c] > best) { best = x[c] * 2.0f; arg = c; }", "if (x[c] > best) { best = x[c]; arg = c; } at += arg;",
        "if (x[c] > best) { best = x[c]; arg = c; } else { arg = 0; }",
        "for (int j = 0; j < n; ++j) if (x[j] > best) { best = x[j]; arg = j; }"}) {
    std::string text = R"(__global__ void k(int n, const float *x, int *out) {
  float best = x[0];
  int arg = 0, at = 0;
  for (int c = 1; c < n; ++c) {
    )" + std::string(body) +
                       R"(
  }
  out[0] = arg + at;
})";
    Parsed p(text);
    ASSERT_TRUE(p.ast);
    EXPECT_TRUE(selections_of(p).empty()) << body;
  }
}

// `best = X OP best ? X : best;` is the selection `if (X OP best) best = X;`,
// and so is the other arm order for integers; for floats it is not, nor are a
// different value and a side effect.
TEST(Analysis, PicksWithConditionalsAreSelections) {
  auto picks = [](const std::string &update) {
    Parsed p(R"(__global__ void k(int n, const float *x, float *out, int *count) {
  float best = x[0];
  for (int c = 1; c < n; ++c)
    )" + update +
             R"(
  out[0] = best;
})");
    EXPECT_TRUE(p.ast) << update;
    return p.ast ? selections_of(p) : std::vector<Selection>{};
  };
  std::vector<Selection> max = picks("best = x[c] > best ? x[c] : best;");
  ASSERT_EQ(max.size(), 1u);
  EXPECT_TRUE(max[0].pick && !max[0].stmt && max[0].carried.empty());
  EXPECT_TRUE(max[0].greater && max[0].strict);
  std::vector<Selection> min = picks("best = (best >= x[c]) ? x[c] : best;");
  ASSERT_EQ(min.size(), 1u);
  EXPECT_FALSE(min[0].greater || min[0].strict); // x[c] <= best: the last of equals
  Parsed ints(R"(__global__ void k(int n, const int *x, int *out) {
  int best = x[0];
  for (int c = 1; c < n; ++c)
    best = best > x[c] ? best : x[c];
  out[0] = best;
})");
  ASSERT_TRUE(ints.ast);
  std::vector<Selection> kept = selections_of(ints);
  ASSERT_EQ(kept.size(), 1u); // integers: x[c] >= best picks x[c], the last of equals
  EXPECT_TRUE(kept[0].negated && kept[0].greater && !kept[0].strict);
  for (const char *update : {"best = best > x[c] ? best : x[c];", "best = x[c] > best ? 2.0f * x[c] : best;",
                             "best = x[c] > best ? x[c] : x[0];",
                             "best = x[atomicAdd(count, 1)] > best ? "
                             "x[atomicAdd(count, 1)] : best;"})
    EXPECT_TRUE(picks(update).empty()) << update;
}

// A selection shared by lanes: each lane keeps its best and the iteration
// that set it; the lanes combine by value, then by the earlier iteration.
TEST(Transforms, SplitLoopCombinesSelectionsByValueThenIteration) {
  const char *argmax = R"(__global__ void argmax(int rows, int cols, const float *x, int *label) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float best = x[(size_t)r * cols];
  int arg = 0;
  for (int c = 1; c < cols; ++c)
    if (x[(size_t)r * cols + c] > best) {
      best = x[(size_t)r * cols + c];
      arg = c;
    }
  label[r] = arg;
})";
  Output out = applied("split_loop_across_warp", argmax, {{"lanes", "32"}, {"block", "128"}});
  EXPECT_NE(out.source.find("long long __kbcc_p0 = 9223372036854775807LL;"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("{ __kbcc_p0 = c; {"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("if (__kbcc_x0 > __kbcc_p1 || (__kbcc_x0 == __kbcc_p1 && __kbcc_x1 < __kbcc_p0))"),
            std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("arg = __kbcc_p2;"), std::string::npos);
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact); // a selection does not reassociate
  // Across warps, every partial goes through shared memory.
  out = applied("split_loop_across_warp", argmax, {{"lanes", "128"}});
  EXPECT_NE(out.source.find("__shared__ decltype(__kbcc_p0) __kbcc_s3_1[4];"), std::string::npos) << out.source;
}

TEST(Transforms, CoarseningWrapsTheBodyAndShrinksTheGrid) {
  Output out = applied("thread_coarsening", kSaxpy, {{"factor", "4"}, {"block", "256"}});
  EXPECT_NE(out.source.find("__kbcc_k < 4u"), std::string::npos) << out.source;
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 1024)");
}

TEST(Transforms, CoarseningOfA2DKernelTakesConsecutiveRows) {
  Output out = applied("thread_coarsening", kMatmul, {{"factor", "2"}, {"block", "32x8"}});
  EXPECT_NE(out.source.find("(unsigned long long)(blockIdx.y * blockDim.y + threadIdx.y) * 2ull + __kbcc_k;"),
            std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("int row = ((decltype(blockIdx.y * blockDim.y + threadIdx.y))(__kbcc_row));"),
            std::string::npos);
  EXPECT_NE(out.source.find("int col = blockIdx.x * blockDim.x + threadIdx.x;"), std::string::npos);
  EXPECT_NE(out.source.find("goto __kbcc_next;"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[1], "ceil_div(grid.y * block.y, 16)");
  EXPECT_EQ(out.launch->block[1], "8");
  Parsed p(kMatmul);
  EXPECT_FALSE(find_transform("thread_coarsening")->apply(p.in, {{"factor", "2"}, {"block", "16x4"}}))
      << "a block row must be whole warps";
  auto flat = find_transform("thread_coarsening")->apply(p.in, {{"factor", "2"}, {"block", "256"}});
  ASSERT_TRUE(flat) << "\"256\" is the shape 256x1, as for block_size";
  EXPECT_EQ(flat->launch->block[1], "1");
  EXPECT_EQ(flat->launch->grid[1], "ceil_div(grid.y * block.y, 2)");
}

TEST(Transforms, PrivatizedAtomicsNeedTheirResultUnused) {
  const char *hist = R"(__global__ void h(int n, const unsigned char *d, unsigned *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[d[i]], 1u);
})";
  Output out = applied("smem_privatized_atomics", hist);
  EXPECT_NE(out.source.find("__shared__ unsigned int __kbcc_bins[256]"), std::string::npos) << out.source;
  EXPECT_EQ(
      refusal("smem_privatized_atomics", R"(__global__ void h(int n, const int *d, unsigned *bins, unsigned *old) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicAdd(&bins[d[i]], 1u);
})"),
      "an atomic's result is used");
  EXPECT_NE(refusal("smem_privatized_atomics", kSaxpy).find("no atomic"), std::string::npos);
}

TEST(Transforms, AggregatedAtomicsNeedOneAddressForEveryThread) {
  const char *sums = R"(__global__ void s(int n, const float *x, float *out, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(out + k, x[i]);
  atomicAdd(&out[k + 1], x[i] * x[i]);
  atomicAdd(out + k, 1.0f);
})";
  Output out = applied("warp_aggregated_atomics", sums, {{"factor", "4"}, {"block", "512"}});
  EXPECT_NE(out.source.find("float __kbcc_acc1 = -0.0f;"), std::string::npos) << "two addresses, two registers";
  EXPECT_EQ(out.source.find("__kbcc_acc2"), std::string::npos) << "out + k twice is one address";
  EXPECT_NE(out.source.find("atomicAdd((out + (k)), (float)__kbcc_acc0);"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("atomicAdd((out + (k + 1)), (float)__kbcc_acc1);"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("goto __kbcc_next;"), std::string::npos) << "a return ends the item, not the thread";
  EXPECT_EQ(out.launch->block[0], "512");
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 2048)");
  EXPECT_EQ(out.numerics, "reassociates");
  EXPECT_EQ(out.reduction_length, "n");
  EXPECT_EQ(refusal("warp_aggregated_atomics", R"(__global__ void s(int n, const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float *mine = out + i % 4;
  if (i < n) atomicAdd(mine, x[i]);
})"),
            "an atomic's address is not one element of a pointer parameter or __device__ variable, the same for "
            "every thread: 'mine'; per warp: an atomic does not update an element of a pointer parameter: 'mine'");
  EXPECT_EQ(refusal("warp_aggregated_atomics", R"(__device__ float atomicMin(float *a, float v) {
  float old = *a;
  while (v < old) {
    float seen = __int_as_float(atomicCAS((int *)a, __float_as_int(old), __float_as_int(v)));
    if (seen == old) break;
    old = seen;
  }
  return old;
}
__global__ void s(int n, const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMin(out, x[i]);
})"),
            "no atomicMin of float to combine");
  EXPECT_EQ(refusal("warp_aggregated_atomics", R"(__global__ void s(int n, const int *x, int *count, int *copy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(count, x[i]);
  if (i < n) copy[i] = count[0];
})"),
            "the kernel reads or writes 'count' other than by the atomics");
}

TEST(Transforms, TransposeStagingOnlyForStoresContiguousInY) {
  const char *t = R"(__global__ void t(int rows, int cols, const float *in, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
})";
  Output out = applied("smem_transpose_staging", t, {{"tile", "32"}, {"rows", "4"}});
  EXPECT_NE(out.source.find("__kbcc_tile[threadIdx.x][(threadIdx.y + __kbcc_r * 8)]"), std::string::npos) << out.source;
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->block[1], "8");
  const char *copy = R"(__global__ void t(int rows, int cols, const float *in, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)r * cols + c] = in[(size_t)r * cols + c];
})";
  EXPECT_NE(refusal("smem_transpose_staging", copy).find("not strided in x"), std::string::npos);
}

// The gather form: the stored value reads across; the first pass loads that
// element at the transposed position, the body then reads it from the tile.
TEST(Transforms, TransposeStagingLoadsGathersAcrossFirst) {
  const char *t = R"(__global__ void t(int n, const float *in, const float *w, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < n && c < n) out[r * n + c] = w[r * n + c] * in[c * n + r];
})";
  Output out = applied("smem_transpose_staging", t, {{"tile", "16"}, {"rows", "2"}});
  EXPECT_NE(out.source.find("(__kbcc_tile[(threadIdx.y + __kbcc_r * 8)][threadIdx.x] = (in[c * n + r]));"),
            std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("= w[r * n + c] * __kbcc_tile[threadIdx.x][(threadIdx.y + __kbcc_r * 8)];"),
            std::string::npos)
      << out.source;
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
  // A read across made only under a condition, or at an index read from
  // memory, is not loaded ahead.
  for (const char *value : {"r > c ? in[c * n + r] : 0.0f", "in[c * n + (int)w[r]]"}) {
    std::string text = std::string(t);
    text.replace(text.find("w[r * n + c] * in[c * n + r]"), 28, value);
    EXPECT_NE(refusal("smem_transpose_staging", text).find("nor are the stored value's reads"), std::string::npos)
        << value;
  }
}

// A batch (blockIdx.z read outside the idiom): the launch keeps grid.z.
const char *kStencil3d = R"(__global__ void st(unsigned n, const float *in, float *out) {
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (z >= 1 && z < n - 1 && y < n && x < n)
    out[(z * n + y) * n + x] = in[((z - 1) * n + y) * n + x] + in[((z + 1) * n + y) * n + x];
})";

TEST(Transforms, BlockSizeOfA3DKernelReshapesAllThreeDimensions) {
  Output out = applied("block_size", kStencil3d, {{"block", "32x4x2"}});
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 32)");
  EXPECT_EQ(out.launch->grid[1], "ceil_div(grid.y * block.y, 4)");
  EXPECT_EQ(out.launch->grid[2], "ceil_div(grid.z * block.z, 2)");
  EXPECT_EQ(out.launch->block[2], "2");
  const auto &pre = out.launch->preconditions;
  EXPECT_NE(std::find(pre.begin(), pre.end(), "(grid.z * block.z) % 2 == 0 || (n - 1) <= grid.z * block.z"), pre.end());
  EXPECT_EQ(std::count(pre.begin(), pre.end(), "block.z == 1"), 0);
  EXPECT_EQ(std::count(pre.begin(), pre.end(), "grid.z == 1"), 0);
  EXPECT_NE(out.source.find("__launch_bounds__(256)"), std::string::npos);
  Parsed p(kStencil3d);
  for (const char *bad : {"32x4x128", "64x8x4", "32x4x0", "32x4x2x2", "32xx4"})
    EXPECT_FALSE(find_transform("block_size")->apply(p.in, {{"block", bad}})) << bad;
  Parsed two(kMatmul);
  EXPECT_FALSE(find_transform("block_size")->apply(two.in, {{"block", "32x4x2"}})) << "a 2-D kernel keeps block.z 1";
  // blockIdx.z read outside the idiom of a kernel indexed in z is no batch.
  std::string batch = kStencil3d;
  batch.replace(batch.find("in[((z - 1)"), 3, "in[blockIdx.z + ");
  EXPECT_NE(refusal("block_size", batch).find("outside the global-index idiom"), std::string::npos);
  // Transforms that keep to one or two dimensions still refuse it.
  EXPECT_EQ(refusal("smem_tiling", kStencil3d).rfind("the kernel indexes the z dimension", 0), 0u);
}

TEST(Transforms, CoarseningOfA3DKernelTakesConsecutivePlanes) {
  Output out = applied("thread_coarsening", kStencil3d, {{"factor", "4"}, {"block", "64x4x1"}});
  EXPECT_NE(out.source.find("(unsigned long long)(blockIdx.z * blockDim.z + threadIdx.z) * 4ull + __kbcc_k;"),
            std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("unsigned z = ((decltype(blockIdx.z * blockDim.z + threadIdx.z))(__kbcc_row));"),
            std::string::npos);
  EXPECT_NE(out.source.find("unsigned y = blockIdx.y * blockDim.y + threadIdx.y;"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[1], "ceil_div(grid.y * block.y, 4)");
  EXPECT_EQ(out.launch->grid[2], "ceil_div(grid.z * block.z, 4)");
  EXPECT_EQ(out.launch->block[2], "1");
  const auto &pre = out.launch->preconditions;
  EXPECT_NE(std::find(pre.begin(), pre.end(), "(grid.z * block.z) % 4 == 0 || (n - 1) <= grid.z * block.z"), pre.end());
  Parsed p(kStencil3d);
  EXPECT_FALSE(find_transform("thread_coarsening")->apply(p.in, {{"factor", "4"}, {"block", "16x4x4"}}))
      << "a block row must be whole warps";
}

TEST(Transforms, BatchesKeepGridZ) {
  const char *batch = R"(__global__ void scale(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[(size_t)blockIdx.z * n + i] = 2.0f * x[(size_t)blockIdx.z * n + i];
})";
  Output out = applied("block_size", batch, {{"block", "128"}});
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[2], "grid.z");
  const auto &pre = out.launch->preconditions;
  EXPECT_EQ(std::count(pre.begin(), pre.end(), "grid.z == 1"), 0);
  EXPECT_EQ(std::count(pre.begin(), pre.end(), "block.z == 1"), 1);
  // Without the batch, grid.z stays 1.
  out = applied("block_size", kSaxpy, {{"block", "128"}});
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[2], "1");
  EXPECT_EQ(std::count(out.launch->preconditions.begin(), out.launch->preconditions.end(), "grid.z == 1"), 1);
  // blockDim.z is no batch index.
  std::string dims = batch;
  dims.replace(dims.find("2.0f"), 4, "(float)blockDim.z");
  EXPECT_NE(refusal("block_size", dims).find("outside the global-index idiom"), std::string::npos);
}

// A 1-D kernel's blockIdx.y (a row per y block) is a batch too: the launch
// keeps grid.y and still needs block.y == 1.
TEST(Transforms, RowsInBlockIdxYAreABatchOfOneDimensionalKernels) {
  const char *rows = R"(__global__ void bias(int cols, const float *x, const float *b, float *y) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < cols) y[row * cols + col] = x[row * cols + col] + b[col];
})";
  for (const char *id : {"block_size", "thread_coarsening"}) {
    Output out = applied(id, rows);
    ASSERT_TRUE(out.launch) << id;
    EXPECT_EQ(out.launch->grid[1], "grid.y") << id;
    EXPECT_EQ(out.launch->grid[2], "1") << id;
    const auto &pre = out.launch->preconditions;
    EXPECT_EQ(std::count(pre.begin(), pre.end(), "grid.y == 1"), 0) << id;
    EXPECT_EQ(std::count(pre.begin(), pre.end(), "block.y == 1"), 1) << id;
    EXPECT_EQ(std::count(pre.begin(), pre.end(), "grid.z == 1"), 1) << id;
  }
  // Without the batch, grid.y stays 1.
  Output plain = applied("block_size", kSaxpy);
  ASSERT_TRUE(plain.launch);
  EXPECT_EQ(plain.launch->grid[1], "1");
  // Where the kernel indexes y through the idiom, blockIdx.y is part of it.
  const char *two_d = R"(__global__ void f(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) y[j * n + i] = x[j * n + i] + (float)blockIdx.y;
})";
  EXPECT_NE(refusal("block_size", two_d).find("outside the global-index idiom"), std::string::npos);
  // threadIdx.y and blockDim.y are no batch index.
  std::string lanes = rows;
  lanes.replace(lanes.find("blockIdx.y"), 10, "threadIdx.y");
  EXPECT_NE(refusal("block_size", lanes).find("outside the global-index idiom"), std::string::npos);
  // A transform that does not take batches names the dimension.
  EXPECT_NE(refusal("vectorized_loads", rows).find("blockIdx.y/z or gridDim.y/z"), std::string::npos);
}

TEST(Transforms, InterchangeSwapsTheIndexesWhenAccessesRunAlongY) {
  // Rows in x: the loop's read of a and the store stride in x.
  const char *rows_in_x = R"(__global__ void mm(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
})";
  Output out = applied("interchange_thread_axes", rows_in_x, {{"block", "64x4"}});
  EXPECT_NE(out.source.find("int row = ((decltype(blockIdx.x * blockDim.x + threadIdx.x))(blockIdx.y * blockDim.y + "
                            "threadIdx.y));"),
            std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("__launch_bounds__(256)"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.y * block.y, 64)");
  EXPECT_EQ(out.launch->grid[1], "ceil_div(grid.x * block.x, 4)");
  EXPECT_EQ(out.launch->block[0], "64");
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
  // Columns in x already: the product reads b and stores c along x.
  EXPECT_NE(refusal("interchange_thread_axes", kMatmul).find("(0 against 1, weighted by loop depth)"),
            std::string::npos)
      << refusal("interchange_thread_axes", kMatmul);
  // A read along x inside a loop outweighs a store along y outside it.
  const char *loop_along_x = R"(__global__ void f(int n, const float *a, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += a[(j * n + k) * n + i];
  c[i * n + j] = s;
})";
  EXPECT_NE(refusal("interchange_thread_axes", loop_along_x).find("(1 against 4,"), std::string::npos)
      << refusal("interchange_thread_axes", loop_along_x);
}

TEST(Transforms, TilingKeepsTheSumOrderAndGuardsTheStores) {
  Output out = applied("smem_tiling", kMatmul, {{"tile", "16"}});
  EXPECT_NE(out.source.find("__kbcc_As[threadIdx.y][__kbcc_kk] * __kbcc_Bs[__kbcc_kk][threadIdx.x]"), std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("if (__kbcc_row_ok && __kbcc_col_ok)"), std::string::npos);
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
  const char *diag = R"(__global__ void d(int n, const float *a, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[(row + col) * n + k];
  c[row * n + col] = acc;
})";
  EXPECT_NE(refusal("smem_tiling", diag).find("both row and column"), std::string::npos);
}

TEST(Transforms, TilingTakesTheWorkUnderTheThreadsBoundsCheck) {
  // `if (row < n && col < n) { ... }` holding the work, as the body's last statement.
  const char *wrapped = R"(__global__ void mm(int n, const float *a, const float *b, float *c) {
  int col = threadIdx.x + blockDim.x * blockIdx.x;
  int row = threadIdx.y + blockDim.y * blockIdx.y;
  if ((col < n) && (row < n) && n > 0) {
    float acc = 0;
    for (int k = 0; k < n; k++)
      acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
  }
})";
  Output out = applied("smem_tiling", wrapped, {{"tile", "16"}});
  // Its terms say when the thread works; a uniform one ends the whole block.
  EXPECT_NE(out.source.find("if (!(true && (n > 0))) return;"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("const bool __kbcc_row_ok = true && ((row < n));"), std::string::npos);
  EXPECT_NE(out.source.find("const bool __kbcc_col_ok = true && ((col < n));\n  {"), std::string::npos);
  EXPECT_NE(out.source.find("if (__kbcc_row_ok && __kbcc_col_ok) {\n  c[row * n + col] = acc;\n    }\n}"),
            std::string::npos);
  Output rb = applied("register_blocking", wrapped, {{"shape", "64x4x16"}, {"map", "blocked"}});
  EXPECT_NE(rb.source.find("__kbcc_rok[__kbcc_i] = true && ((row < n));"), std::string::npos) << rb.source;
  EXPECT_NE(rb.source.find("c[row * n + col] = acc;"), std::string::npos);
  // Terms that read memory: evaluated apart, they could read what the original's && skips.
  std::string reading = wrapped;
  reading.replace(reading.find("n > 0"), 5, "a[0] > 0.0f");
  EXPECT_NE(refusal("smem_tiling", reading).find("no reduction loop"), std::string::npos);
  // Something after the block would run for threads out of bounds too.
  std::string trailing = wrapped;
  trailing.replace(trailing.rfind('}'), 1, "  c[0] = 0.0f;\n}");
  EXPECT_NE(refusal("smem_tiling", trailing).find("no reduction loop"), std::string::npos);
}

TEST(Transforms, TilingNeedsTheSameTripCountInEveryThread) {
  const char *triangular = R"(__global__ void t(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < row; ++k)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
})";
  EXPECT_NE(refusal("smem_tiling", triangular).find("bounds differ between threads"), std::string::npos);
  EXPECT_NE(refusal("register_blocking", triangular).find("bounds differ between threads"), std::string::npos);
}

TEST(Transforms, RegisterBlockingKeepsEachOutputsSumInOrder) {
  Output out = applied("register_blocking", kMatmul, {{"shape", "64x4x16"}, {"map", "blocked"}});
  // Per thread a 4x4 micro-tile of accumulators, each updated from the tiles in k order.
  EXPECT_NE(out.source.find("float __kbcc_acc0[4][4];"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("float &acc = __kbcc_acc0[__kbcc_i][__kbcc_j];"), std::string::npos);
  EXPECT_NE(out.source.find("acc += __kbcc_Af[__kbcc_i] * __kbcc_Bf[__kbcc_j];"), std::string::npos) << out.source;
  // The thread's rows of A and columns of B at step kk, read once into registers.
  EXPECT_NE(out.source.find("__kbcc_Af[__kbcc_v] = __kbcc_At[__kbcc_kk][(__kbcc_ty * 4 + __kbcc_v)];"),
            std::string::npos);
  EXPECT_NE(out.source.find("__kbcc_Bf[__kbcc_v] = __kbcc_Bt[__kbcc_kk][(__kbcc_tx * 4 + __kbcc_v)];"),
            std::string::npos);
  // The next stage's global reads go to registers before this stage's products
  // (4 elements of each 64 x 16 operand per thread of 256), then to the tiles;
  // reads outside the matrix or past the loop's end read nothing.
  size_t next = out.source.find("const int __kbcc_k1 = __kbcc_k0 + 16;");
  ASSERT_NE(next, std::string::npos);
  EXPECT_LT(out.source.find("__kbcc_At[__kbcc_c][__kbcc_r] = __kbcc_Ap[__kbcc_p];"), next);
  EXPECT_LT(next, out.source.find("__kbcc_Af[__kbcc_v]"));
  EXPECT_NE(out.source.find("__kbcc_Ap[__kbcc_p] = ((true && !(row >= n)) && k < (n)) ? (float)(a[row * n + k]) : "
                            "(float)0;"),
            std::string::npos);
  EXPECT_NE(out.source.find("for (int __kbcc_p = 0; __kbcc_p < 4; ++__kbcc_p)"), std::string::npos);
  // A stage smaller than the block: 32 x 4 elements of A for 256 threads.
  Output uneven = applied("register_blocking", kMatmul, {{"shape", "32x2x4"}, {"map", "blocked"}});
  EXPECT_NE(uneven.source.find("__kbcc_Ap[__kbcc_p] = (__kbcc_e < 32u * 4u && "), std::string::npos) << uneven.source;
  EXPECT_NE(uneven.source.find("if (__kbcc_e < 32u * 4u) __kbcc_At[__kbcc_c][__kbcc_r]"), std::string::npos);
  // Stores only for in-range outputs.
  EXPECT_NE(out.source.find("if (__kbcc_rok[__kbcc_i] && __kbcc_cok[__kbcc_j])"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 64)");
  EXPECT_EQ(out.launch->block[0], "16");
  EXPECT_EQ(out.launch->block[1], "16");
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
  Output strided = applied("register_blocking", kMatmul, {{"shape", "64x4x16"}, {"map", "strided"}});
  EXPECT_NE(strided.source.find("(__kbcc_tx + __kbcc_j * 16)"), std::string::npos) << strided.source;
}

TEST(Transforms, TilingReadsASumsInitialValueForWorkingThreadsOnly) {
  const std::string loaded =
      R"(__global__ void lin(int n, const float *a, const float *b, const float *bias, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = bias[col];
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
})";
  Output st = applied("smem_tiling", loaded, {{"tile", "16"}});
  EXPECT_NE(st.source.find("float acc = (__kbcc_row_ok && __kbcc_col_ok) ? (float)(bias[col]) : (float)0;"),
            std::string::npos)
      << st.source;
  Output rb = applied("register_blocking", loaded, {{"shape", "64x4x16"}, {"map", "blocked"}});
  EXPECT_NE(rb.source.find("__kbcc_acc0[__kbcc_i][__kbcc_j] = (__kbcc_rok[__kbcc_i] && __kbcc_cok[__kbcc_j]) ? "
                           "(float)(bias[col]) : (float)0;"),
            std::string::npos)
      << rb.source;
  auto with = [&](const std::string &from, const std::string &to) {
    std::string s = loaded;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  // Read before the bounds check, by threads the rewrite adds as well.
  std::string early = with("  if (row >= n || col >= n) return;\n  float acc = bias[col];",
                           "  float acc = bias[col];\n  if (row >= n || col >= n) return;");
  // A variable that is no accumulator, and an initializer that writes memory.
  std::string other = with("float acc = bias[col];", "float s = bias[0];\n  float acc = s;");
  std::string writes = with("float acc = bias[col];", "float acc = c[col] = bias[col];");
  for (const std::string &k : {early, other, writes})
    for (const char *t : {"smem_tiling", "register_blocking"})
      EXPECT_NE(refusal(t, k).find("a statement before the reduction loop touches memory"), std::string::npos)
          << t << "\n"
          << k;
}

TEST(Transforms, RegisterBlockingRefusals) {
  // A variable before the loop that depends on the output's row and is
  // assigned, or depends on it and on an accumulator.
  EXPECT_NE(refusal("register_blocking", R"(__global__ void m(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  const float *ar = a + row * n;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += ar[k] * b[k * n + col];
  c[row * n + col] = acc + *++ar;
})")
                .find("variable 'ar' depends on the output's row or column and is assigned"),
            std::string::npos);
  EXPECT_NE(refusal("register_blocking", R"(__global__ void m(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  float start = acc + row;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc + start;
})")
                .find("depends on the output's row or column and on a variable other than the indexes"),
            std::string::npos);
  // The statements after the loop return.
  EXPECT_NE(refusal("register_blocking", R"(__global__ void m(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  if (acc == 0.0f) return;
  c[row * n + col] = acc;
})")
                .find("returns or jumps"),
            std::string::npos);
  EXPECT_NE(refusal("register_blocking", kSaxpy).find("one dimension"), std::string::npos);
}

TEST(Transforms, VectorizedLoadsNeedAlignmentAndUnconditionalAccesses) {
  const char *axpby = R"(__global__ void e(int n, float a, const float *x, const float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
})";
  Output out = applied("vectorized_loads", axpby, {{"block", "256"}});
  EXPECT_NE(out.source.find("struct __align__(16) __kbcc_v0 { float e[4]; };"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("(long long)__kbcc_i0 + 4 <= (long long)(n)"), std::string::npos);
  EXPECT_NE(out.source.find("__kbcc_s2.e[3] = a * __kbcc_l0.e[3] + __kbcc_l1.e[3];"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 1024)");
  auto &pre = out.launch->preconditions;
  for (const char *p : {"aligned(x, 16)", "aligned(y, 16)", "aligned(z, 16)"})
    EXPECT_NE(std::find(pre.begin(), pre.end(), p), pre.end()) << p;
  // Doubles take two lanes. A store behind a data-dependent branch sets its
  // item's bit of a mask, and the vector is stored whole only when every
  // item stored.
  Output masked = applied("vectorized_loads", R"(__global__ void m(int n, const double *x, float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  if (v > 0) y[i] = 1.0f;
  z[i] = (float)v;
})");
  EXPECT_NE(masked.source.find("if (v > 0) (__kbcc_m1 |= 2u, __kbcc_s1.e[1] = 1.0f);"), std::string::npos)
      << masked.source;
  EXPECT_NE(masked.source.find("if (__kbcc_m1 == 3u) *reinterpret_cast<__kbcc_v1 *>(y + __kbcc_i0) = __kbcc_s1;"),
            std::string::npos);
  EXPECT_NE(masked.source.find("if (__kbcc_m1 >> __kbcc_v & 1u) y[__kbcc_i0 + __kbcc_v] = __kbcc_s1.e[__kbcc_v];"),
            std::string::npos);
  EXPECT_EQ(masked.source.find("__kbcc_m2"), std::string::npos); // z is stored by every item
  // A read behind a branch, a compound store's too, needs another read of
  // its stream on every item: else the vector would read elements the
  // kernel does not.
  EXPECT_EQ(refusal("vectorized_loads", R"(__global__ void m(int n, const int *c, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (c[i] > 0) y[i] += 1.0f;
})"),
            "'y' is stored at the thread's own element but cannot be vectorized: it is read only for some items");
  Output m = applied("vectorized_loads", R"(__global__ void m(int n, const double *x, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  z[i] = (float)v;
})");
  EXPECT_NE(m.source.find("__align__(16) __kbcc_v0 { double e[2]; }"), std::string::npos) << m.source;
  EXPECT_NE(m.source.find("double v = __kbcc_l0.e[1];"), std::string::npos) << m.source;
  EXPECT_NE(m.source.find("__align__(8) __kbcc_v1 { float e[2]; }"), std::string::npos) << m.source;
  // A stream read before every store, then stored once (y = a * x + y), is
  // updated in its vector, with no precondition on the pointers.
  Output saxpy = applied("vectorized_loads", kSaxpy);
  EXPECT_NE(saxpy.source.find("__kbcc_u1.e[2] = a * __kbcc_l0.e[2] + __kbcc_u1.e[2];"), std::string::npos)
      << saxpy.source;
  ASSERT_TRUE(saxpy.launch);
  for (const std::string &p : saxpy.launch->preconditions)
    EXPECT_EQ(p.find("distinct"), std::string::npos) << p;
  // Read after another stream's store, in a body that touches only its
  // streams: vectorized on launches whose pointers differ.
  Output chain = applied("vectorized_loads", R"(__global__ void c(int n, const float *x, float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = x[i] + 1.0f; z[i] = y[i] * x[i]; }
})");
  EXPECT_NE(chain.source.find("__kbcc_s2.e[0] = __kbcc_s1.e[0] * __kbcc_l0.e[0];"), std::string::npos) << chain.source;
  ASSERT_TRUE(chain.launch);
  auto &cp = chain.launch->preconditions;
  for (const char *p : {"distinct(x, y)", "distinct(x, z)", "distinct(y, z)"})
    EXPECT_NE(std::find(cp.begin(), cp.end(), p), cp.end()) << p;
  // x is read again after a store to y, which may alias it: x stays scalar.
  Output again = applied("vectorized_loads", R"(__global__ void m(int n, const float *x, float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = 1.0f;
  z[i] = x[i];
})");
  EXPECT_NE(again.source.find("__kbcc_s1.e[0] = x[i];"), std::string::npos) << again.source;
  const char *after_store = R"(__global__ void s(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 0.0f;
    if (x[i] > 1.0f) y[i] = x[i];
  }
})";
  // Stored on every item, then again on some: no mask; stored twice, so on
  // launches whose pointers differ.
  Output twice = applied("vectorized_loads", after_store);
  EXPECT_EQ(twice.source.find("__kbcc_m"), std::string::npos) << twice.source;
  EXPECT_NE(twice.source.find("if (__kbcc_l0.e[3] > 1.0f) __kbcc_s1.e[3] = __kbcc_l0.e[3];"), std::string::npos)
      << twice.source;
  ASSERT_TRUE(twice.launch);
  EXPECT_NE(std::find(twice.launch->preconditions.begin(), twice.launch->preconditions.end(), "distinct(x, y)"),
            twice.launch->preconditions.end());
  EXPECT_NE(refusal("vectorized_loads", R"(__global__ void u(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i];
})")
                .find("no bound guard"),
            std::string::npos);
}

TEST(Transforms, CacheHintsOnlyForStreamsOutsideLoops) {
  Output out =
      applied("cache_hint_streaming", R"(__global__ void h(int n, int m, const float *x, const float *w, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = x[i];
  for (int k = 0; k < m; ++k) s += w[k];
  y[i] = s;
})");
  EXPECT_NE(out.source.find("float s = __ldcs(&x[i]);"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__stcs(&y[i], s);"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("s += w[k];"), std::string::npos) << out.source;
  EXPECT_FALSE(out.launch);
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
}

namespace {

// A block reduction's kernel up to its steps: one element per thread in buf.
const char *kReduceHead = R"(__global__ void r(int n, const int *x, int *out) {
  __shared__ int buf[1024];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  buf[t] = i < (unsigned)n ? x[i] : 0;
  __syncthreads();
)";

// A tree reduction of `update` (run while `cond` holds for s) over buf, then `tail`.
std::string tree(const std::string &loop, const std::string &update, const std::string &tail) {
  return std::string(kReduceHead) + "  for (" + loop + R"() {
    )" + update +
         R"(
    __syncthreads();
  }
  )" + tail +
         "\n}";
}

const char *kSequential = "unsigned s = blockDim.x / 2; s > 0; s >>= 1";

} // namespace

TEST(Transforms, CollectivesRecogniseInterleavedAndSequentialTrees) {
  for (auto [loop, update] :
       {std::pair{"unsigned s = 1; s < blockDim.x; s *= 2", "if (t % (2 * s) == 0) buf[t] += buf[t + s];"},
        std::pair{kSequential, "if (t < s) buf[t] = buf[t] + buf[t + s];"},
        std::pair{kSequential, "if (t < s) buf[t] = max(buf[t], buf[t + s]);"}}) {
    Output out =
        applied("shuffle_collectives", tree(loop, update, "if (t == 0) out[blockIdx.x] = buf[0];"), {{"items", "1"}});
    EXPECT_NE(out.source.find("__shfl_xor_sync(0xffffffffu, __kbcc_v0, __kbcc_o)"), std::string::npos) << out.source;
    // The original loop stays for blocks that are not a power of two.
    EXPECT_NE(out.source.find("} else {\n  for (" + std::string(loop)), std::string::npos) << out.source;
    EXPECT_FALSE(out.launch) << "the block result is stored per block: blocks cannot merge";
    EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
  }
}

TEST(Transforms, CollectivesMergeBlocksSentToOneAtomic) {
  Parsed p(tree(kSequential, "if (t < s) buf[t] += buf[t + s];", "if (t == 0) atomicAdd(out, buf[0]);"));
  auto axes = find_transform("shuffle_collectives")->space(p.in);
  ASSERT_TRUE(axes);
  ASSERT_EQ(axes->size(), 1u);
  EXPECT_EQ((*axes)[0].name, "factor");
  auto out = find_transform("shuffle_collectives")->apply(p.in, {{"factor", "8"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->source.find("const __kbcc_ti0 i = (__kbcc_ti0)__kbcc_item;"), std::string::npos) << out->source;
  EXPECT_NE(out->source.find("__attribute__((unused)) unsigned i = "), std::string::npos) << out->source;
  EXPECT_NE(out->source.find("__kbcc_acc = __kbcc_k == 0u ? __kbcc_e : __kbcc_acc + __kbcc_e;"), std::string::npos);
  ASSERT_TRUE(out->launch);
  EXPECT_EQ(out->launch->grid[0], "grid.x / 8");
  EXPECT_EQ(out->launch->preconditions, std::vector<std::string>{"grid.x % 8 == 0"});
  EXPECT_EQ(out->size_params, std::vector<std::string>{"n"});
  // The index declared with a moved local moves with it, rewritten, and is not declared twice.
  Parsed mixed(R"(__global__ void r(int n, const int *x, int *out) {
  __shared__ int buf[1024];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t, v = i < (unsigned)n ? x[i] : 0;
  buf[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, buf[0]);
})");
  auto moved = find_transform("shuffle_collectives")->apply(mixed.in, {{"factor", "4"}});
  ASSERT_TRUE(moved) << moved.error().message;
  EXPECT_EQ(moved->source.find("__kbcc_ti0"), std::string::npos) << moved->source;
  EXPECT_EQ(moved->source.find("__attribute__((unused))"), std::string::npos) << moved->source;
  EXPECT_NE(moved->source.find("unsigned i = ((decltype(blockIdx.x * blockDim.x + t))(__kbcc_item)), v ="),
            std::string::npos)
      << moved->source;
  // The atomic's address depends on the block: merging would move elements between outputs.
  EXPECT_TRUE(applied("shuffle_collectives",
                      tree(kSequential, "if (t < s) buf[t] += buf[t + s];",
                           "if (t == 0) atomicAdd(&out[blockIdx.x % 4], buf[0]);"),
                      {{"items", "1"}})
                  .launch == std::nullopt);
  // Another operation than the tree's.
  EXPECT_TRUE(
      applied("shuffle_collectives",
              tree(kSequential, "if (t < s) buf[t] = max(buf[t], buf[t + s]);", "if (t == 0) atomicAdd(out, buf[0]);"),
              {{"items", "1"}})
          .launch == std::nullopt);
}

TEST(Transforms, CollectivesTakeALastWarpThroughVolatileCells) {
  const char *loop = "unsigned s = blockDim.x / 2; s > 32; s >>= 1", *update = "if (t < s) buf[t] += buf[t + s];";
  auto last_warp = [](const std::string &steps) {
    return "if (t < 32) {\n    volatile int *w = buf;\n" + steps + "  }\n  if (t == 0) out[blockIdx.x] = buf[0];";
  };
  const std::string all = "w[t] += w[t + 32]; w[t] += w[t + 16]; w[t] += w[t + 8];\n"
                          "w[t] += w[t + 4]; w[t] += w[t + 2]; w[t] += w[t + 1];\n";
  Output out = applied("shuffle_collectives", tree(loop, update, last_warp(all)), {{"items", "1"}});
  // Blocks of 32 would read past the block's cells: they keep the code as written.
  EXPECT_NE(out.source.find("blockDim.x >= 64u && blockDim.y == 1u"), std::string::npos) << out.source;
  size_t fallback = out.source.find("} else {");
  ASSERT_NE(fallback, std::string::npos) << out.source;
  EXPECT_GT(out.source.find("volatile int *w = buf;"), fallback) << "the last warp runs only where the loop does";
  EXPECT_GT(out.source.find("if (t == 0) out[blockIdx.x]"), out.source.find("w[t] += w[t + 1];"));
  // A loop that stops at 32 cells, a last warp from 16: blocks of 32 are proven too.
  Output from16 = applied("shuffle_collectives",
                          tree("unsigned s = blockDim.x / 2; s > 16; s >>= 1", update,
                               "if (t < 16) {\n    volatile int *w = buf;\n"
                               "w[t] += w[t + 16]; w[t] += w[t + 8]; w[t] += w[t + 4]; w[t] += w[t + 2]; "
                               "w[t] += w[t + 1];\n  }\n  if (t == 0) out[blockIdx.x] = buf[0];"),
                          {{"items", "1"}});
  EXPECT_NE(from16.source.find("blockDim.x >= 32u && blockDim.y == 1u"), std::string::npos) << from16.source;
  // Refused: a step missing, another operation, two warps, plain accesses.
  const std::pair<std::string, std::string> refused[] = {
      {last_warp("w[t] += w[t + 32]; w[t] += w[t + 16]; w[t] += w[t + 8]; w[t] += w[t + 4]; w[t] += w[t + 2];\n"),
       "it does not combine every element exactly once into buf[0] (1024 threads)"},
      {last_warp("w[t] += w[t + 32]; w[t] = max(w[t], w[t + 16]);\n"), "its steps are not w[a] op= w[b]"},
      {"if (t < 64) {\n    volatile int *w = buf;\n" + all + "  }\n  if (t == 0) out[blockIdx.x] = buf[0];",
       "a step after the loop runs on two warps without a barrier"},
      {"if (t < 32) {\n buf[t] += buf[t + 32]; buf[t] += buf[t + 16]; buf[t] += buf[t + 8];\n"
       "buf[t] += buf[t + 4]; buf[t] += buf[t + 2]; buf[t] += buf[t + 1];\n  }\n"
       "  if (t == 0) out[blockIdx.x] = buf[0];",
       "through a pointer to volatile elements"},
      // The rewrite would drop the declaration, and the atomic with it.
      {last_warp("int k = atomicAdd(out, 1);\n" + all), "an integer of index arithmetic"}};
  for (const auto &[tail, why] : refused)
    EXPECT_NE(refusal("shuffle_collectives", tree(loop, update, tail)).find(why), std::string::npos) << why;
  // A captured launch of 32 threads never takes the shuffles here.
  Parsed small(tree(loop, update, last_warp(all)));
  small.in.launches[0].block[0] = 32;
  auto axes = find_transform("shuffle_collectives")->space(small.in);
  ASSERT_FALSE(axes);
  EXPECT_NE(axes.error().message.find("no captured launch"), std::string::npos) << axes.error().message;
}

namespace {

// A tree reduction written out a step per statement, from `first` cells down
// to 1, each step behind a test of the block's size; `barrier` after each.
std::string written(unsigned first, const std::string &barrier = "__syncthreads();") {
  std::string steps;
  for (unsigned s = first; s >= 1; s /= 2)
    steps += "  if (blockDim.x >= " + std::to_string(2 * s) + ") { if (t < " + std::to_string(s) +
             ") buf[t] += buf[t + " + std::to_string(s) + "]; " + barrier + " }\n";
  return kReduceHead + steps + "  if (t == 0) out[blockIdx.x] = buf[0];\n}";
}

} // namespace

TEST(Transforms, CollectivesTakeStepsWrittenOut) {
  // Every step from 512: every block is proven; the steps stay for other shapes.
  Output out = applied("shuffle_collectives", written(512), {{"items", "1"}});
  EXPECT_NE(out.source.find("blockDim.x >= 32u && blockDim.y == 1u"), std::string::npos) << out.source;
  size_t fallback = out.source.find("} else {");
  ASSERT_NE(fallback, std::string::npos) << out.source;
  EXPECT_GT(out.source.find("if (blockDim.x >= 1024) { if (t < 512)"), fallback);
  EXPECT_GT(out.source.find("if (t == 0) out[blockIdx.x]"), out.source.find("buf[t] += buf[t + 1];"));
  // From 256: blocks of 1024 would leave half the cells out, so they keep the steps.
  Output to512 = applied("shuffle_collectives", written(256), {{"items", "1"}});
  EXPECT_NE(to512.source.find("blockDim.x >= 32u && blockDim.x <= 512u && blockDim.y == 1u"), std::string::npos)
      << to512.source;
  Parsed large(written(256));
  large.in.launches[0].block[0] = 1024;
  auto axes = find_transform("shuffle_collectives")->space(large.in);
  ASSERT_FALSE(axes);
  EXPECT_NE(axes.error().message.find("a power of two of 32 to 512 threads"), std::string::npos)
      << axes.error().message;
  // A loop from a constant is proven for the one block it fits.
  Parsed fixed(tree("unsigned s = 128; s > 0; s >>= 1", "if (t < s) buf[t] += buf[t + s];",
                    "if (t == 0) out[blockIdx.x] = buf[0];"));
  fixed.in.launches[0].block[0] = 256;
  auto rewrite = find_transform("shuffle_collectives")->apply(fixed.in, {{"items", "1"}});
  ASSERT_TRUE(rewrite) << rewrite.error().message;
  EXPECT_NE(rewrite->source.find("if (blockDim.x == 256u && blockDim.y == 1u"), std::string::npos) << rewrite->source;
  // Refused: a barrier only some threads reach; a barrier no block runs; a step missing.
  std::string divergent = written(512);
  for (size_t at = 0; (at = divergent.find("if (blockDim.x >= ", at)) != std::string::npos; ++at)
    divergent.replace(at, 18, "if (t < 1024 && blockDim.x >= ");
  EXPECT_NE(refusal("shuffle_collectives", divergent).find("a barrier runs under a condition that may differ"),
            std::string::npos);
  EXPECT_NE(refusal("shuffle_collectives", written(512, "if (blockDim.x > 1024) __syncthreads();"))
                .find("two of its steps run without a barrier between them (1024 threads)"),
            std::string::npos);
  std::string missing = written(512);
  missing.erase(missing.find("  if (blockDim.x >= 2)"),
                missing.find("  if (t == 0)") - missing.find("  if (blockDim.x >= 2)"));
  EXPECT_NE(refusal("shuffle_collectives", missing).find("does not combine every element exactly once into buf[0]"),
            std::string::npos);
}

TEST(Transforms, CollectivesRecogniseHillisSteeleScans) {
  const char *scan = R"(__global__ void scan(int n, const float *x, float *y) {
  __shared__ float buf[1024];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off *= 2) {
    float v = 0.0f;
    if (t >= off) v = buf[t - off];
    __syncthreads();
    buf[t] += v;
    __syncthreads();
  }
  if (i < n) y[i] = buf[t];
})";
  Output out = applied("shuffle_collectives", scan, {{"items", "1"}});
  EXPECT_NE(out.source.find("__shfl_up_sync(0xffffffffu, __kbcc_v0[__kbcc_j], __kbcc_o)"), std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("buf[threadIdx.x] = __kbcc_v0[__kbcc_j];"), std::string::npos);
  EXPECT_FALSE(out.launch);
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsReassociates);

  // Four cells per thread: a quarter of the threads, each running four of the original ones.
  Output four = applied("shuffle_collectives", scan, {{"items", "4"}});
  const std::string &text = four.source;
  EXPECT_NE(text.find("for (unsigned __kbcc_vk = 0u; __kbcc_vk < 4u; ++__kbcc_vk) {\n  const unsigned __kbcc_vt = "
                      "__kbcc_vk * blockDim.x + threadIdx.x;"),
            std::string::npos)
      << text;
  // The thread's index is computed again after the barriers, as the virtual thread's.
  std::string index = "int t = __kbcc_vt, i = blockIdx.x * (blockDim.x * 4u) + t;";
  ASSERT_NE(text.find(index), std::string::npos) << text;
  EXPECT_NE(text.find(index, text.find(index) + 1), std::string::npos) << text;
  EXPECT_NE(text.find("__kbcc_v0[__kbcc_j] = buf[__kbcc_j * blockDim.x + threadIdx.x];"), std::string::npos);
  EXPECT_EQ(text.find("else"), std::string::npos) << "the launch preconditions replace the block-shape test";
  ASSERT_TRUE(four.launch);
  EXPECT_EQ(four.launch->block[0], "block.x / 4");
  EXPECT_EQ(four.launch->preconditions,
            (std::vector<std::string>{"block.x == 128 || block.x == 256 || block.x == 512 || block.x == 1024",
                                      "block.y == 1", "block.z == 1"}));
}

TEST(Transforms, CollectivesShareThreadZerosLoopsWithTheBlock) {
  Parsed p(R"(__global__ void stats(const float *x, float *out) {
  __shared__ float v[256];
  v[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f, q = 0.0f;
    for (int i = 0; i < 256; ++i) s += v[i];
    for (int i = 0; i < 256; ++i) q += v[i] * v[i];
    v[0] = s;
    for (int i = 1; i < 256; ++i) q += v[i];
    out[blockIdx.x] = s + q;
  }
})");
  const Transform *t = find_transform("shuffle_collectives");
  auto axes = t->space(p.in);
  ASSERT_TRUE(axes) << axes.error().message;
  EXPECT_TRUE(axes->empty()) << "thread 0's loops take no parameters";
  auto out = t->apply(p.in, {});
  ASSERT_TRUE(out) << out.error().message;
  const std::string &text = out->source;
  // The first two loops become block reductions, each combined where it was...
  EXPECT_NE(text.find("s = s + __kbcc_r0_0;"), std::string::npos) << text;
  EXPECT_NE(text.find("__kbcc_p1_0 = __kbcc_p1_0 + (float)((v[(__kbcc_j)] * v[(__kbcc_j)]));"), std::string::npos);
  EXPECT_NE(text.find("q = q + __kbcc_r1_0;"), std::string::npos) << text;
  // ...the third reads cells after the branch stores one: it stays as written.
  EXPECT_EQ(text.find("__kbcc_sf2"), std::string::npos) << text;
  EXPECT_NE(text.find("    for (int i = 1; i < 256; ++i) q += v[i];"), std::string::npos) << text;
  EXPECT_FALSE(out->launch);
  EXPECT_EQ(out->numerics, kbcc::cache::kNumericsReassociates);
  EXPECT_EQ(out->reduction_length, "256");
  EXPECT_FALSE(t->apply(p.in, {{"items", "2"}})) << "thread 0's loops keep the block's threads";
}

TEST(Transforms, CollectivesOfferCellsPerThreadTheLaunchesAllow) {
  Parsed p(tree(kSequential, "if (t < s) buf[t] += buf[t + s];", "if (t == 0) out[blockIdx.x] = buf[0];"));
  auto values = [&](uint32_t block) {
    p.in.launches[0].block[0] = block;
    auto axes = find_transform("shuffle_collectives")->space(p.in);
    EXPECT_TRUE(axes);
    return axes && !axes->empty() ? (*axes)[0].values : std::vector<std::string>{};
  };
  EXPECT_EQ(values(1024), (std::vector<std::string>{"4", "2", "8", "1"}));
  EXPECT_EQ(values(64), (std::vector<std::string>{"2", "1"}));
  EXPECT_EQ(values(32), (std::vector<std::string>{}));
  // Not a power of two: the block-shape test would keep the loop for every launch.
  p.in.launches[0].block[0] = 96;
  auto odd = find_transform("shuffle_collectives")->space(p.in);
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("no captured launch has a one-dimensional block of a power of two"),
            std::string::npos)
      << odd.error().message;
  // One launch that takes the shuffles is enough to offer them.
  kbcc::launch::Launch other = p.in.launches[0];
  other.block[0] = 256;
  p.in.launches.push_back(other);
  EXPECT_TRUE(find_transform("shuffle_collectives")->space(p.in));
}

TEST(Transforms, CollectivesCellsPerThreadKeepEachThreadsWork) {
  // A thread that is done after the reduction skips only its own virtual thread.
  Output out =
      applied("shuffle_collectives",
              tree(kSequential, "if (t < s) buf[t] += buf[t + s];", "if (t != 0) return;\n  out[blockIdx.x] = buf[0];"),
              {{"items", "2"}});
  EXPECT_NE(out.source.find("if (t != 0) continue;"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__kbcc_v0 = __kbcc_v0 + buf[__kbcc_j * blockDim.x + threadIdx.x];"), std::string::npos)
      << out.source;
  // A phase that does not read the thread's index declares none (nvcc would warn of an unused one).
  Output plain =
      applied("shuffle_collectives", tree(kSequential, "if (t < s) buf[t] += buf[t + s];", "out[blockIdx.x] = buf[0];"),
              {{"items", "2"}});
  const std::string vt = "const unsigned __kbcc_vt";
  ASSERT_NE(plain.source.find(vt), std::string::npos) << plain.source;
  EXPECT_EQ(plain.source.find(vt, plain.source.find(vt) + 1), std::string::npos) << plain.source;
  EXPECT_NE(plain.source.find("++__kbcc_vk) {\n  out[blockIdx.x] = buf[0];"), std::string::npos) << plain.source;
  auto refused = [](std::string source, const std::string &before, const std::string &insert) {
    source.insert(source.find(before), insert);
    Parsed p(source);
    auto axes = find_transform("shuffle_collectives")->space(p.in);
    EXPECT_TRUE(axes && axes->empty()) << source;
    auto r = find_transform("shuffle_collectives")->apply(p.in, {{"items", "4"}});
    return r ? std::string("applies") : r.error().message;
  };
  auto with_tail = [](const std::string &tail) {
    return tree(kSequential, "if (t < s) buf[t] += buf[t + s];", "if (t == 0) out[blockIdx.x] = " + tail + ";");
  };
  struct Case {
    std::string source, before, insert, why;
  };
  const std::string base = with_tail("buf[0]"), elem = "  buf[t] =", tail = "if (t == 0) out";
  for (const Case &c : std::vector<Case>{
           {base, elem, "  x += 1;\n", "`x` is assigned by every thread's work"},
           {with_tail("buf[0] + v"), elem, "  int v = x[0];\n", "`v` is used after a barrier and computed from memory"},
           {with_tail("buf[0] + a[0]"), elem, "  int a[2] = {0, 0};\n  a[0] = x[0];\n",
            "`a` is used after a barrier and is not a scalar"},
           {with_tail("buf[0] + a[0]"), elem, "  int a[2] = {0, 0};\n  __syncthreads();\n  a[1] = 1;\n",
            "`a` is assigned by every thread's work"},
           {base, tail, "out[0] = __shfl_sync(0xffffffffu, buf[0], 0);\n  ", "warp-level operations"},
           {base, tail, "if (t > 0) return;\n  __syncthreads();\n  ", "a thread may return before a barrier"},
           {base, tail, "volatile int *o = out;\n  o[1] = 0;\n  ", "volatile"},
           {base, tail, "for (int r = 0; r < 2; ++r) if (r == t) return;\n  ", "a `return` inside a loop or switch"}})
    EXPECT_NE(refused(c.source, c.before, c.insert).find(c.why), std::string::npos) << c.why;
}

TEST(Transforms, CollectivesRefuseWhatTheSimulationDisproves) {
  const char *tail = "if (t == 0) out[blockIdx.x] = buf[0];";
  EXPECT_NE(refusal("shuffle_collectives", tree(kSequential, "if (t < s) buf[t] += buf[t + s + 1];", tail))
                .find("a step reaches outside [0, blockDim.x) (1024 threads)"),
            std::string::npos);
  EXPECT_NE(refusal("shuffle_collectives", tree("unsigned s = 1; s < blockDim.x; s *= 2",
                                                "if (t + s < blockDim.x) buf[t] += buf[t + s];", tail))
                .find("a step reads a cell another thread updates"),
            std::string::npos);
  EXPECT_NE(refusal("shuffle_collectives",
                    tree("unsigned s = blockDim.x / 2; s > 1; s >>= 1", "if (t < s) buf[t] += buf[t + s];", tail))
                .find("does not combine every element exactly once into buf[0]"),
            std::string::npos);
  EXPECT_NE(refusal("shuffle_collectives",
                    tree(kSequential, "if (t < s) buf[t] += buf[t + s];", "out[blockIdx.x * blockDim.x + t] = buf[t];"))
                .find("after it the kernel reads buf at an index other than 0"),
            std::string::npos);
  EXPECT_NE(refusal("shuffle_collectives", kSaxpy).find("no loop with a __syncthreads() per step"), std::string::npos);
  // Threads that returned would be missing from the warp shuffles.
  std::string early = tree(kSequential, "if (t < s) buf[t] += buf[t + s];", tail);
  early.insert(early.find("  buf[t] ="), "  if (i >= (unsigned)n) return;\n");
  EXPECT_NE(refusal("shuffle_collectives", early).find("a thread may return before the loop with barriers"),
            std::string::npos);
}

namespace {

// A moving sum over a zero-padded window: the sliding_window kernel shape.
const char *kFir = R"(__global__ void fir(int n, int taps, const float *w, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int half = taps / 2;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t) {
    int j = i + t - half;
    if (j >= 0 && j < n) acc += w[t] * x[j];
  }
  y[i] = acc;
})";

// kFir with `from` in place of `to` (which must occur once).
std::string fir_with(const std::string &from, const std::string &to) {
  std::string s = kFir;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

} // namespace

TEST(Transforms, SlidingWindowKeepsTheGroupsReadsInRegisters) {
  Output out = applied("sliding_window", kFir, {{"items", "4"}, {"block", "128"}});
  // Each expanded local holds one value per original thread of the group.
  EXPECT_NE(out.source.find("int half[4];"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("if (i[__kbcc_r] >= n) goto __kbcc_p;"), std::string::npos);
  EXPECT_NE(out.source.find("half[__kbcc_r] = taps / 2;"), std::string::npos);
  // The window: one load per step, read by each thread's copy of the body.
  EXPECT_NE(out.source.find("acc[__kbcc_r] += w[t] * __kbcc_w[__kbcc_r];"), std::string::npos);
  // The general copy loads an element only under the read's own guard, with j = k.
  EXPECT_NE(out.source.find("(((int)(__kbcc_k)) >= 0 && ((int)(__kbcc_k)) < n)"), std::string::npos);
  EXPECT_NE(out.source.find("if (__kbcc_need(t, 3) && (true && (((int)(__kbcc_k)) >= 0"), std::string::npos);
  // The block's copy drops the bounds it proves over [jmin, jmax].
  EXPECT_NE(out.source.find("__kbcc_jmin >= (long long)(0) && __kbcc_jmax < (long long)(n)"), std::string::npos);
  EXPECT_NE(out.source.find("if (true) acc[__kbcc_r]"), std::string::npos);
  EXPECT_NE(out.source.find("__shared__ __align__(16) float __kbcc_sh["), std::string::npos);
  EXPECT_NE(out.source.find("y[i[__kbcc_r]] = acc[__kbcc_r];"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 512)");
  EXPECT_EQ(out.launch->block[0], "128");
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
}

TEST(Transforms, SlidingWindowKeepsReadsItCannotServe) {
  // A second read of x at another offset stays a read of memory.
  Output out =
      applied("sliding_window", fir_with("acc += w[t] * x[j];", "acc += w[t] * x[j] + (j > 0 ? x[j - 1] : 0.0f);"));
  EXPECT_NE(out.source.find("__kbcc_w[__kbcc_r] + (j > 0 ? x[j - 1] : 0.0f)"), std::string::npos) << out.source;
}

TEST(Transforms, SlidingWindowCachesBlockStrideLoops) {
  const char *rows = R"(__global__ void r(const float *x, float *y, int n) {
  __shared__ float t[256];
  float s = 0;
  for (int c = threadIdx.x; c < n; c += blockDim.x) s += x[blockIdx.x * n + c];
  t[threadIdx.x] = s;
  __syncthreads();
  s = t[0];
  for (int c = threadIdx.x; c < n; c += blockDim.x) y[blockIdx.x * n + c] = x[blockIdx.x * n + c] / s;
})";
  Output out = applied("sliding_window", rows, {{"steps", "8"}});
  EXPECT_NE(out.source.find("if (c < (n)) __kbcc_s0[__kbcc_q] = x[blockIdx.x * n + c];"), std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("y[blockIdx.x * n + c] = __kbcc_s0[__kbcc_q] / s;"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->preconditions, (std::vector<std::string>{"n >= 0", "n <= 8 * block.x"}));
  // One loop; a loop with a barrier; loops over two ranges.
  EXPECT_NE(refusal("sliding_window", R"(__global__ void r(const float *x, float *y, int n) {
  for (int c = threadIdx.x; c < n; c += blockDim.x) y[c] = x[c] * x[c];
})")
                .find("no two block-stride loops"),
            std::string::npos);
  EXPECT_NE(refusal("sliding_window", R"(__global__ void r(const float *x, float *y, int n) {
  float s = 0;
  for (int c = threadIdx.x; c < n; c += blockDim.x) { s += x[c]; __syncthreads(); }
  for (int c = threadIdx.x; c < n; c += blockDim.x) y[c] = x[c] + s;
})")
                .find("no two block-stride loops"),
            std::string::npos);
  EXPECT_NE(refusal("sliding_window", R"(__global__ void r(const float *x, float *y, int n, int m) {
  float s = 0;
  for (int c = threadIdx.x; c < n; c += blockDim.x) s += x[c];
  for (int c = threadIdx.x; c < m; c += blockDim.x) y[c] = x[c] + s;
})")
                .find("no two block-stride loops"),
            std::string::npos);
}

TEST(Transforms, SlidingWindowRefusesWhatItCannotProve) {
  struct Case {
    std::string source, reason;
  };
  const std::vector<Case> cases = {
      {fir_with("acc += w[t] * x[j];", "{ acc += w[t] * x[j]; y[j] = 0.0f; }"), "the loop body stores to memory"},
      {fir_with("y[i] = acc;", "const float *p = x + i;\n  y[i] = acc + *p;"),
       "'x' is used other than by reads of its elements"},
      {fir_with("if (j >= 0 && j < n)", "if (t != 3 && j >= 0 && j < n)"), "the loop reads no element"},
      {fir_with("if (j >= 0 && j < n)", "if (j >= 0 && j < n && x[0] > 0.0f)"), "the loop reads no element"},
      {fir_with("acc += w[t] * x[j];", "{ if (acc > 1e9f) break; acc += w[t] * x[j]; }"),
       "the loop body has return, break or goto"},
      {fir_with("for (int t = 0; t < taps; ++t)", "for (int t = 0; t < taps; t += 2)"), "not a counted loop"},
      {fir_with("int j = i + t - half;", "int j = 2 * i + t - half;"), "the loop reads no element"},
      {fir_with("for (int t = 0; t < taps; ++t)", "for (int t = 0; t < i; ++t)"), "bounds differ between threads"},
      {fir_with("float acc = 0.0f;", "float acc[2] = {0.0f, 0.0f};"), "is not a plain scalar"},
  };
  for (const Case &c : cases)
    EXPECT_NE(refusal("sliding_window", c.source).find(c.reason), std::string::npos)
        << c.reason << "\n"
        << refusal("sliding_window", c.source);
}

TEST(Transforms, SlidingWindowReadsTheIndexWrittenOutInGuards) {
  // No local j: the guard and the read spell i + t - half themselves.
  Output out = applied("sliding_window",
                       fir_with("    int j = i + t - half;\n    if (j >= 0 && j < n) acc += w[t] * x[j];",
                                "    if (i + t - half >= 0 && i + t - half < n) acc += w[t] * x[i + t - half];"));
  EXPECT_NE(out.source.find("__kbcc_jmin >= (long long)(0) && __kbcc_jmax < (long long)(n)"), std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("(((int)(__kbcc_k)) >= 0 && ((int)(__kbcc_k)) < n)"), std::string::npos);
  EXPECT_NE(out.source.find("if (true) acc[__kbcc_r] += __kbcc_u0[__kbcc_q] * __kbcc_v[__kbcc_r + __kbcc_q];"),
            std::string::npos);
}

TEST(Transforms, SlidingWindowReadsFourElementsAtOnce) {
  // Four items of 4-byte elements going up: the block's window lies in order,
  // and each group of four steps reads the next four elements with one float4.
  Output out = applied("sliding_window", kFir, {{"items", "4"}, {"block", "64"}});
  EXPECT_NE(out.source.find("if (true) __kbcc_sh[__kbcc_e] = x[__kbcc_k];"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("const float4 __kbcc_x = __kbcc_sv[__kbcc_g + 1]; __kbcc_v[4] = __kbcc_x.x;"),
            std::string::npos);
  EXPECT_NE(out.source.find("__kbcc_v[__kbcc_s] = __kbcc_v[__kbcc_s + 4];"), std::string::npos);
  // The filter w[t], read at every step of the block's copy, is a table staged once.
  EXPECT_NE(out.source.find("__kbcc_tb0[__kbcc_e] = w[(__kbcc_tt)];"), std::string::npos);
  EXPECT_NE(out.source.find("if (true) acc[__kbcc_r] += __kbcc_u0[__kbcc_q] * __kbcc_v[__kbcc_r + __kbcc_q];"),
            std::string::npos);
  // The steps left over run as one more group, each under its own test.
  EXPECT_NE(out.source.find("    if (__kbcc_t < (taps)) {"), std::string::npos);
  EXPECT_NE(out.source.find("for (int __kbcc_q = 0; __kbcc_q < 4; ++__kbcc_q) if (__kbcc_t + __kbcc_q < (taps)) {"),
            std::string::npos);
  // A reversed filter is a table too.
  out = applied("sliding_window", fir_with("w[t]", "w[taps - 1 - t]"), {{"items", "4"}});
  EXPECT_NE(out.source.find("__kbcc_tb0[__kbcc_e] = w[(taps - 1 - __kbcc_tt)];"), std::string::npos) << out.source;
  // Two items, or double elements: one element per step, by phase; the table
  // is read one element at a time.
  for (const std::string &source : {std::string(kFir), fir_with("const float *x", "const double *x")}) {
    out = applied("sliding_window", source, {{"items", source == kFir ? "2" : "4"}});
    EXPECT_EQ(out.source.find("__kbcc_sv"), std::string::npos) << out.source;
    EXPECT_NE(out.source.find("if (true) acc[__kbcc_r] += __kbcc_tb0[t - __kbcc_lo] * __kbcc_w[__kbcc_r];"),
              std::string::npos);
  }
}

TEST(Transforms, SlidingWindowSearchesWithAndWithoutTables) {
  // The parameter `tables` exists where the loop has one: staging pays off
  // for long windows only, so the search measures both.
  Parsed p(kFir);
  auto axes = find_transform("sliding_window")->space(p.in);
  ASSERT_TRUE(axes);
  ASSERT_EQ(axes->size(), 3u);
  EXPECT_EQ((*axes)[2].name, "tables");
  EXPECT_EQ((*axes)[2].values, (std::vector<std::string>{"on", "off"}));
  Output off = applied("sliding_window", kFir, {{"items", "4"}, {"tables", "off"}});
  EXPECT_EQ(off.source.find("__kbcc_tb0"), std::string::npos) << off.source;
  EXPECT_NE(off.source.find("if (true) acc[__kbcc_r] += w[t] * __kbcc_v[__kbcc_r + __kbcc_q];"), std::string::npos);
  // No table: no parameter.
  Parsed none(fir_with("acc += w[t] * x[j];", "acc += x[j];"));
  axes = find_transform("sliding_window")->space(none.in);
  ASSERT_TRUE(axes);
  EXPECT_EQ(axes->size(), 2u);
}

TEST(Transforms, SlidingWindowStagesOnlyTablesEveryStepReads) {
  struct Case {
    std::string what, source;
  };
  const std::vector<Case> cases = {
      {"under a conditional operator", fir_with("acc += w[t] * x[j];", "acc += (t < half ? w[t] : -w[t]) * x[j];")},
      {"an index that differs between threads", fir_with("w[t]", "w[t + (i & 1)]")},
      {"an array the kernel writes", fir_with("y[i] = acc;", "y[i] = acc;\n  ((float *)w)[0] = 0.0f;")},
      {"under a guard that is no bound on j", fir_with("acc += w[t] * x[j];", "{ if (taps > 2) acc += w[t] * x[j]; }")},
  };
  for (const Case &c : cases) {
    Output out = applied("sliding_window", c.source, {{"items", "4"}});
    EXPECT_EQ(out.source.find("__kbcc_tb0"), std::string::npos) << c.what << "\n" << out.source;
    EXPECT_NE(out.source.find("__kbcc_sv[__kbcc_g + 1]"), std::string::npos) << c.what;
  }
}

TEST(Transforms, SlidingWindowFollowsContinue) {
  // `if (C) continue;` guards what follows it with !C; C's bounds, failing
  // over the block's window, make it `false` in the block's copy.
  Output out = applied("sliding_window", fir_with("    if (j >= 0 && j < n) acc += w[t] * x[j];",
                                                  "    if (j < 0 || j >= n) continue;\n    acc += w[t] * x[j];"));
  EXPECT_NE(out.source.find("__kbcc_jmin >= (long long)(0) && __kbcc_jmax < (long long)(n)"), std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("if (false) continue;"), std::string::npos);
  EXPECT_NE(out.source.find("!(((int)(__kbcc_k)) < 0 || ((int)(__kbcc_k)) >= n)"), std::string::npos);
  // A continue in any other form hides the reads after it.
  EXPECT_NE(refusal("sliding_window", fir_with("    if (j >= 0 && j < n) acc += w[t] * x[j];",
                                               "    if (j < 0) { acc += 1.0f; continue; }\n    acc += w[t] * x[j];"))
                .find("the loop reads no element"),
            std::string::npos);
}

TEST(Transforms, SlidingWindowKeepsMacrosOfTheOffset) {
  // A whole macro expansion in the offset or a bound is written as its invocation.
  Output out =
      applied("sliding_window", "#define HALF 16\n" + fir_with("int j = i + t - half;", "int j = i + t - HALF;"));
  EXPECT_NE(out.source.find("__kbcc_c = (long long)(0 - (HALF));"), std::string::npos) << out.source;
}

TEST(Transforms, SlidingWindowFindsTheLoopUnderTheThreadsGuard) {
  // `if (i < n) { ... }` as the body's last statement instead of an early return.
  std::string wrapped = fir_with("  if (i >= n) return;\n", "  if (i < n) {\n");
  wrapped.replace(wrapped.rfind('}'), 1, "}\n}");
  Output out = applied("sliding_window", wrapped);
  EXPECT_NE(out.source.find("if (!(i[__kbcc_r] < n)) goto __kbcc_p;"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("y[i[__kbcc_r]] = acc[__kbcc_r];"), std::string::npos);
  // Something after the guarded block: its statements would run for dead items too.
  wrapped.replace(wrapped.rfind('}'), 1, "  y[0] = 0.0f;\n}");
  EXPECT_NE(refusal("sliding_window", wrapped).find("no top-level loop"), std::string::npos);
}

namespace {

// A 2-D convolution with a run-time filter size: smem_tiling's stencil form.
const char *kConv2d = R"(__global__ void conv(int h, int w, int k, const float *f, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int half = k / 2;
  float acc = 0.0f;
  for (int dy = 0; dy < k; ++dy)
    for (int dx = 0; dx < k; ++dx) {
      int yy = y + dy - half, xx = x + dx - half;
      if (yy >= 0 && yy < h && xx >= 0 && xx < w) acc += f[dy * k + dx] * in[(size_t)yy * w + xx];
    }
  out[(size_t)y * w + x] = acc;
})";

// kConv2d with `from` in place of `to` (which must occur once).
std::string conv_with(const std::string &from, const std::string &to) {
  std::string s = kConv2d;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

} // namespace

TEST(Transforms, TilingStagesAStencilsTileAndHalo) {
  Output out = applied("smem_tiling", kConv2d, {{"block", "32x8"}, {"rows", "4"}, {"cols", "1"}});
  // Each thread runs 4 rows, blockDim.y apart; the locals before the reads
  // hold one value per row, and a dead row still lets the thread reach the barrier.
  EXPECT_NE(out.source.find("  float acc[4];\n"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("y[__kbcc_q] = ((decltype(blockIdx.y * blockDim.y + threadIdx.y))(blockIdx.y * blockDim.y "
                            "* 4u + threadIdx.y + __kbcc_q * blockDim.y));"),
            std::string::npos);
  EXPECT_NE(out.source.find("if (x[__kbcc_q] >= w || y[__kbcc_q] >= h) goto __kbcc_p;"), std::string::npos);
  EXPECT_NE(out.source.find("__kbcc_ey = (long long)blockDim.y * 4;"), std::string::npos);
  // Offsets of the read: dy - half and dx - half over the loops' ranges.
  EXPECT_NE(out.source.find("__kbcc_ylo0 = (long long)((0) + (0 - (((int)((k / 2))))))"), std::string::npos);
  EXPECT_NE(out.source.find("__kbcc_run0 = true && (0) < (k) && (0) < (k);"), std::string::npos);
  // An element is staged only where the read's own guard holds for it.
  EXPECT_NE(out.source.find("((int)(__kbcc_r + (0 - (((int)((k / 2))))) - (0 - (((int)((k / 2))))))) >= 0"),
            std::string::npos);
  EXPECT_NE(out.source.find("= __kbcc_row[__kbcc_tx];"), std::string::npos);
  // Staged copies run the rows inside the nest's innermost body, served from
  // the tile; the guard is decided where its bounds hold over the block.
  EXPECT_NE(
      out.source.find("for (int dx = 0; dx < k; ++dx) {\n  #pragma unroll\n  for (int __kbcc_q = 0; __kbcc_q < 4; "
                      "++__kbcc_q) {"),
      std::string::npos);
  EXPECT_NE(out.source.find("if (true) acc[__kbcc_q] += f[dy * k + dx] * __kbcc_tile[(threadIdx.y + __kbcc_q * "
                            "blockDim.y + __kbcc_oy0 + (unsigned)dy) * __kbcc_fwu + threadIdx.x + __kbcc_ox0 + "
                            "(unsigned)dx];"),
            std::string::npos);
  EXPECT_NE(out.source.find("(__kbcc_by + __kbcc_ylo0 + (0 - (((int)((k / 2))))) - (0 - (((int)((k / 2)))))) >= "
                            "(long long)(0)"),
            std::string::npos);
  // The original, one live row after the other, for blocks that cannot stage.
  EXPECT_NE(out.source.find("if (!__kbcc_live[__kbcc_q]) continue;"), std::string::npos);
  EXPECT_NE(out.source.find("if (yy >= 0 && yy < h && xx >= 0 && xx < w) acc[__kbcc_q] += f[dy * k + dx] * "
                            "in[(size_t)yy * w + xx];"),
            std::string::npos);
  EXPECT_NE(out.source.find("out[(size_t)y[__kbcc_q] * w + x[__kbcc_q]] = acc[__kbcc_q];"), std::string::npos);
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[1], "ceil_div(grid.y * block.y, 32)");
  EXPECT_EQ(out.launch->block[0], "32");
  EXPECT_EQ(out.launch->block[1], "8");
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
}

TEST(Transforms, TilingStencilColumnsKeepARegisterWindow) {
  Parsed p(kConv2d);
  auto axes = find_transform("smem_tiling")->space(p.in);
  ASSERT_TRUE(axes);
  ASSERT_EQ(axes->front().name, "cols"); // offered first: the window measured faster
  Output out = applied("smem_tiling", kConv2d, {{"block", "32x8"}, {"rows", "2"}, {"cols", "4"}});
  // Item q is column q % 4 of row q / 4: 8 items per thread.
  EXPECT_NE(out.source.find("  float acc[8];\n"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("x[__kbcc_q] = ((decltype(blockIdx.x * blockDim.x + threadIdx.x))((blockIdx.x * blockDim.x "
                            "+ threadIdx.x) * 4u + (__kbcc_q % 4u)));"),
            std::string::npos);
  EXPECT_NE(out.source.find("threadIdx.y + (__kbcc_q / 4u) * blockDim.y));"), std::string::npos);
  // Tile rows padded to 4 elements, the buffer 16-byte aligned.
  EXPECT_NE(out.source.find("__kbcc_fw = (__kbcc_x1 - __kbcc_x0 + __kbcc_ex + 3) / 4 * 4;"), std::string::npos);
  EXPECT_NE(out.source.find("__shared__ __align__(16) float __kbcc_tile["), std::string::npos);
  // The innermost loop over dx keeps a window per row of items; every read
  // of the staged copies comes from it.
  EXPECT_NE(out.source.find("float __kbcc_v[2][8];"), std::string::npos);
  EXPECT_NE(out.source.find("__attribute__((unused)) const int dx = (int)(__kbcc_t + __kbcc_s);"), std::string::npos);
  EXPECT_NE(out.source.find("acc[__kbcc_q] += f[dy * k + dx] * __kbcc_v[(__kbcc_q / 4u)][(__kbcc_q % 4u) + __kbcc_s];"),
            std::string::npos);
  EXPECT_EQ(out.source.find("* __kbcc_tile[(threadIdx.y"), std::string::npos);
  // The four columns' stores of a row become one 16-byte store where their
  // indexes are consecutive and aligned, and stay four stores otherwise.
  EXPECT_NE(out.source.find("const auto __kbcc_a3 = (size_t)y[(__kbcc_wr * 4 + 3)] * w + x[(__kbcc_wr * 4 + 3)];"),
            std::string::npos)
      << out.source;
  EXPECT_NE(
      out.source.find("if (__kbcc_a1 == __kbcc_a0 + 1 && __kbcc_a2 == __kbcc_a0 + 2 && __kbcc_a3 == __kbcc_a0 + 3 "
                      "&& ((unsigned long long)(out + __kbcc_a0) & 15ull) == 0) {"),
      std::string::npos);
  EXPECT_NE(out.source.find("*reinterpret_cast<uint4 *>(out + __kbcc_a0) = __kbcc_o.__kbcc_all;"), std::string::npos);
  EXPECT_NE(out.source.find("      out[__kbcc_a3] = acc[(__kbcc_wr * 4 + 3)];"), std::string::npos);
  EXPECT_EQ(axes->back().name, "stores");
  EXPECT_EQ(axes->back().values, (std::vector<std::string>{"wide", "each"}));
  Output each = applied("smem_tiling", kConv2d, {{"rows", "2"}, {"cols", "4"}, {"stores", "each"}});
  EXPECT_EQ(each.source.find("__kbcc_a0"), std::string::npos);
  // A store that reads memory keeps one store per item, and is not offered
  // the choice.
  Output bias =
      applied("smem_tiling", conv_with("out[(size_t)y * w + x] = acc;", "out[(size_t)y * w + x] = acc + f[0];"),
              {{"rows", "2"}, {"cols", "4"}});
  EXPECT_EQ(bias.source.find("__kbcc_a0"), std::string::npos);
  Parsed biased(conv_with("out[(size_t)y * w + x] = acc;", "out[(size_t)y * w + x] = acc + f[0];"));
  EXPECT_NE(find_transform("smem_tiling")->space(biased.in)->back().name, "stores");
  ASSERT_TRUE(out.launch);
  EXPECT_EQ(out.launch->grid[0], "ceil_div(grid.x * block.x, 128)");
  EXPECT_EQ(out.launch->grid[1], "ceil_div(grid.y * block.y, 16)");
  EXPECT_EQ(out.launch->block[0], "32");
  EXPECT_EQ(out.launch->block[1], "8");
  EXPECT_EQ(out.numerics, kbcc::cache::kNumericsExact);
  // Other counts of columns are refused.
  Params three = configurations(*axes).front();
  three["cols"] = "3";
  auto refused = find_transform("smem_tiling")->apply(p.in, three);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "cols is not 1 or 4");
}

TEST(Transforms, TilingReadsStencilRowsFromTheStride) {
  // i = y * cols + x; i + cols is the row below.
  std::string five = R"(__global__ void s5(int rows, int cols, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y <= 1 || x <= 1 || y >= rows - 2 || x >= cols - 2) return;
  size_t i = (size_t)y * cols + x;
  out[i] = in[i] + in[i - 2] + in[i + cols];
})";
  Output out = applied("smem_tiling", five);
  EXPECT_NE(out.source.find("__kbcc_xlo1 = (long long)(0 - (2))"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__kbcc_ylo2 = (long long)(0 + 1)"), std::string::npos);
  // Each read loads its own rectangle: the corners nobody reads stay unloaded.
  EXPECT_NE(out.source.find("(__kbcc_run2 && __kbcc_tx >= __kbcc_xa2 && __kbcc_tx <= __kbcc_xb2"), std::string::npos);
  EXPECT_NE(out.source.find("out[i[__kbcc_q]] = __kbcc_tile[(threadIdx.y + __kbcc_q * blockDim.y + __kbcc_oy0) * "
                            "__kbcc_fwu + threadIdx.x + __kbcc_ox0]"),
            std::string::npos);
  // Within one element of the output in each dimension, the L1 cache serves the reuse.
  five.replace(five.find("in[i - 2]"), 9, "in[i - 1]");
  EXPECT_NE(refusal("smem_tiling", five).find("'in' is read at most one element from each output"), std::string::npos);
}

TEST(Transforms, TilingStencilFollowsContinue) {
  Output out = applied("smem_tiling", conv_with("      if (yy >= 0 && yy < h && xx >= 0 && xx < w) acc +=",
                                                "      if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;\n"
                                                "      acc +="));
  // Inside the nest, a continue ends the row's step.
  EXPECT_NE(out.source.find("if (false) goto __kbcc_e2s;"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("__kbcc_e2s:;"), std::string::npos);
  EXPECT_NE(out.source.find("&& !(((int)(__kbcc_r + "), std::string::npos);
  // A continue in any other form hides the reads after it: nothing to serve.
  EXPECT_NE(refusal("smem_tiling", conv_with("      if (yy >= 0 && yy < h && xx >= 0 && xx < w) acc +=",
                                             "      if (yy < 0) { acc += 1.0f; continue; }\n      acc +="))
                .find("as a stencil: the kernel reads no parameter array"),
            std::string::npos);
}

TEST(Transforms, TilingRefusesStencilsItCannotProve) {
  struct Case {
    std::string source, reason;
  };
  const std::string none = "as a stencil: the kernel reads no parameter array";
  const std::vector<Case> cases = {
      // The array is written: a neighbour may already hold its new value.
      {conv_with("  out[(size_t)y * w + x] = acc;", "  out[(size_t)y * w + x] = acc;\n  ((float *)in)[0] = 0.0f;"),
       "'in' is used other than by reads of its elements"},
      // 32-bit unsigned index arithmetic may wrap.
      {conv_with("in[(size_t)yy * w + xx]", "in[(unsigned)(yy * w + xx)]"), none},
      // One loop variable in both coordinates: a diagonal, not a rectangle.
      {conv_with("int yy = y + dy - half, xx = x + dx - half;", "int yy = y + dy - half, xx = x + dy - half;"), none},
      // A third dimension in the index.
      {conv_with("in[(size_t)yy * w + xx]", "in[((size_t)dy * h + yy) * w + xx]"), none},
      // A guard that reads memory.
      {conv_with("if (yy >= 0 && yy < h && xx >= 0", "if (f[0] > 0.0f && yy >= 0 && yy < h && xx >= 0"), none},
      // Bounds that differ between threads.
      {conv_with("for (int dy = 0; dy < k; ++dy)", "for (int dy = 0; dy < x; ++dy)"), none},
      {conv_with("float acc = 0.0f;", "float acc[2] = {0.0f, 0.0f};"), "is not a plain scalar"},
      {conv_with("  out[(size_t)y * w + x] = acc;", "  goto end;\nend:\n  out[(size_t)y * w + x] = acc;"),
       "the kernel has goto"},
  };
  for (const Case &c : cases)
    EXPECT_NE(refusal("smem_tiling", c.source).find(c.reason), std::string::npos) << c.reason << "\n"
                                                                                  << refusal("smem_tiling", c.source);
}

TEST(Transforms, TilingRunsStencilRowsInTurnWhenTheNestStores) {
  // A store in the innermost body: the rows' steps may not interleave, so
  // each row runs the whole nest in turn, still served from the tile.
  Output out = applied("smem_tiling", conv_with("acc += f[dy * k + dx] * in[(size_t)yy * w + xx];",
                                                "{ acc += f[dy * k + dx] * in[(size_t)yy * w + xx]; out[0] = acc; }"));
  EXPECT_EQ(out.source.find("for (int dx = 0; dx < k; ++dx) {\n  #pragma unroll"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("acc[__kbcc_q] += f[dy * k + dx] * __kbcc_tile["), std::string::npos);
}

// Which early returns the whole block takes: conditions of blockIdx,
// blockDim, gridDim, unassigned parameters, constants and locals computed
// from them, but not of threadIdx, memory or a parameter the kernel changes.
TEST(Analysis, BlockExitsReadOnlyWhatEveryThreadOfTheBlockShares) {
  Parsed p(R"(enum { kRows = 4 };
constexpr int kLimit = 3;
__global__ void k(int n, int m, const int *count, float *y) {
  const int b = blockIdx.x * blockDim.x, t = threadIdx.x;
  int late;
  late = blockIdx.y + gridDim.x;
  if (b >= n || blockIdx.y >= kRows) return;
  if (late > kLimit * (int)sizeof(float)) { return; }
  if (b + t >= n) return;
  if (blockIdx.x >= count[0]) return;
  m = m / 2;
  if (blockIdx.x > m) return;
  if (n > 0) y[blockIdx.x] = 0.0f;
  if (late < n ? true : false) return;
})");
  ASSERT_TRUE(p.ast);
  const auto *body = clang::cast<clang::CompoundStmt>(p.ast->kernel()->getBody());
  std::vector<bool> exits;
  for (const clang::Stmt *s : body->body())
    if (clang::isa<clang::IfStmt>(s)) exits.push_back(is_block_exit(s));
  EXPECT_EQ(exits, (std::vector<bool>{true, true, false, false, false, false, true}));
}

// The broadcast form reads the loop's trip count from every capture's
// arguments: refused only when no capture runs a tile's worth of steps.
TEST(Transforms, BroadcastWeighsTheLoopOnEveryCapture) {
  Parsed p(R"(__global__ void chain(int n, int steps, const float *a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 1; k < steps; ++k) v = a[k] * v;
  y[i] = v;
})");
  const Transform *t = find_transform("smem_tiling");
  auto refusal = [&](std::vector<std::map<std::string, int64_t>> args) {
    p.in.arguments = std::move(args);
    auto o = offer(*t, p.in);
    return o ? std::string() : o.error().message;
  };
  EXPECT_NE(refusal({{{"steps", 9}}, {{"steps", 128}}}).find("at most 127 steps"), std::string::npos);
  EXPECT_EQ(refusal({{{"steps", 9}}, {{"steps", 129}}}), "");
  EXPECT_EQ(refusal({{{"steps", 9}}, {{"n", 10}}}), "") << "a capture without `steps` says nothing";
  EXPECT_EQ(refusal({}), "");
}

// value_versioning takes a parameter only when every capture passes it with
// one value, and only one the kernel reads and never writes.
TEST(Transforms, VersioningTakesUpToFourSetsOfValues) {
  Parsed p(R"(__global__ void taps(int n, int taps, unsigned w, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t) acc += x[(i + t) % w];
  y[i] = acc;
})");
  const Transform *t = find_transform("value_versioning");
  // The guards, in order, or the refusal.
  auto guards = [&](std::vector<std::map<std::string, int64_t>> args, Params params = {}) {
    p.in.arguments = std::move(args);
    auto out = t->apply(p.in, params);
    if (!out) return out.error().message;
    std::string all;
    for (size_t at = out->source.find("if ("); at != std::string::npos; at = out->source.find("if (", at + 1))
      if (out->source.compare(at + 4, 2, "i ") != 0) all += out->source.substr(at, out->source.find(')', at) + 1 - at);
    return all;
  };
  EXPECT_EQ(guards({{{"taps", 9}, {"w", 64}}, {{"taps", 9}, {"w", 64}, {"n", 5}}}), "if (taps == 9 && w == 64)");
  // Most frequent first.
  EXPECT_EQ(guards({{{"taps", 8}, {"w", 64}}, {{"taps", 9}, {"w", 64}}, {{"taps", 9}, {"w", 64}}}),
            "if (taps == 9 && w == 64)if (taps == 8 && w == 64)");
  // Five values of taps are too many: w alone.
  std::vector<std::map<std::string, int64_t>> five;
  for (int64_t v : {3, 5, 7, 9, 11})
    five.push_back({{"taps", v}, {"w", 64}});
  EXPECT_EQ(guards(five), "if (w == 64)");
  EXPECT_EQ(guards({{{"taps", 9}, {"w", 64}, {"n", 7}}}, {{"params", "all"}}), "if (n == 7 && taps == 9 && w == 64)");
  EXPECT_NE(guards({{{"taps", 9}}, {{"w", 64}}}).find("no integer parameter"), std::string::npos);
  EXPECT_NE(guards({}).find("no captured launch"), std::string::npos);
  EXPECT_NE(guards({{{"taps", 9}}}, {{"params", "some"}}).find("params must be loops or all"), std::string::npos);
}

TEST(Transforms, VersioningPassesParametersTheKernelWritesOrLends) {
  // The body's parameter is a copy the versioned call initializes with the
  // value, as the launch initialized the kernel's: writes stay in the body.
  for (const char *use :
       {"taps = taps > 8 ? 8 : taps;", "int *p = &taps; *p = 1;", "int &r = taps; r = 2;", "++taps;"}) {
    Parsed p(std::string(R"(__global__ void k(float *y, int taps) {
  )") + use + R"(
  for (int t = 0; t < taps; ++t) y[t] += 1.0f;
})");
    p.in.arguments = {{{"taps", 4}}};
    auto out = find_transform("value_versioning")->apply(p.in, {});
    ASSERT_TRUE(out) << use << ": " << out.error().message;
    EXPECT_NE(out->source.find(std::string("void __kbcc_body(float *y, int taps) {\n  ") + use), std::string::npos)
        << out->source;
    EXPECT_NE(out->source.find("if (taps == 4) __kbcc_versions::__kbcc_body(y, 4);\n  else "
                               "__kbcc_versions::__kbcc_body(y, taps);"),
              std::string::npos)
        << out->source;
  }
}

// A tile written along rows and read down a column of `decl`, with `use`
// after the barrier.
std::string column_tile(const std::string &decl, const std::string &use = "") {
  return "__global__ void k(float *out, const float *in) {\n  __shared__ " + decl +
         ";\n  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];\n  __syncthreads();\n" + use +
         "  out[threadIdx.y * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];\n}";
}

TEST(Transforms, PaddingWidensRowsAnEvenNumberOfBanksWide) {
  Output out = applied("smem_padding", column_tile("float t[32][32]"));
  EXPECT_NE(out.source.find("__shared__ float t[32][(32) + 1];"), std::string::npos) << out.source;
  EXPECT_EQ(out.numerics, "exact");
  EXPECT_FALSE(out.launch);
  // Rows of 34 floats put two lanes on a bank; 16-byte elements are served a
  // quarter warp at a time, so an even count of them conflicts too; 2-byte
  // elements pad by two to keep whole banks.
  EXPECT_NE(applied("smem_padding", column_tile("float t[32][34]")).source.find("t[32][(34) + 1]"), std::string::npos);
  EXPECT_NE(applied("smem_padding", column_tile("float4 t[8][8]")).source.find("t[8][(8) + 1]"), std::string::npos);
  EXPECT_NE(applied("smem_padding", column_tile("short t[32][64]")).source.find("t[32][(64) + 2]"), std::string::npos);
  // Rows an odd number of banks wide, or elements of 12 bytes: nothing to pad.
  EXPECT_NE(refusal("smem_padding", column_tile("float t[32][33]")).find("odd number of 4-byte banks"),
            std::string::npos);
  EXPECT_NE(refusal("smem_padding", column_tile("float3 t[32][32]")).find("are 12 bytes, not 1, 2, 4, 8 or 16"),
            std::string::npos);
  EXPECT_NE(refusal("smem_padding", column_tile("short t[32][66]")).find("odd number"), std::string::npos);
  // Layout-dependent uses.
  EXPECT_NE(refusal("smem_padding", column_tile("float t[32][32]", "  out[0] = sizeof(t);\n"))
                .find("used other than as its elements t[i][j]"),
            std::string::npos);
  EXPECT_NE(refusal("smem_padding", column_tile("float t[32][32]", "  out[1] = *(&t[0][0] + 40);\n"))
                .find("the address of an element of 't' is taken"),
            std::string::npos);
  EXPECT_NE(refusal("smem_padding", column_tile("float t[32][32]", "  float &r = t[1][0];\n  out[2] = (&r)[40];\n"))
                .find("bound to a reference"),
            std::string::npos);
  EXPECT_NE(refusal("smem_padding", "__device__ float next(const float &v) { return (&v)[32]; }\n" +
                                        column_tile("float t[32][32]", "  out[3] = next(t[0][0]);\n"))
                .find("bound to a reference"),
            std::string::npos);
}

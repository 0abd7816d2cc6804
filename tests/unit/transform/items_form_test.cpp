// Thread-per-item forms (grid-stride loops and their 2-D nests, flattened
// 2-D grids, constant block extents, indexes split into a row and a
// column): their text,
// the legality of running each item in a thread of its own, and the per-item
// transforms offered that form with their launch mappings composed.
#include "parsed.h"
#include "transform/items_form.h"
#include "transform/transform.h"

#include <gtest/gtest.h>

using namespace kbcc::transform;
using kbcc::transform::test::parsed;

namespace {

// items_form's result, or its error's code and message.
std::string form_of(const std::string &text, kbcc::launch::LaunchMapping *launch = nullptr) {
  KernelAst k = parsed(text);
  auto f = items_form(k);
  if (!f) return f.error().code + ": " + f.error().message;
  if (launch) *launch = f->launch;
  return f->source;
}

// apply_offer of `t`'s offer for `in` with `p`.
kbcc::Expected<Output> offered(const Transform &t, const Input &in, const Params &p) {
  auto o = offer(t, in);
  if (!o) return o.error();
  return apply_offer(t, *o, p);
}

// A grid-stride kernel whose body is `body` (the item variable i, bound n).
std::string kernel(const std::string &body) {
  return "__global__ void k(int n, float a, const float *x, float *y, int *h) {\n" + body + "\n}";
}

const char *kFor = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) {
    if (x[i] == 0.0f) continue;
    y[i] = a * x[i] + y[i];
  }
})";

// C89 style: declarations first, a while loop ending in the increment, a
// bound held by a local, locals the items reuse.
const char *kWhile = R"(__global__ void sumsq(int rows, int cols, const float *x, float *out) {
  int i, j, x0, x1;
  double sum;
  j = threadIdx.x + blockIdx.x * blockDim.x;
  int n = cols;
  while (j < n) {
    x0 = j * rows; x1 = x0 + rows;
    sum = 0;
    for (i = x0; i < x1; i++) sum += x[i] * x[i];
    out[j] = sum;
    j += gridDim.x * blockDim.x;
  }
})";

} // namespace

TEST(GridStride, AForLoopBecomesTheItemsGuard) {
  kbcc::launch::LaunchMapping m;
  std::string s = form_of(kFor, &m);
  EXPECT_NE(s.find("int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) {"), std::string::npos) << s;
  EXPECT_EQ(s.find("stride"), std::string::npos) << s; // read by the increment only
  EXPECT_EQ(s.find("index"), std::string::npos) << s;  // folded into i
  EXPECT_NE(s.find("if (x[i] == 0.0f) return;"), std::string::npos) << s;
  EXPECT_EQ(m.grid[0], "ceil_div(n, block.x)");
  EXPECT_EQ(m.block[0], "block.x");
  EXPECT_EQ(m.preconditions, (std::vector<std::string>{"grid.y == 1", "block.y == 1", "grid.z == 1", "block.z == 1"}));
}

TEST(GridStride, AWhileLoopLosesItsIncrement) {
  kbcc::launch::LaunchMapping m;
  std::string s = form_of(kWhile, &m);
  EXPECT_NE(s.find("if (j < n) {"), std::string::npos) << s;
  EXPECT_EQ(s.find("gridDim"), std::string::npos) << s;
  EXPECT_EQ(s.find("while"), std::string::npos) << s;
  EXPECT_EQ(m.grid[0], "ceil_div(cols, block.x)"); // n's value
  // An unbraced body gets braces, so the work stays one block.
  std::string t = form_of(kernel("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * "
                                 "gridDim.x) y[i] = x[i];"));
  EXPECT_NE(t.find("if (i < n) { y[i] = x[i]; }"), std::string::npos) << t;
}

TEST(GridStride, ItemsThatDependOnEachOtherAreRefused) {
  const std::string loop = "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) ";
  auto refused = [&](const std::string &body) { return form_of(kernel(body)); };
  EXPECT_EQ(refused("float s = 0;\n" + loop + "{ s += x[i]; y[i] = s; }"),
            "not-applicable: 's' carries a value from one item of the grid-stride loop to the next");
  EXPECT_EQ(refused(loop + "y[i + 1] = y[i];"),
            "not-applicable: the grid-stride loop reads 'y', which it stores to, at another element than the item's");
  EXPECT_EQ(refused(loop + "y[i / 2] = x[i];"),
            "not-applicable: a store of the grid-stride loop is not at an index that differs between items");
  EXPECT_EQ(refused(loop + "{ if (x[i] < 0) return; y[i] = x[i]; }"),
            "not-applicable: a break, goto or return leaves the grid-stride loop");
  EXPECT_EQ(refused(loop + "{ if (x[i] < 0) break; y[i] = x[i]; }"),
            "not-applicable: a break, goto or return leaves the grid-stride loop");
  EXPECT_EQ(refused(loop + "{ y[i] = x[i]; a = x[i]; }"), "not-applicable: the grid-stride loop assigns parameter 'a'");
  EXPECT_EQ(refused("float t[2];\n" + loop + "{ t[i % 2] = x[i]; y[i] = t[0]; }"),
            "not-applicable: 't' carries values from one item of the grid-stride loop to the next");
  EXPECT_EQ(refused(loop + "{ y[i] = x[i]; __syncthreads(); }"),
            "not-applicable: the grid-stride loop synchronizes threads or uses warp-level operations");
  EXPECT_EQ(refused("y[0] = 0;\n" + loop + "y[i] = x[i];"),
            "not-applicable: a statement before the grid-stride loop stores to memory");
  EXPECT_EQ(refused("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < h[0]; i += blockDim.x * gridDim.x) y[i] "
                    "= x[i];"),
            "not-applicable: the grid-stride loop's bound is not an expression of integer parameters");
  EXPECT_EQ(refused("int i = blockIdx.x * blockDim.x + threadIdx.x;\nwhile (i < n) { if (x[i] < 0) { i += blockDim.x "
                    "* gridDim.x; continue; } y[i] = x[i]; i += blockDim.x * gridDim.x; }"),
            "not-applicable: the grid-stride loop assigns its item variable");
  // What is not a grid-stride loop is said so, with its own code.
  const char *none = "no-form: the kernel has no grid-stride or block-stride loop, flattened 2-D index, constant "
                     "block extent or index split into a row and a column";
  EXPECT_EQ(refused("int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i];"), none);
  EXPECT_EQ(refused("for (int i = threadIdx.x; i < n; i += gridDim.x) y[i] = x[i];"), none);
}

TEST(GridStride, WhatTheItemsMayShare) {
  const std::string loop = "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) ";
  // A local written first in every item, in the loop or in a nested one.
  EXPECT_EQ(form_of(kernel("float t;\n" + loop + "{ t = x[i]; y[i] = t * t; }")).find("not-applicable"),
            std::string::npos);
  EXPECT_EQ(form_of(kernel("float t; int j;\n" + loop +
                           "{ float s = 0; for (j = 0; j < 4; ++j) { t = x[i]; s += t; } y[i] = s; }"))
                .find("not-applicable"),
            std::string::npos);
  // Atomics need no index of their own; reads of other arrays need none.
  EXPECT_EQ(form_of(kernel(loop + "atomicAdd(&h[(int)x[i]], 1);")).find("not-applicable"), std::string::npos);
  EXPECT_EQ(form_of(kernel(loop + "y[2 * i + 1] = x[i / 2] + y[2 * i + 1];")).find("not-applicable"),
            std::string::npos);
}

TEST(GridStride, PerItemTransformsRunOnTheForm) {
  KernelAst k = parsed(kFor);
  Input in{k.source(), &k, {}, {}};
  const Transform *bs = find_transform("block_size");
  ASSERT_FALSE(bs->space(in)); // as written: builtins outside the idiom
  auto axes = offer(*bs, in);
  ASSERT_TRUE(axes) << axes.error().message;
  EXPECT_TRUE(axes->form_launch); // the offer is the form
  EXPECT_NE(axes->input.ast, &k);
  auto out = offered(*bs, in, {{"block", "128"}});
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_TRUE(out->launch);
  EXPECT_EQ(out->launch->grid[0], "ceil_div(ceil_div(n, block.x) * block.x, 128)");
  EXPECT_EQ(out->launch->block[0], "128");
  const auto &pre = out->launch->preconditions;
  EXPECT_NE(std::find(pre.begin(), pre.end(), "grid.y == 1"), pre.end());
  EXPECT_EQ(std::find(pre.begin(), pre.end(), "1 == 1"), pre.end()); // held by the form's launch
  EXPECT_NE(out->source.find("if (i < n) {"), std::string::npos) << out->source;
  EXPECT_EQ(out->source.find("gridDim"), std::string::npos) << out->source;
  // Transforms that keep the launch get the form's mapping.
  auto hints = offered(*find_transform("cache_hint_streaming"), in, {});
  ASSERT_TRUE(hints) << hints.error().message;
  ASSERT_TRUE(hints->launch);
  EXPECT_EQ(hints->launch->grid[0], "ceil_div(n, block.x)");
  EXPECT_NE(hints->source.find("__stcs(&y[i], "), std::string::npos) << hints->source;
  // A refusal of the form says so.
  auto vec = offer(*find_transform("vectorized_loads"), in);
  ASSERT_FALSE(vec); // y is read under the continue's condition only
  EXPECT_NE(vec.error().message.find("; in its thread-per-item form: 'y' is stored at the thread's own element but "
                                     "cannot be vectorized: it is read only for some items"),
            std::string::npos)
      << vec.error().message;
  // A grid-stride loop whose items depend on each other says why.
  KernelAst dep = parsed(kernel("float s = 0;\nfor (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
                                "blockDim.x * gridDim.x) { s += x[i]; y[i] = s; }"));
  auto why = offer(*bs, Input{dep.source(), &dep, {}, {}});
  ASSERT_FALSE(why);
  EXPECT_NE(why.error().message.find("; its thread-per-item form does not apply: 's' carries"), std::string::npos)
      << why.error().message;
  // A kernel a transform takes as written is offered as written.
  KernelAst plain = parsed(kernel("int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i];"));
  auto as_written = offer(*bs, Input{plain.source(), &plain, {}, {}});
  ASSERT_TRUE(as_written) << as_written.error().message;
  EXPECT_FALSE(as_written->form_launch);
  EXPECT_EQ(as_written->input.ast, &plain);
  // Transforms not written for thread-per-item kernels are not offered it.
  EXPECT_FALSE(find_transform("shuffle_collectives")->per_item);
  EXPECT_FALSE(find_transform("unroll")->per_item);
}

TEST(GridStride, C89StyleKernelsReachTheLoopTransforms) {
  KernelAst k = parsed(kWhile);
  Input in{k.source(), &k, {}, {}};
  // The item is j, assigned once at the top; the inner loop's i lives only in it.
  auto out = offered(*find_transform("split_loop_across_warp"), in, {{"lanes", "32"}, {"block", "256"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->source.find("for (i = (x0) + (decltype(i))__kbcc_lane; i < x1; i += 32)"), std::string::npos)
      << out->source;
  EXPECT_EQ(out->launch->grid[0], "ceil_div(ceil_div(cols, block.x) * block.x, 8)");
  // Its guard's bound is the local's value, so coverage can be proven.
  const auto &pre = out->launch->preconditions;
  EXPECT_NE(std::find(pre.begin(), pre.end(),
                      "ceil_div(cols, block.x) * block.x % 8 == 0 || cols <= ceil_div(cols, block.x) * block.x"),
            pre.end());
}

TEST(FlatGrid, TheFlattenedIndexBecomesAOneDimensionalOne) {
  const char *flat = R"(__global__ void wgan(int n, const float *pred, const float *truth, float *delta) {
  int i = (blockIdx.x + blockIdx.y*gridDim.x) * blockDim.x + threadIdx.x;
  if (i < n) delta[i] = truth[i] > 0 ? -pred[i] : pred[i];
})";
  kbcc::launch::LaunchMapping m;
  std::string s = form_of(flat, &m);
  EXPECT_NE(s.find("int i = (blockIdx.x * blockDim.x + threadIdx.x);"), std::string::npos) << s;
  EXPECT_EQ(m.grid, (std::array<std::string, 3>{"grid.x * grid.y", "1", "1"}));
  EXPECT_EQ(m.block[1], "block.y");
  EXPECT_EQ(m.preconditions, std::vector<std::string>{"grid.z == 1"});
  // Operands in other orders are the same index.
  EXPECT_NE(form_of(kernel("int i = threadIdx.x + blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x);\n"
                           "if (i < n) y[i] = x[i];"))
                .find("int i = (blockIdx.x * blockDim.x + threadIdx.x);"),
            std::string::npos);
  // Other reads of blockIdx or gridDim would see the new grid.
  EXPECT_EQ(form_of(kernel("int i = (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x + threadIdx.x;\n"
                           "if (i < n) y[i] = x[i] + blockIdx.y;")),
            "not-applicable: the kernel reads blockIdx or gridDim outside its flattened 2-D index");
  // blockIdx.y * gridDim.y is no flattened index.
  EXPECT_EQ(form_of(kernel("int i = (blockIdx.x + blockIdx.y * gridDim.y) * blockDim.x + threadIdx.x;\n"
                           "if (i < n) y[i] = x[i];"))
                .rfind("no-form: ", 0),
            0u);
  // block_size composes: the blocks of both grid dimensions, re-cut.
  KernelAst k = parsed(flat);
  Input in{k.source(), &k, {}, {}};
  auto out = offered(*find_transform("block_size"), in, {{"block", "512"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->launch->grid[0], "ceil_div(grid.x * grid.y * block.x, 512)");
  const auto &pre = out->launch->preconditions;
  EXPECT_NE(std::find(pre.begin(), pre.end(), "grid.z == 1"), pre.end());
  EXPECT_NE(std::find(pre.begin(), pre.end(), "grid.x * grid.y * block.x % 512 == 0 || n <= grid.x * grid.y * block.x"),
            pre.end());
}
TEST(GridStride, AHeaderFromAMacroIsWrittenOut) {
  // Caffe's CUDA_KERNEL_LOOP: the header is the macro's, the body the kernel's.
  const std::string macro = "#define CUDA_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; "
                            "i < (n); i += blockDim.x * gridDim.x)\n";
  kbcc::launch::LaunchMapping m;
  std::string s = form_of(macro + "__global__ void k(const int count, const float *in, float *out) {\n"
                                  "  CUDA_KERNEL_LOOP(index, count) {\n    if (in[index] < 0) continue;\n"
                                  "    out[index] = 2 * in[index];\n  }\n}",
                          &m);
  EXPECT_NE(s.find("int index = blockIdx.x * blockDim.x + threadIdx.x; if (index < (count)) {\n"
                   "    if (in[index] < 0) return;"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("CUDA_KERNEL_LOOP"), std::string::npos) << s;
  EXPECT_EQ(m.grid[0], "ceil_div(count, block.x)");
  std::string t = form_of(macro + "__global__ void k(const int n, const float *in, float *out) {\n"
                                  "  CUDA_KERNEL_LOOP(i, n) out[i] = in[i];\n}");
  EXPECT_NE(t.find("int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < (n)) { out[i] = in[i]; }"),
            std::string::npos)
      << t;
}

TEST(GridStrideNest, BothHeadersBecomeOneGuardOverBothBounds) {
  const char *nest = R"(__global__ void add(int rows, int cols, const float *a, float *c) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y) {
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < cols; col += blockDim.x * gridDim.x) {
      if (a[r * cols + col] == 0.0f) continue;
      c[r * cols + col] = 2.0f * a[r * cols + col];
    }
  }
})";
  kbcc::launch::LaunchMapping m;
  std::string s = form_of(nest, &m);
  EXPECT_NE(s.find("int r = blockIdx.y * blockDim.y + threadIdx.y; int col = blockIdx.x * blockDim.x + threadIdx.x; "
                   "if ((r < rows) && (col < cols)) {"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("gridDim"), std::string::npos) << s;
  EXPECT_NE(s.find("== 0.0f) return;"), std::string::npos) << s;
  EXPECT_EQ(m.grid, (std::array<std::string, 3>{"ceil_div(cols, block.x)", "ceil_div(rows, block.y)", "1"}));
  EXPECT_EQ(m.preconditions, (std::vector<std::string>{"grid.z == 1", "block.z == 1"}));
  // A while nest: the restart goes when the declaration already starts the
  // inner variable, and stays (before the guard) when it does not.
  const std::string nested_while = "while (i < n) { j = threadIdx.y + blockIdx.y * blockDim.y; while (j < n) { "
                                   "y[i * n + j] = x[i * n + j]; j += blockDim.y * gridDim.y; } "
                                   "i += blockDim.x * gridDim.x; }";
  std::string w = form_of(kernel("int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
                                 "int j = threadIdx.y + blockIdx.y * blockDim.y;\n" +
                                 nested_while));
  EXPECT_NE(w.find("if ((i < n) && (j < n)) {"), std::string::npos) << w;
  EXPECT_EQ(w.find("j = threadIdx.y + blockIdx.y * blockDim.y; if"), std::string::npos) << w;
  EXPECT_EQ(w.find("gridDim"), std::string::npos) << w;
  std::string c89 = form_of(kernel("int i, j;\ni = threadIdx.x + blockIdx.x * blockDim.x;\n" + nested_while));
  EXPECT_NE(c89.find("j = threadIdx.y + blockIdx.y * blockDim.y; if ((i < n) && (j < n))"), std::string::npos) << c89;
}

TEST(GridStrideNest, StoresMustBeRowMajorPositionsOfTheItem) {
  auto nest = [](const std::string &bound, const std::string &store) {
    return form_of(kernel("for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < n; r += blockDim.y * gridDim.y)\n"
                          "  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < " +
                          bound + "; c += blockDim.x * gridDim.x)\n    " + store));
  };
  const std::string shared = "not-applicable: a store of the grid-stride loop is not at an index that differs "
                             "between items";
  EXPECT_EQ(nest("n", "y[r * n + c] = x[c];").rfind("not-applicable", 0), std::string::npos);
  EXPECT_EQ(nest("n", "y[c + n * r + 7] = x[c];").rfind("not-applicable", 0), std::string::npos);
  EXPECT_EQ(nest("n", "y[(size_t)c * n + r] = x[c];").rfind("not-applicable", 0), std::string::npos);
  EXPECT_EQ(nest("16", "y[r * 32 + c] = x[c];").rfind("not-applicable", 0), std::string::npos);
  EXPECT_EQ(nest("64", "y[r * 32 + c] = x[c];"), shared); // c may reach the next row
  EXPECT_EQ(nest("n", "y[r * 2 * n + c] = x[c];"), shared);
  EXPECT_EQ(nest("n", "y[r + c] = x[c];"), shared);
  EXPECT_EQ(nest("n", "y[r * n - c] = x[c];"), shared);
  EXPECT_EQ(nest("n", "y[c] = x[c];"), shared);
  // Items that read what another stores.
  EXPECT_EQ(nest("n", "y[r * n + c] = y[r * n + c + 1];"),
            "not-applicable: the grid-stride loop reads 'y', which it stores to, at another element than the item's");
  // A break ends the thread's inner loop early: its items depend on each other.
  EXPECT_EQ(nest("n", "{ if (x[c] < 0) break; y[r * n + c] = x[c]; }"),
            "not-applicable: a break, goto or return leaves the grid-stride loop");
}

TEST(FixedBlock, AConstantExtentIsTheBlocksUnderAPrecondition) {
  kbcc::launch::LaunchMapping m;
  std::string s = form_of(kernel("constexpr int kBlock = 128;\nint i = threadIdx.x + kBlock * blockIdx.x;\n"
                                 "if (i < n) y[i] = x[i];"),
                          &m);
  EXPECT_NE(s.find("int i = (blockIdx.x * blockDim.x + threadIdx.x);"), std::string::npos) << s;
  EXPECT_EQ(m.grid, (std::array<std::string, 3>{"grid.x", "grid.y", "grid.z"}));
  EXPECT_EQ(m.preconditions, std::vector<std::string>{"block.x == 128"});
  form_of(kernel("int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 32 + threadIdx.x;\n"
                 "if (r < n && c < n) y[r * n + c] = x[r * n + c];"),
          &m);
  EXPECT_EQ(m.preconditions, (std::vector<std::string>{"block.x == 32", "block.y == 16"}));
  // Not a constant, the wrong dimension or too large: no form.
  EXPECT_EQ(form_of(kernel("int i = blockIdx.x * n + threadIdx.x; if (i < n) y[i] = x[i];")).rfind("no-form", 0), 0u);
  EXPECT_EQ(form_of(kernel("int i = blockIdx.y * 64 + threadIdx.x; if (i < n) y[i] = x[i];")).rfind("no-form", 0), 0u);
  EXPECT_EQ(form_of(kernel("int i = blockIdx.x * 2048 + threadIdx.x; if (i < n) y[i] = x[i];")).rfind("no-form", 0),
            0u);
}

// A block per row, its threads striding the row by blockDim.x: the row
// moves to blockIdx.y and each element gets a thread of its own.
TEST(BlockStride, TheRowMovesToYAndEachElementGetsAThread) {
  kbcc::launch::LaunchMapping m;
  std::string s =
      form_of(kernel("int row = blockIdx.x;\n"
                     "for (int c = threadIdx.x; c < n; c += blockDim.x) y[row * n + c] = a * x[row * n + c];"),
              &m);
  EXPECT_NE(s.find("int row = blockIdx.y;"), std::string::npos) << s;
  EXPECT_NE(
      s.find("int c = (blockIdx.x * blockDim.x + threadIdx.x); if (c < n) { y[row * n + c] = a * x[row * n + c]; }"),
      std::string::npos)
      << s;
  EXPECT_EQ(m.grid, (std::array<std::string, 3>{"ceil_div(n, block.x)", "grid.x", "1"}));
  EXPECT_EQ(m.preconditions, (std::vector<std::string>{"grid.y == 1", "block.y == 1", "grid.z == 1", "block.z == 1"}));
  // `c = c + blockDim.x` and gridDim.x read in the body are the same loop.
  s = form_of(kernel("for (int c = threadIdx.x; c < n; c = c + blockDim.x) y[blockIdx.x * n + c] = gridDim.x;"));
  EXPECT_NE(s.find("y[blockIdx.y * n + c] = gridDim.y;"), std::string::npos) << s;
  // What the form cannot keep.
  const std::pair<const char *, const char *> refused[] = {
      {"int t = threadIdx.x; for (int c = threadIdx.x; c < n; c += blockDim.x) y[c] = t;",
       "reads threadIdx or blockDim outside the block-stride loop's header"},
      {"for (int c = threadIdx.x; c < n; c += blockDim.x) y[c + blockIdx.y] = 0;", "a builtin of y or z"},
      {"int g = blockIdx.x * blockDim.x + threadIdx.x;\nfor (int c = threadIdx.x; c < n; c += blockDim.x) y[c] = g;",
       "a global index besides its block-stride loop"},
      {"y[0] = 1; for (int c = threadIdx.x; c < n; c += blockDim.x) y[c + 1] = 0;", "before the block-stride loop"},
      {"for (int c = threadIdx.x; c < n; c += blockDim.x) y[c] = y[c + 1];", "the block-stride loop reads"},
      {"float s = 0; for (int c = threadIdx.x; c < n; c += blockDim.x) s += x[c];", "carries a value"},
      {"for (int c = threadIdx.x; c < h[0]; c += blockDim.x) y[c] = 0;", "not an expression of integer parameters"},
      {"__shared__ float t[32]; for (int c = threadIdx.x; c < n; c += blockDim.x) y[c] = t[c % 32];", "shared memory"},
  };
  for (const auto &[body, why] : refused) {
    std::string r = form_of(kernel(body));
    EXPECT_EQ(r.rfind("not-applicable", 0), 0u) << body << ": " << r;
    EXPECT_NE(r.find(why), std::string::npos) << body << ": " << r;
  }
  // Not a block-stride loop: a start other than threadIdx.x, or a loop that is not last.
  EXPECT_EQ(form_of(kernel("for (int c = threadIdx.x + 1; c < n; c += blockDim.x) y[c] = 0;")).rfind("no-form", 0), 0u);
  EXPECT_EQ(
      form_of(kernel("for (int c = threadIdx.x; c < n; c += blockDim.x) y[c] = 0;\ny[n] = 0;")).rfind("no-form", 0),
      0u);
}

// block_size reaches a block-per-row kernel through the form.
TEST(BlockStride, PerItemTransformsRunOnTheForm) {
  KernelAst k =
      parsed(kernel("int row = blockIdx.x;\n"
                    "for (int c = threadIdx.x; c < n; c += blockDim.x) y[row * n + c] = a * x[row * n + c];"));
  Input in;
  in.ast = &k;
  in.source = k.source();
  auto out = offered(*find_transform("block_size"), in, {{"block", "128"}});
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_TRUE(out->launch);
  EXPECT_EQ(out->launch->grid[0], "ceil_div(ceil_div(n, block.x) * block.x, 128)");
  EXPECT_EQ(out->launch->grid[1], "grid.x");
}

// A 1-D index split into a row and a column: the form's 2-D grid runs the
// same items, each once, and a bound written P * W reads the row alone.
TEST(SplitIndex, RowAndColumnBecomeTheTwoGlobalIndexes) {
  const char *mm = R"(__global__ void mm(float *C, const float *A, const float *B, int M, int K, int N) {
  float acc = 0;
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= M * N) return;
  int row = id / N;
  int col = id % N;
  for (int e = 0; e < K; e++) acc += A[row * K + e] * B[e * N + col];
  C[row * N + col] = acc;
})";
  kbcc::launch::LaunchMapping m;
  std::string s = form_of(mm, &m);
  EXPECT_NE(s.find("int col = blockIdx.x * blockDim.x + threadIdx.x; int row = blockIdx.y * blockDim.y + "
                   "threadIdx.y; \n  if ((col >= (N)) || row >= (M)) return;"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("int id"), std::string::npos) << s; // nothing else reads it
  EXPECT_EQ(s.find("id / N"), std::string::npos) << s;
  EXPECT_EQ(m.grid, (std::array<std::string, 3>{"ceil_div(N, 32)", "ceil_div(M, ceil_div(block.x, 32))", "1"}));
  EXPECT_EQ(m.block, (std::array<std::string, 3>{"32", "ceil_div(block.x, 32)", "1"}));
  EXPECT_EQ(m.preconditions, (std::vector<std::string>{"grid.y == 1", "grid.z == 1", "block.y == 1", "block.z == 1",
                                                       "shared == 0", "N >= 1", "grid.x * block.x >= (M * N)"}));
  // smem_tiling refuses the kernel as written and tiles its form.
  KernelAst k = parsed(mm);
  Input in{k.source(), &k, {}, {}};
  auto out = offered(*find_transform("smem_tiling"), in, {{"tile", "16"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->launch->block, (std::array<std::string, 3>{"16", "16", "1"}));
  EXPECT_EQ(out->launch->grid[1], "ceil_div(ceil_div(M, ceil_div(block.x, 32)) * ceil_div(block.x, 32), 16)");
}

TEST(SplitIndex, InlineSplitsAndOtherBoundsKeepTheIndex) {
  kbcc::launch::LaunchMapping m;
  // Inline uses get variables of their own; where the index is read, it
  // reads row * W + col.
  std::string s = form_of(kernel("int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                 "if (i < n) { y[(i % 7) * 5 + i / 7] = x[i]; }"),
                          &m);
  EXPECT_NE(s.find("int __kbcc_col = blockIdx.x * blockDim.x + threadIdx.x; int __kbcc_row = blockIdx.y * "
                   "blockDim.y + threadIdx.y; \n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("if ((__kbcc_col < (7)) && (__kbcc_row * (7) + __kbcc_col) < n) { y[((__kbcc_col)) * 5 + "
                   "(__kbcc_row)] = x[(__kbcc_row * (7) + __kbcc_col)]; }"),
            std::string::npos)
      << s;
  EXPECT_EQ(m.grid[1], "ceil_div(ceil_div(n, 7), ceil_div(block.x, 32))");
  EXPECT_EQ(m.preconditions.back(), "(ceil_div(n, 7) + 16384) * (7) <= 2147483647");
  // A bound on the row variable, declarations in the work block, a divisor
  // held by a local declared after the index.
  s = form_of(kernel("int t = blockIdx.x * blockDim.x + threadIdx.x;\nconst int w = 2 * n;\n"
                     "int r = t / w; int c = t % w;\nif (r < n) { y[c * n + r] = x[r * w + c]; }"),
              &m);
  EXPECT_NE(s.find("int c = blockIdx.x * blockDim.x + threadIdx.x; int r = blockIdx.y * blockDim.y + threadIdx.y; "
                   "\nconst int w = 2 * n;"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("if ((c < (((int)((2 * n))))) && r < n)"), std::string::npos) << s;
  EXPECT_EQ(m.preconditions.back(), "grid.x * block.x >= (n) * ((2 * n))");
}

TEST(SplitIndex, DeclarationsOfBothAndRemaindersWrittenOut) {
  kbcc::launch::LaunchMapping m;
  // One declaration of both moves whole; the row's bound counts.
  std::string s = form_of(kernel("int t = blockDim.x * blockIdx.x + threadIdx.x;\nint r = t / n, c = t % n;\n"
                                 "if (r < n && c < n) { y[c * n + r] = x[t]; }"),
                          &m);
  EXPECT_NE(s.find("int c = blockIdx.x * blockDim.x + threadIdx.x; int r = blockIdx.y * blockDim.y + threadIdx.y; "
                   "\n\nif ((c < (n)) && r < n && c < n) { y[c * n + r] = x[(r * (n) + c)]; }"),
            std::string::npos)
      << s;
  EXPECT_EQ(m.grid[1], "ceil_div(n, ceil_div(block.x, 32))");
  // A remainder written i - r * W is the column.
  s = form_of(kernel("unsigned t = threadIdx.x + blockIdx.x * blockDim.x;\nif (t < n * 8) {\n"
                     "unsigned r = t / 8;\nunsigned c = t - r * 8;\ny[c * n + r] = x[t]; }"),
              &m);
  EXPECT_NE(s.find("unsigned int c = blockIdx.x * blockDim.x + threadIdx.x; unsigned int r = blockIdx.y * blockDim.y "
                   "+ threadIdx.y; \n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("if ((c < (8)) && r < (n)) {"), std::string::npos) << s;
  EXPECT_NE(s.find("y[c * n + r] = x[(r * (8) + c)]; }"), std::string::npos) << s;
  // An index of another type than its row and column reads them converted.
  s = form_of(kernel("long t = blockIdx.x * blockDim.x + threadIdx.x;\nint r = t / n;\nint c = t % n;\n"
                     "if (t < n * 8) { y[t] = x[c * 8 + r]; }"));
  EXPECT_NE(s.find("y[((long)(r) * (n) + (long)(c))]"), std::string::npos) << s;
  // A declaration that also declares something else stays, reading new variables.
  s = form_of(kernel("int t = blockIdx.x * blockDim.x + threadIdx.x;\nint r = t / n, k = 2;\nint c = t % n;\n"
                     "if (r < n) { y[c * n + r] = k * x[t]; }"));
  EXPECT_NE(s.find("int r = (__kbcc_row), k = 2;"), std::string::npos) << s;
}

TEST(SplitIndex, GridStrideItemsSplitIntoRowsAndColumns) {
  const std::string loop =
      "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < h0 * w; i += blockDim.x * gridDim.x) ";
  auto split = [&](const std::string &body) {
    return form_of("__global__ void k(int h0, int w, const float *x, float *y) {\n" + loop + body + "\n}");
  };
  // Stores at a position of the item's row and column in a grid of w
  // columns, row- or column-major, are distinct between items.
  for (const char *body : {"{ int r = i / w, c = i % w; y[c * h0 + r] = x[i]; }",
                           "{ int r = i / w; int c = i % w; int o = r * w + c; y[o] = x[i]; }",
                           "y[(i % w) * h0 + i / w] = x[i];", "y[h0 * (i % w) + i / w + 4] = x[i];"})
    EXPECT_EQ(split(body).find("not-applicable"), std::string::npos) << body;
  // Positions that may meet: a row bound the loop does not give, a stride
  // narrower than the row's or column's range, two rows.
  for (const char *body :
       {"{ int r = i / w, c = i % w; y[c * (h0 - 1) + r] = x[i]; }", "y[(i % w) * w + i / w] = x[i];",
        "y[(i / w) * 8 + i % w] = x[i];", "y[(i / w) * h0 + i / w] = x[i];", "y[(i / w) * w - i % w] = x[i];"})
    EXPECT_EQ(split(body), "not-applicable: a store of the grid-stride loop is not at an index that differs between "
                           "items")
        << body;
  // Through its form, the split reaches the 2-D transforms, the launches composed.
  KernelAst k = parsed("__global__ void k(int h0, int w, const float *x, float *y) {\n" + loop +
                       "{ int r = i / w, c = i % w; y[c * h0 + r] = x[i]; }\n}");
  auto out = offered(*find_transform("smem_transpose_staging"), Input{k.source(), &k, {}, {}, {}}, {});
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_TRUE(out->launch);
  EXPECT_EQ(out->launch->grid[1], "ceil_div(ceil_div(h0, ceil_div(block.x, 32)) * ceil_div(block.x, 32), 32)");
  EXPECT_NE(out->source.find("= x[(r * (w) + c)];"), std::string::npos) << out->source;
}

TEST(SplitIndex, WhatKeepsTheFormFromApplying) {
  const std::string index = "int i = blockIdx.x * blockDim.x + threadIdx.x;\n";
  EXPECT_EQ(form_of(kernel(index + "if (i < n) y[i] = x[i / 4] + x[i % 8];")),
            "not-applicable: the index is divided by two different values");
  EXPECT_EQ(form_of(kernel(index + "if (i < n) y[i / 4] = x[i % 4] + threadIdx.x;")),
            "not-applicable: the kernel reads a CUDA builtin outside its global index");
  EXPECT_EQ(form_of(kernel(index + "__shared__ float s[32]; s[i % 32] = x[i / 32]; __syncthreads(); "
                                   "if (i < n) y[i] = s[0];")),
            "not-applicable: the kernel synchronizes threads, uses warp-level operations or shared memory");
  EXPECT_EQ(form_of(kernel(index + "y[i / 4] = x[i % 4];")),
            "not-applicable: no guard bounds the index (i < B or i >= B) or its row");
  EXPECT_EQ(form_of(kernel(index + "if (i < h[0]) { y[i / 4] = x[i % 4]; }")),
            "not-applicable: no guard bounds the index (i < B or i >= B) or its row");
  EXPECT_EQ(form_of(kernel(index + "if (i < n) { y[i / h[0]] = x[i % h[0]]; }")),
            "not-applicable: the divisor of the index is not an expression of integer parameters");
  EXPECT_EQ(form_of(kernel("y[0] = 1;\n" + index + "if (i < n) { y[i / 4] = x[i % 4]; }")),
            "not-applicable: a statement before the guard touches memory, calls a function or divides");
  EXPECT_EQ(form_of(kernel(index + "h[i % 4] = 0;\nif (i >= n) return;\ny[i / 4] = x[i % 4];")),
            "not-applicable: a statement before the guard touches memory, calls a function or divides");
  EXPECT_EQ(form_of(kernel(index + "int q = n / (i - 3);\nif (i >= n) return;\ny[i / 4] = x[i % 4] + q;")),
            "not-applicable: a statement before the guard touches memory, calls a function or divides");
  // Only one of the two, or an index something assigns: no form.
  EXPECT_EQ(form_of(kernel(index + "if (i < n) y[i] = x[i % 4];")).rfind("no-form", 0), 0u);
  EXPECT_EQ(form_of(kernel(index + "i += 1; if (i < n) y[i / 4] = x[i % 4];")).rfind("no-form", 0), 0u);
}

// Mechanical lowering on a real unit: which structural transforms apply to a
// start candidate, and how a step composes with the launch of the step before.
#include "agent/lowering.h"
#include "agent/work_check.h"
#include "support/fs.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>

using namespace kbcc::agent;

namespace {

const char *kRows = R"(__global__ void rows(int n, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += x[(size_t)r * cols + c];
  y[r] = s;
})";

// A task whose unit is a file holding `kernel` and nothing else.
struct Unit {
  std::string dir;
  KernelTask task;
  explicit Unit(const char *kernel) {
    dir = *kbcc::make_temp_dir("kbcc-lowering-test");
    task.tu_path = dir + "/k.cu";
    EXPECT_TRUE(kbcc::write_file_atomic(task.tu_path, kernel));
    task.kernel.qualified_name = "rows";
    task.kernel.source = kernel;
    task.kernel.file = task.tu_path;
    task.arch = "sm_90";
    task.working_dir = dir;
    kbcc::launch::Launch l;
    l.grid[0] = 64;
    l.block[0] = 64;
    task.launches = {l};
  }
  ~Unit() { std::filesystem::remove_all(dir); }
};

Option option(const std::string &id, const std::string &mechanical) {
  Option o;
  o.id = id;
  o.mechanical = mechanical;
  return o;
}

// A request to lower `mechanical` (as option `id`) from `start` for `u`'s task.
LoweringRequest request(const Unit &u, const Candidate &start, const std::string &id, const std::string &mechanical,
                        int budget = 8) {
  LoweringRequest r;
  r.task = &u.task;
  r.start = &start;
  r.option = option(id, mechanical);
  r.budget = budget;
  return r;
}

} // namespace

TEST(Lowering, FitLaunchBoundsToTheNewBlock) {
  const std::string k = "__global__ void __launch_bounds__(64) f(int n) {}";
  EXPECT_EQ(fit_launch_bounds(k, {"256", "1", "1"}), "__global__ void __launch_bounds__(256) f(int n) {}");
  EXPECT_EQ(fit_launch_bounds(k, {"32", "1", "1"}), k); // a larger bound still holds
  EXPECT_EQ(fit_launch_bounds(k, {"block.x", "1", "1"}), "__global__ void f(int n) {}");
  EXPECT_EQ(fit_launch_bounds("__global__ void f(int n) {}", {"256", "1", "1"}), "__global__ void f(int n) {}");
}

TEST(Lowering, StructuralTransformsSayWhetherTheyApply) {
  Unit u(kRows);
  MechanicalLowerer m;
  Candidate start{u.task.kernel.source, {}, "original"};
  EXPECT_EQ(m.applies(option("split_loop_across_warp", "split_loop_across_warp"), u.task, start), true);
  EXPECT_EQ(m.applies(option("smem_tiling", "smem_tiling"), u.task, start), false);      // one dimension
  EXPECT_EQ(m.applies(option("loop_unrolling", "unroll"), u.task, start), std::nullopt); // lexical: not known
}

TEST(Lowering, AStepAfterABlockSizeStepFitsItsLaunchBounds) {
  Unit u(kRows);
  MechanicalLowerer m;
  Candidate start{u.task.kernel.source, {}, "original"};
  LoweringRequest r = request(u, start, "block_size_tuning", "block_size", 1);
  auto sized = m.lower(r);
  ASSERT_TRUE(sized) << sized.error().message;
  const Candidate &small = sized->candidates.at(0);
  ASSERT_NE(small.source.find("__launch_bounds__(256)"), std::string::npos) << small.source;
  // Split across a 512-thread block from there: the bound follows the block.
  r.start = &small;
  r.option = option("split_loop_across_warp", "split_loop_across_warp");
  r.budget = 32;
  auto split = m.lower(r);
  ASSERT_TRUE(split) << split.error().message;
  bool saw512 = false;
  for (const Candidate &c : split->candidates) {
    ASSERT_TRUE(c.launch);
    if (c.launch->block[0] != "512") continue;
    saw512 = true;
    EXPECT_NE(c.source.find("__launch_bounds__(512)"), std::string::npos) << c.source;
  }
  EXPECT_TRUE(saw512);
}

TEST(Lowering, AStepEvaluatesEachDistinctKernelOnceAndFillsItsBudget) {
  Unit u(kRows);
  MechanicalLowerer m;
  Candidate start{u.task.kernel.source, {}, "original"};
  LoweringRequest r = request(u, start, "split_loop_across_warp", "split_loop_across_warp");
  // Rank the settings that write one kernel first: with 256 lanes a block
  // is one item, whatever `block` says.
  r.ranked_parameters = {"lanes=256", "block=256", "block=128", "block=512"};
  auto split = m.lower(r);
  ASSERT_TRUE(split) << split.error().message;
  int lanes256 = 0;
  for (const Candidate &c : split->candidates)
    lanes256 += c.params.at("lanes") == "256";
  EXPECT_EQ(lanes256, 1);
  EXPECT_EQ(split->candidates.size(), 8u);
  std::set<std::string> sources;
  for (const Candidate &c : split->candidates)
    sources.insert(c.source + (c.launch ? kbcc::launch::to_json(*c.launch).dump() : ""));
  EXPECT_EQ(sources.size(), split->candidates.size());
}

namespace {

// The split_loop_across_warp candidates for `u` with `nest` ranked first
// that have that nest, each checked by the guard against skipped work.
std::vector<Candidate> nest_candidates(const Unit &u, const std::string &nest) {
  MechanicalLowerer m;
  Candidate start{u.task.kernel.source, {}, "original"};
  LoweringRequest r = request(u, start, "split_loop_across_warp", "split_loop_across_warp");
  r.ranked_parameters = {"nest=" + nest};
  auto split = m.lower(r);
  EXPECT_TRUE(split) << split.error().message;
  std::vector<Candidate> out;
  for (const Candidate &c : split ? split->candidates : std::vector<Candidate>{}) {
    if (c.params.at("nest") != nest) continue;
    kbcc::Status check = check_candidate(u.task.kernel.source, c.source, c.launch);
    EXPECT_TRUE(check) << check.error().message << "\n" << c.source;
    out.push_back(c);
  }
  EXPECT_FALSE(out.empty()) << nest;
  return out;
}

} // namespace

TEST(Lowering, NestsPassTheWorkCheck) {
  // One thread per channel over a batch and its pixels: nest=flat and
  // nest=inner keep both loops' bounds in their headers, so the guard
  // against skipped work sees every loop the kernel had; so do their
  // forms with a cluster of blocks per channel, offered for a capture of
  // 64 channels.
  Unit u(R"(__global__ void rows(const float *x, float *y, int N, int C, int HW) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float s = 0.0f;
  for (int n = 0; n < N; ++n)
    for (int p = 0; p < HW; ++p) s += x[((size_t)n * C + c) * HW + p];
  y[c] = s;
})");
  u.task.arguments = {{{"N", 32}, {"C", 64}, {"HW", 3136}}};
  for (std::string nest : {"flat", "inner"}) {
    int clustered = 0;
    for (const Candidate &c : nest_candidates(u, nest))
      clustered += c.params.at("cluster") != "1";
    EXPECT_GT(clustered, 0) << nest;
  }
}

TEST(Lowering, DeepNestsPassTheWorkCheck) {
  // Pairs of a sample's fields, three loops deep: nest=deep strides the
  // deepest loop and keeps every loop's bound in its header.
  Unit u(R"(__global__ void rows(const float *e, float *y, int n, int fields, int dim) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  float acc = 0.0f;
  for (int a = 0; a < fields; ++a)
    for (int b = a + 1; b < fields; ++b)
      for (int k = 0; k < dim; ++k) acc += e[((size_t)s * fields + a) * dim + k] * e[((size_t)s * fields + b) * dim + k];
  y[s] = acc;
})");
  for (const Candidate &c : nest_candidates(u, "deep"))
    EXPECT_NE(c.source.find("k += "), std::string::npos) << c.source;
}

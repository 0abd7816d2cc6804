// The GPU-free parts of kbcc optimize: candidate build commands, unit
// substitution, task collection, store records and the progress line.
#include "agent/gpu_evaluator.h"
#include "agent/progress.h"
#include "agent/run.h"
#include "gpu/capture_format.h"
#include "support/fs.h"
#include "support/process.h"
#include "test_support.h"

#include <cstring>
#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::agent;

TEST(Run, CubinCommandKeepsDeviceFlagsOnly) {
  std::vector<std::string> cmd{"nvcc",
                               "-c",
                               "-O3",
                               "-DN=4",
                               "-I",
                               "inc",
                               "-Iinc2",
                               "-std=c++17",
                               "--use_fast_math",
                               "-Xptxas",
                               "-v",
                               "-Xcompiler",
                               "-fPIC",
                               "-gencode",
                               "arch=compute_90,code=sm_90",
                               "-arch=sm_80",
                               "-MD",
                               "-MF",
                               "x.d",
                               "-o",
                               "x.o",
                               "src/x.cu",
                               "--expt-relaxed-constexpr"};
  auto out = cubin_command("/cuda/nvcc", cmd, "sm_90", "/tmp/c.cu", "/tmp/c.cubin", "/src");
  std::vector<std::string> want{"/cuda/nvcc",
                                "-cubin",
                                "-arch=sm_90",
                                "-I/src",
                                "-O3",
                                "-DN=4",
                                "-I",
                                "inc",
                                "-Iinc2",
                                "-std=c++17",
                                "--use_fast_math",
                                "-Xptxas",
                                "-v",
                                "-Xcompiler",
                                "-fPIC",
                                "--expt-relaxed-constexpr",
                                "-o",
                                "/tmp/c.cubin",
                                "/tmp/c.cu"};
  EXPECT_EQ(out, want);
}

TEST(Run, SubstitutedUnitCompilesForTheArch) {
  auto dir = *make_temp_dir("kbcc-run-test");
  std::string unit = std::string("#include \"helper.h\"\n") + test::kSaxpy +
                     "\nvoid launch(int n, float a, const float *x, float *y) { saxpy<<<64, 256>>>(n, a, x, y); }\n";
  ASSERT_TRUE(write_file_atomic(dir + "/app.cu", unit));
  ASSERT_TRUE(write_file_atomic(dir + "/helper.h", "#define HELPER 1\n"));
  KernelTask t;
  t.kernel.qualified_name = "saxpy";
  t.kernel.source = test::kSaxpy;
  t.kernel.file = dir + "/app.cu";
  t.tu_path = dir + "/app.cu";
  t.arch = "sm_80";
  t.compile_command = {"nvcc", "-c", "-O3", "app.cu", "-o", "app.o"};
  t.working_dir = dir;
  std::string variant =
      std::string(test::kSaxpy)
          .replace(std::string(test::kSaxpy).find("const float *x"), 14, "const float *__restrict__ x");
  auto text = substituted_unit(t, variant);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("__CUDA_ARCH__ == 800"), std::string::npos);
  EXPECT_NE(text->find("const float *__restrict__ x"), std::string::npos);
  t.kernel.source = "__global__ void gone() {}";
  EXPECT_EQ(substituted_unit(t, variant).error().code, "stale-registry");
  t.kernel.source = test::kSaxpy;
  if (file_exists("/usr/local/cuda/bin/nvcc")) {
    ASSERT_TRUE(make_dirs(dir + "/work"));
    ASSERT_TRUE(write_file_atomic(dir + "/work/c.cu", *text));
    auto argv = cubin_command("/usr/local/cuda/bin/nvcc", t.compile_command, t.arch, dir + "/work/c.cu",
                              dir + "/work/c.cubin", dir);
    ProcessOptions po;
    po.cwd = dir;
    auto r = run_process(argv, po);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->exit_code, 0) << r->err; // helper.h found through the unit's directory
  }
  remove_all(dir);
}

TEST(Run, CollectTasksMatchesCapturesByHashOrMangledName) {
  kb::RegistryEntry a, b, c;
  a.hash = "aaaa0000000000000000000000000000";
  a.qualified_name = "saxpy";
  a.mangled_names = {"_Z5saxpyifPKfPf"};
  a.source = test::kSaxpy;
  b.hash = "bbbb0000000000000000000000000000";
  b.qualified_name = "matmul";
  b.mangled_names = {"_Z6matmuliPKfS0_Pf"};
  c = b;
  c.hash = "cccc0000000000000000000000000000";
  c.qualified_name = "opaque";
  c.not_optimizable = "inline-asm";
  gpu::CaptureInfo c1, c2, c3, c4;
  c1.id = "1";
  c1.kernel_hash = a.hash;
  c1.arch = "sm_90";
  c1.block = {256, 1, 1};
  c2.id = "2";
  c2.kernel = "_Z6matmuliPKfS0_Pf";
  c2.arch = "sm_90";
  c2.block = {16, 16, 1};
  c3 = c2;
  c3.id = "3";
  c3.arch = "sm_80"; // another GPU: captures are inputs from any arch
  c4 = c1;
  c4.id = "4";
  c4.replayable = false;
  auto tasks = collect_tasks({a, b, c}, {c1, c2, c3, c4}, "sm_90", "");
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].captures, std::vector<std::string>{"1"});
  EXPECT_EQ(tasks[1].captures, (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(tasks[1].launches[0].block[0] * tasks[1].launches[0].block[1] * tasks[1].launches[0].block[2], 256u);
  EXPECT_EQ(collect_tasks({a, b, c}, {c1, c2}, "sm_90", "bbbb").size(), 1u);
  EXPECT_EQ(collect_tasks({a, b, c}, {c1, c2}, "sm_90", "saxpy").at(0).kernel.hash, a.hash);
  EXPECT_TRUE(collect_tasks({a, b, c}, {c1, c2}, "sm_90", "nothing").empty());
  EXPECT_FALSE(tasks[0].kernel.is_template);
  b.qualified_name = "ns::matmul<float, 16>"; // a template's instance
  EXPECT_TRUE(collect_tasks({a, b, c}, {c1, c2}, "sm_90", "bbbb").at(0).kernel.is_template);
  b.source = "template <> __global__ void matmul<float, 16>(int n) {}"; // written in the program
  EXPECT_FALSE(collect_tasks({a, b, c}, {c1, c2}, "sm_90", "bbbb").at(0).kernel.is_template);
}

// Each capture's integer arguments reach the task by parameter name, read
// from its manifest; a capture whose manifest is gone gives none.
TEST(Run, CollectTasksReadsEachCapturesIntegerArguments) {
  kb::RegistryEntry e;
  e.hash = "aaaa0000000000000000000000000000";
  e.qualified_name = "saxpy";
  e.mangled_names = {"_Z5saxpyifPKfPf"};
  e.source = test::kSaxpy;
  tooling::Param n, a, x;
  n.name = "n", n.is_integer = true, n.is_signed = true, n.size = 4;
  a.name = "a", a.size = 4;
  x.name = "x", x.is_pointer = true, x.size = 8;
  e.params = {n, a, x};
  auto made = make_temp_dir("kbcc-args");
  ASSERT_TRUE(made);
  const std::string &dir = *made;
  gpu::Manifest m;
  m.params = {{0, 4}, {4, 4}, {8, 8}};
  m.param_bytes.assign(16, '\0');
  int32_t count = -7; // signed: sign-extended from 4 bytes
  std::memcpy(&m.param_bytes[0], &count, 4);
  ASSERT_TRUE(write_file_atomic(dir + "/one.json", gpu::manifest_to_json(m)));
  gpu::CaptureInfo c1, c2;
  c1.id = "1";
  c1.kernel_hash = e.hash;
  c1.arch = "sm_90";
  c1.manifest = dir + "/one.json";
  c2 = c1;
  c2.id = "2";
  c2.manifest = dir + "/gone.json";
  auto tasks = collect_tasks({e}, {c1, c2}, "sm_90", "");
  remove_all(dir);
  ASSERT_EQ(tasks.size(), 1u);
  ASSERT_EQ(tasks[0].arguments.size(), 2u);
  EXPECT_EQ(tasks[0].arguments[0], (std::map<std::string, int64_t>{{"n", -7}}));
  EXPECT_TRUE(tasks[0].arguments[1].empty());
}

TEST(Run, CollectTasksTakesCapturesOfTheSameKernelBuiltForAnotherArch) {
  kb::RegistryEntry e80, e90, other;
  e80.hash = "8080000000000000000000000000000a";
  e80.qualified_name = "saxpy";
  e80.mangled_names = {"_Z5saxpyifPKfPf"};
  e80.source = test::kSaxpy;
  e80.archs = {"sm_80"};
  e90 = e80;
  e90.hash = "9090000000000000000000000000000a";
  e90.archs = {"sm_90"};
  e90.closure = "c90";
  other = e90; // same device name, another definition
  other.hash = "0000000000000000000000000000000b";
  other.source = "__global__ void saxpy(int n, float a, const float *x, float *y) {}";
  other.archs = {"sm_80"};
  gpu::CaptureInfo from80, from_other, unknown;
  from80.id = "old-gpu";
  from80.kernel = "_Z5saxpyifPKfPf";
  from80.kernel_hash = e80.hash; // recorded on an sm_80 GPU by a build for sm_80
  from80.arch = "sm_80";
  from_other = from80;
  from_other.id = "other-definition";
  from_other.kernel_hash = other.hash;
  unknown = from80;
  unknown.id = "unknown-hash";
  unknown.kernel_hash = "ffff0000000000000000000000000000";
  auto tasks = collect_tasks({e80, e90, other}, {from80, from_other, unknown}, "sm_90", "");
  ASSERT_EQ(tasks.size(), 1u); // e80 and `other` were never built for sm_90
  EXPECT_EQ(tasks[0].kernel.hash, e90.hash);
  EXPECT_EQ(tasks[0].arch, "sm_90");
  EXPECT_EQ(tasks[0].captures, std::vector<std::string>{"old-gpu"});
  EXPECT_EQ(tasks[0].closure, "c90");
  // On sm_80 the same capture serves e80 directly; `other` gets its own.
  auto on80 = collect_tasks({e80, e90, other}, {from80, from_other, unknown}, "sm_80", "");
  ASSERT_EQ(on80.size(), 2u);
  EXPECT_EQ(on80[0].kernel.hash, e80.hash);
  EXPECT_EQ(on80[0].captures, std::vector<std::string>{"old-gpu"});
  EXPECT_EQ(on80[1].kernel.hash, other.hash);
  EXPECT_EQ(on80[1].captures, std::vector<std::string>{"other-definition"});
}

TEST(Run, RecordsForTheStores) {
  KernelTask t;
  t.kernel.hash = "aaaa0000000000000000000000000000";
  t.kernel.qualified_name = "saxpy";
  t.arch = "sm_90";
  t.captures = {"1", "2"};
  Candidate best{"__global__ void saxpy() {}", {"readonly_cache_ldg", "loop_unrolling"}, "unroll"};
  Measurement base{Timing{1.0, 0.01, 50}, {}, 3};
  Evaluation e = test::ok_eval(0.5);
  e.max_error = 1e-7;
  e.tolerance = 1e-5;
  e.sanitizer_ran = true;
  e.captures_checked = 2;
  RunContext ctx{"NVIDIA H100", "13000", "me", "0123", "", "nvcc 13.0", 1700000000};
  cache::VariantRecord v = variant_record(t, best, base, e, ctx, "traj");
  EXPECT_TRUE(cache::check_variant(v)) << cache::check_variant(v).error().message;
  EXPECT_EQ(v.validation.captures_checked, 2u);
  EXPECT_EQ(v.validation.sanitizer, "clean");
  EXPECT_NEAR(v.timing.speedup(), 2.0, 1e-9);
  EXPECT_EQ(v.provenance.optimizations, best.optimizations);

  TrajectoryRecord tr;
  tr.kernel_hash = t.kernel.hash;
  tr.arch = "sm_90";
  StepRecord s;
  s.state = "dram_bandwidth_bound";
  s.option = "readonly_cache_ldg";
  s.lowering = "llm:gpt";
  s.compiled = s.validated = true;
  s.total_speedup = 1.4;
  s.usage.input_tokens = 10;
  tr.steps = {s};
  tr.best_speedup = 1.4;
  tr.index = 1;
  tr.started = 1700000050;
  kb::Trajectory k = store_trajectory(tr, base, ctx, 1700000100);
  // Its own start and its place in the run, not the run's start.
  EXPECT_EQ(k.started, 1700000050);
  EXPECT_EQ(k.index, 1u);
  EXPECT_EQ(k.steps.at(0).lowering, "llm");
  EXPECT_EQ(k.steps.at(0).tokens_in, 10u);
  EXPECT_DOUBLE_EQ(k.baseline_median_us, 1000);
  EXPECT_EQ(k.initial_state, "dram_bandwidth_bound");
  EXPECT_EQ(k.id.size(), 32u);
  auto round = kb::trajectory_from_json(kb::to_json(k), "test");
  ASSERT_TRUE(round) << round.error().message;
  EXPECT_EQ(round->index, 1u);
  EXPECT_EQ(round->started, 1700000050);
}

TEST(Run, ProgressLineHasBarCountAndEta) {
  EXPECT_EQ(progress_line(8, 32, "saxpy", 40), "[######..................] 8/32 25% saxpy ETA 2m0s");
  EXPECT_EQ(progress_line(32, 32, "saxpy", 40), "[########################] 32/32 100% saxpy");
}

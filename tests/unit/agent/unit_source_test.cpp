// Where candidates compile from: the unit's closure stored with the registry
// (even once the checkout is gone), else the checkout, else a clear error.
#include "agent/gpu_evaluator.h"
#include "agent/unit_source.h"
#include "cache/env.h"
#include "kb/closure.h"
#include "support/fs.h"
#include "support/process.h"
#include "test_support.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::agent;

namespace {

struct Project {
  std::string dir = *make_temp_dir("kbcc-unit-source");
  std::string src = real_path(dir) + "/proj";
  std::unique_ptr<cache::Env> env = std::move(cache::Env::open(dir + "/kbcc").value());
  KernelTask t;
  Project() {
    std::string unit = std::string("#include \"helper.h\"\n") + test::kSaxpy + "\n";
    EXPECT_TRUE(write_file_atomic(src + "/src/app.cu", unit));
    EXPECT_TRUE(write_file_atomic(src + "/include/helper.h", "#define HELPER 1\n"));
    EXPECT_TRUE(make_dirs(src + "/build"));
    t.kernel.qualified_name = "saxpy";
    t.kernel.hash = "aaaa0000000000000000000000000000";
    t.kernel.source = test::kSaxpy;
    t.kernel.mangled_names = {"_Z5saxpyifPKfPf"};
    t.kernel.file = src + "/src/app.cu";
    t.tu_path = src + "/src/app.cu";
    t.working_dir = src + "/build";
    t.arch = "sm_80";
    t.compile_command = {"nvcc", "-c", "-O3", "-I" + src + "/include", src + "/src/app.cu", "-o", "app.o"};
  }
  ~Project() { remove_all(dir); }
  void record() {
    kb::CompileInputs in{t.tu_path,
                         t.working_dir,
                         t.compile_command,
                         {src + "/src/app.cu", src + "/include/helper.h"},
                         kb::toolchain_dirs("/usr/local/cuda", dir)};
    auto id = kb::ClosureStore(*env, 1 << 20).record(in);
    ASSERT_TRUE(id) << id.error().message;
    t.closure = *id;
  }
};

} // namespace

TEST(UnitSource, TheClosureIsPreferredAndOutlivesTheCheckout) {
  Project p;
  p.record();
  std::filesystem::rename(p.src, p.dir + "/moved");
  auto u = materialize_unit(p.t, p.env.get(), p.dir + "/work");
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(u->origin, "closure " + p.t.closure.substr(0, 16));
  EXPECT_EQ(u->tu_path.rfind(p.dir + "/work/unit-", 0), 0u) << u->tu_path;
  KernelTask at = at_unit(p.t, *u);
  EXPECT_EQ(at.kernel.file, u->tu_path);
  EXPECT_EQ(at.compile_command[3], "-I../include");
  auto text = substituted_unit(at, test::kSaxpy);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("__CUDA_ARCH__ == 800"), std::string::npos);
  if (!file_exists("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "no nvcc to compile the unit";
  ASSERT_TRUE(write_file_atomic(p.dir + "/work/c.cu", *text));
  ProcessOptions po;
  po.cwd = at.working_dir;
  auto argv = cubin_command("/usr/local/cuda/bin/nvcc", at.compile_command, at.arch, p.dir + "/work/c.cu",
                            p.dir + "/work/c.cubin", std::filesystem::path(at.tu_path).parent_path().string());
  auto r = run_process(argv, po);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 0) << r->err; // helper.h came from the closure
  EXPECT_TRUE(file_exists(p.dir + "/work/c.cubin"));
}

TEST(UnitSource, CheckoutWhenNoClosureIsStored) {
  Project p;
  p.t.closure = "0123456789abcdef0123456789abcdef"; // named by the registry, not pulled
  auto u = materialize_unit(p.t, p.env.get(), p.dir + "/work");
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(u->origin, "checkout");
  EXPECT_EQ(u->tu_path, p.t.tu_path);
  EXPECT_EQ(at_unit(p.t, *u).kernel.file, p.t.kernel.file);
}

TEST(UnitSource, NeitherIsAClearError) {
  Project p;
  p.t.closure = "0123456789abcdef0123456789abcdef";
  remove_all(p.src);
  auto u = materialize_unit(p.t, p.env.get(), p.dir + "/work");
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().code, kErrNoUnitSource);
  EXPECT_EQ(u.error().message, "cannot compile saxpy: its closure 0123456789abcdef0123456789abcdef is not in the "
                               "store, and its unit " +
                                   p.t.tu_path + " does not exist (`kbcc kb pull` fetches closures)");
}

// The evaluator's CPU side, without a GPU: candidates compile in parallel from
// the stored closure (the evaluation then stops at the missing captures), and
// a compile failure carries nvcc's diagnostics.
TEST(UnitSource, CandidatesCompileInParallelFromTheClosure) {
  if (!file_exists("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "needs nvcc";
  Project p;
  p.record();
  std::filesystem::rename(p.src, p.dir + "/moved");
  GpuEvaluatorOptions o;
  o.nvcc = "/usr/local/cuda/bin/nvcc";
  o.captures_dir = p.dir + "/captures";
  o.compile_jobs = 4;
  o.store = p.env.get();
  GpuEvaluator ev(o);
  std::vector<Candidate> cands;
  for (int i = 0; i < 4; ++i) {
    Candidate c;
    c.source = std::string(test::kSaxpy);
    c.source.insert(c.source.find("saxpy("), "__launch_bounds__(" + std::to_string(64 << i) + ") ");
    cands.push_back(c);
  }
  cands.push_back(Candidate{"__global__ void saxpy(int n, float a, const float *x, float *y) { y[0] = ; }"});
  auto out = ev.evaluate(p.t, cands);
  ASSERT_EQ(out.size(), cands.size());
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    ASSERT_FALSE(out[i]) << i << ": compiled " << out[i]->compiled << " " << out[i]->compile_log;
    EXPECT_EQ(out[i].error().code, "no-captures") << i << ": " << out[i].error().message;
  }
  ASSERT_TRUE(out.back()) << out.back().error().message;
  EXPECT_FALSE(out.back()->compiled);
  EXPECT_NE(out.back()->compile_log.find("expected an expression"), std::string::npos) << out.back()->compile_log;
}

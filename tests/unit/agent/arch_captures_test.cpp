// Captures from another arch (or another build of the same definition) serve
// a task only when the original recompiled for the task's arch reproduces
// them; checked against a fake runner that reports what a GPU would.
#include "agent/arch_captures.h"
#include "support/fs.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace kbcc;
using namespace kbcc::agent;

namespace {

// A fake kbcc-gpu: refuses calibration and a missing reference; a capture
// whose manifest path says "good" is reproduced, any other is not.
struct FakeRunner {
  std::string dir = *make_temp_dir("kbcc-fake-runner");
  ~FakeRunner() { remove_all(dir); }
  std::string path() {
    std::string p = dir + "/runner";
    EXPECT_TRUE(write_file_atomic(p, R"(#!/bin/sh
echo "$@" >> )" + dir + R"(/calls
case "$*" in *--calibrate*) echo '{"error":"calibrated"}'; exit 2;; esac
case "$*" in *"--reference /work/base.cubin"*) ;; *) echo '{"error":"no reference"}'; exit 2;; esac
case "$*" in
  *good*) echo '{"kernel":"k","launched":true,"pass":true,"buffers":[]}' ;;
  *) echo '{"kernel":"k","launched":true,"pass":false,"buffers":[{"index":1,"name":"y","type":"f32","bytes":16,"written":true,"mismatches":3,"max_abs_error":0.5,"pass":false}]}' ;;
esac
)"));
    chmod(p.c_str(), 0755);
    return p;
  }
};

KernelTask task() {
  KernelTask t;
  t.kernel.qualified_name = "saxpy";
  t.kernel.hash = "9090000000000000000000000000000a";
  t.arch = "sm_90";
  tooling::Param x;
  x.is_pointer = true;
  x.pointee_type = "float";
  t.kernel.params = {x};
  return t;
}

gpu::CaptureInfo capture(const std::string &id, const std::string &arch, const std::string &hash) {
  gpu::CaptureInfo c;
  c.id = id;
  c.manifest = "/captures/launches/" + id + ".json";
  c.kernel = "_Z5saxpyifPKfPf";
  c.kernel_hash = hash;
  c.arch = arch;
  return c;
}

} // namespace

TEST(ArchCaptures, OnlyForeignCapturesNeedAReference) {
  KernelTask t = task();
  EXPECT_FALSE(needs_reference(capture("a", "sm_90", t.kernel.hash), t));
  EXPECT_FALSE(needs_reference(capture("b", "sm_90", ""), t));
  EXPECT_TRUE(needs_reference(capture("c", "sm_80", t.kernel.hash), t));
  EXPECT_TRUE(needs_reference(capture("d", "sm_90", "8080000000000000000000000000000a"), t));
  EXPECT_EQ(param_types(t).at(0), gpu::ElementType::F32);
}

TEST(ArchCaptures, ForeignCapturesServeWhenTheRecompiledOriginalReproducesThem) {
  FakeRunner fake;
  gpu::ReplayOptions o;
  o.runner.runner = fake.path();
  KernelTask t = task();
  auto sorted = sort_captures(
      t, {capture("own", "sm_90", t.kernel.hash), capture("good80", "sm_80", ""), capture("bad80", "sm_80", "")},
      "/work/base.cubin", o);
  ASSERT_TRUE(sorted) << sorted.error().message;
  ASSERT_EQ(sorted->usable.size(), 2u);
  EXPECT_EQ(sorted->usable[0].id, "own");
  EXPECT_EQ(sorted->usable[0].reference, ""); // replays against its captured module
  EXPECT_EQ(sorted->usable[1].id, "good80");
  EXPECT_EQ(sorted->usable[1].reference, "/work/base.cubin");
  ASSERT_EQ(sorted->skipped.size(), 1u);
  EXPECT_EQ(sorted->skipped[0], "capture bad80 (recorded on sm_80): the original recompiled for sm_90 does not "
                                "reproduce its outputs: buffer 1 (y): 3 mismatches, max abs error 0.500000");
  auto calls = read_file(fake.dir + "/calls");
  ASSERT_TRUE(calls);
  EXPECT_NE(calls->find("--type 0=f32"), std::string::npos) << *calls; // compared as floats
}

TEST(ArchCaptures, BaselineIsBuiltOnlyWhenNeededAndReasonsAreKept) {
  FakeRunner fake;
  gpu::ReplayOptions o;
  o.runner.runner = fake.path();
  KernelTask t = task();
  int builds = 0;
  auto build = [&]() -> Expected<std::string> {
    ++builds;
    return std::string("/work/base.cubin");
  };
  auto own = usable_captures(t, {capture("own", "sm_90", t.kernel.hash)}, build, o);
  ASSERT_TRUE(own) << own.error().message;
  EXPECT_EQ(builds, 0);
  auto none = usable_captures(t, {capture("bad80", "sm_80", "")}, build, o);
  ASSERT_FALSE(none);
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(none.error().code, "no-captures");
  EXPECT_NE(none.error().message.find("no capture of saxpy is usable on sm_90; capture bad80 (recorded on sm_80)"),
            std::string::npos)
      << none.error().message;
  auto broken = usable_captures(
      t, {capture("good80", "sm_80", "")}, [] { return Expected<std::string>(make_error("error: x undeclared")); }, o);
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, "baseline-compile");
}

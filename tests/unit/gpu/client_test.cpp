// The host client against fake runners: kbcc must survive a runner that
// crashes, hangs or reports a fault, and parse a normal report.
#include "gpu/capture_format.h"
#include "gpu/harness.h"
#include "support/fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace kbcc::gpu;

namespace {

struct Fake {
  std::string dir = *kbcc::make_temp_dir("kbcc-fake-runner");
  ~Fake() { kbcc::remove_all(dir); }
  std::string script(const std::string &body) {
    std::string p = dir + "/runner";
    EXPECT_TRUE(kbcc::write_file_atomic(p, "#!/bin/sh\n" + body + "\n"));
    chmod(p.c_str(), 0755);
    return p;
  }
};

CaptureInfo capture() {
  CaptureInfo c;
  c.id = "0123";
  c.manifest = "/nonexistent/launches/0123.json";
  c.kernel = "_Z1kPf";
  return c;
}

} // namespace

TEST(Client, ParsesReplayReport) {
  Fake f;
  ReplayOptions o;
  o.runner.runner = f.script(
      R"(echo '{"kernel":"_Z1kPf","launched":true,"calibrated":true,"pass":false,"buffers":[)"
      R"({"index":0,"name":"param0","type":"f32","bytes":16,"written":true,"mismatches":2,"max_abs_error":0.5,)"
      R"("max_rel_error":0.25,"noise_abs":0,"tolerance":{"bitwise":false,"abs":0,"rel":0.0001},"pass":false}]}')");
  auto r = replay(capture(), "v.cubin", o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->launched);
  EXPECT_FALSE(r->pass);
  ASSERT_EQ(r->buffers.size(), 1u);
  EXPECT_EQ(r->buffers[0].mismatches, 2u);
  EXPECT_EQ(r->buffers[0].type, ElementType::F32);
  EXPECT_DOUBLE_EQ(r->buffers[0].tolerance.rel, 1e-4);
}

TEST(Client, CrashingRunnerIsAFailedReportNotACrash) {
  Fake f;
  ReplayOptions o;
  o.runner.runner = f.script("kill -SEGV $$");
  auto r = replay(capture(), "v.cubin", o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->pass);
  EXPECT_NE(r->error.find("signal"), std::string::npos) << r->error;
}

TEST(Client, HangingRunnerIsKilled) {
  Fake f;
  ReplayOptions o;
  o.runner.runner = f.script("sleep 30");
  o.runner.timeout = std::chrono::milliseconds(300);
  auto r = replay(capture(), "v.cubin", o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->pass);
  EXPECT_NE(r->error.find("timed out"), std::string::npos);
}

TEST(Client, FaultReportedByRunner) {
  Fake f;
  ReplayOptions o;
  o.runner.runner = f.script(
      R"(echo '{"kernel":"_Z1kPf","launched":false,"error":"kernel execution: CUDA_ERROR_ILLEGAL_ADDRESS"}'; exit 3)");
  auto v = validate(capture(), "v.cubin", {.replay = o, .fuzz_rounds = 0});
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_FALSE(v->pass);
  EXPECT_NE(v->reason.find("ILLEGAL_ADDRESS"), std::string::npos);
}

TEST(Client, NoGpuIsAnError) {
  Fake f;
  RunnerOptions o;
  o.runner = f.script(
      R"X(echo '{"error":"cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)","cuda":true}'; exit 3)X");
  auto d = device_info(o);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("NO_DEVICE"), std::string::npos);
}

TEST(Client, TimingComparisonFromRunner) {
  Fake f;
  TimingOptions o;
  o.runner.runner = f.script(R"(echo '{"kernel":"k","runs":[{"spec":"o","median_us":10,"spread_pct":1,"reps":50},)"
                             R"({"spec":"v","median_us":5,"spread_pct":1,"reps":50},)"
                             R"({"spec":"o","median_us":10.1,"spread_pct":1,"reps":50}]}')");
  auto c = compare_timing(capture(), "v.cubin", o);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->significant);
  EXPECT_NEAR(c->speedup, 2.01, 0.01);
}

TEST(Client, ReferenceReplacesTheCapturedModule) {
  Fake f;
  ReplayOptions o;
  o.runner.runner = f.script("echo \"$@\" > " + f.dir + "/args\n" +
                             R"(echo '{"kernel":"_Z1kPf","launched":true,"pass":true,"buffers":[],)"
                             R"("runs":[{"spec":"o","median_us":1,"reps":1}]}')");
  CaptureInfo c = capture();
  ASSERT_TRUE(replay(c, "", o));
  EXPECT_EQ(kbcc::read_file(f.dir + "/args")->find("--reference"), std::string::npos); // the captured module
  c.reference = "/work/ref.cubin";
  auto r = replay(c, "", o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->pass);
  EXPECT_EQ(*kbcc::read_file(f.dir + "/args"), "replay --capture /nonexistent/launches/0123.json --reference "
                                               "/work/ref.cubin --calibrate\n");
  TimingOptions t;
  t.runner = o.runner;
  ASSERT_TRUE(time_capture(c, "/work/v.cubin", t));
  EXPECT_NE(kbcc::read_file(f.dir + "/args")->find("--reference /work/ref.cubin --cubin /work/v.cubin"),
            std::string::npos)
      << *kbcc::read_file(f.dir + "/args");
}

TEST(Client, NotReplayableCaptureIsRefused) {
  CaptureInfo c = capture();
  c.replayable = false;
  c.not_replayable_reason = "pointers-in-buffers";
  auto r = replay(c, "", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("pointers-in-buffers"), std::string::npos);
}

TEST(Capture, NoCommandIsAnError) {
  CaptureOptions o;
  o.captures_dir = "/nonexistent";
  auto s = run_capture({}, o);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("no command given"), std::string::npos);
}

TEST(Capture, MissingLibraryIsNamed) {
  // The test binary has no libkbcc_capture.so beside it or in ../lib.
  if (capture_library_path()) GTEST_SKIP() << "a capture library is installed next to the test binary";
  CaptureOptions o;
  o.captures_dir = "/nonexistent";
  auto s = run_capture({"true"}, o);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("libkbcc_capture.so"), std::string::npos);
}

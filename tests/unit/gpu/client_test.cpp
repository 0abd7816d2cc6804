// The host client against fake runners: kbcc must survive a runner that
// crashes, hangs or reports a fault, and parse a normal report.
#include "gpu/capture_format.h"
#include "gpu/harness.h"
#include "gpu/session.h"
#include "support/fs.h"
#include "support/log.h"

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

// A fake `kbcc-gpu serve`: answers each request line by `body` (a shell
// case on the request), so the session's protocol handling can be tested.
TEST(Session, AnswersRequestsOverOneRunner) {
  Fake f;
  RunnerOptions o;
  o.runner = f.script(R"(while read -r line; do
  case "$line" in
    *'"op":"check"'*) echo '{"kernel":"_Z1kPf","launched":true,"pass":true,"replay_pass":true,"max_abs_error":0.001,"seconds":0.25,"buffers":[{"index":0,"pass":true,"tolerance":{"abs":0.01}}]}' ;;
    *'"op":"time"'*) echo '{"kernel":"_Z1kPf","seconds":0.5,"runs":[{"spec":"v","median_us":12.5,"reps":20}]}' ;;
  esac
done)");
  Session s(o);
  CaptureInfo c = capture();
  CheckRequest q;
  q.candidate = "v.cubin";
  q.shape = LaunchShape{{4, 1, 1}, {256, 1, 1}, 0};
  auto r = s.check(c, q);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->pass);
  EXPECT_DOUBLE_EQ(r->max_error, 0.001);
  EXPECT_DOUBLE_EQ(r->tolerance, 0.01);
  TimeRequest t;
  t.candidate = "v.cubin";
  auto timing = s.time(c, t);
  ASSERT_TRUE(timing) << timing.error().message;
  ASSERT_EQ(timing->size(), 1u);
  EXPECT_DOUBLE_EQ(timing->at(0).median_us, 12.5);
  EXPECT_DOUBLE_EQ(s.seconds(), 0.75);
  EXPECT_EQ(s.starts(), 1);
}

TEST(Session, ACrashFailsOneRequestAndTheNextStartsAFreshRunner) {
  Fake f;
  RunnerOptions o;
  // The first runner dies on its first request; later ones answer.
  std::string marker = f.dir + "/started";
  o.runner = f.script("if [ -e " + marker +
                      " ]; then while read -r line; do echo '{\"kernel\":\"k\",\"launched\":true,"
                      "\"pass\":true}'; done; else touch " +
                      marker + "; read -r line; echo oops >&2; kill -SEGV $$; fi");
  Session s(o);
  CheckRequest q;
  auto first = s.check(capture(), q);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->pass);
  EXPECT_NE(first->error.find("runner"), std::string::npos) << first->error;
  auto second = s.check(capture(), q);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE(second->pass);
  EXPECT_EQ(s.starts(), 2);
}

TEST(Session, AHungRunnerTimesOutAndIsReplaced) {
  Fake f;
  RunnerOptions o;
  o.timeout = std::chrono::milliseconds(300);
  o.runner = f.script("read -r line; sleep 30");
  Session s(o);
  auto r = s.check(capture(), CheckRequest{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->pass);
  EXPECT_NE(r->error.find("timed out"), std::string::npos) << r->error;
}

// The runner's watchdog: a candidate that never finishes is a failed check,
// the runner that gave it up is replaced, and kbcc's log says so.
TEST(Session, AKernelTheRunnerGaveUpFailsItsCheckAndTheRunnerIsReplaced) {
  Fake f;
  std::string log = f.dir + "/kbcc.log";
  kbcc::set_log_path(log);
  RunnerOptions o;
  std::string marker = f.dir + "/started";
  o.runner = f.script("if [ -e " + marker +
                      " ]; then while read -r line; do echo '{\"kernel\":\"k\",\"launched\":true,"
                      "\"pass\":true}'; done; else touch " +
                      marker +
                      "; read -r line; echo '{\"error\":\"kernel execution: still running after 1002 ms (the longest "
                      "finished: 0.150 ms)\",\"cuda\":true,\"fatal\":true,\"timed_out\":true}'; fi");
  Session s(o);
  auto hung = s.check(capture(), CheckRequest{});
  ASSERT_TRUE(hung) << hung.error().message;
  EXPECT_FALSE(hung->pass);
  EXPECT_NE(hung->reason.find("still running after 1002 ms"), std::string::npos) << hung->reason;
  auto next = s.check(capture(), CheckRequest{});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_TRUE(next->pass);
  EXPECT_EQ(s.starts(), 2);
  auto text = kbcc::read_file(log);
  kbcc::set_log_path("");
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("kbcc-gpu runner replaced: kernel execution: still running"), std::string::npos) << *text;
}

// Every request after a timing carries the longest launch timed for its
// capture, to every runner of the session: a fresh runner's watchdog then
// bounds its first launch too.
TEST(Session, RequestsCarryTheLongestLaunchTimedForTheirCapture) {
  Fake f;
  RunnerOptions o;
  std::string marker = f.dir + "/started";
  // The first runner answers a check (passing only when told 0.25 ms),
  // then a timing whose slowest run took 250 us, then exits; the second
  // answers checks the same way.
  std::string checks =
      R"(case "$line" in *'"expect_ms":0.25'*) echo '{"kernel":"k","launched":true,"pass":true}' ;; *) echo '{"kernel":"k","launched":true,"pass":false}' ;; esac)";
  o.runner = f.script(
      "if [ -e " + marker + " ]; then while read -r line; do " + checks + "; done; else touch " + marker +
      "; read -r line; " + checks +
      R"(; read -r line; echo '{"kernel":"k","seconds":0.1,"runs":[{"median_us":200,"max_us":250,"reps":5}]}'; fi)");
  Session s(o);
  auto before = s.check(capture(), CheckRequest{});
  ASSERT_TRUE(before) << before.error().message;
  EXPECT_FALSE(before->pass);
  auto timing = s.time(capture(), TimeRequest{});
  ASSERT_TRUE(timing) << timing.error().message;
  auto after = s.check(capture(), CheckRequest{});
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_FALSE(after->pass); // the first runner has exited: this request restarted it
  auto next = s.check(capture(), CheckRequest{});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_TRUE(next->pass);
  EXPECT_EQ(s.starts(), 2);
}

TEST(Session, FailuresAreDescribedFromTheFirstFailingBuffer) {
  Fake f;
  RunnerOptions o;
  o.runner = f.script(
      R"(while read -r line; do echo '{"kernel":"k","launched":true,"pass":false,"buffers":[{"index":0,"pass":true}],"fuzz":[{"pass":false,"buffers":[{"index":2,"name":"y","pass":false,"mismatches":7,"max_abs_error":0.5}]}]}'; done)");
  Session s(o);
  auto r = s.check(capture(), CheckRequest{});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->pass);
  EXPECT_EQ(r->reason.rfind("fuzzed inputs: buffer 2 (y): 7 mismatches", 0), 0u) << r->reason;
}

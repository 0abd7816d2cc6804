#include "support/process.h"

#include <gtest/gtest.h>

using namespace kbcc;

TEST(Process, CapturesOutputAndExitCode) {
  auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
}

TEST(Process, TimeoutKillsChild) {
  ProcessOptions o;
  o.timeout = std::chrono::milliseconds(200);
  auto r = run_process({"sh", "-c", "sleep 10"}, o);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed_out);
}

TEST(Process, StdinAndEnvironment) {
  ProcessOptions o;
  o.stdin_data = "hello";
  o.env_set["KBCC_TEST_VAR"] = "x1";
  auto r = run_process({"sh", "-c", "cat; echo $KBCC_TEST_VAR"}, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "hellox1\n");
}

TEST(Process, MissingProgramIsAnError) {
  auto r = run_process({"/nonexistent/kbcc-no-such-tool"});
  EXPECT_FALSE(r);
}

TEST(Process, ShellJoinQuotes) { EXPECT_EQ(shell_join({"a", "b c", "it's"}), "a 'b c' 'it'\\''s'"); }

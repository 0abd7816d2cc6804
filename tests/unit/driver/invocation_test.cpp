// Which first arguments make kbcc a launcher or a kbcc request (driver/invocation.h).
#include "driver/invocation.h"

#include <gtest/gtest.h>

using namespace kbcc::driver;

TEST(Invocation, CommandWordsAndHelpAreKbccRequests) {
  for (const char *a : {"stats", "cache", "kb", "--help", "-h", "help", "--kbcc-version"})
    EXPECT_TRUE(is_kbcc_request(a)) << a;
  for (const char *a : {"-c", "kernel.cu", "-arch=sm_90", "/usr/bin/nvcc", "Stats", "--version", "a.o"})
    EXPECT_FALSE(is_kbcc_request(a)) << a;
}

TEST(Invocation, LauncherArguments) {
  EXPECT_TRUE(is_launcher_argument("nvcc"));
  EXPECT_TRUE(is_launcher_argument("nvcc-13"));
  EXPECT_FALSE(is_launcher_argument("nvcc_kernels.cu"));
  EXPECT_FALSE(is_launcher_argument("-c"));
}

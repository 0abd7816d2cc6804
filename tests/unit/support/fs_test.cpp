#include "support/fs.h"

#include <gtest/gtest.h>

using namespace kbcc;

TEST(Fs, RemoveOnExitRemovesTheTreeAndNothingForAnEmptyPath) {
  auto dir = make_temp_dir("kbcc-fs-test");
  ASSERT_TRUE(dir) << dir.error().message;
  ASSERT_TRUE(write_file_atomic(*dir + "/a.txt", "a"));
  {
    RemoveOnExit remove(*dir);
    RemoveOnExit nothing("");
    EXPECT_TRUE(file_exists(*dir + "/a.txt"));
  }
  EXPECT_FALSE(file_exists(*dir));
}

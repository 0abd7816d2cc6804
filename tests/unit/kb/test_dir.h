// A fresh KBCC_DIR per test, removed afterwards.
#pragma once

#include "support/fs.h"

#include <gtest/gtest.h>
#include <string>

namespace kbcc::kb::test {

class TempDir {
public:
  TempDir() {
    auto d = make_temp_dir("kbcc-kb-test");
    EXPECT_TRUE(d.has_value());
    path_ = d ? *d : std::string("/tmp/kbcc-kb-test-fallback");
  }
  ~TempDir() { remove_all(path_); }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace kbcc::kb::test

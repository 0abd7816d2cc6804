// A fresh KBCC_DIR per test, removed afterwards.
#pragma once

#include "support/fs.h"

#include <gtest/gtest.h>
#include <string>

namespace kbcc::cache::test {

class TempDir {
public:
  TempDir() {
    auto d = make_temp_dir("kbcc-cache-test");
    EXPECT_TRUE(d.has_value());
    path_ = d ? *d : std::string("/tmp/kbcc-cache-test-fallback");
  }
  ~TempDir() { remove_all(path_); }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace kbcc::cache::test

#include "support/fs.h"
#include "tooling/extract_cache.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::tooling;

namespace {

class ExtractCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = *make_temp_dir("kbcc-extract-cache-test");
    ASSERT_TRUE(write_file_atomic(dir_ + "/src/unit.cu", "#include \"h.h\"\n__global__ void k() {}\n"));
    ASSERT_TRUE(write_file_atomic(dir_ + "/src/h.h", "#define N 1\n"));
    request_.source = dir_ + "/src/unit.cu";
    request_.arch = "sm_80";
    request_.toolchain = "nvcc 13.0";
    request_.shim_dir = dir_ + "/shims";
    extraction_.source_path = request_.source;
    extraction_.arch = "sm_80";
    extraction_.included_files = {dir_ + "/src/unit.cu", dir_ + "/src/h.h"};
    Kernel k;
    k.qualified_name = "k";
    k.hash = "0123456789abcdef0123456789abcdef";
    extraction_.kernels.push_back(k);
  }
  void TearDown() override { remove_all(dir_); }

  std::string dir_;
  ParseRequest request_;
  Extraction extraction_;
};

} // namespace

TEST_F(ExtractCacheTest, MissThenHitWithSameResult) {
  ExtractCache cache(dir_ + "/extract");
  EXPECT_FALSE(cache.lookup(request_));
  ASSERT_TRUE(cache.store(request_, extraction_));
  auto hit = cache.lookup(request_);
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->from_cache);
  ASSERT_EQ(hit->kernels.size(), 1u);
  EXPECT_EQ(hit->kernels[0].hash, extraction_.kernels[0].hash);
}

TEST_F(ExtractCacheTest, ChangedIncludeIsAMissAndRestoringItHitsAgain) {
  ExtractCache cache(dir_ + "/extract");
  ASSERT_TRUE(cache.store(request_, extraction_));
  ASSERT_TRUE(write_file_atomic(dir_ + "/src/h.h", "#define N 2\n"));
  EXPECT_FALSE(cache.lookup(request_));
  ASSERT_TRUE(write_file_atomic(dir_ + "/src/h.h", "#define N 1\n"));
  EXPECT_TRUE(cache.lookup(request_));
}

TEST_F(ExtractCacheTest, KeyCoversSourceArchFlagsAndToolchain) {
  ExtractCache cache(dir_ + "/extract");
  std::string k0 = *cache.key(request_);
  ParseRequest r = request_;
  r.arch = "sm_90";
  EXPECT_NE(*cache.key(r), k0);
  r = request_;
  r.flags = {"-DX=1"};
  EXPECT_NE(*cache.key(r), k0);
  r = request_;
  r.toolchain = "nvcc 13.1";
  EXPECT_NE(*cache.key(r), k0);
  ASSERT_TRUE(write_file_atomic(dir_ + "/src/unit.cu", "#include \"h.h\"\n__global__ void k() { }\n"));
  EXPECT_NE(*cache.key(request_), k0);
}

TEST_F(ExtractCacheTest, DeletedIncludeOrCorruptEntryIsAMiss) {
  ExtractCache cache(dir_ + "/extract");
  ASSERT_TRUE(cache.store(request_, extraction_));
  std::string key = *cache.key(request_);
  std::string entry = dir_ + "/extract/" + key.substr(0, 2) + "/" + key + ".json";
  ASSERT_TRUE(file_exists(entry));
  ASSERT_TRUE(write_file_atomic(entry, "{ not json"));
  EXPECT_FALSE(cache.lookup(request_));
  ASSERT_TRUE(cache.store(request_, extraction_));
  EXPECT_TRUE(cache.lookup(request_));
  std::filesystem::remove(dir_ + "/src/h.h");
  EXPECT_FALSE(cache.lookup(request_));
}

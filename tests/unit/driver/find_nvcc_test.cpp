#include "driver/find_nvcc.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace kbcc::driver;
namespace fs = std::filesystem;

namespace {

class FindNvcc : public ::testing::Test {
protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("kbcc-find-nvcc-" + std::to_string(getpid()));
    fs::remove_all(root);
    for (const char *d : {"home/bin", "path1", "path2", "launcher", "self"})
      fs::create_directories(root / d);
    self = make_exe("self/kbcc");
  }
  void TearDown() override { fs::remove_all(root); }
  std::string make_exe(const std::string &rel) {
    std::ofstream(root / rel) << "#!/bin/sh\n";
    fs::permissions(root / rel, fs::perms::owner_all);
    return (root / rel).string();
  }
  NvccSearch search() {
    NvccSearch s;
    s.self_exe = self;
    return s;
  }
  fs::path root;
  std::string self;
};

} // namespace

TEST_F(FindNvcc, OrderIsConfiguredLauncherCudaHomePath) {
  std::string configured = make_exe("configured-nvcc");
  std::string launcher = make_exe("launcher/nvcc");
  std::string home = make_exe("home/bin/nvcc");
  std::string in_path = make_exe("path2/nvcc");
  NvccSearch s = search();
  s.configured = configured, s.launcher = launcher, s.cuda_home = (root / "home").string();
  s.path = (root / "path1").string() + ":" + (root / "path2").string();
  EXPECT_EQ(*find_nvcc(s), configured);
  s.configured.clear();
  EXPECT_EQ(*find_nvcc(s), launcher);
  s.launcher.clear();
  EXPECT_EQ(*find_nvcc(s), home);
  s.cuda_home.clear();
  EXPECT_EQ(*find_nvcc(s), in_path);
}

TEST_F(FindNvcc, NeverPicksItselfThroughASymlink) {
  fs::create_symlink(self, root / "path1/nvcc");
  std::string real = make_exe("path2/nvcc");
  NvccSearch s = search();
  s.path = (root / "path1").string() + ":" + (root / "path2").string();
  EXPECT_EQ(*find_nvcc(s), real);
  EXPECT_TRUE(is_same_executable((root / "path1/nvcc").string(), self));
  EXPECT_FALSE(is_same_executable(real, self));
  fs::remove(real);
  auto none = find_nvcc(s);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("is kbcc itself"), std::string::npos);
}

TEST_F(FindNvcc, LauncherNameWithoutDirectoryIsSearchedInPath) {
  std::string in_path = make_exe("path1/nvcc-13");
  NvccSearch s = search();
  s.launcher = "nvcc-13";
  s.path = (root / "path1").string();
  EXPECT_EQ(*find_nvcc(s), in_path);
}

TEST_F(FindNvcc, ErrorNamesEveryPlace) {
  NvccSearch s = search();
  s.configured = (root / "missing-nvcc").string();
  s.cuda_home = (root / "home").string();
  s.path = (root / "path1").string();
  auto r = find_nvcc(s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "no-nvcc");
  for (const char *place : {"KBCC_NVCC", "launcher argument", "$CUDA_HOME/bin/nvcc", "PATH"})
    EXPECT_NE(r.error().message.find(place), std::string::npos) << place << "\n" << r.error().message;
  EXPECT_NE(r.error().message.find("missing-nvcc"), std::string::npos);
}

TEST_F(FindNvcc, NeverPicksTheOtherKbccExecutable) {
  // kbcc-full, looking for nvcc, must not take a symlink named nvcc that
  // points at kbcc (which would hand the compile back to it).
  std::string full = make_exe("self/kbcc-full");
  fs::create_symlink(self, root / "path1/nvcc");
  std::string real = make_exe("path2/nvcc");
  NvccSearch s = search();
  s.self_exe = full;
  s.sibling_exe = sibling_executable(full);
  EXPECT_EQ(s.sibling_exe, self);
  s.path = (root / "path1").string() + ":" + (root / "path2").string();
  EXPECT_EQ(*find_nvcc(s), real);
  EXPECT_EQ(sibling_executable(self), full);
  EXPECT_EQ(sibling_executable("/usr/bin/nvcc"), "");
}

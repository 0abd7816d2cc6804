#include "support/fs.h"
#include "tooling/host_compiler.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace kbcc;
using namespace kbcc::tooling;

TEST(HostCompiler, ParsesGccSearchList) {
  std::string v = "ignoring nonexistent directory \"/usr/local/include/x86_64-linux-gnu\"\n"
                  "#include \"...\" search starts here:\n"
                  "#include <...> search starts here:\n"
                  " /usr/include/c++/12\n"
                  " /usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward\n"
                  " /usr/lib/gcc/x86_64-linux-gnu/12/include\n"
                  " /Library/Frameworks (framework directory)\n"
                  "End of search list.\n"
                  " /not/a/dir\n";
  EXPECT_EQ(parse_search_list(v),
            (std::vector<std::string>{"/usr/include/c++/12", "/usr/include/c++/12/backward",
                                      "/usr/lib/gcc/x86_64-linux-gnu/12/include", "/Library/Frameworks"}));
  EXPECT_TRUE(parse_search_list("no list here\n").empty());
}

TEST(HostCompiler, ResolvesCcbinLikeNvcc) {
  auto dir = make_temp_dir("kbcc-ccbin");
  ASSERT_TRUE(dir);
  std::string gcc = *dir + "/gcc";
  std::ofstream(gcc) << "#!/bin/sh\n";
  ::chmod(gcc.c_str(), 0755);
  EXPECT_EQ(resolve_host_compiler(*dir), real_path(gcc)); // a directory: its gcc
  EXPECT_EQ(resolve_host_compiler(gcc), real_path(gcc));
  EXPECT_EQ(resolve_host_compiler(*dir + "/missing"), "");
  EXPECT_EQ(resolve_host_compiler("kbcc-no-such-compiler"), "");
  remove_all(*dir);
}

TEST(HostCompiler, AsksOnceAndCaches) {
  auto dir = make_temp_dir("kbcc-host-inc");
  ASSERT_TRUE(dir);
  std::string cc = *dir + "/fakecc", log = *dir + "/calls";
  std::ofstream(cc) << "#!/bin/sh\necho call >> " << log << "\necho '#include <...> search starts here:' >&2\necho ' "
                    << *dir << "/inc' >&2\necho 'End of search list.' >&2\n";
  ::chmod(cc.c_str(), 0755);
  auto first = host_include_dirs(cc, *dir + "/cache");
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(*first, std::vector<std::string>{*dir + "/inc"});
  auto second = host_include_dirs(cc, *dir + "/cache");
  ASSERT_TRUE(second);
  EXPECT_EQ(*second, *first);
  EXPECT_EQ(*read_file(log), "call\n");
  EXPECT_FALSE(host_include_dirs("", *dir + "/cache"));
  remove_all(*dir);
}

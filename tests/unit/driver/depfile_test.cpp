#include "driver/depfile.h"

#include <gtest/gtest.h>

using namespace kbcc::driver;

TEST(Depfile, NamesTheUsersSourceNotTheTemporary) {
  std::string text = "obj/a.o : /tmp/kbcc-0/abc/a.cu \\\n    /usr/include/stdio.h \\\n    src/h.h \\\n"
                     "    /tmp/kbcc-0/abc/local.h\n";
  std::string fixed = rewrite_depfile_text(text, "/tmp/kbcc-0/abc/a.cu", "src/a.cu", "/tmp/kbcc-0/abc", "src");
  EXPECT_EQ(fixed, "obj/a.o : src/a.cu \\\n    /usr/include/stdio.h \\\n    src/h.h \\\n    src/local.h\n");
  EXPECT_EQ(fixed.find("/tmp/kbcc"), std::string::npos);
}

TEST(Depfile, SourceInTheCurrentDirectory) {
  std::string fixed =
      rewrite_depfile_text("a.o : /tmp/kbcc-0/h/a.cu\n", "/tmp/kbcc-0/h/a.cu", "a.cu", "/tmp/kbcc-0/h", "");
  EXPECT_EQ(fixed, "a.o : a.cu\n");
}

TEST(Depfile, EscapedPaths) {
  EXPECT_EQ(escape_depfile_path("my dir/a#1$.cu"), "my\\ dir/a\\#1$$.cu");
  std::string fixed = rewrite_depfile_text("a.o : /tmp/kbcc-0/h/my\\ a.cu\n", "/tmp/kbcc-0/h/my a.cu", "my dir/my a.cu",
                                           "/tmp/kbcc-0/h", "my dir");
  EXPECT_EQ(fixed, "a.o : my\\ dir/my\\ a.cu\n");
}

TEST(Depfile, DropsLineDirectiveNames) {
  std::string text =
      "obj.o : src/a.cu \\\n    /usr/include/stdio.h \\\n    /abs/src/a.cu \\\n    src/local.h \\\n"
      "    kbcc-variant-0123\n\n/usr/include/stdio.h:\n\n/abs/src/a.cu:\n\nsrc/local.h:\n\nkbcc-variant-0123:\n";
  std::string fixed = drop_depfile_entries(text, {"kbcc-variant-0123", "/abs/src/a.cu"});
  EXPECT_EQ(fixed, "obj.o : src/a.cu \\\n    /usr/include/stdio.h \\\n    src/local.h\n\n/usr/include/stdio.h:\n\n"
                   "src/local.h:\n");
  EXPECT_EQ(drop_depfile_entries("a.o : a.cu\n", {"kbcc-variant-1"}), "a.o : a.cu\n");
}

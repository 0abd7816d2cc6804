#include "support/config.h"
#include "support/fs.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace kbcc;

TEST(Config, ParseSize) {
  EXPECT_EQ(*parse_size("1024"), 1024u);
  EXPECT_EQ(*parse_size("5G"), 5ull << 30);
  EXPECT_EQ(*parse_size("512M"), 512ull << 20);
  EXPECT_FALSE(parse_size("lots"));
  EXPECT_FALSE(parse_size("5Q"));
}

TEST(Config, FileThenEnvironment) {
  auto dir = make_temp_dir("kbcc-config-test");
  ASSERT_TRUE(dir);
  ASSERT_TRUE(write_file_atomic(*dir + "/kbcc.conf", "# comment\nmax_size = 2G\nstrict = true\n"));
  setenv("KBCC_DIR", dir->c_str(), 1);
  setenv("KBCC_STRICT", "0", 1);
  auto c = Config::load();
  unsetenv("KBCC_STRICT");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->get_size("max_size"), 2ull << 30);
  EXPECT_EQ(c->origin("max_size"), "file:" + *dir + "/kbcc.conf:2");
  EXPECT_FALSE(c->get_bool("strict"));
  EXPECT_EQ(c->get("log"), *dir + "/kbcc.log");
  remove_all(*dir);
  unsetenv("KBCC_DIR");
}

TEST(Config, UnknownKeyNamesFileAndLine) {
  auto dir = make_temp_dir("kbcc-config-test");
  ASSERT_TRUE(dir);
  ASSERT_TRUE(write_file_atomic(*dir + "/kbcc.conf", "max_size = 1G\nmax_szie = 2G\n"));
  setenv("KBCC_DIR", dir->c_str(), 1);
  auto c = Config::load();
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("kbcc.conf:2: unknown key 'max_szie'"), std::string::npos) << c.error().message;
  remove_all(*dir);
  unsetenv("KBCC_DIR");
}

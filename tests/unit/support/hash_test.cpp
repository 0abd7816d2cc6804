#include "support/hash.h"

#include <gtest/gtest.h>

using namespace kbcc;

TEST(Hash, HexIs32LowercaseChars) {
  std::string h = hash_hex("abc");
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(Hash, IncrementalMatchesOneShot) {
  Hasher h;
  h.update("ab");
  h.update("c");
  EXPECT_EQ(h.hex(), hash_hex("abc"));
}

TEST(Hash, FieldsAreLengthPrefixed) {
  Hasher a, b;
  a.field("ab");
  a.field("c");
  b.field("a");
  b.field("bc");
  EXPECT_NE(a.hex(), b.hex());
}

#include "gpu/analysis.h"

#include <gtest/gtest.h>

using kbcc::gpu::mangled_pointee_types;
using V = std::vector<std::string>;

// Names as nvcc 13 emits them (readelf of a cubin), see c++filt for the types.
TEST(Mangled, PlainFunction) {
  EXPECT_EQ(mangled_pointee_types("_Z5saxpyifPKfPf"), (V{"", "", "const float", "float"}));
}

TEST(Mangled, Substitutions) {
  EXPECT_EQ(mangled_pointee_types("_Z3twoPfS_PyS0_"),
            (V{"float", "float", "unsigned long long", "unsigned long long"}));
  EXPECT_EQ(mangled_pointee_types("_ZN2ns1hEPK6__halfPS0_iPdPKi"),
            (V{"const __half", "__half", "", "double", "const int"}));
}

TEST(Mangled, TemplatesAndStructs) {
  EXPECT_EQ(mangled_pointee_types("_ZN2ns5scaleIfLi3EEEvPKT_PS1_1PS1_"), (V{"const float", "float", "", ""}));
  EXPECT_EQ(mangled_pointee_types("_ZN2ns5scaleIdLi3EEEvPKT_PS1_1PS1_"), (V{"const double", "double", "", ""}));
  EXPECT_EQ(mangled_pointee_types("_Z5scaleIfEv4PairT_"), (V{"", ""}));
}

TEST(Mangled, NotMangled) {
  EXPECT_TRUE(mangled_pointee_types("saxpy").empty());
  EXPECT_TRUE(mangled_pointee_types("_Z5sa").empty());
}

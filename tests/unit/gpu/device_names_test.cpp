#include "gpu/device_names.h"

#include <gtest/gtest.h>

using kbcc::gpu::file_keyed_name;
using kbcc::gpu::has_unit_component;
using kbcc::gpu::unit_file_part;
using kbcc::gpu::unit_free_name;

// Names as nvcc 13 emits them for /tmp/anon/a.cu and my-file.v2.cu
// (strings of the object; the tag is the CRC-32 of `_Z3runPfi`, the unit's
// first external function), and as clang mangles the same declarations.
constexpr const char *kNvcc = "_ZN36_GLOBAL__N__9b914f75_4_a_cu_d1dbb2e05scaleEPffi";
constexpr const char *kNvccOther = "_ZN36_GLOBAL__N__70a17d57_4_a_cu_d1dbb2e05scaleEPffi"; // another path
constexpr const char *kClang = "_ZN12_GLOBAL__N_15scaleEPffi";

TEST(DeviceNames, FileKeyedFormIsTheSameForEveryPathOfAFile) {
  EXPECT_EQ(file_keyed_name(kNvcc), "_ZN18_GLOBAL__N__4_a_cu5scaleEPffi");
  EXPECT_EQ(file_keyed_name(kNvccOther), file_keyed_name(kNvcc));
  EXPECT_EQ(file_keyed_name(kClang, "/src/app/a.cu"), file_keyed_name(kNvcc));
  EXPECT_EQ(file_keyed_name(file_keyed_name(kNvcc)), file_keyed_name(kNvcc)); // idempotent
  EXPECT_NE(file_keyed_name(kClang, "/src/app/b.cu"), file_keyed_name(kNvcc));
}

TEST(DeviceNames, FilePartAsNvccWritesIt) {
  EXPECT_EQ(unit_file_part("/x/my-file.v2.cu"), "my_file_v2_cu");
  EXPECT_EQ(unit_file_part("sp ace.cu"), "sp_ace_cu");
  EXPECT_EQ(file_keyed_name("_ZN46_GLOBAL__N__eb10ad70_13_my_file_v2_cu_d1dbb2e05scaleEPffi"),
            file_keyed_name(kClang, "dir/my-file.v2.cu"));
}

TEST(DeviceNames, NestedNamespacesAndTemplates) {
  // namespace outer { namespace { template <class T> __global__ void add(T *, int); } }
  const char *nvcc = "_ZN5outer36_GLOBAL__N__9b914f75_4_a_cu_d1dbb2e03addIfEEvPT_i";
  const char *clang = "_ZN5outer12_GLOBAL__N_13addIfEEvPT_i";
  EXPECT_EQ(file_keyed_name(nvcc), file_keyed_name(clang, "a.cu"));
  EXPECT_EQ(unit_free_name(nvcc), clang);
  // An enclosing namespace whose name ends in digits: `outer2`.
  EXPECT_EQ(unit_free_name("_ZN6outer236_GLOBAL__N__9b914f75_4_a_cu_d1dbb2e01kEv"), "_ZN6outer212_GLOBAL__N_11kEv");
}

// A unit whose first external function is `main` has the tag `main`; a
// variable of the namespace is also given an `_INTERNAL_` prefix (readelf of
// the cubin of tests/gpu_apps/anonymous.cu).
TEST(DeviceNames, TagsAndInternalPrefixes) {
  const char *kernel = "_ZN41_GLOBAL__N__117cdd86_12_anonymous_cu_main8row_sumsEiiPKfPf";
  EXPECT_EQ(file_keyed_name(kernel), "_ZN27_GLOBAL__N__12_anonymous_cu8row_sumsEiiPKfPf");
  EXPECT_EQ(file_keyed_name(kernel), file_keyed_name("_ZN12_GLOBAL__N_18row_sumsEiiPKfPf", "tests/anonymous.cu"));
  const char *gain = "_ZN39_INTERNAL_117cdd86_12_anonymous_cu_main41_GLOBAL__N__117cdd86_12_anonymous_cu_main5kGainE";
  const char *other = "_ZN39_INTERNAL_00c0ffee_12_anonymous_cu_main41_GLOBAL__N__00c0ffee_12_anonymous_cu_main5kGainE";
  EXPECT_EQ(unit_free_name(gain), "_ZN11_INTERNAL_112_GLOBAL__N_15kGainE");
  EXPECT_EQ(unit_free_name(other), unit_free_name(gain));
  EXPECT_EQ(file_keyed_name(gain), "_ZN26_INTERNAL__12_anonymous_cu27_GLOBAL__N__12_anonymous_cu5kGainE");
  EXPECT_EQ(unit_free_name(file_keyed_name(gain)), unit_free_name(gain));
  EXPECT_TRUE(has_unit_component(gain));
}

TEST(DeviceNames, UnitFreeFormFindsAKernelInAnyModule) {
  EXPECT_EQ(unit_free_name(kNvcc), kClang);
  EXPECT_EQ(unit_free_name(kNvccOther), kClang);
  EXPECT_EQ(unit_free_name(file_keyed_name(kNvcc)), kClang);
  // A module variable in the namespace: `namespace { __constant__ float gain[4]; }`.
  EXPECT_EQ(unit_free_name("_ZN36_GLOBAL__N__9b914f75_4_a_cu_d1dbb2e04gainE"), "_ZN12_GLOBAL__N_14gainE");
}

TEST(DeviceNames, OtherNamesAreLeftAlone) {
  for (const char *n : {"_Z5saxpyifPKfPf", "_ZN2ns1hEPfi", "saxpy", "_Z11_GLOBAL__N_", "_ZN10_GLOBAL__N_x1kEv"}) {
    EXPECT_EQ(file_keyed_name(n), n);
    EXPECT_EQ(unit_free_name(n), n);
    EXPECT_FALSE(has_unit_component(n)) << n;
  }
  EXPECT_TRUE(has_unit_component(kNvcc));
  EXPECT_TRUE(has_unit_component(kClang));
  EXPECT_EQ(file_keyed_name(kClang), kClang); // no unit path: nothing to key it with
}

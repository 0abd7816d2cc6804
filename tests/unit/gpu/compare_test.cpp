#include "gpu/analysis.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace kbcc::gpu;

namespace {

template <class T> std::string bytes_of(std::vector<T> v) {
  return std::string(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));
}

BufferReport report(ElementType t, Tolerance tol) {
  BufferReport r;
  r.type = t;
  r.tolerance = tol;
  return r;
}

} // namespace

TEST(ElementTypes, NamesFromSignatures) {
  EXPECT_EQ(element_type_from_name("const float"), ElementType::F32);
  EXPECT_EQ(element_type_from_name("unsigned int"), ElementType::U32);
  EXPECT_EQ(element_type_from_name("__half"), ElementType::F16);
  EXPECT_EQ(element_type_from_name("__nv_bfloat16"), ElementType::BF16);
  EXPECT_EQ(element_type_from_name("struct Foo"), ElementType::Bytes);
  EXPECT_EQ(element_size(ElementType::F64), 8u);
  EXPECT_STREQ(element_type_name(ElementType::BF16), "bf16");
}

TEST(Compare, IntegersAreBitwise) {
  auto ref = bytes_of<int>({1, 2, 3, 4});
  auto out = bytes_of<int>({1, 2, 4, 4});
  auto r = report(ElementType::I32, tolerance_for(ElementType::I32, 0, 4));
  compare_buffer(ref, out, r);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 1u);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 1);
  compare_buffer(ref, ref, r);
  EXPECT_TRUE(r.pass);
}

TEST(Compare, FloatsWithinTypeTolerancePass) {
  auto ref = bytes_of<float>({1.0f, 100.0f, -3.0f});
  auto out = bytes_of<float>({1.00001f, 100.001f, -3.0f});
  auto r = report(ElementType::F32, tolerance_for(ElementType::F32, 0, 100));
  compare_buffer(ref, out, r);
  EXPECT_TRUE(r.pass) << r.mismatches;
  EXPECT_GT(r.max_abs_error, 0);
  auto bad = bytes_of<float>({1.0f, 101.0f, -3.0f});
  compare_buffer(ref, bad, r);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 1u);
}

// Buffers of several million elements are compared in parts on several
// threads; what each part finds is added up.
TEST(Compare, LargeBuffersCountEveryPart) {
  std::vector<float> values(5'000'000);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i % 1000) - 500.0f;
  values[4'999'998] = 1000.0f;
  auto ref = bytes_of<float>(values);
  auto r = report(ElementType::F32, tolerance_for(ElementType::F32, 0, 1000));
  EXPECT_EQ(max_abs_value(ElementType::F32, ref), 1000.0);
  compare_buffer(ref, ref, r);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.max_abs_error, 0);
  values[3] += 2.0f;           // a mismatch in the first part
  values[2'600'000] = NAN;     // one in a middle part
  values[4'999'999] += 1e-6f;  // within tolerance, in the last part
  values[4'999'998] = 1003.0f; // the largest error, in the last part
  compare_buffer(ref, bytes_of<float>(values), r);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 3u);
  EXPECT_EQ(r.nan_mismatches, 1u);
  EXPECT_EQ(r.max_abs_error, 3.0);
}

TEST(Compare, NanOnlyMatchesNan) {
  auto ref = bytes_of<float>({NAN, 1.0f});
  auto same = bytes_of<float>({NAN, 1.0f});
  auto r = report(ElementType::F32, tolerance_for(ElementType::F32, 0, 1));
  compare_buffer(ref, same, r);
  EXPECT_TRUE(r.pass);
  auto notnan = bytes_of<float>({0.0f, 1.0f});
  compare_buffer(ref, notnan, r);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.nan_mismatches, 1u);
}

TEST(Compare, HalfAndBfloat16Values) {
  uint16_t h = 0x3c00, b = 0x3f80; // 1.0 in both formats
  EXPECT_DOUBLE_EQ(element_value(ElementType::F16, reinterpret_cast<const char *>(&h), 0), 1.0);
  EXPECT_DOUBLE_EQ(element_value(ElementType::BF16, reinterpret_cast<const char *>(&b), 0), 1.0);
}

TEST(Tolerance, NoiseWidensFloatAndIntegerTolerance) {
  Tolerance quiet = tolerance_for(ElementType::F32, 0, 10);
  Tolerance noisy = tolerance_for(ElementType::F32, 0.5, 10);
  EXPECT_FALSE(quiet.bitwise);
  EXPECT_GE(noisy.abs, 1.0);
  EXPECT_GT(noisy.abs, quiet.abs);
  EXPECT_TRUE(tolerance_for(ElementType::I32, 0, 10).bitwise);
  EXPECT_FALSE(tolerance_for(ElementType::I32, 2, 10).bitwise);
  EXPECT_GT(tolerance_for(ElementType::F16, 0, 1).rel, tolerance_for(ElementType::F32, 0, 1).rel);
}

TEST(Compare, NoiseMeasurement) {
  auto a = bytes_of<double>({1.0, 2.0, 3.0});
  auto b = bytes_of<double>({1.0, 2.25, 3.0});
  EXPECT_DOUBLE_EQ(max_abs_difference(ElementType::F64, a, b), 0.25);
  EXPECT_DOUBLE_EQ(max_abs_difference(ElementType::F64, a, a), 0);
  EXPECT_DOUBLE_EQ(max_abs_value(ElementType::F64, a), 3.0);
}

TEST(Timing, MedianQuartilesAndSpread) {
  TimingStats t = summarize({5, 1, 4, 2, 3}, true);
  EXPECT_DOUBLE_EQ(t.median_us, 3);
  EXPECT_DOUBLE_EQ(t.p25_us, 2);
  EXPECT_DOUBLE_EQ(t.p75_us, 4);
  EXPECT_DOUBLE_EQ(t.spread_pct, 2.0 / 3 * 100);
  EXPECT_EQ(t.reps, 5u);
  EXPECT_TRUE(t.l2_flushed);
}

TEST(Timing, SpeedupOnlyBeyondNoise) {
  TimingComparison c;
  c.original_a = summarize({10, 10, 10}, true);
  c.original_b = summarize({10.2, 10.2, 10.2}, true);
  c.variant = summarize({9.9, 9.9, 9.9}, true);
  judge_speedup(c);
  EXPECT_FALSE(c.significant); // 1% faster, 2% noise
  c.variant = summarize({5, 5, 5}, true);
  judge_speedup(c);
  EXPECT_TRUE(c.significant);
  EXPECT_NEAR(c.speedup, 2.02, 0.01);
}

TEST(Reassociation, BoundIsTwoGammaNTimesTheMagnitude) {
  // A cancelling sum: the result is ~0, its magnitude sum|x| is large.
  auto magnitude = bytes_of<float>({1024.0f, 0.0f});
  auto bound = reassociation_bound(ElementType::F32, magnitude, 1024);
  ASSERT_EQ(bound.size(), 2u);
  double u = std::ldexp(1.0, -24), gamma = 1024 * u / (1 - 1024 * u);
  EXPECT_DOUBLE_EQ(bound[0], 2 * gamma * 1024);
  EXPECT_EQ(bound[1], 0);
  EXPECT_TRUE(reassociation_bound(ElementType::I32, bytes_of<int>({5}), 1024).empty());
  EXPECT_TRUE(reassociation_bound(ElementType::F32, magnitude, 0).empty());
}

TEST(Reassociation, WidensOnlyTheElementsItCovers) {
  auto ref = bytes_of<float>({0.0f, 0.0f});
  auto out = bytes_of<float>({1e-4f, 1e-4f});
  auto r = report(ElementType::F32, tolerance_for(ElementType::F32, 0, 0));
  compare_buffer(ref, out, r);
  EXPECT_EQ(r.mismatches, 2u);
  std::vector<double> extra = {2e-4, 0};
  compare_buffer(ref, out, r, &extra);
  EXPECT_EQ(r.mismatches, 1u);
}

TEST(Fuzz, PerturbedFloatsStayWithinTheScaleAndRepeat) {
  // Enough elements to be split across host threads (parts of 2^20).
  std::vector<float> v(3u << 20);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 1.0f + static_cast<float>(i % 7);
  v[5] = NAN, v[6] = INFINITY;
  std::string in = bytes_of(v);
  std::string a = perturbed(ElementType::F32, in, 42, 0.25), b = perturbed(ElementType::F32, in, 42, 0.25);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, perturbed(ElementType::F32, in, 43, 0.25));
  std::vector<float> out(v.size());
  std::memcpy(out.data(), a.data(), a.size());
  size_t changed = 0;
  double lo = 1, hi = -1;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) continue;
    double r = (out[i] - v[i]) / v[i];
    lo = std::min(lo, r), hi = std::max(hi, r);
    changed += out[i] != v[i];
    ASSERT_LE(std::abs(out[i] - v[i]), 0.25 * std::abs(v[i]) + 0.25e-3 + 1e-6) << i;
  }
  EXPECT_TRUE(std::isnan(out[5]));
  EXPECT_EQ(out[6], INFINITY);
  EXPECT_GT(changed, v.size() * 99 / 100);
  EXPECT_LT(lo, -0.2); // the factor spans most of [0.75, 1.25]
  EXPECT_GT(hi, 0.2);
}

TEST(Fuzz, PerturbedLeavesIntegersAndBytesAlone) {
  auto i = bytes_of<int>({1, -2, 3});
  EXPECT_EQ(perturbed(ElementType::I32, i, 1, 0.25), i);
  EXPECT_EQ(perturbed(ElementType::Bytes, "abc", 1, 0.25), "abc");
  auto d = perturbed(ElementType::F64, bytes_of<double>({2.0}), 1, 0.25);
  double x;
  std::memcpy(&x, d.data(), 8);
  EXPECT_NE(x, 2.0);
  EXPECT_NEAR(x, 2.0, 0.5 + 1e-3);
}

TEST(Reassociation, AbsoluteValuesClearTheSignOfFloatsOnly) {
  auto f = absolute_values(ElementType::F32, bytes_of<float>({-1.5f, 2.0f, -0.0f}));
  float v[3];
  std::memcpy(v, f.data(), sizeof v);
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], 2.0f);
  EXPECT_FALSE(std::signbit(v[2]));
  auto i = bytes_of<int>({-3});
  EXPECT_EQ(absolute_values(ElementType::I32, i), i);
  auto h = absolute_values(ElementType::F16, std::string("\x00\xbc", 2)); // -1.0 in half
  EXPECT_EQ(static_cast<unsigned char>(h[1]), 0x3c);
}

#include "gpu/capture_policy.h"

#include <gtest/gtest.h>

using namespace kbcc::gpu;

namespace {
constexpr uint64_t MiB = 1ull << 20;
CaptureLimits limits(unsigned launches, uint64_t max_bytes, uint64_t cap) { return {launches, max_bytes, cap}; }
} // namespace

TEST(CapturePolicy, LimitPerKernelAndConfiguration) {
  CapturePolicy p(limits(2, 256 * MiB, 1024 * MiB));
  EXPECT_EQ(p.decide("k", "a", MiB, 0), CaptureVerdict::Capture);
  p.stored("k", "a", "");
  EXPECT_EQ(p.decide("k", "a", MiB, MiB), CaptureVerdict::Capture);
  p.stored("k", "a", "");
  EXPECT_EQ(p.decide("k", "a", MiB, 2 * MiB), CaptureVerdict::SkipLimit);
  EXPECT_EQ(p.decide("k", "b", MiB, 2 * MiB), CaptureVerdict::Capture); // another configuration
  EXPECT_EQ(p.kernels().at("k").skipped_limit, 1u);
}

TEST(CapturePolicy, LargeLaunchCapturedOnceWhileTheKernelHasNone) {
  CapturePolicy p(limits(4, 256 * MiB, 4096 * MiB));
  EXPECT_EQ(p.decide("big", "a", 700 * MiB, 0), CaptureVerdict::Capture);
  p.stored("big", "a", "");
  EXPECT_EQ(p.decide("big", "b", 300 * MiB, 700 * MiB), CaptureVerdict::SkipSize);
  EXPECT_EQ(p.decide("big", "a", 10 * MiB, 700 * MiB), CaptureVerdict::Capture); // small ones still are
  EXPECT_EQ(p.kernels().at("big").skipped_size, 1u);
  EXPECT_TRUE(kernels_without_capture(p.kernels()).empty());
}

TEST(CapturePolicy, UnreplayableCaptureDoesNotCount) {
  CapturePolicy p(limits(4, 256 * MiB, 4096 * MiB));
  EXPECT_EQ(p.decide("k", "a", 500 * MiB, 0), CaptureVerdict::Capture);
  p.stored("k", "a", "pointers-in-buffers");
  EXPECT_EQ(p.decide("k", "b", 500 * MiB, 500 * MiB), CaptureVerdict::Capture);
}

TEST(CapturePolicy, StoreLimitNamesKernelAndFlagValue) {
  CapturePolicy p(limits(4, 256 * MiB, 1024 * MiB));
  EXPECT_EQ(p.decide("fits", "a", 600 * MiB, 0), CaptureVerdict::Capture);
  p.stored("fits", "a", "");
  EXPECT_EQ(p.decide("late", "a", 1700 * MiB, 600 * MiB), CaptureVerdict::SkipCap);
  EXPECT_EQ(p.decide("late", "b", 500 * MiB, 600 * MiB), CaptureVerdict::SkipCap);
  const KernelTally &t = p.kernels().at("late");
  EXPECT_EQ(t.smallest_capped, 500 * MiB);
  EXPECT_EQ(t.cap_needed, 1100 * MiB);
  auto lines = kernels_without_capture(p.kernels());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("late: no replayable capture (2 launches)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("--max-total 1100M"), std::string::npos) << lines[0];
  EXPECT_EQ(total_cap_needed(p.kernels(), 600 * MiB), 1100 * MiB);
}

TEST(CapturePolicy, OtherReasons) {
  CapturePolicy p(limits(4, 256 * MiB, 1024 * MiB));
  p.skipped_other("graph_only");
  EXPECT_EQ(p.decide("bad", "a", MiB, 0), CaptureVerdict::Capture);
  p.stored("bad", "a", "host-memory");
  auto lines = kernels_without_capture(p.kernels());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("bad: no replayable capture"), std::string::npos);
  EXPECT_NE(lines[0].find("not replayable (host-memory)"), std::string::npos);
  EXPECT_NE(lines[1].find("graph_only"), std::string::npos);
  EXPECT_NE(lines[1].find("CUDA graph"), std::string::npos);
  EXPECT_EQ(total_cap_needed(p.kernels(), 0), 0u);
}

TEST(CapturePolicy, SizeFlagValueRoundsUp) {
  EXPECT_EQ(size_flag_value(100), "100");
  EXPECT_EQ(size_flag_value(1024), "1K");
  EXPECT_EQ(size_flag_value(1025), "1025");
  EXPECT_EQ(size_flag_value(1100 * MiB), "1100M");
  EXPECT_EQ(size_flag_value(16ull << 30), "16G");
  EXPECT_EQ(size_flag_value((16ull << 30) + 1), "17G");
  EXPECT_EQ(size_flag_value(1741 * MiB + 1), "1742M");
}

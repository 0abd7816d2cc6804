#include "agent/why_nothing.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::agent;

namespace {

kb::RegistryEntry entry(const std::string &name, const std::string &mangled, const std::string &hash) {
  kb::RegistryEntry e;
  e.qualified_name = name;
  e.mangled_names = {mangled};
  e.hash = hash;
  e.archs = {"sm_90"};
  return e;
}

gpu::CaptureInfo capture(const std::string &id, const std::string &kernel, const std::string &arch,
                         const std::string &not_replayable = "") {
  gpu::CaptureInfo c;
  c.id = id;
  c.kernel = kernel;
  c.arch = arch;
  c.replayable = not_replayable.empty();
  c.not_replayable_reason = not_replayable;
  return c;
}

std::string all(const std::vector<std::string> &lines) {
  std::string s;
  for (const auto &l : lines)
    s += l + "\n";
  return s;
}

const std::string kHashA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", kHashB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

} // namespace

TEST(WhyNothing, EmptyRegistryNamesTheFallbacks) {
  NothingInputs in;
  in.arch = "sm_90";
  in.stats = {{"extraction-failed:parse-fatal", 3}, {"cannot-optimize:multiple-cuda-sources", 1}, {"compilations", 9}};
  in.firsts = {{"extraction-failed:parse-fatal", "a.cu: clang reported a fatal error while parsing: omp.h"}};
  std::string s = all(why_nothing(in));
  EXPECT_NE(s.find("the kernel registry is empty"), std::string::npos) << s;
  EXPECT_NE(s.find("3 compile(s) fell back to nvcc without recording kernels (parse-fatal); first: a.cu"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("1 compile(s) kbcc does not parse (multiple-cuda-sources)"), std::string::npos) << s;
}

TEST(WhyNothing, OneLinePerKernelWithItsReason) {
  NothingInputs in;
  in.arch = "sm_90";
  in.entries = {entry("never", "_Z5neverv", kHashA), entry("elsewhere", "_Z9elsewherev", kHashB),
                entry("broken", "_Z6brokenv", "cccccccccccccccccccccccccccccccc"),
                entry("header", "_Z6headerv", "dddddddddddddddddddddddddddddddd")};
  in.entries[3].not_optimizable = "kernel-in-header";
  in.entries[1].archs = {"sm_80"};
  in.captures = {capture("1111111111111111", "_Z9elsewherev", "sm_80"),
                 capture("2222222222222222", "_Z6brokenv", "sm_90", "pointers-in-buffers"),
                 capture("3333333333333333", "_Z6brokenv", "sm_90", "pointers-in-buffers")};
  auto lines = why_nothing(in);
  ASSERT_EQ(lines.size(), 4u) << all(lines);
  EXPECT_EQ(lines[0], "never (aaaaaaaaaaaa): never captured (run `kbcc capture -- <program>` with a program that "
                      "launches it)");
  EXPECT_NE(lines[1].find("elsewhere (bbbbbbbbbbbb): not built for sm_90 (built for sm_80)"), std::string::npos)
      << lines[1];
  EXPECT_EQ(lines[2], "broken (cccccccccccc): 2 capture(s), none replayable (pointers-in-buffers x2)");
  EXPECT_EQ(lines[3], "header (dddddddddddd): not optimizable (kernel-in-header)");
}

TEST(WhyNothing, SkippedBySizeGivesTheFlag) {
  NothingInputs in;
  in.arch = "sm_90";
  in.entries = {entry("huge", "_Z4hugev", kHashA)};
  gpu::KernelTally t;
  t.launches = 606;
  t.skipped_cap = 606;
  t.smallest_capped = 300ull << 20;
  t.cap_needed = 1324ull << 20;
  in.sessions["_Z4hugev"] = t;
  auto lines = why_nothing(in);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("skipped by the capture store's limit (smallest launch 300M)"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("--max-total 1324M"), std::string::npos) << lines[0];
}

TEST(WhyNothing, CapturesOfUnknownKernelsAndFilter) {
  NothingInputs in;
  in.arch = "sm_90";
  in.entries = {entry("known", "_Z5knownv", kHashA)};
  in.captures = {capture("4444444444444444", "_Z7unknownv", "sm_90"),
                 capture("5555555555555555", "_Z7unknownv", "sm_90")};
  in.stats = {{"extraction-failed:parse-timeout", 1}};
  std::string s = all(why_nothing(in));
  EXPECT_NE(s.find("capture 444444444444 (_Z7unknownv on sm_90): its kernel is not in the registry"), std::string::npos)
      << s;
  EXPECT_EQ(s.find("555555555555"), std::string::npos) << "one line per kernel: " << s;
  EXPECT_NE(s.find("fell back to nvcc without recording kernels (parse-timeout)"), std::string::npos) << s;
  in.filter = "nosuch";
  in.captures.clear();
  EXPECT_EQ(all(why_nothing(in)), "no registry kernel matches 'nosuch'\n");
}

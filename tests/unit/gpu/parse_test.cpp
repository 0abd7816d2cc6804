#include "gpu/analysis.h"
#include "support/fs.h"

#include <gtest/gtest.h>

using namespace kbcc::gpu;

namespace {

// Shape of `ncu --csv --page raw --print-units base`: a header row, a units
// row, one row per profiled kernel; ncu's own ==PROF== lines before it.
const char *kNcuCsv =
    "==PROF== Connected to process 4242 (/opt/kbcc/bin/kbcc-gpu)\n"
    "==PROF== Profiling \"saxpy\": 0%....50%....100% - 9 passes\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"gpu__time_duration.sum\",\"launch__registers_per_thread\",\"lts__t_sector_hit_rate.pct\","
    "\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\","
    "\"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio\","
    "\"sm__inst_executed_pipe_fma.sum\",\"sm__inst_executed_pipe_lsu.sum\","
    "\"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum\",\"launch__shared_mem_per_block_static\","
    "\"launch__shared_mem_per_block_dynamic\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%\",\"ns\",\"register/thread\",\"%\",\"\",\"\","
    "\"inst\",\"inst\",\"byte\",\"byte\",\"byte\"\n"
    "\"0\",\"4242\",\"kbcc-gpu\",\"127.0.0.1\",\"saxpy\",\"1\",\"7\",\"(256, 1, 1)\",\"(4096, 1, 1)\",\"0\",\"9.0\","
    "\"87.5\",\"6,144\",\"16\",\"33.3\",\"3\",\"1\",\"3000\",\"1000\",\"0\",\"0\",\"65536\"\n";

} // namespace

TEST(Ncu, ParsesRawCsvIntoKbccMetrics) {
  auto r = parse_ncu_csv(kNcuCsv);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_DOUBLE_EQ(r->metrics.at("dram_throughput_pct"), 87.5);
  EXPECT_DOUBLE_EQ(r->metrics.at("duration_us"), 6.144);
  EXPECT_DOUBLE_EQ(r->metrics.at("registers_per_thread"), 16);
  EXPECT_DOUBLE_EQ(r->metrics.at("l2_hit_rate_pct"), 33.3);
  EXPECT_DOUBLE_EQ(r->metrics.at("warp_stall_long_scoreboard_pct"), 75);
  EXPECT_DOUBLE_EQ(r->metrics.at("warp_stall_wait_pct"), 25);
  EXPECT_DOUBLE_EQ(r->metrics.at("inst_fma_pct"), 75);
  EXPECT_DOUBLE_EQ(r->metrics.at("spill_bytes"), 0);
  EXPECT_DOUBLE_EQ(r->metrics.at("shared_mem_per_block"), 65536);
  ASSERT_EQ(r->top_stalls.size(), 2u);
  EXPECT_EQ(r->top_stalls[0], "long_scoreboard");
  EXPECT_EQ(r->tool, "ncu");
}

// Real output of `kbcc profile --raw-csv` on an H100 (saxpy, ncu 2025.3).
TEST(Ncu, ParsesRealH100Output) {
  auto csv = kbcc::read_file(std::string(KBCC_GPU_TEST_INPUTS) + "/ncu-raw-h100-saxpy.csv");
  ASSERT_TRUE(csv);
  auto r = parse_ncu_csv(*csv);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NEAR(r->metrics.at("dram_throughput_pct"), 39.88, 1e-9);
  EXPECT_NEAR(r->metrics.at("achieved_occupancy_pct"), 73.52, 1e-9);
  EXPECT_DOUBLE_EQ(r->metrics.at("registers_per_thread"), 16);
  EXPECT_NEAR(r->metrics.at("duration_us"), 6.336, 1e-9);
  ASSERT_FALSE(r->top_stalls.empty());
  EXPECT_EQ(r->top_stalls[0], "long_scoreboard");
  double stalls = 0;
  for (const auto &[k, v] : r->metrics)
    if (k.rfind("warp_stall_", 0) == 0) stalls += v;
  EXPECT_NEAR(stalls, 100, 1e-6);
}

TEST(Ncu, NoTableIsAnError) {
  EXPECT_FALSE(parse_ncu_csv("==PROF== Connected\n==ERROR== Failed to profile\n"));
  EXPECT_FALSE(parse_ncu_csv(""));
}

TEST(Ncu, MetricListCoversTheKbStates) {
  const auto &names = ncu_metric_names();
  for (const char *m :
       {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__warps_active.avg.pct_of_peak_sustained_active",
        "l1tex__t_sector_hit_rate.pct", "launch__registers_per_thread"})
    EXPECT_NE(std::find(names.begin(), names.end(), m), names.end()) << m;
}

TEST(Sanitizer, MemcheckErrorsCounted) {
  std::string out = "========= Invalid __global__ write of size 4 bytes\n"
                    "=========     at saxpy(int, float, const float *, float *)+0x70\n"
                    "========= ERROR SUMMARY: 3 errors\n";
  auto r = parse_sanitizer_output(SanitizerTool::Memcheck, out, 99);
  EXPECT_FALSE(r.clean);
  EXPECT_EQ(r.errors, 3u);
  EXPECT_NE(r.summary.find("Invalid __global__ write"), std::string::npos);
  auto ok = parse_sanitizer_output(SanitizerTool::Memcheck, "========= ERROR SUMMARY: 0 errors\n", 0);
  EXPECT_TRUE(ok.clean);
}

TEST(Sanitizer, RacecheckHazards) {
  auto r = parse_sanitizer_output(SanitizerTool::Racecheck,
                                  "========= RACECHECK SUMMARY: 4 hazards displayed (2 errors, 2 warnings)\n", 99);
  EXPECT_EQ(r.errors, 4u); // warnings count too
  EXPECT_FALSE(r.clean);
  auto none = parse_sanitizer_output(SanitizerTool::Racecheck,
                                     "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n", 0);
  EXPECT_TRUE(none.clean);
}

TEST(Sanitizer, MissingSummaryIsNotClean) {
  EXPECT_FALSE(parse_sanitizer_output(SanitizerTool::Memcheck, "Segmentation fault\n", 139).clean);
}

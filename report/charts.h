// The report's three data charts, each an <svg> string.
#pragma once

#include "report/data.h"

#include <string>

namespace kbcc::report {

// Bars of the best validated speedup per (kernel, arch) that was tried or
// has a variant, 1.0x marked.
std::string speedup_chart(const std::vector<KernelResult> &results);

// Normalized roofline from the profiler's speed-of-light metrics of every
// profiled candidate: x = sm_throughput_pct / dram_throughput_pct (arithmetic
// intensity relative to the ridge point), y = sm_throughput_pct / 100
// (fraction of peak compute), roof = min(1, x). Best step per kernel labelled.
std::string roofline_chart(const ReportData &data);

// Speedup of every step over wall-clock time, one line per trajectory
// (best so far), failed steps as hollow markers at 0.
std::string trajectory_chart(const ReportData &data);

// Number of roofline points roofline_chart draws (steps with both metrics).
size_t roofline_point_count(const ReportData &data);

} // namespace kbcc::report

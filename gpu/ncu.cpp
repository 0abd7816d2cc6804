// ncu and compute-sanitizer output parsing.
#include "gpu/analysis.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

namespace kbcc::gpu {
namespace {

const char *kStallReasons[] = {
    "barrier",         "branch_resolving",   "dispatch_stall", "drain",        "imc_miss", "lg_throttle",
    "long_scoreboard", "math_pipe_throttle", "membar",         "mio_throttle", "misc",     "no_instruction",
    "not_selected",    "short_scoreboard",   "sleeping",       "tex_throttle", "wait"};
const char *kPipes[] = {"alu", "fma", "fp16", "fp64", "lsu", "xu", "tensor", "uniform"};

std::string stall_metric(const std::string &r) {
  return "smsp__average_warps_issue_stalled_" + r + "_per_issue_active.ratio";
}
std::string pipe_metric(const std::string &p) { return "sm__inst_executed_pipe_" + p + ".sum"; }

// Plain ncu metric -> kbcc metric name (values copied unchanged).
const std::vector<std::pair<std::string, std::string>> &direct_metrics() {
  static const std::vector<std::pair<std::string, std::string>> m = {
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct"},
      {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "l2_throughput_pct"},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_throughput_pct"},
      {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory_throughput_pct"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct"},
      {"sm__maximum_warps_per_active_cycle_pct", "theoretical_occupancy_pct"},
      {"launch__registers_per_thread", "registers_per_thread"},
      {"launch__shared_mem_per_block_static", "static_shared_mem_per_block"},
      {"launch__shared_mem_per_block_dynamic", "dynamic_shared_mem_per_block"},
      {"l1tex__t_sector_hit_rate.pct", "l1_hit_rate_pct"},
      {"lts__t_sector_hit_rate.pct", "l2_hit_rate_pct"},
      {"dram__bytes.sum", "dram_bytes"},
      {"smsp__inst_executed.sum", "inst_executed"},
      {"sm__warps_active.avg.per_cycle_active", "warps_active_per_cycle"},
      {"launch__block_size", "block_size"},
      {"launch__grid_size", "grid_size"},
  };
  return m;
}

std::vector<std::string> split_csv_line(const std::string &line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

bool parse_number(std::string s, double &out) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  if (s.empty() || s == "n/a") return false;
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

double time_to_us(double v, const std::string &unit) {
  if (unit == "nsecond" || unit == "ns") return v / 1e3;
  if (unit == "msecond" || unit == "ms") return v * 1e3;
  if (unit == "second" || unit == "s") return v * 1e6;
  return v; // usecond
}

double bytes_of(double v, const std::string &unit) {
  if (unit == "Kbyte" || unit == "KB") return v * 1e3;
  if (unit == "Mbyte" || unit == "MB") return v * 1e6;
  if (unit == "Gbyte" || unit == "GB") return v * 1e9;
  return v;
}

} // namespace

const std::vector<std::string> &ncu_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto &[ncu, kbcc] : direct_metrics())
      v.push_back(ncu);
    v.push_back("gpu__time_duration.sum");
    v.push_back("l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum");
    v.push_back("l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum");
    for (const char *r : kStallReasons)
      v.push_back(stall_metric(r));
    for (const char *p : kPipes)
      v.push_back(pipe_metric(p));
    return v;
  }();
  return names;
}

Expected<ProfileReport> parse_ncu_csv(const std::string &csv) {
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> header, units, row;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (header.empty()) {
      if (line.rfind("\"ID\"", 0) == 0) header = split_csv_line(line);
      continue;
    }
    auto cells = split_csv_line(line);
    if (cells.size() != header.size()) continue;
    if (units.empty() && cells[0].empty()) {
      units = cells;
      continue;
    }
    row = cells; // the last data row wins (one profiled launch expected)
  }
  if (header.empty() || row.empty()) return make_error("ncu output holds no metric table");
  if (units.empty()) units.assign(header.size(), "");
  std::map<std::string, std::pair<double, std::string>> raw;
  for (size_t i = 0; i < header.size(); ++i) {
    double v;
    if (parse_number(row[i], v)) raw[header[i]] = {v, units[i]};
  }
  ProfileReport r;
  r.tool = "ncu";
  for (const auto &[ncu, kbcc] : direct_metrics())
    if (auto it = raw.find(ncu); it != raw.end()) r.metrics[kbcc] = it->second.first;
  if (auto it = raw.find("gpu__time_duration.sum"); it != raw.end())
    r.metrics["duration_us"] = time_to_us(it->second.first, it->second.second);
  double local = 0;
  bool has_local = false;
  for (const char *m : {"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"})
    if (auto it = raw.find(m); it != raw.end()) {
      local += bytes_of(it->second.first, it->second.second);
      has_local = true;
    }
  if (has_local) r.metrics["spill_bytes"] = local;
  if (r.metrics.count("static_shared_mem_per_block") || r.metrics.count("dynamic_shared_mem_per_block"))
    r.metrics["shared_mem_per_block"] =
        r.metrics["static_shared_mem_per_block"] + r.metrics["dynamic_shared_mem_per_block"];
  // Stall reasons as a share of all stall cycles.
  double total = 0;
  std::vector<std::pair<double, std::string>> stalls;
  for (const char *s : kStallReasons)
    if (auto it = raw.find(stall_metric(s)); it != raw.end()) {
      total += it->second.first;
      stalls.push_back({it->second.first, s});
    }
  if (total > 0) {
    std::sort(stalls.rbegin(), stalls.rend());
    for (const auto &[v, s] : stalls) {
      r.metrics["warp_stall_" + s + "_pct"] = v / total * 100;
      if (r.top_stalls.size() < 3 && v > 0) r.top_stalls.push_back(s);
    }
  }
  double inst = 0;
  for (const char *p : kPipes)
    if (auto it = raw.find(pipe_metric(p)); it != raw.end()) inst += it->second.first;
  if (inst > 0)
    for (const char *p : kPipes)
      if (auto it = raw.find(pipe_metric(p)); it != raw.end())
        r.metrics[std::string("inst_") + p + "_pct"] = it->second.first / inst * 100;
  if (r.metrics.empty()) return make_error("ncu output holds none of the requested metrics");
  return r;
}

SanitizerReport parse_sanitizer_output(SanitizerTool tool, const std::string &out, int exit_code) {
  SanitizerReport r;
  r.tool = tool;
  static const std::regex summary(R"((ERROR|RACECHECK) SUMMARY: (\d+) (error|hazard))");
  std::smatch m;
  bool found = false;
  std::string::const_iterator from = out.begin();
  while (std::regex_search(from, out.end(), m, summary)) {
    found = true;
    // Racecheck: every hazard counts, warnings included (a variant must be race-free).
    r.errors += static_cast<unsigned>(std::stoul(m[2]));
    from = m.suffix().first;
  }
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("========= ", 0) == 0 && line.find("SUMMARY") == std::string::npos && r.summary.size() < 2000)
      r.summary += line.substr(10) + "\n";
  r.clean = found && r.errors == 0 && exit_code == 0;
  return r;
}

} // namespace kbcc::gpu

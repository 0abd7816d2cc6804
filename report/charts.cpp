#include "report/charts.h"

#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace kbcc::report {
namespace {

const char *const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string color_of(size_t i) { return kPalette[i % (sizeof kPalette / sizeof *kPalette)]; }

std::string fixed(double v, int digits = 2) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// The metric value of `step`, when present and a positive number.
bool metric(const kb::TrajectoryStep &step, const char *name, double &out) {
  if (!step.metrics.is_object() || !step.metrics.contains(name) || !step.metrics[name].is_number()) return false;
  out = step.metrics[name].get<double>();
  return out > 0;
}

struct RoofPoint {
  double x, y;
  std::string kernel, tooltip;
  double speedup;
};

std::vector<RoofPoint> roofline_points(const ReportData &data) {
  std::vector<RoofPoint> pts;
  for (const auto &t : data.trajectories)
    for (const auto &s : t.steps) {
      double sm = 0, dram = 0;
      if (!s.validated || !metric(s, "sm_throughput_pct", sm) || !metric(s, "dram_throughput_pct", dram)) continue;
      std::string name = kernel_name(data, t.kernel_hash);
      pts.push_back({sm / dram, sm / 100.0, name,
                     name + " (" + t.arch + ") step " + std::to_string(s.index) + ": " + s.optimization + ", " +
                         fixed(s.speedup) + "x; SM " + fixed(sm, 1) + "%, DRAM " + fixed(dram, 1) + "%",
                     s.speedup});
    }
  return pts;
}

} // namespace

std::string speedup_chart(const std::vector<KernelResult> &results) {
  std::vector<Bar> bars;
  for (const auto &r : results) {
    if (r.attempts == 0 && !r.stored) continue; // recorded, not optimized yet: table only
    std::string tooltip = r.name + " (" + r.arch + "): " + fixed(r.speedup) + "x, " + std::to_string(r.attempts) +
                          " attempts" + (r.stored ? ", variant cached" : ", no variant cached");
    bars.push_back({r.name + " " + r.arch, r.speedup, r.stored ? "#2ca02c" : "#bbbbbb", tooltip});
  }
  return bar_chart("Best validated speedup per kernel", "speedup (baseline / variant median)", bars, 1.0);
}

size_t roofline_point_count(const ReportData &data) { return roofline_points(data).size(); }

std::string roofline_chart(const ReportData &data) {
  auto pts = roofline_points(data);
  double xmin = 0.01, xmax = 100, ymin = 0.001;
  for (const auto &p : pts) {
    xmin = std::min(xmin, p.x / 2);
    xmax = std::max(xmax, p.x * 2);
    ymin = std::min(ymin, p.y / 2);
  }
  Chart chart("Roofline (normalized, from speed-of-light metrics)",
              Axis{"arithmetic intensity / ridge point (SM% / DRAM%)", xmin, xmax, true},
              Axis{"fraction of peak compute (SM%)", ymin, 1.5, true});
  chart.line({{xmin, xmin}, {1, 1}}, "#c00", false, "roof");
  chart.line({{1, 1}, {xmax, 1}}, "#c00", false, "roof");
  chart.legend("memory / compute roof", "#c00");
  std::map<std::string, size_t> colors;
  std::map<std::string, const RoofPoint *> best;
  for (const auto &p : pts) {
    size_t c = colors.emplace(p.kernel, colors.size()).first->second;
    chart.point(p.x, p.y, color_of(c), p.tooltip);
    if (!best.count(p.kernel) || best[p.kernel]->speedup < p.speedup) best[p.kernel] = &p;
  }
  std::vector<std::pair<double, double>> placed; // pixel positions of labels, to avoid overlaps
  for (const auto &[kernel, p] : best) {
    double x = chart.px(p->x), y = chart.py(p->y), dy = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto &[lx, ly] : placed)
        if (std::fabs(lx - x) < 60 && std::fabs(ly - (y + dy)) < 12) dy += 12, moved = true;
    }
    placed.emplace_back(x, y + dy);
    chart.label(p->x, p->y, kernel, "#333", dy);
  }
  if (pts.empty()) chart.label(xmin * 1.5, 0.5, "no profiled candidates yet (kbcc optimize records them)", "#777");
  return chart.str();
}

std::string trajectory_chart(const ReportData &data) {
  int64_t t0 = 0, t1 = 1;
  double ymax = 1.5;
  for (const auto &t : data.trajectories) {
    if (t0 == 0 || t.started < t0) t0 = t.started;
    t1 = std::max({t1, t.finished, t.started});
    for (const auto &s : t.steps)
      ymax = std::max(ymax, s.speedup * 1.1);
  }
  double span_min = std::max(1.0, (t1 - t0) / 60.0);
  Chart chart("Trajectories over time", Axis{"minutes since the first trajectory", 0, span_min * 1.05},
              Axis{"speedup over the original", 0, ymax});
  chart.line({{0, 1}, {span_min * 1.05, 1}}, "#999", true, "baseline");
  std::map<std::string, size_t> colors;
  for (const auto &t : data.trajectories) {
    std::string name = kernel_name(data, t.kernel_hash);
    auto [it, fresh] = colors.emplace(name, colors.size());
    std::string color = color_of(it->second);
    if (fresh) chart.legend(name, color);
    double clock = static_cast<double>(t.started - t0), best = 1.0;
    std::vector<std::pair<double, double>> line{{clock / 60.0, 1.0}};
    for (const auto &s : t.steps) {
      clock += s.wall_seconds;
      double x = clock / 60.0;
      bool ok = s.validated && s.speedup > 0;
      chart.point(x, ok ? s.speedup : 0, color,
                  name + " " + t.arch + " step " + std::to_string(s.index) + ": " + s.optimization + " -> " +
                      (ok ? fixed(s.speedup) + "x" : (s.failure.empty() ? std::string("failed") : s.failure)),
                  !ok);
      if (ok) best = std::max(best, s.speedup);
      line.emplace_back(x, best);
    }
    chart.line(line, color);
  }
  if (data.trajectories.empty())
    chart.label(0.05 * span_min, ymax * 0.8, "no trajectories yet (run kbcc optimize)", "#777");
  return chart.str();
}

} // namespace kbcc::report

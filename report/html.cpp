#include "report/html.h"

#include "report/charts.h"
#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace kbcc::report {
namespace {

const char *kStyle =
    R"(body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666;font-size:12px}.cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:120px}.card b{display:block;font-size:20px}
table{border-collapse:collapse;font-size:12.5px;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}.note{color:#666;font-size:12px;max-width:780px}
svg.chart{display:block;margin:6px 0;max-width:100%;height:auto}details{margin:6px 0})";

std::string fixed(double v, int digits = 2) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string utc(int64_t seconds) {
  if (seconds <= 0) return "–";
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

std::string td(const std::string &text, bool numeric = false) {
  return std::string(numeric ? "<td class=\"n\">" : "<td>") + escape(text) + "</td>";
}

std::string card(const std::string &label, const std::string &value) {
  return "<div class=\"card\"><b>" + escape(value) + "</b>" + escape(label) + "</div>";
}

double geomean_of_variants(const ReportData &data) {
  double sum = 0;
  size_t n = 0;
  for (const auto &v : data.variants)
    if (double s = v.timing.speedup(); s > 0) sum += std::log(s), ++n;
  return n ? std::exp(sum / n) : 0;
}

std::string summary_section(const ReportData &data) {
  size_t steps = 0;
  double gpu = 0;
  for (const auto &t : data.trajectories)
    for (const auto &s : t.steps)
      ++steps, gpu += s.gpu_seconds;
  double g = geomean_of_variants(data);
  std::string s = "<div class=\"cards\">";
  s += card("kernels in the registry", std::to_string(data.registry.size()));
  s += card("variants cached", std::to_string(data.variants.size()));
  s += card("geomean speedup of variants", g > 0 ? fixed(g) + "x" : "–");
  s += card("trajectories", std::to_string(data.trajectories.size()));
  s += card("candidates tried", std::to_string(steps));
  s += card("GPU seconds spent", fixed(gpu, 1));
  s += card("KB states / optimizations",
            std::to_string(data.policy.states.size()) + " / " + std::to_string(data.policy.optimizations.size()));
  return s + "</div>\n";
}

std::string kernels_section(const ReportData &data) {
  auto results = kernel_results(data);
  std::string s = "<h2 id=\"speedups\">Speedup per kernel</h2>\n" + speedup_chart(results);
  s += "<table><tr><th>kernel</th><th>arch</th><th>best speedup</th><th>variant cached</th><th>attempts</th>"
       "<th>GPU s</th><th>hash</th></tr>\n";
  for (const auto &r : results)
    s += "<tr>" + td(r.name) + td(r.arch) + td(r.speedup > 0 ? fixed(r.speedup) + "x" : "–", true) +
         td(r.stored ? "yes" : "no") + td(std::to_string(r.attempts), true) + td(fixed(r.gpu_seconds, 1), true) +
         td(r.kernel_hash.substr(0, 16)) + "</tr>\n";
  return s + "</table>\n";
}

// How each cached variant runs: its launch, numerics class and, when
// programs counted them, how often its adapter launched it or fell back.
std::string variants_section(const ReportData &data) {
  if (data.variants.empty()) return "";
  std::string s = "<h2 id=\"variants\">Variants</h2>\n<table><tr><th>kernel</th><th>arch</th><th>speedup</th>"
                  "<th>launch</th><th>numerics</th><th>optimizations</th><th>adapter: variant / fallbacks</th></tr>\n";
  for (const auto &v : data.variants) {
    std::string launch = "kept";
    if (v.launch)
      launch = "grid (" + v.launch->grid[0] + ", " + v.launch->grid[1] + ", " + v.launch->grid[2] + ") block (" +
               v.launch->block[0] + ", " + v.launch->block[1] + ", " + v.launch->block[2] + "), " +
               std::to_string(v.launch->preconditions.size()) + " precondition(s)";
    std::string opts;
    for (const auto &o : v.provenance.optimizations)
      opts += (opts.empty() ? "" : " + ") + o;
    std::string counted = "–";
    if (auto a = data.adapters.find(v.kernel_hash); a != data.adapters.end())
      counted = std::to_string(a->second.variant) + " / " + std::to_string(a->second.fallbacks());
    s += "<tr>" + td(v.qualified_name.empty() ? v.kernel_hash.substr(0, 12) : v.qualified_name) + td(v.arch) +
         td(fixed(v.timing.speedup()) + "x", true) + td(launch) + td(v.numerics.empty() ? "exact" : v.numerics) +
         td(opts) + td(counted, true) + "</tr>\n";
  }
  return s + "</table>\n<p class=\"note\">A variant that changes the launch runs through a host adapter at the "
             "launch sites kbcc compiled; where a precondition fails, the original kernel runs. "
             "\"reassociates\": floating-point sums added in another order (tolerance: the reordered-summation "
             "bound). Adapter counts come from programs run with KBCC_ADAPTER_STATS set.</p>\n";
}

std::string roofline_section(const ReportData &data) {
  return "<h2 id=\"roofline\">Roofline</h2>\n" + roofline_chart(data) +
         "<p class=\"note\">Each point is a validated candidate profiled by ncu. With the SM and DRAM "
         "speed-of-light percentages, SM%/DRAM% is the arithmetic intensity relative to the GPU's ridge point and "
         "SM% the fraction of peak compute, so the roof is min(1, x) whatever the GPU. Hover a point for its "
         "kernel, step and optimization.</p>\n";
}

std::string trajectories_section(const ReportData &data) {
  std::string s = "<h2 id=\"trajectories\">Trajectories over time</h2>\n" + trajectory_chart(data);
  s += "<details><summary>" + std::to_string(data.trajectories.size()) +
       " trajectories</summary><table><tr><th>started (UTC)</th><th>kernel</th><th>arch</th><th>GPU</th>"
       "<th>initial state</th><th>steps</th><th>best</th><th>GPU s</th><th>LLM</th></tr>\n";
  for (auto it = data.trajectories.rbegin(); it != data.trajectories.rend(); ++it) {
    double gpu = 0;
    for (const auto &st : it->steps)
      gpu += st.gpu_seconds;
    s += "<tr>" + td(utc(it->started)) + td(kernel_name(data, it->kernel_hash)) + td(it->arch) + td(it->gpu_name) +
         td(it->initial_state) + td(std::to_string(it->steps.size()), true) +
         td(it->best_speedup > 0 ? fixed(it->best_speedup) + "x" : "–", true) + td(fixed(gpu, 1), true) +
         td(it->llm_model.empty() ? "none" : it->llm_model) + "</tr>\n";
  }
  return s + "</table></details>\n";
}

std::string states_section(const ReportData &data) {
  auto stats = state_stats(data);
  std::vector<Bar> bars;
  for (const auto &st : stats)
    if (st.attempts > 0)
      bars.push_back(
          {st.id, static_cast<double>(st.attempts), "#1f77b4",
           st.id + ": " + std::to_string(st.attempts) + " attempts, " + std::to_string(st.successes) + " successes"});
  std::string s = "<h2 id=\"states\">Knowledge base: per state</h2>\n<p class=\"meta\">KB policy " +
                  escape(data.policy_id.substr(0, 16)) +
                  (data.policy_is_seed ? " (the shipped seed KB: nothing learned here yet)" : "") + "</p>\n";
  s += bar_chart("Attempts recorded per state", "attempts (all archs and contributors)", bars);
  s += "<table><tr><th>state</th><th>primary bottleneck</th><th>attempts</th><th>successes</th><th>success rate</th>"
       "<th>geomean speedup</th><th>steps here</th></tr>\n";
  for (const auto &st : stats)
    s += "<tr>" + td(st.id) + td(st.bottleneck) + td(std::to_string(st.attempts), true) +
         td(std::to_string(st.successes), true) +
         td(st.attempts ? fixed(100.0 * st.successes / st.attempts, 0) + "%" : "–", true) +
         td(st.geomean_speedup > 0 ? fixed(st.geomean_speedup) + "x" : "–", true) +
         td(std::to_string(st.trajectory_steps), true) + "</tr>\n";
  return s + "</table>\n";
}

std::string optimizations_section(const ReportData &data) {
  std::vector<std::pair<const kb::Optimization *, kb::StatsSummary>> rows;
  for (const auto &o : data.policy.optimizations)
    rows.emplace_back(&o, data.policy.summary(o.id));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto &a, const auto &b) { return a.second.attempts > b.second.attempts; });
  std::string s = "<h2 id=\"optimizations\">Knowledge base: per optimization</h2>\n<table><tr><th>optimization</th>"
                  "<th>category</th><th>mechanical</th><th>attempts</th><th>successes</th><th>success rate</th>"
                  "<th>geomean</th><th>max</th><th>confidence</th><th>contributors</th></tr>\n";
  for (const auto &[o, st] : rows)
    s += "<tr>" + td(o->id) + td(o->category) + td(o->mechanical.value_or("LLM")) +
         td(std::to_string(st.attempts), true) + td(std::to_string(st.successes), true) +
         td(st.attempts ? fixed(100 * st.success_rate, 0) + "%" : "–", true) +
         td(st.geomean_speedup > 0 ? fixed(st.geomean_speedup) + "x" : "–", true) +
         td(st.max_speedup > 0 ? fixed(st.max_speedup) + "x" : "–", true) + td(fixed(st.confidence), true) +
         td(std::to_string(st.contributors), true) + "</tr>\n";
  return s + "</table>\n";
}

} // namespace

std::string render_html(const ReportData &data, const std::string &generated) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
                  "'unsafe-inline'; img-src data:\">\n<title>kbcc report</title>\n<style>";
  s += kStyle;
  s += "</style></head><body>\n<h1>kbcc report</h1>\n<div class=\"meta\">KBCC_DIR " + escape(data.kbcc_dir) +
       " &middot; generated " + escape(generated) + "</div>\n";
  if (!data.store_found)
    s += "<p class=\"note\">No store under this KBCC_DIR yet: build something with kbcc, then run kbcc capture and "
         "kbcc optimize.</p>\n";
  s += summary_section(data) + kernels_section(data) + variants_section(data) + roofline_section(data) +
       trajectories_section(data) + states_section(data) + optimizations_section(data);
  return s + "</body></html>\n";
}

nlohmann::json report_json(const ReportData &data) {
  nlohmann::json j;
  j["kbcc_dir"] = data.kbcc_dir;
  j["store_found"] = data.store_found;
  j["policy_id"] = data.policy_id;
  j["policy_is_seed"] = data.policy_is_seed;
  j["registry_kernels"] = data.registry.size();
  j["kernels"] = nlohmann::json::array();
  for (const auto &r : kernel_results(data))
    j["kernels"].push_back({{"name", r.name},
                            {"kernel_hash", r.kernel_hash},
                            {"arch", r.arch},
                            {"speedup", r.speedup},
                            {"variant_cached", r.stored},
                            {"attempts", r.attempts},
                            {"gpu_seconds", r.gpu_seconds}});
  j["variants"] = nlohmann::json::array();
  for (const auto &v : data.variants)
    j["variants"].push_back({{"kernel_hash", v.kernel_hash},
                             {"arch", v.arch},
                             {"name", v.qualified_name},
                             {"speedup", v.timing.speedup()},
                             {"baseline_median_us", v.timing.baseline_median_us},
                             {"variant_median_us", v.timing.variant_median_us},
                             {"optimizations", v.provenance.optimizations},
                             {"launch", v.launch ? launch::to_json(*v.launch) : nlohmann::json(nullptr)},
                             {"numerics", v.numerics.empty() ? cache::kNumericsExact : v.numerics},
                             {"gpu", v.timing.gpu_name}});
  j["adapters"] = nlohmann::json::object();
  for (const auto &[hash, a] : data.adapters)
    j["adapters"][hash] = {{"name", a.name},
                           {"variant", a.variant},
                           {"fallback_arch", a.fallback_arch},
                           {"fallback_precondition", a.fallback_precondition},
                           {"fallback_launch", a.fallback_launch}};
  j["trajectories"] = nlohmann::json::array();
  for (const auto &t : data.trajectories) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto &s : t.steps)
      steps.push_back({{"index", s.index},
                       {"state", s.state},
                       {"optimization", s.optimization},
                       {"lowering", s.lowering},
                       {"compiled", s.compiled},
                       {"validated", s.validated},
                       {"speedup", s.speedup},
                       {"gpu_seconds", s.gpu_seconds},
                       {"wall_seconds", s.wall_seconds},
                       {"candidates", s.candidates},
                       {"params", s.params},
                       {"failure", s.failure}});
    j["trajectories"].push_back({{"id", t.id},
                                 {"kernel_hash", t.kernel_hash},
                                 {"kernel", kernel_name(data, t.kernel_hash)},
                                 {"arch", t.arch},
                                 {"index", t.index},
                                 {"started", t.started},
                                 {"finished", t.finished},
                                 {"best_speedup", t.best_speedup},
                                 {"llm_model", t.llm_model},
                                 {"steps", steps}});
  }
  j["states"] = nlohmann::json::array();
  for (const auto &st : state_stats(data))
    j["states"].push_back({{"id", st.id},
                           {"attempts", st.attempts},
                           {"successes", st.successes},
                           {"geomean_speedup", st.geomean_speedup},
                           {"trajectory_steps", st.trajectory_steps}});
  j["optimizations"] = nlohmann::json::array();
  for (const auto &o : data.policy.optimizations) {
    kb::StatsSummary st = data.policy.summary(o.id);
    j["optimizations"].push_back({{"id", o.id},
                                  {"attempts", st.attempts},
                                  {"successes", st.successes},
                                  {"geomean_speedup", st.geomean_speedup},
                                  {"confidence", st.confidence}});
  }
  return j;
}

} // namespace kbcc::report

#include "gpu/session.h"

#include "support/log.h"
#include "support/process.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace kbcc::gpu {
namespace {

using nlohmann::json;

json shape_json(const LaunchShape &s) {
  return {{"grid", {s.grid.x, s.grid.y, s.grid.z}}, {"block", {s.block.x, s.block.y, s.block.z}}, {"shared", s.shared}};
}

json base_request(const char *op, const CaptureInfo &c, const std::string &candidate, const std::string &reference,
                  const std::optional<LaunchShape> &shape) {
  json q = {{"op", op}, {"capture", c.manifest}};
  if (!candidate.empty()) q["candidate"] = std::filesystem::absolute(candidate).string();
  if (!reference.empty()) q["reference"] = std::filesystem::absolute(reference).string();
  if (shape) q["candidate_shape"] = shape_json(*shape);
  return q;
}

// The first failing buffer of one comparison list, described; empty if none.
std::string first_failure(const json &buffers, const std::string &where) {
  for (const json &b : buffers)
    if (!b.value("pass", true))
      return where + "buffer " + std::to_string(b.value("index", 0u)) + " (" + b.value("name", std::string()) +
             "): " + std::to_string(b.value("mismatches", uint64_t{0})) + " mismatches, max abs error " +
             std::to_string(b.value("max_abs_error", 0.0));
  return {};
}

// Folds the response of a check into a report.
CheckReport check_report(const json &j) {
  CheckReport r;
  r.launched = j.value("launched", false);
  r.error = j.value("error", std::string());
  r.pass = r.launched && r.error.empty() && j.value("pass", false);
  r.max_error = j.value("max_abs_error", 0.0);
  r.seconds = j.value("seconds", 0.0);
  auto tolerances = [&](const json &buffers) {
    for (const json &b : buffers)
      r.tolerance = std::max(r.tolerance, b.value("tolerance", json::object()).value("abs", 0.0));
  };
  tolerances(j.value("buffers", json::array()));
  if (!r.error.empty()) {
    r.reason = "the candidate did not run: " + r.error;
    return r;
  }
  r.reason = first_failure(j.value("buffers", json::array()), "captured outputs: ");
  for (const json &round : j.value("fuzz", json::array()))
    if (r.reason.empty()) r.reason = first_failure(round.value("buffers", json::array()), "fuzzed inputs: ");
  for (const json &v : j.value("shapes", json::array()))
    if (r.reason.empty())
      r.reason =
          first_failure(v.value("buffers", json::array()), "arguments " + v.value("params", json()).dump() + ": ");
  return r;
}

TimingStats stats_from(const json &j) {
  TimingStats t;
  t.median_us = j.value("median_us", 0.0);
  t.p25_us = j.value("p25_us", 0.0);
  t.p75_us = j.value("p75_us", 0.0);
  t.min_us = j.value("min_us", 0.0);
  t.max_us = j.value("max_us", 0.0);
  t.spread_pct = j.value("spread_pct", 0.0);
  t.reps = j.value("reps", 0u);
  t.l2_flushed = j.value("l2_flushed", false);
  return t;
}

} // namespace

std::string launch_arg(const LaunchShape &s) {
  std::string out;
  for (uint32_t v : {s.grid.x, s.grid.y, s.grid.z, s.block.x, s.block.y, s.block.z, s.shared})
    out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

struct Session::Runner {
  Process process;
};

Session::Session(RunnerOptions options) : options_(std::move(options)) {}
Session::~Session() = default;

Expected<std::string> Session::request(const std::string &line) {
  if (!runner_) {
    auto path = runner_path(options_.runner);
    if (!path) return path.error();
    std::vector<std::string> argv = {*path, "serve"};
    if (options_.device) argv.insert(argv.end(), {"--device", std::to_string(options_.device)});
    ProcessOptions po;
    po.interactive = true;
    auto p = spawn(argv, po);
    if (!p) return p.error();
    runner_ = std::make_unique<Runner>(Runner{std::move(*p)});
    ++starts_;
  }
  auto died = [&](const std::string &why) {
    std::string err = runner_->process.err_text();
    runner_->process.kill();
    runner_.reset();
    log_line("kbcc-gpu runner replaced: " + why);
    return json{{"error", why + (err.empty() ? "" : ": " + err.substr(0, 500))}, {"crashed", true}}.dump();
  };
  if (!runner_->process.write_line(line)) return died("the runner is gone");
  auto answer = runner_->process.read_line(options_.timeout);
  if (!answer)
    return died(answer.error().code == "timeout"
                    ? "runner timed out after " + std::to_string(options_.timeout.count()) + " ms"
                    : "the runner died");
  json j = json::parse(*answer, nullptr, false);
  if (j.is_discarded()) return died("the runner printed no report");
  if (j.value("fatal", false)) { // a lost context: the runner has exited
    runner_->process.kill();
    runner_.reset();
    log_line("kbcc-gpu runner replaced: " + j.value("error", std::string("a fatal error")));
  }
  seconds_ += j.value("seconds", 0.0);
  return *answer;
}

Expected<CheckReport> Session::check(const CaptureInfo &c, const CheckRequest &q) {
  if (!c.replayable) return make_error("capture " + c.id + " is not replayable: " + c.not_replayable_reason);
  json j = base_request("check", c, q.candidate, q.reference, q.shape);
  j["calibrate"] = q.calibrate;
  j["reassociation_n"] = q.reassociation_n;
  j["fuzz"] = {{"rounds", q.fuzz_rounds}, {"seed", q.seed}, {"scale", q.scale}};
  for (const auto &v : q.variations) {
    json params = json::object();
    for (const auto &[index, value] : v.params)
      params[std::to_string(index)] = value;
    json entry = {{"params", params}};
    if (v.shape) entry["candidate_shape"] = shape_json(*v.shape);
    j["shapes"].push_back(entry);
  }
  for (const auto &[param, type] : q.types)
    j["types"][std::to_string(param)] = element_type_name(type);
  add_expectation(j, c);
  auto answer = request(j.dump());
  if (!answer) return answer.error();
  json a = json::parse(*answer);
  if (!a.contains("kernel") && a.contains("error") && !a.value("crashed", false) && !a.value("cuda", false))
    return make_error("check of capture " + c.id + ": " + a["error"].get<std::string>());
  return check_report(a);
}

Expected<std::vector<TimingStats>> Session::time(const CaptureInfo &c, const TimeRequest &q) {
  json j = base_request("time", c, q.candidate, q.reference, q.shape);
  j["runs"] = q.runs;
  j["warmup"] = q.warmup;
  j["reps"] = q.reps;
  j["flush"] = q.flush_l2;
  add_expectation(j, c);
  auto answer = request(j.dump());
  if (!answer) return answer.error();
  json a = json::parse(*answer);
  if (a.contains("error")) return make_error("timing of capture " + c.id + ": " + a["error"].get<std::string>());
  std::vector<TimingStats> out;
  double &longest = longest_ms_[c.manifest];
  for (const json &r : a.value("runs", json::array())) {
    out.push_back(stats_from(r));
    longest = std::max(longest, out.back().max_us / 1000);
  }
  return out;
}

void Session::add_expectation(json &request, const CaptureInfo &c) const {
  auto it = longest_ms_.find(c.manifest);
  if (it != longest_ms_.end() && it->second > 0) request["expect_ms"] = it->second;
}

void Session::drop() {
  if (runner_) (void)request(json{{"op", "drop"}}.dump());
}

} // namespace kbcc::gpu

// Host side of the harness: finds and runs the kbcc-gpu runner, ncu and
// compute-sanitizer, and turns their output into reports. No CUDA here.
#include "gpu/analysis.h"
#include "gpu/capture_format.h"
#include "support/fs.h"
#include "support/process.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace kbcc::gpu {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string exe_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

Expected<std::string> first_existing(const std::vector<std::string> &candidates, const std::string &what) {
  std::string searched;
  for (const auto &c : candidates) {
    if (file_exists(c)) return fs::path(c).lexically_normal().string();
    searched += (searched.empty() ? "" : ", ") + c;
  }
  return make_error(what + " not found (searched " + searched + ")", "gpu-harness-missing");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs the runner and parses its JSON. A runner that dies (signal, bad
// output) is an Error; a runner that reports {"error":...} is returned as is.
Expected<json> run_runner(const RunnerOptions &o, std::vector<std::string> args) {
  auto runner = runner_path(o.runner);
  if (!runner) return runner.error();
  args.insert(args.begin(), *runner);
  if (o.device) {
    args.push_back("--device");
    args.push_back(std::to_string(o.device));
  }
  ProcessOptions po;
  po.timeout = o.timeout;
  auto r = run_process(args, po);
  if (!r) return r.error();
  if (r->timed_out)
    return json{{"error", "runner timed out after " + std::to_string(o.timeout.count()) + " ms"}, {"timed_out", true}};
  json j = json::parse(r->out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    std::string why = r->exit_code >= 128 ? "runner killed by signal " + std::to_string(r->exit_code - 128)
                                          : "runner printed no report (exit " + std::to_string(r->exit_code) + ")";
    return json{{"error", why + ": " + r->err.substr(0, 500)}, {"crashed", true}};
  }
  return j;
}

std::vector<std::string> capture_args(const CaptureInfo &c, const std::string &cubin,
                                      const std::map<unsigned, ElementType> &types) {
  std::vector<std::string> a = {"--capture", c.manifest};
  if (!c.reference.empty()) {
    a.push_back("--reference");
    a.push_back(fs::absolute(c.reference).string());
  }
  if (!cubin.empty()) {
    a.push_back("--cubin");
    a.push_back(fs::absolute(cubin).string());
  }
  for (const auto &[param, type] : types) {
    a.push_back("--type");
    a.push_back(std::to_string(param) + "=" + element_type_name(type));
  }
  return a;
}

BufferReport buffer_from(const json &j) {
  BufferReport b;
  b.index = j.value("index", 0u);
  b.name = j.value("name", "");
  b.type = element_type_from_name(j.value("type", "bytes"));
  b.bytes = j.value("bytes", uint64_t{0});
  b.written = j.value("written", false);
  b.mismatches = j.value("mismatches", uint64_t{0});
  b.nan_mismatches = j.value("nan_mismatches", uint64_t{0});
  b.max_abs_error = j.value("max_abs_error", 0.0);
  b.max_rel_error = j.value("max_rel_error", 0.0);
  b.noise_abs = j.value("noise_abs", 0.0);
  if (j.contains("tolerance")) {
    const auto &t = j["tolerance"];
    b.tolerance = {t.value("bitwise", true), t.value("abs", 0.0), t.value("rel", 0.0)};
  }
  b.pass = j.value("pass", false);
  return b;
}

ReplayReport replay_from(const json &j, const CaptureInfo &c, const std::string &cubin) {
  ReplayReport r;
  r.capture_id = c.id;
  r.kernel = c.kernel;
  r.cubin = cubin;
  r.launched = j.value("launched", false);
  r.error = j.value("error", "");
  r.calibrated = j.value("calibrated", false);
  if (j.contains("buffers"))
    for (const auto &b : j["buffers"])
      r.buffers.push_back(buffer_from(b));
  r.pass = r.launched && r.error.empty() && j.value("pass", false);
  return r;
}

TimingStats timing_from(const json &j) {
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

Expected<std::vector<TimingStats>> run_timing(const CaptureInfo &c, const std::string &cubin, const std::string &runs,
                                              const TimingOptions &o) {
  auto a = capture_args(c, cubin, {});
  a.insert(a.begin(), "time");
  for (const std::string &x : {std::string("--runs"), runs, std::string("--warmup"), std::to_string(o.warmup),
                               std::string("--reps"), std::to_string(o.reps)})
    a.push_back(x);
  if (!o.flush_l2) a.push_back("--no-flush");
  auto j = run_runner(o.runner, a);
  if (!j) return j.error();
  if (j->contains("error")) return make_error("timing " + c.id + ": " + (*j)["error"].get<std::string>());
  std::vector<TimingStats> out;
  for (const auto &r : (*j)["runs"])
    out.push_back(timing_from(r));
  return out;
}

std::string find_tool(const std::string &given, const std::string &name) {
  if (!given.empty()) return given;
  if (auto p = find_in_path(name)) return *p;
  for (const char *dir : {"/usr/local/cuda/bin", "/usr/local/cuda/compute-sanitizer"})
    if (file_exists(std::string(dir) + "/" + name)) return std::string(dir) + "/" + name;
  return {};
}

} // namespace

Expected<std::string> runner_path(const std::string &override_path) {
  if (!override_path.empty()) return first_existing({override_path}, "kbcc-gpu runner");
  std::string d = exe_dir();
  return first_existing({d + "/kbcc-gpu", d + "/../libexec/kbcc/kbcc-gpu"}, "kbcc-gpu runner");
}

Expected<std::string> capture_library_path() {
  std::string d = exe_dir();
  return first_existing({d + "/../lib/libkbcc_capture.so", d + "/../" KBCC_INSTALL_LIBDIR "/libkbcc_capture.so",
                         d + "/libkbcc_capture.so", d + "/../lib/kbcc/libkbcc_capture.so"},
                        "capture library libkbcc_capture.so");
}

Expected<DeviceInfo> device_info(const RunnerOptions &o) {
  auto j = run_runner(o, {"info"});
  if (!j) return j.error();
  if (j->contains("error")) return make_error("no usable GPU: " + (*j)["error"].get<std::string>(), "no-gpu");
  DeviceInfo d;
  d.name = j->value("name", "");
  d.arch = j->value("arch", "");
  d.driver_version = j->value("driver_version", 0);
  d.sm_count = j->value("sm_count", 0);
  d.l2_bytes = j->value("l2_bytes", uint64_t{0});
  d.memory_bytes = j->value("memory_bytes", uint64_t{0});
  return d;
}

Expected<ReplayReport> replay(const CaptureInfo &c, const std::string &cubin, const ReplayOptions &o) {
  if (!c.replayable) return make_error("capture " + c.id + " is not replayable: " + c.not_replayable_reason);
  auto t0 = std::chrono::steady_clock::now();
  auto a = capture_args(c, cubin, o.param_types);
  a.insert(a.begin(), "replay");
  if (o.calibrate) a.push_back("--calibrate");
  auto j = run_runner(o.runner, a);
  if (!j) return j.error();
  if (!j->contains("kernel") && j->contains("error") && !j->value("cuda", false) && !j->value("crashed", false) &&
      !j->value("timed_out", false))
    return make_error("replay of " + c.id + ": " + (*j)["error"].get<std::string>());
  ReplayReport r = replay_from(*j, c, cubin);
  r.seconds = seconds_since(t0);
  return r;
}

Expected<FuzzReport> fuzz(const CaptureInfo &c, const std::string &cubin, const FuzzOptions &o) {
  if (!c.replayable) return make_error("capture " + c.id + " is not replayable: " + c.not_replayable_reason);
  auto a = capture_args(c, cubin, o.replay.param_types);
  a.insert(a.begin(), "replay");
  for (const std::string &x :
       {std::string("--calibrate"), std::string("--fuzz"), std::to_string(o.rounds), std::string("--seed"),
        std::to_string(o.seed), std::string("--scale"), std::to_string(o.scale)})
    a.push_back(x);
  auto j = run_runner(o.replay.runner, a);
  if (!j) return j.error();
  FuzzReport f;
  f.pass = !j->contains("error") && j->value("fuzz_pass", false);
  if (j->contains("fuzz"))
    for (const auto &round : (*j)["fuzz"])
      f.results.push_back(replay_from(round, c, cubin));
  f.rounds = static_cast<unsigned>(f.results.size());
  if (j->contains("error")) f.results.push_back(replay_from(*j, c, cubin));
  return f;
}

Expected<TimingStats> time_capture(const CaptureInfo &c, const std::string &cubin, const TimingOptions &o) {
  auto runs = run_timing(c, cubin, cubin.empty() ? "o" : "v", o);
  if (!runs) return runs.error();
  return runs->at(0);
}

Expected<TimingComparison> compare_timing(const CaptureInfo &c, const std::string &variant, const TimingOptions &o) {
  auto runs = run_timing(c, variant, "ovo", o);
  if (!runs) return runs.error();
  TimingComparison cmp;
  cmp.original_a = runs->at(0);
  cmp.variant = runs->at(1);
  cmp.original_b = runs->at(2);
  judge_speedup(cmp);
  return cmp;
}

Expected<Calibration> calibrate(const CaptureInfo &c, const TimingOptions &o) {
  ReplayOptions ro;
  ro.runner = o.runner;
  auto r = replay(c, "", ro);
  if (!r) return r.error();
  if (!r->launched) return make_error("calibration of " + c.id + ": the original failed: " + r->error);
  Calibration cal;
  cal.buffers = r->buffers;
  for (const auto &b : cal.buffers)
    cal.deterministic = cal.deterministic && b.noise_abs == 0;
  auto t = compare_timing(c, "", o);
  if (!t) return t.error();
  cal.timing = *t;
  return cal;
}

Expected<ProfileReport> profile(const CaptureInfo &c, const std::string &cubin, const ProfileOptions &o) {
  std::string ncu = find_tool(o.ncu, "ncu");
  if (ncu.empty()) return make_error("ncu not found (install Nsight Compute or set PATH)", "no-ncu");
  auto runner = runner_path(o.runner.runner);
  if (!runner) return runner.error();
  std::vector<std::string> metrics = ncu_metric_names();
  auto t0 = std::chrono::steady_clock::now();
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::string list;
    for (const auto &m : metrics)
      list += (list.empty() ? "" : ",") + m;
    std::vector<std::string> argv = {ncu,         "--csv", "--page", "raw", "--print-units", "base",
                                     "--metrics", list,    "-c",     "1",   *runner,         "launch"};
    for (const auto &x : capture_args(c, cubin, {}))
      argv.push_back(x);
    if (!o.launch.empty()) argv.insert(argv.end(), {"--launch", o.launch});
    ProcessOptions po;
    po.timeout = o.runner.timeout;
    auto r = run_process(argv, po);
    if (!r) return r.error();
    auto report = parse_ncu_csv(r->out);
    if (report) {
      report->seconds = seconds_since(t0);
      report->raw = r->out;
      return report;
    }
    // Drop metrics this ncu/GPU does not know and try again.
    std::string all = r->out + r->err;
    size_t before = metrics.size();
    std::erase_if(metrics, [&](const std::string &m) {
      return all.find("Failed to find metric " + m) != std::string::npos ||
             (all.find("metric " + m + " ") != std::string::npos && all.find("not found") != std::string::npos);
    });
    if (metrics.size() == before)
      return make_error("ncu failed (exit " + std::to_string(r->exit_code) + "): " + all.substr(0, 800));
  }
  return make_error("ncu rejected the metric list");
}

Expected<SanitizerReport> sanitize(const CaptureInfo &c, const std::string &cubin, SanitizerTool tool,
                                   const RunnerOptions &o, const std::string &launch) {
  std::string cs = find_tool("", "compute-sanitizer");
  if (cs.empty()) return make_error("compute-sanitizer not found", "no-sanitizer");
  auto runner = runner_path(o.runner);
  if (!runner) return runner.error();
  // Kernel errors only: API errors are the runner's own business.
  std::vector<std::string> argv = {cs,
                                   "--tool",
                                   tool == SanitizerTool::Memcheck ? "memcheck" : "racecheck",
                                   "--error-exitcode",
                                   "99",
                                   "--report-api-errors",
                                   "no",
                                   *runner,
                                   "launch"};
  if (tool == SanitizerTool::Racecheck) argv.insert(argv.begin() + 3, {"--racecheck-report", "all"});
  for (const auto &x : capture_args(c, cubin, {}))
    argv.push_back(x);
  if (!launch.empty()) argv.insert(argv.end(), {"--launch", launch});
  auto t0 = std::chrono::steady_clock::now();
  ProcessOptions po;
  po.timeout = o.timeout * 4;
  auto r = run_process(argv, po);
  if (!r) return r.error();
  SanitizerReport rep = parse_sanitizer_output(tool, r->out + r->err, r->exit_code);
  rep.seconds = seconds_since(t0);
  return rep;
}

Expected<Validation> validate(const CaptureInfo &c, const std::string &cubin, const ValidationOptions &o) {
  Validation v;
  auto r = replay(c, cubin, o.replay);
  if (!r) return r.error();
  v.replay = *r;
  auto fail = [&](const std::string &why) {
    v.pass = false;
    v.reason = why;
    return v;
  };
  for (const auto &b : r->buffers)
    v.max_error = std::max(v.max_error, b.max_abs_error);
  if (!r->launched || !r->error.empty()) return fail("variant did not run: " + r->error);
  for (const auto &b : r->buffers)
    if (!b.pass)
      return fail("buffer " + std::to_string(b.index) + " (" + b.name + "): " + std::to_string(b.mismatches) +
                  " mismatches, max abs error " + std::to_string(b.max_abs_error));
  if (o.fuzz_rounds) {
    FuzzOptions fo;
    fo.replay = o.replay;
    fo.rounds = o.fuzz_rounds;
    auto f = fuzz(c, cubin, fo);
    if (!f) return f.error();
    v.fuzz = *f;
    for (const auto &round : f->results)
      for (const auto &b : round.buffers)
        v.max_error = std::max(v.max_error, b.max_abs_error);
    if (!f->pass) return fail("fuzzed inputs: variant differs from the original");
  }
  for (auto [on, tool] :
       {std::pair{o.memcheck, SanitizerTool::Memcheck}, std::pair{o.racecheck, SanitizerTool::Racecheck}}) {
    if (!on) continue;
    auto s = sanitize(c, cubin, tool, o.replay.runner);
    if (!s) return s.error();
    v.sanitizers.push_back(*s);
    if (!s->clean)
      return fail(std::string(tool == SanitizerTool::Memcheck ? "memcheck" : "racecheck") + ": " +
                  std::to_string(s->errors) + " errors: " + s->summary.substr(0, 300));
  }
  v.pass = true;
  return v;
}

} // namespace kbcc::gpu

#include "agent/gpu_evaluator.h"

#include "agent/arch_captures.h"
#include "agent/capture_args.h"
#include "agent/unit_source.h"
#include "cache/variant.h"
#include "gpu/capture_format.h"
#include "support/fs.h"
#include "support/log.h"
#include "support/process.h"
#include "tooling/kernel_text.h"
#include "tooling/rewrite.h"

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

namespace kbcc::agent {
namespace {

namespace fs = std::filesystem;

bool starts_with(const std::string &s, const char *p) { return s.rfind(p, 0) == 0; }

// Flag tables (space separated, with a space at both ends).
// Take the next argument and are kept:
constexpr const char *kKeepNext = " -I -isystem -include -D -U -Xptxas --ptxas-options -std --std -maxrregcount"
                                  " --maxrregcount --include-path --define-macro --undefine-macro -ccbin"
                                  " --compiler-bindir -Xcompiler --compiler-options ";
// Take the next argument and are dropped (outputs, dependencies, archs, linking):
constexpr const char *kDropNext = " -o --output-file -MF -MT -MQ -arch --gpu-architecture -code --gpu-code -gencode"
                                  " --generate-code -Xlinker --linker-options -x -l -L -odir --dependency-output"
                                  " -Xnvlink -Xfatbin -Xarchive --threads -t ";
// Kept when an argument starts with one of these:
constexpr const char *kKeepPrefix = " -I -D -U -std= --std= -O --use_fast_math -use_fast_math --ftz= -ftz= --prec-div="
                                    " -prec-div= --prec-sqrt= -prec-sqrt= --fmad= -fmad= --expt-relaxed-constexpr"
                                    " -expt-relaxed-constexpr --expt-extended-lambda -expt-extended-lambda"
                                    " --extended-lambda -extended-lambda -lineinfo --generate-line-info -Xptxas="
                                    " --ptxas-options= -maxrregcount= --maxrregcount= -isystem -ccbin="
                                    " --compiler-bindir= -Xcompiler= --compiler-options= -G --device-debug ";

bool in_table(const char *table, const std::string &a) {
  return std::string(table).find(" " + a + " ") != std::string::npos;
}

bool keeps_next(const std::string &a) { return in_table(kKeepNext, a); }
bool drops_next(const std::string &a) { return in_table(kDropNext, a); }

bool keeps_joined(const std::string &a) {
  std::string t = kKeepPrefix;
  for (size_t p = 1, e; (e = t.find(' ', p)) != std::string::npos; p = e + 1)
    if (starts_with(a, t.substr(p, e - p).c_str())) return true;
  return false;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

std::vector<std::string> cubin_command(const std::string &nvcc, const std::vector<std::string> &cmd,
                                       const std::string &arch, const std::string &input, const std::string &output,
                                       const std::string &extra_include) {
  std::vector<std::string> out{nvcc, "-cubin", "-arch=" + arch, "-I" + extra_include};
  for (size_t i = 1; i < cmd.size(); ++i) {
    const std::string &a = cmd[i];
    if (keeps_next(a) && i + 1 < cmd.size()) {
      out.push_back(a);
      out.push_back(cmd[++i]);
    } else if (drops_next(a)) {
      ++i;
    } else if (keeps_joined(a)) {
      out.push_back(a);
    }
  }
  out.insert(out.end(), {"-o", output, input});
  return out;
}

Expected<std::string> substituted_unit(const KernelTask &task, const std::string &kernel_source) {
  const tooling::Kernel &k = task.kernel;
  std::string def_file = k.file.empty() ? task.tu_path : k.file;
  if (fs::weakly_canonical(def_file) != fs::weakly_canonical(task.tu_path))
    return make_error("kernel " + k.qualified_name + " is defined in " + def_file + ", not in its unit " +
                          task.tu_path + " (header kernels are not optimized yet)",
                      "header-kernel");
  auto text = read_file(task.tu_path);
  if (!text) return text.error();
  size_t at = text->find(k.source);
  if (at == std::string::npos || k.source.empty())
    return make_error(task.tu_path + " no longer contains the registered definition of " + k.qualified_name +
                          " (rebuild it with kbcc)",
                      "stale-registry");
  tooling::Substitution sub{
      at,
      at + k.source.size(),
      {tooling::ArchVariant{tooling::cuda_arch_number(task.arch), "kbcc-candidate", kernel_source}}};
  if (k.is_template && tooling::is_explicit_specialization(kernel_source)) // after the template, kept
    sub.begin = sub.end, sub.specialization = true;
  return tooling::rewrite_unit(*text, task.tu_path, {sub});
}

namespace {

// The arguments of a capture, with some integers replaced, as a Scope.
class ArgScope : public launch::Scope {
public:
  ArgScope(const CaptureArgs &a, const std::map<std::string, int64_t> &overrides) : a_(a), over_(overrides) {}
  std::optional<int64_t> value(const std::string &name) const override {
    if (auto it = over_.find(name); it != over_.end()) return it->second;
    for (size_t i = 0; i < a_.names.size(); ++i)
      if (a_.names[i] == name) return a_.integers[i];
    return std::nullopt;
  }
  std::optional<uint64_t> address(const std::string &name) const override {
    for (size_t i = 0; i < a_.names.size(); ++i)
      if (a_.names[i] == name) return a_.pointers[i];
    return std::nullopt;
  }

private:
  const CaptureArgs &a_;
  const std::map<std::string, int64_t> &over_;
};

gpu::LaunchShape shape_of(const launch::Launch &l) {
  gpu::LaunchShape s;
  s.grid = {l.grid[0], l.grid[1], l.grid[2]};
  s.block = {l.block[0], l.block[1], l.block[2]};
  s.shared = l.shared;
  return s;
}

// The candidate's launch on a capture: nullopt when a precondition does not
// hold there (the adapter would run the original); an Error for a mapping
// that cannot be evaluated.
Expected<std::optional<gpu::LaunchShape>> candidate_shape(const Candidate &cand, const CaptureArgs &a,
                                                          const std::map<std::string, int64_t> &overrides,
                                                          bool &skipped) {
  skipped = false;
  if (!cand.launch) return std::optional<gpu::LaunchShape>{};
  ArgScope scope(a, overrides);
  auto applied = launch::apply_mapping(*cand.launch, a.launch, scope);
  if (!applied) return applied.error();
  if (!applied->ok) {
    skipped = true;
    return std::optional<gpu::LaunchShape>{};
  }
  return std::optional<gpu::LaunchShape>(shape_of(applied->launch));
}

// Smaller values of the candidate's size arguments, each a variation checked
// against the original: n - 1 and about n / 2 (both >= 1).
std::vector<std::map<std::string, int64_t>> size_variations(const Candidate &cand, const CaptureArgs &a) {
  std::vector<std::map<std::string, int64_t>> out(2);
  for (const std::string &name : cand.size_params)
    for (size_t i = 0; i < a.names.size(); ++i)
      if (a.names[i] == name && a.integers[i] && *a.integers[i] > 2) {
        out[0][name] = *a.integers[i] - 1;
        out[1][name] = *a.integers[i] / 2 + 1;
      }
  if (out[0].empty()) return {};
  return out;
}

unsigned param_index(const CaptureArgs &a, const std::string &name) {
  for (size_t i = 0; i < a.names.size(); ++i)
    if (a.names[i] == name) return static_cast<unsigned>(i);
  return ~0u;
}

} // namespace

GpuEvaluator::GpuEvaluator(GpuEvaluatorOptions options) : o_(std::move(options)), session_(o_.runner) {
  work_dir_ = make_temp_dir("kbcc-optimize").value_or("/tmp");
  if (o_.compile_jobs == 0) o_.compile_jobs = std::max(1u, std::thread::hardware_concurrency());
}

GpuEvaluator::~GpuEvaluator() {
  if (work_dir_ != "/tmp") remove_all(work_dir_);
}

Expected<std::string> GpuEvaluator::build(const KernelTask &original, const std::string &source, int id) {
  auto located = materialize_unit(original, o_.store, work_dir_); // the stored closure, else the checkout
  if (!located) return located.error();
  const KernelTask task = at_unit(original, *located);
  auto unit = substituted_unit(task, source);
  if (!unit) return unit.error();
  std::string stem = work_dir_ + "/c" + std::to_string(id);
  std::string cu = stem + fs::path(task.tu_path).extension().string();
  Status st = write_file_atomic(cu, *unit);
  if (!st) return st.error();
  ProcessOptions po;
  po.cwd = task.working_dir;
  po.timeout = std::chrono::minutes(5);
  auto argv = cubin_command(o_.nvcc, task.compile_command, task.arch, cu, stem + ".cubin",
                            fs::path(task.tu_path).parent_path().string());
  auto r = run_process(argv, po);
  if (!r) return r.error();
  if (r->exit_code != 0 || r->timed_out) return make_error(r->err + r->out, "compile");
  return stem + ".cubin";
}

std::vector<Expected<std::string>> GpuEvaluator::build_all(const KernelTask &task,
                                                           const std::vector<std::string> &sources) {
  std::vector<std::future<Expected<std::string>>> running;
  std::vector<Expected<std::string>> out;
  for (size_t i = 0; i < sources.size(); ++i) {
    int id = builds_++;
    running.push_back(
        std::async(std::launch::async, [this, &task, &sources, i, id] { return build(task, sources[i], id); }));
    if (running.size() >= o_.compile_jobs || i + 1 == sources.size()) {
      for (auto &f : running)
        out.push_back(f.get());
      running.clear();
    }
  }
  return out;
}

Expected<std::vector<CaptureArgs>> GpuEvaluator::captures(const KernelTask &task) {
  std::string key = task.kernel.hash + "/" + task.arch;
  if (!usable_.count(key)) {
    std::vector<gpu::CaptureInfo> found;
    for (const std::string &id : task.captures) {
      auto c = gpu::find_capture(o_.captures_dir, id);
      if (!c) return c.error();
      found.push_back(*c);
    }
    if (found.empty())
      return make_error("no replayable capture of " + task.kernel.qualified_name + " for " + task.arch, "no-captures");
    gpu::ReplayOptions ro;
    ro.runner = o_.runner;
    auto usable = usable_captures(
        task, std::move(found), [&] { return original(task); }, ro);
    if (!usable) return usable.error();
    usable_[key] = std::move(*usable);
  }
  std::vector<CaptureArgs> out;
  for (const gpu::CaptureInfo &c : usable_[key]) {
    if (!args_.count(c.id)) {
      auto a = read_capture_args(c, task.kernel.params);
      if (!a) return a.error();
      args_[c.id] = std::make_shared<CaptureArgs>(std::move(*a));
    }
    out.push_back(*args_[c.id]);
    out.back().info = c; // with its reference, when it needs one
  }
  return out;
}

Expected<std::string> GpuEvaluator::original(const KernelTask &task) {
  std::string key = task.kernel.hash + "/" + task.arch;
  if (key != task_key_) {
    session_.drop();
    task_key_ = key;
    original_cubin_.clear();
    baseline_us_.clear();
    baseline_metrics_.reset();
  }
  if (!original_cubin_.empty()) return original_cubin_;
  auto cubin = build(task, task.kernel.source, builds_++);
  if (!cubin)
    return make_error("the original kernel does not compile for " + task.arch + ": " +
                          cubin.error().message.substr(0, 2000),
                      "baseline-compile");
  original_cubin_ = *cubin;
  return original_cubin_;
}

Expected<Measurement> GpuEvaluator::baseline(const KernelTask &task) {
  double before = session_.seconds();
  auto caps = captures(task);
  if (!caps) return caps.error();
  auto cubin = original(task);
  if (!cubin) return cubin.error();
  Measurement m;
  for (const CaptureArgs &c : *caps) {
    gpu::TimeRequest q;
    q.candidate = *cubin;
    q.reference = c.info.reference;
    q.reps = o_.timing_reps;
    auto t = session_.time(c.info, q);
    if (!t) return t.error();
    baseline_us_[c.info.id] = t->at(0).median_us;
    m.timing.median_ms += t->at(0).median_us / 1000.0;
    m.timing.spread_ms += (t->at(0).p75_us - t->at(0).p25_us) / 2000.0;
    m.timing.samples += static_cast<int>(t->at(0).reps);
  }
  m.gpu_seconds = session_.seconds() - before;
  if (!baseline_metrics_) {
    auto start = std::chrono::steady_clock::now();
    baseline_metrics_ = profile(task, Candidate{task.kernel.source, {}, "original", {}, "", "", {}, {}});
    m.gpu_seconds += seconds_since(start);
  }
  m.metrics = *baseline_metrics_;
  return m;
}

Expected<Evaluation> GpuEvaluator::judge(const KernelTask &task, const Candidate &cand, const std::string &cubin) {
  double before = session_.seconds();
  Evaluation e;
  e.compiled = true;
  auto caps = captures(task);
  if (!caps) return caps.error();
  std::map<unsigned, gpu::ElementType> types;
  for (size_t i = 0; i < task.kernel.params.size(); ++i)
    if (task.kernel.params[i].is_pointer)
      types[static_cast<unsigned>(i)] = gpu::element_type_from_name(task.kernel.params[i].pointee_type);
  Timing timing;
  for (const CaptureArgs &c : *caps) {
    bool skipped = false;
    auto shape = candidate_shape(cand, c, {}, skipped);
    if (!shape) {
      e.validation_log = "capture " + c.info.id + ": " + shape.error().message;
      return e;
    }
    if (skipped) { // the original runs on this capture
      ++e.captures_skipped;
      timing.median_ms += baseline_us_[c.info.id] / 1000.0;
      continue;
    }
    gpu::CheckRequest q;
    q.candidate = cubin;
    q.reference = c.info.reference;
    q.shape = *shape;
    q.fuzz_rounds = o_.fuzz_rounds;
    q.types = types;
    if (cand.numerics == cache::kNumericsReassociates && !cand.reduction_length.empty()) {
      ArgScope scope(c, {});
      if (auto n = launch::parse_expr(cand.reduction_length); n)
        if (auto v = launch::evaluate(**n, scope); v && *v > 0) q.reassociation_n = static_cast<uint64_t>(*v);
    }
    for (const auto &over : size_variations(cand, c)) {
      bool off = false;
      auto vshape = candidate_shape(cand, c, over, off);
      if (!vshape || off) continue;
      gpu::CheckRequest::Variation v;
      for (const auto &[name, value] : over)
        v.params[param_index(c, name)] = value;
      v.shape = *vshape;
      q.variations.push_back(v);
    }
    auto r = session_.check(c.info, q);
    if (!r) return r.error();
    e.max_error = std::max(e.max_error, r->max_error);
    e.tolerance = std::max(e.tolerance, r->tolerance);
    if (!r->pass) {
      e.validation_log = "capture " + c.info.id + ": " + r->reason;
      e.gpu_seconds = session_.seconds() - before;
      return e;
    }
    ++e.captures_checked;
    gpu::TimeRequest tq;
    tq.candidate = cubin;
    tq.reference = c.info.reference;
    tq.shape = *shape;
    tq.reps = o_.timing_reps;
    auto t = session_.time(c.info, tq);
    if (!t) return t.error();
    timing.median_ms += t->at(0).median_us / 1000.0;
    timing.spread_ms += (t->at(0).p75_us - t->at(0).p25_us) / 2000.0;
    timing.samples += static_cast<int>(t->at(0).reps);
  }
  e.gpu_seconds = session_.seconds() - before;
  if (e.captures_checked == 0) {
    e.validation_log = "the variant's preconditions hold on no capture";
    return e;
  }
  e.validated = true;
  e.tolerance = std::max(e.tolerance, e.max_error);
  e.timing = timing;
  return e;
}

std::vector<Expected<Evaluation>> GpuEvaluator::evaluate(const KernelTask &task,
                                                         const std::vector<Candidate> &candidates) {
  std::vector<Expected<Evaluation>> out;
  auto orig = original(task);
  if (!orig) {
    for (size_t i = 0; i < candidates.size(); ++i)
      out.push_back(orig.error());
    return out;
  }
  if (baseline_us_.empty()) (void)baseline(task);
  std::vector<std::string> sources;
  for (const Candidate &c : candidates)
    sources.push_back(c.source);
  auto cubins = build_all(task, sources);
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!cubins[i]) {
      if (cubins[i].error().code != "compile") {
        out.push_back(cubins[i].error());
        continue;
      }
      Evaluation e;
      e.compile_log = cubins[i].error().message;
      out.push_back(e);
      continue;
    }
    out.push_back(judge(task, candidates[i], *cubins[i]));
  }
  return out;
}

namespace {

// The first capture where `cand`'s preconditions hold, with its launch.
std::optional<std::pair<CaptureArgs, std::string>> first_applicable(const Candidate &cand,
                                                                    const std::vector<CaptureArgs> &caps) {
  for (const CaptureArgs &c : caps) {
    bool skipped = false;
    auto shape = candidate_shape(cand, c, {}, skipped);
    if (!shape || skipped) continue;
    return std::make_pair(c, *shape ? gpu::launch_arg(**shape) : std::string());
  }
  return std::nullopt;
}

} // namespace

Metrics GpuEvaluator::profile(const KernelTask &task, const Candidate &cand) {
  if (!o_.profile) return {};
  auto caps = captures(task);
  if (!caps) return {};
  auto at = first_applicable(cand, *caps);
  if (!at) return {};
  auto cubin = cand.source == task.kernel.source ? original(task) : build(task, cand.source, builds_++);
  if (!cubin) return {};
  gpu::ProfileOptions po;
  po.runner = o_.runner;
  po.launch = at->second;
  auto p = gpu::profile(at->first.info, *cubin, po);
  if (!p) {
    log_line("kbcc optimize: profiling failed (" + p.error().message + "); state from timing only");
    return {};
  }
  return Metrics(p->metrics.begin(), p->metrics.end());
}

Expected<bool> GpuEvaluator::sanitize(const KernelTask &task, const Candidate &cand, std::string &report) {
  report.clear();
  if (!o_.memcheck) return true;
  auto caps = captures(task);
  if (!caps) return caps.error();
  auto at = first_applicable(cand, *caps);
  if (!at) return make_error("the variant's preconditions hold on no capture");
  auto cubin = build(task, cand.source, builds_++);
  if (!cubin) return cubin.error();
  auto s = gpu::sanitize(at->first.info, *cubin, gpu::SanitizerTool::Memcheck, o_.runner, at->second);
  if (!s) {
    if (s.error().code == "no-sanitizer") return true; // not installed: "skipped"
    return s.error();
  }
  report = "memcheck: " + std::to_string(s->errors) + " error(s)" + (s->clean ? "" : ": " + s->summary);
  return s->clean;
}

} // namespace kbcc::agent

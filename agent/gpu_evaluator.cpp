#include "agent/gpu_evaluator.h"

#include "agent/arch_captures.h"
#include "agent/unit_source.h"
#include "support/fs.h"
#include "support/log.h"
#include "support/process.h"
#include "tooling/rewrite.h"

#include <chrono>
#include <filesystem>

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
  return tooling::rewrite_unit(*text, task.tu_path, {sub});
}

GpuEvaluator::GpuEvaluator(GpuEvaluatorOptions options) : o_(std::move(options)) {
  work_dir_ = make_temp_dir("kbcc-optimize").value_or("/tmp");
}

GpuEvaluator::~GpuEvaluator() {
  if (work_dir_ != "/tmp") remove_all(work_dir_);
}

Expected<std::string> GpuEvaluator::build(const KernelTask &original, const std::string &source) {
  auto located = materialize_unit(original, o_.store, work_dir_); // the stored closure, else the checkout
  if (!located) return located.error();
  const KernelTask task = at_unit(original, *located);
  auto unit = substituted_unit(task, source);
  if (!unit) return unit.error();
  std::string stem = work_dir_ + "/c" + std::to_string(builds_++);
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

Expected<std::vector<gpu::CaptureInfo>> GpuEvaluator::captures(const KernelTask &task) {
  std::string key = task.kernel.hash + "/" + task.arch;
  if (auto it = usable_.find(key); it != usable_.end()) return it->second;
  std::vector<gpu::CaptureInfo> out;
  for (const std::string &id : task.captures) {
    auto c = gpu::find_capture(o_.captures_dir, id);
    if (!c) return c.error();
    out.push_back(*c);
  }
  if (out.empty())
    return make_error("no replayable capture of " + task.kernel.qualified_name + " for " + task.arch, "no-captures");
  gpu::ReplayOptions ro;
  ro.runner = o_.runner;
  auto build_baseline = [&] { return build(task, task.kernel.source); };
  auto usable = usable_captures(task, std::move(out), build_baseline, ro);
  if (!usable) return usable.error();
  return usable_[key] = std::move(*usable);
}

Expected<Timing> GpuEvaluator::time_all(const std::vector<gpu::CaptureInfo> &caps, const std::string &cubin) {
  Timing t;
  gpu::TimingOptions to;
  to.runner = o_.runner;
  to.reps = o_.timing_reps;
  for (const auto &c : caps) {
    auto s = gpu::time_capture(c, cubin, to);
    if (!s) return s.error();
    t.median_ms += s->median_us / 1000.0;
    t.spread_ms += (s->p75_us - s->p25_us) / 2000.0;
    t.samples += static_cast<int>(s->reps);
  }
  return t;
}

Metrics GpuEvaluator::profile(const gpu::CaptureInfo &capture, const std::string &cubin) {
  if (!o_.profile) return {};
  gpu::ProfileOptions po;
  po.runner = o_.runner;
  auto p = gpu::profile(capture, cubin, po);
  if (!p) {
    log_line("kbcc optimize: profiling failed (" + p.error().message + "); state from timing only");
    return {};
  }
  return Metrics(p->metrics.begin(), p->metrics.end());
}

Expected<Measurement> GpuEvaluator::baseline(const KernelTask &task) {
  auto start = std::chrono::steady_clock::now();
  auto caps = captures(task);
  if (!caps) return caps.error();
  auto cubin = build(task, task.kernel.source);
  if (!cubin)
    return make_error("the original kernel does not compile for " + task.arch + ": " +
                          cubin.error().message.substr(0, 2000),
                      "baseline-compile");
  auto t = time_all(*caps, *cubin);
  if (!t) return t.error();
  Measurement m;
  m.timing = *t;
  m.metrics = profile(caps->front(), *cubin);
  m.gpu_seconds = seconds_since(start);
  return m;
}

Expected<Evaluation> GpuEvaluator::evaluate(const KernelTask &task, const Candidate &candidate) {
  auto start = std::chrono::steady_clock::now();
  Evaluation e;
  auto caps = captures(task);
  if (!caps) return caps.error();
  auto cubin = build(task, candidate.source);
  if (!cubin) {
    if (cubin.error().code != "compile") return cubin.error();
    e.compile_log = cubin.error().message;
    return e;
  }
  e.compiled = true;
  gpu::ValidationOptions vo;
  vo.replay.runner = o_.runner;
  vo.fuzz_rounds = o_.fuzz_rounds;
  for (size_t i = 0; i < task.kernel.params.size(); ++i)
    if (task.kernel.params[i].is_pointer)
      vo.replay.param_types[static_cast<unsigned>(i)] = gpu::element_type_from_name(task.kernel.params[i].pointee_type);
  for (size_t i = 0; i < caps->size(); ++i) {
    vo.memcheck = o_.memcheck && i == 0;
    auto v = gpu::validate((*caps)[i], *cubin, vo);
    if (!v) return v.error();
    e.max_error = std::max(e.max_error, v->max_error);
    for (const auto &b : v->replay.buffers)
      e.tolerance = std::max(e.tolerance, b.tolerance.abs);
    e.sanitizer_ran |= !v->sanitizers.empty();
    for (const auto &s : v->sanitizers)
      if (!s.clean) {
        e.sanitizer_clean = false;
        e.validation_log = "capture " + (*caps)[i].id + ": compute-sanitizer: " + s.summary;
      }
    if (!v->pass) {
      e.validation_log = "capture " + (*caps)[i].id + ": " + v->reason;
      e.gpu_seconds = seconds_since(start);
      return e;
    }
  }
  e.validated = true;
  e.tolerance = std::max(e.tolerance, e.max_error); // the harness passed it with its relative tolerance
  auto t = time_all(*caps, *cubin);
  if (!t) return t.error();
  e.timing = *t;
  e.metrics = profile(caps->front(), *cubin);
  e.gpu_seconds = seconds_since(start);
  return e;
}

} // namespace kbcc::agent

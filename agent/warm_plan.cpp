#include "agent/warm_plan.h"

#include "agent/gpu_evaluator.h"
#include "agent/lowering.h"
#include "agent/run.h"
#include "agent/unit_source.h"
#include "cache/env.h"
#include "gpu/analysis.h"
#include "kb/closure.h"
#include "support/config.h"
#include "support/fs.h"
#include "support/process.h"
#include "transform/transform.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace kbcc::agent {
namespace {

namespace fs = std::filesystem;

std::string capture_summary(const KernelTask &t, const std::vector<gpu::CaptureInfo> &all) {
  std::map<std::string, int> per_arch;
  for (const auto &c : all)
    if (std::find(t.captures.begin(), t.captures.end(), c.id) != t.captures.end()) ++per_arch[c.arch];
  std::string s;
  for (const auto &[arch, n] : per_arch)
    s += (s.empty() ? "" : ", ") + (arch.empty() ? std::string("unknown") : arch) + ": " + std::to_string(n);
  return std::to_string(t.captures.size()) + " (recorded on " + s + ")";
}

std::string unit_summary(const UnitSource &u, cache::Env &env, const std::string &closure) {
  if (u.closure_root.empty()) return "checkout " + u.tu_path;
  auto c = kb::ClosureStore(env, 0).get(closure);
  size_t files = c && *c ? (*c)->files.size() : 0;
  return u.origin + " (" + std::to_string(files) + " files)";
}

// Compiles the original kernel of `task` from `unit` for task.arch into a
// cubin under `dir`; the verdict line.
std::string compile_original(const KernelTask &task, const UnitSource &unit, const std::string &nvcc,
                             const std::string &dir, bool &ok) {
  ok = false;
  KernelTask at = at_unit(task, unit);
  auto text = substituted_unit(at, at.kernel.source);
  if (!text) return "failed: " + text.error().message;
  std::string stem = dir + "/" + task.kernel.hash.substr(0, 16);
  if (auto s = write_file_atomic(stem + fs::path(at.tu_path).extension().string(), *text); !s)
    return "failed: " + s.error().message;
  ProcessOptions po;
  po.cwd = at.working_dir;
  po.timeout = std::chrono::minutes(5);
  auto r =
      run_process(cubin_command(nvcc, at.compile_command, at.arch, stem + fs::path(at.tu_path).extension().string(),
                                stem + ".cubin", fs::path(at.tu_path).parent_path().string()),
                  po);
  if (!r) return "failed: " + r.error().message;
  if (r->exit_code != 0 || r->timed_out) return "failed: " + (r->err + r->out).substr(0, 2000);
  auto elf = read_file(stem + ".cubin");
  auto info = elf ? gpu::inspect_cubin(*elf) : Expected<gpu::CubinInfo>(elf.error());
  if (!info) return "failed: the cubin cannot be read: " + info.error().message;
  for (const auto &k : info->kernels)
    if (std::find(task.kernel.mangled_names.begin(), task.kernel.mangled_names.end(), k) !=
        task.kernel.mangled_names.end()) {
      ok = true;
      return "ok, cubin has " + k;
    }
  return "failed: the cubin has none of the kernel's entries";
}

// The structural transforms whose legality analysis accepts the original
// kernel, parsed as `optimize` parses it (from the closure in `store` when the
// checkout is gone); "none" when there is none.
std::string structural_summary(const KernelTask &task, cache::Env *store, const std::string &dir) {
  MechanicalLowerer lowerer;
  lowerer.use_closures(store, dir);
  Candidate original{task.kernel.source, {}, "original"};
  std::string s;
  for (const transform::Transform &t : transform::transforms()) {
    Option o;
    o.id = o.mechanical = t.id;
    if (t.needs_ast && lowerer.applies(o, task, original) == true) s += std::string(s.empty() ? "" : ", ") + t.id;
  }
  return s.empty() ? "none" : s;
}

} // namespace

int dry_run_warm(const Config &config, const std::string &arch, const std::string &nvcc, std::ostream &out,
                 std::ostream &err) {
  auto env = cache::Env::open(config.dir(), cache::env_options(config, true));
  if (!env && env.error().code == cache::kErrAbsent) {
    out << "kbcc warm --dry-run: no store in " << config.dir() << " yet: nothing to warm\n";
    return 0;
  }
  auto entries = env ? kb::Registry(**env).list() : Expected<std::vector<kb::RegistryEntry>>(env.error());
  gpu::CaptureFilter filter;
  filter.replayable_only = true;
  auto caps = gpu::list_captures(config.dir() + "/captures", filter);
  for (const Error *e : {entries ? nullptr : &entries.error(), caps ? nullptr : &caps.error()})
    if (e) {
      err << "kbcc warm: " << e->message << "\n";
      return 1;
    }
  std::vector<KernelTask> tasks = collect_tasks(*entries, *caps, arch, "");
  out << "kbcc warm --dry-run: " << tasks.size() << " kernel(s) for " << arch << "\n";
  auto dir = make_temp_dir("kbcc-warm-check");
  if (!dir) {
    err << "kbcc warm: " << dir.error().message << "\n";
    return 1;
  }
  int failures = 0;
  for (const KernelTask &t : tasks) {
    out << t.kernel.qualified_name << " " << t.kernel.hash << "\n  captures: " << capture_summary(t, *caps) << "\n";
    auto unit = materialize_unit(t, env->get(), *dir);
    if (!unit) {
      out << "  unit: none: " << unit.error().message << "\n";
      ++failures;
      continue;
    }
    bool ok = false;
    out << "  unit: " << unit_summary(*unit, **env, t.closure) << "\n";
    out << "  compile for " << arch << ": " << compile_original(t, *unit, nvcc, *dir, ok) << "\n";
    out << "  structural transforms: " << structural_summary(t, env->get(), *dir) << "\n";
    failures += ok ? 0 : 1;
  }
  remove_all(*dir);
  return failures ? 1 : 0;
}

} // namespace kbcc::agent

#include "agent/run.h"

#include "agent/capture_args.h"
#include "agent/gpu_evaluator.h"
#include "agent/gradient.h"
#include "agent/kb_policy.h"
#include "agent/llm_lowering.h"
#include "agent/progress.h"
#include "agent/why_nothing.h"
#include "cache/env.h"
#include "kb/policy.h"
#include "support/config.h"
#include "support/fs.h"
#include "support/hash.h"
#include "support/log.h"
#include "support/process.h"
#include "tooling/kernel_text.h"
#include "transform/specialize.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <unistd.h>

namespace kbcc::agent {
namespace {

bool matches(const kb::RegistryEntry &e, const std::string &filter) {
  if (filter.empty() || e.qualified_name == filter || e.hash.rfind(filter, 0) == 0) return true;
  for (const auto &m : e.mangled_names)
    if (m == filter) return true;
  return false;
}

bool has_name(const kb::RegistryEntry &e, const std::string &mangled) {
  return std::find(e.mangled_names.begin(), e.mangled_names.end(), mangled) != e.mangled_names.end();
}

// Whether capture `c` records kernel `e`: by its registry hash, or by the
// hash of the same definition built for another arch or with other flags
// (its captures serve `e` when `e`'s own build reproduces them, see
// agent/arch_captures.h), or by device name when it has no hash.
bool capture_of(const gpu::CaptureInfo &c, const kb::RegistryEntry &e,
                const std::map<std::string, const kb::RegistryEntry *> &by_hash) {
  if (c.kernel_hash == e.hash) return true;
  if (c.kernel_hash.empty()) return has_name(e, c.kernel);
  auto it = by_hash.find(c.kernel_hash);
  return it != by_hash.end() && it->second->source == e.source && has_name(*it->second, c.kernel) &&
         has_name(e, c.kernel);
}

// Whether a build compiled `e` for `arch` (its hash is the one a build for
// `arch` looks its variant up under); an entry without archs counts as built
// for every arch.
bool built_for(const kb::RegistryEntry &e, const std::string &arch) {
  return e.archs.empty() || std::find(e.archs.begin(), e.archs.end(), arch) != e.archs.end();
}

std::string trajectory_id(const TrajectoryRecord &t, const RunContext &ctx) {
  return hash_hex(t.kernel_hash + "/" + t.arch + "/" + std::to_string(ctx.started) + "/" + std::to_string(getpid()) +
                  "/" + std::to_string(t.index));
}

std::string real_nvcc(const Config &config) {
  if (!config.get("nvcc").empty()) return config.get("nvcc");
  if (const char *home = getenv("CUDA_HOME"))
    if (file_exists(std::string(home) + "/bin/nvcc")) return std::string(home) + "/bin/nvcc";
  if (file_exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return find_in_path("nvcc").value_or("nvcc");
}

std::string join_ids(const std::vector<std::string> &v) {
  std::string s;
  for (const auto &x : v)
    s += (s.empty() ? "" : "+") + x;
  return s.empty() ? "-" : s;
}

// One row of the table, the kernel's name in a column `name_width` wide.
void print_row(std::ostream &out, const KernelTask &t, const KernelResult &r, size_t name_width) {
  double base_us = r.baseline.timing.median_ms * 1000;
  double best_us = r.best ? r.best_eval.timing.median_ms * 1000 : base_us;
  out << std::left << std::setw(static_cast<int>(name_width)) << t.kernel.qualified_name.substr(0, name_width - 1)
      << " " << std::setw(7) << t.arch << " " << std::right << std::fixed << std::setprecision(2) << std::setw(11)
      << base_us << " " << std::setw(11) << best_us << " " << std::setw(7) << (r.best ? r.speedup : 1.0) << "x  "
      << std::left << std::setw(34) << (r.best ? join_ids(r.best->optimizations) : "-") << " " << r.verdict << "\n";
}

} // namespace

std::vector<KernelTask> collect_tasks(const std::vector<kb::RegistryEntry> &entries,
                                      const std::vector<gpu::CaptureInfo> &captures, const std::string &arch,
                                      const std::string &filter) {
  std::map<std::string, const kb::RegistryEntry *> by_hash;
  for (const auto &e : entries)
    by_hash[e.hash] = &e;
  std::vector<KernelTask> out;
  for (const auto &e : entries) {
    if (!matches(e, filter) || !e.not_optimizable.empty() || !built_for(e, arch)) continue;
    KernelTask t;
    for (const auto &c : captures) { // recorded on any arch: captures are inputs
      if (!c.replayable || !capture_of(c, e, by_hash)) continue;
      t.captures.push_back(c.id);
      launch::Launch l;
      l.grid[0] = c.grid.x, l.grid[1] = c.grid.y, l.grid[2] = c.grid.z;
      l.block[0] = c.block.x, l.block[1] = c.block.y, l.block[2] = c.block.z;
      l.shared = c.shared_mem;
      t.launches.push_back(l);
      auto args = read_capture_args(c, e.params);
      if (!args) log_line("kbcc optimize: " + args.error().message + " (its arguments stay unknown to the transforms)");
      t.arguments.push_back(args ? integer_args(*args) : std::map<std::string, int64_t>{});
    }
    if (t.captures.empty()) continue;
    t.kernel.qualified_name = e.qualified_name;
    // An instantiation of a template ("ns::k<float>"), not an explicit
    // specialization written in the program, whose text is its own.
    t.kernel.is_template =
        transform::is_instance_name(e.qualified_name) && !tooling::is_explicit_specialization(e.source);
    t.kernel.mangled_names = e.mangled_names;
    t.kernel.hash = e.hash;
    t.kernel.params = e.params;
    t.kernel.source = e.source;
    t.kernel.dependencies = e.dependencies;
    t.kernel.file = e.file;
    t.kernel.line = e.line;
    t.arch = arch;
    t.tu_path = e.tu_path;
    t.compile_command = e.compile_command;
    t.working_dir = e.working_dir;
    t.closure = e.closure;
    out.push_back(std::move(t));
  }
  return out;
}

kb::Trajectory store_trajectory(const TrajectoryRecord &t, const Measurement &baseline, const RunContext &ctx,
                                int64_t finished) {
  kb::Trajectory k;
  k.id = trajectory_id(t, ctx);
  k.kernel_hash = t.kernel_hash;
  k.arch = t.arch;
  k.gpu_name = ctx.gpu_name;
  k.llm_model = ctx.llm_model;
  k.contributor = ctx.contributor;
  k.kb_snapshot = ctx.kb_snapshot;
  k.index = static_cast<uint32_t>(t.index);
  k.started = t.started ? t.started : ctx.started;
  k.finished = finished;
  k.baseline_median_us = baseline.timing.median_ms * 1000;
  k.initial_state = t.steps.empty() ? "" : t.steps.front().state;
  k.best_speedup = t.best_speedup > 1 ? t.best_speedup : 0;
  k.cost = t.usage.cost;
  for (const StepRecord &s : t.steps) {
    kb::TrajectoryStep ks;
    ks.index = static_cast<uint32_t>(s.index);
    ks.state = s.state;
    ks.optimization = s.option;
    ks.lowering = s.lowering.rfind("llm", 0) == 0 ? "llm" : s.lowering;
    ks.compiled = s.compiled;
    ks.validated = s.validated;
    ks.speedup = s.total_speedup;
    ks.candidate_median_us = s.candidate_median_ms * 1000;
    ks.next_state = s.next_state;
    ks.failure = s.validated ? "" : s.error.substr(0, 500);
    ks.tokens_in = static_cast<uint64_t>(s.usage.input_tokens);
    ks.tokens_out = static_cast<uint64_t>(s.usage.output_tokens);
    ks.gpu_seconds = s.gpu_seconds;
    ks.wall_seconds = s.wall_seconds;
    ks.candidates = static_cast<uint32_t>(std::max(1, s.candidates));
    ks.params = nlohmann::json(s.params);
    ks.metrics = nlohmann::json(s.metrics);
    k.steps.push_back(std::move(ks));
  }
  return k;
}

cache::VariantRecord variant_record(const KernelTask &task, const Candidate &best, const Measurement &baseline,
                                    const Evaluation &eval, const RunContext &ctx, const std::string &trajectory) {
  cache::VariantRecord v;
  v.kernel_hash = task.kernel.hash;
  v.arch = task.arch;
  v.qualified_name = task.kernel.qualified_name;
  v.source = best.source;
  v.toolchain = ctx.toolchain;
  v.launch = best.launch;
  v.numerics = best.numerics.empty() ? cache::kNumericsExact : best.numerics;
  v.provenance.trajectory = trajectory;
  v.provenance.optimizations = best.optimizations;
  v.provenance.kb_snapshot = ctx.kb_snapshot;
  v.provenance.llm_model = best.lowering.rfind("llm:", 0) == 0 ? best.lowering.substr(4) : "";
  v.provenance.contributor = ctx.contributor;
  v.provenance.created = cache::now_seconds();
  v.validation.captures_checked = static_cast<uint32_t>(eval.captures_checked);
  v.validation.max_error = eval.max_error;
  v.validation.tolerance = std::max(eval.tolerance, eval.max_error);
  v.validation.sanitizer = !eval.sanitizer_ran ? "skipped" : eval.sanitizer_clean ? "clean" : "errors";
  v.validation.notes =
      "replayed, fuzzed and with smaller size arguments on " + std::to_string(eval.captures_checked) + " capture(s)" +
      (eval.captures_skipped
           ? "; preconditions fail on " + std::to_string(eval.captures_skipped) + " capture(s), where the original runs"
           : "");
  v.timing.baseline_median_us = baseline.timing.median_ms * 1000;
  v.timing.baseline_spread_us = baseline.timing.spread_ms * 1000;
  v.timing.variant_median_us = eval.timing.median_ms * 1000;
  v.timing.variant_spread_us = eval.timing.spread_ms * 1000;
  v.timing.runs = static_cast<uint32_t>(eval.timing.samples);
  v.timing.gpu_name = ctx.gpu_name;
  v.timing.driver = ctx.driver;
  return v;
}

Expected<std::vector<std::string>> optimizable_kernels(const Config &config, const std::string &arch) {
  auto env = cache::Env::open(config.dir(), cache::env_options(config, true));
  if (!env) return env.error();
  auto entries = kb::Registry(**env).list();
  if (!entries) return entries.error();
  gpu::CaptureFilter filter; // every arch: a capture from any GPU serves any other
  filter.replayable_only = true;
  auto caps = gpu::list_captures(config.dir() + "/captures", filter);
  if (!caps) return caps.error();
  std::vector<std::string> out;
  for (const KernelTask &t : collect_tasks(*entries, *caps, arch, ""))
    out.push_back(t.kernel.hash);
  return out;
}

namespace {

// The stores and helpers one run works with.
struct Stores {
  kb::Registry registry;
  kb::PolicyStore policy;
  kb::TrajectoryStore trajectories;
  cache::VariantStore variants;
  explicit Stores(cache::Env &env) : registry(env), policy(env), trajectories(env), variants(env) {}
};

// Records the first baseline the loop measures (for the trajectory records).
class BaselineRecorder : public Evaluator {
public:
  BaselineRecorder(Evaluator &inner, Measurement &base) : inner_(inner), base_(base) {}
  Expected<Measurement> baseline(const KernelTask &t) override {
    auto m = inner_.baseline(t);
    if (m && base_.timing.median_ms == 0) base_ = *m;
    return m;
  }
  std::vector<Expected<Evaluation>> evaluate(const KernelTask &t, const std::vector<Candidate> &c) override {
    return inner_.evaluate(t, c);
  }
  Metrics profile(const KernelTask &t, const Candidate &c) override { return inner_.profile(t, c); }
  Expected<bool> sanitize(const KernelTask &t, const Candidate &c, std::string &report) override {
    return inner_.sanitize(t, c, report);
  }

private:
  Evaluator &inner_;
  Measurement &base_;
};

// Hooks that store trajectories and variants of one kernel and run the
// textual gradient when an LLM is configured.
LoopHooks kernel_hooks(Stores &stores, const RunRequest &req, RunContext &ctx, const Measurement &base,
                       std::map<int, std::string> &ids, llm::Client *client, ProgressBar &bar) {
  LoopHooks hooks;
  hooks.progress = [&bar](long d, long t, const std::string &label) { bar.update(d, t, label); };
  hooks.store_trajectory = [&](const TrajectoryRecord &t) {
    kb::Trajectory k = store_trajectory(t, base, ctx, cache::now_seconds());
    ids[t.index] = k.id;
    return stores.trajectories.put(k);
  };
  hooks.store_variant = [&](const KernelTask &t, const Candidate &c, const Measurement &b, const Evaluation &e,
                            int traj) {
    cache::VariantRecord record = variant_record(t, c, b, e, ctx, ids[traj]);
    if (req.prepare_variant) {
      Status st = req.prepare_variant(record);
      if (!st) return st;
    }
    auto put = stores.variants.put(record);
    if (!put) return Status(put.error());
    if (*put && req.stored_variant) req.stored_variant(record);
    return Status::ok();
  };
  if (client)
    hooks.learn = [client](Policy &p, const std::vector<TrajectoryRecord> &recent) -> Expected<Usage> {
      auto g = textual_gradient(*client, p, recent);
      if (!g) return g.error();
      if (!g->applied) log_line("kbcc optimize: KB edit not applied: " + g->message);
      return g->usage;
    };
  return hooks;
}

void print_table(std::ostream &out, const std::vector<std::pair<KernelTask, KernelResult>> &results,
                 const Budget &budget) {
  size_t name_width = 28; // wider for long names (template instances), up to 64
  for (const auto &[t, r] : results)
    name_width = std::max(name_width, std::min<size_t>(64, t.kernel.qualified_name.size() + 1));
  out << std::left << std::setw(static_cast<int>(name_width)) << "kernel"
      << " " << std::setw(7) << "arch"
      << " " << std::right << std::setw(11) << "baseline_us"
      << " " << std::setw(11) << "best_us"
      << " " << std::setw(8) << "speedup"
      << "  " << std::left << std::setw(34) << "optimizations"
      << " verdict\n";
  for (const auto &[t, r] : results)
    print_row(out, t, r, name_width);
  out << "gpu seconds " << std::fixed << std::setprecision(1) << budget.gpu_seconds << ", tokens " << budget.tokens
      << ", cost " << std::setprecision(4) << budget.cost << "\n";
}

// The tasks of this run; an Error names the store, KB or capture problem.
Expected<std::vector<KernelTask>> load_tasks(const Config &config, Stores &stores, const std::string &arch,
                                             const std::string &filter) {
  auto entries = stores.registry.list();
  if (!entries) return entries.error();
  gpu::CaptureFilter cf; // every arch: a capture from any GPU serves any other
  cf.replayable_only = true;
  auto caps = gpu::list_captures(config.dir() + "/captures", cf);
  if (!caps) return caps.error();
  return collect_tasks(*entries, *caps, arch, filter);
}

// Prints "kbcc: <message>" and returns the failure exit status.
int fail(std::ostream &err, const std::string &message) {
  err << "kbcc: " << message << "\n";
  return 1;
}

} // namespace

int run_optimize(const Config &config, const RunRequest &req, std::ostream &out, std::ostream &err) {
  gpu::RunnerOptions runner;
  auto dev = gpu::device_info(runner);
  if (!dev) return fail(err, "no usable GPU: " + dev.error().message);
  if (!req.arch.empty() && req.arch != dev->arch)
    return fail(err, "the local GPU (" + dev->name + ") is " + dev->arch + "; variants for " + req.arch +
                         " must be produced on a " + req.arch + " GPU");
  auto env = cache::Env::open(config.dir(), cache::env_options(config));
  if (!env) return fail(err, env.error().message);
  Stores stores(**env);
  auto tasks = load_tasks(config, stores, dev->arch, req.kernel);
  auto loaded = stores.policy.load();
  auto contributor = stores.policy.contributor(config.get("contributor"));
  for (const Error *e : {tasks ? nullptr : &tasks.error(), loaded ? nullptr : &loaded.error(),
                         contributor ? nullptr : &contributor.error()})
    if (e) return fail(err, e->message);
  if (tasks->empty()) {
    auto entries = stores.registry.list();
    if (!entries) return fail(err, entries.error().message);
    return explain_nothing_to_do(config, *entries, dev->arch, req.kernel, out, err);
  }
  RunContext ctx{dev->name,           std::to_string(dev->driver_version), *contributor, kb::policy_id(*loaded), "", "",
                 cache::now_seconds()};
  std::unique_ptr<llm::Client> client;
  std::unique_ptr<LlmLowerer> llm;
  llm::ClientOptions lo = llm::options_from_config(config);
  if (req.use_llm && !lo.api.empty()) {
    auto c = llm::make_client(lo);
    if (!c) return fail(err, "LLM configuration: " + c.error().message);
    client = std::move(*c);
    llm = std::make_unique<LlmLowerer>(*client);
    ctx.llm_model = lo.model;
  }
  KbPolicy policy(*loaded, &stores.policy, *contributor);
  RunRequest request = req;
  request.loop.allow_reassociation = config.get_bool("allow_reassociation");
  CombinedLowerer lowerer(llm.get());
  GpuEvaluatorOptions eo{config.dir() + "/captures", real_nvcc(config), runner};
  eo.store = env->get(); // units compile from their stored closures
  GpuEvaluator evaluator(eo);
  auto units = make_temp_dir("kbcc-units");
  if (units) lowerer.mechanical().use_closures(env->get(), *units); // parse units whose checkout is gone
  RemoveOnExit remove_units(units ? *units : "");
  ProgressBar bar(isatty(2));
  Budget budget;
  long done = 0, total = static_cast<long>(tasks->size()) * req.loop.trajectories * req.loop.depth;
  out << "kbcc optimize: " << tasks->size() << " kernel(s) on " << dev->name << " (" << dev->arch << "), "
      << req.loop.trajectories << " trajectories x " << req.loop.depth << " steps, "
      << (llm ? "LLM " + lo.model + " + mechanical" : std::string("mechanical transforms only")) << "\n";
  std::vector<std::pair<KernelTask, KernelResult>> results;
  int failures = 0;
  for (const KernelTask &task : *tasks) {
    if (budget.exhausted(req.loop)) break;
    auto entry = stores.registry.get(task.kernel.hash);
    ctx.toolchain = entry && *entry ? (*entry)->toolchain : "";
    Measurement base;
    std::map<int, std::string> ids;
    LoopHooks hooks = kernel_hooks(stores, req, ctx, base, ids, client.get(), bar);
    BaselineRecorder recorder(evaluator, base);
    auto r = optimize_kernel(task, recorder, policy, lowerer, request.loop, budget, hooks, &done, total);
    if (r) {
      results.emplace_back(task, *r);
      continue;
    }
    bar.finish();
    err << "kbcc: " << task.kernel.qualified_name << ": " << r.error().message << "\n";
    log_line("kbcc optimize: " + task.kernel.qualified_name + ": " + r.error().message);
    ++failures;
    done += static_cast<long>(req.loop.trajectories) * req.loop.depth;
  }
  bar.finish();
  print_table(out, results, budget);
  return failures > 0 && results.empty() ? 1 : 0;
}

} // namespace kbcc::agent

// `kbcc optimize`: the ICRL loop over the registry kernels that have
// captures for the local GPU (agent/run.h).
#include "agent/run.h"
#include "driver/command.h"
#include "remote/variants.h"
#include "support/config.h"
#include "support/fs.h"
#include "support/log.h"
#include "tooling/kernel_text.h"
#include "transform/specialize.h"
#include "transform/transform.h"

#include <iostream>

namespace kbcc::driver {
namespace {

constexpr const char *kUsage =
    "usage: kbcc optimize [--kernel NAME|HASH] [--trajectories W] [--depth D] [--seed S]\n"
    "                     [--budget-gpu-seconds N] [--budget-seconds N] [--budget-tokens N] [--no-llm]\n"
    "       kbcc optimize --transform ID --source FILE [--kernel NAME] [--arch sm_XX] [-I DIR] [-D NAME[=V]]\n"
    "                     [--block X[,Y,Z]] [--arg NAME=N] [--param KEY=VALUE]...\n"
    "\n"
    "Runs the optimization loop on the local GPU for every kernel of the registry\n"
    "that has replayable captures for its architecture (see `kbcc capture`):\n"
    "baseline, KB state, weighted choice of an optimization, lowering (mechanical\n"
    "transform, or the configured LLM), validation on every capture and fuzzed\n"
    "inputs, timing and profiling, KB update. The best validated variant that is\n"
    "faster beyond the measured noise goes into the variant cache; every\n"
    "trajectory goes into the store. When no kernel qualifies, it says why for each\n"
    "registry kernel and capture (not optimizable, never captured, captured on\n"
    "another arch, not replayable, skipped by the capture store's limit, not in\n"
    "the registry) and which compiles fell back to nvcc.\n"
    "\n"
    "  --kernel NAME|HASH        only this kernel (qualified or mangled name, hash or hash prefix)\n"
    "  --trajectories W          trajectories per kernel (default 8)\n"
    "  --depth D                 steps per trajectory (default 4)\n"
    "  --seed S                  seed of the selector (default 1); same seed, same choices\n"
    "  --budget-gpu-seconds N    stop after N seconds of GPU work (default: unlimited)\n"
    "  --budget-seconds N        start no step of a kernel after N seconds on it (default 100; 0: unlimited)\n"
    "  --budget-tokens N         stop after N LLM tokens (default: unlimited)\n"
    "  --no-llm                  mechanical transforms only, even when llm_api is set\n"
    "\n"
    "  --transform ID            print FILE with transform ID applied to its first kernel (or --kernel NAME,\n"
    "                            its namespaces optional; 'k<float, 4>' names a template's instance),\n"
    "                            then, as // kbcc: comments, the launch mapping, numerics class and the\n"
    "                            parameters used; when it does not apply, say why (exit 1).\n"
    "                            IDs: launch_bounds, maxnreg, unroll, restrict_ldg, fast_math, block_size,\n"
    "                            thread_coarsening, split_loop_across_warp, smem_privatized_atomics,\n"
    "                            warp_aggregated_atomics, smem_transpose_staging,\n"
    "                            interchange_thread_axes, smem_tiling,\n"
    "                            register_blocking, vectorized_loads, cache_hint_streaming,\n"
    "                            shuffle_collectives, sliding_window, value_versioning, smem_padding\n"
    "                            (docs/optimize.md)\n"
    "  --source FILE             the .cu file for --transform (parsed for --arch, default sm_90)\n"
    "  -I DIR, -D NAME[=V], -U NAME, -std=X\n"
    "                            include directories, macros and language standard for that parse\n"
    "  --block X[,Y,Z]           the block size of a captured launch, for --transform (repeatable)\n"
    "  --arg NAME=N              an integer argument of the captured launch, for --transform (repeatable; a\n"
    "                            name given again describes one more capture, the other arguments as before)\n"
    "  --param KEY=VALUE         transform parameter, e.g. factor=8 (unroll), lanes=32 (split_loop_across_warp);\n"
    "                            the others take their first value\n"
    "\n"
    "The LLM is configured with the llm_* keys (docs/config.md); winning variants are\n"
    "signed with signing_key and published to the remote store when configured.\n"
    "docs/optimize.md describes the loop.";

// A signed decimal integer, all of `text`.
bool parse_integer(const std::string &text, long long &out) {
  try {
    size_t used = 0;
    out = std::stoll(text, &used);
    return used == text.size();
  } catch (...) {
    return false;
  }
}

// A non-negative decimal integer, all of `text`.
bool parse_long(const std::string &text, long &out) {
  long long v = 0;
  if (!parse_integer(text, v) || v < 0) return false;
  out = static_cast<long>(v);
  return true;
}

// What --transform prints after the transformed file, as comments.
void print_outcome(const transform::Output &out, const std::vector<transform::Axis> &axes,
                   const transform::Params &used) {
  if (out.launch) {
    const launch::LaunchMapping &m = *out.launch;
    std::cout << "// kbcc: launch grid (" << m.grid[0] << ", " << m.grid[1] << ", " << m.grid[2] << ") block ("
              << m.block[0] << ", " << m.block[1] << ", " << m.block[2] << ") shared " << m.shared << "\n";
    for (const std::string &p : m.preconditions)
      std::cout << "// kbcc: when " << p << "\n";
  }
  std::cout << "// kbcc: numerics " << out.numerics;
  if (!out.reduction_length.empty()) std::cout << ", n = " << out.reduction_length;
  std::cout << "\n";
  if (!out.size_params.empty()) {
    std::cout << "// kbcc: size parameters";
    for (const std::string &p : out.size_params)
      std::cout << " " << p;
    std::cout << "\n";
  }
  for (const transform::Axis &a : axes) {
    std::cout << "// kbcc: parameter " << a.name << " = " << used.at(a.name) << " of";
    for (const std::string &v : a.values)
      std::cout << " " << v;
    std::cout << "\n";
  }
}

struct TransformRequest {
  std::string id, file, kernel, arch = "sm_90";
  std::vector<std::string> flags; // -I/-D/-U/-std= for the parse
  transform::Params params;
  std::vector<launch::Launch> launches;
  std::vector<std::map<std::string, int64_t>> arguments; // of each capture
};

int show_transform(const TransformRequest &r) {
  const transform::Transform *t = transform::find_transform(r.id);
  if (!t) {
    std::cerr << "kbcc optimize: unknown transform '" << r.id << "'\n";
    return 2;
  }
  auto text = read_file(r.file);
  if (!text) {
    std::cerr << "kbcc optimize: " << text.error().message << "\n";
    return 1;
  }
  tooling::ParseRequest pr;
  pr.source = r.file;
  pr.arch = r.arch;
  pr.flags = r.flags;
  std::string kernel = tooling::split_qualified(r.kernel).second; // "ns::k<float>" -> "k<float>"
  auto ast = transform::parse_kernel(pr, *text, kernel);
  if (!ast && transform::is_instance_name(kernel)) {
    // Not a specialization written in FILE: an instance of a template,
    // written out as a specialization after it.
    auto spec = transform::specialize_kernel(pr, *text, kernel);
    if (!spec) {
      std::cerr << "kbcc optimize: " << r.file << ": " << spec.error().message << "\n";
      return 1;
    }
    text->insert(spec->template_end, "\n" + spec->text);
    ast = transform::parse_kernel(pr, *text, kernel);
  }
  if (!ast) {
    const std::string &why = ast.error().message; // most name the file already
    std::cerr << "kbcc optimize: " << (why.find(r.file) == std::string::npos ? r.file + ": " : "") << why << "\n";
    return 1;
  }
  transform::Input in{ast->source(), &*ast, r.launches, {}, {}};
  in.arguments = r.arguments;
  auto fail = [&](const Error &e) {
    std::cerr << "kbcc optimize: " << r.id << " (" << t->numerics << "): " << e.message << "\n";
    return 1;
  };
  // The space probes the first setting; explicit parameters may make an
  // otherwise refused transform apply (maxnreg's registers=N without a profile).
  auto offered = transform::offer(*t, in);
  if (!offered && r.params.empty()) return fail(offered.error());
  std::vector<transform::Axis> shown = offered ? offered->axes : std::vector<transform::Axis>{};
  transform::Params used = shown.empty() ? transform::Params{} : transform::configurations(shown).front();
  for (const auto &[k, v] : r.params)
    used[k] = v;
  auto out = offered ? transform::apply_offer(*t, *offered, used) : t->apply(in, used);
  if (!out) return fail(out.error());
  size_t at = text->find(ast->source());
  std::cout << text->substr(0, at) << out->source << text->substr(at + ast->source().size());
  print_outcome(*out, shown, used);
  return 0;
}

bool parse_block(const std::string &text, launch::Launch &l) {
  size_t i = 0, start = 0;
  for (; i < 3 && start <= text.size(); ++i) {
    size_t comma = text.find(',', start);
    long v = 0;
    if (!parse_long(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), v) || v == 0)
      return false;
    l.block[i] = static_cast<unsigned>(v);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
  return false;
}

} // namespace

// Signs winning variants with signing_key and publishes them to the remote
// store (both no-ops when not configured).
void use_remote(const Config &config, agent::RunRequest &req);

// Parses the loop flags shared by `optimize` and `warm`; returns false (after
// printing the problem) on a bad argument. Unknown arguments go to `rest`.
bool parse_loop_flags(const std::vector<std::string> &args, agent::RunRequest &req, std::vector<std::string> &rest) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](long &out) {
      if (i + 1 >= args.size() || !parse_long(args[i + 1], out)) {
        std::cerr << "kbcc: " << a << " needs a non-negative integer\n";
        return false;
      }
      ++i;
      return true;
    };
    long v = 0;
    if (a == "--trajectories" || a == "--depth") {
      if (!value(v) || v == 0) {
        if (v == 0 && i < args.size()) std::cerr << "kbcc: " << a << " must be at least 1\n";
        return false;
      }
      (a == "--depth" ? req.loop.depth : req.loop.trajectories) = static_cast<int>(v);
    } else if (a == "--seed") {
      if (!value(v)) return false;
      req.loop.seed = static_cast<uint64_t>(v);
    } else if (a == "--budget-gpu-seconds") {
      if (!value(v)) return false;
      req.loop.budget_gpu_seconds = static_cast<double>(v);
    } else if (a == "--budget-seconds") {
      if (!value(v)) return false;
      req.loop.kernel_seconds = static_cast<double>(v);
    } else if (a == "--budget-tokens") {
      if (!value(v)) return false;
      req.loop.budget_tokens = v;
    } else if (a == "--no-llm") {
      req.use_llm = false;
    } else {
      rest.push_back(a);
    }
  }
  return true;
}

namespace {

int run(const std::vector<std::string> &args) {
  agent::RunRequest req;
  std::vector<std::string> rest;
  if (!parse_loop_flags(args, req, rest)) return 2;
  TransformRequest tr;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &a = rest[i];
    bool has_value = i + 1 < rest.size();
    if (a == "--kernel" && has_value) {
      req.kernel = rest[++i];
    } else if (a == "--transform" && has_value) {
      tr.id = rest[++i];
    } else if (a == "--source" && has_value) {
      tr.file = rest[++i];
    } else if (a == "--arch" && has_value) {
      tr.arch = rest[++i];
    } else if ((a == "-I" || a == "-D" || a == "-U") && has_value) {
      tr.flags.push_back(a + rest[++i]);
    } else if ((a.rfind("-I", 0) == 0 || a.rfind("-D", 0) == 0 || a.rfind("-U", 0) == 0 || a.rfind("-std=", 0) == 0) &&
               a.size() > 2) {
      tr.flags.push_back(a);
    } else if (a == "--block" && has_value) {
      launch::Launch l;
      if (!parse_block(rest[++i], l)) {
        std::cerr << "kbcc optimize: --block needs X[,Y[,Z]] with positive integers\n";
        return 2;
      }
      tr.launches.push_back(l);
    } else if (a == "--arg" && has_value) {
      const std::string &kv = rest[++i];
      size_t eq = kv.find('=');
      long long v = 0;
      if (eq == std::string::npos || eq == 0 || !parse_integer(kv.substr(eq + 1), v)) {
        std::cerr << "kbcc optimize: --arg needs NAME=N with an integer N, not '" << kv << "'\n";
        return 2;
      }
      // A name given again describes one more capture, the other arguments as before.
      if (tr.arguments.empty() || tr.arguments.back().count(kv.substr(0, eq)))
        tr.arguments.push_back(tr.arguments.empty() ? std::map<std::string, int64_t>{} : tr.arguments.back());
      tr.arguments.back()[kv.substr(0, eq)] = v;
    } else if (a == "--param" && has_value && rest[i + 1].find('=') != std::string::npos) {
      const std::string &kv = rest[++i];
      tr.params[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    } else {
      std::cerr << "kbcc optimize: unexpected argument '" << a << "' (see kbcc optimize --help)\n";
      return 2;
    }
  }
  if (!tr.id.empty() || !tr.file.empty()) {
    if (tr.id.empty() || tr.file.empty()) {
      std::cerr << "kbcc optimize: --transform and --source go together\n";
      return 2;
    }
    tr.kernel = req.kernel;
    return show_transform(tr);
  }
  auto config = Config::load();
  if (!config) {
    std::cerr << "kbcc: " << config.error().message << "\n";
    return 1;
  }
  set_log_path(config->get("log"));
  use_remote(*config, req);
  return agent::run_optimize(*config, req, std::cout, std::cerr);
}

} // namespace

void use_remote(const Config &config, agent::RunRequest &req) {
  req.prepare_variant = [&config](cache::VariantRecord &r) { return remote::sign_variant(config, r); };
  req.stored_variant = [&config](const cache::VariantRecord &r) {
    Status st = remote::publish_variant(config, r);
    if (!st) log_line("kbcc optimize: variant not published: " + st.error().message);
  };
}

KBCC_COMMAND("optimize", "optimize the captured kernels on the local GPU (ICRL loop)", kUsage, run);

} // namespace kbcc::driver

// `kbcc optimize`: the ICRL loop over the registry kernels that have
// captures for the local GPU (agent/run.h).
#include "agent/run.h"
#include "agent/transforms.h"
#include "driver/command.h"
#include "remote/variants.h"
#include "support/config.h"
#include "support/fs.h"
#include "support/log.h"

#include <iostream>

namespace kbcc::driver {
namespace {

constexpr const char *kUsage =
    "usage: kbcc optimize [--kernel NAME|HASH] [--trajectories W] [--depth D] [--seed S]\n"
    "                     [--budget-gpu-seconds N] [--budget-tokens N] [--no-llm]\n"
    "       kbcc optimize --transform ID --source FILE [--block X[,Y,Z]] [--param KEY=VALUE]...\n"
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
    "  --budget-tokens N         stop after N LLM tokens (default: unlimited)\n"
    "  --no-llm                  mechanical transforms only, even when llm_api is set\n"
    "\n"
    "  --transform ID            print FILE with transform ID applied to its first kernel\n"
    "                            (launch_bounds, maxnreg, unroll, restrict_ldg, fast_math, block_size)\n"
    "  --source FILE             the .cu file for --transform\n"
    "  --block X[,Y,Z]           captured block size for --transform launch_bounds (repeatable)\n"
    "  --param KEY=VALUE         transform parameter, e.g. factor=8 (unroll), registers=64 (maxnreg)\n"
    "\n"
    "The LLM is configured with the llm_* keys (docs/config.md); winning variants are\n"
    "signed with signing_key and published to the remote store when configured.\n"
    "docs/optimize.md describes the loop.";

bool parse_long(const std::string &text, long &out) {
  try {
    size_t used = 0;
    out = std::stol(text, &used);
    return used == text.size() && out >= 0;
  } catch (...) {
    return false;
  }
}

int show_transform(const std::string &id, const std::string &file, const agent::TransformContext &ctx) {
  const agent::Transform *t = agent::find_transform(id);
  if (!t) {
    std::cerr << "kbcc optimize: unknown transform '" << id << "'\n";
    return 2;
  }
  auto text = read_file(file);
  if (!text) {
    std::cerr << "kbcc optimize: " << text.error().message << "\n";
    return 1;
  }
  auto out = t->apply(*text, ctx);
  if (!out) {
    std::cerr << "kbcc optimize: " << id << " (" << agent::safety_name(t->safety) << "): " << out.error().message
              << "\n";
    return 1;
  }
  std::cout << *out;
  return 0;
}

bool parse_block(const std::string &text, agent::LaunchConfig &l) {
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
  std::string transform, source;
  agent::TransformContext ctx;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &a = rest[i];
    bool has_value = i + 1 < rest.size();
    if (a == "--kernel" && has_value) {
      req.kernel = rest[++i];
    } else if (a == "--transform" && has_value) {
      transform = rest[++i];
    } else if (a == "--source" && has_value) {
      source = rest[++i];
    } else if (a == "--block" && has_value) {
      agent::LaunchConfig l;
      if (!parse_block(rest[++i], l)) {
        std::cerr << "kbcc optimize: --block needs X[,Y[,Z]] with positive integers\n";
        return 2;
      }
      ctx.launches.push_back(l);
    } else if (a == "--param" && has_value && rest[i + 1].find('=') != std::string::npos) {
      const std::string &kv = rest[++i];
      ctx.params[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    } else {
      std::cerr << "kbcc optimize: unexpected argument '" << a << "' (see kbcc optimize --help)\n";
      return 2;
    }
  }
  if (!transform.empty() || !source.empty()) {
    if (transform.empty() || source.empty()) {
      std::cerr << "kbcc optimize: --transform and --source go together\n";
      return 2;
    }
    return show_transform(transform, source, ctx);
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

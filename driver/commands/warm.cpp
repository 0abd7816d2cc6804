// `kbcc warm --arch sm_XX`: fills the variant cache of one architecture by
// running the optimization loop for every registry kernel with captures,
// alone or as one worker of a Redis work queue shared by several GPU machines.
#include "agent/run.h"
#include "agent/warm_plan.h"
#include "cache/env.h"
#include "driver/command.h"
#include "driver/find_nvcc.h"
#include "remote/queue.h"
#include "remote/store.h"
#include "remote/sync.h"
#include "support/config.h"
#include "support/log.h"

#include <iostream>
#include <regex>
#include <sstream>

namespace kbcc::driver {

bool parse_loop_flags(const std::vector<std::string> &args, agent::RunRequest &req, std::vector<std::string> &rest);
void use_remote(const Config &config, agent::RunRequest &req);

namespace {

constexpr const char *kUsage =
    "usage: kbcc warm --arch sm_XX [--queue redis://HOST[:PORT][/DB]] [--dry-run] [--no-pull]\n"
    "                 [--trajectories W] [--depth D] [--seed S] [--budget-gpu-seconds N]\n"
    "                 [--budget-seconds N] [--budget-tokens N] [--no-llm]\n"
    "\n"
    "Warms the variant cache for a GPU architecture: runs `kbcc optimize` for every\n"
    "registry kernel built for sm_XX that has replayable captures, recorded on any GPU,\n"
    "on the local GPU, which must be of architecture sm_XX (variants are validated and\n"
    "timed on the real GPU). Units compile from the closures stored with the registry,\n"
    "so no checkout is needed. The KB learned on other kernels and architectures steers\n"
    "the search. With a remote (KBCC_REMOTE), warm first pulls the team's registry,\n"
    "closures, KB and captures (up to remote_capture_max_size) and publishes the\n"
    "variants it finds.\n"
    "\n"
    "  --arch sm_XX              the architecture to warm (must be the local GPU's)\n"
    "  --queue redis://...       share the kernels with other workers through a Redis\n"
    "                            stream (queue warm-sm_XX): each kernel is optimized once,\n"
    "                            a dead worker's kernel is taken over (docs/remote.md)\n"
    "  --dry-run                 no GPU needed: list the kernels with their captures and\n"
    "                            unit, and compile each original for sm_XX into a cubin\n"
    "  --no-pull                 do not pull from the remote first\n"
    "  (the other flags are those of kbcc optimize)";

// Pulls the team's registry with its closures, the KB and (up to
// remote_capture_max_size) the captures when a remote is configured, and
// prints the summary. A failure is reported; warming goes on with what the
// local store has.
void pull_from_remote(const Config &config) {
  if (config.get("remote").empty()) return;
  auto store = remote::open_remote(config, true);
  remote::SyncOptions o;
  o.variants = false;
  o.captures = true;
  o.captures_dir = config.dir() + "/captures";
  o.capture_max_size = config.get_size("remote_capture_max_size");
  o.closure_max_size = config.get_size("remote_closure_max_size");
  o.closure_store_size = config.get_size("closure_max_size");
  o.contributor = config.get("contributor");
  cache::EnvOptions eo = cache::env_options(config);
  eo.extra_tables = {remote::kCandidateTable};
  auto env = store ? cache::Env::open(config.dir(), eo) : Expected<std::unique_ptr<cache::Env>>(store.error());
  auto report = env ? remote::pull(**store, **env, o) : Expected<remote::SyncReport>(env.error());
  if (!report) {
    std::cerr << "kbcc warm: not pulled from the remote (" << report.error().message
              << "); warming from the local store\n";
    return;
  }
  std::cout << "kbcc warm: " << remote::pull_summary(*report) << "\n";
}

// `kbcc warm --dry-run`: the plan, checked with the real nvcc, without a GPU.
int dry_run(const Config &config, const std::string &arch) {
  auto nvcc = find_nvcc(NvccSearch::current(config.get("nvcc"), ""));
  if (!nvcc) {
    std::cerr << "kbcc warm: " << nvcc.error().message << "\n";
    return 1;
  }
  return agent::dry_run_warm(config, arch, *nvcc, std::cout, std::cerr);
}

// Works the kernels off a shared queue, one `kbcc optimize --kernel HASH` each.
int run_queue(const Config &config, const agent::RunRequest &req, const std::string &url) {
  auto kernels = agent::optimizable_kernels(config, req.arch);
  if (!kernels) {
    std::cerr << "kbcc warm: " << kernels.error().message << "\n";
    return 1;
  }
  remote::QueueOptions qo;
  qo.name = "warm-" + req.arch;
  auto report = remote::run_warm_queue(
      url, remote::default_worker_id(), *kernels,
      [&](const std::string &hash) -> Status {
        agent::RunRequest one = req;
        one.kernel = hash;
        std::ostringstream err;
        int rc = agent::run_optimize(config, one, std::cout, err);
        std::cerr << err.str();
        if (rc != 0) return make_error("kbcc optimize failed for " + hash + ": " + err.str(), "warm-failed");
        return Status::ok();
      },
      qo);
  if (!report) {
    std::cerr << "kbcc warm: " << report.error().message << "\n";
    return 1;
  }
  std::cout << "kbcc warm: enqueued " << report->enqueued << ", optimized " << report->processed << " ("
            << report->failed << " failed), taken over " << report->taken_over << "\n";
  return 0;
}

int run(const std::vector<std::string> &args) {
  agent::RunRequest req;
  std::vector<std::string> rest;
  std::string queue;
  bool check_only = false, pull = true;
  if (!parse_loop_flags(args, req, rest)) return 2;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--arch" && i + 1 < rest.size()) {
      req.arch = rest[++i];
    } else if (rest[i].rfind("--arch=", 0) == 0) {
      req.arch = rest[i].substr(7);
    } else if (rest[i] == "--queue" && i + 1 < rest.size()) {
      queue = rest[++i];
    } else if (rest[i] == "--dry-run") {
      check_only = true;
    } else if (rest[i] == "--no-pull") {
      pull = false;
    } else {
      std::cerr << "kbcc warm: unexpected argument '" << rest[i] << "' (see kbcc warm --help)\n";
      return 2;
    }
  }
  if (!std::regex_match(req.arch, std::regex("sm_[0-9]+[a-z]?"))) {
    std::cerr << "kbcc warm: --arch sm_XX is required (e.g. --arch sm_90)\n";
    return 2;
  }
  if (!queue.empty() && queue.rfind("redis://", 0) != 0) {
    std::cerr << "kbcc warm: --queue needs a redis:// URL\n";
    return 2;
  }
  auto config = Config::load();
  if (!config) {
    std::cerr << "kbcc: " << config.error().message << "\n";
    return 1;
  }
  set_log_path(config->get("log"));
  if (pull) pull_from_remote(*config);
  if (check_only) return dry_run(*config, req.arch);
  use_remote(*config, req);
  if (!queue.empty()) return run_queue(*config, req, queue);
  return agent::run_optimize(*config, req, std::cout, std::cerr);
}

} // namespace

KBCC_COMMAND("warm", "optimize every captured kernel for one GPU architecture", kUsage, run);

} // namespace kbcc::driver

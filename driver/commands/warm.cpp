// `kbcc warm --arch sm_XX`: fills the variant cache of one architecture by
// running the optimization loop for every registry kernel with captures,
// alone or as one worker of a Redis work queue shared by several GPU machines.
#include "agent/run.h"
#include "driver/command.h"
#include "remote/queue.h"
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
    "usage: kbcc warm --arch sm_XX [--queue redis://HOST[:PORT][/DB]] [--trajectories W] [--depth D]\n"
    "                 [--seed S] [--budget-gpu-seconds N] [--budget-tokens N] [--no-llm]\n"
    "\n"
    "Warms the variant cache for a GPU architecture: runs `kbcc optimize` for every\n"
    "registry kernel that has replayable captures, on the local GPU, which must be\n"
    "of architecture sm_XX (variants are validated and timed on the real GPU).\n"
    "The KB learned on other kernels and architectures steers the search.\n"
    "\n"
    "  --arch sm_XX              the architecture to warm (must be the local GPU's)\n"
    "  --queue redis://...       share the kernels with other workers through a Redis\n"
    "                            stream (queue warm-sm_XX): each kernel is optimized once,\n"
    "                            a dead worker's kernel is taken over (docs/remote.md)\n"
    "  (the other flags are those of kbcc optimize)";

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
  if (!parse_loop_flags(args, req, rest)) return 2;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--arch" && i + 1 < rest.size()) {
      req.arch = rest[++i];
    } else if (rest[i].rfind("--arch=", 0) == 0) {
      req.arch = rest[i].substr(7);
    } else if (rest[i] == "--queue" && i + 1 < rest.size()) {
      queue = rest[++i];
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
  use_remote(*config, req);
  if (!queue.empty()) return run_queue(*config, req, queue);
  return agent::run_optimize(*config, req, std::cout, std::cerr);
}

} // namespace

KBCC_COMMAND("warm", "optimize every captured kernel for one GPU architecture", kUsage, run);

} // namespace kbcc::driver

// `kbcc warm --arch sm_XX`: fills the variant cache of one architecture by
// running the optimization loop for every registry kernel with captures.
#include "agent/run.h"
#include "driver/command.h"
#include "support/config.h"
#include "support/log.h"

#include <iostream>
#include <regex>

namespace kbcc::driver {

bool parse_loop_flags(const std::vector<std::string> &args, agent::RunRequest &req, std::vector<std::string> &rest);

namespace {

constexpr const char *kUsage = "usage: kbcc warm --arch sm_XX [--trajectories W] [--depth D] [--seed S]\n"
                               "                 [--budget-gpu-seconds N] [--budget-tokens N] [--no-llm]\n"
                               "\n"
                               "Warms the variant cache for a GPU architecture: runs `kbcc optimize` for every\n"
                               "registry kernel that has replayable captures, on the local GPU, which must be\n"
                               "of architecture sm_XX (variants are validated and timed on the real GPU).\n"
                               "The KB learned on other kernels and architectures steers the search.\n"
                               "\n"
                               "  --arch sm_XX              the architecture to warm (must be the local GPU's)\n"
                               "  (the other flags are those of kbcc optimize)";

int run(const std::vector<std::string> &args) {
  agent::RunRequest req;
  std::vector<std::string> rest;
  if (!parse_loop_flags(args, req, rest)) return 2;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--arch" && i + 1 < rest.size()) {
      req.arch = rest[++i];
    } else if (rest[i].rfind("--arch=", 0) == 0) {
      req.arch = rest[i].substr(7);
    } else {
      std::cerr << "kbcc warm: unexpected argument '" << rest[i] << "' (see kbcc warm --help)\n";
      return 2;
    }
  }
  if (!std::regex_match(req.arch, std::regex("sm_[0-9]+[a-z]?"))) {
    std::cerr << "kbcc warm: --arch sm_XX is required (e.g. --arch sm_90)\n";
    return 2;
  }
  auto config = Config::load();
  if (!config) {
    std::cerr << "kbcc: " << config.error().message << "\n";
    return 1;
  }
  set_log_path(config->get("log"));
  return agent::run_optimize(*config, req, std::cout, std::cerr);
}

} // namespace

KBCC_COMMAND("warm", "optimize every captured kernel for one GPU architecture", kUsage, run);

} // namespace kbcc::driver

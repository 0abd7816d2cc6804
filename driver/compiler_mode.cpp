// Compiler mode. Placeholder: runs nvcc unchanged (replaced by the pipeline).
#include "driver/command.h"
#include "support/process.h"

#include <cstdio>

namespace kbcc::driver {

int run_compiler_mode(const std::vector<std::string> &nvcc_args, const std::string &launcher_nvcc) {
  std::vector<std::string> argv{launcher_nvcc.empty() ? "/usr/local/cuda/bin/nvcc" : launcher_nvcc};
  argv.insert(argv.end(), nvcc_args.begin(), nvcc_args.end());
  Error e = exec_replace(argv);
  std::fprintf(stderr, "kbcc: %s\n", e.message.c_str());
  return 127;
}

}  // namespace kbcc::driver

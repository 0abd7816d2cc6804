// Entry point of kbcc-harness: kbcc's dispatcher with only the GPU commands
// (capture, replay, profile) linked in. Compiler mode is not part of it.
#include <cstdio>
#include <string>
#include <vector>

namespace kbcc::driver {
int kbcc_main(int argc, char **argv);

int run_compiler_mode(const std::vector<std::string> &, const std::string &) {
  std::fprintf(stderr, "kbcc-harness: only the capture, replay and profile commands are built in\n");
  return 2;
}
} // namespace kbcc::driver

int main(int argc, char **argv) { return kbcc::driver::kbcc_main(argc, argv); }

#include "driver/passthrough.h"

#include <cstdio>
#include <unistd.h>

namespace kbcc::driver {
namespace {

void write_all(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

} // namespace

int exec_nvcc(const std::vector<std::string> &argv) {
  std::fflush(stdout);
  std::fflush(stderr);
  Error e = exec_replace(argv);
  std::fprintf(stderr, "kbcc: %s\n", e.message.c_str());
  return 127;
}

int replay(const ProcessResult &result) {
  std::fflush(stdout);
  std::fflush(stderr);
  write_all(1, result.out);
  write_all(2, result.err);
  return result.exit_code;
}

void print_command(const std::vector<std::string> &argv) {
  std::printf("%s\n", shell_join(argv).c_str());
  std::fflush(stdout);
}

} // namespace kbcc::driver

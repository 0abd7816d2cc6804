#include "support/log.h"

#include "support/fs.h"

#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace kbcc {
namespace {

std::string &log_path() {
  static std::string path;
  return path;
}

std::string default_log_path() {
  if (const char *p = getenv("KBCC_LOG"); p && *p) return p;
  if (const char *d = getenv("KBCC_DIR"); d && *d) return std::string(d) + "/kbcc.log";
  return home_dir() + "/.cache/kbcc/kbcc.log";
}

}  // namespace

void set_log_path(const std::string &path) { log_path() = path; }

void log_line(const std::string &message) {
  std::string path = log_path().empty() ? default_log_path() : log_path();
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char stamp[32];
  time_t now = time(nullptr);
  tm utc;
  gmtime_r(&now, &utc);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  std::string line = std::string(stamp) + " [" + std::to_string(getpid()) + "] " + message;
  for (char &c : line)
    if (c == '\n') c = ' ';
  line += '\n';
  ssize_t ignored = write(fd, line.data(), line.size());
  (void)ignored;
  close(fd);
}

}  // namespace kbcc

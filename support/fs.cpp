#include "support/fs.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <pwd.h>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kbcc {

Expected<std::string> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open: " + strerror(errno), "io");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return make_error(path + ": read error", "io");
  return ss.str();
}

Status write_file_atomic(const std::string &path, const std::string &data) {
  fs::path p(path);
  if (p.has_parent_path()) {
    if (auto st = make_dirs(p.parent_path().string()); !st) return st;
  }
  std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(rand());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(path + ": cannot create: " + strerror(errno), "io");
  size_t off = 0;
  while (off < data.size()) {
    ssize_t w = write(fd, data.data() + off, data.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      std::string why = strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return make_error(path + ": write failed: " + why, errno == ENOSPC ? "disk-full" : "io");
    }
    off += w;
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    std::string why = strerror(errno);
    unlink(tmp.c_str());
    return make_error(path + ": write failed: " + why, "io");
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = strerror(errno);
    unlink(tmp.c_str());
    return make_error(path + ": cannot rename into place: " + why, "io");
  }
  return Status::ok();
}

Status make_dirs(const std::string &path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec && !fs::is_directory(path)) return make_error(path + ": cannot create directory: " + ec.message(), "io");
  return Status::ok();
}

bool file_exists(const std::string &path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

std::string real_path(const std::string &path) {
  std::error_code ec;
  auto p = fs::canonical(path, ec);
  return ec ? path : p.string();
}

Expected<std::string> make_temp_dir(const std::string &prefix) {
  const char *base = getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/" + prefix + "-XXXXXX";
  if (!mkdtemp(tmpl.data())) return make_error(tmpl + ": cannot create temporary directory: " + strerror(errno), "io");
  return tmpl;
}

void remove_all(const std::string &path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

uint64_t tree_size(const std::string &path) {
  std::error_code ec;
  uint64_t total = 0;
  if (fs::is_regular_file(path, ec)) return fs::file_size(path, ec);
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

std::string home_dir() {
  if (const char *h = getenv("HOME"); h && *h) return h;
  if (passwd *pw = getpwuid(getuid())) return pw->pw_dir;
  return "/tmp";
}

}  // namespace kbcc

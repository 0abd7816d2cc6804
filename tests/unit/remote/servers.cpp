#include "servers.h"

#include "support/fs.h"
#include "support/process.h"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <unistd.h>
#include <vector>

namespace kbcc::remote::test {
namespace {

std::string script(const char *name) { return std::string(KBCC_SOURCE_DIR) + "/tests/remote/" + name; }

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

} // namespace

cache::VariantRecord sample_variant(const std::string &hash, const std::string &arch, double median_us) {
  cache::VariantRecord r;
  r.kernel_hash = hash;
  r.arch = arch;
  r.qualified_name = "scale";
  r.source = "__global__ void scale(float *x) { x[threadIdx.x] *= 2; }";
  r.toolchain = "nvcc 13.0";
  r.validation.captures_checked = 3;
  r.validation.tolerance = 1e-6;
  r.validation.sanitizer = "clean";
  r.timing.baseline_median_us = 10;
  r.timing.variant_median_us = median_us;
  r.timing.runs = 20;
  return r;
}

// The directories temp_dir() made, removed when the test program exits (by
// the process that made them, not by a forked child).
struct MadeDirs {
  std::mutex lock;
  std::vector<std::string> dirs;
  pid_t owner = ::getpid();
  ~MadeDirs() {
    if (::getpid() == owner)
      for (const std::string &d : dirs)
        remove_all(d);
  }
};

std::string temp_dir() {
  static MadeDirs made;
  auto d = make_temp_dir("kbcc-remote-test");
  if (!d) return "/tmp";
  std::lock_guard<std::mutex> hold(made.lock);
  made.dirs.push_back(*d);
  return *d;
}

Server::Server(Kind kind) : kind_(kind), dir_(temp_dir()) {
  std::vector<std::string> argv;
  const char *program = kind == kRedis ? "redis-server" : kind == kWebdav ? "nginx" : "python3";
  if (!find_in_path(program) && !file_exists(std::string("/usr/sbin/") + program)) {
    why_ = std::string(program) + " is not installed";
    return;
  }
  switch (kind) {
  case kRedis:
    argv = {"sh", script("start-redis.sh"), dir_};
    break;
  case kWebdav:
    argv = {"sh", script("start-webdav.sh"), dir_};
    break;
  case kSlow:
    argv = {"python3", script("fault-server.py"), "slow", dir_};
    break;
  case kGarbage:
    argv = {"python3", script("fault-server.py"), "garbage", dir_};
    break;
  }
  ProcessOptions o;
  o.env_set["PATH"] = std::string(getenv("PATH") ? getenv("PATH") : "") + ":/usr/sbin";
  auto r = run_process(argv, o);
  if (!r || r->exit_code != 0) {
    why_ = "could not start the server: " + (r ? r->err : r.error().message);
    return;
  }
  url_ = trim(r->out);
  if (kind == kSlow || kind == kGarbage) url_ = "http://127.0.0.1:" + url_;
  port_ = url_.substr(url_.rfind(':') + 1);
}

void Server::stop() {
  if (url_.empty() || stopped_) return;
  stopped_ = true;
  switch (kind_) {
  case kRedis:
    (void)run_process({"sh", script("stop-redis.sh"), dir_});
    break;
  case kWebdav:
    (void)run_process({"sh", script("stop-webdav.sh"), dir_});
    break;
  default: {
    auto pid = read_file(dir_ + "/fault.pid");
    if (pid) ::kill(std::stoi(*pid), SIGKILL);
  }
  }
}

Server::~Server() {
  stop();
  remove_all(dir_);
}

} // namespace kbcc::remote::test

namespace {
// Keeps every test away from ~/.cache/kbcc: a private KBCC_DIR and log.
struct PrivateKbccDir {
  PrivateKbccDir() {
    std::string dir = kbcc::remote::test::temp_dir();
    setenv("KBCC_DIR", dir.c_str(), 1);
    setenv("KBCC_LOG", (dir + "/kbcc.log").c_str(), 1);
  }
} private_kbcc_dir;
} // namespace

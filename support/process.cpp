#include "support/process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace kbcc {
namespace {

std::vector<std::string> build_env(const ProcessOptions &o) {
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e) {
    std::string kv(*e);
    std::string key = kv.substr(0, kv.find('='));
    bool drop = o.env_set.count(key) > 0;
    for (const auto &u : o.env_unset) drop = drop || u == key;
    if (!drop) env.push_back(std::move(kv));
  }
  for (const auto &[k, v] : o.env_set) env.push_back(k + "=" + v);
  return env;
}

std::vector<char *> c_strings(std::vector<std::string> &v) {
  std::vector<char *> out;
  for (auto &s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void set_cloexec(int fd) { fcntl(fd, F_SETFD, FD_CLOEXEC); }

}  // namespace

std::optional<std::string> find_in_path(const std::string &name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? std::optional(name) : std::nullopt;
  const char *path = getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string cand = dir + "/" + name;
    struct stat st;
    if (stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return std::nullopt;
}

Expected<Process> spawn(const std::vector<std::string> &argv_in, const ProcessOptions &o) {
  if (argv_in.empty()) return make_error("spawn: empty command");
  auto prog = find_in_path(argv_in[0]);
  if (!prog) return make_error("cannot find program '" + argv_in[0] + "'", "exec");
  std::vector<std::string> argv = argv_in;
  std::vector<std::string> env = build_env(o);
  auto cargv = c_strings(argv);
  auto cenv = c_strings(env);

  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, in_pipe[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (o.capture) {
    if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return make_error(std::string("pipe: ") + strerror(errno));
    set_cloexec(out_pipe[0]);
    set_cloexec(err_pipe[0]);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    posix_spawn_file_actions_addclose(&fa, out_pipe[1]);
    posix_spawn_file_actions_addclose(&fa, err_pipe[1]);
  }
  if (!o.stdin_data.empty() || o.interactive) {
    if (pipe(in_pipe) != 0) return make_error(std::string("pipe: ") + strerror(errno));
    set_cloexec(in_pipe[1]);
    posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
    posix_spawn_file_actions_addclose(&fa, in_pipe[0]);
  } else if (!o.stdin_inherit) {
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  }
  if (!o.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, o.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (o.timeout.count() > 0) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = -1;
  int rc = posix_spawn(&pid, prog->c_str(), &fa, &attr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  for (int fd : {out_pipe[1], err_pipe[1], in_pipe[0]})
    if (fd >= 0) close(fd);
  if (rc != 0) {
    for (int fd : {out_pipe[0], err_pipe[0], in_pipe[1]})
      if (fd >= 0) close(fd);
    return make_error("cannot start '" + *prog + "': " + strerror(rc), "exec");
  }
  Process p;
  p.pid_ = pid;
  p.out_fd_ = out_pipe[0];
  p.err_fd_ = err_pipe[0];
  p.in_fd_ = in_pipe[1];
  p.stdin_data_ = o.stdin_data;
  if (o.timeout.count() > 0) {
    p.has_deadline_ = true;
    p.deadline_ = std::chrono::steady_clock::now() + o.timeout;
  }
  return p;
}

Process::Process(Process &&o) noexcept { *this = std::move(o); }

Process &Process::operator=(Process &&o) noexcept {
  if (this == &o) return *this;
  if (pid_ > 0) kill();
  pid_ = std::exchange(o.pid_, -1);
  out_fd_ = std::exchange(o.out_fd_, -1);
  err_fd_ = std::exchange(o.err_fd_, -1);
  in_fd_ = std::exchange(o.in_fd_, -1);
  stdin_data_ = std::move(o.stdin_data_);
  out_buf_ = std::move(o.out_buf_);
  err_buf_ = std::move(o.err_buf_);
  deadline_ = o.deadline_;
  has_deadline_ = o.has_deadline_;
  return *this;
}

Process::~Process() {
  if (pid_ > 0) kill();
}

void Process::kill() {
  if (pid_ <= 0) return;
  if (has_deadline_) ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int st;
  waitpid(pid_, &st, 0);
  for (int *fd : {&out_fd_, &err_fd_, &in_fd_})
    if (*fd >= 0) close(std::exchange(*fd, -1));
  pid_ = -1;
}

Status Process::write_line(const std::string &line) {
  if (in_fd_ < 0) return make_error("the child's stdin is closed", "closed");
  static const bool ignored = [] { return signal(SIGPIPE, SIG_IGN) != SIG_ERR; }(); // a dead child: EPIPE, not a signal
  (void)ignored;
  std::string data = line + "\n";
  for (size_t off = 0; off < data.size();) {
    ssize_t w = ::write(in_fd_, data.data() + off, data.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return make_error(std::string("writing to the child: ") + strerror(errno), "closed");
    off += static_cast<size_t>(w);
  }
  return Status::ok();
}

Expected<std::string> Process::read_line(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (size_t nl = out_buf_.find('\n'); nl != std::string::npos) {
      std::string line = out_buf_.substr(0, nl);
      out_buf_.erase(0, nl + 1);
      return line;
    }
    if (out_fd_ < 0) return make_error("the child closed its output", "closed");
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return make_error("no answer from the child", "timeout");
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    int rc = poll(fds, err_fd_ >= 0 ? 2 : 1, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    for (int i = 0; i < 2 && rc > 0; ++i) {
      if (!fds[i].revents) continue;
      int &fd = i == 0 ? out_fd_ : err_fd_;
      char buf[65536];
      ssize_t got = ::read(fd, buf, sizeof buf);
      if (got > 0)
        (i == 0 ? out_buf_ : err_buf_).append(buf, static_cast<size_t>(got));
      else if (got == 0 || (errno != EINTR && errno != EAGAIN))
        close(std::exchange(fd, -1));
    }
  }
}

ProcessResult Process::wait() {
  ProcessResult r;
  if (pid_ <= 0) return r;
  size_t in_off = 0;
  if (in_fd_ >= 0) fcntl(in_fd_, F_SETFL, O_NONBLOCK);
  while (out_fd_ >= 0 || err_fd_ >= 0 || in_fd_ >= 0) {
    pollfd fds[3];
    int n = 0;
    if (out_fd_ >= 0) fds[n++] = {out_fd_, POLLIN, 0};
    if (err_fd_ >= 0) fds[n++] = {err_fd_, POLLIN, 0};
    if (in_fd_ >= 0) fds[n++] = {in_fd_, POLLOUT, 0};
    int wait_ms = -1;
    if (has_deadline_) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        r.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    int rc = poll(fds, n, wait_ms);
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) continue;
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in_fd_) {
        ssize_t w = write(in_fd_, stdin_data_.data() + in_off, stdin_data_.size() - in_off);
        if (w > 0) in_off += w;
        if (w < 0 && errno != EAGAIN) in_off = stdin_data_.size();
        if (in_off >= stdin_data_.size()) close(std::exchange(in_fd_, -1));
        continue;
      }
      char buf[65536];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (fds[i].fd == out_fd_ ? r.out : r.err).append(buf, got);
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        int &fd = fds[i].fd == out_fd_ ? out_fd_ : err_fd_;
        close(std::exchange(fd, -1));
      }
    }
  }
  if (r.timed_out) {
    kill();
    r.exit_code = 128 + SIGKILL;
    return r;
  }
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

Expected<ProcessResult> run_process(const std::vector<std::string> &argv, const ProcessOptions &options) {
  auto p = spawn(argv, options);
  if (!p) return p.error();
  return p->wait();
}

Error exec_replace(const std::vector<std::string> &argv_in) {
  auto prog = find_in_path(argv_in.empty() ? std::string() : argv_in[0]);
  if (!prog) return make_error("cannot find program '" + (argv_in.empty() ? "" : argv_in[0]) + "'", "exec");
  std::vector<std::string> argv = argv_in;
  auto cargv = c_strings(argv);
  execv(prog->c_str(), cargv.data());
  return make_error("cannot execute '" + *prog + "': " + strerror(errno), "exec");
}

namespace {
class SystemRunner : public ProcessRunner {
public:
  Expected<ProcessResult> run(const std::vector<std::string> &argv, const ProcessOptions &options) override {
    return run_process(argv, options);
  }
};
}  // namespace

ProcessRunner &system_runner() {
  static SystemRunner runner;
  return runner;
}

std::string shell_join(const std::vector<std::string> &argv) {
  std::string out;
  for (const auto &a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace kbcc

// extract_isolated(): the parse runs in a forked child so that a clang crash,
// an assertion or a hang can only cost a fallback to nvcc, never the build.
#include "tooling/extract.h"
#include "tooling/serialize.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kbcc::tooling {
namespace {

void write_all(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Child side: parse, write "ok\n<json>" or "error\n<code>\n<message>", exit.
[[noreturn]] void run_child(const ParseRequest &request, int out_fd) {
  int null_fd = ::open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
  }
  if (!request.working_dir.empty() && ::chdir(request.working_dir.c_str()) != 0) {
    write_all(out_fd, "error\nparse-cwd\n" + request.source + ": cannot enter the compile's folder " +
                          request.working_dir + ": " + std::strerror(errno));
    _exit(0);
  }
  auto result = extract_in_process(request);
  if (result)
    write_all(out_fd, "ok\n" + extraction_to_json(*result));
  else
    write_all(out_fd, "error\n" + result.error().code + "\n" + result.error().message);
  _exit(0);
}

// Reads `fd` to EOF or until `deadline`; false on timeout.
bool read_until(int fd, std::string &out, std::chrono::steady_clock::time_point deadline, bool has_deadline) {
  char buf[65536];
  for (;;) {
    int wait_ms = -1;
    if (has_deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      wait_ms = static_cast<int>(left.count());
    }
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return false;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buf, static_cast<size_t>(n));
  }
}

Expected<Extraction> decode(const std::string &out, const ParseRequest &request) {
  if (out.rfind("ok\n", 0) == 0) return extraction_from_json(out.substr(3), "extraction of " + request.source);
  if (out.rfind("error\n", 0) == 0) {
    auto nl = out.find('\n', 6);
    std::string code = out.substr(6, nl == std::string::npos ? std::string::npos : nl - 6);
    return make_error(nl == std::string::npos ? "extraction failed" : out.substr(nl + 1), code);
  }
  return make_error(request.source + ": kernel extraction ended without a result", "parse-crash");
}

} // namespace

Expected<Extraction> extract_isolated(const ParseRequest &request, std::chrono::milliseconds timeout) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return make_error("cannot create a pipe for kernel extraction", "parse-crash");
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]), ::close(fds[1]);
    return make_error("cannot fork for kernel extraction", "parse-crash");
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(request, fds[1]);
  }
  ::close(fds[1]);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string out;
  bool finished = read_until(fds[0], out, deadline, timeout.count() > 0);
  ::close(fds[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished)
    return make_error(request.source + ": kernel extraction timed out after " +
                          std::to_string(timeout.count() / 1000.0).substr(0, 5) + " s",
                      "parse-timeout");
  if (WIFSIGNALED(status))
    return make_error(request.source + ": kernel extraction crashed (signal " + std::to_string(WTERMSIG(status)) + ")",
                      "parse-crash");
  return decode(out, request);
}

} // namespace kbcc::tooling

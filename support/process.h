// Running child processes. This is the only place in kbcc that forks; tests
// and callers that need a fake use the ProcessRunner interface.
#pragma once

#include "support/expected.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbcc {

struct ProcessOptions {
  // When true, stdout/stderr are captured into ProcessResult; otherwise the
  // child inherits kbcc's stdout/stderr.
  bool capture = true;
  // Kill the child (SIGKILL to its process group) after this long; 0 = never.
  std::chrono::milliseconds timeout{0};
  // Environment overrides (set) applied on top of the current environment.
  std::map<std::string, std::string> env_set;
  // Environment variables removed from the child's environment.
  std::vector<std::string> env_unset;
  // Data written to the child's stdin (stdin is /dev/null when empty and
  // stdin_inherit is false).
  std::string stdin_data;
  bool stdin_inherit = false;
  // Keep a pipe to the child's stdin open for write_line() / read_line()
  // (line protocols); capture must be true.
  bool interactive = false;
  // Working directory; empty = current.
  std::string cwd;
};

struct ProcessResult {
  int exit_code = -1;  // exit status, or 128+signal when killed by a signal
  bool timed_out = false;
  std::string out;
  std::string err;
};

// A started child process; wait() collects it.
class Process {
public:
  Process() = default;
  Process(Process &&other) noexcept;
  Process &operator=(Process &&other) noexcept;
  ~Process();  // kills and reaps a child that was not waited for

  // Blocks until the child exits (or the timeout fires) and returns its result.
  ProcessResult wait();
  // Sends SIGKILL to the child's process group and reaps it.
  void kill();
  // Interactive children: writes `line` and a newline to the child's stdin.
  Status write_line(const std::string &line);
  // Interactive children: the next line of the child's stdout (without the
  // newline); stderr is collected meanwhile (err_text()). Errors: the child
  // closed stdout (it exited), or `timeout` passed (code "timeout").
  Expected<std::string> read_line(std::chrono::milliseconds timeout);
  const std::string &err_text() const { return err_buf_; }
  bool valid() const { return pid_ > 0; }
  int pid() const { return pid_; }

private:
  friend Expected<Process> spawn(const std::vector<std::string> &, const ProcessOptions &);
  int pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1, in_fd_ = -1;
  std::string stdin_data_;
  std::string out_buf_, err_buf_; // interactive: unread stdout, collected stderr
  std::chrono::steady_clock::time_point deadline_{};
  bool has_deadline_ = false;
};

// Starts argv[0] (searched in PATH when it has no slash). Fails when the
// program cannot be started.
Expected<Process> spawn(const std::vector<std::string> &argv, const ProcessOptions &options = {});

// spawn() + wait().
Expected<ProcessResult> run_process(const std::vector<std::string> &argv, const ProcessOptions &options = {});

// Replaces the current process with argv (execv). Returns only on failure,
// with the errno text.
Error exec_replace(const std::vector<std::string> &argv);

// Interface for code that runs external tools, so tests can substitute a fake.
class ProcessRunner {
public:
  virtual ~ProcessRunner() = default;
  virtual Expected<ProcessResult> run(const std::vector<std::string> &argv, const ProcessOptions &options) = 0;
};

// The real runner (uses run_process).
ProcessRunner &system_runner();

// Finds `name` in PATH; returns the full path or nullopt.
std::optional<std::string> find_in_path(const std::string &name);

// Joins argv into a shell-quoted command line (for logs and --kbcc-dry-run).
std::string shell_join(const std::vector<std::string> &argv);

}  // namespace kbcc

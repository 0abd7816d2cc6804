// The warm queue with three local worker processes against a real
// redis-server. The GPU step is replaced by measurements the test supplies.
#include "remote/queue.h"
#include "servers.h"
#include "support/fs.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <map>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kbcc::remote {
namespace {

using namespace std::chrono_literals;
using test::Server;

// Measurements the "GPU" returns: kernel -> speedup.
std::map<std::string, double> measurements() {
  std::map<std::string, double> m;
  for (int i = 0; i < 12; ++i)
    m["kernel" + std::to_string(i)] = 1.0 + i / 10.0;
  return m;
}

void append(const std::string &path, const std::string &line) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  (void)!write(fd, line.data(), line.size());
  close(fd);
}

QueueOptions fast_options() {
  QueueOptions o;
  o.name = "warm-test";
  o.claim_idle = 1500ms;
  o.block = 200ms;
  return o;
}

// Runs one worker in a child process; the victim hangs inside its first kernel.
pid_t start_worker(const std::string &url, const std::string &id, const std::string &dir, bool victim) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  auto m = measurements();
  std::vector<std::string> kernels;
  for (const auto &[k, _] : m)
    kernels.push_back(k);
  auto report = run_warm_queue(
      url, id, kernels,
      [&](const std::string &kernel) -> Status {
        if (victim) {
          append(dir + "/victim", kernel + "\n");
          for (;;)
            pause(); // dies here, claim held
        }
        std::this_thread::sleep_for(100ms); // the GPU at work
        if (!m.count(kernel)) return make_error("no measurement for " + kernel);
        std::ostringstream line;
        line << id << " " << kernel << " " << m[kernel] << "\n";
        append(dir + "/results", line.str());
        return Status::ok();
      },
      fast_options());
  if (!report) {
    append(dir + "/errors", id + ": " + report.error().message + "\n");
    _exit(1);
  }
  append(dir + "/reports", id + " " + std::to_string(report->enqueued) + " " + std::to_string(report->processed) + " " +
                               std::to_string(report->taken_over) + "\n");
  _exit(0);
}

bool wait_exit(pid_t pid, std::chrono::seconds limit, int &status) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(20ms);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return false;
}

TEST(WarmQueue, ThreeWorkersEachKernelOnceAndTakeOverADeadWorker) {
  Server redis(Server::kRedis);
  KBCC_REQUIRE_SERVER(redis);
  std::string dir = test::temp_dir();
  pid_t victim = start_worker(redis.url(), "w0", dir, true);
  // Let the victim claim its first kernel before the others start.
  for (int i = 0; i < 500 && !file_exists(dir + "/victim"); ++i)
    std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(file_exists(dir + "/victim")) << "the victim never claimed a kernel";
  pid_t w1 = start_worker(redis.url(), "w1", dir, false);
  pid_t w2 = start_worker(redis.url(), "w2", dir, false);
  std::this_thread::sleep_for(150ms);
  kill(victim, SIGKILL); // dies mid-claim
  int status = 0;
  waitpid(victim, &status, 0);
  ASSERT_TRUE(wait_exit(w1, 30s, status)) << "w1 did not finish";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(dir + "/errors").value_or("");
  ASSERT_TRUE(wait_exit(w2, 30s, status)) << "w2 did not finish";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(dir + "/errors").value_or("");

  std::string victim_kernel = read_file(dir + "/victim").value_or("");
  victim_kernel.pop_back();
  std::map<std::string, int> times;
  std::map<std::string, std::string> by;
  std::istringstream results(read_file(dir + "/results").value_or(""));
  for (std::string w, k, speedup; results >> w >> k >> speedup;) {
    ++times[k];
    by[k] = w;
    std::ostringstream expected;
    expected << measurements()[k];
    EXPECT_EQ(speedup, expected.str()) << "the worker used the test's measurement";
  }
  EXPECT_EQ(times.size(), 12u);
  for (const auto &[k, n] : times)
    EXPECT_EQ(n, 1) << k << " optimized " << n << " times";
  EXPECT_TRUE(by[victim_kernel] == "w1" || by[victim_kernel] == "w2") << "the dead worker's claim was taken over";

  uint64_t enqueued = 0, taken_over = 0;
  std::istringstream reports(read_file(dir + "/reports").value_or(""));
  for (std::string w; reports >> w;) {
    uint64_t e, p, t;
    reports >> e >> p >> t;
    enqueued += e;
    taken_over += t;
  }
  EXPECT_EQ(enqueued, 0u) << "the victim enqueued every kernel; the others found them enqueued";
  EXPECT_EQ(taken_over, 1u);

  auto st = queue_status(redis.url(), "warm-test");
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(st->enqueued, 12u);
  EXPECT_EQ(st->done, 12u);
  EXPECT_EQ(st->pending, 0u);
  EXPECT_EQ(st->failed, 0u);

  // A later worker finds nothing left to do and returns.
  auto again = run_warm_queue(
      redis.url(), "w3", {"kernel0"},
      [](const std::string &) -> Status {
        ADD_FAILURE() << "nothing should be optimized twice";
        return Status::ok();
      },
      fast_options());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->processed, 0u);
  EXPECT_EQ(again->enqueued, 0u);
}

TEST(WarmQueue, FailuresAreRecordedAndNotRetried) {
  Server redis(Server::kRedis);
  KBCC_REQUIRE_SERVER(redis);
  int calls = 0;
  auto r = run_warm_queue(
      redis.url(), "solo", {"a", "b"},
      [&](const std::string &k) -> Status {
        ++calls;
        return k == "a" ? make_error("no captures") : Status::ok();
      },
      fast_options());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(r->failed, 1u);
  auto st = queue_status(redis.url(), "warm-test");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->failed, 1u);
  EXPECT_EQ(st->done, 2u);
}

TEST(WarmQueue, DefaultWorkerIdNamesHostAndProcess) {
  std::string id = default_worker_id();
  EXPECT_NE(id.find("-" + std::to_string(getpid())), std::string::npos) << id;
}

TEST(WarmQueue, DownRedisIsAnError) {
  std::string url;
  {
    Server gone(Server::kRedis);
    KBCC_REQUIRE_SERVER(gone);
    url = gone.url();
  }
  auto r = run_warm_queue(url, "w", {"a"}, [](const std::string &) { return Status::ok(); }, fast_options());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(url), std::string::npos);
}

} // namespace
} // namespace kbcc::remote

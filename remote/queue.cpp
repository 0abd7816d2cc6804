#include "remote/queue.h"

#include "remote/redis_client.h"
#include "support/log.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace kbcc::remote {
namespace {

constexpr const char *kGroup = "kbcc-warm";

// Adds ARGV[1] to the stream once: the set KEYS[2] remembers what was enqueued.
constexpr const char *kEnqueueScript = "if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then "
                                       "redis.call('XADD', KEYS[1], '*', 'kernel', ARGV[1]) return 1 end return 0";
// Resets the idle time of entry ARGV[3] if consumer ARGV[2] still owns it.
constexpr const char *kHeartbeatScript =
    "local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1) "
    "if #p == 1 and p[1][2] == ARGV[2] then "
    "redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID') return 1 end return 0";

struct Keys {
  std::string stream, enqueued, done, failed;
  explicit Keys(const std::string &name)
      : stream("kbcc:queue:" + name), enqueued(stream + ":enqueued"), done(stream + ":done"),
        failed(stream + ":failed") {}
};

struct Entry {
  std::string id, kernel;
};

Status check_reply(const Expected<RedisReply> &r, const std::string &what) {
  if (!r) return r.error();
  if (r->type == RedisReply::Error) return make_error(what + ": " + r->str, "remote-io");
  return Status::ok();
}

// The first entry of a stream-entries array ([[id, [field, value, ...]], ...]).
std::optional<Entry> first_entry(const RedisReply &entries) {
  for (const auto &e : entries.elements) {
    if (e.type != RedisReply::Array || e.elements.size() < 2) continue; // deleted entry (nil)
    const auto &fields = e.elements[1].elements;
    for (size_t i = 0; i + 1 < fields.size(); i += 2)
      if (fields[i].str == "kernel") return Entry{e.elements[0].str, fields[i + 1].str};
  }
  return std::nullopt;
}

// Keeps this worker's claim on `entry_id` fresh while the callback runs.
class Heartbeat {
public:
  Heartbeat(const std::string &url, const Keys &keys, const std::string &worker, const std::string &entry_id,
            std::chrono::milliseconds every, std::chrono::milliseconds timeout)
      : thread_([=, this] { run(url, keys, worker, entry_id, every, timeout); }) {}
  ~Heartbeat() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

private:
  void run(const std::string &url, const Keys &keys, const std::string &worker, const std::string &id,
           std::chrono::milliseconds every, std::chrono::milliseconds timeout) {
    auto client = RedisClient::connect(url, timeout);
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, every, [this] { return stop_; })) {
      if (!client) return;
      auto r = (*client)->command({"EVAL", kHeartbeatScript, "1", keys.stream, kGroup, worker, id});
      if (r && r->type == RedisReply::Integer && r->integer == 0) {
        log_line("warm queue: worker " + worker + " lost its claim on " + id + " to another worker");
        return;
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

class Worker {
public:
  Worker(std::string url, std::string id, QueueOptions options)
      : url_(std::move(url)), id_(std::move(id)), options_(std::move(options)), keys_(options_.name) {}

  Expected<QueueReport> run(const std::vector<std::string> &kernels, const OptimizeFn &optimize) {
    auto c = RedisClient::connect(url_, options_.timeout + options_.block);
    if (!c) return c.error();
    client_ = std::move(*c);
    if (auto s = setup(kernels); !s) return s.error();
    while (true) {
      auto claimed = take_over();
      if (!claimed) return claimed.error();
      std::optional<Entry> entry = *claimed;
      if (entry) ++report_.taken_over;
      if (!entry) {
        auto fresh = read_new();
        if (!fresh) return fresh.error();
        entry = *fresh;
      }
      if (entry) {
        if (auto s = process(*entry, optimize); !s) return s.error();
        continue;
      }
      auto finished = all_done();
      if (!finished) return finished.error();
      if (*finished) return report_;
    }
  }

private:
  Status setup(const std::vector<std::string> &kernels) {
    auto g = client_->command({"XGROUP", "CREATE", keys_.stream, kGroup, "0", "MKSTREAM"});
    if (!g) return g.error();
    if (g->type == RedisReply::Error && g->str.rfind("BUSYGROUP", 0) != 0)
      return make_error("XGROUP CREATE " + keys_.stream + ": " + g->str, "remote-io");
    for (const auto &k : kernels) {
      auto r = client_->command({"EVAL", kEnqueueScript, "2", keys_.stream, keys_.enqueued, k});
      if (auto s = check_reply(r, "enqueue " + k); !s) return s;
      if (r->integer == 1) ++report_.enqueued;
    }
    return Status::ok();
  }

  // A claim of a dead worker (idle past claim_idle), if any.
  Expected<std::optional<Entry>> take_over() {
    auto r = client_->command(
        {"XAUTOCLAIM", keys_.stream, kGroup, id_, std::to_string(options_.claim_idle.count()), "0-0", "COUNT", "1"});
    if (auto s = check_reply(r, "XAUTOCLAIM " + keys_.stream); !s) return s.error();
    if (r->elements.size() < 2) return std::optional<Entry>();
    auto e = first_entry(r->elements[1]);
    if (e) log_line("warm queue: worker " + id_ + " takes over " + e->kernel + " (" + e->id + ") from an idle worker");
    return e;
  }

  Expected<std::optional<Entry>> read_new() {
    auto r = client_->command({"XREADGROUP", "GROUP", kGroup, id_, "COUNT", "1", "BLOCK",
                               std::to_string(options_.block.count()), "STREAMS", keys_.stream, ">"});
    if (auto s = check_reply(r, "XREADGROUP " + keys_.stream); !s) return s.error();
    if (r->type != RedisReply::Array || r->elements.empty()) return std::optional<Entry>();
    const auto &stream = r->elements[0];
    if (stream.elements.size() < 2) return std::optional<Entry>();
    return first_entry(stream.elements[1]);
  }

  Status process(const Entry &e, const OptimizeFn &optimize) {
    auto done = client_->command({"SISMEMBER", keys_.done, e.kernel});
    if (auto s = check_reply(done, "SISMEMBER " + keys_.done); !s) return s;
    if (done->integer == 1) {
      ++report_.already_done;
      return check_reply(client_->command({"XACK", keys_.stream, kGroup, e.id}), "XACK");
    }
    Status result = Status::ok();
    {
      Heartbeat beat(url_, keys_, id_, e.id, options_.claim_idle / 3, options_.timeout);
      result = optimize(e.kernel);
    }
    ++report_.processed;
    if (!result) ++report_.failed;
    std::vector<std::vector<std::string>> cmds{{"MULTI"}, {"SADD", keys_.done, e.kernel}};
    if (!result) cmds.push_back({"HSET", keys_.failed, e.kernel, id_ + ": " + result.error().message});
    cmds.push_back({"XACK", keys_.stream, kGroup, e.id});
    cmds.push_back({"EXEC"});
    for (const auto &cmd : cmds)
      if (auto s = check_reply(client_->command(cmd), cmd.front() + " " + keys_.stream); !s) return s;
    return Status::ok();
  }

  Expected<bool> all_done() {
    auto all = client_->command({"SCARD", keys_.enqueued});
    if (auto s = check_reply(all, "SCARD"); !s) return s.error();
    auto done = client_->command({"SCARD", keys_.done});
    if (auto s = check_reply(done, "SCARD"); !s) return s.error();
    return done->integer >= all->integer;
  }

  std::string url_, id_;
  QueueOptions options_;
  Keys keys_;
  std::unique_ptr<RedisClient> client_;
  QueueReport report_;
};

} // namespace

Expected<QueueReport> run_warm_queue(const std::string &url, const std::string &worker_id,
                                     const std::vector<std::string> &kernels, const OptimizeFn &optimize,
                                     const QueueOptions &options) {
  if (worker_id.empty()) return make_error("warm queue: empty worker id", "remote-config");
  return Worker(url, worker_id, options).run(kernels, optimize);
}

std::string default_worker_id() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "host");
  return std::string(host) + "-" + std::to_string(getpid());
}

Expected<QueueStatus> queue_status(const std::string &url, const std::string &name) {
  auto c = RedisClient::connect(url, std::chrono::milliseconds(5000));
  if (!c) return c.error();
  Keys keys(name);
  QueueStatus st;
  std::pair<const std::string *, uint64_t *> counts[] = {{&keys.enqueued, &st.enqueued}, {&keys.done, &st.done}};
  for (auto [key, out] : counts) {
    auto r = (*c)->command({"SCARD", *key});
    if (auto s = check_reply(r, "SCARD " + *key); !s) return s.error();
    *out = static_cast<uint64_t>(r->integer);
  }
  auto f = (*c)->command({"HLEN", keys.failed});
  if (auto s = check_reply(f, "HLEN " + keys.failed); !s) return s.error();
  st.failed = static_cast<uint64_t>(f->integer);
  auto p = (*c)->command({"XPENDING", keys.stream, kGroup});
  if (p && p->type == RedisReply::Array && !p->elements.empty())
    st.pending = static_cast<uint64_t>(p->elements[0].integer);
  return st;
}

} // namespace kbcc::remote

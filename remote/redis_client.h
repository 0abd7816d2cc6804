// A minimal Redis client over hiredis: connect with a timeout, send one
// command as an argument vector, get the reply as a value. Used by the Redis
// store and the warm queue.
#pragma once

#include "support/expected.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace kbcc::remote {

struct RedisReply {
  enum Type { Nil, String, Integer, Array, Status, Error } type = Nil;
  std::string str; // String, Status and Error replies
  long long integer = 0;
  std::vector<RedisReply> elements; // Array replies
};

class RedisClient {
public:
  // Connects to redis://host[:port][/db] within `timeout`; every command then
  // fails after `timeout` without an answer.
  static Expected<std::unique_ptr<RedisClient>> connect(const std::string &url, std::chrono::milliseconds timeout);
  ~RedisClient();
  RedisClient(const RedisClient &) = delete;
  RedisClient &operator=(const RedisClient &) = delete;

  // Sends `argv` and returns the reply. A transport failure is an Error (and
  // the connection is unusable afterwards); a Redis error is a reply of type Error.
  Expected<RedisReply> command(const std::vector<std::string> &argv);
  // Changes the per-command timeout (0 = wait forever, e.g. for blocking reads).
  void set_timeout(std::chrono::milliseconds timeout);
  const std::string &url() const { return url_; }

private:
  RedisClient() = default;
  void *ctx_ = nullptr; // redisContext
  std::string url_;
};

} // namespace kbcc::remote

// Real servers for the remote tests, started on 127.0.0.1 by the scripts in
// tests/remote/ and stopped when the object goes away.
#pragma once

#include "cache/variant.h"

#include <string>

namespace kbcc::remote::test {

class Server {
public:
  enum Kind { kRedis, kWebdav, kSlow, kGarbage };
  // Starts the server; url() is empty (and why() says why) when it could not start.
  explicit Server(Kind kind);
  ~Server();
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;

  const std::string &url() const { return url_; }
  // The same host and port as a redis:// URL (for the fault servers).
  std::string redis_url() const { return "redis://127.0.0.1:" + port_; }
  const std::string &why() const { return why_; }
  // Files served by the WebDAV server.
  std::string data_dir() const { return dir_ + "/data"; }
  // Stops the server (the URL then refuses connections).
  void stop();

private:
  Kind kind_;
  std::string dir_, url_, why_, port_;
  bool stopped_ = false;
};

// A complete, validated variant record of kernel `hash` for `arch`.
cache::VariantRecord sample_variant(const std::string &hash = "0123456789abcdef0123456789abcdef",
                                    const std::string &arch = "sm_90", double median_us = 5);

// A fresh temporary directory in $TMPDIR, removed when the test program exits.
std::string temp_dir();

} // namespace kbcc::remote::test

#define KBCC_REQUIRE_SERVER(server)                                                                                    \
  if ((server).url().empty()) GTEST_SKIP() << (server).why()

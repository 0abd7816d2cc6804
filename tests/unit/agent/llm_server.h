// Starts tests/llm_server/server.py on 127.0.0.1 with a script of responses.
#pragma once
#include "support/fs.h"
#include "support/process.h"

#include <chrono>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace kbcc::agent::test {

class ScriptedServer {
public:
  explicit ScriptedServer(const nlohmann::json &responses) {
    dir_ = *make_temp_dir("kbcc-llm-test");
    (void)write_file_atomic(dir_ + "/script.json", nlohmann::json{{"responses", responses}}.dump());
    auto p = spawn({"python3", std::string(KBCC_SOURCE_DIR) + "/tests/llm_server/server.py", "--script",
                    dir_ + "/script.json", "--log", dir_ + "/requests.log", "--port-file", dir_ + "/port"},
                   ProcessOptions{});
    if (!p) return;
    proc_ = std::move(*p);
    for (int i = 0; i < 200 && !file_exists(dir_ + "/port"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    auto port = read_file(dir_ + "/port");
    if (port) url_ = "http://127.0.0.1:" + *port;
  }
  ~ScriptedServer() {
    proc_.kill();
    remove_all(dir_);
  }
  const std::string &url() const { return url_; }
  const std::string &dir() const { return dir_; }
  // The requests the server received, oldest first.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::istringstream in(read_file(dir_ + "/requests.log").value_or(""));
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
  }

private:
  std::string dir_, url_;
  Process proc_;
};

} // namespace kbcc::agent::test

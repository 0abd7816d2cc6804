// Redis backend: each object is a string at "kbcc:<key>"; each folder
// "kbcc:<folder>/" is a set of the names directly under it, so list() is one
// SMEMBERS. put() writes the object and its folder entries in one MULTI/EXEC.
#include "remote/redis_client.h"
#include "remote/store.h"

#include <algorithm>

namespace kbcc::remote {
namespace {

constexpr const char *kPrefix = "kbcc:";

class RedisStore : public Store {
public:
  RedisStore(std::string url, StoreOptions options) : url_(std::move(url)), options_(options) {}

  Expected<std::optional<std::string>> get(const std::string &key) override {
    auto r = call({"GET", kPrefix + key});
    if (!r) return r.error();
    if (r->type == RedisReply::Nil) return std::optional<std::string>();
    if (r->type != RedisReply::String) return unexpected("GET", key, *r);
    return std::optional<std::string>(std::move(r->str));
  }

  Status put(const std::string &key, const std::string &data) override {
    if (!valid_key(key)) return make_error("invalid remote key '" + key + "'", "remote-key");
    std::vector<std::vector<std::string>> cmds{{"MULTI"}, {"SET", kPrefix + key, data}};
    size_t start = 0; // "a/b/c": "" holds "a/", "a/" holds "b/", "a/b/" holds "c"
    for (size_t slash = key.find('/'); slash != std::string::npos; slash = key.find('/', start)) {
      cmds.push_back({"SADD", kPrefix + key.substr(0, start), key.substr(start, slash + 1 - start)});
      start = slash + 1;
    }
    cmds.push_back({"SADD", kPrefix + key.substr(0, start), key.substr(start)});
    cmds.push_back({"EXEC"});
    for (const auto &cmd : cmds) {
      auto r = call(cmd);
      if (!r) return r.error();
      if (r->type == RedisReply::Error) return unexpected(cmd.front().c_str(), key, *r);
    }
    return Status::ok();
  }

  Expected<bool> check(const std::string &key) override {
    auto r = call({"EXISTS", kPrefix + key});
    if (!r) return r.error();
    if (r->type != RedisReply::Integer) return unexpected("EXISTS", key, *r);
    return r->integer > 0;
  }

  Expected<std::vector<std::string>> list(const std::string &prefix) override {
    auto r = call({"SMEMBERS", kPrefix + prefix});
    if (!r) return r.error();
    if (r->type != RedisReply::Array) return unexpected("SMEMBERS", prefix, *r);
    std::vector<std::string> names;
    for (const auto &e : r->elements)
      names.push_back(e.str);
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string location() const override { return redact_url(url_); }

private:
  Expected<RedisReply> call(const std::vector<std::string> &argv) {
    if (!client_) {
      auto c = RedisClient::connect(url_, options_.timeout);
      if (!c) return c.error();
      client_ = std::move(*c);
    }
    auto r = client_->command(argv);
    if (!r) client_.reset();
    return r;
  }

  Error unexpected(const char *cmd, const std::string &key, const RedisReply &r) const {
    return make_error(std::string(cmd) + " " + key + " on " + location() + ": unexpected reply" +
                          (r.type == RedisReply::Error ? " '" + r.str + "'" : ""),
                      "remote-garbage");
  }

  std::string url_;
  StoreOptions options_;
  std::unique_ptr<RedisClient> client_;
};

} // namespace

Expected<std::unique_ptr<Store>> make_redis_store(const std::string &url, const StoreOptions &options) {
  if (url.rfind("redis://", 0) != 0) return make_error("remote '" + url + "' is not a redis:// URL", "remote-config");
  return std::unique_ptr<Store>(std::make_unique<RedisStore>(url, options));
}

} // namespace kbcc::remote

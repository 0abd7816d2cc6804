// In-memory Store for unit tests.
#include "remote/store.h"

#include <cctype>
#include <map>

namespace kbcc::remote {
namespace {

class MemoryStore : public Store {
public:
  Expected<std::optional<std::string>> get(const std::string &key) override {
    auto it = objects_.find(key);
    if (it == objects_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Status put(const std::string &key, const std::string &data) override {
    if (!valid_key(key)) return make_error("invalid remote key '" + key + "'", "remote-key");
    objects_[key] = data;
    return Status::ok();
  }
  Expected<bool> check(const std::string &key) override { return objects_.count(key) > 0; }
  Expected<std::vector<std::string>> list(const std::string &prefix) override {
    std::vector<std::string> names;
    for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.rfind(prefix, 0) == 0; ++it) {
      std::string rest = it->first.substr(prefix.size());
      auto slash = rest.find('/');
      std::string name = slash == std::string::npos ? rest : rest.substr(0, slash + 1);
      if (names.empty() || names.back() != name) names.push_back(name);
    }
    return names;
  }
  std::string location() const override { return "memory:"; }

private:
  std::map<std::string, std::string> objects_;
};

} // namespace

std::unique_ptr<Store> make_memory_store() { return std::make_unique<MemoryStore>(); }

std::string redact_url(const std::string &url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  auto host_end = url.find('/', scheme + 3);
  auto at = url.rfind('@', host_end);
  if (at == std::string::npos || at < scheme) return url;
  return url.substr(0, scheme + 3) + url.substr(at + 1);
}

bool valid_key(const std::string &key) {
  if (key.empty() || key.front() == '/' || key.find("..") != std::string::npos) return false;
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '/' && c != '-' && c != '@')
      return false;
  return true;
}

Expected<std::unique_ptr<Store>> make_store(const std::string &url, const StoreOptions &options) {
  if (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0) return make_http_store(url, options);
  if (url.rfind("redis://", 0) == 0) return make_redis_store(url, options);
  return make_error("remote '" + redact_url(url) + "': unknown scheme (use http://, https:// or redis://)",
                    "remote-config");
}

} // namespace kbcc::remote

// The KB policy in the LMDB store ("policy" in the kb table) and the local
// contributor id ("contributor" in the meta table).
#include "kb/policy.h"

#include <fcntl.h>
#include <random>
#include <regex>
#include <unistd.h>

namespace kbcc::kb {
namespace {

constexpr const char *kPolicyKey = "policy";
constexpr const char *kContributorKey = "contributor";

std::string random_id() {
  unsigned char bytes[8] = {};
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && ::read(fd, bytes, sizeof bytes) == static_cast<ssize_t>(sizeof bytes);
  if (fd >= 0) ::close(fd);
  if (!ok) {
    std::random_device rd;
    for (auto &b : bytes)
      b = static_cast<unsigned char>(rd());
  }
  static const char *hex = "0123456789abcdef";
  std::string id = "c-";
  for (unsigned char b : bytes) {
    id += hex[b >> 4];
    id += hex[b & 15];
  }
  return id;
}

Expected<Policy> load_in(cache::Txn &txn, const std::string &origin) {
  auto text = txn.get(cache::kPolicyTable, kPolicyKey);
  if (!text) return text.error();
  if (!*text) return seed_policy();
  return parse_policy(**text, origin);
}

} // namespace

Expected<Policy> PolicyStore::load() {
  Expected<Policy> out = make_error("not loaded");
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    out = load_in(txn, env_.path() + "/data.mdb (KB policy)");
    return {};
  });
  if (!st) return st.error();
  return out;
}

Status PolicyStore::save(const Policy &policy) {
  std::string text = to_json(policy).dump();
  return env_.write([&](cache::Txn &txn) { return txn.put(cache::kPolicyTable, kPolicyKey, text); });
}

Status PolicyStore::update(const std::function<Status(Policy &)> &fn) {
  return env_.write([&](cache::Txn &txn) -> Status {
    auto p = load_in(txn, env_.path() + "/data.mdb (KB policy)");
    if (!p) return p.error();
    if (auto st = fn(*p); !st) return st;
    return txn.put(cache::kPolicyTable, kPolicyKey, to_json(*p).dump());
  });
}

Status PolicyStore::merge_in(const Policy &other) {
  return update([&](Policy &p) -> Status {
    p = merge(p, other);
    return {};
  });
}

Expected<std::string> PolicyStore::contributor(const std::string &configured) {
  static const std::regex valid("^[A-Za-z0-9][A-Za-z0-9_.@-]*$");
  if (!configured.empty()) {
    if (!std::regex_match(configured, valid))
      return make_error("contributor id '" + configured + "' must match [A-Za-z0-9][A-Za-z0-9_.@-]*", "kb-bad");
    return configured;
  }
  std::string id;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    auto v = txn.get(cache::kMetaTable, kContributorKey);
    if (!v) return v.error();
    if (*v) id = **v;
    return {};
  });
  if (!st) return st.error();
  if (!id.empty()) return id;
  st = env_.write([&](cache::Txn &txn) -> Status {
    auto v = txn.get(cache::kMetaTable, kContributorKey);
    if (!v) return v.error();
    if (*v) {
      id = **v;
      return {};
    }
    id = random_id();
    return txn.put(cache::kMetaTable, kContributorKey, id);
  });
  if (!st) return st.error();
  return id;
}

} // namespace kbcc::kb

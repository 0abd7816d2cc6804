#include "kb/pending.h"

namespace kbcc::kb {

Status PendingUnits::put(const std::string &key, const nlohmann::json &unit, int64_t now) {
  std::string value = nlohmann::json{{"unit", unit}, {"recorded", now}}.dump();
  return env_.write([&](cache::Txn &txn) { return txn.put(cache::kPendingTable, key, value); });
}

Expected<std::vector<PendingUnit>> PendingUnits::list() {
  std::vector<PendingUnit> out;
  Error bad;
  Status st = env_.read([&](cache::Txn &txn) {
    return txn.for_each(cache::kPendingTable, "", [&](std::string_view key, std::string_view value) {
      auto j = nlohmann::json::parse(value, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("unit") || !j["unit"].is_object()) {
        bad = make_error(env_.path() + "/data.mdb: pending unit " + std::string(key) + " is not a unit record",
                         cache::kErrBadRecord);
        return false;
      }
      out.push_back({std::string(key), j["unit"], j.value("recorded", int64_t{0})});
      return true;
    });
  });
  if (!st) return st.error();
  if (!bad.message.empty()) return bad;
  return out;
}

Status PendingUnits::remove(const std::string &key) {
  return env_.write([&](cache::Txn &txn) -> Status {
    auto r = txn.remove(cache::kPendingTable, key);
    if (!r) return r.error();
    return {};
  });
}

Expected<uint64_t> PendingUnits::count() { return env_.count(cache::kPendingTable); }

} // namespace kbcc::kb

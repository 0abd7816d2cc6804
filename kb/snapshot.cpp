// Snapshots: creation from the store, canonical content, verification,
// and the pinning lookup (KBCC_SNAPSHOT, else kbcc.lock).
#include "kb/snapshot.h"

#include "support/fs.h"
#include "support/hash.h"

#include <algorithm>
#include <set>

namespace kbcc::kb {

using nlohmann::json;

namespace {

Error bad(const std::string &path, const std::string &what) {
  return make_error(path + ": " + what + "; the snapshot is refused", kErrBadSnapshot);
}

json canonical_json(const Snapshot &s) {
  json variants = json::array();
  for (const auto &v : s.variants)
    variants.push_back(cache::to_json(v));
  return {{"format", kSnapshotFormat},
          {"version", kSnapshotVersion},
          {"archs", s.archs},
          {"policy", s.policy},
          {"variants", variants}};
}

void sort_variants(std::vector<cache::VariantRecord> &v) {
  std::sort(v.begin(), v.end(), [](const cache::VariantRecord &a, const cache::VariantRecord &b) {
    return std::tie(a.kernel_hash, a.arch) < std::tie(b.kernel_hash, b.arch);
  });
}

} // namespace

const cache::VariantRecord *Snapshot::find(const std::string &kernel_hash, const std::string &arch) const {
  auto it = std::lower_bound(
      variants.begin(), variants.end(), std::tie(kernel_hash, arch),
      [](const cache::VariantRecord &v, const auto &key) { return std::tie(v.kernel_hash, v.arch) < key; });
  if (it == variants.end() || it->kernel_hash != kernel_hash || it->arch != arch) return nullptr;
  return &*it;
}

std::string snapshot_canonical(const Snapshot &s) { return canonical_json(s).dump(); }

std::string snapshot_text(const Snapshot &s) {
  json j = canonical_json(s);
  j["id"] = hash_hex(j.dump());
  return j.dump(1) + "\n";
}

Expected<Snapshot> create_snapshot(cache::Env &env, const std::vector<std::string> &archs) {
  auto policy = PolicyStore(env).load();
  if (!policy) return policy.error();
  auto variants = cache::VariantStore(env).list();
  if (!variants) return variants.error();
  Snapshot s;
  std::set<std::string> wanted(archs.begin(), archs.end()), seen;
  for (auto &v : *variants)
    if (wanted.empty() || wanted.count(v.arch)) {
      seen.insert(v.arch);
      s.variants.push_back(std::move(v));
    }
  const auto &names = wanted.empty() ? seen : wanted;
  s.archs.assign(names.begin(), names.end());
  sort_variants(s.variants);
  s.policy = json::parse(canonical_text(*policy));
  s.id = hash_hex(snapshot_canonical(s));
  return s;
}

Expected<Snapshot> load_snapshot(const std::string &path) {
  auto text = read_file(path);
  if (!text) return bad(path, "cannot read the snapshot (" + text.error().message + ")");
  auto j = json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad(path, "not a JSON snapshot");
  if (j.value("format", "") != kSnapshotFormat) return bad(path, "not a kbcc snapshot (format field)");
  if (!j.contains("version") || j["version"] != kSnapshotVersion)
    return bad(path, "snapshot format version " + j.value("version", json()).dump() + " is not supported (expected " +
                         std::to_string(kSnapshotVersion) + ")");
  if (!j.contains("id") || !j["id"].is_string()) return bad(path, "no id");
  std::string id = j["id"].get<std::string>();
  j.erase("id");
  std::string actual = hash_hex(j.dump());
  if (actual != id) return bad(path, "content does not match its id " + id + " (content hash " + actual + ")");
  Snapshot s;
  s.id = id;
  if (!j.contains("archs") || !j["archs"].is_array() || !j.contains("policy") || !j.contains("variants") ||
      !j["variants"].is_array())
    return bad(path, "missing archs, policy or variants");
  for (const auto &a : j["archs"]) {
    if (!a.is_string()) return bad(path, "archs must be strings");
    s.archs.push_back(a.get<std::string>());
  }
  s.policy = j["policy"];
  for (size_t i = 0; i < j["variants"].size(); ++i) {
    auto v = cache::variant_from_json(j["variants"][i], path + " variants[" + std::to_string(i) + "]");
    if (!v) return bad(path, v.error().message);
    if (auto st = cache::check_variant(*v); !st) return bad(path, st.error().message);
    s.variants.push_back(std::move(*v));
  }
  sort_variants(s.variants);
  return s;
}

std::string find_pinned_snapshot(const std::string &configured, const std::string &start_dir) {
  if (!configured.empty()) return configured;
  if (start_dir.empty()) return {};
  std::string dir = real_path(start_dir);
  while (!dir.empty()) {
    std::string lock = dir == "/" ? "/" + std::string(kLockFileName) : dir + "/" + kLockFileName;
    if (file_exists(lock)) return lock;
    if (file_exists(dir + "/.git") || dir == "/") break;
    auto slash = dir.find_last_of('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return {};
}

} // namespace kbcc::kb

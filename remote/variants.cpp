#include "remote/variants.h"

#include "support/config.h"
#include "support/log.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace kbcc::remote {
namespace {

// Serializes use of the process-wide remotes (builds may look up in threads).
std::mutex &remote_mutex() {
  static std::mutex m;
  return m;
}

// The configured remote, opened once per process so that its fail-fast state
// covers every lookup of a compile. nullptr when none is configured or usable.
Store *process_remote(const Config &config) {
  static std::map<std::string, std::unique_ptr<Store>> opened;
  std::string id = config.get("remote") + "\n" + config.get("remote_timeout") + "\n" + config.get("remote_read_only") +
                   "\n" + config.dir();
  auto it = opened.find(id);
  if (it != opened.end()) return it->second.get();
  auto store = open_remote(config);
  if (!store) {
    if (store.error().code != "remote-none") log_line("remote not used: " + store.error().message);
    opened[id] = nullptr;
    return nullptr;
  }
  return (opened[id] = std::move(*store)).get();
}

bool is_pinned(const cache::VariantRecord &r, const std::vector<cache::VariantRecord> &pinned) {
  for (const auto &p : pinned)
    if (p.kernel_hash == r.kernel_hash && p.arch == r.arch && p.id() == r.id()) return true;
  return false;
}

// The checked record stored at `key`, or an Error naming the key.
Expected<cache::VariantRecord> check_download(const std::string &key, const std::string &address,
                                              const std::string &kernel_hash, const std::string &arch,
                                              const std::string &text) {
  auto record = cache::parse_variant(text, key);
  if (!record) return make_error(key + ": not a variant record: " + record.error().message, "remote-garbage");
  std::string actual = variant_content_hash(*record);
  if (actual != address)
    return make_error(key + ": content hash " + actual + " does not match its address", "remote-hash");
  if (record->kernel_hash != kernel_hash || record->arch != arch)
    return make_error(key + ": holds a variant of " + record->kernel_hash + "/" + record->arch, "remote-hash");
  if (auto s = cache::check_variant(*record); !s)
    return make_error(key + ": not a validated variant: " + s.error().message, "remote-garbage");
  return record;
}

} // namespace

std::string variant_folder(const std::string &kernel_hash, const std::string &arch) {
  return "variants/" + kernel_hash + "-" + arch + "/";
}

std::string variant_remote_key(const cache::VariantRecord &record) {
  return variant_folder(record.kernel_hash, record.arch) + variant_content_hash(record);
}

Status sign_variant(const Config &config, cache::VariantRecord &record) {
  const std::string &path = config.get("signing_key");
  if (path.empty()) return Status::ok();
  auto key = read_secret_key(path);
  if (!key) return key.error();
  sign_variant(record, *key);
  return Status::ok();
}

Status publish_variant(Store &store, const cache::VariantRecord &record) {
  if (auto s = cache::check_variant(record); !s) return s;
  return store.put(variant_remote_key(record), cache::to_json(record).dump());
}

Status publish_variant(const Config &config, cache::VariantRecord record) {
  if (config.get("remote").empty() || config.get_bool("remote_read_only")) return Status::ok();
  if (auto s = sign_variant(config, record); !s) return s;
  std::lock_guard<std::mutex> lock(remote_mutex());
  Store *store = process_remote(config);
  if (!store) return make_error("remote " + redact_url(config.get("remote")) + " is not usable", "remote-config");
  return publish_variant(*store, record);
}

Expected<std::vector<RemoteVariant>> download_variants(Store &store, const std::string &kernel_hash,
                                                       const std::string &arch, const std::vector<TrustedKey> &trusted,
                                                       const std::vector<cache::VariantRecord> &pinned,
                                                       std::chrono::steady_clock::time_point deadline, size_t max,
                                                       uint64_t *rejected) {
  std::string folder = variant_folder(kernel_hash, arch);
  auto names = store.list(folder);
  if (!names) return names.error();
  std::vector<RemoteVariant> found;
  for (const auto &name : *names) {
    if (found.size() >= max || std::chrono::steady_clock::now() >= deadline) break;
    if (name.empty() || name.back() == '/') continue;
    std::string key = folder + name;
    auto text = store.get(key);
    if (!text) return text.error();
    if (!*text) continue; // removed meanwhile
    auto record = check_download(key, name, kernel_hash, arch, **text);
    if (!record) {
      log_line("remote variant rejected: " + record.error().message);
      if (rejected) ++*rejected;
      continue;
    }
    RemoteVariant v{std::move(*record), name, Trust::kCandidate};
    if (signed_by_trusted(v.record, trusted))
      v.trust = Trust::kTrusted;
    else if (is_pinned(v.record, pinned))
      v.trust = Trust::kPinned;
    found.push_back(std::move(v));
  }
  return found;
}

std::optional<RemoteVariant> best_trusted(const std::vector<RemoteVariant> &found) {
  const RemoteVariant *best = nullptr;
  for (const auto &v : found) {
    if (v.trust == Trust::kCandidate) continue;
    if (!best || v.record.timing.variant_median_us < best->record.timing.variant_median_us) best = &v;
  }
  if (!best) return std::nullopt;
  return *best;
}

std::optional<cache::VariantRecord> fetch_variant(const Config &config, const std::string &kernel_hash,
                                                  const std::string &arch) {
  std::lock_guard<std::mutex> lock(remote_mutex());
  if (config.get("remote").empty()) return std::nullopt;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(std::max(1.0, config.get_double("remote_timeout"))));
  Store *store = process_remote(config);
  if (!store) return std::nullopt;
  auto trusted = read_trusted_keys(config.dir());
  if (!trusted) {
    log_line("remote not used: " + trusted.error().message);
    return std::nullopt;
  }
  auto found = download_variants(*store, kernel_hash, arch, *trusted, {}, deadline);
  if (!found) return std::nullopt; // the guard logged the failure
  auto best = best_trusted(*found);
  if (best) {
    log_line("remote variant " + best->content_hash + " for " + kernel_hash + "/" + arch + " signed by trusted key " +
             best->record.signer.substr(0, 16) + ": used");
    return best->record;
  }
  if (!found->empty())
    log_line("remote has " + std::to_string(found->size()) + " variant(s) for " + kernel_hash + "/" + arch +
             " but none signed by a trusted key: not used (`kbcc kb pull` keeps them as candidates)");
  return std::nullopt;
}

} // namespace kbcc::remote

#include "remote/sync.h"

#include "kb/policy.h"
#include "kb/registry.h"
#include "remote/object.h"
#include "remote/variants.h"
#include "support/fs.h"
#include "support/log.h"

#include <filesystem>
#include <limits>
#include <set>

namespace kbcc::remote {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string candidate_key(const cache::VariantRecord &r, const std::string &content_hash) {
  return r.kernel_hash + "/" + r.arch + "/" + content_hash;
}

Status push_variants(Store &store, cache::Env &env, const SyncOptions &o, SyncReport &report) {
  auto records = cache::VariantStore(env).list();
  if (!records) return records.error();
  for (auto record : *records) {
    if (record.signature.empty() && !o.signing_key.secret_hex.empty()) sign_variant(record, o.signing_key);
    auto there = store.check(variant_remote_key(record));
    if (!there) return there.error();
    if (*there) continue;
    if (auto s = publish_variant(store, record); !s) return s;
    ++report.variants_pushed;
  }
  return Status::ok();
}

Status push_registry(Store &store, cache::Env &env, SyncReport &report) {
  auto entries = kb::Registry(env).list();
  if (!entries) return entries.error();
  for (const auto &e : *entries) {
    if (auto s = store.put("registry/" + e.hash, wrap_object("registry", kb::to_json(e))); !s) return s;
    ++report.registry_pushed;
  }
  return Status::ok();
}

Status push_kb(Store &store, cache::Env &env, const SyncOptions &o, SyncReport &report) {
  kb::PolicyStore policies(env);
  auto contributor = policies.contributor(o.contributor);
  if (!contributor) return contributor.error();
  auto policy = policies.load();
  if (!policy) return policy.error();
  if (auto s = store.put("kb/" + *contributor, wrap_object("kb", kb::to_json(*policy))); !s) return s;
  ++report.kb_pushed;
  return Status::ok();
}

// Files under the captures directory worth sharing (blobs and launch manifests).
std::vector<std::string> local_capture_files(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const char *sub : {"launches", "blobs"}) {
    fs::path root = fs::path(dir) / sub;
    if (!fs::is_directory(root, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file(ec)) files.push_back(fs::relative(it->path(), dir, ec).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Status push_captures(Store &store, const SyncOptions &o, SyncReport &report) {
  for (const auto &rel : local_capture_files(o.captures_dir)) {
    std::string key = "captures/" + rel;
    if (!valid_key(key)) continue;
    std::error_code ec;
    uint64_t size = fs::file_size(fs::path(o.captures_dir) / rel, ec);
    if (ec || report.capture_bytes + size > o.capture_max_size) continue;
    auto there = store.check(key);
    if (!there) return there.error();
    if (*there) continue;
    auto data = read_file(o.captures_dir + "/" + rel);
    if (!data) return data.error();
    if (auto s = store.put(key, *data); !s) return s;
    report.capture_bytes += size;
    ++report.captures_pushed;
  }
  return Status::ok();
}

Status pull_variants(Store &store, cache::Env &env, const SyncOptions &o, SyncReport &report) {
  auto folders = store.list("variants/");
  if (!folders) return folders.error();
  cache::VariantStore variants(env);
  for (const auto &folder : *folders) {
    auto dash = folder.find('-');
    if (folder.empty() || folder.back() != '/' || dash == std::string::npos) continue;
    std::string kernel = folder.substr(0, dash), arch = folder.substr(dash + 1, folder.size() - dash - 2);
    auto found = download_variants(store, kernel, arch, o.trusted, o.pinned, Clock::time_point::max(),
                                   std::numeric_limits<size_t>::max(), &report.rejected);
    if (!found) return found.error();
    for (const auto &v : *found) {
      if (v.trust != Trust::kCandidate) {
        auto stored = variants.put(v.record);
        if (!stored) return stored.error();
        ++(v.trust == Trust::kTrusted ? report.variants_trusted : report.variants_pinned);
        continue;
      }
      std::string json = cache::to_json(v.record).dump();
      if (auto s = env.write(
              [&](cache::Txn &t) { return t.put(kCandidateTable, candidate_key(v.record, v.content_hash), json); });
          !s)
        return s;
      ++report.candidates;
    }
  }
  return Status::ok();
}

Status pull_registry(Store &store, cache::Env &env, SyncReport &report) {
  auto names = store.list("registry/");
  if (!names) return names.error();
  kb::Registry registry(env);
  std::vector<kb::RegistryEntry> fresh;
  for (const auto &hash : *names) {
    auto local = registry.get(hash);
    if (!local) return local.error();
    if (*local) continue; // known here: the local entry is authoritative (no double counting)
    std::string key = "registry/" + hash;
    auto text = store.get(key);
    if (!text) return text.error();
    if (!*text) continue;
    auto payload = unwrap_object(**text, "registry", store.location() + "/" + key);
    auto entry = payload ? kb::registry_entry_from_json(*payload, key) : Expected<kb::RegistryEntry>(payload.error());
    if (!entry || entry->hash != hash) {
      log_line("remote registry entry rejected: " +
               (entry ? key + ": holds kernel " + entry->hash : entry.error().message));
      ++report.rejected;
      continue;
    }
    fresh.push_back(std::move(*entry));
  }
  if (auto s = registry.upsert(fresh); !s) return s;
  report.registry_added += fresh.size();
  return Status::ok();
}

Status pull_kb(Store &store, cache::Env &env, SyncReport &report) {
  auto names = store.list("kb/");
  if (!names) return names.error();
  kb::PolicyStore policies(env);
  for (const auto &name : *names) {
    std::string key = "kb/" + name;
    auto text = store.get(key);
    if (!text) return text.error();
    if (!*text) continue;
    auto payload = unwrap_object(**text, "kb", store.location() + "/" + key);
    auto policy = payload ? kb::policy_from_json(*payload, key) : Expected<kb::Policy>(payload.error());
    if (!policy) {
      log_line("remote KB contribution rejected: " + policy.error().message);
      ++report.rejected;
      continue;
    }
    if (auto s = policies.merge_in(*policy); !s) return s;
    ++report.kb_merged;
  }
  return Status::ok();
}

// Every key under `folder` (recursively), in order.
Status list_tree(Store &store, const std::string &folder, std::vector<std::string> &keys) {
  auto names = store.list(folder);
  if (!names) return names.error();
  for (const auto &n : *names) {
    if (!n.empty() && n.back() == '/') {
      if (auto s = list_tree(store, folder + n, keys); !s) return s;
    } else {
      keys.push_back(folder + n);
    }
  }
  return Status::ok();
}

Status pull_captures(Store &store, const SyncOptions &o, SyncReport &report) {
  std::vector<std::string> keys;
  if (auto s = list_tree(store, "captures/", keys); !s) return s;
  for (const auto &key : keys) {
    std::string path = o.captures_dir + "/" + key.substr(std::string("captures/").size());
    if (file_exists(path)) continue;
    auto data = store.get(key);
    if (!data) return data.error();
    if (!*data || report.capture_bytes + (*data)->size() > o.capture_max_size) continue;
    if (auto s = write_file_atomic(path, **data); !s) return s;
    report.capture_bytes += (*data)->size();
    ++report.captures_pulled;
  }
  return Status::ok();
}

} // namespace

Expected<SyncReport> push(Store &store, cache::Env &env, const SyncOptions &o) {
  SyncReport report;
  if (o.variants)
    if (auto s = push_variants(store, env, o, report); !s) return s.error();
  if (o.registry && o.closures && o.closure_max_size > 0) // closures first: an entry's closure is there when it is
    if (auto s = push_closures(store, env, o, report); !s) return s.error();
  if (o.registry)
    if (auto s = push_registry(store, env, report); !s) return s.error();
  if (o.kb)
    if (auto s = push_kb(store, env, o, report); !s) return s.error();
  if (o.captures && o.capture_max_size > 0)
    if (auto s = push_captures(store, o, report); !s) return s.error();
  return report;
}

Expected<SyncReport> pull(Store &store, cache::Env &env, const SyncOptions &o) {
  SyncReport report;
  if (o.variants)
    if (auto s = pull_variants(store, env, o, report); !s) return s.error();
  if (o.registry)
    if (auto s = pull_registry(store, env, report); !s) return s.error();
  if (o.registry && o.closures && o.closure_max_size > 0)
    if (auto s = pull_closures(store, env, o, report); !s) return s.error();
  if (o.kb)
    if (auto s = pull_kb(store, env, report); !s) return s.error();
  if (o.captures && o.capture_max_size > 0)
    if (auto s = pull_captures(store, o, report); !s) return s.error();
  return report;
}

namespace {

std::string count(uint64_t n, const char *what) { return std::to_string(n) + " " + what; }

} // namespace

std::string push_summary(const SyncReport &r) {
  return "pushed: " + count(r.variants_pushed, "variant(s), ") +
         count(r.registry_pushed, r.registry_pushed == 1 ? "registry entry, " : "registry entries, ") +
         count(r.kb_pushed, "KB contribution(s), ") + count(r.captures_pushed, "capture file(s), ") +
         count(r.closures_pushed, "closure(s)");
}

std::string pull_summary(const SyncReport &r) {
  return "pulled: " + count(r.variants_trusted, "trusted variant(s), ") +
         count(r.variants_pinned, "pinned variant(s), ") + count(r.candidates, "candidate(s) for re-validation, ") +
         count(r.rejected, "rejected, ") +
         count(r.registry_added, r.registry_added == 1 ? "new registry entry, " : "new registry entries, ") +
         count(r.kb_merged, "KB contribution(s) merged, ") + count(r.captures_pulled, "capture file(s), ") +
         count(r.closures_pulled, "closure(s)");
}

Expected<std::vector<cache::VariantRecord>> list_candidates(cache::Env &env) {
  std::vector<cache::VariantRecord> out;
  Status parse_error = Status::ok();
  auto s = env.read([&](cache::Txn &t) {
    return t.for_each(kCandidateTable, "", [&](std::string_view key, std::string_view value) {
      auto r = cache::parse_variant(std::string(value), std::string(kCandidateTable) + "/" + std::string(key));
      if (!r) {
        parse_error = r.error();
        return false;
      }
      out.push_back(std::move(*r));
      return true;
    });
  });
  if (!s) return s.error();
  if (!parse_error) return parse_error.error();
  return out;
}

Status remove_candidate(cache::Env &env, const cache::VariantRecord &record) {
  std::string key = candidate_key(record, variant_content_hash(record));
  return env.write([&](cache::Txn &t) -> Status {
    auto r = t.remove(kCandidateTable, key);
    if (!r) return r.error();
    return Status::ok();
  });
}

} // namespace kbcc::remote

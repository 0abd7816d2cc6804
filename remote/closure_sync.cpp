// Pushing and pulling the unit closures of registry entries (kb/closure.h):
//   closures/<closure id>          envelope of kind "closure" (its hash is the id)
//   closure-files/<content hash>   the file's bytes
// A closure is published after all of its files, so a closure on the remote
// is complete; everything downloaded is checked against its address.
#include "kb/closure.h"
#include "kb/registry.h"
#include "remote/object.h"
#include "remote/sync.h"
#include "support/hash.h"
#include "support/log.h"

#include <set>

namespace kbcc::remote {
namespace {

std::string closure_key(const std::string &id) { return "closures/" + id; }
std::string file_key(const std::string &hash) { return "closure-files/" + hash; }

// Closure ids named by the local registry, in order.
Expected<std::set<std::string>> registry_closures(cache::Env &env) {
  auto entries = kb::Registry(env).list();
  if (!entries) return entries.error();
  std::set<std::string> ids;
  for (const auto &e : *entries)
    if (!e.closure.empty()) ids.insert(e.closure);
  return ids;
}

// Uploads the files of `closure` the remote lacks, then the closure. False
// (nothing more is pushed) when its files would exceed the transfer limit.
Expected<bool> push_one(Store &store, kb::ClosureStore &local, const std::string &id, const kb::Closure &closure,
                        const SyncOptions &o, SyncReport &report) {
  for (const auto &f : closure.files) {
    auto there = store.check(file_key(f.hash));
    if (!there) return there.error();
    if (*there) continue;
    if (report.closure_bytes + f.size > o.closure_max_size) return false;
    auto data = local.file(f.hash);
    if (!data) return data.error();
    if (!*data) return true; // evicted meanwhile: this closure stays local
    if (auto s = store.put(file_key(f.hash), **data); !s) return s.error();
    report.closure_bytes += f.size;
  }
  if (auto s = store.put(closure_key(id), wrap_object("closure", kb::to_json(closure))); !s) return s.error();
  ++report.closures_pushed;
  return true;
}

// The closure `id` from the remote; nullopt when absent or rejected (logged).
Expected<std::optional<kb::Closure>> fetch_closure(Store &store, const std::string &id, SyncReport &report) {
  auto text = store.get(closure_key(id));
  if (!text) return text.error();
  if (!*text) return std::optional<kb::Closure>{};
  std::string origin = store.location() + "/" + closure_key(id);
  auto payload = unwrap_object(**text, "closure", origin);
  auto closure = payload ? kb::closure_from_json(*payload, origin) : Expected<kb::Closure>(payload.error());
  if (closure && kb::closure_id(*closure) == id) return std::optional<kb::Closure>(std::move(*closure));
  log_line("remote closure rejected: " +
           (closure ? origin + ": content does not match its id" : closure.error().message));
  ++report.rejected;
  return std::optional<kb::Closure>{};
}

// Downloads the files of `closure` the local store lacks into `contents`;
// false when one is absent, rejected (logged) or over the transfer limit.
Expected<bool> fetch_files(Store &store, kb::ClosureStore &local, const kb::Closure &closure,
                           std::map<std::string, std::string> &contents, const SyncOptions &o, SyncReport &report) {
  auto missing = local.missing_files(closure);
  if (!missing) return missing.error();
  for (const auto &hash : *missing) {
    auto data = store.get(file_key(hash));
    if (!data) return data.error();
    if (!*data) return false;
    if (hash_hex(**data) != hash) {
      log_line("remote closure file rejected: " + store.location() + "/" + file_key(hash) +
               ": content does not match its hash");
      ++report.rejected;
      return false;
    }
    if (report.closure_bytes + (*data)->size() > o.closure_max_size) return false;
    report.closure_bytes += (*data)->size();
    contents[hash] = std::move(**data);
  }
  return true;
}

} // namespace

Status push_closures(Store &store, cache::Env &env, const SyncOptions &o, SyncReport &report) {
  auto ids = registry_closures(env);
  if (!ids) return ids.error();
  kb::ClosureStore local(env, o.closure_store_size);
  for (const auto &id : *ids) {
    auto there = store.check(closure_key(id));
    if (!there) return there.error();
    if (*there) continue;
    auto closure = local.get(id);
    if (!closure) return closure.error();
    if (!*closure) continue; // evicted locally
    auto pushed = push_one(store, local, id, **closure, o, report);
    if (!pushed) return pushed.error();
    if (!*pushed) break;
  }
  return Status::ok();
}

Status pull_closures(Store &store, cache::Env &env, const SyncOptions &o, SyncReport &report) {
  auto ids = registry_closures(env);
  if (!ids) return ids.error();
  kb::ClosureStore local(env, o.closure_store_size);
  for (const auto &id : *ids) {
    auto have = local.get(id);
    if (!have) return have.error();
    if (*have) continue;
    auto closure = fetch_closure(store, id, report);
    if (!closure) return closure.error();
    if (!*closure) continue;
    std::map<std::string, std::string> contents;
    auto complete = fetch_files(store, local, **closure, contents, o, report);
    if (!complete) return complete.error();
    if (!*complete) continue;
    auto put = local.put(**closure, contents);
    if (!put) {
      if (put.error().code != kb::kErrClosureTooLarge) return put.error();
      log_line("remote closure not kept: " + put.error().message);
      continue;
    }
    ++report.closures_pulled;
  }
  return Status::ok();
}

} // namespace kbcc::remote

// `kbcc kb push|pull|sync`: exchanging variants, registry entries, KB
// contributions and (optionally, under a size cap) captures with the remote.
// Remote layout (docs/remote.md):
//   variants/<kernel hash>-<arch>/<content hash>   variant record JSON
//   registry/<kernel hash>                         registry entry (envelope)
//   kb/<contributor>                               that contributor's KB policy (envelope)
//   captures/<path under $KBCC_DIR/captures>       capture files, as they are
//   closures/<closure id>                          a registry unit's closure (envelope)
//   closure-files/<content hash>                   one file of a closure, as it is
#pragma once

#include "cache/env.h"
#include "cache/variant.h"
#include "remote/store.h"
#include "remote/trust.h"
#include "support/expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kbcc::remote {

// LMDB table of remote variants that no trusted key signed: candidates for
// re-validation by `kbcc optimize`, never used by a build.
// Key "<kernel hash>/<arch>/<content hash>", value: the variant record JSON.
inline constexpr const char *kCandidateTable = "remote-candidates";

struct SyncOptions {
  bool variants = true, registry = true, kb = true;
  bool captures = false;         // only when capture_max_size > 0
  uint64_t capture_max_size = 0; // bytes of captures transferred at most per push/pull
  std::string captures_dir;      // $KBCC_DIR/captures
  bool closures = true;          // with the registry: the closures of its units (kb/closure.h)
  uint64_t closure_max_size = 0; // bytes of closure files transferred at most per push/pull (0 = none)
  uint64_t closure_store_size = 0; // closure_max_size of the local store (pull)
  std::string contributor;       // this machine's contributor id (kb/<contributor>)
  KeyPair signing_key;           // signs unsigned local variants on push when set
  std::vector<TrustedKey> trusted;
  std::vector<cache::VariantRecord> pinned; // a snapshot's variants: trusted as well
};

struct SyncReport {
  uint64_t variants_pushed = 0, registry_pushed = 0, kb_pushed = 0, captures_pushed = 0;
  uint64_t variants_trusted = 0, variants_pinned = 0, candidates = 0, rejected = 0;
  uint64_t registry_added = 0, kb_merged = 0, captures_pulled = 0, capture_bytes = 0;
  uint64_t closures_pushed = 0, closures_pulled = 0, closure_bytes = 0;
};

// Uploads what `options` selects from the local stores. `env` must be open
// for writing only when nothing else is; errors are store failures.
Expected<SyncReport> push(Store &store, cache::Env &env, const SyncOptions &options);
// Downloads and merges: trusted or pinned variants into the variant cache
// (keeping the faster), others into kCandidateTable; registry entries not
// known locally; every contributor's KB merged (kb/policy.h merge). `env`
// must have been opened with kCandidateTable among its extra tables.
Expected<SyncReport> pull(Store &store, cache::Env &env, const SyncOptions &options);

// Closures of the local registry's units (remote keys closures/<id>, their
// files under closure-files/<hash>): push uploads each closure the remote
// lacks, files first, within options.closure_max_size bytes of files; pull
// downloads the closures local registry entries name but the store lacks,
// checks every id and file hash (a mismatch is rejected with one log line)
// and stores them under options.closure_store_size.
Status push_closures(Store &store, cache::Env &env, const SyncOptions &options, SyncReport &report);
Status pull_closures(Store &store, cache::Env &env, const SyncOptions &options, SyncReport &report);

// The one-line summaries `kbcc kb push|pull` print, e.g. "pulled: 1 trusted
// variant(s), ..., 2 capture file(s), 1 closure(s)".
std::string push_summary(const SyncReport &report);
std::string pull_summary(const SyncReport &report);

// The candidates kept by pull (for `kbcc optimize` re-validation).
Expected<std::vector<cache::VariantRecord>> list_candidates(cache::Env &env);
// Removes a candidate once it has been re-validated (or rejected).
Status remove_candidate(cache::Env &env, const cache::VariantRecord &record);

// `kbcc kb push|pull|sync` (verb) with its arguments; prints a summary and
// returns the exit status. Defined in driver/commands/kbremote.cpp.
int run_kb_remote(const std::string &verb, const std::vector<std::string> &args);

} // namespace kbcc::remote

// Usage text of the push/pull/sync verbs, for `kbcc kb --help` (a string
// literal, so it can be concatenated into a KBCC_COMMAND usage).
#define KBCC_KB_REMOTE_USAGE                                                                                           \
  "  kbcc kb push [--no-variants] [--no-registry] [--no-closures] [--no-kb] [--captures]\n"                            \
  "      upload local variants (signed with signing_key when set), registry entries with\n"                            \
  "      their units' closures (up to remote_closure_max_size), this contributor's KB and,\n"                          \
  "      with --captures, captures up to remote_capture_max_size\n"                                                    \
  "  kbcc kb pull [--no-variants] [--no-registry] [--no-closures] [--no-kb] [--captures] [--snapshot FILE]\n"          \
  "      download and merge; variants signed by a trusted key (kbcc trust) or pinned by\n"                             \
  "      FILE go into the variant cache, others are kept as candidates for re-validation\n"                            \
  "  kbcc kb sync [same options]   pull, then push\n"                                                                  \
  "  The remote is KBCC_REMOTE (http(s):// WebDAV or redis://); see docs/remote.md.\n"

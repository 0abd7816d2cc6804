// The LMDB environment behind every kbcc store: one directory
// ($KBCC_DIR/store: data.mdb + lock.mdb) holding named tables (variants,
// kernel registry, KB policy, trajectories, ...). Safe for many concurrent
// kbcc processes (LMDB's single-writer lock) and after kill -9 at any point
// (copy-on-write pages; stale readers are cleared at open). Versioned: a store
// written by another format version, or one that is not LMDB, is refused with
// an Error naming the file (codes below); callers then fall back to nvcc.
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbcc {
class Config;
}

namespace kbcc::cache {

// Format version of the store; a store with another version is refused.
inline constexpr int kStoreVersion = 1;

// Table names. Every table is created at open; others may be added by name.
inline constexpr const char *kMetaTable = "meta";               // version, contributor id, ...
inline constexpr const char *kVariantTable = "variants";        // "<kernel hash>/<arch>" -> VariantRecord JSON
inline constexpr const char *kRegistryTable = "registry";       // "<kernel hash>" -> RegistryEntry JSON
inline constexpr const char *kPolicyTable = "kb";               // "policy" -> KB policy JSON
inline constexpr const char *kTrajectoryTable = "trajectories"; // "<trajectory id>" -> Trajectory JSON
inline constexpr const char *kAccessTable = "access"; // "<table>\x1f<key>" -> last use (unix seconds), for LRU eviction
inline constexpr const char *kClosureTable = "closures";          // "<closure id>" -> unit closure JSON (kb/closure.h)
inline constexpr const char *kClosureFileTable = "closure-files"; // "<content hash>" -> one file of a closure
inline constexpr const char *kVariantNameTable = "variant-names"; // "<arch>/<kernel name>" -> "" (cache/variant.h)
inline constexpr const char *kPendingTable = "pending-units";     // "<unit key>" -> a unit compiled without a parse

// Error codes returned by this module (stable: statistics count them).
inline constexpr const char *kErrCorrupt = "store-corrupt";      // not an LMDB store / damaged pages
inline constexpr const char *kErrVersion = "store-version";      // written by another store format version
inline constexpr const char *kErrFull = "store-full";            // map full even after eviction, or disk full
inline constexpr const char *kErrIo = "store-io";                // cannot create/open/read/write
inline constexpr const char *kErrBadRecord = "store-bad-record"; // a stored value failed to parse
inline constexpr const char *kErrAbsent = "store-absent";        // read_only open of a store that does not exist

struct EnvOptions {
  // Size limit in bytes for the data (KBCC_MAX_SIZE); 0 = 5 GiB. Above it,
  // least recently used variants and trajectories are evicted.
  uint64_t max_size = 0;
  // Open without creating anything and without write transactions.
  bool read_only = false;
  // Tables besides the standard ones (created at open).
  std::vector<std::string> extra_tables;
};

class Env;

// A transaction: read-only (Env::read) or read-write (Env::write). Only valid
// inside the callback it is passed to. Keys and values are opaque bytes.
class Txn {
public:
  // The value stored under `key` in `table`, or nullopt when absent.
  Expected<std::optional<std::string>> get(std::string_view table, std::string_view key);
  // Stores `value` under `key` (write transactions only).
  Status put(std::string_view table, std::string_view key, std::string_view value);
  // Removes `key`; true when it existed (write transactions only).
  Expected<bool> remove(std::string_view table, std::string_view key);
  // Calls `fn(key, value)` for each entry whose key starts with `prefix`, in
  // key order, until `fn` returns false.
  Status for_each(std::string_view table, std::string_view prefix,
                  const std::function<bool(std::string_view key, std::string_view value)> &fn);
  // Number of entries in `table`.
  Expected<uint64_t> count(std::string_view table);
  // Marks (table, key) as used now, for LRU eviction (write transactions only).
  Status touch(std::string_view table, std::string_view key);
  bool writable() const { return writable_; }

private:
  friend class Env;
  Txn(Env &env, void *txn, bool writable) : env_(env), txn_(txn), writable_(writable) {}
  Env &env_;
  void *txn_;
  bool writable_;
};

struct StoreInfo {
  std::string path;                                     // the store directory
  uint64_t used_bytes = 0;                              // pages in use (what max_size limits)
  uint64_t file_bytes = 0;                              // size of data.mdb on disk
  uint64_t map_bytes = 0;                               // current map size
  uint64_t max_size = 0;                                // configured limit
  std::vector<std::pair<std::string, uint64_t>> tables; // name, entry count
};

class Env {
public:
  // Opens (creating when needed, unless read_only) the store under
  // `kbcc_dir`/store. Errors: kErrCorrupt / kErrVersion naming data.mdb,
  // kErrIo naming the directory.
  static Expected<std::unique_ptr<Env>> open(const std::string &kbcc_dir, const EnvOptions &options = {});
  ~Env();
  Env(const Env &) = delete;
  Env &operator=(const Env &) = delete;

  // Runs `fn` in a read-only transaction.
  Status read(const std::function<Status(Txn &)> &fn);
  // Number of entries in `table` (one read transaction).
  Expected<uint64_t> count(std::string_view table);
  // Runs `fn` in a write transaction and commits when it succeeds (aborts
  // otherwise). On MDB_MAP_FULL it evicts LRU entries / grows the map up to
  // the limit and retries once; then fails with kErrFull. Evicts after commit
  // when the store is above its size limit. `fn` may run twice.
  Status write(const std::function<Status(Txn &)> &fn);

  // Evicts least recently used variants and trajectories until the store
  // uses at most `target_bytes`; returns the number of entries removed.
  Expected<uint64_t> evict_to(uint64_t target_bytes);
  // Sizes and table counts (for `kbcc stats` and `kbcc cache list`).
  Expected<StoreInfo> info();
  // The store directory ($KBCC_DIR/store).
  const std::string &path() const { return path_; }
  uint64_t max_size() const { return max_size_; }

  struct Handle; // the process's one LMDB handle of a store (env.cpp)

private:
  friend class Txn;
  Env() = default;
  Status open_tables(const std::vector<std::string> &tables);
  Status write_once(const std::function<Status(Txn &)> &fn, int &mdb_rc);
  Expected<unsigned> dbi(std::string_view table) const;
  Error mdb_error(int rc, const std::string &what) const;
  std::shared_ptr<Handle> handle_; // shared by every Env of this store in the process
  void *env_ = nullptr;            // handle_'s MDB_env
  std::string path_;
  uint64_t max_size_ = 0;
  bool read_only_ = false;
  uint64_t last_used_ = 0; // bytes in use after the last commit
  std::map<std::string, unsigned, std::less<>> dbis_;
};

// Options from the configuration: max_size (KBCC_MAX_SIZE).
EnvOptions env_options(const Config &config, bool read_only = false);

// Path of the store directory under `kbcc_dir`.
std::string store_path(const std::string &kbcc_dir);

// Removes the whole store under `kbcc_dir` (for `kbcc cache clear --all`).
Status remove_store(const std::string &kbcc_dir);

// Current time in unix seconds (one clock for every store timestamp).
int64_t now_seconds();

} // namespace kbcc::cache

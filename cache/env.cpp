// LMDB environment: open/version check, transactions, map-full handling and
// LRU eviction (see env.h for the contract, docs/store-format.md for layout).
#include "cache/env.h"

#include "support/config.h"
#include "support/fs.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <lmdb.h>
#include <mutex>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace kbcc::cache {
namespace {

constexpr const char *kFormatKey = "format";
constexpr const char *kVersionKey = "version";
constexpr const char *kFormatName = "kbcc-store";
constexpr uint64_t kDefaultMaxSize = 5ull << 30;
constexpr char kAccessSep = '\x1f';

const std::vector<std::string> &standard_tables() {
  static const std::vector<std::string> t = {kMetaTable,        kVariantTable, kRegistryTable, kPolicyTable,
                                             kTrajectoryTable,  kAccessTable,  kClosureTable,  kClosureFileTable,
                                             kVariantNameTable, kPendingTable};
  return t;
}

// Tables whose entries the size limit may evict (least recently used first).
const std::vector<std::string> &evictable_tables() {
  static const std::vector<std::string> t = {kVariantTable, kTrajectoryTable, kRegistryTable};
  return t;
}

MDB_env *raw(void *e) { return static_cast<MDB_env *>(e); }
MDB_txn *raw_txn(void *t) { return static_cast<MDB_txn *>(t); }
MDB_val val(std::string_view s) { return MDB_val{s.size(), const_cast<char *>(s.data())}; }
std::string_view view(const MDB_val &v) { return {static_cast<const char *>(v.mv_data), v.mv_size}; }

// Map size for a data limit: the limit plus headroom so that eviction (which
// runs after a commit crosses the limit) rarely meets MDB_MAP_FULL.
uint64_t map_size_for(uint64_t max_size) { return max_size + max_size / 4 + (1u << 20); }

bool is_corruption(int rc) {
  return rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH ||
         rc == MDB_PANIC;
}

std::string access_key(std::string_view table, std::string_view key) {
  std::string k(table);
  k += kAccessSep;
  k += key;
  return k;
}

} // namespace

int64_t now_seconds() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

std::string store_path(const std::string &kbcc_dir) { return kbcc_dir + "/store"; }

EnvOptions env_options(const Config &config, bool read_only) {
  EnvOptions o;
  o.max_size = config.get_size("max_size");
  o.read_only = read_only;
  return o;
}

Status remove_store(const std::string &kbcc_dir) {
  remove_all(store_path(kbcc_dir));
  if (file_exists(store_path(kbcc_dir))) return make_error(store_path(kbcc_dir) + ": cannot remove", kErrIo);
  return {};
}

// LMDB reports a short write (a full disk) as EIO: tell them apart by the
// space left on the store's file system.
static bool disk_nearly_full(const std::string &path) {
  struct statvfs fs {};
  if (statvfs(path.c_str(), &fs) != 0) return false;
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize < (4u << 20);
}

Error Env::mdb_error(int rc, const std::string &what) const {
  std::string file = path_ + "/data.mdb";
  if (rc == EIO && disk_nearly_full(path_))
    return make_error(file + ": disk full while " + what + " (" + mdb_strerror(rc) + ")", kErrFull);
  if (rc == MDB_MAP_FULL || rc == ENOSPC || rc == EDQUOT)
    return make_error(file + ": store full while " + what + " (" + mdb_strerror(rc) + ")", kErrFull);
  if (is_corruption(rc))
    return make_error(file + ": corrupt kbcc store while " + what + " (" + mdb_strerror(rc) +
                          "); remove it with `kbcc cache clear --all`",
                      kErrCorrupt);
  return make_error(file + ": " + what + " failed: " + mdb_strerror(rc), kErrIo);
}

// One MDB_env per store per process. LMDB forbids opening an environment
// twice in one process: POSIX locks never conflict within a process, so the
// close of a second handle takes itself for the last user and destroys the
// lock file's mutexes under the first (the next transaction crashes).
// Env::open therefore shares the handle of a store this process has open;
// the handle closes with its last Env, under the same lock as opening, so a
// close never overlaps an open of the same store.
struct Env::Handle {
  MDB_env *env = nullptr;
  bool read_only = false; // opened MDB_RDONLY (the store is not writable)
  ~Handle() {
    if (env) mdb_env_close(env);
  }
};

namespace {

std::recursive_mutex &handles_mutex() {
  static std::recursive_mutex m;
  return m;
}

std::map<std::string, std::weak_ptr<Env::Handle>> &open_handles() {
  static std::map<std::string, std::weak_ptr<Env::Handle>> h;
  return h;
}

std::string handle_key(const std::string &path) {
  std::error_code ec;
  auto c = std::filesystem::canonical(path, ec);
  return ec ? path : c.string();
}

} // namespace

Expected<std::unique_ptr<Env>> Env::open(const std::string &kbcc_dir, const EnvOptions &options) {
  std::unique_ptr<Env> env(new Env());
  env->path_ = store_path(kbcc_dir);
  env->max_size_ = options.max_size ? options.max_size : kDefaultMaxSize;
  env->read_only_ = options.read_only;
  if (options.read_only && !file_exists(env->path_ + "/data.mdb"))
    return make_error(env->path_ + ": no kbcc store yet", kErrAbsent);
  if (!options.read_only)
    if (auto st = make_dirs(env->path_); !st) return make_error(env->path_ + ": " + st.error().message, kErrIo);

  std::lock_guard<std::recursive_mutex> lock(handles_mutex());
  std::string key = handle_key(env->path_);
  std::shared_ptr<Handle> shared = open_handles()[key].lock();
  if (!shared || (shared->read_only && !options.read_only)) {
    // A read-only Env of a writable store opens it read-write underneath, so
    // that a later read-write Env of this process can share the handle.
    bool lmdb_read_only = options.read_only && (::access(env->path_.c_str(), W_OK) != 0 ||
                                                ::access((env->path_ + "/data.mdb").c_str(), W_OK) != 0);
    MDB_env *e = nullptr;
    if (int rc = mdb_env_create(&e); rc) return env->mdb_error(rc, "creating the environment");
    shared = std::shared_ptr<Handle>(new Handle{e, lmdb_read_only}, [](Handle *h) {
      std::lock_guard<std::recursive_mutex> closing(handles_mutex());
      delete h;
    });
    mdb_env_set_maxdbs(e, 32);
    mdb_env_set_maxreaders(e, 1024);
    mdb_env_set_mapsize(e, map_size_for(env->max_size_));
    // MDB_NOTLS: read transactions belong to their Txn, not the thread, so
    // multi-threaded callers (the optimizer) may use one Env.
    unsigned flags = MDB_NOMETASYNC | MDB_NOTLS | (lmdb_read_only ? MDB_RDONLY : 0u);
    if (int rc = mdb_env_open(e, env->path_.c_str(), flags, 0644); rc) return env->mdb_error(rc, "opening");
    int dead = 0;
    mdb_reader_check(e, &dead); // clears reader slots of killed processes
    open_handles()[key] = shared;
  }
  env->handle_ = shared;
  env->env_ = shared->env;

  // mdb_dbi_open must not run in two transactions of a process at once: the
  // lock held here serializes it.
  std::vector<std::string> tables = standard_tables();
  tables.insert(tables.end(), options.extra_tables.begin(), options.extra_tables.end());
  if (auto st = env->open_tables(tables); !st) return st.error();
  return env;
}

// Opens every table, creating the missing ones (and the version stamp) in a
// write transaction only when needed, then checks the version stamp.
Status Env::open_tables(const std::vector<std::string> &tables) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool create = attempt == 1;
    if (create && read_only_) return make_error(path_ + "/data.mdb: not a complete kbcc store", kErrVersion);
    MDB_txn *t = nullptr;
    int rc = mdb_txn_begin(raw(env_), nullptr, create ? 0 : MDB_RDONLY, &t);
    if (rc == MDB_MAP_RESIZED) {
      mdb_env_set_mapsize(raw(env_), 0);
      rc = mdb_txn_begin(raw(env_), nullptr, create ? 0 : MDB_RDONLY, &t);
    }
    if (rc) return mdb_error(rc, "starting a transaction");
    // A foreign LMDB file (named databases we do not know, no meta table)
    // must not be adopted: check the main database before creating.
    MDB_dbi meta;
    rc = mdb_dbi_open(t, kMetaTable, 0, &meta);
    if (rc == MDB_NOTFOUND) {
      MDB_stat st{};
      mdb_stat(t, 1, &st); // MAIN_DBI
      if (st.ms_entries > 0) {
        mdb_txn_abort(t);
        return make_error(path_ + "/data.mdb: not a kbcc store (foreign LMDB database); remove it with "
                                  "`kbcc cache clear --all`",
                          kErrVersion);
      }
    } else if (rc) {
      mdb_txn_abort(t);
      return mdb_error(rc, "opening table meta");
    }
    bool missing = false;
    std::map<std::string, unsigned, std::less<>> dbis;
    for (const auto &name : tables) {
      MDB_dbi d;
      rc = mdb_dbi_open(t, name.c_str(), create ? MDB_CREATE : 0, &d);
      // A read-only open of a store written before a table existed: that
      // table is absent (reading it is an error naming it), the rest is usable.
      if (rc == MDB_NOTFOUND && read_only_ && name != kMetaTable) continue;
      if (rc == MDB_NOTFOUND) {
        missing = true;
        break;
      }
      if (rc) {
        mdb_txn_abort(t);
        return mdb_error(rc, "opening table " + name);
      }
      dbis[name] = d;
    }
    if (missing) {
      mdb_txn_abort(t);
      continue;
    }
    MDB_val k = val(kVersionKey), v;
    rc = mdb_get(t, dbis[kMetaTable], &k, &v);
    std::string want = std::to_string(kStoreVersion);
    if (rc == MDB_NOTFOUND && create) {
      MDB_val fk = val(kFormatKey), fv = val(kFormatName), vv = val(want);
      rc = mdb_put(t, dbis[kMetaTable], &fk, &fv, 0);
      if (!rc) rc = mdb_put(t, dbis[kMetaTable], &k, &vv, 0);
      if (rc) {
        mdb_txn_abort(t);
        return mdb_error(rc, "writing the version stamp");
      }
    } else if (rc == MDB_NOTFOUND) {
      mdb_txn_abort(t);
      continue;
    } else if (rc) {
      mdb_txn_abort(t);
      return mdb_error(rc, "reading the version stamp");
    } else if (view(v) != want) {
      std::string got(view(v));
      mdb_txn_abort(t);
      return make_error(path_ + "/data.mdb: kbcc store format version " + got + ", this kbcc reads version " + want +
                            "; remove it with `kbcc cache clear --all`",
                        kErrVersion);
    }
    if ((rc = mdb_txn_commit(t))) return mdb_error(rc, "opening tables");
    dbis_ = std::move(dbis);
    return {};
  }
  return make_error(path_ + "/data.mdb: cannot create the kbcc tables", kErrIo);
}

Env::~Env() = default;

Expected<unsigned> Env::dbi(std::string_view table) const {
  auto it = dbis_.find(table);
  if (it == dbis_.end()) return make_error(std::string("unknown store table ") + std::string(table), kErrIo);
  return it->second;
}

Status Env::read(const std::function<Status(Txn &)> &fn) {
  MDB_txn *t = nullptr;
  int rc = mdb_txn_begin(raw(env_), nullptr, MDB_RDONLY, &t);
  if (rc == MDB_MAP_RESIZED) {
    mdb_env_set_mapsize(raw(env_), 0);
    rc = mdb_txn_begin(raw(env_), nullptr, MDB_RDONLY, &t);
  }
  if (rc) return mdb_error(rc, "starting a read transaction");
  Txn txn(*this, t, false);
  Status st = fn(txn);
  mdb_txn_abort(t);
  return st;
}

namespace {

// Bytes of pages the tables use: meta pages + every table's tree + main DB.
uint64_t used_bytes(MDB_txn *t, const std::map<std::string, unsigned, std::less<>> &dbis) {
  MDB_stat st{};
  uint64_t pages = 2;
  unsigned psize = 4096;
  if (mdb_stat(t, 1, &st) == 0) {
    psize = st.ms_psize;
    pages += st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages;
  }
  for (const auto &[name, d] : dbis)
    if (mdb_stat(t, d, &st) == 0) pages += st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages;
  return pages * psize;
}

} // namespace

Status Env::write_once(const std::function<Status(Txn &)> &fn, int &mdb_rc) {
  mdb_rc = 0;
  MDB_txn *t = nullptr;
  int rc = mdb_txn_begin(raw(env_), nullptr, 0, &t);
  if (rc == MDB_MAP_RESIZED) {
    mdb_env_set_mapsize(raw(env_), 0);
    rc = mdb_txn_begin(raw(env_), nullptr, 0, &t);
  }
  if (rc) {
    mdb_rc = rc;
    return mdb_error(rc, "starting a write transaction");
  }
  Txn txn(*this, t, true);
  Status st = fn(txn);
  if (!st) {
    mdb_txn_abort(t);
    if (st.error().code == kErrFull) mdb_rc = MDB_MAP_FULL;
    return st;
  }
  uint64_t used = used_bytes(t, dbis_);
  if ((rc = mdb_txn_commit(t))) {
    mdb_rc = rc;
    return mdb_error(rc, "committing");
  }
  last_used_ = used;
  return {};
}

Expected<uint64_t> Env::count(std::string_view table) {
  uint64_t n = 0;
  Status st = read([&](Txn &txn) -> Status {
    auto c = txn.count(table);
    if (!c) return c.error();
    n = *c;
    return {};
  });
  if (!st) return st.error();
  return n;
}

Status Env::write(const std::function<Status(Txn &)> &fn) {
  if (read_only_) return make_error(path_ + ": store opened read-only", kErrIo);
  int rc = 0;
  Status st = write_once(fn, rc);
  if (!st && rc == MDB_MAP_FULL) {
    // Make room (LRU eviction down to 3/4 of the limit), then retry once.
    if (auto ev = evict_to(max_size_ / 4 * 3); !ev) return st;
    st = write_once(fn, rc);
  }
  if (!st) return st;
  if (last_used_ > max_size_) (void)evict_to(max_size_ / 10 * 9);
  return st;
}

Expected<uint64_t> Env::evict_to(uint64_t target_bytes) {
  uint64_t removed = 0;
  int rc = 0;
  Status st = write_once(
      [&](Txn &txn) -> Status {
        removed = 0;
        if (used_bytes(raw_txn(txn.txn_), dbis_) <= target_bytes) return {};
        // Oldest first; entries never touched count as oldest (time 0).
        std::vector<std::pair<int64_t, std::string>> order; // (last use, access key)
        for (const auto &table : evictable_tables()) {
          auto s = txn.for_each(table, "", [&](std::string_view key, std::string_view) {
            order.emplace_back(0, access_key(table, key));
            return true;
          });
          if (!s) return s;
        }
        std::map<std::string, int64_t> last_use;
        auto s = txn.for_each(kAccessTable, "", [&](std::string_view key, std::string_view value) {
          last_use[std::string(key)] = std::atoll(std::string(value).c_str());
          return true;
        });
        if (!s) return s;
        for (auto &[when, key] : order)
          if (auto it = last_use.find(key); it != last_use.end()) when = it->second;
        std::sort(order.begin(), order.end());
        for (const auto &[when, key] : order) {
          if (used_bytes(raw_txn(txn.txn_), dbis_) <= target_bytes) break;
          auto sep = key.find(kAccessSep);
          auto r = txn.remove(key.substr(0, sep), key.substr(sep + 1));
          if (!r) return r.error();
          auto a = txn.remove(kAccessTable, key);
          if (!a) return a.error();
          ++removed;
        }
        return {};
      },
      rc);
  if (!st) return st.error();
  return removed;
}

Expected<StoreInfo> Env::info() {
  StoreInfo info;
  info.path = path_;
  info.max_size = max_size_;
  MDB_envinfo ei{};
  mdb_env_info(raw(env_), &ei);
  info.map_bytes = ei.me_mapsize;
  struct stat sb {};
  if (::stat((path_ + "/data.mdb").c_str(), &sb) == 0) info.file_bytes = static_cast<uint64_t>(sb.st_size);
  Status st = read([&](Txn &txn) -> Status {
    info.used_bytes = used_bytes(raw_txn(txn.txn_), dbis_);
    for (const auto &[name, d] : dbis_) {
      auto n = txn.count(name);
      if (!n) return n.error();
      info.tables.emplace_back(name, *n);
    }
    return {};
  });
  if (!st) return st.error();
  return info;
}

// ---- Txn ------------------------------------------------------------------

Expected<std::optional<std::string>> Txn::get(std::string_view table, std::string_view key) {
  auto d = env_.dbi(table);
  if (!d) return d.error();
  MDB_val k = val(key), v;
  int rc = mdb_get(raw_txn(txn_), *d, &k, &v);
  if (rc == MDB_NOTFOUND) return std::optional<std::string>{};
  if (rc) return env_.mdb_error(rc, "reading " + std::string(table));
  return std::optional<std::string>(std::string(view(v)));
}

Status Txn::put(std::string_view table, std::string_view key, std::string_view value) {
  if (!writable_) return make_error("store write in a read transaction", kErrIo);
  auto d = env_.dbi(table);
  if (!d) return d.error();
  MDB_val k = val(key), v = val(value);
  if (int rc = mdb_put(raw_txn(txn_), *d, &k, &v, 0); rc) return env_.mdb_error(rc, "writing " + std::string(table));
  return {};
}

Expected<bool> Txn::remove(std::string_view table, std::string_view key) {
  if (!writable_) return make_error("store write in a read transaction", kErrIo);
  auto d = env_.dbi(table);
  if (!d) return d.error();
  MDB_val k = val(key);
  int rc = mdb_del(raw_txn(txn_), *d, &k, nullptr);
  if (rc == MDB_NOTFOUND) return false;
  if (rc) return env_.mdb_error(rc, "removing from " + std::string(table));
  return true;
}

Status Txn::for_each(std::string_view table, std::string_view prefix,
                     const std::function<bool(std::string_view, std::string_view)> &fn) {
  auto d = env_.dbi(table);
  if (!d) return d.error();
  MDB_cursor *c = nullptr;
  if (int rc = mdb_cursor_open(raw_txn(txn_), *d, &c); rc) return env_.mdb_error(rc, "reading " + std::string(table));
  MDB_val k = val(prefix), v;
  int rc = prefix.empty() ? mdb_cursor_get(c, &k, &v, MDB_FIRST) : mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
  while (rc == 0) {
    std::string_view key = view(k);
    if (key.substr(0, prefix.size()) != prefix) break;
    if (!fn(key, view(v))) break;
    rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(c);
  if (rc && rc != MDB_NOTFOUND) return env_.mdb_error(rc, "reading " + std::string(table));
  return {};
}

Expected<uint64_t> Txn::count(std::string_view table) {
  auto d = env_.dbi(table);
  if (!d) return d.error();
  MDB_stat st{};
  if (int rc = mdb_stat(raw_txn(txn_), *d, &st); rc) return env_.mdb_error(rc, "reading " + std::string(table));
  return static_cast<uint64_t>(st.ms_entries);
}

Status Txn::touch(std::string_view table, std::string_view key) {
  return put(kAccessTable, access_key(table, key), std::to_string(now_seconds()));
}

} // namespace kbcc::cache

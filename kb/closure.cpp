// Unit closures: building one from a compile, its JSON form, the two store
// tables with their size cap, and writing one out as a directory tree.
#include "kb/closure.h"

#include "support/fs.h"
#include "support/hash.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace kbcc::kb {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char *kFormat = "kbcc-closure";
constexpr int kVersion = 1;
constexpr char kAccessSep = '\x1f';
constexpr int64_t kTouchInterval = 3600; // a closure used within this many seconds is not re-marked

bool is_hash(const std::string &s) {
  return s.size() == 32 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// True for a normalized relative path that stays inside its root.
bool safe_relative(const std::string &p, bool dot_allowed) {
  if (p == ".") return dot_allowed;
  if (p.empty() || p.front() == '/' || fs::path(p).lexically_normal().string() != p) return false;
  for (const auto &part : fs::path(p))
    if (part == ".." || part == ".") return false;
  return true;
}

bool under(const std::string &path, const std::string &dir) {
  if (dir == "/") return !path.empty() && path.front() == '/';
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

std::string normal(const std::string &p) {
  std::string n = fs::path(p).lexically_normal().string();
  while (n.size() > 1 && n.back() == '/')
    n.pop_back();
  return n;
}

// Deepest directory holding every path of `paths` (absolute, normalized).
std::string common_dir(const std::vector<std::string> &paths) {
  if (paths.empty()) return "/";
  fs::path common = fs::path(paths.front());
  for (const auto &p : paths) {
    fs::path acc, path(p);
    auto a = common.begin(), b = path.begin();
    for (; a != common.end() && b != path.end() && *a == *b; ++a, ++b)
      acc /= *a;
    common = acc;
  }
  std::string c = common.string();
  return c.empty() ? "/" : normal(c);
}

std::string relative_to(const std::string &path, const std::string &base) {
  std::string r = fs::path(path).lexically_relative(base).string();
  return r.empty() ? "." : r;
}

// Flags whose next argument is a path.
const std::set<std::string> &separate_path_flags() {
  static const std::set<std::string> s = {"-I",
                                          "-isystem",
                                          "-include",
                                          "-iquote",
                                          "-idirafter",
                                          "--include-path",
                                          "--system-include",
                                          "--pre-include",
                                          "-o",
                                          "--output-file",
                                          "-MF",
                                          "--dependency-output",
                                          "-odir",
                                          "--output-directory",
                                          "-L",
                                          "--library-path",
                                          "--options-file",
                                          "-optf"};
  return s;
}

// Prefixes of arguments that carry a path joined to the flag.
const std::vector<std::string> &joined_path_prefixes() {
  static const std::vector<std::string> v = {"--include-path=",
                                             "--system-include=",
                                             "--pre-include=",
                                             "--output-file=",
                                             "--dependency-output=",
                                             "--output-directory=",
                                             "--library-path=",
                                             "--options-file=",
                                             "-isystem",
                                             "-iquote",
                                             "-idirafter",
                                             "-I",
                                             "-L"};
  return v;
}

std::string access_key(const std::string &id) { return std::string(kClosureTable) + kAccessSep + id; }

Expected<std::string> get_string(const json &j, const char *key, const std::string &origin) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string())
    return make_error(origin + ": closure field '" + key + "' is missing or not a string", kErrClosureBad);
  return it->get<std::string>();
}

} // namespace

json to_json(const Closure &c) {
  json files = json::array();
  for (const auto &f : c.files)
    files.push_back({{"path", f.path}, {"hash", f.hash}, {"size", f.size}});
  return {{"format", kFormat}, {"version", kVersion},          {"root", c.root},
          {"unit", c.unit},    {"working_dir", c.working_dir}, {"command", c.command},
          {"files", files}};
}

std::string closure_id(const Closure &c) { return hash_hex(to_json(c).dump()); }

Expected<Closure> closure_from_json(const json &j, const std::string &origin) {
  auto bad = [&](const std::string &why) { return make_error(origin + ": " + why, kErrClosureBad); };
  if (!j.is_object() || j.value("format", "") != kFormat) return bad("not a kbcc closure");
  if (j.value("version", 0) != kVersion)
    return bad("closure version " + j.value("version", json()).dump() + " (this kbcc reads " +
               std::to_string(kVersion) + ")");
  Closure c;
  using Field = std::pair<const char *, std::string *>;
  for (auto [key, out] : {Field{"root", &c.root}, Field{"unit", &c.unit}, Field{"working_dir", &c.working_dir}}) {
    auto v = get_string(j, key, origin);
    if (!v) return v.error();
    *out = *v;
  }
  if (c.root.empty() || c.root.front() != '/') return bad("root '" + c.root + "' is not absolute");
  if (!safe_relative(c.unit, false)) return bad("unit path '" + c.unit + "' leaves the closure");
  if (!safe_relative(c.working_dir, true)) return bad("working directory '" + c.working_dir + "' leaves the closure");
  auto cmd = j.find("command");
  if (cmd == j.end() || !cmd->is_array()) return bad("closure field 'command' is missing");
  for (const auto &a : *cmd) {
    if (!a.is_string()) return bad("closure command holds a non-string");
    c.command.push_back(a.get<std::string>());
  }
  auto files = j.find("files");
  if (files == j.end() || !files->is_array()) return bad("closure field 'files' is missing");
  bool has_unit = false;
  for (const auto &f : *files) {
    if (!f.is_object()) return bad("closure file entry is not an object");
    ClosureFile cf{f.value("path", ""), f.value("hash", ""), f.value("size", uint64_t{0})};
    if (!safe_relative(cf.path, false)) return bad("file path '" + cf.path + "' leaves the closure");
    if (!is_hash(cf.hash)) return bad("file " + cf.path + " has no content hash");
    has_unit = has_unit || cf.path == c.unit;
    c.files.push_back(std::move(cf));
  }
  if (!has_unit) return bad("the unit " + c.unit + " is not among the closure's files");
  return c;
}

std::vector<std::string> toolchain_dirs(const std::string &cuda_root, const std::string &kbcc_dir) {
  std::vector<std::string> dirs = {"/usr/include", "/usr/local/include", "/usr/lib",
                                   "/usr/lib64",   "/usr/share",         "/usr/local/cuda"};
  for (const std::string &d :
       {cuda_root, real_path(cuda_root), kbcc_dir + "/tooling", real_path(kbcc_dir) + "/tooling"})
    if (!d.empty() && d.front() == '/') dirs.push_back(normal(d));
  return dirs;
}

bool in_dirs(const std::string &path, const std::vector<std::string> &dirs) {
  std::string p = normal(path);
  // "/usr/local/cuda" also covers the versioned installations next to it.
  if (p.rfind("/usr/local/cuda", 0) == 0) return true;
  return std::any_of(dirs.begin(), dirs.end(), [&](const std::string &d) { return under(p, d); });
}

std::vector<std::string> relative_command(const std::vector<std::string> &command, const std::string &root,
                                          const std::string &working_dir, const std::vector<std::string> &toolchain) {
  auto rel = [&](const std::string &p) -> std::string {
    if (p.empty() || p.front() != '/') return p;
    std::string n = normal(p);
    if (!under(n, root)) n = normal(real_path(p));
    if (!under(n, root) || in_dirs(n, toolchain)) return p;
    return relative_to(n, working_dir);
  };
  std::vector<std::string> out;
  for (size_t i = 0; i < command.size(); ++i) {
    const std::string &a = command[i];
    if (i == 0) {
      out.push_back(a); // the compiler itself
      continue;
    }
    if (separate_path_flags().count(a) && i + 1 < command.size()) {
      out.push_back(a);
      out.push_back(rel(command[++i]));
      continue;
    }
    std::string joined = a;
    for (const auto &prefix : joined_path_prefixes())
      if (a.size() > prefix.size() && a.compare(0, prefix.size(), prefix) == 0) {
        joined = prefix + rel(a.substr(prefix.size()));
        break;
      }
    out.push_back(joined == a ? rel(a) : joined);
  }
  return out;
}

Expected<Closure> make_closure(const CompileInputs &in, std::map<std::string, std::string> &contents) {
  std::string unit = normal(real_path(in.unit)), wd = normal(real_path(in.working_dir));
  std::set<std::string> user;
  user.insert(unit);
  for (const auto &f : in.included_files)
    if (!f.empty() && f.front() == '/' && !in_dirs(f, in.toolchain)) user.insert(normal(f));
  std::vector<std::string> anchors(user.begin(), user.end());
  anchors.push_back(wd);
  Closure c;
  c.root = common_dir(anchors);
  c.unit = relative_to(unit, c.root);
  c.working_dir = relative_to(wd, c.root);
  c.command = relative_command(in.command, c.root, wd, in.toolchain);
  for (const auto &path : user) {
    auto data = read_file(path);
    if (!data) return data.error();
    ClosureFile f{relative_to(path, c.root), hash_hex(*data), data->size()};
    contents[f.hash] = std::move(*data);
    c.files.push_back(std::move(f));
  }
  std::sort(c.files.begin(), c.files.end(), [](const auto &a, const auto &b) { return a.path < b.path; });
  return c;
}

namespace {

// Removes least recently used closures (never `keep`) and the files no
// remaining closure uses until the files take at most `target` bytes.
Status evict(cache::Txn &txn, const std::string &keep, uint64_t target) {
  std::map<std::string, uint64_t> sizes;
  uint64_t total = 0;
  if (auto s = txn.for_each(kClosureFileTable, "",
                            [&](std::string_view k, std::string_view v) {
                              sizes[std::string(k)] = v.size();
                              total += v.size();
                              return true;
                            });
      !s)
    return s;
  if (total <= target) return Status::ok();
  std::map<std::string, std::vector<std::string>> uses; // closure id -> file hashes
  std::map<std::string, int> refs;
  if (auto s = txn.for_each(kClosureTable, "",
                            [&](std::string_view k, std::string_view v) {
                              auto c = closure_from_json(json::parse(v, nullptr, false), "closure");
                              auto &list = uses[std::string(k)];
                              for (const auto &f : c ? c->files : std::vector<ClosureFile>{}) {
                                list.push_back(f.hash);
                                ++refs[f.hash];
                              }
                              return true;
                            });
      !s)
    return s;
  std::map<std::string, int64_t> last_use;
  std::string prefix = access_key("");
  if (auto s = txn.for_each(cache::kAccessTable, prefix,
                            [&](std::string_view k, std::string_view v) {
                              last_use[std::string(k.substr(prefix.size()))] = std::atoll(std::string(v).c_str());
                              return true;
                            });
      !s)
    return s;
  auto drop_file = [&](const std::string &hash) -> Status {
    auto r = txn.remove(kClosureFileTable, hash);
    if (!r) return r.error();
    total -= sizes[hash];
    return Status::ok();
  };
  for (const auto &[hash, size] : sizes)
    if (!refs.count(hash))
      if (auto s = drop_file(hash); !s) return s;
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto &[id, files] : uses)
    if (id != keep) order.emplace_back(last_use.count(id) ? last_use[id] : 0, id);
  std::sort(order.begin(), order.end());
  for (const auto &[when, id] : order) {
    if (total <= target) break;
    auto removed = txn.remove(kClosureTable, id);
    if (!removed) return removed.error();
    auto access = txn.remove(cache::kAccessTable, access_key(id));
    if (!access) return access.error();
    for (const auto &hash : uses[id])
      if (--refs[hash] == 0)
        if (auto s = drop_file(hash); !s) return s;
  }
  return Status::ok();
}

} // namespace

Expected<std::string> ClosureStore::put(const Closure &closure, const std::map<std::string, std::string> &contents) {
  uint64_t size = 0;
  for (const auto &f : closure.files)
    size += f.size;
  std::string id = closure_id(closure);
  if (size > max_bytes_)
    return make_error("closure " + id + " of " + closure.unit + " holds " + std::to_string(size) +
                          " bytes, more than closure_max_size (" + std::to_string(max_bytes_) + ")",
                      kErrClosureTooLarge);
  for (const auto &[hash, bytes] : contents)
    if (hash_hex(bytes) != hash)
      return make_error("closure " + id + ": a file does not match its content hash " + hash, kErrClosureBad);
  Status st = env_.write([&](cache::Txn &txn) -> Status {
    bool added = false;
    for (const auto &f : closure.files) {
      auto there = txn.get(kClosureFileTable, f.hash);
      if (!there) return there.error();
      if (*there) continue;
      auto it = contents.find(f.hash);
      if (it == contents.end())
        return make_error("closure " + id + ": file " + f.path + " (" + f.hash + ") is not in the store",
                          kErrClosureMissing);
      if (auto s = txn.put(kClosureFileTable, f.hash, it->second); !s) return s;
      added = true;
    }
    if (auto s = txn.put(kClosureTable, id, to_json(closure).dump()); !s) return s;
    if (auto s = txn.put(cache::kAccessTable, access_key(id), std::to_string(cache::now_seconds())); !s) return s;
    return added ? evict(txn, id, max_bytes_ / 10 * 9) : Status::ok();
  });
  if (!st) return st.error();
  return id;
}

Expected<std::string> ClosureStore::record(const CompileInputs &inputs) {
  std::map<std::string, std::string> contents;
  auto closure = make_closure(inputs, contents);
  if (!closure) return closure.error();
  std::string id = closure_id(*closure);
  bool fresh = false; // stored and marked used recently: nothing to write
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    auto there = txn.get(kClosureTable, id);
    if (!there) return there.error();
    auto used = txn.get(cache::kAccessTable, access_key(id));
    if (!used) return used.error();
    fresh = *there && *used && std::atoll((*used)->c_str()) + kTouchInterval > cache::now_seconds();
    return Status::ok();
  });
  if (!st) return st.error();
  if (fresh) return id;
  return put(*closure, contents);
}

Expected<std::optional<Closure>> ClosureStore::get(const std::string &id) {
  std::optional<std::string> text;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    auto v = txn.get(kClosureTable, id);
    if (!v) return v.error();
    text = *v;
    return Status::ok();
  });
  if (!st) return st.error();
  if (!text) return std::optional<Closure>{};
  std::string origin = env_.path() + "/data.mdb: closure " + id;
  auto c = closure_from_json(json::parse(*text, nullptr, false), origin);
  if (!c) return c.error();
  if (closure_id(*c) != id) return make_error(origin + ": content does not match its id", kErrClosureBad);
  return std::optional<Closure>(std::move(*c));
}

Expected<std::optional<std::string>> ClosureStore::file(const std::string &hash) {
  std::optional<std::string> out;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    auto v = txn.get(kClosureFileTable, hash);
    if (!v) return v.error();
    out = std::move(*v);
    return Status::ok();
  });
  if (!st) return st.error();
  return out;
}

Expected<std::vector<std::string>> ClosureStore::missing_files(const Closure &closure) {
  std::vector<std::string> out;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    for (const auto &f : closure.files) {
      auto v = txn.get(kClosureFileTable, f.hash);
      if (!v) return v.error();
      if (!*v) out.push_back(f.hash);
    }
    return Status::ok();
  });
  if (!st) return st.error();
  return out;
}

Expected<uint64_t> ClosureStore::bytes() {
  uint64_t total = 0;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    return txn.for_each(kClosureFileTable, "", [&](std::string_view, std::string_view v) {
      total += v.size();
      return true;
    });
  });
  if (!st) return st.error();
  return total;
}

Expected<MaterializedUnit> materialize(ClosureStore &store, const Closure &closure, const std::string &dir) {
  MaterializedUnit m;
  m.root = dir + "/root";
  m.unit = m.root + "/" + closure.unit;
  m.working_dir = closure.working_dir == "." ? m.root : m.root + "/" + closure.working_dir;
  m.command = closure.command;
  std::string marker = dir + "/.kbcc-complete";
  if (file_exists(marker)) return m;
  for (const auto &f : closure.files) {
    auto data = store.file(f.hash);
    if (!data) return data.error();
    if (!*data)
      return make_error("closure " + closure_id(closure) + ": file " + f.path + " (" + f.hash +
                            ") is not in the store (`kbcc kb pull` fetches it)",
                        kErrClosureMissing);
    if (hash_hex(**data) != f.hash)
      return make_error("closure " + closure_id(closure) + ": stored file " + f.path + " does not match its hash",
                        kErrClosureBad);
    if (auto s = write_file_atomic(m.root + "/" + f.path, **data); !s) return s.error();
  }
  if (auto s = make_dirs(m.working_dir); !s) return s.error();
  if (auto s = write_file_atomic(marker, closure_id(closure) + "\n"); !s) return s.error();
  return m;
}

} // namespace kbcc::kb

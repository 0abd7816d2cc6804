// Counters kept in $KBCC_DIR/stats.json, updated under an flock so that
// concurrent kbcc processes add up without losing increments.
#include "cache/stats.h"

#include "support/fs.h"

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <unistd.h>

namespace kbcc::cache {
namespace {

class FileLock {
public:
  explicit FileLock(const std::string &path) : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_); // releases the lock
  }
  bool ok() const { return fd_ >= 0; }

private:
  int fd_;
};

std::string stats_path(const std::string &dir) { return dir + "/stats.json"; }
std::string firsts_path(const std::string &dir) { return dir + "/stats-first.json"; }

Expected<Counters> parse(const std::string &path) {
  if (!file_exists(path)) return Counters{};
  auto text = read_file(path);
  if (!text) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error(path + ": not a kbcc statistics file", "corrupt-stats");
  Counters c;
  for (auto &[k, v] : j.items())
    if (v.is_number_unsigned()) c[k] = v.get<uint64_t>();
  return c;
}

Status write(const std::string &path, const Counters &c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[k, v] : c)
    j[k] = v;
  return write_file_atomic(path, j.dump(1) + "\n");
}

} // namespace

Status add_stats(const std::string &dir, const Counters &deltas) {
  if (auto st = make_dirs(dir); !st) return st;
  FileLock lock(dir + "/stats.lock");
  if (!lock.ok()) return make_error(dir + "/stats.lock: cannot lock", "io");
  auto cur = parse(stats_path(dir));
  Counters c = cur ? *cur : Counters{}; // a corrupt file restarts from zero
  for (const auto &[k, v] : deltas)
    c[k] += v;
  return write(stats_path(dir), c);
}

Expected<Counters> read_stats(const std::string &dir) { return parse(stats_path(dir)); }

Status zero_stats(const std::string &dir) {
  if (auto st = make_dirs(dir); !st) return st;
  FileLock lock(dir + "/stats.lock");
  if (file_exists(firsts_path(dir)))
    if (auto st = write_file_atomic(firsts_path(dir), "{}\n"); !st) return st;
  return write(stats_path(dir), {});
}

Expected<std::map<std::string, std::string>> read_firsts(const std::string &dir) {
  std::map<std::string, std::string> out;
  if (!file_exists(firsts_path(dir))) return out;
  auto text = read_file(firsts_path(dir));
  if (!text) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return make_error(firsts_path(dir) + ": not a kbcc statistics file", "corrupt-stats");
  for (auto &[k, v] : j.items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

Status note_first(const std::string &dir, const std::string &name, const std::string &detail) {
  if (auto st = make_dirs(dir); !st) return st;
  FileLock lock(dir + "/stats.lock");
  if (!lock.ok()) return make_error(dir + "/stats.lock: cannot lock", "io");
  auto cur = read_firsts(dir);
  std::map<std::string, std::string> firsts = cur ? *cur : std::map<std::string, std::string>{};
  if (!firsts.emplace(name, detail).second) return Status::ok();
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[k, v] : firsts)
    j[k] = v;
  return write_file_atomic(firsts_path(dir), j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Expected<std::map<std::string, AdapterCounts>> read_adapter_stats(const std::string &kbcc_dir) {
  std::string path = kbcc_dir + "/adapter-stats.jsonl";
  std::map<std::string, AdapterCounts> out;
  if (!file_exists(path)) return out;
  auto text = read_file(path);
  if (!text) return text.error();
  size_t line = 0;
  for (size_t pos = 0; pos < text->size();) {
    size_t end = text->find('\n', pos);
    std::string row = text->substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text->size() : end + 1;
    ++line;
    if (row.empty()) continue;
    auto j = nlohmann::json::parse(row, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("kernel"))
      return make_error(path + ":" + std::to_string(line) + ": not an adapter statistics line", "bad-stats");
    AdapterCounts &c = out[j.value("kernel", "")];
    c.name = j.value("name", c.name);
    c.variant += j.value("variant", uint64_t{0});
    c.fallback_arch += j.value("fallback_arch", uint64_t{0});
    c.fallback_precondition += j.value("fallback_precondition", uint64_t{0});
    c.fallback_launch += j.value("fallback_launch", uint64_t{0});
  }
  return out;
}

Status zero_adapter_stats(const std::string &kbcc_dir) {
  remove_all(kbcc_dir + "/adapter-stats.jsonl");
  return Status::ok();
}

} // namespace kbcc::cache

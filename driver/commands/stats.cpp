// `kbcc stats`: build statistics (cache/stats.h counters) and store sizes.
#include "cache/stats.h"

#include "cache/env.h"
#include "driver/command.h"
#include "support/config.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace kbcc::driver {
namespace {

constexpr const char *kUsage =
    "Usage: kbcc stats [--json]\n"
    "       kbcc stats --zero\n\n"
    "Shows the statistics of every kbcc compile under $KBCC_DIR: compilations, variant hits and\n"
    "misses, remote hits, fallbacks to plain nvcc, cannot-optimize reasons, parse count and time,\n"
    "extraction cache hits, and the LMDB store's size and contents (docs/store-format.md).\n"
    "Parse failures (the unit fell back to plain nvcc) and kernels kbcc cannot optimize are\n"
    "listed by reason, each with the first file or kernel that had it and clang's message.\n"
    "Launch adapters: per kernel with a launch-changing variant, how often programs run with\n"
    "KBCC_ADAPTER_STATS set launched the variant and how often they fell back to the original\n"
    "(another GPU arch, a precondition that did not hold, an invalid mapped launch).\n\n"
    "Options:\n"
    "  --json   print the same as one JSON object {\"counters\": {...}, \"first\": {...}, \"adapters\": {...},\n"
    "           \"store\": {...}}\n"
    "  --zero   reset every counter to zero (the store is not touched)\n\n"
    "Exit status: 0; 1 when the statistics cannot be read or written; 2 on a usage error.";

std::string human_size(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

uint64_t value(const cache::Counters &c, const std::string &k) {
  auto it = c.find(k);
  return it == c.end() ? 0 : it->second;
}

nlohmann::json store_json(const Config &config) {
  auto env = cache::Env::open(config.dir(), cache::env_options(config, /*read_only=*/true));
  if (!env) {
    if (env.error().code == cache::kErrAbsent) return {{"path", cache::store_path(config.dir())}, {"exists", false}};
    return {{"path", cache::store_path(config.dir())}, {"error", env.error().message}};
  }
  auto info = (*env)->info();
  if (!info) return {{"path", cache::store_path(config.dir())}, {"error", info.error().message}};
  nlohmann::json tables = nlohmann::json::object();
  for (const auto &[name, n] : info->tables)
    tables[name] = n;
  return {{"path", info->path},
          {"exists", true},
          {"used_bytes", info->used_bytes},
          {"file_bytes", info->file_bytes},
          {"max_size", info->max_size},
          {"tables", tables}};
}

bool has_prefix(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

// "<title>:" then one line per counter starting with `prefix` (count, reason)
// and, indented below, the first file or kernel noted for it.
void print_reasons(const char *title, const char *prefix, const cache::Counters &c,
                   const std::map<std::string, std::string> &firsts) {
  std::printf("%s:\n", title);
  bool any = false;
  for (const auto &[k, v] : c) {
    if (!has_prefix(k, prefix) || v == 0) continue;
    std::printf("  %-28s %llu\n", k.substr(std::string(prefix).size()).c_str(), static_cast<unsigned long long>(v));
    if (auto f = firsts.find(k); f != firsts.end()) std::printf("    first: %s\n", f->second.c_str());
    any = true;
  }
  if (!any) std::printf("  (none)\n");
}

// The launch adapters' counts (programs run with KBCC_ADAPTER_STATS).
void print_adapters(const std::map<std::string, cache::AdapterCounts> &adapters) {
  std::printf("launch adapters:\n");
  for (const auto &[hash, a] : adapters)
    std::printf("  %s %s variant %llu fallback %llu (arch %llu, precondition %llu, launch %llu)\n", a.name.c_str(),
                hash.substr(0, 8).c_str(), static_cast<unsigned long long>(a.variant),
                static_cast<unsigned long long>(a.fallbacks()), static_cast<unsigned long long>(a.fallback_arch),
                static_cast<unsigned long long>(a.fallback_precondition),
                static_cast<unsigned long long>(a.fallback_launch));
  if (adapters.empty()) std::printf("  (none counted; run a program with KBCC_ADAPTER_STATS=1)\n");
}

void print_text(const cache::Counters &c, const std::map<std::string, std::string> &firsts,
                const std::map<std::string, cache::AdapterCounts> &adapters, const nlohmann::json &store) {
  auto line = [](const std::string &label, const std::string &v) {
    std::printf("%-30s %s\n", label.c_str(), v.c_str());
  };
  auto num = [&](const std::string &label, const std::string &key) { line(label, std::to_string(value(c, key))); };
  num("compilations", cache::kCompilations);
  num("variant hits", cache::kHits);
  num("variant misses", cache::kMisses);
  num("remote hits", "remote-hits");
  num("fallbacks to nvcc", cache::kFallbacks);
  num("not compilations", "not-compilation");
  std::printf("cannot optimize:\n");
  bool any = false;
  for (const auto &[k, v] : c)
    if (k.rfind("cannot-optimize:", 0) == 0) {
      line("  " + k.substr(16), std::to_string(v));
      any = true;
    }
  if (!any) std::printf("  (none)\n");
  uint64_t parses = value(c, cache::kParses), micros = value(c, cache::kParseMicros);
  num("parses", cache::kParses);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f s (%.1f ms per parse)", micros / 1e6, parses ? micros / 1e3 / parses : 0.0);
  line("parse time", buf);
  num("extraction cache hits", cache::kExtractionCacheHits);
  num("deferred registrations", cache::kDeferred);
  print_reasons("parse failures (fell back to nvcc)", "extraction-failed:", c, firsts);
  print_reasons("kernels not optimizable", "not-optimizable:", c, firsts);
  std::vector<std::string> known = {cache::kCompilations, cache::kHits,        cache::kMisses,
                                    "remote-hits",        cache::kFallbacks,   "not-compilation",
                                    cache::kParses,       cache::kParseMicros, cache::kExtractionCacheHits,
                                    cache::kDeferred};
  for (const auto &[k, v] : c)
    if (std::find(known.begin(), known.end(), k) == known.end() && !has_prefix(k, "cannot-optimize:") &&
        !has_prefix(k, "extraction-failed:") && !has_prefix(k, "not-optimizable:"))
      line(k, std::to_string(v));
  print_adapters(adapters);
  line("store", store.value("path", ""));
  if (store.contains("error")) {
    line("store status", store["error"].get<std::string>());
    return;
  }
  if (!store.value("exists", false)) {
    line("store size", "(no store yet)");
    return;
  }
  line("store size", human_size(store["used_bytes"]) + " used, " + human_size(store["file_bytes"]) +
                         " on disk, limit " + human_size(store["max_size"]));
  line("registry kernels", std::to_string(store["tables"].value("registry", 0)));
  line("units awaiting registration", std::to_string(store["tables"].value("pending-units", 0)) +
                                          " (parsed by the next kbcc capture, optimize, warm, cache list, ...)");
  line("variants", std::to_string(store["tables"].value("variants", 0)));
  line("trajectories", std::to_string(store["tables"].value("trajectories", 0)));
  line("unit closures", std::to_string(store["tables"].value("closures", 0)) + " (" +
                            std::to_string(store["tables"].value("closure-files", 0)) + " files)");
}

int run(const std::vector<std::string> &args) {
  bool json = args.size() == 1 && args[0] == "--json";
  bool zero = args.size() == 1 && args[0] == "--zero";
  if (!args.empty() && !json && !zero) {
    std::fprintf(stderr, "%s\n", kUsage);
    return 2;
  }
  auto config = Config::load();
  if (!config) {
    std::fprintf(stderr, "kbcc stats: %s\n", config.error().message.c_str());
    return 1;
  }
  if (zero) {
    (void)cache::zero_adapter_stats(config->dir());
    if (auto st = cache::zero_stats(config->dir()); !st) {
      std::fprintf(stderr, "kbcc stats: %s\n", st.error().message.c_str());
      return 1;
    }
    std::printf("statistics zeroed\n");
    return 0;
  }
  auto counters = cache::read_stats(config->dir());
  if (!counters) {
    std::fprintf(stderr, "kbcc stats: %s\n", counters.error().message.c_str());
    return 1;
  }
  auto firsts = cache::read_firsts(config->dir());
  if (!firsts) {
    std::fprintf(stderr, "kbcc stats: %s\n", firsts.error().message.c_str());
    return 1;
  }
  nlohmann::json store = store_json(*config);
  auto adapters = cache::read_adapter_stats(config->dir());
  if (!adapters) {
    std::fprintf(stderr, "kbcc stats: %s\n", adapters.error().message.c_str());
    return 1;
  }
  if (json) {
    nlohmann::json c = nlohmann::json::object(), f = nlohmann::json::object();
    for (const auto &[k, v] : *counters)
      c[k] = v;
    for (const auto &[k, v] : *firsts)
      f[k] = v;
    nlohmann::json a = nlohmann::json::object();
    for (const auto &[hash, n] : *adapters)
      a[hash] = {{"name", n.name},
                 {"variant", n.variant},
                 {"fallback_arch", n.fallback_arch},
                 {"fallback_precondition", n.fallback_precondition},
                 {"fallback_launch", n.fallback_launch}};
    std::printf("%s\n", nlohmann::json{{"counters", c}, {"first", f}, {"adapters", a}, {"store", store}}
                            .dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                            .c_str());
    return 0;
  }
  print_text(*counters, *firsts, *adapters, store);
  return 0;
}

} // namespace
} // namespace kbcc::driver

KBCC_COMMAND("stats", "show build statistics: hits, misses, cannot-optimize reasons, parse time, store size",
             kbcc::driver::kUsage, kbcc::driver::run);

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
    "extraction cache hits, and the LMDB store's size and contents (docs/store-format.md).\n\n"
    "Options:\n"
    "  --json   print the same as one JSON object {\"counters\": {...}, \"store\": {...}}\n"
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

void print_text(const cache::Counters &c, const nlohmann::json &store) {
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
  std::vector<std::string> known = {cache::kCompilations, cache::kHits,        cache::kMisses,
                                    "remote-hits",        cache::kFallbacks,   "not-compilation",
                                    cache::kParses,       cache::kParseMicros, cache::kExtractionCacheHits};
  for (const auto &[k, v] : c)
    if (std::find(known.begin(), known.end(), k) == known.end() && k.rfind("cannot-optimize:", 0) != 0)
      line(k, std::to_string(v));
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
  nlohmann::json store = store_json(*config);
  if (json) {
    nlohmann::json c = nlohmann::json::object();
    for (const auto &[k, v] : *counters)
      c[k] = v;
    std::printf("%s\n", nlohmann::json{{"counters", c}, {"store", store}}.dump(1).c_str());
    return 0;
  }
  print_text(*counters, store);
  return 0;
}

} // namespace
} // namespace kbcc::driver

KBCC_COMMAND("stats", "show build statistics: hits, misses, cannot-optimize reasons, parse time, store size",
             kbcc::driver::kUsage, kbcc::driver::run);

// `kbcc cache`: list, show, clear and import the variant cache and the
// kernel registry of the LMDB store (docs/store-format.md).
#include "cache/env.h"
#include "cache/variant.h"
#include "driver/command.h"
#include "driver/commands/cli.h"
#include "kb/closure.h"
#include "kb/registry.h"
#include "kb/trajectory.h"
#include "support/config.h"
#include "support/fs.h"

#include <cstdio>
#include <ctime>

namespace kbcc::driver {
namespace {

using nlohmann::json;

constexpr const char *kUsage =
    "Usage: kbcc cache list [--arch ARCH] [--registry | --trajectories] [--json]\n"
    "       kbcc cache show HASH [ARCH]\n"
    "       kbcc cache closure ID\n"
    "       kbcc cache clear [--registry | --trajectories | --closures | --all]\n"
    "       kbcc cache import-variant FILE.json [--replace]\n"
    "       kbcc cache import-registry FILE.json\n\n"
    "The LMDB store under $KBCC_DIR/store (docs/store-format.md).\n\n"
    "  list              one line per variant: kernel hash, arch, speedup, GPU, kernel name;\n"
    "                    --arch keeps one arch; --registry lists the kernel registry instead\n"
    "                    (hash, name, archs, build count, translation unit); --trajectories the\n"
    "                    optimization trajectories; --json prints the full records as a JSON array\n"
    "  show HASH [ARCH]  the variant record(s) of a kernel hash as JSON, and its registry entry\n"
    "  closure ID        the unit closure a registry entry names (its \"closure\"): the user files\n"
    "                    stored for compiling the unit without the checkout, and the relative command\n"
    "  clear             remove every variant; --registry / --trajectories / --closures clear that instead;\n"
    "                    --all removes the whole store (variants, registry, KB policy, trajectories)\n"
    "  import-variant    insert a variant record (JSON, docs/store-format.md) after checking its\n"
    "                    validation evidence; an existing faster record is kept unless --replace\n"
    "  import-registry   insert or fold a registry entry (JSON, docs/store-format.md)\n\n"
    "Exit status: 0 on success, 1 on an error (named), 2 on a usage error.";

int usage_error() { return print_usage_error(kUsage); }

int fail(const std::string &message) { return print_error("kbcc cache", message); }

std::string day(int64_t t) {
  char buf[32];
  std::time_t tt = static_cast<std::time_t>(t);
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&tt));
  return buf;
}

std::string join(const std::vector<std::string> &v) {
  std::string s;
  for (const auto &x : v)
    s += (s.empty() ? "" : ",") + x;
  return s;
}

int list_variants(cache::Env &env, const std::string &arch, bool as_json) {
  auto all = cache::VariantStore(env).list(arch);
  if (!all) return fail(all.error().message);
  json out = json::array();
  for (const auto &r : *all) {
    if (as_json) {
      out.push_back(cache::to_json(r));
      continue;
    }
    std::printf("%s %-8s %6.2fx %-24s %s\n", r.kernel_hash.c_str(), r.arch.c_str(), r.timing.speedup(),
                r.timing.gpu_name.empty() ? "-" : r.timing.gpu_name.c_str(), r.qualified_name.c_str());
  }
  if (as_json) std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

int list_registry(cache::Env &env, bool as_json) {
  auto all = kb::Registry(env).list();
  if (!all) return fail(all.error().message);
  json out = json::array();
  for (const auto &e : *all) {
    if (as_json) {
      out.push_back(kb::to_json(e));
      continue;
    }
    std::printf("%s %-32s %-16s builds=%llu last=%s %s\n", e.hash.c_str(), e.qualified_name.c_str(),
                join(e.archs).c_str(), static_cast<unsigned long long>(e.build_count), day(e.last_seen).c_str(),
                e.tu_path.c_str());
  }
  if (as_json) std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

int list_trajectories(cache::Env &env, bool as_json) {
  auto all = kb::TrajectoryStore(env).list();
  if (!all) return fail(all.error().message);
  json out = json::array();
  for (const auto &t : *all) {
    if (as_json) {
      out.push_back(kb::to_json(t));
      continue;
    }
    std::printf("%s %s %-8s steps=%zu best=%.2fx\n", t.id.c_str(), t.kernel_hash.c_str(), t.arch.c_str(),
                t.steps.size(), t.best_speedup);
  }
  if (as_json) std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

int list(cache::Env &env, const std::vector<std::string> &args) {
  std::string arch, what = "variants";
  bool as_json = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--arch" && i + 1 < args.size())
      arch = args[++i];
    else if (args[i] == "--registry")
      what = "registry";
    else if (args[i] == "--trajectories")
      what = "trajectories";
    else if (args[i] == "--json")
      as_json = true;
    else
      return usage_error();
  }
  if (what == "registry") return list_registry(env, as_json);
  if (what == "trajectories") return list_trajectories(env, as_json);
  return list_variants(env, arch, as_json);
}

int show(cache::Env &env, const std::vector<std::string> &args) {
  if (args.size() < 2 || args.size() > 3) return usage_error();
  const std::string &hash = args[1];
  auto all = cache::VariantStore(env).list(args.size() == 3 ? args[2] : "");
  if (!all) return fail(all.error().message);
  json out = {{"kernel_hash", hash}, {"variants", json::array()}};
  for (const auto &r : *all)
    if (r.kernel_hash == hash) out["variants"].push_back(cache::to_json(r));
  auto entry = kb::Registry(env).get(hash);
  if (!entry) return fail(entry.error().message);
  if (*entry) out["registry"] = kb::to_json(**entry);
  if (out["variants"].empty() && !*entry) return fail("nothing stored for kernel hash " + hash);
  std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

int show_closure(cache::Env &env, const std::vector<std::string> &args) {
  if (args.size() != 2) return usage_error();
  auto closure = kb::ClosureStore(env, 0).get(args[1]);
  if (!closure) return fail(closure.error().message);
  if (!*closure) return fail("no closure " + args[1] + " in " + env.path());
  json out = kb::to_json(**closure);
  out["id"] = args[1];
  std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

int clear_table(cache::Env &env, const char *table) {
  uint64_t n = 0;
  Status st = env.write([&](cache::Txn &txn) -> Status {
    n = 0;
    std::vector<std::string> keys;
    auto s = txn.for_each(table, "", [&](std::string_view k, std::string_view) {
      keys.emplace_back(k);
      return true;
    });
    if (!s) return s;
    for (const auto &k : keys) {
      if (auto r = txn.remove(table, k); !r) return r.error();
      if (auto r = txn.remove(cache::kAccessTable, std::string(table) + '\x1f' + k); !r) return r.error();
      ++n;
    }
    return {};
  });
  if (!st) return fail(st.error().message);
  std::printf("removed %llu %s entries\n", static_cast<unsigned long long>(n), table);
  return 0;
}

int clear(const Config &config, const std::vector<std::string> &args) {
  if (args.size() > 2) return usage_error();
  std::string what = args.size() == 2 ? args[1] : "";
  if (what == "--all") {
    if (auto st = cache::remove_store(config.dir()); !st) return fail(st.error().message);
    std::printf("removed %s\n", cache::store_path(config.dir()).c_str());
    return 0;
  }
  if (!what.empty() && what != "--registry" && what != "--trajectories" && what != "--closures") return usage_error();
  auto env = cache::Env::open(config.dir(), cache::env_options(config));
  if (!env) return fail(env.error().message);
  if (what == "--registry") return clear_table(**env, cache::kRegistryTable);
  if (what == "--closures") {
    int rc = clear_table(**env, cache::kClosureTable);
    return rc ? rc : clear_table(**env, cache::kClosureFileTable);
  }
  if (what == "--trajectories") return clear_table(**env, cache::kTrajectoryTable);
  auto n = cache::VariantStore(**env).clear();
  if (!n) return fail(n.error().message);
  std::printf("removed %llu variants\n", static_cast<unsigned long long>(*n));
  return 0;
}

int import_variant(cache::Env &env, const std::vector<std::string> &args) {
  bool replace = args.size() == 3 && args[2] == "--replace";
  if (args.size() != 2 && !replace) return usage_error();
  auto text = read_file(args[1]);
  if (!text) return fail(text.error().message);
  auto record = cache::parse_variant(*text, args[1]);
  if (!record) return fail(record.error().message);
  auto put = cache::VariantStore(env).put(*record, replace ? cache::VariantStore::PutMode::kReplace
                                                           : cache::VariantStore::PutMode::kKeepFaster);
  if (!put) return fail(args[1] + ": " + put.error().message);
  std::printf("%s %s/%s\n", *put ? "stored" : "kept the faster existing variant for", record->kernel_hash.c_str(),
              record->arch.c_str());
  return 0;
}

int import_registry(cache::Env &env, const std::vector<std::string> &args) {
  if (args.size() != 2) return usage_error();
  auto text = read_file(args[1]);
  if (!text) return fail(text.error().message);
  auto j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return fail(args[1] + ": not valid JSON");
  auto entry = kb::registry_entry_from_json(j, args[1]);
  if (!entry) return fail(entry.error().message);
  if (auto st = kb::Registry(env).upsert(*entry); !st) return fail(st.error().message);
  std::printf("recorded %s\n", entry->hash.c_str());
  return 0;
}

int run(const std::vector<std::string> &args) {
  if (args.empty()) return usage_error();
  auto config = Config::load();
  if (!config) return fail(config.error().message);
  const std::string &verb = args[0];
  if (verb == "clear") return clear(*config, args);
  if (verb != "list" && verb != "show" && verb != "closure" && verb != "import-variant" && verb != "import-registry")
    return usage_error();
  auto env = cache::Env::open(config->dir(), cache::env_options(*config));
  if (!env) return fail(env.error().message);
  if (verb == "list") return list(**env, args);
  if (verb == "show") return show(**env, args);
  if (verb == "closure") return show_closure(**env, args);
  if (verb == "import-variant") return import_variant(**env, args);
  return import_registry(**env, args);
}

} // namespace
} // namespace kbcc::driver

KBCC_COMMAND("cache", "list, show, clear or import variants and kernel registry entries of the store",
             kbcc::driver::kUsage, kbcc::driver::run);

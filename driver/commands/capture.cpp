// `kbcc capture`: record real kernel launches of a program for replay.
#include "cache/env.h"
#include "driver/command.h"
#include "gpu/device_names.h"
#include "gpu/harness.h"
#include "kb/registry.h"
#include "support/config.h"

#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

namespace kbcc::driver {
namespace {

constexpr const char *kUsage =
    "Usage: kbcc capture [options] -- <command> [args...]\n"
    "\n"
    "Runs <command> with kbcc's CUPTI capture library injected and records kernel\n"
    "launches (launch configuration, parameter bytes, every device buffer the\n"
    "parameters point to before and after the launch, the module cubin) under\n"
    "$KBCC_DIR/captures. kbcc exits with the program's exit status.\n"
    "\n"
    "Options:\n"
    "  --kernels K,...      record only these kernels: device mangled names or\n"
    "                       registry kernel hashes (see `kbcc cache list --registry`)\n"
    "  --all-kernels        record every kernel, not only the registry's\n"
    "                       (default when the registry is empty)\n"
    "  --max-launches N     launches recorded per kernel and launch configuration (default 4)\n"
    "  --max-bytes B        a launch whose buffers exceed B bytes (K/M/G suffixes; default 256M)\n"
    "                       is recorded only while its kernel has no replayable capture, so\n"
    "                       every kernel gets one if the store's limit allows\n"
    "  --max-total B        the limit of $KBCC_DIR/captures for this run (default: the\n"
    "                       capture_max_size config key, 1G); nothing is recorded beyond it\n"
    "  --list               list the captures already stored and exit\n"
    "\n"
    "Without --kernels, the kernels of kbcc's registry (every kernel kbcc has\n"
    "compiled) are recorded, matched by device mangled name.\n"
    "Launches into a stream that is being captured into a CUDA graph, and graph\n"
    "launches, are never touched: they are skipped and counted. The summary names\n"
    "every launched kernel that got no replayable capture, with the reason and,\n"
    "when the store's limit was the reason, the --max-total value that captures it.";

std::vector<std::string> split_commas(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

bool is_hash(const std::string &k) {
  return k.size() == 32 && k.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Leaves out of `names` each kernel of an anonymous namespace that units of
// different paths define under one device name (gpu/device_names.h: the
// same file name), whose launches nothing tells apart; says so on stderr.
void drop_ambiguous(std::map<std::string, std::string> &names,
                    const std::map<std::string, std::set<std::string>> &units) {
  for (const auto &[name, paths] : units) {
    if (paths.size() < 2 || !gpu::has_unit_component(name)) continue;
    names.erase(name);
    std::fprintf(stderr,
                 "kbcc capture: %s is defined in an anonymous namespace of %s and of %s, which nvcc names alike; its "
                 "launches are not recorded\n",
                 name.c_str(), paths.begin()->c_str(), std::next(paths.begin())->c_str());
  }
}

// Registry kernels as mangled name -> kernel hash; empty without a registry.
Expected<std::map<std::string, std::string>> registry_names(const Config &config) {
  std::map<std::string, std::string> names;
  cache::EnvOptions eo;
  eo.read_only = true;
  auto env = cache::Env::open(config.dir(), eo);
  if (!env) {
    if (env.error().code == cache::kErrAbsent) return names;
    return env.error();
  }
  auto all = kb::Registry(**env).list();
  if (!all) return all.error();
  std::map<std::string, std::set<std::string>> units; // name -> the paths of the units that define it
  for (const auto &e : *all)
    for (const auto &m : e.mangled_names) {
      names[m] = e.hash;
      if (!e.tu_path.empty()) units[m].insert(e.tu_path);
    }
  drop_ambiguous(names, units);
  return names;
}

// Turns --kernels items (names or hashes) into mangled names plus hashes.
Status resolve_kernels(const std::map<std::string, std::string> &registry, bool all_kernels, gpu::CaptureOptions &o) {
  o.kernel_hashes = registry;
  if (o.kernels.empty()) {
    if (all_kernels) return Status::ok();
    for (const auto &[name, hash] : registry)
      o.kernels.push_back(name);
    return Status::ok();
  }
  std::vector<std::string> names;
  for (const auto &k : o.kernels) {
    if (!is_hash(k)) {
      names.push_back(k);
      continue;
    }
    size_t before = names.size();
    for (const auto &[name, hash] : registry)
      if (hash == k) names.push_back(name);
    if (names.size() == before)
      return make_error("kernel hash " + k + " is not in the registry (give the device mangled name instead)");
  }
  o.kernels = names;
  return Status::ok();
}

int list(const std::string &dir) {
  auto all = gpu::list_captures(dir);
  if (!all) {
    std::fprintf(stderr, "kbcc capture: %s\n", all.error().message.c_str());
    return 2;
  }
  for (const auto &c : *all)
    std::printf("%s %s %s grid=%u,%u,%u block=%u,%u,%u smem=%u buffers=%u bytes=%llu%s%s\n", c.id.c_str(),
                c.arch.c_str(), c.kernel.c_str(), c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z,
                c.shared_mem, c.buffers, static_cast<unsigned long long>(c.buffer_bytes),
                c.replayable ? "" : " not-replayable:", c.not_replayable_reason.c_str());
  return 0;
}

// Names each launched kernel that got no replayable capture, and the wanted
// kernels that were never launched.
void print_missing(const gpu::CaptureSummary &s, const gpu::CaptureOptions &o) {
  for (const std::string &line : gpu::kernels_without_capture(s.kernels))
    std::fprintf(stderr, "kbcc capture: %s\n", line.c_str());
  if (uint64_t cap = gpu::total_cap_needed(s.kernels, s.used); cap > o.size_cap)
    std::fprintf(stderr,
                 "kbcc capture: to capture every kernel above, rerun with --max-total %s (the store holds %s)\n",
                 gpu::size_flag_value(cap).c_str(), gpu::size_flag_value(s.used).c_str());
  size_t never = 0;
  for (const std::string &k : o.kernels)
    if (!s.kernels.count(k)) ++never;
  if (never > 0)
    std::fprintf(stderr, "kbcc capture: %zu of the %zu kernels asked for were not launched by the program\n", never,
                 o.kernels.size());
}

int run_capture_command(const std::vector<std::string> &args) {
  auto config = Config::load();
  if (!config) {
    std::fprintf(stderr, "kbcc capture: %s\n", config.error().message.c_str());
    return 2;
  }
  gpu::CaptureOptions o;
  o.captures_dir = config->dir() + "/captures";
  o.size_cap = config->get_size("capture_max_size");
  std::vector<std::string> command;
  bool all_kernels = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a == "--") {
      command.assign(args.begin() + i + 1, args.end());
      break;
    }
    if (a == "--list") return list(o.captures_dir);
    if (a == "--kernels") {
      o.kernels = split_commas(value());
    } else if (a == "--all-kernels") {
      all_kernels = true;
    } else if (a == "--max-launches") {
      o.max_launches = static_cast<unsigned>(std::strtoul(value().c_str(), nullptr, 10));
    } else if (a == "--max-bytes" || a == "--max-total") {
      auto b = parse_size(value());
      if (!b) {
        std::fprintf(stderr, "kbcc capture: %s: %s\n", a.c_str(), b.error().message.c_str());
        return 2;
      }
      (a == "--max-bytes" ? o.max_bytes : o.size_cap) = *b;
    } else {
      std::fprintf(stderr, "kbcc capture: unknown option '%s'\n%s\n", a.c_str(), kUsage);
      return 2;
    }
  }
  auto registry = registry_names(*config);
  if (!registry) {
    std::fprintf(stderr, "kbcc capture: kernel registry: %s\n", registry.error().message.c_str());
    return 2;
  }
  if (auto st = resolve_kernels(*registry, all_kernels, o); !st) {
    std::fprintf(stderr, "kbcc capture: %s\n", st.error().message.c_str());
    return 2;
  }
  auto s = gpu::run_capture(command, o);
  if (!s) {
    std::fprintf(stderr, "kbcc capture: %s\n", s.error().message.c_str());
    return 2;
  }
  auto n = [&](const char *k) {
    auto it = s->counts.find(k);
    return static_cast<unsigned long long>(it == s->counts.end() ? 0 : it->second);
  };
  std::fprintf(stderr,
               "kbcc capture: %llu launches seen, %llu captured (%llu not replayable), skipped: %llu by filter, "
               "%llu by --max-launches, %llu by --max-bytes, %llu by the store's limit, %llu in stream capture; "
               "%llu graph launches; %llu errors (%.2f s)\n",
               n("launches"), n("captured"), n("not_replayable"), n("skipped_filter"), n("skipped_limit"),
               n("skipped_size"), n("skipped_cap"), n("skipped_stream_capture"), n("graph_launches"), n("errors"),
               s->seconds);
  for (const auto &id : s->ids)
    std::fprintf(stderr, "kbcc capture: stored %s\n", id.c_str());
  print_missing(*s, o);
  return s->exit_code;
}

} // namespace

KBCC_COMMAND("capture", "record real kernel launches of a program for replay", kUsage, run_capture_command);

} // namespace kbcc::driver

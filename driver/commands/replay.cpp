// `kbcc replay`: replay a captured launch with the original or a variant cubin
// and compare every output; optionally fuzz, sanitize and time it.
#include "cache/env.h"
#include "driver/command.h"
#include "gpu/harness.h"
#include "kb/registry.h"
#include "support/config.h"

#include <cstdio>
#include <cstdlib>
#include <map>

namespace kbcc::driver {
namespace {

// Buffer element types per pointer parameter, by mangled name and by kernel
// hash, from the registry's kernel signatures; empty without a registry.
using TypeTable = std::map<std::string, std::map<unsigned, gpu::ElementType>>;

TypeTable registry_types(const Config &config) {
  TypeTable table;
  cache::EnvOptions eo;
  eo.read_only = true;
  auto env = cache::Env::open(config.dir(), eo);
  if (!env) return table; // no registry: types come from the mangled names
  auto all = kb::Registry(**env).list();
  if (!all) return table;
  for (const auto &e : *all) {
    std::map<unsigned, gpu::ElementType> types;
    for (size_t i = 0; i < e.params.size(); ++i) {
      const auto &p = e.params[i];
      gpu::ElementType t = gpu::element_type_from_name(p.pointee_type);
      if (p.is_pointer && t != gpu::ElementType::Bytes) types[static_cast<unsigned>(i)] = t;
    }
    table[e.hash] = types;
    for (const auto &m : e.mangled_names)
      table[m] = types;
  }
  return table;
}

// The registry's types for a capture, unless --type was given.
void apply_types(const TypeTable &table, const gpu::CaptureInfo &cap, gpu::ValidationOptions &vo) {
  if (!vo.replay.param_types.empty()) return;
  auto it = table.find(cap.kernel_hash.empty() ? cap.kernel : cap.kernel_hash);
  if (it == table.end()) it = table.find(cap.kernel);
  if (it != table.end()) vo.replay.param_types = it->second;
}

constexpr const char *kUsage =
    "Usage: kbcc replay CAPTURE [options]\n"
    "       kbcc replay --all [--kernel NAME] [options]\n"
    "\n"
    "Replays a captured launch (CAPTURE: an id, a unique id prefix, or a manifest\n"
    "path, or a kernel's mangled name; see `kbcc capture --list`) on the local\n"
    "GPU: restores the captured inputs, relocates the pointers, launches, and\n"
    "compares every buffer with the captured result (bitwise for integers; for floats a tolerance from the\n"
    "element type, widened by the noise measured by replaying the original twice).\n"
    "Exit status: 0 all checks passed, 1 a check failed, 2 error.\n"
    "\n"
    "Options:\n"
    "  --all                  replay every stored capture (with --kernel: of that kernel)\n"
    "  --variant FILE.cubin   launch this cubin instead of the captured module\n"
    "  --no-calibrate         skip the two calibration replays of the original\n"
    "  --fuzz N               also run N rounds of perturbed float inputs, the original as reference\n"
    "  --memcheck             also run the replay under compute-sanitizer memcheck\n"
    "  --racecheck            also run the replay under compute-sanitizer racecheck\n"
    "  --time                 time the original twice and the variant (CUDA events, L2 flushed)\n"
    "  --reps N               timed repetitions (default 50)\n"
    "  --type P=T             element type T (f32, f16, bf16, f64, i32, u8, ...) of the buffer\n"
    "                         parameter P points to (repeatable)";

// One line per buffer; with many buffers, unchanged inputs that match are
// summarised in one line.
void print_buffers(const std::vector<gpu::BufferReport> &bufs, const char *indent) {
  size_t quiet = 0;
  for (const auto &b : bufs) {
    if (bufs.size() > 8 && !b.written && b.pass) {
      ++quiet;
      continue;
    }
    std::printf("%sbuffer %u %-16s %-5s %10llu bytes %s mismatches=%llu max_abs=%.3g max_rel=%.3g noise=%.3g "
                "tol=%s %s\n",
                indent, b.index, b.name.c_str(), gpu::element_type_name(b.type),
                static_cast<unsigned long long>(b.bytes), b.written ? "out" : "in ",
                static_cast<unsigned long long>(b.mismatches), b.max_abs_error, b.max_rel_error, b.noise_abs,
                b.tolerance.bitwise
                    ? "bitwise"
                    : ("abs " + std::to_string(b.tolerance.abs) + " rel " + std::to_string(b.tolerance.rel)).c_str(),
                b.pass ? "PASS" : "FAIL");
  }
  if (quiet) std::printf("%s(%zu more input buffers, unchanged and matching)\n", indent, quiet);
}

void print_timing(const char *label, const gpu::TimingStats &t) {
  std::printf("time %-10s median %.3f us  p25 %.3f  p75 %.3f  spread %.1f%%  reps %u%s\n", label, t.median_us, t.p25_us,
              t.p75_us, t.spread_pct, t.reps, t.l2_flushed ? "  L2 flushed" : "");
}

// Validates (and optionally times) one capture; 0 pass, 1 fail, 2 error.
int replay_one(const gpu::CaptureInfo &cap, const std::string &variant, gpu::ValidationOptions vo, bool timing,
               const gpu::TimingOptions &to) {
  std::printf("capture %s %s %s grid=%u,%u,%u block=%u,%u,%u smem=%u\n", cap.id.c_str(), cap.arch.c_str(),
              cap.kernel.c_str(), cap.grid.x, cap.grid.y, cap.grid.z, cap.block.x, cap.block.y, cap.block.z,
              cap.shared_mem);
  auto v = gpu::validate(cap, variant, vo);
  if (!v) {
    std::fprintf(stderr, "kbcc replay: %s\n", v.error().message.c_str());
    return 2;
  }
  const auto &r = v->replay;
  std::printf("replay %s%s%s\n", variant.empty() ? "original" : variant.c_str(), r.calibrated ? " (calibrated)" : "",
              r.launched ? "" : (" did not run: " + r.error).c_str());
  print_buffers(r.buffers, "  ");
  for (size_t k = 0; k < v->fuzz.results.size(); ++k) {
    std::printf("fuzz round %zu %s\n", k, v->fuzz.results[k].pass ? "PASS" : "FAIL");
    print_buffers(v->fuzz.results[k].buffers, "  ");
  }
  // Requested sanitizer runs the validation skipped after an earlier failure.
  if (!v->pass && v->sanitizers.empty() && r.launched) {
    for (auto [on, tool] : {std::pair{vo.memcheck, gpu::SanitizerTool::Memcheck},
                            std::pair{vo.racecheck, gpu::SanitizerTool::Racecheck}}) {
      if (!on) continue;
      auto s = gpu::sanitize(cap, variant, tool, vo.replay.runner);
      if (s) v->sanitizers.push_back(*s);
    }
  }
  for (const auto &s : v->sanitizers)
    std::printf("%s %s errors=%u (%.1f s)\n%s", s.tool == gpu::SanitizerTool::Memcheck ? "memcheck" : "racecheck",
                s.clean ? "CLEAN" : "ERRORS", s.errors, s.seconds, s.clean ? "" : s.summary.c_str());
  if (timing && v->pass) {
    auto t = gpu::compare_timing(cap, variant, to);
    if (!t) {
      std::fprintf(stderr, "kbcc replay: %s\n", t.error().message.c_str());
      return 2;
    }
    print_timing("original", t->original_a);
    print_timing(variant.empty() ? "original" : "variant", t->variant);
    print_timing("original", t->original_b);
    std::printf("speedup %.3fx noise %.1f%% %s\n", t->speedup, t->noise_pct,
                t->significant ? "significant" : "not significant");
  }
  std::printf("result %s%s%s\n", v->pass ? "PASS" : "FAIL", v->pass ? "" : ": ", v->reason.c_str());
  return v->pass ? 0 : 1;
}

int run_replay_command(const std::vector<std::string> &args) {
  auto config = Config::load();
  if (!config) {
    std::fprintf(stderr, "kbcc replay: %s\n", config.error().message.c_str());
    return 2;
  }
  std::string ref, variant, kernel;
  bool all = false;
  gpu::ValidationOptions vo;
  vo.fuzz_rounds = 0;
  bool timing = false;
  gpu::TimingOptions to;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a == "--variant")
      variant = value();
    else if (a == "--all")
      all = true;
    else if (a == "--kernel")
      kernel = value();
    else if (a == "--no-calibrate")
      vo.replay.calibrate = false;
    else if (a == "--fuzz")
      vo.fuzz_rounds = static_cast<unsigned>(std::strtoul(value().c_str(), nullptr, 10));
    else if (a == "--memcheck")
      vo.memcheck = true;
    else if (a == "--racecheck")
      vo.racecheck = true;
    else if (a == "--time")
      timing = true;
    else if (a == "--reps")
      to.reps = static_cast<unsigned>(std::strtoul(value().c_str(), nullptr, 10));
    else if (a == "--type") {
      std::string v = value();
      auto eq = v.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "kbcc replay: --type wants PARAM=TYPE\n");
        return 2;
      }
      vo.replay.param_types[static_cast<unsigned>(std::stoul(v.substr(0, eq)))] =
          gpu::element_type_from_name(v.substr(eq + 1));
    } else if (!a.empty() && a[0] != '-' && ref.empty())
      ref = a;
    else {
      std::fprintf(stderr, "kbcc replay: unknown option '%s'\n%s\n", a.c_str(), kUsage);
      return 2;
    }
  }
  if (ref.empty() == !all) {
    std::fprintf(stderr, "%s\n", kUsage);
    return 2;
  }
  std::string dir = config->dir() + "/captures";
  TypeTable types = registry_types(*config);
  if (!all) {
    auto cap = gpu::find_capture(dir, ref);
    if (!cap) {
      std::fprintf(stderr, "kbcc replay: %s\n", cap.error().message.c_str());
      return 2;
    }
    apply_types(types, *cap, vo);
    return replay_one(*cap, variant, vo, timing, to);
  }
  auto caps = gpu::list_captures(dir, {.kernel = kernel, .arch = "", .replayable_only = false});
  if (!caps) {
    std::fprintf(stderr, "kbcc replay: %s\n", caps.error().message.c_str());
    return 2;
  }
  unsigned passed = 0, failed = 0, skipped = 0;
  for (const auto &c : *caps) {
    if (!c.replayable) {
      std::printf("capture %s %s not replayable: %s\n", c.id.c_str(), c.kernel.c_str(),
                  c.not_replayable_reason.c_str());
      ++skipped;
      continue;
    }
    gpu::ValidationOptions each = vo;
    apply_types(types, c, each);
    int rc = replay_one(c, variant, each, timing, to);
    if (rc == 2) return 2;
    rc == 0 ? ++passed : ++failed;
  }
  std::printf("summary: %zu captures, %u passed, %u failed, %u not replayable\n", caps->size(), passed, failed,
              skipped);
  return failed || caps->empty() ? 1 : 0;
}

} // namespace

KBCC_COMMAND("replay", "replay a captured launch and compare outputs (original or variant cubin)", kUsage,
             run_replay_command);

} // namespace kbcc::driver

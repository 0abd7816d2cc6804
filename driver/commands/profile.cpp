// `kbcc profile`: hardware metrics of one captured launch through ncu.
#include "driver/command.h"
#include "gpu/harness.h"
#include "support/config.h"
#include "support/fs.h"

#include <cstdio>

namespace kbcc::driver {
namespace {

constexpr const char *kUsage = "Usage: kbcc profile CAPTURE [--variant FILE.cubin] [--ncu PATH] [--raw-csv FILE]\n"
                               "\n"
                               "Replays a captured launch once under Nsight Compute (ncu) and prints the\n"
                               "metrics kbcc's knowledge base uses (throughputs as % of peak, occupancy,\n"
                               "registers, spills, shared memory, hit rates, warp-stall shares, instruction\n"
                               "mix), one `name value` line each, and the profiling cost. --raw-csv FILE\n"
                               "also writes ncu's own CSV output to FILE.";

int run_profile_command(const std::vector<std::string> &args) {
  auto config = Config::load();
  if (!config) {
    std::fprintf(stderr, "kbcc profile: %s\n", config.error().message.c_str());
    return 2;
  }
  std::string ref, variant, raw_csv;
  gpu::ProfileOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a == "--variant")
      variant = value();
    else if (a == "--ncu")
      o.ncu = value();
    else if (a == "--raw-csv")
      raw_csv = value();
    else if (!a.empty() && a[0] != '-' && ref.empty())
      ref = a;
    else {
      std::fprintf(stderr, "kbcc profile: unknown option '%s'\n%s\n", a.c_str(), kUsage);
      return 2;
    }
  }
  if (ref.empty()) {
    std::fprintf(stderr, "%s\n", kUsage);
    return 2;
  }
  auto cap = gpu::find_capture(config->dir() + "/captures", ref);
  if (!cap) {
    std::fprintf(stderr, "kbcc profile: %s\n", cap.error().message.c_str());
    return 2;
  }
  auto p = gpu::profile(*cap, variant, o);
  if (!p) {
    std::fprintf(stderr, "kbcc profile: %s\n", p.error().message.c_str());
    return 2;
  }
  if (!raw_csv.empty()) {
    auto st = write_file_atomic(raw_csv, p->raw);
    if (!st) std::fprintf(stderr, "kbcc profile: %s\n", st.error().message.c_str());
  }
  for (const auto &[k, v] : p->metrics)
    std::printf("%s %.6g\n", k.c_str(), v);
  std::string stalls;
  for (const auto &s : p->top_stalls)
    stalls += " " + s;
  std::printf("top_stalls%s\nprofiling_seconds %.2f (%s, one launch)\n", stalls.c_str(), p->seconds, p->tool.c_str());
  return 0;
}

} // namespace

KBCC_COMMAND("profile", "profile a captured launch with ncu (metrics of docs/kb-format.md)", kUsage,
             run_profile_command);

} // namespace kbcc::driver

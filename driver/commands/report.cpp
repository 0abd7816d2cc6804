// `kbcc report`: the stores under KBCC_DIR as one self-contained HTML page
// (or as JSON for scripts such as bench/optimize/run.sh).
#include "driver/command.h"
#include "report/data.h"
#include "report/html.h"
#include "support/config.h"
#include "support/fs.h"

#include <cstdio>
#include <ctime>

namespace kbcc::driver {
namespace {

const char *kUsage =
    "Usage: kbcc report [-o FILE] [--json]\n\n"
    "Writes a self-contained HTML page (inline CSS and SVG; it loads nothing from the network) of what\n"
    "kbcc knows under KBCC_DIR: the best validated speedup per kernel, a roofline of the profiled\n"
    "candidates, the optimization trajectories over time, and the knowledge-base statistics per\n"
    "performance state and per optimization. Only reads the stores.\n\n"
    "Options:\n"
    "  -o, --output FILE  where to write (default: report.html; with --json: standard output); - = stdout\n"
    "  --json             write the same data as JSON (kernels, variants, trajectories with steps, states,\n"
    "                     optimizations) instead of HTML\n";

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

int usage_error(const std::string &message) {
  std::fprintf(stderr, "kbcc report: %s\n%s", message.c_str(), kUsage);
  return 2;
}

int run_report(const std::vector<std::string> &args) {
  std::string output;
  bool json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--json")
      json = true;
    else if ((a == "-o" || a == "--output") && i + 1 < args.size())
      output = args[++i];
    else if (a.rfind("--output=", 0) == 0)
      output = a.substr(9);
    else
      return usage_error("unexpected argument '" + a + "'");
  }
  if (output.empty()) output = json ? "-" : "report.html";
  auto config = Config::load();
  if (!config) {
    std::fprintf(stderr, "kbcc report: %s\n", config.error().message.c_str());
    return 1;
  }
  auto data = report::load_report_data(config->dir());
  if (!data) {
    std::fprintf(stderr, "kbcc report: %s\n", data.error().message.c_str());
    return 1;
  }
  std::string text = json ? report::report_json(*data).dump(2) + "\n" : report::render_html(*data, now_utc());
  if (output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (Status s = write_file_atomic(output, text); !s) {
    std::fprintf(stderr, "kbcc report: %s\n", s.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "kbcc report: wrote %s (%zu variants, %zu trajectories)\n", output.c_str(),
               data->variants.size(), data->trajectories.size());
  return 0;
}

} // namespace

KBCC_COMMAND("report", "write an HTML report: speedups, roofline, trajectories, KB statistics", kUsage, run_report);

} // namespace kbcc::driver

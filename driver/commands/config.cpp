// `kbcc config`: shows the configuration kbcc would use, key by key.
#include "support/config.h"

#include "driver/command.h"
#include "remote/store.h"

#include <cstdio>

namespace kbcc::driver {
namespace {

constexpr const char *kUsage =
    "Usage: kbcc config --list\n"
    "       kbcc config --get KEY\n\n"
    "Shows the configuration kbcc uses: defaults < config file ($KBCC_CONFIG, else $KBCC_DIR/kbcc.conf)\n"
    "< KBCC_* environment variables.\n\n"
    "Options:\n"
    "  --list      every key with its environment variable, value and origin\n"
    "              (default, file:<path>:<line> or env:<VAR>)\n"
    "  --get KEY   the value of KEY alone\n\n"
    "Exit status: 1 when the config file is malformed (the error names the file and line),\n"
    "2 on a usage error or an unknown key.";

bool is_secret(const std::string &key) { return key == "llm_api_key"; }

// The value as --list shows it: secrets hidden, credentials cut out of URLs.
std::string shown_value(const std::string &key, const std::string &value) {
  if (value.empty()) return value;
  if (is_secret(key)) return "(set)";
  if (key == "remote") return remote::redact_url(value);
  return value;
}

int list(const Config &c) {
  std::printf("# config file: %s\n", c.file().c_str());
  for (const auto &k : config_keys()) {
    std::string value = shown_value(k.key, c.get(k.key));
    std::printf("%-18s %-24s %-40s %s\n", k.key, k.env, value.empty() ? "\"\"" : value.c_str(),
                c.origin(k.key).c_str());
  }
  return 0;
}

int get(const Config &c, const std::string &key) {
  for (const auto &k : config_keys()) {
    if (key != k.key) continue;
    std::printf("%s\n", c.get(key).c_str());
    return 0;
  }
  std::fprintf(stderr, "kbcc config: unknown key '%s' (see kbcc config --list)\n", key.c_str());
  return 2;
}

int run(const std::vector<std::string> &args) {
  bool want_list = args.size() == 1 && args[0] == "--list";
  bool want_get = args.size() == 2 && args[0] == "--get";
  if (!want_list && !want_get) {
    std::fprintf(stderr, "%s\n", kUsage);
    return 2;
  }
  auto config = Config::load();
  if (!config) {
    std::fprintf(stderr, "kbcc config: %s\n", config.error().message.c_str());
    return 1;
  }
  return want_list ? list(*config) : get(*config, args[1]);
}

} // namespace
} // namespace kbcc::driver

KBCC_COMMAND("config", "show configuration keys, their values and where each value came from", kbcc::driver::kUsage,
             kbcc::driver::run);

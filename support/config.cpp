#include "support/config.h"

#include "support/fs.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace kbcc {

const std::vector<ConfigKey> &config_keys() {
  static const std::vector<ConfigKey> keys = {
      {"dir", "KBCC_DIR", "~/.cache/kbcc", "root directory of the stores, captures, log and config file"},
      {"config", "KBCC_CONFIG", "{dir}/kbcc.conf", "path of the config file"},
      {"log", "KBCC_LOG", "{dir}/kbcc.log", "kbcc's log file (one line per event)"},
      {"disable", "KBCC_DISABLE", "false", "run nvcc unchanged: no extraction, no lookup, no recording"},
      {"nvcc", "KBCC_NVCC", "", "path of the real nvcc (searched first; see docs/user-guide.md)"},
      {"record", "KBCC_RECORD", "true", "record every kernel seen in builds into the kernel registry"},
      {"deferred_registration", "KBCC_DEFERRED_REGISTRATION", "true",
       "parse a unit during the build only when a kernel it names has a variant; record the others and parse "
       "them when a command reads the registry (kbcc capture, optimize, warm, ...)"},
      {"speculative", "KBCC_SPECULATIVE", "true",
       "start nvcc on the original command while kernels are extracted, and keep its output on a miss"},
      {"parse_timeout", "KBCC_PARSE_TIMEOUT", "120",
       "seconds before kernel extraction is abandoned (nvcc runs unchanged)"},
      {"max_size", "KBCC_MAX_SIZE", "5G", "size limit of the LMDB store; least recently used entries are evicted"},
      {"capture_max_size", "KBCC_CAPTURE_MAX_SIZE", "1G", "size limit of $KBCC_DIR/captures"},
      {"allow_reassociation", "KBCC_ALLOW_REASSOCIATION", "true",
       "kbcc optimize may keep variants that add floating-point sums in another order (numerics class "
       "reassociates)"},
      {"closure_max_size", "KBCC_CLOSURE_MAX_SIZE", "256M",
       "size limit of the unit closures (user files of recorded units) in the store; 0 = none are kept"},
      {"snapshot", "KBCC_SNAPSHOT", "", "pin the build to this snapshot file (else kbcc.lock lookup, see docs)"},
      {"strict", "KBCC_STRICT", "false",
       "fail the build (instead of falling back to nvcc) when a pinned snapshot is bad"},
      {"llm_api", "KBCC_LLM_API", "", "LLM protocol for the optimizer: openai or anthropic; empty = no LLM"},
      {"llm_endpoint", "KBCC_LLM_ENDPOINT", "", "base URL of the LLM server, e.g. https://api.openai.com"},
      {"llm_model", "KBCC_LLM_MODEL", "", "model name sent to the LLM server"},
      {"llm_api_key", "KBCC_LLM_API_KEY", "", "API key for the LLM server (never logged or stored)"},
      {"llm_timeout", "KBCC_LLM_TIMEOUT", "120", "seconds before one LLM request is abandoned"},
      {"llm_max_retries", "KBCC_LLM_MAX_RETRIES", "4", "retries (exponential backoff) on HTTP 429/5xx and timeouts"},
      {"llm_cost_input", "KBCC_LLM_COST_INPUT", "0", "cost per million input tokens, for the per-trajectory cost"},
      {"llm_cost_output", "KBCC_LLM_COST_OUTPUT", "0", "cost per million output tokens, for the per-trajectory cost"},
      {"remote", "KBCC_REMOTE", "", "shared remote store: http(s)://... (WebDAV) or redis://host:port"},
      {"remote_read_only", "KBCC_REMOTE_READ_ONLY", "false", "never write to the remote store"},
      {"remote_timeout", "KBCC_REMOTE_TIMEOUT", "500", "milliseconds per remote request during a build"},
      {"signing_key", "KBCC_SIGNING_KEY", "",
       "ed25519 secret key file used to sign variants that kbcc optimize produces"},
      {"contributor", "KBCC_CONTRIBUTOR", "", "contributor id for KB evidence (default: a random id stored in the KB)"},
      {"remote_capture_max_size", "KBCC_REMOTE_CAPTURE_MAX_SIZE", "0",
       "bytes of captures kbcc kb push/pull --captures transfers at most; 0 = captures are not shared"},
      {"remote_closure_max_size", "KBCC_REMOTE_CLOSURE_MAX_SIZE", "64M",
       "bytes of unit closure files one kbcc kb push/pull transfers at most; 0 = closures are not shared"},
  };
  return keys;
}

namespace {

const ConfigKey *find_key(const std::string &key) {
  for (const auto &k : config_keys())
    if (key == k.key) return &k;
  return nullptr;
}

std::string trim(const std::string &s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string expand(std::string v, const std::string &dir) {
  if (v.rfind("~/", 0) == 0) v = home_dir() + v.substr(1);
  if (auto p = v.find("{dir}"); p != std::string::npos) v.replace(p, 5, dir);
  return v;
}

} // namespace

Expected<uint64_t> parse_size(const std::string &text) {
  std::string t = trim(text);
  if (t.empty()) return make_error("empty size");
  size_t used = 0;
  double n = 0;
  try {
    n = std::stod(t, &used);
  } catch (...) {
    return make_error("'" + text + "' is not a size (expected e.g. 512M or 5G)");
  }
  std::string suffix = trim(t.substr(used));
  if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b')) suffix.pop_back();
  if (!suffix.empty() && (suffix.back() == 'i')) suffix.pop_back();
  double mult = 1;
  if (suffix == "K" || suffix == "k")
    mult = 1024.0;
  else if (suffix == "M" || suffix == "m")
    mult = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g")
    mult = 1024.0 * 1024 * 1024;
  else if (suffix == "T" || suffix == "t")
    mult = 1024.0 * 1024 * 1024 * 1024;
  else if (!suffix.empty())
    return make_error("'" + text + "' has an unknown size suffix (use K, M, G or T)");
  if (n < 0) return make_error("'" + text + "' is negative");
  return static_cast<uint64_t>(n * mult);
}

Config Config::with(const std::map<std::string, std::string> &overrides) {
  Config c;
  for (const auto &k : config_keys()) {
    c.values_[k.key] = k.default_value;
    c.origins_[k.key] = "default";
  }
  for (const auto &[k, v] : overrides) {
    c.values_[k] = v;
    c.origins_[k] = "override";
  }
  std::string dir = expand(c.values_["dir"], "");
  c.values_["dir"] = dir;
  for (auto &[k, v] : c.values_)
    v = expand(v, dir);
  c.file_ = c.values_["config"];
  return c;
}

Expected<Config> Config::load() {
  Config c = with({});
  auto env_of = [](const ConfigKey &k) -> const char * {
    const char *v = getenv(k.env);
    return v;
  };
  // dir and config are resolved from the environment first: they locate the file.
  for (const char *key : {"dir", "config"}) {
    const ConfigKey *k = find_key(key);
    if (const char *v = env_of(*k); v && *v) {
      c.values_[key] = expand(v, c.values_["dir"]);
      c.origins_[key] = std::string("env:") + k->env;
    }
  }
  if (c.origins_["config"] == "default") c.values_["config"] = c.values_["dir"] + "/kbcc.conf";
  for (auto &[k, v] : c.values_)
    if (k != "dir" && k != "config" && c.origins_[k] == "default")
      v = expand(find_key(k)->default_value, c.values_["dir"]);
  c.file_ = c.values_["config"];

  if (file_exists(c.file_)) {
    auto text = read_file(c.file_);
    if (!text) return text.error();
    std::istringstream in(*text);
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      std::string t = trim(line);
      if (t.empty() || t[0] == '#') continue;
      auto eq = t.find('=');
      std::string where = c.file_ + ":" + std::to_string(lineno);
      if (eq == std::string::npos) return make_error(where + ": expected 'key = value', got '" + t + "'", "bad-config");
      std::string key = trim(t.substr(0, eq));
      const ConfigKey *k = find_key(key);
      if (!k) return make_error(where + ": unknown key '" + key + "' (see `kbcc config --list`)", "bad-config");
      if (key == "dir" || key == "config")
        return make_error(where + ": '" + key + "' can only be set in the environment (" + k->env + ")", "bad-config");
      c.values_[key] = expand(trim(t.substr(eq + 1)), c.values_["dir"]);
      c.origins_[key] = "file:" + where;
    }
  }
  for (const auto &k : config_keys()) {
    if (std::string(k.key) == "dir" || std::string(k.key) == "config") continue;
    if (const char *v = env_of(k)) {
      c.values_[k.key] = expand(v, c.values_["dir"]);
      c.origins_[k.key] = std::string("env:") + k.env;
    }
  }
  for (const char *key : {"max_size", "capture_max_size"}) {
    if (auto s = parse_size(c.values_[key]); !s)
      return make_error(c.origins_[key] + ": " + key + ": " + s.error().message, "bad-config");
  }
  return c;
}

const std::string &Config::get(const std::string &key) const {
  static const std::string empty;
  auto it = values_.find(key);
  return it == values_.end() ? empty : it->second;
}

bool Config::get_bool(const std::string &key) const {
  std::string v = get(key);
  std::transform(v.begin(), v.end(), v.begin(), ::tolower);
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

uint64_t Config::get_size(const std::string &key) const { return parse_size(get(key)).value_or(0); }

double Config::get_double(const std::string &key) const {
  try {
    return std::stod(get(key));
  } catch (...) {
    return 0;
  }
}

const std::string &Config::origin(const std::string &key) const {
  static const std::string none = "unknown";
  auto it = origins_.find(key);
  return it == origins_.end() ? none : it->second;
}

} // namespace kbcc

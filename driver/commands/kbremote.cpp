// `kbcc kb push|pull|sync` (dispatched from `kbcc kb`): exchanges variants,
// registry entries, KB contributions and captures with the remote store.
#include "cache/env.h"
#include "driver/commands/cli.h"
#include "kb/snapshot.h"
#include "remote/store.h"
#include "remote/sync.h"
#include "remote/trust.h"
#include "support/config.h"

#include <cstdio>

namespace kbcc::remote {
namespace {

int fail(const std::string &verb, const std::string &message) {
  return driver::print_error("kbcc kb " + verb, message);
}

struct Parsed {
  SyncOptions options;
  std::string snapshot;
  bool ok = true;
};

Parsed parse(const std::vector<std::string> &args) {
  Parsed p;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--no-variants")
      p.options.variants = false;
    else if (a == "--no-registry")
      p.options.registry = false;
    else if (a == "--no-kb")
      p.options.kb = false;
    else if (a == "--no-closures")
      p.options.closures = false;
    else if (a == "--captures")
      p.options.captures = true;
    else if (a == "--snapshot" && i + 1 < args.size())
      p.snapshot = args[++i];
    else
      p.ok = false;
  }
  return p;
}

// Fills the options that come from the configuration; an Error names the problem.
Status configure(const Config &config, Parsed &p) {
  SyncOptions &o = p.options;
  o.captures_dir = config.dir() + "/captures";
  o.capture_max_size = config.get_size("remote_capture_max_size");
  o.closure_max_size = config.get_size("remote_closure_max_size");
  o.closure_store_size = config.get_size("closure_max_size");
  o.contributor = config.get("contributor");
  if (!config.get("signing_key").empty()) {
    auto key = read_secret_key(config.get("signing_key"));
    if (!key) return key.error();
    o.signing_key = *key;
  }
  auto trusted = read_trusted_keys(config.dir());
  if (!trusted) return trusted.error();
  o.trusted = *trusted;
  std::string snap = p.snapshot.empty() ? config.get("snapshot") : p.snapshot;
  if (!snap.empty()) {
    auto s = kb::load_snapshot(snap);
    if (!s) return s.error();
    o.pinned = s->variants;
  }
  return Status::ok();
}

} // namespace

int run_kb_remote(const std::string &verb, const std::vector<std::string> &args) {
  Parsed p = parse(args);
  if (!p.ok || (verb != "push" && verb != "pull" && verb != "sync")) {
    std::fprintf(stderr, "Usage:\n%s", KBCC_KB_REMOTE_USAGE);
    return 2;
  }
  auto config = Config::load();
  if (!config) return fail(verb, config.error().message);
  if (auto s = configure(*config, p); !s) return fail(verb, s.error().message);
  auto store = open_remote(*config, true);
  if (!store) return fail(verb, store.error().message);
  cache::EnvOptions eo;
  eo.max_size = config->get_size("max_size");
  eo.extra_tables = {kCandidateTable};
  auto env = cache::Env::open(config->dir(), eo);
  if (!env) return fail(verb, env.error().message);
  if (verb == "pull" || verb == "sync") {
    auto r = pull(**store, **env, p.options);
    if (!r) return fail(verb, r.error().message);
    std::printf("%s\n", pull_summary(*r).c_str());
  }
  if (verb == "push" || verb == "sync") {
    auto r = push(**store, **env, p.options);
    if (!r) return fail(verb, r.error().message);
    std::printf("%s\n", push_summary(*r).c_str());
  }
  return 0;
}

} // namespace kbcc::remote

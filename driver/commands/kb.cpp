// `kbcc kb`: the KB policy (docs/kb-format.md): show, export, import,
// merge and validate; push/pull/sync go to the remote store (remote/sync.h).
#include "cache/env.h"
#include "driver/command.h"
#include "driver/commands/cli.h"
#include "kb/policy.h"
#include "remote/sync.h"
#include "support/config.h"
#include "support/fs.h"

#include <cstdio>

namespace kbcc::driver {
namespace {

using nlohmann::json;

constexpr const char *kUsage =
    "Usage: kbcc kb show [--state ID | --optimization ID] [--arch ARCH] [--json]\n"
    "       kbcc kb export [-o FILE]\n"
    "       kbcc kb import FILE\n"
    "       kbcc kb merge FILE... [-o OUT]\n"
    "       kbcc kb validate FILE\n"
    "       kbcc kb push|pull|sync [options]\n\n"
    "The knowledge base policy kept in the store under $KBCC_DIR (the seed KB until one is saved);\n"
    "format and schema: docs/kb-format.md, kb/kb.schema.json.\n\n"
    "  show       states and optimizations with evidence summed over contributors: attempts,\n"
    "             successes, geometric-mean speedup, confidence; --arch restricts the evidence to\n"
    "             one arch; --state/--optimization prints one entry in full (JSON with --json);\n"
    "             --json alone prints the whole policy\n"
    "  export     write the policy as JSON (with derived summaries) to FILE, or stdout\n"
    "  import     replace the stored policy by FILE after checking it against the schema\n"
    "  merge      merge each FILE into the stored policy (deterministic; per-contributor evidence\n"
    "             is never double counted); with -o, merge the FILEs only and write OUT, leaving\n"
    "             the store alone\n"
    "  validate   check FILE against the schema; errors name the file and the field path\n" KBCC_KB_REMOTE_USAGE
    "\nExit status: 0 on success, 1 on an error (named), 2 on a usage error.";

int usage_error() { return print_usage_error(kUsage); }

int fail(const std::string &message) { return print_error("kbcc kb", message); }

Expected<kb::Policy> read_policy(const std::string &path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return kb::parse_policy(*text, path);
}

void print_summary_line(const std::string &label, const kb::StatsSummary &s) {
  std::printf("  %-34s attempts=%-4llu successes=%-4llu geomean=%.2fx confidence=%.2f contributors=%u\n", label.c_str(),
              static_cast<unsigned long long>(s.attempts), static_cast<unsigned long long>(s.successes),
              s.geomean_speedup, s.confidence, s.contributors);
}

int show(const kb::Policy &p, const std::vector<std::string> &args) {
  std::string state, opt, arch;
  bool as_json = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--state" && i + 1 < args.size())
      state = args[++i];
    else if (args[i] == "--optimization" && i + 1 < args.size())
      opt = args[++i];
    else if (args[i] == "--arch" && i + 1 < args.size())
      arch = args[++i];
    else if (args[i] == "--json")
      as_json = true;
    else
      return usage_error();
  }
  json doc = kb::to_json(p);
  if (!state.empty() || !opt.empty()) {
    const char *list = state.empty() ? "optimizations" : "states";
    const std::string &id = state.empty() ? opt : state;
    for (const auto &e : doc[list])
      if (e["id"] == id) {
        std::printf("%s\n", e.dump(as_json ? -1 : 1).c_str());
        return 0;
      }
    return fail(std::string("no ") + (state.empty() ? "optimization" : "state") + " '" + id + "' in the KB");
  }
  if (as_json) {
    std::printf("%s\n", doc.dump(1).c_str());
    return 0;
  }
  std::printf("KB %s (format version %d): %zu states, %zu optimizations\n", kb::policy_id(p).c_str(), p.version,
              p.states.size(), p.optimizations.size());
  std::printf("states:\n");
  for (const auto &s : p.states)
    std::printf("  %-34s %-22s -> %zu candidates\n", s.id.c_str(), s.primary_bottleneck.c_str(),
                s.optimizations.size());
  std::printf("optimizations%s:\n", arch.empty() ? "" : (" on " + arch).c_str());
  for (const auto &o : p.optimizations)
    print_summary_line(o.id + (o.mechanical ? " [" + *o.mechanical + "]" : ""), p.summary(o.id, arch));
  return 0;
}

int export_policy(const kb::Policy &p, const std::vector<std::string> &args) {
  std::string text = kb::to_json(p).dump(1) + "\n";
  if (args.size() == 1) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (args.size() != 3 || args[1] != "-o") return usage_error();
  if (auto st = write_file_atomic(args[2], text); !st) return fail(st.error().message);
  std::printf("exported KB %s to %s\n", kb::policy_id(p).c_str(), args[2].c_str());
  return 0;
}

int merge(kb::PolicyStore &store, const std::vector<std::string> &args) {
  std::vector<std::string> files;
  std::string out;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size())
      out = args[++i];
    else
      files.push_back(args[i]);
  }
  if (files.empty()) return usage_error();
  std::vector<kb::Policy> inputs;
  for (const auto &f : files) {
    auto p = read_policy(f);
    if (!p) return fail(p.error().message);
    inputs.push_back(std::move(*p));
  }
  if (!out.empty()) {
    kb::Policy m = inputs[0];
    for (size_t i = 1; i < inputs.size(); ++i)
      m = kb::merge(m, inputs[i]);
    if (auto st = write_file_atomic(out, kb::to_json(m).dump(1) + "\n"); !st) return fail(st.error().message);
    std::printf("merged %zu file(s) into %s (KB %s)\n", files.size(), out.c_str(), kb::policy_id(m).c_str());
    return 0;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (auto st = store.merge_in(inputs[i]); !st) return fail(st.error().message);
  auto now = store.load();
  if (!now) return fail(now.error().message);
  std::printf("merged %zu file(s) into the store (KB %s)\n", files.size(), kb::policy_id(*now).c_str());
  return 0;
}

int run(const std::vector<std::string> &args) {
  if (args.empty()) return usage_error();
  const std::string &verb = args[0];
  if (verb == "push" || verb == "pull" || verb == "sync")
    return remote::run_kb_remote(verb, std::vector<std::string>(args.begin() + 1, args.end()));
  if (verb == "validate") {
    if (args.size() != 2) return usage_error();
    auto p = read_policy(args[1]);
    if (!p) return fail(p.error().message);
    std::printf("%s: valid KB (%zu states, %zu optimizations)\n", args[1].c_str(), p->states.size(),
                p->optimizations.size());
    return 0;
  }
  if (verb != "show" && verb != "export" && verb != "import" && verb != "merge") return usage_error();
  auto config = Config::load();
  if (!config) return fail(config.error().message);
  auto env = cache::Env::open(config->dir(), cache::env_options(*config));
  if (!env) return fail(env.error().message);
  kb::PolicyStore store(**env);
  if (verb == "merge") return merge(store, args);
  if (verb == "import") {
    if (args.size() != 2) return usage_error();
    auto p = read_policy(args[1]);
    if (!p) return fail(p.error().message);
    if (auto st = store.save(*p); !st) return fail(st.error().message);
    std::printf("imported KB %s from %s\n", kb::policy_id(*p).c_str(), args[1].c_str());
    return 0;
  }
  auto p = store.load();
  if (!p) return fail(p.error().message);
  if (verb == "show") return show(*p, args);
  return export_policy(*p, args);
}

} // namespace
} // namespace kbcc::driver

KBCC_COMMAND("kb", "show, export, import, merge or validate the knowledge base; push/pull/sync with the remote",
             kbcc::driver::kUsage, kbcc::driver::run);

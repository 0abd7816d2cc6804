// `kbcc snapshot`: content-addressed snapshots of the KB policy and the
// chosen variants (kb/snapshot.h), for pinned, reproducible builds.
#include "kb/snapshot.h"

#include "cache/env.h"
#include "driver/command.h"
#include "driver/commands/cli.h"
#include "support/config.h"
#include "support/fs.h"

#include <cstdio>

namespace kbcc::driver {
namespace {

constexpr const char *kUsage =
    "Usage: kbcc snapshot create [--arch ARCH]... -o FILE\n"
    "       kbcc snapshot verify FILE\n"
    "       kbcc snapshot show FILE\n\n"
    "A snapshot is one self-contained JSON file: the KB policy and the variant chosen per kernel\n"
    "hash and arch, identified by the hash of its canonical content (docs/store-format.md).\n\n"
    "  create   snapshot the store under $KBCC_DIR; --arch (repeatable) keeps the variants of\n"
    "           those archs only; prints the snapshot id\n"
    "  verify   check that FILE is a snapshot whose content matches its id and whose variants\n"
    "           carry validation evidence; prints the id\n"
    "  show     the id, archs and variants of FILE\n\n"
    "Pin a build with KBCC_SNAPSHOT=FILE, or by placing the file as kbcc.lock in the source tree:\n"
    "kbcc looks for kbcc.lock in the directory of each compiled file and its parents, up to and\n"
    "including the first directory holding .git (or the filesystem root). A pinned build uses only\n"
    "the snapshot's variants and records and fetches nothing. A snapshot that fails verification\n"
    "makes the build fall back to plain nvcc, or fail under KBCC_STRICT=1.\n\n"
    "Exit status: 0 on success, 1 on an error (named; also a snapshot that fails verification),\n"
    "2 on a usage error.";

int usage_error() { return print_usage_error(kUsage); }

int fail(const std::string &message) { return print_error("kbcc snapshot", message); }

int create(const std::vector<std::string> &args) {
  std::vector<std::string> archs;
  std::string out;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--arch" && i + 1 < args.size())
      archs.push_back(args[++i]);
    else if (args[i] == "-o" && i + 1 < args.size())
      out = args[++i];
    else
      return usage_error();
  }
  if (out.empty()) return usage_error();
  auto config = Config::load();
  if (!config) return fail(config.error().message);
  auto env = cache::Env::open(config->dir(), cache::env_options(*config));
  if (!env) return fail(env.error().message);
  auto s = kb::create_snapshot(**env, archs);
  if (!s) return fail(s.error().message);
  if (auto st = write_file_atomic(out, kb::snapshot_text(*s)); !st) return fail(st.error().message);
  std::printf("snapshot %s: %zu variant(s) written to %s\n", s->id.c_str(), s->variants.size(), out.c_str());
  return 0;
}

int verify_or_show(const std::vector<std::string> &args, bool details) {
  if (args.size() != 2) return usage_error();
  auto s = kb::load_snapshot(args[1]);
  if (!s) return fail(s.error().message);
  std::printf("%s: snapshot %s verified (%zu variant(s))\n", args[1].c_str(), s->id.c_str(), s->variants.size());
  if (!details) return 0;
  std::string archs;
  for (const auto &a : s->archs)
    archs += " " + a;
  std::printf("archs:%s\n", archs.c_str());
  for (const auto &v : s->variants)
    std::printf("%s %-8s %6.2fx %s\n", v.kernel_hash.c_str(), v.arch.c_str(), v.timing.speedup(),
                v.qualified_name.c_str());
  return 0;
}

int run(const std::vector<std::string> &args) {
  if (args.empty()) return usage_error();
  if (args[0] == "create") return create(args);
  if (args[0] == "verify") return verify_or_show(args, false);
  if (args[0] == "show") return verify_or_show(args, true);
  return usage_error();
}

} // namespace
} // namespace kbcc::driver

KBCC_COMMAND("snapshot", "create or verify content-addressed snapshots for pinned, reproducible builds",
             kbcc::driver::kUsage, kbcc::driver::run);

// `kbcc trust`: ed25519 signing keys and the keys whose signed remote
// variants a build may compile in (remote/trust.h).
#include "remote/trust.h"

#include "driver/command.h"
#include "driver/commands/cli.h"
#include "support/config.h"
#include "support/fs.h"

#include <algorithm>
#include <cstdio>

namespace kbcc::driver {
namespace {

constexpr const char *kUsage =
    "Usage: kbcc trust keygen [-o FILE] [--force]\n"
    "       kbcc trust public-key [FILE]\n"
    "       kbcc trust add KEY [--name NAME]\n"
    "       kbcc trust list\n"
    "       kbcc trust remove KEY|NAME\n\n"
    "A variant from the remote store (KBCC_REMOTE) is compiled into a build only when it is signed\n"
    "by a trusted key (or pinned by a snapshot); any other is kept as a candidate for re-validation.\n\n"
    "  keygen       make an ed25519 key pair; writes the secret key to FILE (default\n"
    "               $KBCC_DIR/signing.key, mode 0600; --force overwrites) and prints the public key.\n"
    "               Set signing_key (KBCC_SIGNING_KEY) to FILE so that kbcc optimize and kbcc kb push sign.\n"
    "  public-key   print the public key of FILE (default: the configured signing_key)\n"
    "  add KEY      trust KEY: 64 hex characters, or a file holding a public or secret key;\n"
    "               --name labels it\n"
    "  list         the trusted keys ($KBCC_DIR/trusted-keys): key and name\n"
    "  remove       stop trusting the key with that hex value or name\n\n"
    "Exit status: 0 on success, 1 on an error (named), 2 on a usage error.";

int usage_error() { return print_usage_error(kUsage); }

int fail(const std::string &message) { return print_error("kbcc trust", message); }

int keygen(const Config &config, const std::vector<std::string> &args) {
  std::string out = config.dir() + "/signing.key";
  bool force = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size())
      out = args[++i];
    else if (args[i] == "--force")
      force = true;
    else
      return usage_error();
  }
  if (file_exists(out) && !force) return fail(out + " exists (use --force to replace it)");
  remote::KeyPair key = remote::generate_key();
  if (auto s = remote::write_secret_key(out, key); !s) return fail(s.error().message);
  std::printf("secret key: %s\npublic key: %s\n", out.c_str(), key.public_hex.c_str());
  return 0;
}

int public_key(const Config &config, const std::vector<std::string> &args) {
  if (args.size() > 2) return usage_error();
  std::string path = args.size() == 2 ? args[1] : config.get("signing_key");
  if (path.empty()) return fail("no key file given and signing_key is not set");
  auto key = remote::read_secret_key(path);
  if (!key) return fail(key.error().message);
  std::printf("%s\n", key->public_hex.c_str());
  return 0;
}

int add(const Config &config, const std::vector<std::string> &args) {
  if (args.size() != 2 && !(args.size() == 4 && args[2] == "--name")) return usage_error();
  auto key = remote::parse_public_key(args[1]);
  if (!key) return fail(key.error().message);
  std::string name = args.size() == 4 ? args[3] : "";
  if (name.find_first_of(" \t\n") != std::string::npos) return fail("a key name cannot contain spaces");
  auto keys = remote::read_trusted_keys(config.dir());
  if (!keys) return fail(keys.error().message);
  auto it = std::find_if(keys->begin(), keys->end(), [&](const auto &k) { return k.public_hex == *key; });
  if (it != keys->end())
    it->name = name.empty() ? it->name : name;
  else
    keys->push_back({*key, name});
  if (auto s = remote::write_trusted_keys(config.dir(), *keys); !s) return fail(s.error().message);
  std::printf("trusted %s%s\n", key->c_str(), name.empty() ? "" : (" (" + name + ")").c_str());
  return 0;
}

int list(const Config &config) {
  auto keys = remote::read_trusted_keys(config.dir());
  if (!keys) return fail(keys.error().message);
  for (const auto &k : *keys)
    std::printf("%s %s\n", k.public_hex.c_str(), k.name.c_str());
  return 0;
}

int remove(const Config &config, const std::vector<std::string> &args) {
  if (args.size() != 2) return usage_error();
  auto keys = remote::read_trusted_keys(config.dir());
  if (!keys) return fail(keys.error().message);
  auto gone = std::remove_if(keys->begin(), keys->end(), [&](const auto &k) {
    return k.public_hex == args[1] || (!k.name.empty() && k.name == args[1]);
  });
  if (gone == keys->end()) return fail("no trusted key '" + args[1] + "' (see kbcc trust list)");
  keys->erase(gone, keys->end());
  if (auto s = remote::write_trusted_keys(config.dir(), *keys); !s) return fail(s.error().message);
  std::printf("removed %s\n", args[1].c_str());
  return 0;
}

int run(const std::vector<std::string> &args) {
  if (args.empty()) return usage_error();
  auto config = Config::load();
  if (!config) return fail(config.error().message);
  const std::string &verb = args[0];
  if (verb == "keygen") return keygen(*config, args);
  if (verb == "public-key") return public_key(*config, args);
  if (verb == "add") return add(*config, args);
  if (verb == "list" && args.size() == 1) return list(*config);
  if (verb == "remove") return remove(*config, args);
  return usage_error();
}

} // namespace
} // namespace kbcc::driver

KBCC_COMMAND("trust", "manage signing keys and the keys whose remote variants builds may use", kbcc::driver::kUsage,
             kbcc::driver::run);

#include "tooling/extract_cache.h"

#include "support/fs.h"
#include "support/hash.h"
#include "tooling/serialize.h"
#include "tooling/shims.h"

#include <nlohmann/json.hpp>

namespace kbcc::tooling {
using nlohmann::json;

namespace {
constexpr const char *kFormat = "kbcc-extract-v2";
}

std::string ExtractCache::entry_path(const std::string &key) const {
  return dir_ + "/" + key.substr(0, 2) + "/" + key + ".json";
}

Expected<std::string> ExtractCache::key(const ParseRequest &request) const {
  std::string source = request.source;
  if (!source.empty() && source[0] != '/' && !request.working_dir.empty()) source = request.working_dir + "/" + source;
  auto content = read_file(source);
  if (!content) return content.error();
  Hasher h;
  h.field(kFormat);
  h.field(*content);
  for (const std::string &a : clang_arguments(request, request.shim_dir))
    h.field(a);
  h.field(request.working_dir);
  h.field(request.arch);
  h.field(request.toolchain);
  return h.hex();
}

std::optional<Extraction> ExtractCache::lookup(const ParseRequest &request) const {
  auto k = key(request);
  if (!k) return std::nullopt;
  auto text = read_file(entry_path(*k));
  if (!text) return std::nullopt;
  json entry = json::parse(*text, nullptr, false);
  if (entry.is_discarded() || !entry.is_object() || entry.value("format", "") != kFormat) return std::nullopt;
  const json &manifest = entry["manifest"];
  if (!manifest.is_array()) return std::nullopt;
  for (const json &file : manifest) {
    if (!file.is_object()) return std::nullopt;
    auto content = read_file(file.value("path", ""));
    if (!content || hash_hex(*content) != file.value("hash", "")) return std::nullopt;
  }
  auto x = extraction_from_json(entry["result"].dump(), entry_path(*k));
  if (!x) return std::nullopt;
  x->from_cache = true;
  return std::move(*x);
}

Status ExtractCache::store(const ParseRequest &request, const Extraction &x) const {
  auto k = key(request);
  if (!k) return k.error();
  json manifest = json::array();
  for (const std::string &path : x.included_files) {
    auto content = read_file(path);
    if (!content) return content.error();
    manifest.push_back({{"path", path}, {"hash", hash_hex(*content)}});
  }
  json result = json::parse(extraction_to_json(x), nullptr, false);
  json entry = {
      {"format", kFormat}, {"source", x.source_path}, {"arch", x.arch}, {"manifest", manifest}, {"result", result}};
  return write_file_atomic(entry_path(*k), entry.dump(-1, ' ', false, json::error_handler_t::replace));
}

} // namespace kbcc::tooling

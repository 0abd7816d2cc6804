#include "gpu/capture_format.h"

#include "gpu/device_names.h"
#include "support/fs.h"
#include "support/hash.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <zstd.h>

namespace kbcc::gpu {
namespace {

using nlohmann::json;

const char *after_kind_name(AfterKind k) {
  switch (k) {
  case AfterKind::Unchanged:
    return "unchanged";
  case AfterKind::Full:
    return "full";
  case AfterKind::Ranges:
    return "ranges";
  }
  return "unchanged";
}

Expected<AfterKind> after_kind_from(const std::string &s) {
  if (s == "unchanged") return AfterKind::Unchanged;
  if (s == "full") return AfterKind::Full;
  if (s == "ranges") return AfterKind::Ranges;
  return make_error("unknown after kind '" + s + "'");
}

json dim_json(const Dim3 &d) { return json::array({d.x, d.y, d.z}); }

Dim3 dim_from(const json &j) {
  Dim3 d;
  d.x = j.at(0).get<uint32_t>();
  d.y = j.at(1).get<uint32_t>();
  d.z = j.at(2).get<uint32_t>();
  return d;
}

json buffer_json(const BufferRecord &b) {
  json j = {{"base", b.base}, {"size", b.size},     {"name", b.name},
            {"type", b.type}, {"before", b.before}, {"after_kind", after_kind_name(b.after_kind)}};
  if (!b.global.empty()) j["global"] = b.global;
  if (b.after_kind != AfterKind::Unchanged) j["after"] = b.after;
  if (b.after_kind == AfterKind::Ranges) {
    json r = json::array();
    for (const auto &x : b.ranges)
      r.push_back(json::array({x.offset, x.size}));
    j["ranges"] = r;
  }
  return j;
}

Expected<BufferRecord> buffer_from(const json &j) {
  BufferRecord b;
  b.base = j.at("base").get<uint64_t>();
  b.size = j.at("size").get<uint64_t>();
  b.name = j.value("name", "");
  b.type = j.value("type", "bytes");
  b.global = j.value("global", "");
  b.before = j.at("before").get<std::string>();
  auto kind = after_kind_from(j.at("after_kind").get<std::string>());
  if (!kind) return kind.error();
  b.after_kind = *kind;
  if (b.after_kind != AfterKind::Unchanged) b.after = j.at("after").get<std::string>();
  if (b.after_kind == AfterKind::Ranges)
    for (const auto &r : j.at("ranges"))
      b.ranges.push_back({r.at(0).get<uint64_t>(), r.at(1).get<uint64_t>()});
  return b;
}

json manifest_json(const Manifest &m, bool for_id) {
  json params = json::array(), buffers = json::array(), pointers = json::array();
  for (const auto &p : m.params)
    params.push_back(json::array({p.offset, p.size}));
  for (const auto &b : m.buffers) {
    json j = buffer_json(b);
    if (for_id) j.erase("base");
    buffers.push_back(j);
  }
  for (const auto &p : m.pointers)
    pointers.push_back({{"offset", p.offset}, {"param", p.param}, {"buffer", p.buffer}, {"delta", p.delta}});
  std::string bytes = m.param_bytes;
  if (for_id)
    for (const auto &p : m.pointers)
      if (p.offset + 8 <= bytes.size()) std::memset(bytes.data() + p.offset, 0, 8);
  json j = {{"format", m.format},
            {"kernel", m.kernel},
            {"kernel_hash", m.kernel_hash},
            {"arch", m.arch},
            {"module", m.module},
            {"grid", dim_json(m.grid)},
            {"block", dim_json(m.block)},
            {"shared_mem", m.shared_mem},
            {"params", params},
            {"param_bytes", to_hex(bytes)},
            {"buffers", buffers},
            {"pointers", pointers},
            {"replayable", m.replayable},
            {"reason", m.reason}};
  if (!for_id) {
    j["gpu_name"] = m.gpu_name;
    j["api"] = m.api;
    j["command"] = m.command;
    j["created"] = m.created;
    j["sequence"] = m.sequence;
  }
  return j;
}

} // namespace

std::string to_hex(std::string_view bytes) {
  static const char *digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

Expected<std::string> from_hex(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2) return make_error("odd-length hex string");
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return make_error("invalid hex digit");
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string manifest_to_json(const Manifest &m) { return manifest_json(m, false).dump(1) + "\n"; }

std::string manifest_id(const Manifest &m) { return hash_hex(manifest_json(m, true).dump()); }

Expected<Manifest> manifest_from_json(const std::string &text, const std::string &origin) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error(origin + ": not a capture manifest (invalid JSON)");
  try {
    Manifest m;
    m.format = j.at("format").get<int>();
    if (m.format != kCaptureFormat)
      return make_error(origin + ": capture format " + std::to_string(m.format) + " is not supported (expected " +
                        std::to_string(kCaptureFormat) + ")");
    m.kernel = j.at("kernel").get<std::string>();
    m.kernel_hash = j.value("kernel_hash", "");
    m.arch = j.value("arch", "");
    m.gpu_name = j.value("gpu_name", "");
    m.module = j.value("module", "");
    m.api = j.value("api", "");
    m.grid = dim_from(j.at("grid"));
    m.block = dim_from(j.at("block"));
    m.shared_mem = j.value("shared_mem", 0u);
    for (const auto &p : j.at("params"))
      m.params.push_back({p.at(0).get<uint32_t>(), p.at(1).get<uint32_t>()});
    auto bytes = from_hex(j.at("param_bytes").get<std::string>());
    if (!bytes) return make_error(origin + ": param_bytes: " + bytes.error().message);
    m.param_bytes = std::move(*bytes);
    for (const auto &b : j.at("buffers")) {
      auto rec = buffer_from(b);
      if (!rec) return make_error(origin + ": " + rec.error().message);
      m.buffers.push_back(std::move(*rec));
    }
    for (const auto &p : j.at("pointers")) {
      PointerRecord r{p.at("offset").get<uint32_t>(), p.at("param").get<uint32_t>(), p.at("buffer").get<uint32_t>(),
                      p.at("delta").get<uint64_t>()};
      if (r.buffer >= m.buffers.size() || r.offset + 8 > m.param_bytes.size())
        return make_error(origin + ": pointer at parameter offset " + std::to_string(r.offset) + " is out of range");
      m.pointers.push_back(r);
    }
    m.replayable = j.value("replayable", true);
    m.reason = j.value("reason", "");
    m.command = j.value("command", "");
    m.created = j.value("created", "");
    m.sequence = j.value("sequence", uint64_t{0});
    return m;
  } catch (const std::exception &e) {
    return make_error(origin + ": malformed capture manifest: " + e.what());
  }
}

CaptureInfo capture_info(const Manifest &m, const std::string &id, const std::string &path) {
  CaptureInfo c;
  c.id = id;
  c.manifest = path;
  c.kernel = file_keyed_name(m.kernel); // as the registry names it, whoever wrote the capture
  c.kernel_hash = m.kernel_hash;
  c.arch = m.arch;
  c.gpu_name = m.gpu_name;
  c.grid = m.grid;
  c.block = m.block;
  c.shared_mem = m.shared_mem;
  c.buffers = static_cast<uint32_t>(m.buffers.size());
  for (const auto &b : m.buffers)
    c.buffer_bytes += b.size;
  c.replayable = m.replayable;
  c.not_replayable_reason = m.reason;
  c.command = m.command;
  c.created = m.created;
  return c;
}

std::string BlobStore::path(const std::string &hash) const {
  return root_ + "/blobs/" + hash.substr(0, 2) + "/" + hash;
}

bool BlobStore::has(const std::string &hash) const { return file_exists(path(hash)); }

Expected<std::string> BlobStore::put(std::string_view bytes) {
  std::string hash = hash_hex(bytes);
  if (has(hash)) return hash;
  std::string packed(ZSTD_compressBound(bytes.size()), '\0');
  size_t n = ZSTD_compress(packed.data(), packed.size(), bytes.data(), bytes.size(), 1);
  if (ZSTD_isError(n)) return make_error(std::string("zstd: ") + ZSTD_getErrorName(n));
  packed.resize(n);
  auto st = write_file_atomic(path(hash), packed);
  if (!st) return st.error();
  written_ += n;
  return hash;
}

Expected<std::string> BlobStore::get(const std::string &hash) const {
  auto packed = read_file(path(hash));
  if (!packed) return make_error("capture blob " + hash + " is missing: " + packed.error().message);
  unsigned long long size = ZSTD_getFrameContentSize(packed->data(), packed->size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
    return make_error(path(hash) + ": corrupt capture blob (not zstd)");
  std::string out(size, '\0');
  size_t n = ZSTD_decompress(out.data(), out.size(), packed->data(), packed->size());
  if (ZSTD_isError(n) || n != size) return make_error(path(hash) + ": corrupt capture blob");
  if (hash_hex(out) != hash) return make_error(path(hash) + ": capture blob content does not match its name");
  return out;
}

std::vector<ByteRange> diff_ranges(std::string_view before, std::string_view after, uint64_t granule) {
  std::vector<ByteRange> out;
  uint64_t n = std::min(before.size(), after.size());
  for (uint64_t off = 0; off < n; off += granule) {
    uint64_t len = std::min(granule, n - off);
    if (std::memcmp(before.data() + off, after.data() + off, len) == 0) continue;
    if (!out.empty() && out.back().offset + out.back().size == off)
      out.back().size += len;
    else
      out.push_back({off, len});
  }
  return out;
}

Status store_after(BlobStore &store, std::string_view before, std::string_view after, BufferRecord &record) {
  auto ranges = diff_ranges(before, after);
  record.ranges.clear();
  if (ranges.empty() && before.size() == after.size()) {
    record.after_kind = AfterKind::Unchanged;
    return Status::ok();
  }
  uint64_t changed = 0;
  for (const auto &r : ranges)
    changed += r.size;
  std::string payload;
  if (before.size() != after.size() || changed * 2 > after.size()) {
    record.after_kind = AfterKind::Full;
    payload.assign(after);
  } else {
    record.after_kind = AfterKind::Ranges;
    record.ranges = ranges;
    payload.reserve(changed);
    for (const auto &r : ranges)
      payload.append(after.substr(r.offset, r.size));
  }
  auto hash = store.put(payload);
  if (!hash) return hash.error();
  record.after = *hash;
  return Status::ok();
}

Expected<std::string> load_after(const BlobStore &store, const BufferRecord &record, const std::string &before) {
  if (record.after_kind == AfterKind::Unchanged) return before;
  auto payload = store.get(record.after);
  if (!payload) return payload.error();
  if (record.after_kind == AfterKind::Full) return payload;
  std::string out = before;
  uint64_t pos = 0;
  for (const auto &r : record.ranges) {
    if (r.offset + r.size > out.size() || pos + r.size > payload->size())
      return make_error("capture buffer '" + record.name + "': changed range outside the buffer");
    std::memcpy(out.data() + r.offset, payload->data() + pos, r.size);
    pos += r.size;
  }
  return out;
}

} // namespace kbcc::gpu

#include "agent/capture_args.h"

#include "gpu/capture_format.h"
#include "support/fs.h"

#include <cstring>

namespace kbcc::agent {

Expected<CaptureArgs> read_capture_args(const gpu::CaptureInfo &c, const std::vector<tooling::Param> &params) {
  auto text = read_file(c.manifest);
  if (!text) return text.error();
  auto m = gpu::manifest_from_json(*text, c.manifest);
  if (!m) return m.error();
  CaptureArgs a;
  a.info = c;
  a.launch.grid[0] = c.grid.x, a.launch.grid[1] = c.grid.y, a.launch.grid[2] = c.grid.z;
  a.launch.block[0] = c.block.x, a.launch.block[1] = c.block.y, a.launch.block[2] = c.block.z;
  a.launch.shared = c.shared_mem;
  for (size_t i = 0; i < params.size(); ++i) {
    const tooling::Param &p = params[i];
    a.names.push_back(p.name);
    a.integers.emplace_back();
    a.pointers.emplace_back();
    if (i >= m->params.size()) continue;
    const gpu::ParamRecord &r = m->params[i];
    if (r.offset + r.size > m->param_bytes.size() || r.size > 8) continue;
    uint64_t raw = 0;
    std::memcpy(&raw, m->param_bytes.data() + r.offset, r.size);
    if (p.is_pointer && r.size == 8) a.pointers.back() = raw;
    if (p.is_integer) {
      int64_t v = static_cast<int64_t>(raw);
      if (p.is_signed && r.size < 8 && (raw >> (8 * r.size - 1)) & 1)
        v = static_cast<int64_t>(raw | (~0ull << (8 * r.size)));
      a.integers.back() = v;
    }
  }
  return a;
}

std::map<std::string, int64_t> integer_args(const CaptureArgs &a) {
  std::map<std::string, int64_t> out;
  for (size_t i = 0; i < a.names.size() && i < a.integers.size(); ++i)
    if (a.integers[i]) out[a.names[i]] = *a.integers[i];
  return out;
}

} // namespace kbcc::agent

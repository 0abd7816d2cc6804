// Listing and resolving captures under $KBCC_DIR/captures.
#include "gpu/capture_format.h"
#include "gpu/device_names.h"
#include "support/fs.h"

#include <algorithm>
#include <filesystem>

namespace kbcc::gpu {

Expected<std::vector<CaptureInfo>> list_captures(const std::string &dir, const CaptureFilter &filter) {
  std::vector<CaptureInfo> out;
  std::error_code ec;
  std::filesystem::path launches = std::filesystem::path(dir) / "launches";
  if (!std::filesystem::is_directory(launches, ec)) return out;
  for (const auto &e : std::filesystem::directory_iterator(launches, ec)) {
    if (e.path().extension() != ".json") continue;
    auto text = read_file(e.path().string());
    if (!text) return text.error();
    auto m = manifest_from_json(*text, e.path().string());
    if (!m) return m.error();
    CaptureInfo c = capture_info(*m, e.path().stem().string(), e.path().string());
    if (!filter.kernel.empty() && c.kernel != file_keyed_name(filter.kernel) && c.kernel_hash != filter.kernel)
      continue;
    if (!filter.arch.empty() && c.arch != filter.arch) continue;
    if (filter.replayable_only && !c.replayable) continue;
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const CaptureInfo &a, const CaptureInfo &b) {
    return a.created != b.created ? a.created < b.created : a.id < b.id;
  });
  return out;
}

Expected<CaptureInfo> find_capture(const std::string &dir, const std::string &ref) {
  if (ref.find('/') != std::string::npos || ref.size() > 5 && ref.substr(ref.size() - 5) == ".json") {
    auto text = read_file(ref);
    if (!text) return text.error();
    auto m = manifest_from_json(*text, ref);
    if (!m) return m.error();
    return capture_info(*m, std::filesystem::path(ref).stem().string(), real_path(ref));
  }
  auto all = list_captures(dir);
  if (!all) return all.error();
  const CaptureInfo *found = nullptr;
  for (const auto &c : *all) {
    if (c.id.rfind(ref, 0) != 0) continue;
    if (found) return make_error("capture id prefix '" + ref + "' is ambiguous in " + dir);
    found = &c;
  }
  if (!found) // a kernel's mangled name: its oldest capture
    for (const auto &c : *all)
      if (c.kernel == file_keyed_name(ref)) return c;
  if (!found) return make_error("no capture '" + ref + "' in " + dir + "/launches");
  return *found;
}

} // namespace kbcc::gpu

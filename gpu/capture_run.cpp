// `kbcc capture`: runs a program with the capture library injected.
#include "gpu/harness.h"
#include "support/fs.h"
#include "support/process.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace kbcc::gpu {

Expected<CaptureSummary> run_capture(const std::vector<std::string> &command, const CaptureOptions &o) {
  if (command.empty()) return make_error("no command given (usage: kbcc capture [options] -- <command>)");
  auto lib = capture_library_path();
  if (!lib) return lib.error();
  auto st = make_dirs(o.captures_dir + "/sessions");
  if (!st) return st.error();
  std::string session = o.captures_dir + "/sessions/" + std::to_string(::getpid()) + "-" +
                        std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) + ".json";
  std::string kernels, hashes;
  for (const auto &k : o.kernels)
    kernels += (kernels.empty() ? "" : ",") + k;
  for (const auto &[name, hash] : o.kernel_hashes)
    hashes += (hashes.empty() ? "" : ",") + name + "=" + hash;
  ProcessOptions po;
  po.capture = false;
  po.stdin_inherit = true;
  po.env_set = {{"CUDA_INJECTION64_PATH", *lib},
                {"CUDA_MODULE_LOADING", "EAGER"},
                {"KBCC_CAPTURE_DIR", o.captures_dir},
                {"KBCC_CAPTURE_SESSION", session},
                {"KBCC_CAPTURE_KERNELS", kernels},
                {"KBCC_CAPTURE_HASHES", hashes},
                {"KBCC_CAPTURE_MAX_LAUNCHES", std::to_string(o.max_launches)},
                {"KBCC_CAPTURE_MAX_BYTES", std::to_string(o.max_bytes)},
                {"KBCC_CAPTURE_SIZE_CAP", std::to_string(o.size_cap)},
                {"KBCC_CAPTURE_COMMAND", shell_join(command)}};
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_process(command, po);
  if (!r) return r.error();
  CaptureSummary s;
  s.exit_code = r->exit_code;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!file_exists(session)) return s; // the program made no CUDA call (or died before the first capture)
  auto session_summary = read_capture_session(session);
  if (!session_summary) return session_summary.error();
  session_summary->exit_code = s.exit_code;
  session_summary->seconds = s.seconds;
  return session_summary;
}

Expected<CaptureSummary> read_capture_session(const std::string &session) {
  CaptureSummary s;
  auto text = read_file(session);
  if (!text) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error(session + ": unreadable capture session summary");
  const nlohmann::json counts = j.value("counts", nlohmann::json::object());
  const nlohmann::json ids = j.value("ids", nlohmann::json::array());
  for (const auto &[k, v] : counts.items())
    if (v.is_number_unsigned()) s.counts[k] = v.get<uint64_t>();
  for (const auto &id : ids)
    if (id.is_string()) s.ids.push_back(id.get<std::string>());
  s.used = j.value("used", uint64_t{0});
  const nlohmann::json kernels = j.value("kernels", nlohmann::json::object());
  for (const auto &[name, k] : kernels.items()) {
    if (!k.is_object()) continue;
    KernelTally &t = s.kernels[name];
    t.launches = k.value("launches", uint64_t{0});
    t.captured = k.value("captured", uint64_t{0});
    t.replayable = k.value("replayable", uint64_t{0});
    t.skipped_limit = k.value("skipped_limit", uint64_t{0});
    t.skipped_size = k.value("skipped_size", uint64_t{0});
    t.skipped_cap = k.value("skipped_cap", uint64_t{0});
    t.skipped_other = k.value("skipped_other", uint64_t{0});
    t.smallest_capped = k.value("smallest_capped", uint64_t{0});
    t.cap_needed = k.value("cap_needed", uint64_t{0});
    t.not_replayable = k.value("not_replayable", "");
  }
  return s;
}

std::map<std::string, KernelTally> capture_session_tallies(const std::string &captures_dir) {
  std::map<std::string, KernelTally> out;
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator(captures_dir + "/sessions", ec)) {
    if (e.path().extension() != ".json") continue;
    auto s = read_capture_session(e.path().string());
    if (!s) continue; // a session still being written, or damaged: it only informs
    for (const auto &[name, t] : s->kernels) {
      KernelTally &sum = out[name];
      sum.launches += t.launches, sum.captured += t.captured, sum.replayable += t.replayable;
      sum.skipped_limit += t.skipped_limit, sum.skipped_size += t.skipped_size, sum.skipped_cap += t.skipped_cap;
      sum.skipped_other += t.skipped_other;
      if (t.smallest_capped && (!sum.smallest_capped || t.smallest_capped < sum.smallest_capped))
        sum.smallest_capped = t.smallest_capped;
      sum.cap_needed = std::max(sum.cap_needed, t.cap_needed);
      if (!t.not_replayable.empty()) sum.not_replayable = t.not_replayable;
    }
  }
  return out;
}

} // namespace kbcc::gpu

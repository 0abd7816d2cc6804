// `kbcc capture`: runs a program with the capture library injected.
#include "gpu/harness.h"
#include "support/fs.h"
#include "support/process.h"

#include <chrono>
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
  auto text = read_file(session);
  if (!text) return s; // the program made no CUDA call (or died before the first capture)
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return make_error(session + ": unreadable capture session summary");
  const nlohmann::json counts = j.value("counts", nlohmann::json::object());
  const nlohmann::json ids = j.value("ids", nlohmann::json::array());
  for (const auto &[k, v] : counts.items())
    if (v.is_number_unsigned()) s.counts[k] = v.get<uint64_t>();
  for (const auto &id : ids)
    if (id.is_string()) s.ids.push_back(id.get<std::string>());
  return s;
}

} // namespace kbcc::gpu

#include "gpu/runtime/replay.h"

#include "gpu/analysis.h"
#include "gpu/device_names.h"
#include "support/fs.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>
#include <unistd.h>

namespace kbcc::gpu::runtime {

void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS) return;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  throw CudaError(std::string(what) + ": " + (name ? name : "?") + " (" + (text ? text : "") + ")");
}

Replay::Replay(const std::string &manifest_path, const std::map<unsigned, std::string> &types)
    : store_(std::filesystem::path(manifest_path).parent_path().parent_path().string()),
      capture_(std::filesystem::path(manifest_path).stem().string()) {
  auto text = read_file(manifest_path);
  if (!text) throw std::runtime_error(text.error().message);
  auto m = manifest_from_json(*text, manifest_path);
  if (!m) throw std::runtime_error(m.error().message);
  m_ = std::move(*m);
  for (const auto &b : m_.buffers) {
    auto before = store_.get(b.before);
    if (!before) throw std::runtime_error(before.error().message);
    auto after = load_after(store_, b, *before);
    if (!after) throw std::runtime_error(after.error().message);
    before_.push_back(std::move(*before));
    after_.push_back(std::move(*after));
    types_.push_back(element_type_from_name(b.type));
  }
  for (size_t i = 0; i < before_.size(); ++i)
    written_.push_back(before_[i] != after_[i]);
  for (const auto &[param, type] : types)
    for (const auto &p : m_.pointers)
      if (p.param == param && p.param < m_.params.size() && p.offset == m_.params[p.param].offset)
        types_[p.buffer] = element_type_from_name(type);
}

namespace {

// Bytes that every replay's memo holds together.
std::atomic<uint64_t> memo_total{0};

uint64_t bytes_of(const Replay::Buffers &b) {
  uint64_t n = 0;
  for (const std::string &s : b)
    n += s.size();
  return n;
}

} // namespace

uint64_t Replay::memo_budget() {
  static const uint64_t budget = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    uint64_t host = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
    return std::min<uint64_t>(host / 4, 32ull << 30);
  }();
  return budget;
}

Replay::~Replay() {
  memo_total -= memo_bytes_;
  for (auto &[path, mod] : modules_) {
    for (CUdeviceptr p : mod.owned)
      cuMemFree(p);
    if (mod.mod) cuModuleUnload(mod.mod);
  }
  for (CUdeviceptr p : alloc_)
    if (p) cuMemFree(p);
  for (CUevent e : {start_, stop_})
    if (e) cuEventDestroy(e);
}

std::string Replay::params(const std::map<unsigned, int64_t> &overrides) const {
  std::string bytes = m_.param_bytes;
  for (const auto &[index, value] : overrides) {
    if (index >= m_.params.size()) throw std::runtime_error("no parameter " + std::to_string(index));
    const ParamRecord &p = m_.params[index];
    if (p.size > 8 || p.offset + p.size > bytes.size())
      throw std::runtime_error("parameter " + std::to_string(index) + " is not a scalar");
    std::memcpy(bytes.data() + p.offset, &value, p.size); // little-endian: the low bytes
  }
  return bytes;
}

Replay::SharedBuffers Replay::memo(const std::string &key, const std::function<Buffers()> &make) {
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  auto made = std::make_shared<const Buffers>(make());
  uint64_t bytes = bytes_of(*made);
  if (memo_total + bytes > memo_budget()) return made;
  memo_total += bytes;
  memo_bytes_ += bytes;
  return memo_.emplace(key, made).first->second;
}

std::vector<double> Replay::magnitudes(const std::string &key, const Buffers &ref) {
  if (auto it = magnitudes_.find(key); !key.empty() && it != magnitudes_.end()) return it->second;
  std::vector<double> m(ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    m[i] = max_abs_value(type(i), ref[i]);
  if (!key.empty()) magnitudes_[key] = m;
  return m;
}

const Replay::Calibration &Replay::calibration(const std::string &key, const std::function<Calibration()> &make) {
  auto it = calibrations_.find(key);
  if (it == calibrations_.end()) it = calibrations_.emplace(key, make()).first;
  return it->second;
}

Module &Replay::module(const std::string &cubin) {
  auto it = modules_.find(cubin);
  if (it != modules_.end()) return it->second;
  return modules_.emplace(cubin, load(cubin)).first->second;
}

namespace {

// The only one of `names` whose form `form(n)` is `form(name)`; "" if none
// or several are.
template <typename Form>
std::string only_match(const std::string &name, const std::vector<std::string> &names, Form form) {
  std::string found, key = form(name);
  for (const std::string &n : names)
    if (form(n) == key) {
      if (!found.empty()) return "";
      found = n;
    }
  return found;
}

// The name `name` has in a module whose entries or globals are `names`: the
// same, or, for one declared in an anonymous namespace, the only one with
// the same file-keyed form, else the same unit-free form (gpu/device_names.h:
// a module linked from several units may hold one per unit); "" when none.
std::string name_in_module(const std::string &name, const std::vector<std::string> &names) {
  if (std::find(names.begin(), names.end(), name) != names.end()) return name;
  if (!has_unit_component(name)) return "";
  std::string keyed = only_match(name, names, [](const std::string &n) { return file_keyed_name(n); });
  return !keyed.empty() ? keyed : only_match(name, names, [](const std::string &n) { return unit_free_name(n); });
}

} // namespace

Module Replay::load(const std::string &cubin_path) {
  std::string image;
  if (cubin_path.empty()) {
    if (m_.module.empty()) throw std::runtime_error("the capture holds no module cubin");
    auto blob = store_.get(m_.module);
    if (!blob) throw std::runtime_error(blob.error().message);
    image = std::move(*blob);
  } else {
    auto f = read_file(cubin_path);
    if (!f) throw std::runtime_error(f.error().message);
    image = std::move(*f);
  }
  auto info = inspect_cubin(image);
  std::vector<std::string> globals; // the module's own __device__/__constant__ variables
  if (info)
    for (const auto &g : info->globals)
      globals.push_back(g.name);
  std::string kernel = m_.kernel;
  if (std::string in_module = info ? name_in_module(m_.kernel, info->kernels) : ""; !in_module.empty())
    kernel = in_module;
  Module mod;
  check(cuModuleLoadData(&mod.mod, image.data()), "cuModuleLoadData");
  if (cuModuleGetFunction(&mod.fn, mod.mod, kernel.c_str()) != CUDA_SUCCESS) {
    cuModuleUnload(mod.mod);
    throw std::runtime_error("cubin " + (cubin_path.empty() ? "(captured)" : cubin_path) + " has no kernel " +
                             m_.kernel);
  }
  if (alloc_.empty()) {
    alloc_.assign(m_.buffers.size(), 0);
    for (size_t i = 0; i < m_.buffers.size(); ++i)
      if (m_.buffers[i].global.empty()) {
        check(cuMemAlloc(&alloc_[i], std::max<uint64_t>(m_.buffers[i].size, 1)), "cuMemAlloc");
        device_bytes_ += m_.buffers[i].size;
      }
  }
  mod.addr = alloc_;
  auto may_use = globals_kernel_may_use(image, kernel);
  for (size_t i = 0; i < m_.buffers.size(); ++i) {
    const BufferRecord &b = m_.buffers[i];
    if (b.global.empty()) continue;
    size_t size = 0;
    // The compiler's own data (string literals: another module numbers them
    // its own way) is never shared with the capture.
    std::string global = name_in_module(b.global, globals);
    bool own = !global.empty() && !(!cubin_path.empty() && is_compiler_generated_global(b.global));
    if (own && cuModuleGetGlobal(&mod.addr[i], &size, mod.mod, global.c_str()) == CUDA_SUCCESS) {
      if (size == b.size) continue;
      GlobalMismatch gm{global, kernel, capture_, cubin_path, b.size, size};
      if (std::string e = global_mismatch(gm, may_use); !e.empty()) throw std::runtime_error(e);
    }
    // A module without this global (a variant that does not use it, or one
    // the kernel cannot reach): a private copy.
    check(cuMemAlloc(&mod.addr[i], std::max<uint64_t>(b.size, 1)), "cuMemAlloc");
    mod.owned.push_back(mod.addr[i]);
    device_bytes_ += b.size;
  }
  return mod;
}

void Replay::upload(const Module &m, const std::vector<std::string> &inputs, CUstream stream) {
  for (size_t i = 0; i < inputs.size(); ++i)
    check(stream ? cuMemcpyHtoDAsync(m.addr[i], inputs[i].data(), inputs[i].size(), stream)
                 : cuMemcpyHtoD(m.addr[i], inputs[i].data(), inputs[i].size()),
          "cuMemcpyHtoD");
}

void Replay::launch(Module &m, const Shape &shape, const std::string &params, CUstream stream) {
  std::string bytes = params;
  for (const auto &p : m_.pointers) {
    uint64_t w = m.addr[p.buffer] + p.delta;
    std::memcpy(bytes.data() + p.offset, &w, 8);
  }
  std::vector<void *> args;
  for (const auto &p : m_.params)
    args.push_back(bytes.data() + p.offset);
  if (shape.shared > 48 * 1024 && shape.shared > m.shared_opt_in) {
    check(cuFuncSetAttribute(m.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(shape.shared)),
          "cuFuncSetAttribute(max dynamic shared memory)");
    m.shared_opt_in = shape.shared;
  }
  check(cuLaunchKernel(m.fn, shape.grid.x, shape.grid.y, shape.grid.z, shape.block.x, shape.block.y, shape.block.z,
                       shape.shared, stream, args.data(), nullptr),
        "cuLaunchKernel");
}

void Replay::download(const Module &m, std::vector<std::string> &out) {
  out.resize(m_.buffers.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].resize(m_.buffers[i].size);
    check(cuMemcpyDtoH(out[i].data(), m.addr[i], out[i].size()), "cuMemcpyDtoH");
  }
}

std::vector<std::string> Replay::run(Module &m, const std::vector<std::string> &inputs, const Shape &shape,
                                     const std::string &params) {
  std::vector<std::string> out;
  run_into(m, inputs, shape, params, out);
  return out;
}

const std::vector<std::string> &Replay::run_scratch(Module &m, const std::vector<std::string> &inputs,
                                                    const Shape &shape, const std::string &params) {
  run_into(m, inputs, shape, params, scratch_);
  return scratch_;
}

float Replay::wait(CUevent start, CUevent stop) {
  using clock = std::chrono::steady_clock;
  const double limit_ms = longest_ms_ > 0 ? std::max(kWatchdogFloorMs, kWatchdogFactor * longest_ms_) : 0;
  const auto begun = clock::now();
  for (;;) {
    CUresult r = cuEventQuery(stop);
    if (r == CUDA_SUCCESS) break;
    if (r != CUDA_ERROR_NOT_READY) check(r, "kernel execution");
    double waited_ms = std::chrono::duration<double, std::milli>(clock::now() - begun).count();
    if (limit_ms > 0 && waited_ms > limit_ms) {
      char text[160];
      std::snprintf(text, sizeof text, "kernel execution: still running after %.0f ms (the longest finished: %.3f ms)",
                    waited_ms, longest_ms_);
      throw KernelTimeout(text);
    }
    if (waited_ms < 10)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  float ms = 0;
  check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  longest_ms_ = std::max<double>(longest_ms_, ms);
  return ms;
}

void Replay::run_into(Module &m, const std::vector<std::string> &inputs, const Shape &shape, const std::string &params,
                      std::vector<std::string> &out) {
  for (CUevent *e : {&start_, &stop_})
    if (!*e) check(cuEventCreate(e, CU_EVENT_DEFAULT), "cuEventCreate");
  upload(m, inputs);
  check(cuEventRecord(start_, nullptr), "cuEventRecord");
  launch(m, shape, params);
  check(cuEventRecord(stop_, nullptr), "cuEventRecord");
  wait(start_, stop_);
  download(m, out);
}

} // namespace kbcc::gpu::runtime

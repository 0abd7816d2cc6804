// libkbcc_capture.so: CUPTI injection library (CUDA_INJECTION64_PATH) that
// records kernel launches for `kbcc capture`. Configuration comes from the
// environment kbcc sets: KBCC_CAPTURE_DIR, KBCC_CAPTURE_SESSION,
// KBCC_CAPTURE_KERNELS (comma list of mangled names; empty = all),
// KBCC_CAPTURE_HASHES (comma list of mangled=registry-hash),
// KBCC_CAPTURE_MAX_LAUNCHES, KBCC_CAPTURE_MAX_BYTES, KBCC_CAPTURE_SIZE_CAP,
// KBCC_CAPTURE_COMMAND. It never changes what the program computes: anything
// unusual (stream capture, graphs, errors) skips the launch and counts it.
#include "gpu/analysis.h"
#include "gpu/capture_format.h"
#include "gpu/capture_policy.h"
#include "gpu/device_names.h"
#include "support/fs.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda.h>
#include <cupti.h>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

namespace kbcc::gpu {
namespace {

struct ModuleInfo {
  std::string cubin; // ELF bytes
  std::string blob;  // blob hash once stored
  std::vector<CubinGlobal> globals;
  unsigned sm = 0;
};

struct Pending { // state between the ENTER and EXIT callbacks of one launch
  Manifest manifest;  // names the kernel in the file-keyed form (gpu/device_names.h)
  std::string symbol; // the kernel's name in its module
  std::vector<std::string> before;
  std::vector<uint64_t> device_ptr; // where each buffer lives now
};

struct State {
  std::mutex mu;
  std::string dir, session, command;
  std::set<std::string> kernels;             // file-keyed names (gpu/device_names.h)
  std::map<std::string, std::string> hashes; // file-keyed name -> registry hash
  std::unique_ptr<CapturePolicy> policy;     // which launches are recorded (gpu/capture_policy.h)
  uint64_t used = 0;                         // bytes under dir
  std::map<std::string, uint64_t> counts;
  std::vector<std::string> ids;
  std::vector<std::unique_ptr<ModuleInfo>> modules;
  std::unordered_map<std::string, ModuleInfo *> module_of; // kernel name -> module
  std::atomic<int> active_stream_captures{0};
  uint64_t sequence = 0;
  std::unique_ptr<BlobStore> blobs;
};

State &state() {
  static State *s = new State; // never destroyed: callbacks may run during exit
  return *s;
}

thread_local bool in_callback = false;
thread_local std::unordered_map<uint32_t, Pending> pending;

std::string env_or(const char *name, const std::string &fallback) {
  const char *v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string now_iso() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void count(const std::string &what, uint64_t n = 1) { state().counts[what] += n; }

void write_session() {
  State &s = state();
  if (s.session.empty() || !s.policy) return;
  std::ostringstream o;
  o << "{\n \"counts\": {";
  bool first = true;
  for (const auto &[k, v] : s.counts) {
    o << (first ? "" : ", ") << "\"" << k << "\": " << v;
    first = false;
  }
  o << "},\n \"ids\": [";
  for (size_t i = 0; i < s.ids.size(); ++i)
    o << (i ? ", " : "") << "\"" << s.ids[i] << "\"";
  o << "],\n \"used\": " << s.used << ",\n \"size_cap\": " << s.policy->limits().size_cap << ",\n \"kernels\": {";
  first = true;
  for (const auto &[name, t] : s.policy->kernels()) {
    o << (first ? "\n" : ",\n") << "  \"" << name << "\": {\"launches\": " << t.launches
      << ", \"captured\": " << t.captured << ", \"replayable\": " << t.replayable
      << ", \"skipped_limit\": " << t.skipped_limit << ", \"skipped_size\": " << t.skipped_size
      << ", \"skipped_cap\": " << t.skipped_cap << ", \"skipped_other\": " << t.skipped_other
      << ", \"smallest_capped\": " << t.smallest_capped << ", \"cap_needed\": " << t.cap_needed
      << ", \"not_replayable\": \"" << t.not_replayable << "\"}";
    first = false;
  }
  o << "}\n}\n";
  (void)write_file_atomic(s.session, o.str());
}

std::string arch_of(CUcontext ctx, std::string &gpu_name) {
  CUdevice dev;
  if (cuCtxGetDevice(&dev) != CUDA_SUCCESS) return "";
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, dev);
  gpu_name = name;
  return "sm_" + std::to_string(major * 10 + minor);
}

// Parameter layout: CUkernel (cudart) first, then CUfunction (driver API).
bool param_layout(CUfunction f, std::vector<ParamRecord> &out) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    out.clear();
    for (size_t i = 0;; ++i) {
      size_t off = 0, size = 0;
      CUresult r = attempt == 0 ? cuKernelGetParamInfo(reinterpret_cast<CUkernel>(f), i, &off, &size)
                                : cuFuncGetParamInfo(f, i, &off, &size);
      if (r != CUDA_SUCCESS) {
        if (i > 0 || r == CUDA_ERROR_INVALID_VALUE) return true; // past the last parameter (or none)
        break;
      }
      out.push_back({static_cast<uint32_t>(off), static_cast<uint32_t>(size)});
    }
  }
  return false;
}

// The parameter buffer as one byte string.
bool param_bytes(const std::vector<ParamRecord> &layout, void **kernel_params, void **extra, std::string &out) {
  uint32_t end = 0;
  for (const auto &p : layout)
    end = std::max(end, p.offset + p.size);
  out.assign(end, '\0');
  if (kernel_params) {
    for (size_t i = 0; i < layout.size(); ++i)
      std::memcpy(out.data() + layout[i].offset, kernel_params[i], layout[i].size);
    return true;
  }
  for (size_t i = 0; extra && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
      std::memcpy(out.data(), extra[i + 1], end);
      return true;
    }
  }
  return layout.empty();
}

struct Allocation {
  uint64_t base = 0, size = 0;
  unsigned memory_type = 0;
};

bool allocation_of(uint64_t word, Allocation &a) {
  if (word < 4096) return false;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  unsigned type = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  void *data[] = {&type, &start, &size};
  if (cuPointerGetAttributes(3, attrs, data, static_cast<CUdeviceptr>(word)) != CUDA_SUCCESS) return false;
  if (type == 0 || start == 0 || size == 0) return false;
  a = {static_cast<uint64_t>(start), static_cast<uint64_t>(size), type};
  return true;
}

// Finds the pointer words of the parameter buffer and the allocations they
// point into. Returns a reason when the launch cannot be replayed.
std::string find_buffers(Manifest &m, const std::vector<std::string> &pointee_types) {
  std::string reason;
  for (size_t pi = 0; pi < m.params.size(); ++pi) {
    const auto &p = m.params[pi];
    for (uint32_t off = (p.offset + 7) & ~7u; off + 8 <= p.offset + p.size; off += 8) {
      uint64_t word;
      std::memcpy(&word, m.param_bytes.data() + off, 8);
      Allocation a;
      if (!allocation_of(word, a)) continue;
      if (a.memory_type == CU_MEMORYTYPE_HOST) {
        reason = "host-memory";
        continue;
      }
      uint32_t index = 0;
      while (index < m.buffers.size() && m.buffers[index].base != a.base)
        ++index;
      if (index == m.buffers.size()) {
        BufferRecord b;
        b.base = a.base;
        b.size = a.size;
        b.name = "param" + std::to_string(pi) + (off == p.offset ? "" : "+" + std::to_string(off - p.offset));
        m.buffers.push_back(b);
      }
      bool whole_param = off == p.offset && p.size == 8;
      if (whole_param && pi < pointee_types.size() && !pointee_types[pi].empty() && m.buffers[index].type == "bytes")
        m.buffers[index].type = element_type_name(element_type_from_name(pointee_types[pi]));
      m.pointers.push_back({off, static_cast<uint32_t>(pi), index, word - a.base});
    }
  }
  return reason;
}

// Adds the module's __device__/__constant__ variables as buffers.
std::string add_globals(CUfunction f, const ModuleInfo &mod, Manifest &m, std::vector<uint64_t> &where) {
  CUlibrary lib = nullptr;
  CUmodule cu_mod = nullptr;
  bool have_lib = cuKernelGetLibrary(&lib, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS;
  if (!have_lib && cuFuncGetModule(&cu_mod, f) != CUDA_SUCCESS) return "module-globals";
  for (const auto &g : mod.globals) {
    CUdeviceptr ptr = 0;
    size_t size = 0;
    CUresult r = have_lib ? cuLibraryGetGlobal(&ptr, &size, lib, g.name.c_str())
                          : cuModuleGetGlobal(&ptr, &size, cu_mod, g.name.c_str());
    if (r != CUDA_SUCCESS) return "module-globals";
    BufferRecord b;
    b.base = ptr;
    b.size = size;
    b.global = g.name;
    b.name = g.name;
    m.buffers.push_back(b);
    where.push_back(ptr);
  }
  return "";
}

bool copy_out(const std::vector<uint64_t> &where, const std::vector<BufferRecord> &bufs,
              std::vector<std::string> &out) {
  out.resize(bufs.size());
  for (size_t i = 0; i < bufs.size(); ++i) {
    out[i].assign(bufs[i].size, '\0');
    if (cuMemcpyDtoH(out[i].data(), where[i], bufs[i].size) != CUDA_SUCCESS) return false;
  }
  return true;
}

// True when `word` points into device memory (cached per 2 MB page).
bool is_device_address(uint64_t word, std::unordered_map<uint64_t, bool> &pages) {
  if (word < (1ull << 32) || word >= (1ull << 48) || (word & 3)) return false;
  auto [it, fresh] = pages.try_emplace(word >> 21, false);
  if (fresh) {
    Allocation a;
    it->second = allocation_of(word, a) && a.memory_type != CU_MEMORYTYPE_HOST;
  }
  return it->second;
}

// Whether a buffer may hold device pointers: its element type is unknown
// (bytes, structs) or a 64-bit integer. Two 32-bit indexes or a double are
// not pointers, however their bits read as one word.
bool may_hold_pointers(const BufferRecord &b) {
  ElementType t = element_type_from_name(b.type);
  return t == ElementType::Bytes || t == ElementType::I64 || t == ElementType::U64;
}

// Pointers stored inside the captured memory cannot be relocated by replay:
// words that point into this launch's buffers or into any device allocation.
bool holds_pointers(const Manifest &m, const std::vector<std::string> &contents) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto &b : m.buffers) {
    lo = std::min(lo, b.base);
    hi = std::max(hi, b.base + b.size);
  }
  std::unordered_map<uint64_t, bool> pages;
  for (size_t i = 0; i < contents.size() && i < m.buffers.size(); ++i) {
    if (!may_hold_pointers(m.buffers[i])) continue;
    const std::string &c = contents[i];
    for (size_t off = 0; off + 8 <= c.size(); off += 8) {
      uint64_t w;
      std::memcpy(&w, c.data() + off, 8);
      if (w >= lo && w < hi)
        for (const auto &b : m.buffers)
          if (w >= b.base && w < b.base + b.size) return true;
      if (is_device_address(w, pages)) return true;
    }
  }
  return false;
}

void on_launch_enter(const CUpti_CallbackData *cb, CUfunction f, Dim3 grid, Dim3 block, uint32_t smem, CUstream stream,
                     void **kparams, void **extra, const char *api) {
  State &s = state();
  std::string symbol = cb->symbolName ? cb->symbolName : "";
  std::string name = file_keyed_name(symbol);
  std::lock_guard<std::mutex> lock(s.mu);
  count("launches");
  if (name.empty() || (!s.kernels.empty() && !s.kernels.count(name))) return count("skipped_filter");
  CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
  if (s.active_stream_captures.load() > 0 || cuStreamIsCapturing(stream, &cs) != CUDA_SUCCESS ||
      cs != CU_STREAM_CAPTURE_STATUS_NONE) {
    s.policy->skipped_other(name);
    return count("skipped_stream_capture");
  }
  std::string config = std::to_string(grid.x) + "," + std::to_string(grid.y) + "," + std::to_string(grid.z) + "/" +
                       std::to_string(block.x) + "," + std::to_string(block.y) + "," + std::to_string(block.z) + "/" +
                       std::to_string(smem);

  Pending p;
  Manifest &m = p.manifest;
  p.symbol = symbol;
  m.kernel = name;
  if (auto h = s.hashes.find(name); h != s.hashes.end()) m.kernel_hash = h->second;
  m.api = api;
  m.grid = grid;
  m.block = block;
  m.shared_mem = smem;
  m.command = s.command;
  m.sequence = ++s.sequence;
  if (!param_layout(f, m.params) || !param_bytes(m.params, kparams, extra, m.param_bytes)) {
    s.policy->skipped_other(name);
    return count("errors");
  }
  std::string reason = find_buffers(m, mangled_pointee_types(name));
  for (const auto &b : m.buffers)
    p.device_ptr.push_back(b.base);
  auto mod = s.module_of.find(symbol);
  if (mod == s.module_of.end()) {
    reason = reason.empty() ? "no-module" : reason;
  } else {
    std::string r = add_globals(f, *mod->second, m, p.device_ptr);
    if (reason.empty()) reason = r;
  }
  uint64_t total = 0;
  for (const auto &b : m.buffers)
    total += b.size;
  switch (s.policy->decide(name, config, total, s.used)) {
  case CaptureVerdict::SkipLimit:
    return count("skipped_limit");
  case CaptureVerdict::SkipSize:
    return count("skipped_size");
  case CaptureVerdict::SkipCap:
    return count("skipped_cap");
  case CaptureVerdict::Capture:
    break;
  }
  if (cuCtxSynchronize() != CUDA_SUCCESS || !copy_out(p.device_ptr, m.buffers, p.before)) {
    s.policy->failed(name);
    return count("errors");
  }
  if (reason.empty() && holds_pointers(m, p.before)) reason = "pointers-in-buffers";
  m.replayable = reason.empty();
  m.reason = reason;
  pending[cb->correlationId] = std::move(p);
}

Status store_capture(Pending &p, std::vector<std::string> &after) {
  State &s = state();
  Manifest &m = p.manifest;
  auto mod = s.module_of.find(p.symbol);
  if (mod != s.module_of.end()) {
    ModuleInfo &info = *mod->second;
    if (info.blob.empty()) {
      auto h = s.blobs->put(info.cubin);
      if (!h) return h.error();
      info.blob = *h;
    }
    m.module = info.blob;
  }
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    auto h = s.blobs->put(p.before[i]);
    if (!h) return h.error();
    m.buffers[i].before = *h;
    auto st = store_after(*s.blobs, p.before[i], after[i], m.buffers[i]);
    if (!st) return st;
  }
  m.created = now_iso();
  std::string id = manifest_id(m);
  std::string text = manifest_to_json(m);
  std::string path = s.dir + "/launches/" + id + ".json";
  if (!file_exists(path)) {
    auto st = write_file_atomic(path, text);
    if (!st) return st;
  }
  s.used = tree_size(s.dir);
  s.ids.push_back(id);
  return Status::ok();
}

void on_launch_exit(const CUpti_CallbackData *cb) {
  auto it = pending.find(cb->correlationId);
  if (it == pending.end()) return;
  Pending p = std::move(it->second);
  pending.erase(it);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  CUresult launch_result = *static_cast<const CUresult *>(cb->functionReturnValue);
  std::vector<std::string> after;
  if (launch_result != CUDA_SUCCESS || cuCtxSynchronize() != CUDA_SUCCESS ||
      !copy_out(p.device_ptr, p.manifest.buffers, after)) {
    s.policy->failed(p.manifest.kernel);
    return count("errors");
  }
  std::string arch = arch_of(cb->context, p.manifest.gpu_name);
  p.manifest.arch = arch;
  auto st = store_capture(p, after);
  if (!st) {
    std::fprintf(stderr, "kbcc capture: %s\n", st.error().message.c_str());
    s.policy->failed(p.manifest.kernel);
    return count("errors");
  }
  s.policy->stored(p.manifest.kernel, "", p.manifest.reason);
  count("captured");
  if (!p.manifest.replayable) count("not_replayable");
  write_session();
}

void on_module_loaded(const CUpti_ResourceData *rd) {
  auto *md = static_cast<const CUpti_ModuleResourceData *>(rd->resourceDescriptor);
  if (!md || !md->pCubin || md->cubinSize == 0) return;
  std::string_view elf(md->pCubin, md->cubinSize);
  auto info = inspect_cubin(elf);
  if (!info) return; // PTX or another format: kernels from it are not replayable
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  bool wanted = s.kernels.empty();
  for (const auto &k : info->kernels)
    wanted = wanted || s.kernels.count(file_keyed_name(k));
  if (!wanted) return;
  auto mod = std::make_unique<ModuleInfo>();
  mod->cubin.assign(elf);
  mod->globals = info->globals;
  mod->sm = info->sm;
  for (const auto &k : info->kernels)
    s.module_of[k] = mod.get();
  s.modules.push_back(std::move(mod));
}

void CUPTIAPI callback(void *, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data) {
  if (in_callback) return;
  in_callback = true;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    on_module_loaded(static_cast<const CUpti_ResourceData *>(data));
    in_callback = false;
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) {
    in_callback = false;
    return;
  }
  const auto *cb = static_cast<const CUpti_CallbackData *>(data);
  bool enter = cb->callbackSite == CUPTI_API_ENTER;
  State &s = state();
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    if (enter) {
      const auto *a = static_cast<const cuLaunchKernel_params *>(cb->functionParams);
      on_launch_enter(cb, a->f, {a->gridDimX, a->gridDimY, a->gridDimZ}, {a->blockDimX, a->blockDimY, a->blockDimZ},
                      a->sharedMemBytes, a->hStream, a->kernelParams, a->extra, "cuLaunchKernel");
    } else {
      on_launch_exit(cb);
    }
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    if (enter) {
      const auto *a = static_cast<const cuLaunchKernelEx_params *>(cb->functionParams);
      const CUlaunchConfig *c = a->config;
      on_launch_enter(cb, a->f, {c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ},
                      c->sharedMemBytes, c->hStream, a->kernelParams, a->extra, "cuLaunchKernelEx");
    } else {
      on_launch_exit(cb);
    }
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
    if (enter) {
      std::lock_guard<std::mutex> lock(s.mu);
      count("graph_launches");
    }
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
    // Counted from ENTER so that no launch slips in while the capture starts.
    if (enter)
      s.active_stream_captures++;
    else if (*static_cast<const CUresult *>(cb->functionReturnValue) != CUDA_SUCCESS)
      s.active_stream_captures--;
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
    if (!enter) s.active_stream_captures--;
    break;
  default:
    break;
  }
  in_callback = false;
}

void at_exit() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  write_session();
}

} // namespace
} // namespace kbcc::gpu

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace kbcc::gpu;
  State &s = state();
  s.dir = env_or("KBCC_CAPTURE_DIR", "");
  if (s.dir.empty()) return 0;
  s.session = env_or("KBCC_CAPTURE_SESSION", "");
  s.command = env_or("KBCC_CAPTURE_COMMAND", "");
  std::stringstream list(env_or("KBCC_CAPTURE_KERNELS", ""));
  for (std::string k; std::getline(list, k, ',');)
    if (!k.empty()) s.kernels.insert(file_keyed_name(k));
  std::stringstream hashes(env_or("KBCC_CAPTURE_HASHES", ""));
  for (std::string kv; std::getline(hashes, kv, ',');)
    if (auto eq = kv.find('='); eq != std::string::npos)
      s.hashes[file_keyed_name(kv.substr(0, eq))] = kv.substr(eq + 1);
  CaptureLimits limits;
  limits.max_launches = static_cast<unsigned>(std::stoul(env_or("KBCC_CAPTURE_MAX_LAUNCHES", "4")));
  limits.max_bytes = std::stoull(env_or("KBCC_CAPTURE_MAX_BYTES", std::to_string(256ull << 20)));
  limits.size_cap = std::stoull(env_or("KBCC_CAPTURE_SIZE_CAP", std::to_string(1ull << 30)));
  s.policy = std::make_unique<CapturePolicy>(limits);
  s.blobs = std::make_unique<BlobStore>(s.dir);
  (void)kbcc::make_dirs(s.dir + "/launches");
  s.used = kbcc::tree_size(s.dir);
  CUpti_SubscriberHandle sub;
  if (cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(callback), nullptr) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "kbcc capture: cannot subscribe to CUPTI callbacks; nothing is captured\n");
    return 0;
  }
  for (CUpti_CallbackId id :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz})
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id);
  cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
  std::atexit(at_exit);
  return 1;
}

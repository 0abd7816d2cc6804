// kbcc-gpu: the only kbcc program that talks to the GPU for replay. kbcc
// spawns it and reads one JSON object from its stdout, so a faulting variant
// (illegal address: the CUDA context is lost) ends this process only.
//
//   kbcc-gpu info
//   kbcc-gpu replay --capture M [--cubin V] [--calibrate] [--fuzz N --seed S --scale X] [--type P=T]...
//   kbcc-gpu time   --capture M [--cubin V] [--runs o,v,o] [--warmup W] [--reps R] [--no-flush]
//   kbcc-gpu launch --capture M [--cubin V] [--count N]      (for ncu / compute-sanitizer)
// --reference R (any verb): R replaces the captured module as the original,
// e.g. the kernel recompiled for this GPU when the capture comes from another arch.
#include "gpu/analysis.h"
#include "gpu/capture_format.h"
#include "support/fs.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <stdexcept>

using nlohmann::json;
namespace kg = kbcc::gpu;

namespace {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS) return;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  throw CudaError(std::string(what) + ": " + (name ? name : "?") + " (" + (text ? text : "") + ")");
}

struct Args {
  std::string verb, capture, cubin, reference, runs = "o";
  bool calibrate = false, flush = true;
  unsigned fuzz = 0, warmup = 5, reps = 50, count = 1;
  uint64_t seed = 1;
  double scale = 0.25;
  std::map<unsigned, std::string> types;
  int device = 0;
};

Args parse_args(int argc, char **argv) {
  Args a;
  if (argc > 1) a.verb = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(k + " needs a value");
      return argv[++i];
    };
    if (k == "--capture")
      a.capture = next();
    else if (k == "--cubin")
      a.cubin = next();
    else if (k == "--reference")
      a.reference = next();
    else if (k == "--calibrate")
      a.calibrate = true;
    else if (k == "--fuzz")
      a.fuzz = std::stoul(next());
    else if (k == "--seed")
      a.seed = std::stoull(next());
    else if (k == "--scale")
      a.scale = std::stod(next());
    else if (k == "--runs")
      a.runs = next();
    else if (k == "--warmup")
      a.warmup = std::stoul(next());
    else if (k == "--reps")
      a.reps = std::stoul(next());
    else if (k == "--count")
      a.count = std::stoul(next());
    else if (k == "--no-flush")
      a.flush = false;
    else if (k == "--device")
      a.device = std::stoi(next());
    else if (k == "--type") {
      std::string v = next();
      auto eq = v.find('=');
      if (eq == std::string::npos) throw std::invalid_argument("--type wants PARAM=TYPE");
      a.types[std::stoul(v.substr(0, eq))] = v.substr(eq + 1);
    } else
      throw std::invalid_argument("unknown argument " + k);
  }
  return a;
}

CUcontext open_device(int ordinal, CUdevice &dev) {
  check(cuInit(0), "cuInit");
  check(cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return ctx;
}

int attr(CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  cuDeviceGetAttribute(&v, a, dev);
  return v;
}

json device_json(CUdevice dev) {
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, dev);
  int driver = 0;
  cuDriverGetVersion(&driver);
  size_t mem = 0;
  cuDeviceTotalMem(&mem, dev);
  int cc = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
           attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  return {{"name", name},
          {"arch", "sm_" + std::to_string(cc)},
          {"driver_version", driver},
          {"sm_count", attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)},
          {"l2_bytes", attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)},
          {"memory_bytes", mem}};
}

// One loaded module (original or variant) with its buffer addresses.
struct Module {
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  std::vector<CUdeviceptr> addr; // per manifest buffer
};

class Replay {
public:
  Replay(const std::string &manifest_path, const std::map<unsigned, std::string> &types)
      : store_(std::filesystem::path(manifest_path).parent_path().parent_path().string()) {
    auto text = kbcc::read_file(manifest_path);
    if (!text) throw std::runtime_error(text.error().message);
    auto m = kg::manifest_from_json(*text, manifest_path);
    if (!m) throw std::runtime_error(m.error().message);
    m_ = std::move(*m);
    for (const auto &b : m_.buffers) {
      auto before = store_.get(b.before);
      if (!before) throw std::runtime_error(before.error().message);
      auto after = kg::load_after(store_, b, *before);
      if (!after) throw std::runtime_error(after.error().message);
      before_.push_back(std::move(*before));
      after_.push_back(std::move(*after));
      types_.push_back(kg::element_type_from_name(b.type));
    }
    for (const auto &[param, type] : types)
      for (const auto &p : m_.pointers)
        if (p.param == param && p.param < m_.params.size() && p.offset == m_.params[p.param].offset)
          types_[p.buffer] = kg::element_type_from_name(type);
  }

  const kg::Manifest &manifest() const { return m_; }
  const std::vector<std::string> &before() const { return before_; }
  const std::vector<std::string> &after() const { return after_; }
  kg::ElementType type(size_t i) const { return types_[i]; }

  // Loads a cubin (empty = captured module) and binds buffers.
  Module load(const std::string &cubin_path) {
    std::string image;
    if (cubin_path.empty()) {
      if (m_.module.empty()) throw std::runtime_error("the capture holds no module cubin");
      auto blob = store_.get(m_.module);
      if (!blob) throw std::runtime_error(blob.error().message);
      image = std::move(*blob);
    } else {
      auto f = kbcc::read_file(cubin_path);
      if (!f) throw std::runtime_error(f.error().message);
      image = std::move(*f);
    }
    Module mod;
    check(cuModuleLoadData(&mod.mod, image.data()), "cuModuleLoadData");
    CUresult r = cuModuleGetFunction(&mod.fn, mod.mod, m_.kernel.c_str());
    if (r != CUDA_SUCCESS)
      throw std::runtime_error("cubin " + (cubin_path.empty() ? "(captured)" : cubin_path) + " has no kernel " +
                               m_.kernel);
    if (m_.shared_mem > 48 * 1024)
      check(cuFuncSetAttribute(mod.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, m_.shared_mem),
            "cuFuncSetAttribute(max dynamic shared memory)");
    if (alloc_.empty()) {
      alloc_.assign(m_.buffers.size(), 0);
      for (size_t i = 0; i < m_.buffers.size(); ++i)
        if (m_.buffers[i].global.empty())
          check(cuMemAlloc(&alloc_[i], std::max<uint64_t>(m_.buffers[i].size, 1)), "cuMemAlloc");
    }
    mod.addr = alloc_;
    std::set<std::string> globals; // the module's own __device__/__constant__ variables
    if (auto info = kg::inspect_cubin(image))
      for (const auto &g : info->globals)
        globals.insert(g.name);
    for (size_t i = 0; i < m_.buffers.size(); ++i) {
      if (m_.buffers[i].global.empty()) continue;
      if (!globals.count(m_.buffers[i].global)) { // a variant without this global: a private copy
        check(cuMemAlloc(&mod.addr[i], std::max<uint64_t>(m_.buffers[i].size, 1)), "cuMemAlloc");
        continue;
      }
      size_t size = 0;
      CUresult g = cuModuleGetGlobal(&mod.addr[i], &size, mod.mod, m_.buffers[i].global.c_str());
      if (g == CUDA_SUCCESS && size != m_.buffers[i].size)
        throw std::runtime_error("global " + m_.buffers[i].global + " has another size in the cubin");
      if (g != CUDA_SUCCESS) { // a variant that does not use this global: give it a private copy
        check(cuMemAlloc(&mod.addr[i], std::max<uint64_t>(m_.buffers[i].size, 1)), "cuMemAlloc");
      }
    }
    return mod;
  }

  void upload(const Module &mod, const std::vector<std::string> &inputs) {
    for (size_t i = 0; i < inputs.size(); ++i)
      check(cuMemcpyHtoD(mod.addr[i], inputs[i].data(), inputs[i].size()), "cuMemcpyHtoD");
  }

  void launch(const Module &mod, CUstream stream = nullptr) {
    std::string bytes = m_.param_bytes;
    for (const auto &p : m_.pointers) {
      uint64_t w = mod.addr[p.buffer] + p.delta;
      std::memcpy(bytes.data() + p.offset, &w, 8);
    }
    std::vector<void *> params;
    for (const auto &p : m_.params)
      params.push_back(bytes.data() + p.offset);
    check(cuLaunchKernel(mod.fn, m_.grid.x, m_.grid.y, m_.grid.z, m_.block.x, m_.block.y, m_.block.z, m_.shared_mem,
                         stream, params.data(), nullptr),
          "cuLaunchKernel");
  }

  std::vector<std::string> download(const Module &mod) {
    std::vector<std::string> out(m_.buffers.size());
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].assign(m_.buffers[i].size, '\0');
      check(cuMemcpyDtoH(out[i].data(), mod.addr[i], out[i].size()), "cuMemcpyDtoH");
    }
    return out;
  }

  // Restores `inputs`, launches once, returns every buffer afterwards.
  std::vector<std::string> run(const Module &mod, const std::vector<std::string> &inputs) {
    upload(mod, inputs);
    launch(mod);
    check(cuCtxSynchronize(), "kernel execution");
    return download(mod);
  }

private:
  kg::BlobStore store_;
  kg::Manifest m_;
  std::vector<std::string> before_, after_;
  std::vector<kg::ElementType> types_;
  std::vector<CUdeviceptr> alloc_;
};

json tolerance_json(const kg::Tolerance &t) { return {{"bitwise", t.bitwise}, {"abs", t.abs}, {"rel", t.rel}}; }

double finite_or(double v, double big = 1e300) { return std::isfinite(v) ? v : big; }

json buffer_json(const kg::BufferReport &b) {
  return {{"index", b.index},
          {"name", b.name},
          {"type", kg::element_type_name(b.type)},
          {"bytes", b.bytes},
          {"written", b.written},
          {"mismatches", b.mismatches},
          {"nan_mismatches", b.nan_mismatches},
          {"max_abs_error", finite_or(b.max_abs_error)},
          {"max_rel_error", finite_or(b.max_rel_error)},
          {"noise_abs", finite_or(b.noise_abs)},
          {"tolerance", tolerance_json(b.tolerance)},
          {"pass", b.pass}};
}

// Compares every buffer of `out` with `ref`.
json compare_all(const Replay &r, const std::vector<std::string> &ref, const std::vector<std::string> &out,
                 const std::vector<double> &noise, bool &pass) {
  json list = json::array();
  pass = true;
  for (size_t i = 0; i < ref.size(); ++i) {
    kg::BufferReport b;
    b.index = static_cast<unsigned>(i);
    b.name = r.manifest().buffers[i].name;
    b.type = r.type(i);
    b.bytes = ref[i].size();
    b.written = r.before()[i] != r.after()[i];
    b.noise_abs = noise[i];
    b.tolerance = kg::tolerance_for(b.type, noise[i], kg::max_abs_value(b.type, ref[i]));
    kg::compare_buffer(ref[i], out[i], b);
    pass = pass && b.pass;
    list.push_back(buffer_json(b));
  }
  return list;
}

// Perturbed copy of the float inputs (integers and untyped bytes unchanged).
std::vector<std::string> perturb(const Replay &r, std::mt19937_64 &rng, double scale) {
  std::vector<std::string> in = r.before();
  std::uniform_real_distribution<double> u(-1, 1);
  for (size_t i = 0; i < in.size(); ++i) {
    kg::ElementType t = r.type(i);
    if (t != kg::ElementType::F32 && t != kg::ElementType::F64) continue;
    size_t n = in[i].size() / kg::element_size(t);
    for (size_t k = 0; k < n; ++k) {
      char *p = in[i].data() + k * kg::element_size(t);
      if (t == kg::ElementType::F32) {
        float v;
        std::memcpy(&v, p, 4);
        if (std::isfinite(v)) v = static_cast<float>(v * (1 + scale * u(rng)) + scale * 1e-3 * u(rng));
        std::memcpy(p, &v, 4);
      } else {
        double v;
        std::memcpy(&v, p, 8);
        if (std::isfinite(v)) v = v * (1 + scale * u(rng)) + scale * 1e-3 * u(rng);
        std::memcpy(p, &v, 8);
      }
    }
  }
  return in;
}

json do_replay(const Args &a) {
  Replay r(a.capture, a.types);
  json out = {{"kernel", r.manifest().kernel}, {"launched", false}};
  size_t n = r.manifest().buffers.size();
  std::vector<double> noise(n, 0);
  try {
    Module orig = r.load(a.reference);
    bool deterministic = true;
    if (a.calibrate || a.fuzz) {
      auto o1 = r.run(orig, r.before());
      auto o2 = r.run(orig, r.before());
      for (size_t i = 0; i < n; ++i) {
        kg::ElementType t = r.type(i);
        noise[i] = std::max({kg::max_abs_difference(t, o1[i], r.after()[i]),
                             kg::max_abs_difference(t, o2[i], r.after()[i]), kg::max_abs_difference(t, o1[i], o2[i])});
        deterministic = deterministic && o1[i] == r.after()[i] && o2[i] == r.after()[i];
      }
      out["calibrated"] = true;
      out["deterministic"] = deterministic;
      out["noise"] = noise;
    }
    Module var = a.cubin.empty() ? orig : r.load(a.cubin);
    auto result = r.run(var, r.before());
    bool pass = false;
    out["buffers"] = compare_all(r, r.after(), result, noise, pass);
    out["launched"] = true;
    out["pass"] = pass;
    if (a.fuzz) {
      std::mt19937_64 rng(a.seed);
      json rounds = json::array();
      bool all = true;
      for (unsigned k = 0; k < a.fuzz; ++k) {
        auto inputs = perturb(r, rng, a.scale);
        auto ref = r.run(orig, inputs);
        auto got = r.run(var, inputs);
        bool ok = false;
        json bufs = compare_all(r, ref, got, noise, ok);
        rounds.push_back({{"launched", true}, {"pass", ok}, {"buffers", bufs}});
        all = all && ok;
      }
      out["fuzz"] = rounds;
      out["fuzz_pass"] = all;
    }
  } catch (const std::exception &e) { // fault, or a variant without the kernel
    out["error"] = e.what();
    out["pass"] = false;
  }
  return out;
}

json do_time(const Args &a) {
  Replay r(a.capture, a.types);
  CUdevice dev;
  cuCtxGetDevice(&dev);
  std::vector<Module> mods;
  std::vector<char> specs;
  for (char c : a.runs)
    if (c == 'o' || c == 'v') specs.push_back(c);
  Module orig = r.load(a.reference);
  Module var = a.cubin.empty() ? orig : r.load(a.cubin);
  // Pristine device copies of the inputs, restored before every timed launch.
  std::vector<CUdeviceptr> pristine(r.before().size());
  for (size_t i = 0; i < pristine.size(); ++i) {
    check(cuMemAlloc(&pristine[i], std::max<size_t>(r.before()[i].size(), 1)), "cuMemAlloc");
    check(cuMemcpyHtoD(pristine[i], r.before()[i].data(), r.before()[i].size()), "cuMemcpyHtoD");
  }
  size_t flush_bytes = std::max<size_t>(2 * attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 8 << 20);
  CUdeviceptr flush = 0;
  if (a.flush) check(cuMemAlloc(&flush, flush_bytes), "cuMemAlloc(L2 flush)");
  CUstream stream;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUevent start, stop;
  check(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  std::vector<std::vector<double>> samples(specs.size());
  for (unsigned rep = 0; rep < a.warmup + a.reps; ++rep)
    for (size_t s = 0; s < specs.size(); ++s) {
      const Module &m = specs[s] == 'o' ? orig : var;
      for (size_t i = 0; i < pristine.size(); ++i)
        check(cuMemcpyDtoDAsync(m.addr[i], pristine[i], r.before()[i].size(), stream), "cuMemcpyDtoDAsync");
      if (a.flush) check(cuMemsetD32Async(flush, rep + s, flush_bytes / 4, stream), "L2 flush");
      check(cuEventRecord(start, stream), "cuEventRecord");
      r.launch(m, stream);
      check(cuEventRecord(stop, stream), "cuEventRecord");
      check(cuEventSynchronize(stop), "kernel execution");
      float ms = 0;
      check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
      if (rep >= a.warmup) samples[s].push_back(ms * 1000.0);
    }
  json runs = json::array();
  for (size_t s = 0; s < specs.size(); ++s) {
    kg::TimingStats t = kg::summarize(samples[s], a.flush);
    runs.push_back({{"spec", std::string(1, specs[s])},
                    {"median_us", t.median_us},
                    {"p25_us", t.p25_us},
                    {"p75_us", t.p75_us},
                    {"min_us", t.min_us},
                    {"max_us", t.max_us},
                    {"spread_pct", t.spread_pct},
                    {"reps", t.reps},
                    {"l2_flushed", t.l2_flushed}});
  }
  return {{"kernel", r.manifest().kernel}, {"runs", runs}, {"device", device_json(dev)}};
}

json do_launch(const Args &a) {
  Replay r(a.capture, a.types);
  Module m = r.load(a.cubin.empty() ? a.reference : a.cubin);
  for (unsigned i = 0; i < a.count; ++i)
    r.run(m, r.before());
  return {{"kernel", r.manifest().kernel}, {"launched", a.count}};
}

} // namespace

int main(int argc, char **argv) {
  json out;
  int rc = 0;
  try {
    Args a = parse_args(argc, argv);
    CUdevice dev;
    if (a.verb == "info") {
      open_device(a.device, dev);
      out = device_json(dev);
    } else if (a.verb == "replay" || a.verb == "time" || a.verb == "launch") {
      if (a.capture.empty()) throw std::invalid_argument("--capture is required");
      open_device(a.device, dev);
      out = a.verb == "replay" ? do_replay(a) : a.verb == "time" ? do_time(a) : do_launch(a);
      if (out.contains("error")) rc = 3;
    } else {
      throw std::invalid_argument("usage: kbcc-gpu info|replay|time|launch [options]");
    }
  } catch (const CudaError &e) {
    out = {{"error", e.what()}, {"cuda", true}};
    rc = 3;
  } catch (const std::exception &e) {
    out = {{"error", e.what()}};
    rc = 2;
  }
  std::printf("%s\n", out.dump().c_str());
  return rc;
}

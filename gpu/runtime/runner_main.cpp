// kbcc-gpu: the only kbcc program that talks to the GPU for replay. kbcc
// spawns it and reads JSON from its stdout, so a faulting variant (illegal
// address: the CUDA context is lost) ends this process only.
//
//   kbcc-gpu info
//   --reference R replaces the captured module as the original (a capture recorded on another arch)
//   kbcc-gpu replay --capture M [--cubin V] [--calibrate] [--fuzz N --seed S --scale X] [--type P=T]...
//                   [--launch GX,GY,GZ,BX,BY,BZ,SHARED] [--reassociation N]
//   kbcc-gpu time   --capture M [--cubin V] [--runs o,v,o] [--warmup W] [--reps R] [--no-flush] [--launch ...]
//   kbcc-gpu launch --capture M [--cubin V] [--count N] [--launch ...]   (for ncu / compute-sanitizer)
//   kbcc-gpu serve  one JSON request per stdin line, one JSON response per stdout line (docs/gpu.md)
#include "gpu/runtime/ops.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <list>
#include <memory>
#include <nlohmann/json.hpp>

using nlohmann::json;
namespace rt = kbcc::gpu::runtime;

namespace {

struct Args {
  std::string verb;
  json request = json::object();
  int device = 0;
};

json shape_arg(const std::string &v) {
  std::vector<uint32_t> n;
  size_t start = 0;
  while (start <= v.size()) {
    size_t end = v.find(',', start);
    n.push_back(static_cast<uint32_t>(std::stoul(v.substr(start, end - start))));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (n.size() != 7) throw std::invalid_argument("--launch wants GX,GY,GZ,BX,BY,BZ,SHARED");
  return {{"grid", {n[0], n[1], n[2]}}, {"block", {n[3], n[4], n[5]}}, {"shared", n[6]}};
}

Args parse_args(int argc, char **argv) {
  Args a;
  if (argc > 1) a.verb = argv[1];
  json &q = a.request;
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(k + " needs a value");
      return argv[++i];
    };
    if (k == "--capture")
      q["capture"] = next();
    else if (k == "--cubin")
      q["candidate"] = next();
    else if (k == "--reference")
      q["reference"] = next();
    else if (k == "--calibrate")
      q["calibrate"] = true;
    else if (k == "--fuzz")
      q["fuzz"]["rounds"] = std::stoul(next());
    else if (k == "--seed")
      q["fuzz"]["seed"] = std::stoull(next());
    else if (k == "--scale")
      q["fuzz"]["scale"] = std::stod(next());
    else if (k == "--runs")
      q["runs"] = next();
    else if (k == "--warmup")
      q["warmup"] = std::stoul(next());
    else if (k == "--reps")
      q["reps"] = std::stoul(next());
    else if (k == "--count")
      q["count"] = std::stoul(next());
    else if (k == "--no-flush")
      q["flush"] = false;
    else if (k == "--launch")
      q["candidate_shape"] = shape_arg(next());
    else if (k == "--reassociation")
      q["reassociation_n"] = std::stoull(next());
    else if (k == "--device")
      a.device = std::stoi(next());
    else if (k == "--type") {
      std::string v = next();
      auto eq = v.find('=');
      if (eq == std::string::npos) throw std::invalid_argument("--type wants PARAM=TYPE");
      q["types"][v.substr(0, eq)] = v.substr(eq + 1);
    } else
      throw std::invalid_argument("unknown argument " + k);
  }
  if (!q.contains("calibrate")) q["calibrate"] = q.contains("fuzz");
  return a;
}

CUdevice open_device(int ordinal) {
  CUdevice dev;
  rt::check(cuInit(0), "cuInit");
  rt::check(cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  CUcontext ctx;
  rt::check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  rt::check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return dev;
}

std::map<unsigned, std::string> types_of(const json &q) {
  std::map<unsigned, std::string> out;
  const json types = q.value("types", json::object()); // items() must not outlive it
  for (const auto &[k, v] : types.items())
    out[static_cast<unsigned>(std::stoul(k))] = v.get<std::string>();
  return out;
}

// Replays kept between requests of `serve`, most recently used first.
class ReplayCache {
public:
  rt::Replay &get(const json &q) {
    std::string key = q.at("capture").get<std::string>() + "\n" + q.value("types", json::object()).dump();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return *entries_.front().second;
      }
    entries_.emplace_front(key, std::make_unique<rt::Replay>(key.substr(0, key.find('\n')), types_of(q)));
    while (entries_.size() > kKeep)
      entries_.pop_back();
    return *entries_.front().second;
  }
  void clear() { entries_.clear(); }

private:
  static constexpr size_t kKeep = 8;
  std::list<std::pair<std::string, std::unique_ptr<rt::Replay>>> entries_;
};

// Prints one report line and flushes it (kbcc reads it before the process ends).
void answer(const json &out) {
  std::printf("%s\n", out.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
  std::fflush(stdout);
}

// The report of a CUDA error, which ends the process: a kernel that timed
// out is marked so.
json cuda_error_json(const rt::CudaError &e) {
  json out = {{"error", e.what()}, {"cuda", true}};
  if (dynamic_cast<const rt::KernelTimeout *>(&e)) out["timed_out"] = true;
  return out;
}

// One request of `serve` or a one-shot verb.
json handle(const std::string &op, const json &q, CUdevice dev, ReplayCache &cache) {
  if (op == "info") return rt::device_json(dev);
  if (op == "drop") {
    cache.clear();
    return {{"dropped", true}};
  }
  if (!q.contains("capture")) throw std::invalid_argument("--capture is required");
  rt::Replay &r = cache.get(q);
  r.expect(q.value("expect_ms", 0.0));
  if (op == "check") return rt::check(r, q);
  if (op == "time") return rt::time(r, dev, q);
  if (op == "launch") return rt::launch(r, q);
  throw std::invalid_argument("unknown request '" + op + "'");
}

// Reads requests until stdin closes; a lost CUDA context ends the process
// (kbcc starts another).
int serve(int device) {
  CUdevice dev = open_device(device);
  ReplayCache cache;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json out;
    int rc = -1;
    try {
      json q = json::parse(line);
      out = handle(q.value("op", ""), q, dev, cache);
    } catch (const rt::CudaError &e) {
      out = cuda_error_json(e);
      out["fatal"] = true;
      rc = 3;
    } catch (const std::exception &e) {
      out = {{"error", e.what()}};
    }
    answer(out);
    // A lost context (a fault, or a kernel still running): leave without
    // the replays' destructors, which would wait for it.
    if (rc >= 0) std::_Exit(rc);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  json out;
  int rc = 0;
  ReplayCache cache; // outlives the handlers: a lost context must not be waited for
  try {
    Args a = parse_args(argc, argv);
    if (a.verb == "serve") return serve(a.device);
    if (a.verb != "info" && a.verb != "replay" && a.verb != "time" && a.verb != "launch")
      throw std::invalid_argument("usage: kbcc-gpu info|replay|time|launch|serve [options]");
    CUdevice dev = open_device(a.device);
    out = handle(a.verb == "replay" ? "check" : a.verb, a.request, dev, cache);
    if (a.verb == "replay" && out.contains("replay_pass")) out["pass"] = out["replay_pass"];
    if (out.contains("error")) rc = 3;
  } catch (const rt::CudaError &e) {
    out = cuda_error_json(e);
    answer(out);
    std::_Exit(3);
  } catch (const std::exception &e) {
    out = {{"error", e.what()}};
    rc = 2;
  }
  answer(out);
  return rc;
}

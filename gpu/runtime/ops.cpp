#include "gpu/runtime/ops.h"

#include "gpu/analysis.h"

#include <chrono>
#include <cmath>
#include <cstring>

namespace kbcc::gpu::runtime {
namespace {

using nlohmann::json;

int attr(CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  cuDeviceGetAttribute(&v, a, dev);
  return v;
}

double finite_or(double v, double big = 1e300) { return std::isfinite(v) ? v : big; }

json tolerance_json(const Tolerance &t) { return {{"bitwise", t.bitwise}, {"abs", t.abs}, {"rel", t.rel}}; }

json buffer_json(const BufferReport &b) {
  return {{"index", b.index},
          {"name", b.name},
          {"type", element_type_name(b.type)},
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

// Per-buffer widening of the tolerance (reassociation), empty when unused.
using Bounds = std::vector<std::vector<double>>;

// Compares every buffer of `out` with `ref` (the reference outputs named
// `ref_key` in Replay::magnitudes; "" when they are not kept); `max_error`
// grows to the largest error seen.
json compare_all(Replay &r, const std::string &ref_key, const std::vector<std::string> &ref,
                 const std::vector<std::string> &out, const std::vector<double> &noise, const Bounds &bounds,
                 bool &pass, double &max_error) {
  json list = json::array();
  pass = true;
  std::vector<double> scale = r.magnitudes(ref_key, ref);
  for (size_t i = 0; i < ref.size(); ++i) {
    BufferReport b;
    b.index = static_cast<unsigned>(i);
    b.name = r.manifest().buffers[i].name;
    b.type = r.type(i);
    b.bytes = ref[i].size();
    b.written = r.written(i);
    b.noise_abs = noise[i];
    b.tolerance = tolerance_for(b.type, noise[i], scale[i]);
    compare_buffer(ref[i], out[i], b, i < bounds.size() && !bounds[i].empty() ? &bounds[i] : nullptr);
    pass = pass && b.pass;
    max_error = std::max(max_error, finite_or(b.max_abs_error));
    list.push_back(buffer_json(b));
  }
  return list;
}

// Perturbed copy of the float inputs (integers and untyped bytes
// unchanged): round `round` of the fuzz seeded with `seed`.
std::vector<std::string> perturb(const Replay &r, uint64_t seed, unsigned round, double scale) {
  std::vector<std::string> in = r.before();
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = perturbed(r.type(i), std::move(in[i]), (seed * 1000003 + round) * 1000003 + i, scale);
  return in;
}

// The reordered-summation bound per output element of the reference `ref`
// (named `ref_key`) run on `inputs` (named `inputs_key`; docs/kernels.md);
// empty when n is 0.
Bounds reassociation_bounds(Replay &r, Module &ref, const std::string &ref_key, const std::vector<std::string> &inputs,
                            const std::string &inputs_key, const std::string &params, uint64_t n) {
  if (n == 0) return {};
  auto out = r.memo("abs|" + ref_key + "|" + inputs_key + "|" + params, [&] {
    std::vector<std::string> magnitudes = inputs;
    for (size_t i = 0; i < magnitudes.size(); ++i)
      magnitudes[i] = absolute_values(r.type(i), std::move(magnitudes[i]));
    return r.run(ref, magnitudes, r.captured_shape(), params);
  });
  Bounds b(out->size());
  for (size_t i = 0; i < out->size(); ++i)
    b[i] = reassociation_bound(r.type(i), (*out)[i], n);
  return b;
}

// Reference runs beyond the first two when those disagree with each other or
// with the capture (atomics reorder sums): the largest difference of few
// samples understates the spread a candidate's own reordering shows.
constexpr int kExtraNoiseRuns = 6;

// The noise of the reference runs against the capture, per buffer: two runs,
// and kExtraNoiseRuns more when the original is nondeterministic. Computed
// once per replay and reference.
Replay::Calibration noise_of(Replay &r, Module &ref, const std::string &params) {
  auto run = [&] { return r.run(ref, r.before(), r.captured_shape(), params); };
  std::vector<std::vector<std::string>> outs = {run(), run()};
  bool deterministic = true;
  for (size_t i = 0; i < outs[0].size(); ++i)
    deterministic = deterministic && outs[0][i] == r.after()[i] && outs[1][i] == r.after()[i];
  for (int k = 0; !deterministic && k < kExtraNoiseRuns; ++k)
    outs.push_back(run());
  std::vector<double> noise(outs[0].size(), 0);
  for (size_t i = 0; i < noise.size(); ++i) {
    ElementType t = r.type(i);
    for (size_t a = 0; a < outs.size(); ++a) {
      noise[i] = std::max(noise[i], max_abs_difference(t, outs[a][i], r.after()[i]));
      for (size_t b = a + 1; b < outs.size(); ++b)
        noise[i] = std::max(noise[i], max_abs_difference(t, outs[a][i], outs[b][i]));
    }
  }
  return {noise, deterministic, outs.size()};
}

std::vector<double> calibrate(Replay &r, Module &ref, const std::string &ref_key, const std::string &params,
                              json &out) {
  const Replay::Calibration &c = r.calibration(ref_key + "|" + params, [&] { return noise_of(r, ref, params); });
  out["calibrated"] = true;
  out["deterministic"] = c.deterministic;
  out["calibration_runs"] = c.runs;
  out["noise"] = c.noise;
  return c.noise;
}

std::map<unsigned, int64_t> overrides_from(const json &j) {
  std::map<unsigned, int64_t> out;
  if (j.is_object())
    for (const auto &[k, v] : j.items())
      out[static_cast<unsigned>(std::stoul(k))] = v.get<int64_t>();
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

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

namespace {

// The cubin a request runs as the candidate: "candidate", else the
// "reference" (the original as this replay runs it), else the captured module.
std::string candidate_of(const json &q) {
  if (q.contains("candidate")) return q["candidate"].get<std::string>();
  return q.value("reference", std::string());
}

} // namespace

Shape shape_from_json(const json &j, const Shape &fallback) {
  if (j.is_null()) return fallback;
  Shape s;
  auto dim = [](const json &a) {
    Dim3 d;
    d.x = a.at(0).get<uint32_t>(), d.y = a.at(1).get<uint32_t>(), d.z = a.at(2).get<uint32_t>();
    return d;
  };
  s.grid = dim(j.at("grid"));
  s.block = dim(j.at("block"));
  s.shared = j.value("shared", 0u);
  return s;
}

json check(Replay &r, const json &q) {
  auto start = std::chrono::steady_clock::now();
  json out = {{"kernel", r.manifest().kernel}, {"launched", false}, {"pass", false}};
  std::vector<double> noise(r.manifest().buffers.size(), 0);
  uint64_t n = q.value("reassociation_n", uint64_t(0));
  double max_error = 0;
  try {
    // The reference's runs depend only on the request's inputs: they are
    // kept with the replay (Replay::memo) and shared by every candidate.
    const std::string ref_key = q.value("reference", "");
    Module &ref = r.module(ref_key);
    Module &cand = r.module(candidate_of(q));
    Shape orig = r.captured_shape(), shape = shape_from_json(q.value("candidate_shape", json()), orig);
    std::string params = r.params();
    if (q.value("calibrate", true)) noise = calibrate(r, ref, ref_key, params, out);
    Bounds bounds = reassociation_bounds(r, ref, ref_key, r.before(), "captured", params, n);
    const auto &got = r.run_scratch(cand, r.before(), shape, params);
    bool pass = false;
    out["buffers"] = compare_all(r, "after", r.after(), got, noise, bounds, pass, max_error);
    out["launched"] = true;
    out["replay_pass"] = pass;
    bool fuzz_pass = true, shapes_pass = true;
    json fuzz = q.value("fuzz", json::object());
    uint64_t seed = fuzz.value("seed", uint64_t(1));
    double scale = fuzz.value("scale", 0.25);
    json rounds = json::array();
    for (unsigned k = 0; k < fuzz.value("rounds", 0u); ++k) {
      std::string round = "fuzz " + std::to_string(seed) + " " + std::to_string(k) + " " + std::to_string(scale);
      auto inputs = r.memo(round, [&] { return perturb(r, seed, k, scale); });
      std::string want_key = "run|" + ref_key + "|" + round + "|" + params;
      auto want = r.memo(want_key, [&] { return r.run(ref, *inputs, orig, params); });
      Bounds fb = reassociation_bounds(r, ref, ref_key, *inputs, round, params, n);
      const auto &have = r.run_scratch(cand, *inputs, shape, params);
      bool ok = false;
      json bufs = compare_all(r, r.memoized(want_key) ? want_key : "", *want, have, noise, fb, ok, max_error);
      rounds.push_back({{"launched", true}, {"pass", ok}, {"buffers", bufs}});
      fuzz_pass = fuzz_pass && ok;
    }
    out["fuzz"] = rounds;
    out["fuzz_pass"] = fuzz_pass;
    json shapes = json::array();
    for (const json &s : q.value("shapes", json::array())) {
      std::string p2 = r.params(overrides_from(s.value("params", json::object())));
      Shape s2 = shape_from_json(s.value("candidate_shape", json()), shape);
      std::string want_key = "run|" + ref_key + "|captured|" + p2;
      auto want = r.memo(want_key, [&] { return r.run(ref, r.before(), orig, p2); });
      Bounds sb = reassociation_bounds(r, ref, ref_key, r.before(), "captured", p2, n);
      const auto &have = r.run_scratch(cand, r.before(), s2, p2);
      bool ok = false;
      json bufs = compare_all(r, r.memoized(want_key) ? want_key : "", *want, have, noise, sb, ok, max_error);
      shapes.push_back({{"params", s.value("params", json::object())}, {"pass", ok}, {"buffers", bufs}});
      shapes_pass = shapes_pass && ok;
    }
    out["shapes"] = shapes;
    out["shapes_pass"] = shapes_pass;
    out["pass"] = pass && fuzz_pass && shapes_pass;
  } catch (const CudaError &) {
    throw;
  } catch (const std::exception &e) { // a candidate without the kernel, a bad request
    out["error"] = e.what();
  }
  out["max_abs_error"] = max_error;
  out["seconds"] = seconds_since(start);
  return out;
}

json time(Replay &r, CUdevice dev, const json &q) {
  auto start = std::chrono::steady_clock::now();
  std::string runs = q.value("runs", std::string("o"));
  unsigned warmup = q.value("warmup", 5u), reps = q.value("reps", 50u);
  bool flush = q.value("flush", true);
  Module &ref = r.module(q.value("reference", ""));
  Module &cand = r.module(candidate_of(q));
  Shape orig = r.captured_shape(), shape = shape_from_json(q.value("candidate_shape", json()), orig);
  std::string params = r.params();
  // Pristine device copies of the inputs, restored before every timed launch.
  std::vector<CUdeviceptr> pristine(r.before().size());
  for (size_t i = 0; i < pristine.size(); ++i) {
    check(cuMemAlloc(&pristine[i], std::max<size_t>(r.before()[i].size(), 1)), "cuMemAlloc");
    check(cuMemcpyHtoD(pristine[i], r.before()[i].data(), r.before()[i].size()), "cuMemcpyHtoD");
  }
  size_t flush_bytes = std::max<size_t>(2 * attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 8 << 20);
  CUdeviceptr scratch = 0;
  if (flush) check(cuMemAlloc(&scratch, flush_bytes), "cuMemAlloc(L2 flush)");
  CUstream stream;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUevent ev_start, ev_stop;
  check(cuEventCreate(&ev_start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cuEventCreate(&ev_stop, CU_EVENT_DEFAULT), "cuEventCreate");
  std::vector<std::vector<double>> samples(runs.size());
  for (unsigned rep = 0; rep < warmup + reps; ++rep)
    for (size_t s = 0; s < runs.size(); ++s) {
      bool candidate = runs[s] == 'v';
      Module &m = candidate ? cand : ref;
      for (size_t i = 0; i < pristine.size(); ++i)
        check(cuMemcpyDtoDAsync(m.addr[i], pristine[i], r.before()[i].size(), stream), "cuMemcpyDtoDAsync");
      if (flush) check(cuMemsetD32Async(scratch, rep + s, flush_bytes / 4, stream), "L2 flush");
      check(cuEventRecord(ev_start, stream), "cuEventRecord");
      r.launch(m, candidate ? shape : orig, params, stream);
      check(cuEventRecord(ev_stop, stream), "cuEventRecord");
      float ms = r.wait(ev_start, ev_stop);
      if (rep >= warmup) samples[s].push_back(ms * 1000.0);
    }
  cuEventDestroy(ev_start);
  cuEventDestroy(ev_stop);
  cuStreamDestroy(stream);
  for (CUdeviceptr p : pristine)
    cuMemFree(p);
  if (scratch) cuMemFree(scratch);
  json list = json::array();
  for (size_t s = 0; s < runs.size(); ++s) {
    TimingStats t = summarize(samples[s], flush);
    list.push_back({{"spec", std::string(1, runs[s])},
                    {"median_us", t.median_us},
                    {"p25_us", t.p25_us},
                    {"p75_us", t.p75_us},
                    {"min_us", t.min_us},
                    {"max_us", t.max_us},
                    {"spread_pct", t.spread_pct},
                    {"reps", t.reps},
                    {"l2_flushed", t.l2_flushed}});
  }
  return {
      {"kernel", r.manifest().kernel}, {"runs", list}, {"device", device_json(dev)}, {"seconds", seconds_since(start)}};
}

json launch(Replay &r, const json &q) {
  Module &m = r.module(candidate_of(q));
  Shape shape = shape_from_json(q.value("candidate_shape", json()), r.captured_shape());
  std::string params = r.params();
  unsigned count = q.value("count", 1u);
  for (unsigned i = 0; i < count; ++i)
    r.run_scratch(m, r.before(), shape, params);
  return {{"kernel", r.manifest().kernel}, {"launched", count}};
}

} // namespace kbcc::gpu::runtime

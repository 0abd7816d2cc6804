// Element types, buffer comparison, tolerances and timing statistics.
#include "gpu/analysis.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

namespace kbcc::gpu {
namespace {

template <class T> T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 31, man = h & 1023;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? NAN : INFINITY;
  else
    v = std::ldexp(static_cast<float>(man | 1024), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

float bf16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Relative tolerance per floating type: a few ulps of accumulated rounding.
double default_rel(ElementType t) {
  switch (t) {
  case ElementType::F16:
    return 1e-2;
  case ElementType::BF16:
    return 2e-2;
  case ElementType::F32:
    return 1e-4;
  case ElementType::F64:
    return 1e-9;
  default:
    return 0;
  }
}

} // namespace

ElementType element_type_from_name(const std::string &raw) {
  std::string n = raw;
  for (const char *q : {"const ", "volatile ", "struct ", "__restrict__", " "})
    for (size_t p; (p = n.find(q)) != std::string::npos;)
      n.erase(p, std::strlen(q));
  static const std::map<std::string, ElementType> names = {{"bytes", ElementType::Bytes},
                                                           {"i8", ElementType::I8},
                                                           {"u8", ElementType::U8},
                                                           {"i16", ElementType::I16},
                                                           {"u16", ElementType::U16},
                                                           {"i32", ElementType::I32},
                                                           {"u32", ElementType::U32},
                                                           {"i64", ElementType::I64},
                                                           {"u64", ElementType::U64},
                                                           {"f16", ElementType::F16},
                                                           {"bf16", ElementType::BF16},
                                                           {"f32", ElementType::F32},
                                                           {"f64", ElementType::F64},
                                                           {"char", ElementType::I8},
                                                           {"signedchar", ElementType::I8},
                                                           {"int8_t", ElementType::I8},
                                                           {"unsignedchar", ElementType::U8},
                                                           {"uint8_t", ElementType::U8},
                                                           {"bool", ElementType::U8},
                                                           {"short", ElementType::I16},
                                                           {"int16_t", ElementType::I16},
                                                           {"unsignedshort", ElementType::U16},
                                                           {"uint16_t", ElementType::U16},
                                                           {"int", ElementType::I32},
                                                           {"int32_t", ElementType::I32},
                                                           {"unsignedint", ElementType::U32},
                                                           {"unsigned", ElementType::U32},
                                                           {"uint32_t", ElementType::U32},
                                                           {"long", ElementType::I64},
                                                           {"longlong", ElementType::I64},
                                                           {"int64_t", ElementType::I64},
                                                           {"unsignedlong", ElementType::U64},
                                                           {"unsignedlonglong", ElementType::U64},
                                                           {"uint64_t", ElementType::U64},
                                                           {"size_t", ElementType::U64},
                                                           {"__half", ElementType::F16},
                                                           {"half", ElementType::F16},
                                                           {"__nv_bfloat16", ElementType::BF16},
                                                           {"nv_bfloat16", ElementType::BF16},
                                                           {"float", ElementType::F32},
                                                           {"double", ElementType::F64}};
  auto it = names.find(n);
  return it == names.end() ? ElementType::Bytes : it->second;
}

const char *element_type_name(ElementType t) {
  switch (t) {
  case ElementType::Bytes:
    return "bytes";
  case ElementType::I8:
    return "i8";
  case ElementType::U8:
    return "u8";
  case ElementType::I16:
    return "i16";
  case ElementType::U16:
    return "u16";
  case ElementType::I32:
    return "i32";
  case ElementType::U32:
    return "u32";
  case ElementType::I64:
    return "i64";
  case ElementType::U64:
    return "u64";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  }
  return "bytes";
}

unsigned element_size(ElementType t) {
  switch (t) {
  case ElementType::I16:
  case ElementType::U16:
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::I32:
  case ElementType::U32:
  case ElementType::F32:
    return 4;
  case ElementType::I64:
  case ElementType::U64:
  case ElementType::F64:
    return 8;
  default:
    return 1;
  }
}

bool is_floating(ElementType t) {
  return t == ElementType::F16 || t == ElementType::BF16 || t == ElementType::F32 || t == ElementType::F64;
}

double element_value(ElementType t, const char *p, uint64_t i) {
  const char *q = p + i * element_size(t);
  switch (t) {
  case ElementType::I8:
    return load<int8_t>(q);
  case ElementType::Bytes:
  case ElementType::U8:
    return load<uint8_t>(q);
  case ElementType::I16:
    return load<int16_t>(q);
  case ElementType::U16:
    return load<uint16_t>(q);
  case ElementType::I32:
    return load<int32_t>(q);
  case ElementType::U32:
    return load<uint32_t>(q);
  case ElementType::I64:
    return static_cast<double>(load<int64_t>(q));
  case ElementType::U64:
    return static_cast<double>(load<uint64_t>(q));
  case ElementType::F16:
    return half_to_float(load<uint16_t>(q));
  case ElementType::BF16:
    return bf16_to_float(load<uint16_t>(q));
  case ElementType::F32:
    return load<float>(q);
  case ElementType::F64:
    return load<double>(q);
  }
  return 0;
}

Tolerance tolerance_for(ElementType type, double noise_abs, double ref_max_abs) {
  Tolerance t;
  if (!is_floating(type)) {
    t.bitwise = noise_abs == 0;
    t.abs = noise_abs;
    return t;
  }
  t.bitwise = false;
  t.rel = default_rel(type);
  // Elements near zero after cancellation: allow a small absolute error
  // relative to the buffer's scale, and never less than twice the noise.
  t.abs = std::max(t.rel * 1e-2 * ref_max_abs, 2 * noise_abs);
  return t;
}

namespace {

// Runs f(begin, end) over [0, n) split in parts of at least kPartElements,
// one thread per part beyond the first (at most the hardware's threads); a
// part whose thread cannot start runs on the caller's.
constexpr uint64_t kPartElements = uint64_t(1) << 20;

template <class F> void for_parts(uint64_t n, F f) {
  uint64_t threads = std::max(1u, std::thread::hardware_concurrency());
  uint64_t parts = std::clamp<uint64_t>(n / kPartElements, 1, threads);
  std::vector<std::thread> workers;
  workers.reserve(parts);
  for (uint64_t k = 1; k < parts; ++k) {
    auto part = [&f, n, parts, k] { f(n * k / parts, n * (k + 1) / parts); };
    try {
      workers.emplace_back(part);
    } catch (const std::system_error &) {
      part();
    }
  }
  f(0, n / parts);
  for (std::thread &w : workers)
    w.join();
}

// What compare_buffer finds in one part of a buffer.
struct PartResult {
  uint64_t mismatches = 0, nan_mismatches = 0;
  double max_abs_error = 0, max_rel_error = 0;
};

// Compares elements [begin, end) of `ref` and `out`, skipping runs of
// kRunElements elements that are byte-identical.
PartResult compare_part(std::string_view ref, std::string_view out, const BufferReport &r,
                        const std::vector<double> *extra, uint64_t begin, uint64_t end) {
  constexpr uint64_t kRunElements = 1024;
  const unsigned es = element_size(r.type);
  PartResult p;
  for (uint64_t run = begin; run < end; run += kRunElements) {
    uint64_t stop = std::min(end, run + kRunElements);
    if (std::memcmp(ref.data() + run * es, out.data() + run * es, (stop - run) * es) == 0) continue;
    for (uint64_t i = run; i < stop; ++i) {
      if (std::memcmp(ref.data() + i * es, out.data() + i * es, es) == 0) continue;
      double x = element_value(r.type, ref.data(), i), y = element_value(r.type, out.data(), i);
      if (std::isnan(x) != std::isnan(y)) {
        ++p.nan_mismatches;
        ++p.mismatches;
        continue;
      }
      if (std::isnan(x)) continue; // both NaN (different payloads)
      double d = std::fabs(x - y);
      if (!std::isfinite(d)) d = INFINITY;
      double rel = x == 0 ? (d == 0 ? 0 : INFINITY) : d / std::fabs(x);
      p.max_abs_error = std::max(p.max_abs_error, d);
      p.max_rel_error = std::max(p.max_rel_error, rel);
      double widen = extra && i < extra->size() ? (*extra)[i] : 0;
      bool ok = !r.tolerance.bitwise && d <= r.tolerance.abs + r.tolerance.rel * std::fabs(x) + widen;
      if (!ok) ++p.mismatches;
    }
  }
  return p;
}

} // namespace

double max_abs_value(ElementType type, std::string_view data) {
  uint64_t n = data.size() / element_size(type);
  std::mutex lock;
  double m = 0;
  for_parts(n, [&](uint64_t begin, uint64_t end) {
    double part = 0;
    for (uint64_t i = begin; i < end; ++i) {
      double v = std::fabs(element_value(type, data.data(), i));
      if (std::isfinite(v)) part = std::max(part, v);
    }
    std::lock_guard<std::mutex> hold(lock);
    m = std::max(m, part);
  });
  return m;
}

double max_abs_difference(ElementType type, std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return INFINITY;
  if (a == b) return 0; // unchanged inputs: one memcmp, not an element-wise pass
  uint64_t n = a.size() / element_size(type);
  double m = 0;
  for (uint64_t i = 0; i < n; ++i) {
    double x = element_value(type, a.data(), i), y = element_value(type, b.data(), i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;
    double d = std::fabs(x - y);
    m = std::max(m, std::isfinite(d) ? d : INFINITY);
  }
  return m;
}

void compare_buffer(std::string_view ref, std::string_view out, BufferReport &r, const std::vector<double> *extra) {
  r.mismatches = r.nan_mismatches = 0;
  r.max_abs_error = r.max_rel_error = 0;
  r.pass = true;
  if (ref.size() != out.size()) {
    r.mismatches = std::max(ref.size(), out.size());
    r.pass = false;
    return;
  }
  if (ref == out) return;
  const unsigned es = element_size(r.type);
  uint64_t n = ref.size() / es;
  std::mutex lock;
  for_parts(n, [&](uint64_t begin, uint64_t end) {
    PartResult p = compare_part(ref, out, r, extra, begin, end);
    std::lock_guard<std::mutex> hold(lock);
    r.mismatches += p.mismatches;
    r.nan_mismatches += p.nan_mismatches;
    r.max_abs_error = std::max(r.max_abs_error, p.max_abs_error);
    r.max_rel_error = std::max(r.max_rel_error, p.max_rel_error);
  });
  // A tail shorter than one element is compared bytewise.
  if (ref.size() % es && std::memcmp(ref.data() + n * es, out.data() + n * es, ref.size() % es) != 0) ++r.mismatches;
  r.pass = r.mismatches == 0;
}

namespace {

double unit_roundoff(ElementType t) {
  switch (t) {
  case ElementType::F16:
    return std::ldexp(1.0, -11);
  case ElementType::BF16:
    return std::ldexp(1.0, -8);
  case ElementType::F32:
    return std::ldexp(1.0, -24);
  case ElementType::F64:
    return std::ldexp(1.0, -53);
  default:
    return 0;
  }
}

} // namespace

std::vector<double> reassociation_bound(ElementType type, std::string_view magnitude, uint64_t n) {
  double u = unit_roundoff(type);
  if (u == 0 || n == 0) return {};
  double nu = static_cast<double>(n) * u;
  double gamma = nu < 1 ? nu / (1 - nu) : INFINITY;
  uint64_t count = magnitude.size() / element_size(type);
  std::vector<double> out(count);
  for (uint64_t i = 0; i < count; ++i) {
    double m = std::fabs(element_value(type, magnitude.data(), i));
    out[i] = std::isfinite(m) ? 2 * gamma * m : 0;
  }
  return out;
}

std::string absolute_values(ElementType type, std::string data) {
  if (!is_floating(type)) return data;
  const unsigned es = element_size(type);
  for (size_t i = es - 1; i < data.size(); i += es)
    data[i] = static_cast<char>(static_cast<unsigned char>(data[i]) & 0x7f); // little-endian sign bit
  return data;
}

namespace {

// SplitMix64's finalizer: a bijective mix of 64 bits.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A uniform double in [-1, 1) from the high 53 bits of `bits`.
double uniform_pm1(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-52 - 1.0; }

template <class T> void perturb_elements(char *data, uint64_t n, uint64_t seed, double scale) {
  for_parts(n, [&](uint64_t begin, uint64_t end) {
    for (uint64_t k = begin; k < end; ++k) {
      T v;
      std::memcpy(&v, data + k * sizeof(T), sizeof(T));
      if (!std::isfinite(v)) continue;
      uint64_t h = mix64(seed + 0x9e3779b97f4a7c15ull * (k + 1));
      double u = uniform_pm1(h), w = uniform_pm1(mix64(h));
      v = static_cast<T>(v * (1 + scale * u) + scale * 1e-3 * w);
      std::memcpy(data + k * sizeof(T), &v, sizeof(T));
    }
  });
}

} // namespace

std::string perturbed(ElementType type, std::string data, uint64_t seed, double scale) {
  if (type == ElementType::F32) perturb_elements<float>(data.data(), data.size() / 4, seed, scale);
  if (type == ElementType::F64) perturb_elements<double>(data.data(), data.size() / 8, seed, scale);
  return data;
}

TimingStats summarize(std::vector<double> s, bool l2_flushed) {
  TimingStats t;
  t.l2_flushed = l2_flushed;
  t.reps = static_cast<unsigned>(s.size());
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  auto quantile = [&](double q) {
    double pos = q * (s.size() - 1);
    size_t lo = static_cast<size_t>(pos);
    size_t hi = std::min(lo + 1, s.size() - 1);
    return s[lo] + (s[hi] - s[lo]) * (pos - lo);
  };
  t.median_us = quantile(0.5);
  t.p25_us = quantile(0.25);
  t.p75_us = quantile(0.75);
  t.min_us = s.front();
  t.max_us = s.back();
  t.spread_pct = t.median_us > 0 ? (t.p75_us - t.p25_us) / t.median_us * 100 : 0;
  return t;
}

void judge_speedup(TimingComparison &c) {
  double a = c.original_a.median_us, b = c.original_b.median_us, v = c.variant.median_us;
  double lo = std::min(a, b);
  c.noise_pct = lo > 0 ? std::fabs(a - b) / lo * 100 + (c.original_a.spread_pct + c.original_b.spread_pct) / 2 : 0;
  double orig = (a + b) / 2;
  c.speedup = v > 0 ? orig / v : 1;
  // Significant: the variant beats the *faster* original run by more than the noise.
  c.significant = v > 0 && lo > v && (lo - v) / lo * 100 > c.noise_pct;
}

} // namespace kbcc::gpu

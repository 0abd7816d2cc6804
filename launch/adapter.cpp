#include "launch/adapter.h"

#include <set>
#include <sstream>

namespace kbcc::launch {
namespace {

// Host-only C++11. Per-unit state is `static inline` (no unused-function
// warnings, one copy per unit); the per-device cache is shared (inline).
constexpr const char *kPreamble = R"(#ifndef KBCC_ADAPTER_RUNTIME_V1
#define KBCC_ADAPTER_RUNTIME_V1
#include <stdio.h>
#include <stdlib.h>
namespace __kbcc_rt_v1 {
template <class... P> struct types {};
template <unsigned I, class L> struct at;
template <class H, class... T> struct at<0, types<H, T...> > { typedef H type; };
template <unsigned I, class H, class... T> struct at<I, types<H, T...> > {
  typedef typename at<I - 1, types<T...> >::type type;
};
template <class F> struct sig;
template <class... P> struct sig<void (*)(P...)> { typedef types<P...> params; };
template <class F, unsigned I> struct param { typedef typename at<I, typename sig<F>::params>::type type; };
struct calc {
  bool bad;
  calc() : bad(false) {}
  long long add(long long a, long long b) { long long r = 0; if (__builtin_add_overflow(a, b, &r)) bad = true; return r; }
  long long sub(long long a, long long b) { long long r = 0; if (__builtin_sub_overflow(a, b, &r)) bad = true; return r; }
  long long mul(long long a, long long b) { long long r = 0; if (__builtin_mul_overflow(a, b, &r)) bad = true; return r; }
  long long neg(long long a) { return sub(0, a); }
  long long div(long long a, long long b) {
    if (b == 0 || (b == -1 && a == -9223372036854775807LL - 1)) { bad = true; return 0; }
    return a / b;
  }
  long long mod(long long a, long long b) {
    if (b == 0 || b == -1) { if (b == 0) bad = true; return 0; }
    return a % b;
  }
  long long ceil_div(long long a, long long b) {
    long long q = div(a, b);
    if (!bad && a % b != 0 && ((a < 0) == (b < 0))) ++q;
    return q;
  }
  long long min(long long a, long long b) { return a < b ? a : b; }
  long long max(long long a, long long b) { return a < b ? b : a; }
};
inline bool valid(long long gx, long long gy, long long gz, long long bx, long long by, long long bz, long long s) {
  return gx >= 1 && gx <= 2147483647LL && gy >= 1 && gy <= 65535 && gz >= 1 && gz <= 65535 && bx >= 1 &&
         bx <= 1024 && by >= 1 && by <= 1024 && bz >= 1 && bz <= 64 && bx * by * bz <= 1024 && s >= 0 &&
         s <= 49152;
}
inline int device_cc() {
  static int cache[128];
  int d = -1;
  if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= 128) return 0;
  int cc = __atomic_load_n(&cache[d], __ATOMIC_RELAXED);
  if (cc != 0) return cc;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d) != cudaSuccess)
    return 0;
  cc = major * 100 + minor * 10;
  __atomic_store_n(&cache[d], cc, __ATOMIC_RELAXED);
  return cc;
}
enum outcome { variant = 0, fallback_arch = 1, fallback_precondition = 2, fallback_launch = 3 };
struct counters {
  const char *hash, *name;
  unsigned long long n[4];
  int listed;
  counters *next;
};
inline const char *stats_setting() {
  static const char *value = getenv("KBCC_ADAPTER_STATS");
  return value && *value ? value : 0;
}
static inline counters *&stats_list() { static counters *head = 0; return head; }
static inline void write_stats() {
  const char *setting = stats_setting();
  char path[4096];
  const char *dir = getenv("KBCC_DIR"), *home = getenv("HOME");
  if (setting && setting[0] == '/') snprintf(path, sizeof path, "%s/adapter-stats.jsonl", setting);
  else if (dir && *dir) snprintf(path, sizeof path, "%s/adapter-stats.jsonl", dir);
  else snprintf(path, sizeof path, "%s/.cache/kbcc/adapter-stats.jsonl", home ? home : ".");
  FILE *f = fopen(path, "a");
  if (!f) return;
  for (counters *c = stats_list(); c; c = c->next)
    fprintf(f, "{\"kernel\":\"%s\",\"name\":\"%s\",\"variant\":%llu,\"fallback_arch\":%llu,"
               "\"fallback_precondition\":%llu,\"fallback_launch\":%llu}\n",
            c->hash, c->name, c->n[0], c->n[1], c->n[2], c->n[3]);
  fclose(f);
}
static inline void count(counters &c, outcome o) {
  if (!stats_setting()) return;
  if (__atomic_exchange_n(&c.listed, 1, __ATOMIC_ACQ_REL) == 0) {
    counters *head = __atomic_load_n(&stats_list(), __ATOMIC_ACQUIRE);
    do { c.next = head; } while (!__atomic_compare_exchange_n(&stats_list(), &head, &c, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    if (head == 0) atexit(write_stats);
  }
  __atomic_fetch_add(&c.n[o], 1ULL, __ATOMIC_RELAXED);
}
} // namespace __kbcc_rt_v1
#endif
)";

// C++ string literal contents for `s` (quotes and backslashes escaped).
std::string c_escaped(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

std::string spell(const std::string &name) {
  if (name.rfind("grid.", 0) == 0) return "grid_" + name.substr(5);
  if (name.rfind("block.", 0) == 0) return "block_" + name.substr(6);
  if (name == "shared") return "shared_bytes";
  return "v_" + name;
}

// Parameters the mappings read, with their index.
struct Used {
  std::set<std::string> values, pointers;
};

Expected<Used> used_names(const AdapterSpec &spec) {
  Used u;
  for (const AdapterVariant &v : spec.variants) {
    if (auto s = check_mapping(v.mapping, spec.params); !s) return s.error();
    std::vector<std::string> all(v.mapping.preconditions);
    all.insert(all.end(), v.mapping.grid.begin(), v.mapping.grid.end());
    all.insert(all.end(), v.mapping.block.begin(), v.mapping.block.end());
    all.push_back(v.mapping.shared);
    for (const std::string &text : all) {
      auto e = parse_expr(text);
      if (!e) return e.error();
      collect_names(**e, u.values, u.pointers);
    }
  }
  return u;
}

std::string joined_args(size_t n, const char *prefix = "a") {
  std::string s;
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::string(prefix) + std::to_string(i);
  return s;
}

// `pick`: decides per launch; on a variant, rewrites g, b and s.
std::string pick_function(const AdapterSpec &spec, const Used &used) {
  std::ostringstream o;
  size_t n = spec.params.size();
  o << "  static int pick(bool allowed, dim3 &g, dim3 &b, size_t &s";
  for (size_t i = 0; i < n; ++i)
    o << ", const typename p<" << i << ">::type &a" << i;
  o << ") {\n#if !defined(__CUDA_ARCH__)\n";
  o << "    __kbcc_rt_v1::counters &c = stats();\n";
  o << "    if (!allowed) { __kbcc_rt_v1::count(c, __kbcc_rt_v1::fallback_launch); return -1; }\n";
  o << "    long long grid_x = g.x, grid_y = g.y, grid_z = g.z, block_x = b.x, block_y = b.y, block_z = b.z;\n";
  o << "    long long shared_bytes = (long long)s;\n";
  o << "    (void)grid_x; (void)grid_y; (void)grid_z; (void)block_x; (void)block_y; (void)block_z;"
       " (void)shared_bytes;\n";
  for (size_t i = 0; i < n; ++i) {
    const std::string &name = spec.params[i].name;
    if (used.values.count(name)) o << "    long long v_" << name << " = (long long)a" << i << ";\n";
    if (used.pointers.count(name))
      o << "    unsigned long long v_" << name << " = (unsigned long long)(size_t)a" << i << ";\n";
  }
  for (size_t i = 0; i < n; ++i)
    o << "    (void)a" << i << ";\n";
  o << "    switch (__kbcc_rt_v1::device_cc()) {\n";
  for (size_t k = 0; k < spec.variants.size(); ++k) {
    const AdapterVariant &v = spec.variants[k];
    auto cpp = [&](const std::string &text) { return to_cpp(**parse_expr(text), "m", spell); };
    o << "    case " << v.arch << ": {\n      __kbcc_rt_v1::calc m;\n";
    for (const std::string &pre : v.mapping.preconditions)
      o << "      if (" << cpp(pre) << " == 0 || m.bad) { __kbcc_rt_v1::count(c, "
        << "__kbcc_rt_v1::fallback_precondition); return -1; }\n";
    o << "      long long gx = " << cpp(v.mapping.grid[0]) << ", gy = " << cpp(v.mapping.grid[1])
      << ", gz = " << cpp(v.mapping.grid[2]) << ";\n";
    o << "      long long bx = " << cpp(v.mapping.block[0]) << ", by = " << cpp(v.mapping.block[1])
      << ", bz = " << cpp(v.mapping.block[2]) << ";\n";
    o << "      long long sh = " << cpp(v.mapping.shared) << ";\n";
    o << "      if (m.bad || !__kbcc_rt_v1::valid(gx, gy, gz, bx, by, bz, sh)) { __kbcc_rt_v1::count(c, "
      << "__kbcc_rt_v1::fallback_launch); return -1; }\n";
    o << "      g = dim3((unsigned)gx, (unsigned)gy, (unsigned)gz); b = dim3((unsigned)bx, (unsigned)by, "
         "(unsigned)bz); s = (size_t)sh;\n";
    o << "      __kbcc_rt_v1::count(c, __kbcc_rt_v1::variant);\n      return " << k << ";\n    }\n";
  }
  o << "    default:\n      __kbcc_rt_v1::count(c, __kbcc_rt_v1::fallback_arch);\n      return -1;\n    }\n";
  o << "#else\n    return -1;\n#endif\n  }\n";
  return o.str();
}

// One `case k: <launch of variant k>` per variant, for a launch statement built by `launch`.
template <class F> std::string variant_cases(const AdapterSpec &spec, F launch) {
  std::string s;
  for (size_t k = 0; k < spec.variants.size(); ++k)
    s += "    case " + std::to_string(k) + ": " + launch(spec.variants[k].kernel_ref) + "\n";
  return s;
}

std::string typed_params(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i)
    s += ", typename p<" + std::to_string(i) + ">::type a" + std::to_string(i);
  return s;
}

std::string args_from_array(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i)
    s += ", *(typename p<" + std::to_string(i) + ">::type *)args[" + std::to_string(i) + "]";
  return s;
}

} // namespace

std::string runtime_preamble() { return kPreamble; }

std::string variant_kernel_name(const std::string &kernel, const std::string &arch) {
  return kernel + "__kbcc_" + arch;
}

Expected<std::string> adapter_definition(const AdapterSpec &spec) {
  auto used = used_names(spec);
  if (!used) return used.error();
  size_t n = spec.params.size();
  std::string args = joined_args(n);
  std::string comma_args = n ? ", " + args : "";
  const std::string &K = spec.kernel_ref;
  std::ostringstream o;
  o << "struct " << spec.name << " {\n";
  o << "  typedef decltype(&" << K << ") kernel_type;\n";
  o << "  template <unsigned I> struct p { typedef typename __kbcc_rt_v1::param<kernel_type, I>::type type; };\n";
  o << "  dim3 g_, b_;\n  size_t s_;\n  cudaStream_t st_;\n";
  o << "  " << spec.name << "(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0) : g_(g), b_(b), s_(s), st_(st) {}\n";
  o << "  static __kbcc_rt_v1::counters &stats() {\n    static __kbcc_rt_v1::counters c = {\""
    << c_escaped(spec.kernel_hash) << "\", \"" << c_escaped(spec.display) << "\", {0, 0, 0, 0}, 0, 0};\n"
    << "    return c;\n  }\n";
  o << pick_function(spec, *used);
  // K<<<g, b, s, st>>>(args)
  o << "  void operator()(" << typed_params(n).substr(n ? 2 : 0) << ") const {\n";
  o << "#if !defined(__CUDA_ARCH__)\n    dim3 g = g_, b = b_;\n    size_t s = s_;\n";
  o << "    switch (pick(true, g, b, s" << comma_args << ")) {\n";
  o << variant_cases(spec, [&](const std::string &v) { return v + "<<<g, b, s, st_>>>(" + args + "); return;"; });
  o << "    default: break;\n    }\n#endif\n";
  o << "    " << K << "<<<g_, b_, s_, st_>>>(" << args << ");\n  }\n";
  // cudaLaunchKernel(f, g, b, args, s, st)
  o << "  static cudaError_t launch_kernel(const void *f, dim3 g, dim3 b, void **args, size_t s = 0, "
       "cudaStream_t st = 0) {\n";
  o << "#if !defined(__CUDA_ARCH__)\n";
  o << "    dim3 g2 = g, b2 = b;\n    size_t s2 = s;\n";
  o << "    if (args != 0 && f == (const void *)&" << K << ") switch (pick(true, g2, b2, s2"
    << (n ? args_from_array(n) : "") << ")) {\n";
  o << variant_cases(spec, [](const std::string &v) {
    return "return cudaLaunchKernel((const void *)&" + v + ", g2, b2, args, s2, st);";
  });
  o << "    default: break;\n    }\n#endif\n";
  o << "    return cudaLaunchKernel(f, g, b, args, s, st);\n  }\n";
  o << "  template <class T> static cudaError_t launch_kernel(T *f, dim3 g, dim3 b, void **args, size_t s = 0, "
       "cudaStream_t st = 0) {\n    return launch_kernel((const void *)f, g, b, args, s, st);\n  }\n";
  // cudaLaunchKernelEx(cfg, K, args...)
  o << "  static cudaError_t launch_ex(const cudaLaunchConfig_t *config, kernel_type k" << typed_params(n) << ") {\n";
  o << "#if !defined(__CUDA_ARCH__)\n";
  o << "    if (config && k == &" << K << ") {\n";
  o << "      cudaLaunchConfig_t c2 = *config;\n      dim3 g = c2.gridDim, b = c2.blockDim;\n"
       "      size_t s = c2.dynamicSmemBytes;\n";
  o << "      int which = pick(c2.numAttrs == 0, g, b, s" << comma_args << ");\n";
  o << "      c2.gridDim = g;\n      c2.blockDim = b;\n      c2.dynamicSmemBytes = s;\n";
  o << "      switch (which) {\n";
  o << variant_cases(spec, [&](const std::string &v) {
    return "return cudaLaunchKernelEx(&c2, &" + v + comma_args + ");";
  });
  o << "      default: break;\n      }\n    }\n#endif\n";
  o << "    return cudaLaunchKernelEx(config, k" << comma_args << ");\n  }\n";
  // cudaLaunchKernelExC(cfg, f, args)
  o << "  static cudaError_t launch_ex_c(const cudaLaunchConfig_t *config, const void *f, void **args) {\n";
  o << "#if !defined(__CUDA_ARCH__)\n";
  o << "    if (config && args != 0 && f == (const void *)&" << K << ") {\n";
  o << "      cudaLaunchConfig_t c2 = *config;\n      dim3 g = c2.gridDim, b = c2.blockDim;\n"
       "      size_t s = c2.dynamicSmemBytes;\n";
  o << "      int which = pick(c2.numAttrs == 0, g, b, s" << (n ? args_from_array(n) : "") << ");\n";
  o << "      c2.gridDim = g;\n      c2.blockDim = b;\n      c2.dynamicSmemBytes = s;\n";
  o << "      switch (which) {\n";
  o << variant_cases(spec, [](const std::string &v) {
    return "return cudaLaunchKernelExC(&c2, (const void *)&" + v + ", args);";
  });
  o << "      default: break;\n      }\n    }\n#endif\n";
  o << "    return cudaLaunchKernelExC(config, f, args);\n  }\n";
  o << "};\n";
  return o.str();
}

} // namespace kbcc::launch

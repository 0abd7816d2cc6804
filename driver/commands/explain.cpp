// `kbcc explain`: the kernels of one unit as kbcc sees them, with the inputs
// of each kernel's hash (like ccache's debug mode).
#include "cache/variant.h"
#include "driver/args.h"
#include "driver/command.h"
#include "driver/stage_tooling.h"
#include "driver/toolchain.h"
#include "support/config.h"
#include "support/fs.h"
#include "tooling/extract.h"
#include "tooling/extract_cache.h"
#include "tooling/serialize.h"
#include "tooling/toolchain.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

namespace kbcc::driver {
namespace {

const char *kUsage = "Usage: kbcc explain [--verbose] [--json] [--arch sm_XX] <file.cu> [nvcc flags]\n"
                     "\n"
                     "Parses <file.cu> as kbcc does during a build (device side, one arch at a time)\n"
                     "and prints every __global__ kernel defined in it: qualified name, device mangled\n"
                     "name, file and byte range, parameters (type, size, offset), launch sites (and whether\n"
                     "kbcc can route each through a launch adapter), whether a variant may replace it, the\n"
                     "variant the local store holds for it (launch mapping, numerics class), and its hash.\n"
                     "Nothing is recorded.\n"
                     "Clang's errors are printed as \"clang: file:line:col: error: message\" (nvcc may\n"
                     "accept code clang rejects: kernels are still listed, and a kernel with an error\n"
                     "inside is not optimizable); a fatal error (e.g. an include not found) ends the\n"
                     "parse and is quoted in the failure message.\n"
                     "\n"
                     "Options:\n"
                     "  --verbose      also print every labelled input of each hash (the exact text hashed)\n"
                     "  --json         print the extraction as JSON instead\n"
                     "  --cache        use (and fill) the extraction cache in $KBCC_DIR/extract as a build does;\n"
                     "                 the first line then says whether it was a hit and how long the lookup took\n"
                     "  --arch sm_XX   the arch to parse for (default: the real archs in the nvcc flags, else sm_75)\n"
                     "\n"
                     "nvcc flags: the flags of the compile (-D, -U, -I, -isystem, -include, -std, -arch,\n"
                     "-gencode, --use_fast_math, -G, -Xptxas, -ccbin, ...). Flags that cannot change device code\n"
                     "(-c, -o, -Xcompiler, ...) are ignored. The toolchain identity comes from the nvcc\n"
                     "of the `nvcc` config key (default /usr/local/cuda/bin/nvcc). The include directories of\n"
                     "the host compiler nvcc would run (-ccbin, else NVCC_CCBIN, else gcc) are searched\n"
                     "after clang's own, as in a build.";

struct Options {
  bool verbose = false, json = false, use_cache = false;
  std::vector<std::string> archs;     // --arch: which archs to print (default: the compile's)
  std::vector<std::string> nvcc_args; // everything else: the file and the nvcc flags of the compile
};

Expected<Options> parse_options(const std::vector<std::string> &args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--verbose")
      o.verbose = true;
    else if (a == "--json")
      o.json = true;
    else if (a == "--cache")
      o.use_cache = true;
    else if (a == "--arch" && i + 1 < args.size())
      o.archs.push_back(args[++i]);
    else if (a.rfind("--arch=", 0) == 0)
      o.archs.push_back(a.substr(7));
    else
      o.nvcc_args.push_back(a);
  }
  if (o.nvcc_args.empty()) return make_error("kbcc explain: no source file given (see kbcc explain --help)");
  return o;
}

// The compile a build would see for these flags, classified by the driver's
// own argument model, so that explain hashes exactly what a build hashes.
// "-c" is implied, and -arch=<first --arch, else sm_75> when no target is named.
Expected<Compilation> compilation_for(const Options &o, const std::string &nvcc) {
  std::vector<std::string> argv{nvcc};
  argv.insert(argv.end(), o.nvcc_args.begin(), o.nvcc_args.end());
  NvccEnvironment env = NvccEnvironment::current();
  ParseResult parsed = parse_nvcc_command(argv, env);
  if (std::holds_alternative<NotCompilation>(parsed)) {
    argv.push_back("-c");
    parsed = parse_nvcc_command(argv, env);
  }
  if (auto *co = std::get_if<CannotOptimize>(&parsed); co && co->reason == "default-arch") {
    argv.push_back("-arch=" + (o.archs.empty() ? std::string("sm_75") : o.archs.front()));
    parsed = parse_nvcc_command(argv, env);
  }
  if (auto *c = std::get_if<Compilation>(&parsed)) return *c;
  if (auto *co = std::get_if<CannotOptimize>(&parsed))
    return make_error("kbcc explain: kbcc does not optimize this compile (" + co->reason + "): " + co->detail);
  return make_error("kbcc explain: not a compilation of one CUDA source (" + std::get<NotCompilation>(parsed).what +
                    ")");
}

// The stored variant of (k, arch), described in one line plus its mapping.
void print_variant(const tooling::Kernel &k, const std::string &arch, cache::VariantStore *store) {
  if (!store || !k.not_optimizable.empty()) return;
  auto v = store->get(k.hash, arch);
  if (!v || !*v) return;
  const cache::VariantRecord &r = **v;
  std::printf("  variant: %s, %.2fx, numerics %s%s\n", r.id().substr(0, 16).c_str(), r.timing.speedup(),
              r.numerics.empty() ? "unknown" : r.numerics.c_str(), r.launch ? ", changes the launch" : "");
  if (!r.launch) return;
  const launch::LaunchMapping &m = *r.launch;
  std::printf("    grid (%s, %s, %s) block (%s, %s, %s) shared %s\n", m.grid[0].c_str(), m.grid[1].c_str(),
              m.grid[2].c_str(), m.block[0].c_str(), m.block[1].c_str(), m.block[2].c_str(), m.shared.c_str());
  for (const std::string &p : m.preconditions)
    std::printf("    when %s\n", p.c_str());
}

// The first clang error inside the definition of `k` (same file, within its
// lines), formatted; "" when none is (the error may be in a callee).
std::string error_in(const tooling::Kernel &k, const std::vector<tooling::ParseDiagnostic> &diagnostics) {
  unsigned last = k.line + static_cast<unsigned>(std::count(k.source.begin(), k.source.end(), '\n'));
  for (const tooling::ParseDiagnostic &d : diagnostics)
    if (!d.file.empty() && d.line >= k.line && d.line <= last && real_path(d.file) == k.file)
      return tooling::format_diagnostic(d);
  return "";
}

void print_kernel(const tooling::Kernel &k, const std::vector<tooling::ParseDiagnostic> &diagnostics, bool verbose) {
  std::printf("kernel %s\n", k.qualified_name.c_str());
  for (const std::string &m : k.mangled_names)
    std::printf("  mangled: %s\n", m.c_str());
  std::printf("  location: %s:%u bytes %llu-%llu%s\n", k.file.c_str(), k.line, (unsigned long long)k.begin,
              (unsigned long long)k.end, k.in_main_file ? "" : " (header)");
  for (size_t i = 0; i < k.params.size(); ++i) {
    const tooling::Param &p = k.params[i];
    std::printf("  param %zu: %s %s size=%llu align=%llu offset=%llu", i, p.type.c_str(),
                p.name.empty() ? "<unnamed>" : p.name.c_str(), (unsigned long long)p.size, (unsigned long long)p.align,
                (unsigned long long)p.offset);
    if (p.is_pointer) std::printf(" pointer pointee=%s%s", p.pointee_type.c_str(), p.pointee_const ? " const" : "");
    if (p.is_record) std::printf(" record");
    std::printf("\n");
  }
  for (const tooling::LaunchSite &l : k.launches)
    std::printf("  launch: %s:%u:%u %s%s\n", l.file.c_str(), l.line, l.column, l.form.c_str(),
                l.not_rewritable.empty() ? "" : (" kept (" + l.not_rewritable + ")").c_str());
  std::printf("  launch adapter: %s\n", k.not_adaptable.empty() ? "yes" : ("no (" + k.not_adaptable + ")").c_str());
  std::string why = k.not_optimizable;
  if (why == tooling::kParseErrorInKernel)
    if (std::string e = error_in(k, diagnostics); !e.empty()) why += ": " + e;
  std::printf("  optimizable: %s\n", why.empty() ? "yes" : ("no (" + why + ")").c_str());
  std::printf("  hash: %s\n", k.hash.c_str());
  if (!verbose) return;
  for (const tooling::HashSection &s : k.hash_inputs)
    std::printf("  hash input [%s] (%zu bytes):\n    %s\n", s.label.c_str(), s.text.size(), s.text.c_str());
}

// Extraction as a build does it: from `cache_dir` when given and valid, else
// parsed in a child (and stored when `cache_dir` is given).
Expected<tooling::Extraction> extract(const tooling::ParseRequest &request, const std::string &cache_dir,
                                      double timeout) {
  std::optional<tooling::ExtractCache> cache;
  if (!cache_dir.empty()) cache.emplace(cache_dir);
  if (cache)
    if (auto hit = cache->lookup(request)) return std::move(*hit);
  auto x = tooling::extract_isolated(request, std::chrono::milliseconds(static_cast<int64_t>(timeout * 1000)));
  if (x && cache)
    if (auto stored = cache->store(request, *x); !stored)
      std::fprintf(stderr, "kbcc explain: not cached: %s\n", stored.error().message.c_str());
  return x;
}

int run_explain(const std::vector<std::string> &args) {
  auto options = parse_options(args);
  if (!options) {
    std::fprintf(stderr, "%s\n", options.error().message.c_str());
    return 2;
  }
  auto config = Config::load();
  if (!config) {
    std::fprintf(stderr, "kbcc explain: %s\n", config.error().message.c_str());
    return 2;
  }
  std::string nvcc = config->get("nvcc").empty() ? "/usr/local/cuda/bin/nvcc" : config->get("nvcc");
  auto compilation = compilation_for(*options, nvcc);
  if (!compilation) {
    std::fprintf(stderr, "%s\n", compilation.error().message.c_str());
    return 2;
  }
  CompileUnit &unit = compilation->unit;
  if (!file_exists(unit.source_abs.empty() ? unit.source : unit.source_abs)) {
    std::fprintf(stderr, "kbcc explain: %s: no such file\n", unit.source.c_str());
    return 2;
  }
  auto toolchain = toolchain_id(nvcc, config->dir());
  unit.toolchain = toolchain ? *toolchain : tooling::toolchain_identity(nvcc);
  std::vector<std::string> archs = options->archs.empty() ? unit.archs : options->archs;
  double timeout = config->get_double("parse_timeout");
  std::unique_ptr<cache::Env> env; // the local store, read only when it exists
  std::optional<cache::VariantStore> store;
  if (file_exists(config->dir() + "/store/data.mdb"))
    if (auto e = cache::Env::open(config->dir(), cache::env_options(*config, true)); e) {
      env = std::move(*e);
      store.emplace(*env);
    }
  int status = 0;
  for (const std::string &arch : archs) {
    tooling::ParseRequest request = parse_request_for(unit, arch, config->dir());
    auto start = std::chrono::steady_clock::now();
    auto x = extract(request, options->use_cache ? config->dir() + "/extract" : "", timeout);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!x) {
      std::fprintf(stderr, "kbcc explain: %s (%s)\n", x.error().message.c_str(), x.error().code.c_str());
      status = 1;
      continue;
    }
    if (options->json) {
      std::printf("%s\n", tooling::extraction_to_json(*x).c_str());
      continue;
    }
    std::string how = x->from_cache ? "extraction cache hit, lookup " + std::to_string(seconds).substr(0, 5) + " s"
                                    : "parse " + std::to_string(x->parse_seconds).substr(0, 4) + " s";
    std::printf("%s: %zu kernel(s) for %s (%s, %u clang error(s) tolerated)\n", x->source_path.c_str(),
                x->kernels.size(), arch.c_str(), how.c_str(), x->parse_errors);
    for (const tooling::ParseDiagnostic &d : x->diagnostics)
      std::printf("clang: %s\n", tooling::format_diagnostic(d).c_str());
    if (x->parse_errors > x->diagnostics.size())
      std::printf("clang: (%zu more error(s) not kept)\n", x->parse_errors - x->diagnostics.size());
    std::printf("toolchain: %s\n", request.toolchain.c_str());
    for (const tooling::Kernel &k : x->kernels) {
      print_kernel(k, x->diagnostics, options->verbose);
      print_variant(k, arch, store ? &*store : nullptr);
    }
  }
  return status;
}

} // namespace

KBCC_COMMAND("explain", "list the kernels of a .cu file with their hashes and hash inputs", kUsage, run_explain);

} // namespace kbcc::driver

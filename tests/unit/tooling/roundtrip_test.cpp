// Rewrite round trip through the real nvcc: the variant for each arch must be
// the code of that arch only (checked in cuobjdump -sass, or in the cubin's
// bytes where cuobjdump is not installed), and diagnostics in
// a variant must name the variant.
#include "support/fs.h"
#include "support/process.h"
#include "tooling/extract.h"
#include "tooling/rewrite.h"

#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::tooling;

namespace {

const std::string kDir = std::string(KBCC_TOOLING_INPUTS) + "/rewrite";
const std::string kNvcc = std::string(KBCC_CUDA_ROOT) + "/bin/nvcc";

std::string variant(unsigned mark) {
  return "__global__ void marked(unsigned *out) {\n  out[threadIdx.x] = " + std::to_string(mark) +
         "u + helper(threadIdx.x);\n}";
}

// The kernel `marked` of unit.cu for `arch`.
Kernel marked_kernel(const std::string &arch) {
  ParseRequest r;
  r.source = kDir + "/unit.cu";
  r.arch = arch;
  r.cuda_root = KBCC_CUDA_ROOT;
  r.shim_dir = *make_temp_dir("kbcc-roundtrip-shims");
  auto x = extract_in_process(r);
  EXPECT_TRUE(x);
  remove_all(r.shim_dir);
  for (const Kernel &k : x->kernels)
    if (k.qualified_name == "marked") return k;
  ADD_FAILURE() << "kernel 'marked' not found";
  return {};
}

// The machine code nvcc produced for one arch: the cuobjdump -sass listing of
// that arch when cuobjdump is installed, else the bytes of a cubin for it.
struct ArchCode {
  std::string text;
  bool is_sass = false;
  // Whether the 32-bit immediate `value` occurs in the code.
  bool has(uint32_t value) const {
    if (is_sass) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%x", value);
      return text.find(hex) != std::string::npos;
    }
    std::string bytes(4, '\0');
    for (int i = 0; i < 4; ++i)
      bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    return text.find(bytes) != std::string::npos;
  }
};

// SASS listing of `arch` in `object`.
std::string sass_of(const std::string &cuobjdump, const std::string &object, const std::string &arch) {
  auto r = run_process({cuobjdump, "-sass", object});
  if (!r || r->exit_code != 0) return {};
  std::string out, current;
  size_t pos = 0;
  while (pos < r->out.size()) {
    size_t nl = r->out.find('\n', pos);
    std::string line = r->out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (auto a = line.find("arch = "); a != std::string::npos) current = line.substr(a + 7);
    if (current == arch) out += line + "\n";
    pos = nl == std::string::npos ? r->out.size() : nl + 1;
  }
  return out;
}

ArchCode code_for(const std::string &tmp, const std::string &arch) {
  std::string cuobjdump = std::string(KBCC_CUDA_ROOT) + "/bin/cuobjdump";
  if (file_exists(cuobjdump)) return {sass_of(cuobjdump, tmp + "/unit.o", arch), true};
  std::string cubin = tmp + "/unit." + arch + ".cubin";
  auto r = run_process({kNvcc, "-cubin", "-arch=" + arch, "-I" + kDir, tmp + "/unit.cu", "-o", cubin});
  EXPECT_TRUE(r && r->exit_code == 0);
  return {read_file(cubin).value_or(std::string()), false};
}

} // namespace

TEST(RewriteRoundTrip, EachArchGetsItsOwnVariantOnly) {
  if (!file_exists(kNvcc)) GTEST_SKIP() << "nvcc not found";
  Kernel k80 = marked_kernel("sm_80"), k90 = marked_kernel("sm_90");
  ASSERT_EQ(k80.begin, k90.begin);
  auto text = read_file(kDir + "/unit.cu");
  ASSERT_TRUE(text);
  Substitution s{
      k80.begin, k80.end, {{800, "kbcc-variant-80", variant(0x5eed80)}, {900, "kbcc-variant-90", variant(0x5eed90)}}};
  auto rewritten = rewrite_unit(*text, real_path(kDir + "/unit.cu"), {s});
  ASSERT_TRUE(rewritten) << rewritten.error().message;
  std::string tmp = *make_temp_dir("kbcc-roundtrip");
  ASSERT_TRUE(write_file_atomic(tmp + "/unit.cu", *rewritten));
  auto nvcc = run_process({kNvcc, "-c", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                           "arch=compute_90,code=sm_90", "-I" + kDir, tmp + "/unit.cu", "-o", tmp + "/unit.o"});
  ASSERT_TRUE(nvcc);
  ASSERT_EQ(nvcc->exit_code, 0) << nvcc->err;
  ArchCode sm80 = code_for(tmp, "sm_80"), sm90 = code_for(tmp, "sm_90");
  ASSERT_FALSE(sm80.text.empty());
  ASSERT_FALSE(sm90.text.empty());
  EXPECT_TRUE(sm80.has(0x5eed80));
  EXPECT_FALSE(sm80.has(0x5eed90));
  EXPECT_TRUE(sm90.has(0x5eed90));
  EXPECT_FALSE(sm90.has(0x5eed80));
  for (const ArchCode *code : {&sm80, &sm90}) {
    EXPECT_FALSE(code->has(0x0badf00d)) << "the original kernel is still compiled";
    EXPECT_TRUE(code->has(0x7e57)) << "the untouched kernel is missing";
  }
  remove_all(tmp);
}

// Compiles `unit` (rewritten with `sub`) for sm_80 and returns nvcc's stderr.
std::string diagnostics(const std::string &unit, const std::string &path, const Substitution &sub) {
  auto rewritten = rewrite_unit(unit, path, {sub});
  EXPECT_TRUE(rewritten);
  std::string tmp = *make_temp_dir("kbcc-roundtrip");
  EXPECT_TRUE(write_file_atomic(tmp + "/unit.cu", rewritten.value_or(std::string())));
  auto nvcc = run_process({kNvcc, "-c", "-arch=sm_80", "-I" + kDir, tmp + "/unit.cu", "-o", tmp + "/unit.o"});
  remove_all(tmp);
  EXPECT_TRUE(nvcc && nvcc->exit_code != 0);
  return nvcc ? nvcc->err : std::string();
}

TEST(RewriteRoundTrip, DiagnosticsNameTheVariantAndTheUserFile) {
  if (!file_exists(kNvcc)) GTEST_SKIP() << "nvcc not found";
  Kernel k = marked_kernel("sm_80");
  auto text = read_file(kDir + "/unit.cu");
  ASSERT_TRUE(text);
  std::string path = real_path(kDir + "/unit.cu");
  std::string broken = "__global__ void marked(unsigned *out) {\n  out[0] = not_declared_in_variant;\n}";
  std::string err = diagnostics(*text, path, {k.begin, k.end, {{800, "kbcc-variant-80", broken}}});
  EXPECT_NE(err.find("kbcc-variant-80(2)"), std::string::npos) << err;

  std::string unit = *text + "\nstatic_assert(sizeof(int) == 1, \"original-file-line\");\n";
  unsigned assert_line = static_cast<unsigned>(std::count(text->begin(), text->end(), '\n')) + 2;
  err = diagnostics(unit, path, {k.begin, k.end, {{800, "kbcc-variant-80", variant(0x5eed80)}}});
  EXPECT_NE(err.find(path + "(" + std::to_string(assert_line) + ")"), std::string::npos) << err;
}

TEST(DependencyText, KernelAndItsDependenciesCompileOnTheirOwn) {
  if (!file_exists(kNvcc)) GTEST_SKIP() << "nvcc not found";
  ParseRequest r;
  r.source = std::string(KBCC_TOOLING_INPUTS) + "/hash/base.cu";
  r.arch = "sm_80";
  r.cuda_root = KBCC_CUDA_ROOT;
  std::string tmp = *make_temp_dir("kbcc-deps");
  r.shim_dir = tmp + "/shims";
  auto x = extract_in_process(r);
  ASSERT_TRUE(x);
  const Kernel *target = nullptr;
  for (const Kernel &k : x->kernels)
    if (k.qualified_name == "target") target = &k;
  ASSERT_TRUE(target);
  EXPECT_NE(target->dependencies.find("#define FACTOR 3"), std::string::npos);
  EXPECT_EQ(target->dependencies.find("unrelated"), std::string::npos);
  ASSERT_TRUE(write_file_atomic(tmp + "/alone.cu", target->dependencies + target->source + "\n"));
  auto nvcc = run_process({kNvcc, "-c", "-arch=sm_80", tmp + "/alone.cu", "-o", tmp + "/alone.o"});
  ASSERT_TRUE(nvcc);
  EXPECT_EQ(nvcc->exit_code, 0) << nvcc->err;
  remove_all(tmp);
}

#include "support/fs.h"
#include "tooling/extract.h"
#include "tooling/source_range.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::tooling;

namespace {

ParseRequest request(const std::string &file, const std::string &arch) {
  ParseRequest r;
  r.source = std::string(KBCC_TOOLING_INPUTS) + "/" + file;
  r.arch = arch;
  r.cuda_root = KBCC_CUDA_ROOT;
  r.toolchain = "test-toolchain";
  // One shim directory for the test program, removed when it exits.
  static const struct Shims {
    std::string dir = *make_temp_dir("kbcc-extract-test");
    ~Shims() { remove_all(dir); }
  } shims;
  r.shim_dir = shims.dir;
  return r;
}

const Kernel *find(const Extraction &x, const std::string &name) {
  for (const Kernel &k : x.kernels)
    if (k.qualified_name == name) return &k;
  return nullptr;
}

} // namespace

TEST(Extract, FindsEveryKindOfKernel) {
  auto x = extract_in_process(request("basic.cu", "sm_80"));
  ASSERT_TRUE(x) << x.error().message;
  for (const char *name :
       {"saxpy", "scale<float>", "scale<int>", "ns::inner::fill", "c_kernel", "local_kernel", "header_kernel"})
    EXPECT_TRUE(find(*x, name)) << name;
  EXPECT_EQ(x->kernels.size(), 7u);
  EXPECT_EQ(find(*x, "c_kernel")->mangled_names[0], "c_kernel");
  EXPECT_EQ(find(*x, "local_kernel")->mangled_names[0], "_Z12local_kernelPi");
  EXPECT_EQ(find(*x, "header_kernel")->not_optimizable, kKernelInHeader);
  EXPECT_FALSE(find(*x, "header_kernel")->in_main_file);
}

TEST(Extract, ParamsHaveTypesSizesAndOffsets) {
  auto x = extract_in_process(request("basic.cu", "sm_80"));
  ASSERT_TRUE(x);
  const Kernel *fill = find(*x, "ns::inner::fill");
  ASSERT_TRUE(fill);
  ASSERT_EQ(fill->params.size(), 3u);
  EXPECT_EQ(fill->params[1].type, "double");
  EXPECT_EQ(fill->params[1].offset, 8u);
  EXPECT_EQ(fill->params[2].size, 1u);
  EXPECT_EQ(fill->params[2].offset, 16u);
  const Kernel *saxpy = find(*x, "saxpy");
  EXPECT_TRUE(saxpy->params[2].is_pointer);
  EXPECT_TRUE(saxpy->params[2].pointee_const);
  EXPECT_EQ(saxpy->params[2].pointee_type, "float");
  EXPECT_TRUE(find(*x, "c_kernel")->params[0].is_record);
}

TEST(Extract, RangeIsTheWholeDefinition) {
  auto x = extract_in_process(request("basic.cu", "sm_80"));
  ASSERT_TRUE(x);
  const Kernel *scale = find(*x, "scale<int>");
  ASSERT_TRUE(scale);
  auto text = read_file(scale->file);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->substr(scale->begin, scale->end - scale->begin), scale->source);
  EXPECT_EQ(scale->source.rfind("template <typename T>", 0), 0u);
  EXPECT_EQ(scale->source.back(), '}');
}

TEST(Extract, ClangOnlyErrorsAreToleratedAndMarkTheKernel) {
  auto x = extract_in_process(request("clang-rejects.cu", "sm_90"));
  ASSERT_TRUE(x) << x.error().message;
  EXPECT_GT(x->parse_errors, 0u);
  EXPECT_EQ(find(*x, "host_call_kernel")->not_optimizable, kParseErrorInKernel);
  EXPECT_EQ(find(*x, "clean_kernel")->not_optimizable, "");
}

TEST(Extract, MacroKernelsAreNotOptimizable) {
  auto x = extract_in_process(request("special.cu", "sm_80"));
  ASSERT_TRUE(x);
  EXPECT_EQ(find(*x, "from_macro")->not_optimizable, kMacroGenerated);
}

// A kernel in an anonymous namespace is optimizable; its device name keys the
// namespace by the unit's file name (gpu/device_names.h), as nvcc's does.
TEST(Extract, AnonymousNamespaceKernelsAreNamedByTheirUnitsFile) {
  auto x = extract_in_process(request("special.cu", "sm_80"));
  ASSERT_TRUE(x);
  const Kernel *k = find(*x, "(anonymous namespace)::hidden");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->not_optimizable, "");
  EXPECT_EQ(k->mangled_names, std::vector<std::string>{"_ZN25_GLOBAL__N__10_special_cu6hiddenEPi"});
}

TEST(Extract, ArchAboveClangsNewestSeesItsOwnCudaArch) {
  auto x = extract_in_process(request("special.cu", "sm_100"));
  ASSERT_TRUE(x) << x.error().message;
  const Kernel *k = find(*x, "arch_dependent");
  ASSERT_TRUE(k);
  bool saw = false;
  for (const HashSection &s : k->hash_inputs)
    if (s.label == "macro:__CUDA_ARCH__") saw = s.text == "1000";
  EXPECT_TRUE(saw);
}

TEST(Extract, MissingIncludeIsAnError) {
  auto x = extract_in_process(request("missing-include.cu", "sm_80"));
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error().code, "parse-fatal");
}

TEST(ExtractIsolated, SameResultAsInProcess) {
  auto a = extract_in_process(request("basic.cu", "sm_80"));
  auto b = extract_isolated(request("basic.cu", "sm_80"), std::chrono::milliseconds(120000));
  ASSERT_TRUE(a);
  ASSERT_TRUE(b) << b.error().message;
  ASSERT_EQ(a->kernels.size(), b->kernels.size());
  for (size_t i = 0; i < a->kernels.size(); ++i)
    EXPECT_EQ(a->kernels[i].hash, b->kernels[i].hash);
}

TEST(ExtractIsolated, TimeoutKillsTheParse) {
  ParseRequest r = request("basic.cu", "sm_80");
  r.source = std::string(KBCC_BENCH_CORPUS) + "/cub_reduce.cu";
  auto x = extract_isolated(r, std::chrono::milliseconds(50));
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error().code, "parse-timeout");
}

TEST(Names, SourceLocationsAreStripped) {
  EXPECT_EQ(strip_locations("f()::(anonymous class)::~(lambda at /a/b.cu:9:27) : void ()"),
            "f()::(anonymous class)::~(lambda) : void ()");
  EXPECT_EQ(strip_locations("g<(unnamed struct at /x.cu:1:1), (lambda at /y.cu:2:3)>"),
            "g<(unnamed struct), (lambda)>");
  EXPECT_EQ(strip_locations("look at this(int)"), "look at this(int)");
}

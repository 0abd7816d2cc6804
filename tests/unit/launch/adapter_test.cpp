// The generated adapter compiles with nvcc for two archs with host warnings
// as errors, in every call form, and names the variant only where it exists.
#include "launch/adapter.h"
#include "support/fs.h"
#include "support/process.h"

#include <gtest/gtest.h>

namespace kbcc::launch {
namespace {

AdapterSpec spec() {
  AdapterSpec s;
  s.name = "__kbcc_launch_rows_0123abcd";
  s.kernel_ref = "rows";
  s.kernel_hash = "0123456789abcdef0123456789abcdef";
  s.display = "rows";
  s.params = {{"n", ParamInfo::Kind::Signed, 4}, {"x", ParamInfo::Kind::Pointer, 8},
              {"y", ParamInfo::Kind::Pointer, 8}};
  AdapterVariant v;
  v.arch = 900;
  v.kernel_ref = variant_kernel_name("rows", "sm_90");
  v.mapping.grid = {"ceil_div(grid.x * block.x, 8)", "1", "1"};
  v.mapping.block = {"256", "1", "1"};
  v.mapping.shared = "0";
  v.mapping.preconditions = {"n <= grid.x * block.x", "aligned(x, 16)", "distinct(x, y)", "grid.y == 1"};
  s.variants.push_back(v);
  return s;
}

TEST(Adapter, RefusesAMappingThatDoesNotCheck) {
  AdapterSpec s = spec();
  s.variants[0].mapping.preconditions.push_back("cols > 0");
  EXPECT_FALSE(adapter_definition(s));
}

TEST(Adapter, EveryCallFormCompilesForTwoArchs) {
  if (!file_exists(KBCC_NVCC)) GTEST_SKIP() << "no nvcc at " << KBCC_NVCC;
  auto adapter = adapter_definition(spec());
  ASSERT_TRUE(adapter) << adapter.error().message;
  std::string unit = runtime_preamble() + R"(
__global__ void rows(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
__global__ void rows__kbcc_sm_90(int n, const float *x, float *y) {
  int i = blockIdx.x * 8 + threadIdx.x / 32;
  if (i < n && threadIdx.x % 32 == 0) y[i] = x[i];
}
#endif
)" + *adapter + R"(
void host(int n, const float *x, float *y, cudaStream_t s) {
  __kbcc_launch_rows_0123abcd((n + 127) / 128, 128, 0, s)(n, x, y);
  __kbcc_launch_rows_0123abcd(dim3(1), dim3(32))(n, x, y);
  void *args[] = {&n, &x, &y};
  __kbcc_launch_rows_0123abcd::launch_kernel((const void *)rows, dim3(1), dim3(32), args, 0, s);
  __kbcc_launch_rows_0123abcd::launch_kernel(rows, dim3(1), dim3(32), args);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(32);
  __kbcc_launch_rows_0123abcd::launch_ex(&cfg, rows, n, x, y);
  __kbcc_launch_rows_0123abcd::launch_ex_c(&cfg, (const void *)rows, args);
}
)";
  auto dir = make_temp_dir("kbcc-adapter-test");
  ASSERT_TRUE(dir);
  ASSERT_TRUE(write_file_atomic(*dir + "/u.cu", unit));
  auto r = run_process({KBCC_NVCC, "-c", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                        "arch=compute_90,code=sm_90", "-Xcompiler", "-Wall,-Wextra,-Werror", "-o", *dir + "/u.o",
                        *dir + "/u.cu"},
                       ProcessOptions{});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 0) << r->err << r->out;
  remove_all(*dir);
}

} // namespace
} // namespace kbcc::launch

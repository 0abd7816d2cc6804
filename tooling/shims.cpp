#include "tooling/shims.h"

#include "support/fs.h"

namespace kbcc::tooling {
namespace {

constexpr const char *kTextureFetch =
    "// Empty: CUDA 12+ removed this header, clang's CUDA wrapper still includes it.\n";

constexpr const char *kForcedInclude = R"(// Parse shim for clang 19 over CUDA 13 headers (device side).
#pragma once
#ifndef _CG_CLUSTER_INTRINSICS_AVAILABLE
#define _CG_CLUSTER_INTRINSICS_AVAILABLE 1
#endif
#pragma push_macro("__CUDA_ARCH__")
#undef __CUDA_ARCH__
#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#define __UNDEF_CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS_SM_100_RT_H__
#include <crt/sm_100_rt.h>
#pragma pop_macro("__CUDA_ARCH__")
)";

Status write_if_changed(const std::string &path, const std::string &content) {
  if (auto old = read_file(path); old && *old == content) return Status::ok();
  return write_file_atomic(path, content);
}

} // namespace

Expected<std::string> ensure_shims(const std::string &dir) {
  std::string where = dir;
  if (where.empty()) {
    static std::string temp;
    if (temp.empty()) {
      auto made = make_temp_dir("kbcc-shims");
      if (!made) return made.error();
      temp = *made;
    }
    where = temp;
  }
  if (auto s = write_if_changed(where + "/texture_fetch_functions.h", kTextureFetch); !s) return s.error();
  if (auto s = write_if_changed(where + "/" + kShimHeader, kForcedInclude); !s) return s.error();
  return where;
}

} // namespace kbcc::tooling

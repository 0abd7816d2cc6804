// The labelled inputs of a kernel's canonical hash (see docs/kernels.md):
// kernel tokens, template arguments, user types, variables and callees,
// macros used in any of those, device flags, arch and toolchain.
#pragma once

#include "tooling/dependencies.h"
#include "tooling/kernel.h"
#include "tooling/macros.h"
#include "tooling/source_range.h"

#include <string>
#include <vector>

namespace kbcc::tooling {

struct HashContext {
  const MacroUses &macros;
  std::vector<std::string> device_flags; // device_code_flags() of the request
  std::string arch;
  std::string toolchain;
};

struct KernelHash {
  std::vector<HashSection> sections;
  std::string hash;              // XXH3-128 of the sections, 32 hex
  std::string dependency_text;   // user source of the dependencies, in file order
  std::vector<FileRange> ranges; // every hashed range (kernel first)
};

// Computes the sections and the hash of `kernel` with its `deps`.
KernelHash hash_kernel(const clang::FunctionDecl *kernel, const Dependencies &deps, clang::ASTContext &context,
                       const HashContext &hc);

// Hash of labelled sections, in order (label and text length-prefixed).
std::string hash_sections(const std::vector<HashSection> &sections);

} // namespace kbcc::tooling

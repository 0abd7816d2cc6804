// Everything one kernel's device code depends on, transitively, in user code:
// called functions (template instantiations and unresolved-lookup candidates
// included), global __device__/__constant__ variables, and types.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <set>
#include <vector>

namespace kbcc::tooling {

struct Dependencies {
  std::vector<const clang::FunctionDecl *> functions;        // user functions reachable from the kernel
  std::vector<const clang::VarDecl *> variables;             // user variables with global storage
  std::vector<const clang::NamedDecl *> types;               // user records, enums and typedefs
  std::vector<const clang::FunctionDecl *> system_functions; // reached system-header functions (not followed)
};

// Walks `kernel` (an instantiation when it is a template) and collects what
// it depends on. Declarations from system headers end the walk.
Dependencies collect_dependencies(const clang::FunctionDecl *kernel, clang::ASTContext &context);

} // namespace kbcc::tooling

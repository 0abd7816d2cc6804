// Kernel templates as the transforms see them: one instantiation, written
// out as an explicit specialization of the template. Every reference to a
// template parameter in the definition is replaced by its argument, so the
// analyses read a kernel whose types and constants are known, and the
// specialization keeps the instantiation's mangled name: placed after the
// template, it is the instantiation, while every other instantiation keeps
// the template's text.
#pragma once

#include "support/expected.h"
#include "tooling/request.h"

#include "clang/Basic/SourceLocation.h"

#include <string>
#include <vector>

namespace clang {
class FunctionDecl;
}

namespace kbcc::transform {

struct Specialization {
  std::string text;        // "template <> __global__ void k<float, 256>(float *x, ...) {...}"
  size_t template_end = 0; // offset in the unit just past the template's definition
};

// The explicit specialization of the kernel template instantiated as
// `instance` ("k<float, 256>": the unqualified name with every template
// argument, as tooling prints kernel names) in `unit_text`, the unit at
// request.source. Errors ("not-applicable"): the unit does not parse, no
// such instantiation, its template is not written in the unit, or a
// parameter cannot be replaced by text (a pack, a template template
// parameter, an argument that is not a named type or an integer, a use in
// a macro, a static template).
Expected<Specialization> specialize_kernel(const tooling::ParseRequest &request, const std::string &unit_text,
                                           const std::string &instance);

// A place where the definition of a function template reads one of its
// parameters, and the argument of an instance written as text for it (a
// type as one specifier, an integer as a literal of the parameter's type).
struct ParameterUse {
  clang::SourceLocation at; // in the template's definition, outside macros
  unsigned length = 0;      // of the parameter's name there
  std::string text;
};

// Where the definition of `fd`, an instantiation of a function template,
// reads the template's parameters, with `fd`'s arguments; empty for a
// function that is no instantiation. Errors ("not-applicable"): a parameter
// pack or template template parameter, an argument that is not a named type
// or an integer, a parameter read inside a macro.
Expected<std::vector<ParameterUse>> parameter_uses(const clang::FunctionDecl *fd);

// True when `name` names a template instantiation ("k<float>").
bool is_instance_name(const std::string &name);

// The unqualified name of `fd` with its template arguments, as tooling
// prints kernel names ("k<float, 256>"; "k" for a plain function).
std::string instance_name(const clang::FunctionDecl *fd);

} // namespace kbcc::transform

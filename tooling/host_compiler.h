// The host compiler nvcc runs for a compile and the directories it searches
// for #include <...>: nvcc preprocesses device code with it too, so a header
// such as <omp.h> (in GCC's own include directory) is found by nvcc but not
// by clang unless kbcc passes those directories on (-idirafter, after clang's
// own headers, so clang's builtin headers keep precedence).
#pragma once

#include "support/expected.h"

#include <string>
#include <vector>

namespace kbcc::tooling {

// The host compiler nvcc uses given the value of -ccbin/--compiler-bindir
// (empty when not given): a directory means the `gcc` in it, a name without
// '/' is searched in PATH; no value means `gcc` from PATH, as nvcc does on
// Linux. Returns an absolute path, or "" when no such program exists.
std::string resolve_host_compiler(const std::string &ccbin);

// The "#include <...> search starts here:" list of the output of
// `<compiler> -E -x c++ - -v` (GCC and clang print the same form), in order,
// each directory normalised (GCC prints "/usr/lib/gcc/x/12/../../../../include").
std::vector<std::string> parse_search_list(const std::string &verbose_output);

// The include directories of `compiler` (an absolute path), asked once per
// compiler and cached in `cache_dir` (keyed on the compiler's path, size and
// modification time; "" = no cache). Error when the compiler cannot be run
// or prints no search list; the caller then parses without them.
Expected<std::vector<std::string>> host_include_dirs(const std::string &compiler, const std::string &cache_dir);

} // namespace kbcc::tooling

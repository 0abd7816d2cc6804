// `kbcc warm --dry-run`: what warming one arch would work on, checked without
// a GPU — the registry kernels built for the arch with captures from any arch,
// where each one's unit comes from (its stored closure or the checkout), and
// whether the original kernel compiles from there for the arch into a cubin
// that holds it, and which structural transforms apply to it.
#pragma once
#include "agent/types.h"

#include <ostream>
#include <string>

namespace kbcc {
class Config;
}

namespace kbcc::agent {

// Prints one block per kernel:
//   <qualified name> <hash>
//     captures: 2 (recorded on sm_80: 1, sm_90: 1)
//     unit: closure <id prefix> (3 files)      | unit: checkout <path> | unit: <why none>
//     compile for sm_90: ok, cubin has <mangled name>   | compile for sm_90: failed: <diagnostics>
//     structural transforms: block_size, thread_coarsening   | structural transforms: none
// compiling with `nvcc`. Returns the exit status: 0 when every kernel
// compiles (or there is nothing to warm), 1 otherwise or on a store error.
int dry_run_warm(const Config &config, const std::string &arch, const std::string &nvcc, std::ostream &out,
                 std::ostream &err);

} // namespace kbcc::agent

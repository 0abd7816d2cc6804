// How kbcc was invoked, from its first argument: a launcher (`kbcc nvcc ...`,
// `kbcc /path/to/nvcc ...`) or a kbcc command word. Shared by both kbcc
// executables (driver/front_main.cpp, driver/kbcc_main.cpp).
#pragma once

#include <string>

namespace kbcc::driver {

// Whether `arg` names the nvcc to run in launcher form: a name starting with
// "nvcc" that is not an input file (`nvcc_kernels.cu` is compiled, not run),
// or a path to an executable without extension.
bool is_launcher_argument(const std::string &arg);

// Whether `arg` can only be a kbcc command or request (`stats`, `--help`,
// `--kbcc-version`, ...): a lowercase word, which nvcc never takes (its
// inputs have extensions, its options start with '-'), even where a file or
// folder of that name exists.
bool is_kbcc_request(const std::string &arg);

} // namespace kbcc::driver

#include "tooling/kernel.h"
#include "tooling/request.h"
#include "tooling/shims.h"

#include <array>
#include <string_view>

namespace kbcc::tooling {
namespace {

constexpr int kNewestClangArch = 900;

// Options whose value (joined or separate) is a path or a file to include:
// {nvcc spelling, clang spelling}.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kPathOptions = {{
    {"-I", "-I"},
    {"--include-path", "-I"},
    {"-isystem", "-isystem"},
    {"--system-include", "-isystem"},
    {"-include", "-include"},
    {"--pre-include", "-include"},
    {"-iquote", "-iquote"},
    {"-idirafter", "-idirafter"},
}};

constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kMacroOptions = {{
    {"-D", "-D"},
    {"--define-macro", "-D"},
    {"-U", "-U"},
    {"--undefine-macro", "-U"},
}};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Matches `arg` against `option`: "-Ifoo", "-I foo", "--include-path=foo".
// Sets `value` and whether the next argument was consumed.
bool match_option(const std::vector<std::string> &flags, size_t i, std::string_view option, std::string &value,
                  bool &consumed) {
  const std::string &arg = flags[i];
  consumed = false;
  if (arg == option) {
    if (i + 1 >= flags.size()) return false;
    value = flags[i + 1];
    consumed = true;
    return true;
  }
  if (!starts_with(arg, option)) return false;
  std::string_view rest = std::string_view(arg).substr(option.size());
  if (starts_with(rest, "="))
    rest.remove_prefix(1);
  else if (starts_with(option, "--") || option.size() > 2)
    return false;
  value = std::string(rest);
  return true;
}

template <class Table>
bool match_table(const Table &table, const std::vector<std::string> &flags, size_t i, std::string &clang_option,
                 std::string &value, bool &consumed) {
  for (const auto &[nvcc, clang] : table)
    if (match_option(flags, i, nvcc, value, consumed)) {
      clang_option = clang;
      return true;
    }
  return false;
}

std::string std_from_flags(const std::vector<std::string> &flags, const std::string &fallback) {
  std::string result = fallback;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string &a = flags[i];
    if (starts_with(a, "-std="))
      result = a.substr(5);
    else if (starts_with(a, "--std="))
      result = a.substr(6);
    else if ((a == "-std" || a == "--std") && i + 1 < flags.size())
      result = flags[++i];
  }
  return result;
}

} // namespace

std::vector<std::string> device_code_flags(const std::vector<std::string> &flags) {
  std::vector<std::string> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    std::string option, value;
    bool consumed = false;
    if (match_table(kPathOptions, flags, i, option, value, consumed)) {
      i += consumed;
      continue;
    }
    if (match_table(kMacroOptions, flags, i, option, value, consumed)) {
      i += consumed;
      out.push_back(option + value);
      continue;
    }
    out.push_back(flags[i]);
  }
  return out;
}

std::string clang_parse_arch(const std::string &arch) {
  int n = cuda_arch_number(arch);
  if (n > kNewestClangArch) return "sm_90";
  if (n == 0) return "sm_75";
  return "sm_" + arch.substr(arch.find('_') + 1);
}

std::vector<std::string> clang_arguments(const ParseRequest &request, const std::string &shim_dir) {
  std::vector<std::string> args = {"clang++",
                                   "-x",
                                   "cuda",
                                   "-std=" + std_from_flags(request.flags, request.std),
                                   "--cuda-path=" + request.cuda_root,
                                   "--cuda-device-only",
                                   "--cuda-gpu-arch=" + clang_parse_arch(request.arch),
                                   "-Wno-unknown-cuda-version",
                                   "-resource-dir=" + std::string(kClangResourceDir),
                                   "-fsyntax-only",
                                   "-w",
                                   "-ferror-limit=0",
                                   "-fno-spell-checking"};
  int n = cuda_arch_number(request.arch);
  if (n > kNewestClangArch) {
    args.insert(args.end(),
                {"-U__CUDA_ARCH__", "-D__CUDA_ARCH__=" + std::to_string(n), "-DCCCL_DISABLE_FLOAT128_SUPPORT"});
  }
  std::string list;
  for (const std::string &a : request.arch_list.empty() ? std::vector<std::string>{request.arch} : request.arch_list)
    list += (list.empty() ? "" : ",") + std::to_string(cuda_arch_number(a));
  args.push_back("-D__CUDA_ARCH_LIST__=" + list);
  args.push_back("-I" + shim_dir);
  // Macros first, then paths, each in their given order: the relative order
  // of the two kinds means nothing to clang, and a canonical order keeps the
  // extraction cache key independent of how the flags were interleaved.
  std::vector<std::string> macros, paths;
  for (size_t i = 0; i < request.flags.size(); ++i) {
    std::string option, value;
    bool consumed = false;
    if (match_table(kMacroOptions, request.flags, i, option, value, consumed)) {
      i += consumed;
      macros.push_back(option + value);
    } else if (match_table(kPathOptions, request.flags, i, option, value, consumed)) {
      i += consumed;
      if (option == "-I")
        paths.push_back(option + value);
      else
        paths.insert(paths.end(), {option, value});
    }
  }
  args.insert(args.end(), macros.begin(), macros.end());
  args.insert(args.end(), paths.begin(), paths.end());
  args.insert(args.end(), {"-isystem", request.cuda_root + "/include/cccl"});
  for (const std::string &dir : request.host_include_dirs)
    args.insert(args.end(), {"-idirafter", dir});
  args.insert(args.end(), {"-include", shim_dir + "/" + kShimHeader, request.source});
  return args;
}

} // namespace kbcc::tooling

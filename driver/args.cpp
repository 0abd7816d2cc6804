#include "driver/args.h"

#include "support/fs.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>

namespace kbcc::driver {
namespace {

constexpr int kMaxOptionsFileDepth = 16;

// One word of the command as nvcc sees it, and where it came from.
struct Token {
  std::string text;
  int argv_index = -1; // index in argv, or -1 when it came from a file or NVCC_*_FLAGS
};

std::vector<std::string> split_list(const std::string &value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = value.find(',', start);
    std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool ends_with(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_object_input(const std::string &path) {
  for (std::string_view ext : {".o", ".obj", ".a", ".lib", ".so", ".res", ".ptx", ".cubin", ".fatbin", ".ltoir"})
    if (ends_with(path, ext)) return true;
  return path.find(".so.") != std::string::npos;
}

// Everything the walk over the tokens collects.
struct State {
  Mode mode = Mode::kLink;
  std::vector<Token> inputs;
  std::vector<std::string> gencodes, codes;
  std::string arch, language, output, depfile, std = "c++17", host_compiler;
  bool depgen = false, dryrun = false, verbose = false;
  std::vector<std::string> device_flags, include_flags;
  std::string error, error_detail; // first reason the command cannot be optimized
};

void fail(State &s, std::string reason, std::string detail) {
  if (s.error.empty()) s.error = std::move(reason), s.error_detail = std::move(detail);
}

// The option a command-line word spells (`-name`, `--name`, `-name=value`), or null.
const NvccOption *option_of(const std::string &w) {
  if (w.size() < 2 || w[0] != '-') return nullptr;
  std::string body = w.substr(w.rfind("--", 0) == 0 ? 2 : 1);
  return find_nvcc_option(body.substr(0, body.find('=')));
}

void expand_options_file(const std::string &list, int depth, State &state, std::vector<Token> &out);

// Appends `words` (index in argv, or -1 for file/environment words), splicing
// options files in place.
void push_words(const std::vector<std::string> &words, int first_index, int depth, State &state,
                std::vector<Token> &out) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string &w = words[i];
    const NvccOption *o = option_of(w);
    if (!o || o->role != Role::kOptionsFile) {
      out.push_back({w, first_index < 0 ? -1 : first_index + static_cast<int>(i)});
      continue;
    }
    if (auto eq = w.find('='); eq != std::string::npos)
      expand_options_file(w.substr(eq + 1), depth + 1, state, out);
    else if (i + 1 < words.size())
      expand_options_file(words[++i], depth + 1, state, out);
    else
      fail(state, "missing-argument", "'" + w + "' without a file");
  }
}

void expand_options_file(const std::string &list, int depth, State &state, std::vector<Token> &out) {
  if (depth > kMaxOptionsFileDepth) return fail(state, "options-file-depth", "options files nested too deeply");
  for (const auto &file : split_list(list)) {
    auto text = read_file(file);
    if (!text) {
      fail(state, "options-file-unreadable", text.error().message);
      continue;
    }
    push_words(split_command_line(*text), -1, depth, state, out);
  }
}

// argv (after argv[0]) with NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS around it and
// options files spliced in.
std::vector<Token> expand(const std::vector<std::string> &argv, const NvccEnvironment &env, State &state) {
  std::vector<Token> out;
  push_words(split_command_line(env.prepend_flags), -1, 0, state, out);
  push_words(std::vector<std::string>(argv.begin() + (argv.empty() ? 0 : 1), argv.end()), 1, 0, state, out);
  push_words(split_command_line(env.append_flags), -1, 0, state, out);
  return out;
}

void add_device_flag(State &s, const NvccOption &o, const std::string &value) {
  switch (o.role) {
  case Role::kDefine:
    s.device_flags.push_back("-D" + value);
    return;
  case Role::kUndefine:
    s.device_flags.push_back("-U" + value);
    return;
  case Role::kIncludePath:
    s.device_flags.push_back("-I" + value);
    s.include_flags.push_back("-I" + value);
    return;
  case Role::kSystemInclude:
    s.device_flags.push_back("-isystem" + value);
    s.include_flags.push_back("-isystem" + value);
    return;
  case Role::kPreInclude:
    s.device_flags.push_back("-include" + value);
    s.include_flags.push_back("-include" + value);
    return;
  case Role::kPtxas:
    s.device_flags.push_back("-Xptxas=" + value);
    return;
  case Role::kGencode:
  case Role::kArch:
  case Role::kCode:
    return; // targets, kept apart
  default:
    break;
  }
  if (std::string_view(o.short_name) == "O") return s.device_flags.push_back("-O" + value);
  std::string flag = std::string("-") + o.short_name;
  s.device_flags.push_back(o.takes_arg() ? flag + "=" + value : flag);
}

// Applies one recognised option with its value (empty when it takes none).
void apply(State &s, const NvccOption &o, const std::string &value) {
  std::vector<std::string> values = o.list() ? split_list(value) : std::vector<std::string>{value};
  switch (o.role) {
  case Role::kMode:
    s.mode = o.mode;
    break;
  case Role::kGencode:
    s.gencodes.push_back(value);
    break;
  case Role::kArch:
    s.arch = value;
    break;
  case Role::kCode:
    s.codes.insert(s.codes.end(), values.begin(), values.end());
    break;
  case Role::kStd:
    s.std = value;
    break;
  case Role::kOutput:
    s.output = value;
    break;
  case Role::kLanguage:
    s.language = value;
    break;
  case Role::kDryRun:
    s.dryrun = true;
    break;
  case Role::kVerbose:
    s.verbose = true;
    break;
  case Role::kDepGen:
    s.depgen = true;
    break;
  case Role::kDepFile:
    s.depfile = value;
    break;
  case Role::kHostCompiler:
    s.host_compiler = value;
    break;
  default:
    break;
  }
  if (o.mode == Mode::kDeviceC) s.device_flags.push_back("-rdc=true");
  if (!o.affects_device() || o.role == Role::kMode) return;
  if (!o.takes_arg()) return add_device_flag(s, o, "");
  for (const auto &v : values)
    add_device_flag(s, o, v);
}

// Matches the option at tokens[i]; advances i past its separated argument.
void walk_option(State &s, const std::vector<Token> &tokens, size_t &i) {
  const std::string &w = tokens[i].text;
  std::string body = w.substr(w.rfind("--", 0) == 0 ? 2 : 1);
  if (const NvccOption *o = find_nvcc_option(body)) {
    if (!o->takes_arg()) return apply(s, *o, "");
    if (i + 1 >= tokens.size()) return fail(s, "missing-argument", "'" + w + "' without a value");
    return apply(s, *o, tokens[++i].text);
  }
  if (auto eq = body.find('='); eq != std::string::npos) {
    if (const NvccOption *o = find_nvcc_option(body.substr(0, eq)); o && o->equals_allowed())
      return apply(s, *o, body.substr(eq + 1));
  }
  if (w.rfind("--", 0) != 0) {
    if (const NvccOption *o = find_joined_option(body))
      return apply(s, *o, body.substr(std::string(o->short_name).size()));
  }
  // Unknown: nvcc decides; it passes through unchanged and does not count as device-relevant.
}

State walk(const std::vector<std::string> &argv, const NvccEnvironment &env) {
  State s;
  std::vector<Token> tokens = expand(argv, env, s);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string &w = tokens[i].text;
    if (w.size() > 1 && w[0] == '-')
      walk_option(s, tokens, i);
    else
      s.inputs.push_back(tokens[i]);
  }
  return s;
}

std::string derived_depfile(const State &s, const std::string &source) {
  if (!s.depfile.empty()) return s.depfile;
  std::filesystem::path base =
      s.output.empty() ? std::filesystem::path(source).filename() : std::filesystem::path(s.output);
  return base.replace_extension(".d").string();
}

bool is_valid_arch(const std::string &a) {
  static const std::regex re("(sm|compute|lto)_[0-9]+[af]?");
  return std::regex_match(a, re);
}

// Why a command with exactly one .cu input cannot be optimized, or empty.
std::string mode_reason(Mode m) {
  switch (m) {
  case Mode::kDeviceLink:
    return "device-link-with-source";
  case Mode::kLib:
    return "lib-mode";
  case Mode::kRun:
    return "run-mode";
  case Mode::kPtx:
    return "ptx-output";
  case Mode::kCudaCpp:
    return "cuda-output";
  case Mode::kOptixIr:
    return "optix-ir-output";
  case Mode::kLtoIr:
    return "ltoir-output";
  default:
    return "";
  }
}

ParseResult classify_inputs(const State &s, const std::vector<std::string> &argv, const NvccEnvironment &env) {
  // nvcc's -x applies to every input; CMake always passes `-x cu`.
  bool all_cuda = s.language == "cu";
  std::vector<const Token *> cuda, other;
  for (const auto &t : s.inputs)
    (ends_with(t.text, ".cu") || (all_cuda && !is_object_input(t.text)) ? cuda : other).push_back(&t);
  bool all_objects = std::all_of(other.begin(), other.end(), [](const Token *t) { return is_object_input(t->text); });
  if (cuda.empty() && all_objects) return NotCompilation{"link"};
  if (!s.error.empty()) return CannotOptimize{s.error, s.error_detail};
  for (const auto &t : s.inputs)
    if (t.text == "-" || t.text[0] == '@')
      return CannotOptimize{t.text == "-" ? "stdin-input" : "response-file",
                            "input '" + t.text + "' (nvcc reads no @file; it is passed through as nvcc would)"};
  if (!s.language.empty() && !all_cuda) return CannotOptimize{"language-override", "-x " + s.language};
  if (cuda.empty()) return CannotOptimize{"no-cuda-source", "no .cu input"};
  if (cuda.size() > 1) return CannotOptimize{"multiple-cuda-sources", std::to_string(cuda.size()) + " .cu inputs"};
  if (!other.empty()) return CannotOptimize{"extra-inputs", "'" + other[0]->text + "' besides the .cu source"};
  if (auto r = mode_reason(s.mode); !r.empty()) return CannotOptimize{r, "output mode"};
  if (s.verbose) return CannotOptimize{"verbose", "-v prints nvcc's own steps"};
  if (cuda[0]->argv_index < 0)
    return CannotOptimize{"source-in-options-file", "the .cu source is not on the command line"};
  Targets t = resolve_targets(s.gencodes, s.arch, s.codes);
  if (!t.error.empty()) return CannotOptimize{t.error, "target architectures"};
  if (!t.any) return CannotOptimize{"default-arch", "no -arch/-gencode: nvcc's default target"};
  if (t.sass.empty()) return CannotOptimize{"ptx-only-targets", "no sm_XX target gets SASS"};

  Compilation c;
  c.mode = s.mode;
  c.output = s.output;
  c.depfile = s.depgen;
  c.source_index = static_cast<size_t>(cuda[0]->argv_index);
  c.ptx_archs = t.ptx;
  CompileUnit &u = c.unit;
  u.source = cuda[0]->text;
  u.working_dir = env.cwd;
  u.source_abs = std::filesystem::path(u.source).is_absolute()
                     ? u.source
                     : (std::filesystem::path(env.cwd) / u.source).lexically_normal().string();
  u.archs = t.sass;
  u.device_flags = s.device_flags;
  u.include_flags = s.include_flags;
  u.std = s.std;
  u.host_compiler = s.host_compiler.empty() ? env.ccbin : s.host_compiler;
  u.nvcc_argv = argv;
  if (c.depfile) c.depfile_path = derived_depfile(s, u.source);
  return c;
}

void add_unique(std::vector<std::string> &v, const std::string &x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

void add_code(Targets &t, const std::string &code) {
  if (code.rfind("sm_", 0) == 0)
    add_unique(t.sass, code);
  else if (code.rfind("compute_", 0) == 0)
    add_unique(t.ptx, code);
}

} // namespace

NvccEnvironment NvccEnvironment::current() {
  NvccEnvironment e;
  if (const char *p = getenv("NVCC_PREPEND_FLAGS")) e.prepend_flags = p;
  if (const char *p = getenv("NVCC_APPEND_FLAGS")) e.append_flags = p;
  if (const char *p = getenv("NVCC_CCBIN")) e.ccbin = p;
  std::error_code ec;
  e.cwd = std::filesystem::current_path(ec).string();
  return e;
}

std::vector<std::string> split_command_line(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < text.size())
        cur += text[++i];
      else
        cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c, in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      cur += text[++i], in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) out.push_back(cur), cur.clear(), in_word = false;
    } else {
      cur += c, in_word = true;
    }
  }
  if (in_word) out.push_back(cur);
  return out;
}

Targets resolve_targets(const std::vector<std::string> &gencodes, const std::string &arch,
                        const std::vector<std::string> &codes) {
  Targets t;
  t.any = !gencodes.empty() || !arch.empty() || !codes.empty();
  std::vector<std::string> all = codes;
  for (const auto &spec : gencodes) {
    std::string flat = spec;
    std::erase_if(flat, [](char c) { return c == '[' || c == ']' || c == '"' || c == '\'' || c == ' '; });
    std::string virtual_arch;
    std::vector<std::string> spec_codes;
    for (const auto &item : split_list(flat)) {
      std::string value = item;
      if (item.rfind("arch=", 0) == 0) {
        if (!virtual_arch.empty()) return t.error = "unknown-gencode", t; // nvcc: redefinition of 'arch'
        virtual_arch = value = item.substr(5);
      } else if (item.rfind("code=", 0) == 0) {
        spec_codes.push_back(value = item.substr(5));
      } else if (item.find('=') != std::string::npos || virtual_arch.empty()) {
        return t.error = "unknown-gencode", t;
      } else {
        spec_codes.push_back(item); // continuation of a quoted code="a,b" list
      }
      if (!is_valid_arch(value)) return t.error = "unknown-arch", t;
    }
    if (spec_codes.empty()) spec_codes.push_back(virtual_arch);
    for (const auto &c : spec_codes)
      add_code(t, c);
  }
  if (!arch.empty()) {
    if (arch == "native" || arch == "all" || arch == "all-major") return t.error = "arch-" + arch, t;
    if (!is_valid_arch(arch)) return t.error = "unknown-arch", t;
    if (codes.empty()) {
      add_code(t, arch);
      if (arch.rfind("sm_", 0) == 0) add_code(t, "compute_" + arch.substr(3));
    }
  }
  for (const auto &c : all) {
    if (!is_valid_arch(c)) return t.error = "unknown-arch", t;
    add_code(t, c);
  }
  return t;
}

ParseResult parse_nvcc_command(const std::vector<std::string> &argv, const NvccEnvironment &env) {
  State s = walk(argv, env);
  if (s.mode == Mode::kInfo) return NotCompilation{"info"};
  if (s.dryrun) return NotCompilation{"dryrun"};
  if (s.mode == Mode::kPreprocess) return NotCompilation{"preprocess"};
  if (s.mode == Mode::kDependencies) return NotCompilation{"dependencies"};
  if (s.inputs.empty())
    return s.error.empty() ? ParseResult(NotCompilation{"no-input"}) : CannotOptimize{s.error, s.error_detail};
  return classify_inputs(s, argv, env);
}

} // namespace kbcc::driver

#include "driver/args.h"
#include "driver/kbcc_options.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <unistd.h>

using namespace kbcc::driver;

namespace {

NvccEnvironment env(std::string prepend = "", std::string append = "") {
  return NvccEnvironment{std::move(prepend), std::move(append), "/work/proj"};
}

ParseResult parse(std::vector<std::string> args, const NvccEnvironment &e = env()) {
  args.insert(args.begin(), "/cuda/bin/nvcc");
  return parse_nvcc_command(args, e);
}

Compilation compilation(const ParseResult &r) {
  Compilation none;
  if (auto *c = std::get_if<Compilation>(&r)) return *c;
  if (auto *co = std::get_if<CannotOptimize>(&r))
    ADD_FAILURE() << "cannot optimize: " << co->reason << " " << co->detail;
  else
    ADD_FAILURE() << "not a compilation: " << std::get<NotCompilation>(r).what;
  return none;
}

std::string reason(const ParseResult &r) {
  auto *co = std::get_if<CannotOptimize>(&r);
  return co ? co->reason : "(not cannot-optimize)";
}

std::string not_compilation(const ParseResult &r) {
  auto *nc = std::get_if<NotCompilation>(&r);
  return nc ? nc->what : "(a compilation or cannot-optimize)";
}

bool has(const std::vector<std::string> &v, const std::string &x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// `text` written to `name` in the test program's directory, removed when it exits.
std::string write_temp(const std::string &name, const std::string &text) {
  static const struct Dir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("kbcc-args-test-" + std::to_string(getpid()));
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } dir;
  std::filesystem::create_directories(dir.path);
  std::ofstream(dir.path / name) << text;
  return (dir.path / name).string();
}

} // namespace

TEST(Args, SimpleCompile) {
  const auto c = compilation(parse({"-c", "src/a.cu", "-o", "a.o", "-arch=sm_80"}));
  EXPECT_EQ(c.unit.source, "src/a.cu");
  EXPECT_EQ(c.unit.source_abs, "/work/proj/src/a.cu");
  EXPECT_EQ(c.unit.archs, std::vector<std::string>{"sm_80"});
  EXPECT_EQ(c.ptx_archs, std::vector<std::string>{"compute_80"});
  EXPECT_EQ(c.source_index, 2u);
  EXPECT_EQ(c.output, "a.o");
  EXPECT_EQ(c.mode, Mode::kCompile);
  EXPECT_EQ(c.unit.std, "c++17");
  EXPECT_EQ(c.unit.nvcc_argv.front(), "/cuda/bin/nvcc");
}

TEST(Args, ModesThatCompile) {
  for (const char *m : {"-c", "--compile", "-dc", "--device-c", "-dw", "--device-w", "-cubin", "--fatbin"})
    EXPECT_EQ(compilation(parse({m, "a.cu", "-arch=sm_90"})).unit.source, "a.cu") << m;
  EXPECT_EQ(compilation(parse({"a.cu", "-arch=sm_90", "-o", "app"})).mode, Mode::kLink);
}

TEST(Args, LanguageCuMakesAnyInputCuda) {
  // CMake's rule: -x cu -rdc=true -c <src> -o <obj>.
  const auto c = compilation(
      parse({"-forward-unknown-to-host-compiler", "-DX", "-MD", "-MT", "o.o", "-MF", "o.d", "-x", "cu", "-rdc=true",
             "-c", "src/k.cpp", "-o", "o.o", "--generate-code=arch=compute_80,code=[compute_80,sm_80]"}));
  EXPECT_EQ(c.unit.source, "src/k.cpp");
  EXPECT_EQ(c.unit.archs, std::vector<std::string>{"sm_80"});
  EXPECT_EQ(c.depfile_path, "o.d");
  EXPECT_EQ(std::get<NotCompilation>(parse({"-x", "cu", "a.o", "-o", "app"})).what, "link");
}

TEST(Args, ModesThatDoNotCompile) {
  EXPECT_EQ(not_compilation(parse({"-E", "a.cu", "-arch=sm_80"})), "preprocess");
  EXPECT_EQ(not_compilation(parse({"--preprocess", "a.cu"})), "preprocess");
  EXPECT_EQ(not_compilation(parse({"-M", "a.cu"})), "dependencies");
  EXPECT_EQ(not_compilation(parse({"--generate-nonsystem-dependencies", "a.cu"})), "dependencies");
  EXPECT_EQ(not_compilation(parse({"--version"})), "info");
  EXPECT_EQ(not_compilation(parse({"-V"})), "info");
  EXPECT_EQ(not_compilation(parse({"--help"})), "info");
  EXPECT_EQ(not_compilation(parse({"--list-gpu-arch"})), "info");
  EXPECT_EQ(not_compilation(parse({"--dryrun", "-c", "a.cu", "-arch=sm_80"})), "dryrun");
  EXPECT_EQ(not_compilation(parse({"-dryrun", "a.cu"})), "dryrun");
  EXPECT_EQ(not_compilation(parse({"-v"})), "no-input");
  EXPECT_EQ(not_compilation(parse({"-dlink", "a.o", "b.o", "-o", "dlink.o", "-arch=sm_80"})), "link");
  EXPECT_EQ(not_compilation(parse({"-lib", "a.o", "-o", "liba.a"})), "link");
  EXPECT_EQ(not_compilation(parse({"a.o", "libx.a", "-o", "app", "-lcudart"})), "link");
}

TEST(Args, CannotOptimizeReasons) {
  EXPECT_EQ(reason(parse({"-c", "a.cu", "b.cu", "-arch=sm_80"})), "multiple-cuda-sources");
  EXPECT_EQ(reason(parse({"-c", "a.cpp", "-arch=sm_80"})), "no-cuda-source");
  EXPECT_EQ(reason(parse({"-x", "c++", "-c", "a.cu", "-arch=sm_80"})), "language-override");
  EXPECT_EQ(reason(parse({"-x=cu", "-c", "a.cpp", "b.cpp", "-arch=sm_80"})), "multiple-cuda-sources");
  EXPECT_EQ(reason(parse({"a.cu", "b.o", "-arch=sm_80"})), "extra-inputs");
  EXPECT_EQ(reason(parse({"-ptx", "a.cu", "-arch=sm_80"})), "ptx-output");
  EXPECT_EQ(reason(parse({"-lib", "a.cu", "-arch=sm_80"})), "lib-mode");
  EXPECT_EQ(reason(parse({"-dlink", "a.cu", "-arch=sm_80"})), "device-link-with-source");
  EXPECT_EQ(reason(parse({"-c", "a.cu", "-arch=compute_80"})), "ptx-only-targets");
  EXPECT_EQ(reason(parse({"-c", "a.cu"})), "default-arch");
  EXPECT_EQ(reason(parse({"-c", "a.cu", "-arch=native"})), "arch-native");
  EXPECT_EQ(reason(parse({"-c", "a.cu", "-arch=all-major"})), "arch-all-major");
  EXPECT_EQ(reason(parse({"-c", "a.cu", "-arch=sm_80", "-v"})), "verbose");
  EXPECT_EQ(reason(parse({"-c", "@args.rsp"})), "response-file");
  EXPECT_EQ(reason(parse({"-c", "a.cu", "-arch=sm_80", "-o"})), "missing-argument");
  EXPECT_EQ(reason(parse({"-c", "a.cu", "-arch=sm_80", "--options-file", "/nonexistent/opts"})),
            "options-file-unreadable");
}

TEST(Args, UnknownOptionsPassThroughUntouched) {
  const auto c = compilation(parse({"--some-future-flag", "-c", "a.cu", "-arch=sm_80", "-Wfuture"}));
  EXPECT_EQ(c.unit.nvcc_argv.size(), 6u);
  EXPECT_EQ(c.unit.nvcc_argv[1], "--some-future-flag");
  EXPECT_TRUE(c.unit.device_flags.empty());
}

TEST(Args, SubToolOptionsTakeTheirValue) {
  // -Xcompiler's value looks like an option or a file; it must not be taken as an input.
  for (auto args : std::vector<std::vector<std::string>>{{"-Xcompiler", "-fPIC"},
                                                         {"-Xcompiler=-fPIC,-Wall"},
                                                         {"--compiler-options", "x.cu"},
                                                         {"-Xnvlink", "--verbose"},
                                                         {"-Xnvlink=--verbose"},
                                                         {"-ccbin", "g++-12"},
                                                         {"--compiler-bindir=/usr/bin/g++"},
                                                         {"-odir", "objs"},
                                                         {"-Xlinker", "foo.o"}}) {
    args.insert(args.end(), {"-c", "a.cu", "-arch=sm_80"});
    const auto c = compilation(parse(args));
    EXPECT_EQ(c.unit.source, "a.cu") << args[0];
    EXPECT_TRUE(c.unit.device_flags.empty()) << args[0];
  }
}

TEST(Args, PtxasOptionsAreDeviceFlags) {
  const auto a = compilation(parse({"-Xptxas", "-O3,-v", "-c", "a.cu", "-arch=sm_80"}));
  EXPECT_EQ(a.unit.device_flags, (std::vector<std::string>{"-Xptxas=-O3", "-Xptxas=-v"}));
  const auto b = compilation(parse({"--ptxas-options=-O2", "-c", "a.cu", "-arch=sm_80"}));
  EXPECT_EQ(b.unit.device_flags, std::vector<std::string>{"-Xptxas=-O2"});
}

TEST(Args, DeviceFlagsAreNormalized) {
  const auto c = compilation(parse({"-DA",
                                    "-D",
                                    "B=1",
                                    "--define-macro=C,D=2",
                                    "-UE",
                                    "-I",
                                    "inc",
                                    "-Iinc2",
                                    "--include-path=i3",
                                    "-isystem",
                                    "sys",
                                    "-isystem=sys2",
                                    "-include",
                                    "pre.h",
                                    "--use_fast_math",
                                    "-G",
                                    "-lineinfo",
                                    "-O3",
                                    "-std=c++20",
                                    "-rdc=true",
                                    "--maxrregcount",
                                    "32",
                                    "-c",
                                    "a.cu",
                                    "-arch=sm_80"}));
  std::vector<std::string> want{
      "-DA",    "-DB=1",     "-DC",         "-DD=2",        "-UE",           "-Iinc",
      "-Iinc2", "-Ii3",      "-isystemsys", "-isystemsys2", "-includepre.h", "-use_fast_math",
      "-G",     "-lineinfo", "-O3",         "-std=c++20",   "-rdc=true",     "-maxrregcount=32"};
  EXPECT_EQ(c.unit.device_flags, want);
  EXPECT_EQ(c.unit.include_flags,
            (std::vector<std::string>{"-Iinc", "-Iinc2", "-Ii3", "-isystemsys", "-isystemsys2", "-includepre.h"}));
  EXPECT_EQ(c.unit.std, "c++20");
  // The same meaning in other spellings gives the same device flags.
  const auto d = compilation(parse({"--std", "c++20", "--use_fast_math", "--device-debug", "--generate-line-info",
                                    "--optimize", "3", "-c", "a.cu", "-arch=sm_80"}));
  EXPECT_EQ(d.unit.device_flags, (std::vector<std::string>{"-std=c++20", "-use_fast_math", "-G", "-lineinfo", "-O3"}));
}

TEST(Args, HostOnlyFlagsAreNotDeviceFlags) {
  const auto c =
      compilation(parse({"-Xcompiler", "-O2", "-g", "-w", "-lcudart", "-L/lib", "-c", "a.cu", "-arch=sm_80"}));
  EXPECT_TRUE(c.unit.device_flags.empty());
}

TEST(Args, DeviceCImpliesRdc) {
  EXPECT_TRUE(has(compilation(parse({"-dc", "a.cu", "-arch=sm_80"})).unit.device_flags, "-rdc=true"));
}

TEST(Args, DepfileOptions) {
  const auto a = compilation(parse({"-MD", "-MF", "deps/a.d", "-MT", "a.o", "-c", "a.cu", "-o", "a.o", "-arch=sm_80"}));
  EXPECT_TRUE(a.depfile);
  EXPECT_EQ(a.depfile_path, "deps/a.d");
  const auto b = compilation(
      parse({"--generate-nonsystem-dependencies-with-compile", "-c", "src/a.cu", "-o", "obj/a.cu.o", "-arch=sm_80"}));
  EXPECT_EQ(b.depfile_path, "obj/a.cu.d");
  const auto c = compilation(parse({"-MMD", "-c", "src/a.cu", "-arch=sm_80"}));
  EXPECT_EQ(c.depfile_path, "a.d");
  const auto d = compilation(
      parse({"--generate-dependencies-with-compile", "--dependency-output=x.d", "-c", "a.cu", "-arch=sm_80"}));
  EXPECT_EQ(d.depfile_path, "x.d");
  EXPECT_FALSE(compilation(parse({"-c", "a.cu", "-arch=sm_80"})).depfile);
}

TEST(Args, EnvironmentFlags) {
  const auto c = compilation(parse({"-c", "a.cu"}, env("-arch=sm_80 -DPRE", "'-DAPP=a b'")));
  EXPECT_EQ(c.unit.archs, std::vector<std::string>{"sm_80"});
  EXPECT_EQ(c.unit.device_flags, (std::vector<std::string>{"-DPRE", "-DAPP=a b"}));
  EXPECT_EQ(c.source_index, 2u); // positions refer to argv, not to the expanded words
  EXPECT_EQ(not_compilation(parse({"a.cu"}, env("", "--version"))), "info");
}

TEST(Args, OptionsFilesNestedAndListed) {
  std::string inner = write_temp("inner.opts", "-DINNER \"-DQUOTED=x y\"\n");
  std::string second = write_temp("second.opts", "-arch=sm_90");
  std::string outer = write_temp("outer.opts", "-DOUTER --options-file " + inner + "\n");
  const auto c = compilation(parse({"-optf", outer + "," + second, "-c", "a.cu"}));
  EXPECT_EQ(c.unit.device_flags, (std::vector<std::string>{"-DOUTER", "-DINNER", "-DQUOTED=x y"}));
  EXPECT_EQ(c.unit.archs, std::vector<std::string>{"sm_90"});
  EXPECT_EQ(c.source_index, 4u);
  const auto d = compilation(parse({"--options-file=" + second, "-c", "a.cu"}));
  EXPECT_EQ(d.unit.archs, std::vector<std::string>{"sm_90"});
  std::string with_source = write_temp("source.opts", "-c a.cu -arch=sm_80");
  EXPECT_EQ(reason(parse({"--options-file", with_source})), "source-in-options-file");
  std::string loop = write_temp("loop.opts", "");
  write_temp("loop.opts", "--options-file " + loop);
  EXPECT_EQ(reason(parse({"-optf", loop, "-c", "a.cu", "-arch=sm_80"})), "options-file-depth");
}

TEST(Args, SplitCommandLine) {
  EXPECT_EQ(split_command_line("  a 'b c'  \"d \\\" e\" f\\ g\n"),
            (std::vector<std::string>{"a", "b c", "d \" e", "f g"}));
  EXPECT_TRUE(split_command_line(" \n\t").empty());
  EXPECT_EQ(split_command_line("''"), std::vector<std::string>{""});
}

TEST(KbccOptions, AreStripped) {
  std::vector<std::string> args{"-c", "--kbcc-dry-run", "a.cu", "--kbcc-verbose", "--kbcc-disable", "--kbcc-bogus"};
  KbccOptions o = strip_kbcc_options(args);
  EXPECT_TRUE(o.dry_run && o.verbose && o.disable);
  EXPECT_EQ(o.unknown, "--kbcc-bogus");
  EXPECT_EQ(args, (std::vector<std::string>{"-c", "a.cu"}));
}

TEST(OptionTable, SpellingsAreUniqueAndConsistent) {
  std::set<std::string> seen;
  for (const auto &o : nvcc_options()) {
    EXPECT_TRUE(seen.insert(o.long_name).second) << o.long_name;
    if (std::string(o.short_name) != o.long_name) EXPECT_TRUE(seen.insert(o.short_name).second) << o.short_name;
    if (o.joined() || o.list()) EXPECT_TRUE(o.takes_arg()) << o.long_name;
    EXPECT_EQ(o.role == Role::kMode, o.mode != Mode::kNone) << o.long_name;
  }
  EXPECT_EQ(find_nvcc_option("arch"), find_nvcc_option("gpu-architecture"));
  EXPECT_EQ(find_joined_option("DFOO=1"), find_nvcc_option("D"));
  EXPECT_EQ(find_joined_option("O3"), find_nvcc_option("O"));
  EXPECT_EQ(find_joined_option("x"), nullptr);
}

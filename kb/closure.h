// Unit closures: what is needed to compile a registry kernel's translation
// unit on another machine, without the user's checkout. A closure is the set
// of user files the unit's parse opened (tooling::Extraction::included_files
// minus the toolchain: the CUDA toolkit, the system and compiler headers and
// kbcc's parse shims, which are part of the toolchain identity) plus the
// compile command with its paths made relative to the closure.
//
// In the store (docs/store-format.md):
//   closures       "<closure id>"   -> closure JSON (format kbcc-closure)
//   closure-files  "<content hash>" -> the bytes of one file
// Files are content-addressed, so a header shared by many units and kernels
// is stored once. The files' total size is capped (closure_max_size): beyond
// it the least recently recorded closures and the files only they used are
// evicted.
#pragma once

#include "cache/env.h"
#include "support/expected.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::kb {

using cache::kClosureFileTable; // "<content hash>" -> file bytes
using cache::kClosureTable;     // "<closure id>" -> closure JSON

// Error codes of this module.
inline constexpr const char *kErrClosureTooLarge = "closure-too-large"; // one closure exceeds closure_max_size
inline constexpr const char *kErrClosureBad = "closure-bad";            // malformed closure or file
inline constexpr const char *kErrClosureMissing = "closure-missing";    // not (completely) in the store

struct ClosureFile {
  std::string path; // relative to the closure root, normalized, no ".."
  std::string hash; // XXH3-128 of the content (32 hex)
  uint64_t size = 0;
};

struct Closure {
  std::string root;                 // absolute directory the paths are relative to (where it was compiled)
  std::string unit;                 // the translation unit, relative to root
  std::string working_dir;          // the compile's working directory, relative to root ("." = root)
  std::vector<std::string> command; // the nvcc argv; paths of user files relative to working_dir
  std::vector<ClosureFile> files;   // sorted by path; the unit among them
};

// Content address of a closure: XXH3-128 of its canonical JSON.
std::string closure_id(const Closure &closure);
nlohmann::json to_json(const Closure &closure);
// Parses and checks a closure (every path relative and inside the root, the
// unit among the files); `origin` names the source in errors (kErrClosureBad).
Expected<Closure> closure_from_json(const nlohmann::json &j, const std::string &origin);

// Directories whose files belong to the toolchain, not to the user: the CUDA
// installation `cuda_root`, the system and compiler include and library
// directories, and `kbcc_dir`/tooling (the parse shims).
std::vector<std::string> toolchain_dirs(const std::string &cuda_root, const std::string &kbcc_dir);
// True when `path` (absolute) lies in one of `dirs`.
bool in_dirs(const std::string &path, const std::vector<std::string> &dirs);

// One compile as the build saw it.
struct CompileInputs {
  std::string unit;                        // the translation unit (absolute)
  std::string working_dir;                 // absolute
  std::vector<std::string> command;        // the nvcc argv
  std::vector<std::string> included_files; // every file the parse opened (absolute)
  std::vector<std::string> toolchain;      // toolchain_dirs(): files there are not copied
};

// `command` with every path argument (include directories, forced includes,
// inputs and outputs) that lies under `root` and outside `toolchain` made
// relative to `working_dir`; other arguments unchanged.
std::vector<std::string> relative_command(const std::vector<std::string> &command, const std::string &root,
                                          const std::string &working_dir, const std::vector<std::string> &toolchain);

// Reads the user files of `inputs` and builds their closure; `contents` gets
// hash -> bytes. Error naming the file when one cannot be read.
Expected<Closure> make_closure(const CompileInputs &inputs, std::map<std::string, std::string> &contents);

class ClosureStore {
public:
  // `max_bytes`: cap on the stored files' total size (0 = closures are not kept).
  ClosureStore(cache::Env &env, uint64_t max_bytes) : env_(env), max_bytes_(max_bytes) {}

  // Stores `closure` with its file `contents` (hash -> bytes, checked against
  // the hashes) in one write transaction and marks it used; returns its id.
  // Evicts least recently used closures when the files exceed the cap.
  // Errors: kErrClosureTooLarge, kErrClosureBad, store errors.
  Expected<std::string> put(const Closure &closure, const std::map<std::string, std::string> &contents);
  // make_closure + put.
  Expected<std::string> record(const CompileInputs &inputs);
  // The closure `id`, if stored.
  Expected<std::optional<Closure>> get(const std::string &id);
  // The bytes of the file with content hash `hash`, if stored.
  Expected<std::optional<std::string>> file(const std::string &hash);
  // Hashes of `closure`'s files that the store lacks.
  Expected<std::vector<std::string>> missing_files(const Closure &closure);
  // Total bytes of the stored files.
  Expected<uint64_t> bytes();

private:
  cache::Env &env_;
  uint64_t max_bytes_;
};

// A closure written out as a directory tree.
struct MaterializedUnit {
  std::string root;                 // where the closure root now is
  std::string unit;                 // absolute path of the unit
  std::string working_dir;          // absolute
  std::vector<std::string> command; // the stored command (valid from working_dir)
};

// Writes `closure`'s files under `dir` (created; reused when a previous call
// completed it) and returns where the unit is. Error kErrClosureMissing
// naming the file when the store lacks one of them.
Expected<MaterializedUnit> materialize(ClosureStore &store, const Closure &closure, const std::string &dir);

} // namespace kbcc::kb

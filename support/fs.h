// File-system helpers that report failures as Errors naming the file.
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <string>
#include <utility>

namespace kbcc {

// Reads a whole file.
Expected<std::string> read_file(const std::string &path);

// Writes `data` to `path` atomically (temporary file in the same directory,
// fsync, rename), creating parent directories. Readers never see a partial file.
Status write_file_atomic(const std::string &path, const std::string &data);

// Creates `path` and its parents (no error when it exists).
Status make_dirs(const std::string &path);

bool file_exists(const std::string &path);

// Canonical absolute path (symlinks resolved); the input when that fails.
std::string real_path(const std::string &path);

// Creates a fresh private directory under $TMPDIR (or /tmp) named prefix-XXXXXX.
Expected<std::string> make_temp_dir(const std::string &prefix);

// Removes a file or a directory tree; ignores a missing path.
void remove_all(const std::string &path);

// Removes `path` (a file or a directory tree) when it goes out of scope; "" = nothing.
class RemoveOnExit {
public:
  explicit RemoveOnExit(std::string path) : path_(std::move(path)) {}
  ~RemoveOnExit() {
    if (!path_.empty()) remove_all(path_);
  }
  RemoveOnExit(const RemoveOnExit &) = delete;
  RemoveOnExit &operator=(const RemoveOnExit &) = delete;

private:
  std::string path_;
};

// Total size in bytes of the regular files under `path`.
uint64_t tree_size(const std::string &path);

// The user's home directory ($HOME, else the passwd entry).
std::string home_dir();

} // namespace kbcc

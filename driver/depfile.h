// Depfiles (-MD/-MMD/-MF/-MT) of a compile that ran on a rewritten copy of
// the user's source: the copy's path is replaced by the user's, so make and
// ninja never see a temporary.
#pragma once

#include "support/expected.h"

#include <string>

namespace kbcc::driver {

// Escapes a path the way nvcc writes it into a depfile (space -> "\ ").
std::string escape_depfile_path(const std::string &path);

// Returns `text` with every mention of `temp_source` replaced by
// `user_source` and of `temp_dir`/ by `user_dir`/ (escaped forms included).
std::string rewrite_depfile_text(const std::string &text, const std::string &temp_source,
                                 const std::string &user_source, const std::string &temp_dir,
                                 const std::string &user_dir);

// Applies rewrite_depfile_text to the file at `path` (atomically).
Status fix_depfile(const std::string &path, const std::string &temp_source, const std::string &user_source,
                   const std::string &temp_dir, const std::string &user_dir);

} // namespace kbcc::driver

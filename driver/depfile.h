// Depfiles (-MD/-MMD/-MF/-MT) of a compile that ran on a rewritten copy of
// the user's source: the copy's path is replaced by the user's, so make and
// ninja never see a temporary.
#pragma once

#include "support/expected.h"

#include <string>
#include <vector>

namespace kbcc::driver {

// Escapes a path the way nvcc writes it into a depfile (space -> "\ ").
std::string escape_depfile_path(const std::string &path);

// Returns `text` with every mention of `temp_source` replaced by
// `user_source` and of `temp_dir`/ by `user_dir`/ (escaped forms included).
std::string rewrite_depfile_text(const std::string &text, const std::string &temp_source,
                                 const std::string &user_source, const std::string &temp_dir,
                                 const std::string &user_dir);

// Removes the prerequisites (one per line, as nvcc writes them) named in
// `names`, and their -MP phony rules: the #line names of a rewritten unit
// (variant labels, the absolute source) are not files of the build.
std::string drop_depfile_entries(const std::string &text, const std::vector<std::string> &names);

// Applies rewrite_depfile_text, then drop_depfile_entries(`pseudo_names`), to
// the file at `path` (atomically).
Status fix_depfile(const std::string &path, const std::string &temp_source, const std::string &user_source,
                   const std::string &temp_dir, const std::string &user_dir,
                   const std::vector<std::string> &pseudo_names = {});

} // namespace kbcc::driver

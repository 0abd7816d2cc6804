// kbcc's own log: one line per event, appended atomically (O_APPEND) so that
// concurrent kbcc processes under make -j never interleave within a line.
#pragma once

#include <string>

namespace kbcc {

// Sets the log file path (from the `log` config key). Until called, the path
// is $KBCC_LOG, else $KBCC_DIR/kbcc.log, else ~/.cache/kbcc/kbcc.log.
void set_log_path(const std::string &path);

// Appends "<UTC timestamp> [<pid>] <message>" to the log. Never fails loudly:
// a log that cannot be written is silently skipped.
void log_line(const std::string &message);

}  // namespace kbcc

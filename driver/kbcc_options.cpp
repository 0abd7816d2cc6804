#include "driver/kbcc_options.h"

#include <algorithm>

namespace kbcc::driver {

KbccOptions strip_kbcc_options(std::vector<std::string> &args) {
  KbccOptions o;
  std::erase_if(args, [&o](const std::string &a) {
    if (a.rfind("--kbcc-", 0) != 0) return false;
    if (a == "--kbcc-dry-run")
      o.dry_run = true;
    else if (a == "--kbcc-verbose")
      o.verbose = true;
    else if (a == "--kbcc-disable")
      o.disable = true;
    else if (o.unknown.empty())
      o.unknown = a;
    return true;
  });
  return o;
}

} // namespace kbcc::driver

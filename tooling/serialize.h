// JSON form of an Extraction (used between the parse child and kbcc, and by
// the extraction cache). Field names follow tooling/kernel.h.
#pragma once

#include "support/expected.h"
#include "tooling/kernel.h"

#include <string>

namespace kbcc::tooling {

std::string extraction_to_json(const Extraction &x);

// Parses extraction_to_json() output; the Error names `origin` on bad input.
Expected<Extraction> extraction_from_json(const std::string &text, const std::string &origin);

} // namespace kbcc::tooling

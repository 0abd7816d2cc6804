// Static guard against reward hacking, run on every candidate before it is
// timed (in addition to validation on captures and fuzzed inputs): the
// signature must be unchanged, every output the original writes must still be
// written, and loops whose trip count depends on a parameter must remain.
#pragma once
#include "launch/mapping.h"
#include "support/expected.h"

#include <optional>
#include <string>

namespace kbcc::agent {

// Ok, or an Error with code "signature-changed" or "removed-work" whose
// message says what is missing. `launch` is the candidate's launch mapping
// (none: the original launch): a loop bounded by a parameter its grid reads
// may become threads (a grid-stride loop run one item per thread), and one
// bounded by a parameter that a precondition bounds by the block
// (`n <= 4 * block.x`) a fixed number of guarded steps. A
// candidate that specializes the template `original` defines (its instance)
// may write each parameter's type with the template's arguments.
Status check_candidate(const std::string &original, const std::string &candidate,
                       const std::optional<launch::LaunchMapping> &launch = std::nullopt);

// True when `src` certainly stores through pointer parameter `name`
// (name[i] = / op= / ++, *name =, atomicXxx(&name[i] or name+..)).
bool writes_through(const std::string &src, const std::string &name);

} // namespace kbcc::agent

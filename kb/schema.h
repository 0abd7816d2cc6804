// A small JSON Schema validator for the subset kbcc's schemas use: type,
// required, properties, additionalProperties (bool or schema), items, enum,
// const, minimum, maximum, minLength, pattern, minItems, maxItems, uniqueItems,
// patternProperties, $ref to "#/$defs/<name>". Errors name the field path.
#pragma once

#include "support/expected.h"

#include <nlohmann/json.hpp>
#include <string>

namespace kbcc::kb {

// Checks `doc` against `schema`. The first violation is returned as
// "<origin>: <path>: <problem>", path in "$.a.b[3].c" form.
Status validate_json(const nlohmann::json &doc, const nlohmann::json &schema, const std::string &origin);

} // namespace kbcc::kb

// Envelope of the JSON documents kbcc shares through the remote store (KB
// contributions, registry entries): {"kbcc_remote":1, "kind", "hash",
// "payload"} where hash is the XXH3-128 of the payload's canonical text, so a
// document damaged on the way is recognised. Variants are stored bare (their
// key is their content hash, see trust.h variant_content_hash).
#pragma once

#include "support/expected.h"

#include <nlohmann/json.hpp>
#include <string>

namespace kbcc::remote {

inline constexpr int kRemoteFormat = 1;

// The envelope text for `payload`.
std::string wrap_object(const std::string &kind, const nlohmann::json &payload);
// The payload of an envelope read from `origin` (a key or URL). Errors
// ("remote-garbage"/"remote-hash") name `origin`: not JSON, another kind or
// format version, or a payload that does not match its hash.
Expected<nlohmann::json> unwrap_object(const std::string &text, const std::string &kind, const std::string &origin);

} // namespace kbcc::remote

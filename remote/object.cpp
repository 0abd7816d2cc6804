#include "remote/object.h"

#include "support/hash.h"

namespace kbcc::remote {

std::string wrap_object(const std::string &kind, const nlohmann::json &payload) {
  nlohmann::json doc = {
      {"kbcc_remote", kRemoteFormat}, {"kind", kind}, {"hash", hash_hex(payload.dump())}, {"payload", payload}};
  return doc.dump();
}

Expected<nlohmann::json> unwrap_object(const std::string &text, const std::string &kind, const std::string &origin) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return make_error(origin + ": not a kbcc remote object (not JSON)", "remote-garbage");
  if (doc.value("kbcc_remote", 0) != kRemoteFormat)
    return make_error(origin + ": not a kbcc remote object of format " + std::to_string(kRemoteFormat),
                      "remote-garbage");
  if (doc.value("kind", "") != kind)
    return make_error(origin + ": holds a '" + doc.value("kind", "") + "', expected a '" + kind + "'",
                      "remote-garbage");
  if (!doc.contains("payload") || !doc["hash"].is_string())
    return make_error(origin + ": remote object without payload or hash", "remote-garbage");
  std::string actual = hash_hex(doc["payload"].dump());
  if (actual != doc["hash"].get<std::string>())
    return make_error(origin + ": content hash " + actual + " does not match its recorded hash " +
                          doc["hash"].get<std::string>(),
                      "remote-hash");
  return doc["payload"];
}

} // namespace kbcc::remote

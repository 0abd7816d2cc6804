// One JSON POST over libcurl with retries: the transport under both LLM protocols.
#pragma once
#include "agent/llm/client.h"

#include <map>

namespace kbcc::agent::llm {

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers; // lower-case names
  int retries = 0;
};

// POSTs `body` to `url`. Retries timeouts, connection failures, 429 and 5xx
// up to options.max_retries times, waiting Retry-After when the server sends
// it, else backoff_seconds * 2^n (capped). A final non-2xx status is returned
// as a response (not an Error); Error only when no response came back.
Expected<HttpResponse> post_json(const std::string &url, const std::vector<std::string> &headers,
                                 const std::string &body, const ClientOptions &options);

} // namespace kbcc::agent::llm

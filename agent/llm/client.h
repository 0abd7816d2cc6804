// LLM clients over libcurl: OpenAI-compatible /v1/chat/completions (OpenAI,
// vLLM, llama.cpp server, Ollama) and Anthropic /v1/messages. Timeouts,
// retries with exponential backoff on 429/5xx/timeouts (Retry-After
// honoured), token and cost counting. The API key is sent in a header and
// never appears in errors or logs.
#pragma once
#include "agent/lowering.h"
#include "support/expected.h"

#include <memory>
#include <string>
#include <vector>

namespace kbcc {
class Config;
}

namespace kbcc::agent::llm {

struct Message {
  std::string role; // "system", "user" or "assistant"
  std::string content;
};

struct ClientOptions {
  std::string api;      // "openai" or "anthropic"
  std::string endpoint; // base URL, e.g. https://api.openai.com (a trailing /v1 is accepted)
  std::string model;
  std::string api_key; // may be empty for local servers (openai api only)
  double timeout_seconds = 120;
  int max_retries = 4;
  double backoff_seconds = 1.0; // first retry delay; doubles per retry
  double backoff_max_seconds = 30;
  int max_tokens = 8192;
  double cost_input = 0;  // per million input tokens
  double cost_output = 0; // per million output tokens
};

struct Reply {
  std::string text;
  Usage usage;
  int retries = 0;
};

class Client {
public:
  virtual ~Client() = default;
  // Sends the conversation; the reply text and its token usage. Errors (code
  // "llm-http", "llm-timeout", "llm-malformed", "llm-refused") never contain the API key.
  virtual Expected<Reply> complete(const std::vector<Message> &messages) = 0;
  virtual const ClientOptions &options() const = 0;
};

// A client for options.api; Error when the api is unknown or the endpoint/model is missing.
Expected<std::unique_ptr<Client>> make_client(const ClientOptions &options);

// Options from the llm_* config keys; nullopt-like empty api when no LLM is configured.
ClientOptions options_from_config(const Config &config);

// `text` with every occurrence of `secret` replaced by "<redacted>".
std::string redact(std::string text, const std::string &secret);

} // namespace kbcc::agent::llm

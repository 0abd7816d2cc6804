#include "agent/llm/client.h"

#include "agent/llm/http.h"
#include "support/config.h"

#include <nlohmann/json.hpp>

namespace kbcc::agent::llm {
namespace {

using nlohmann::json;

std::string base_url(const std::string &endpoint) {
  std::string b = endpoint;
  while (!b.empty() && b.back() == '/')
    b.pop_back();
  if (b.size() >= 3 && b.compare(b.size() - 3, 3, "/v1") == 0) b.resize(b.size() - 3);
  return b;
}

// Error text of a non-2xx response, from either protocol's error object.
std::string error_text(const HttpResponse &r) {
  std::string msg;
  try {
    json j = json::parse(r.body);
    if (j.contains("error") && j["error"].is_object())
      msg = j["error"].value("message", "");
    else if (j.contains("error") && j["error"].is_string())
      msg = j["error"];
  } catch (...) {
  }
  if (msg.empty()) msg = r.body.substr(0, 300);
  return "HTTP " + std::to_string(r.status) + ": " + msg;
}

Usage usage_of(long in, long out, const ClientOptions &o) {
  Usage u;
  u.input_tokens = in;
  u.output_tokens = out;
  u.cost = in * o.cost_input / 1e6 + out * o.cost_output / 1e6;
  u.requests = 1;
  return u;
}

class HttpClient : public Client {
public:
  explicit HttpClient(ClientOptions o) : o_(std::move(o)) {}
  const ClientOptions &options() const override { return o_; }

  Expected<Reply> complete(const std::vector<Message> &messages) override {
    auto r = post_json(url(), headers(), request(messages).dump(), o_);
    if (!r) return make_error(redact(r.error().message, o_.api_key), r.error().code);
    if (r->status < 200 || r->status >= 300)
      return make_error(redact("LLM server refused the request: " + error_text(*r), o_.api_key),
                        r->status == 429 || r->status >= 500 ? "llm-http" : "llm-refused");
    json j;
    try {
      j = json::parse(r->body);
    } catch (const std::exception &e) {
      return make_error("LLM reply is not JSON: " + redact(r->body.substr(0, 200), o_.api_key), "llm-malformed");
    }
    auto reply = parse(j);
    if (!reply) return reply;
    reply->retries = r->retries;
    return reply;
  }

protected:
  virtual std::string url() const = 0;
  virtual std::vector<std::string> headers() const = 0;
  virtual json request(const std::vector<Message> &messages) const = 0;
  virtual Expected<Reply> parse(const json &j) const = 0;
  ClientOptions o_;
};

class OpenAiClient : public HttpClient {
public:
  using HttpClient::HttpClient;

protected:
  std::string url() const override { return base_url(o_.endpoint) + "/v1/chat/completions"; }
  std::vector<std::string> headers() const override {
    std::vector<std::string> h{"Content-Type: application/json"};
    if (!o_.api_key.empty()) h.push_back("Authorization: Bearer " + o_.api_key);
    return h;
  }
  json request(const std::vector<Message> &messages) const override {
    json m = json::array();
    for (const auto &msg : messages)
      m.push_back({{"role", msg.role}, {"content", msg.content}});
    return {{"model", o_.model}, {"messages", m}, {"max_tokens", o_.max_tokens}, {"temperature", 0.2}};
  }
  Expected<Reply> parse(const json &j) const override {
    try {
      Reply r;
      const json &msg = j.at("choices").at(0).at("message");
      r.text = msg.at("content").is_null() ? "" : msg.at("content").get<std::string>();
      long in = 0, out = 0;
      if (j.contains("usage") && j["usage"].is_object()) {
        in = j["usage"].value("prompt_tokens", 0L);
        out = j["usage"].value("completion_tokens", 0L);
      }
      r.usage = usage_of(in, out, o_);
      return r;
    } catch (const std::exception &e) {
      return make_error(std::string("LLM reply lacks choices[0].message.content: ") + e.what(), "llm-malformed");
    }
  }
};

class AnthropicClient : public HttpClient {
public:
  using HttpClient::HttpClient;

protected:
  std::string url() const override { return base_url(o_.endpoint) + "/v1/messages"; }
  std::vector<std::string> headers() const override {
    return {"Content-Type: application/json", "anthropic-version: 2023-06-01", "x-api-key: " + o_.api_key};
  }
  json request(const std::vector<Message> &messages) const override {
    json m = json::array();
    std::string system;
    for (const auto &msg : messages) {
      if (msg.role == "system")
        system += (system.empty() ? "" : "\n\n") + msg.content;
      else
        m.push_back({{"role", msg.role}, {"content", msg.content}});
    }
    json req{{"model", o_.model}, {"max_tokens", o_.max_tokens}, {"messages", m}};
    if (!system.empty()) req["system"] = system;
    return req;
  }
  Expected<Reply> parse(const json &j) const override {
    try {
      Reply r;
      bool any = false;
      for (const auto &block : j.at("content"))
        if (block.value("type", "") == "text") {
          r.text += block.at("text").get<std::string>();
          any = true;
        }
      if (!any) return make_error("LLM reply has no text content block", "llm-malformed");
      long in = 0, out = 0;
      if (j.contains("usage") && j["usage"].is_object()) {
        in = j["usage"].value("input_tokens", 0L);
        out = j["usage"].value("output_tokens", 0L);
      }
      r.usage = usage_of(in, out, o_);
      return r;
    } catch (const std::exception &e) {
      return make_error(std::string("LLM reply lacks content[]: ") + e.what(), "llm-malformed");
    }
  }
};

} // namespace

std::string redact(std::string text, const std::string &secret) {
  if (secret.empty()) return text;
  for (size_t p = text.find(secret); p != std::string::npos; p = text.find(secret, p))
    text.replace(p, secret.size(), "<redacted>");
  return text;
}

Expected<std::unique_ptr<Client>> make_client(const ClientOptions &o) {
  if (o.endpoint.empty()) return make_error("llm_endpoint is not set", "llm-config");
  if (o.model.empty()) return make_error("llm_model is not set", "llm-config");
  if (o.api == "openai") return std::unique_ptr<Client>(new OpenAiClient(o));
  if (o.api == "anthropic") {
    if (o.api_key.empty()) return make_error("llm_api_key is not set (Anthropic needs a key)", "llm-config");
    return std::unique_ptr<Client>(new AnthropicClient(o));
  }
  return make_error("llm_api must be 'openai' or 'anthropic', not '" + o.api + "'", "llm-config");
}

ClientOptions options_from_config(const Config &c) {
  ClientOptions o;
  o.api = c.get("llm_api");
  o.endpoint = c.get("llm_endpoint");
  o.model = c.get("llm_model");
  o.api_key = c.get("llm_api_key");
  o.timeout_seconds = c.get_double("llm_timeout") > 0 ? c.get_double("llm_timeout") : 120;
  o.max_retries = static_cast<int>(c.get_double("llm_max_retries"));
  o.cost_input = c.get_double("llm_cost_input");
  o.cost_output = c.get_double("llm_cost_output");
  return o;
}

} // namespace kbcc::agent::llm

#include "agent/llm/http.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <curl/curl.h>
#include <thread>

namespace kbcc::agent::llm {
namespace {

size_t on_body(char *data, size_t size, size_t n, void *user) {
  static_cast<std::string *>(user)->append(data, size * n);
  return size * n;
}

size_t on_header(char *data, size_t size, size_t n, void *user) {
  std::string line(data, size * n);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon), value = line.substr(colon + 1);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r\n") + 1);
    (*static_cast<std::map<std::string, std::string> *>(user))[name] = value;
  }
  return size * n;
}

struct Attempt {
  CURLcode code = CURLE_OK;
  HttpResponse response;
};

Attempt post_once(const std::string &url, const std::vector<std::string> &headers, const std::string &body,
                  const ClientOptions &o) {
  Attempt a;
  CURL *curl = curl_easy_init();
  if (!curl) {
    a.code = CURLE_FAILED_INIT;
    return a;
  }
  curl_slist *list = nullptr;
  for (const auto &h : headers)
    list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(o.timeout_seconds * 1000));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min(o.timeout_seconds, 30.0) * 1000));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &a.response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &a.response.headers);
  a.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &a.response.status);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  return a;
}

bool retryable(const Attempt &a) {
  if (a.code != CURLE_OK) return true; // timeout, refused connection, reset
  return a.response.status == 429 || a.response.status >= 500;
}

double delay_for(const Attempt &a, int retry, const ClientOptions &o) {
  auto it = a.response.headers.find("retry-after");
  if (it != a.response.headers.end()) {
    try {
      return std::clamp(std::stod(it->second), 0.0, o.backoff_max_seconds);
    } catch (...) {
    }
  }
  return std::min(o.backoff_seconds * std::pow(2.0, retry), o.backoff_max_seconds);
}

} // namespace

Expected<HttpResponse> post_json(const std::string &url, const std::vector<std::string> &headers,
                                 const std::string &body, const ClientOptions &o) {
  static const bool initialized = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  (void)initialized;
  for (int retry = 0;; ++retry) {
    Attempt a = post_once(url, headers, body, o);
    a.response.retries = retry;
    if (!retryable(a) || retry >= o.max_retries) {
      if (a.code == CURLE_OPERATION_TIMEDOUT)
        return make_error("LLM request to " + url + " timed out after " + std::to_string(retry + 1) + " attempts",
                          "llm-timeout");
      if (a.code != CURLE_OK)
        return make_error("LLM request to " + url + " failed: " + curl_easy_strerror(a.code), "llm-http");
      return a.response;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_for(a, retry, o)));
  }
}

} // namespace kbcc::agent::llm

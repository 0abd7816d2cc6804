// HTTP/WebDAV backend: GET, PUT (MKCOL of missing folders on 409), HEAD and
// PROPFIND (Depth: 1) over libcurl, each bounded by the request timeout.
#include "remote/store.h"

#include <algorithm>
#include <cstring>
#include <curl/curl.h>
#include <mutex>
#include <regex>
#include <set>

namespace kbcc::remote {
namespace {

struct Reply {
  long status = 0;
  std::string body;
};

size_t append_body(char *data, size_t size, size_t n, void *user) {
  static_cast<std::string *>(user)->append(data, size * n);
  return size * n;
}

struct UploadSource {
  const std::string *data;
  size_t offset = 0;
};

size_t read_body(char *out, size_t size, size_t n, void *user) {
  auto *src = static_cast<UploadSource *>(user);
  size_t len = std::min(size * n, src->data->size() - src->offset);
  std::memcpy(out, src->data->data() + src->offset, len);
  src->offset += len;
  return len;
}

// Percent-decodes an href from a PROPFIND reply.
std::string url_decode(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

class HttpStore : public Store {
public:
  HttpStore(std::string base, std::string path, std::string userpwd, StoreOptions options)
      : base_(std::move(base)), path_(std::move(path)), userpwd_(std::move(userpwd)), options_(options) {}

  Expected<std::optional<std::string>> get(const std::string &key) override {
    auto r = request("GET", key, nullptr, {});
    if (!r) return r.error();
    if (r->status == 404) return std::optional<std::string>();
    if (r->status != 200) return status_error("GET", key, *r);
    return std::optional<std::string>(std::move(r->body));
  }

  Status put(const std::string &key, const std::string &data) override {
    if (!valid_key(key)) return make_error("invalid remote key '" + key + "'", "remote-key");
    auto r = request("PUT", key, &data, {});
    if (!r) return r.error();
    if (r->status == 409) { // a server without create_full_put_path: make the folders
      if (auto s = make_folders(key); !s) return s;
      r = request("PUT", key, &data, {});
      if (!r) return r.error();
    }
    if (r->status < 200 || r->status >= 300) return status_error("PUT", key, *r);
    return Status::ok();
  }

  Expected<bool> check(const std::string &key) override {
    auto r = request("HEAD", key, nullptr, {});
    if (!r) return r.error();
    if (r->status == 404) return false;
    if (r->status != 200) return status_error("HEAD", key, *r);
    return true;
  }

  Expected<std::vector<std::string>> list(const std::string &prefix) override {
    auto r = request("PROPFIND", prefix, nullptr, {"Depth: 1"});
    if (!r) return r.error();
    if (r->status == 404) return std::vector<std::string>();
    if (r->status != 207) return status_error("PROPFIND", prefix, *r);
    return parse_listing(prefix, r->body);
  }

  std::string location() const override { return base_ + path_; }

private:
  std::string url_of(const std::string &key) const { return base_ + path_ + "/" + key; }

  Error status_error(const char *method, const std::string &key, const Reply &r) const {
    return make_error(std::string(method) + " " + url_of(key) + ": HTTP " + std::to_string(r.status), "remote-http");
  }

  Status make_folders(const std::string &key) {
    for (size_t slash = key.find('/'); slash != std::string::npos; slash = key.find('/', slash + 1)) {
      auto r = request("MKCOL", key.substr(0, slash + 1), nullptr, {});
      if (!r) return r.error();
      if (r->status != 201 && r->status != 405) return status_error("MKCOL", key.substr(0, slash + 1), *r);
    }
    return Status::ok();
  }

  Expected<std::vector<std::string>> parse_listing(const std::string &prefix, const std::string &xml) const {
    static const std::regex href(R"(<(?:[A-Za-z]+:)?href>([^<]*)</(?:[A-Za-z]+:)?href>)");
    std::string folder = path_ + "/" + prefix;
    std::set<std::string> names;
    bool any = false;
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), href); it != std::sregex_iterator(); ++it) {
      any = true;
      std::string h = url_decode((*it)[1].str());
      if (h.rfind("http", 0) == 0) h = h.substr(std::min(h.size(), h.find('/', h.find("//") + 2)));
      if (h.rfind(folder, 0) != 0 || h.size() == folder.size()) continue;
      std::string name = h.substr(folder.size());
      auto slash = name.find('/');
      if (slash != std::string::npos && slash + 1 != name.size()) continue;
      names.insert(name);
    }
    if (!any) return make_error("PROPFIND " + url_of(prefix) + ": reply is not a WebDAV listing", "remote-garbage");
    return std::vector<std::string>(names.begin(), names.end());
  }

  Expected<Reply> request(const std::string &method, const std::string &key, const std::string *body,
                          const std::vector<std::string> &headers) {
    CURL *curl = curl_easy_init();
    if (!curl) return make_error("curl_easy_init failed", "remote-io");
    Reply reply;
    UploadSource src{body};
    std::string url = url_of(key);
    curl_slist *hdrs = nullptr;
    for (const auto &h : headers)
      hdrs = curl_slist_append(hdrs, h.c_str());
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout.count()));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.timeout.count()));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
    if (hdrs) curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
    if (!userpwd_.empty()) curl_easy_setopt(curl, CURLOPT_USERPWD, userpwd_.c_str());
    if (method == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (method == "PUT") {
      curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_body);
      curl_easy_setopt(curl, CURLOPT_READDATA, &src);
      curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(body->size()));
    } else if (method != "GET") {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
    }
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(curl);
    if (rc == CURLE_OPERATION_TIMEDOUT)
      return make_error(method + " " + url + ": no answer within " + std::to_string(options_.timeout.count()) + " ms",
                        "remote-timeout");
    if (rc != CURLE_OK) return make_error(method + " " + url + ": " + curl_easy_strerror(rc), "remote-io");
    return reply;
  }

  std::string base_, path_; // base_ has no credentials: it appears in messages
  std::string userpwd_;     // "user:password" from the URL, sent as basic auth
  StoreOptions options_;
};

} // namespace

Expected<std::unique_ptr<Store>> make_http_store(const std::string &url, const StoreOptions &options) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  static const std::regex form(R"(^(https?://)(?:([^@/]*)@)?([^/@]+)(/.*)?$)");
  std::smatch m;
  if (!std::regex_match(url, m, form))
    return make_error("remote '" + redact_url(url) + "' is not an http(s) URL", "remote-config");
  std::string path = m[4].str();
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  return std::unique_ptr<Store>(std::make_unique<HttpStore>(m[1].str() + m[3].str(), path, m[2].str(), options));
}

} // namespace kbcc::remote

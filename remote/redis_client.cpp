#include "remote/redis_client.h"

#include "remote/store.h"

#include <hiredis/hiredis.h>
#include <regex>

namespace kbcc::remote {
namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = ms.count() / 1000;
  tv.tv_usec = (ms.count() % 1000) * 1000;
  return tv;
}

RedisReply convert(const redisReply *r) {
  RedisReply out;
  switch (r->type) {
  case REDIS_REPLY_STRING:
    out.type = RedisReply::String;
    out.str.assign(r->str, r->len);
    break;
  case REDIS_REPLY_STATUS:
    out.type = RedisReply::Status;
    out.str.assign(r->str, r->len);
    break;
  case REDIS_REPLY_ERROR:
    out.type = RedisReply::Error;
    out.str.assign(r->str, r->len);
    break;
  case REDIS_REPLY_INTEGER:
    out.type = RedisReply::Integer;
    out.integer = r->integer;
    break;
  case REDIS_REPLY_ARRAY:
    out.type = RedisReply::Array;
    for (size_t i = 0; i < r->elements; ++i)
      out.elements.push_back(convert(r->element[i]));
    break;
  default:
    out.type = RedisReply::Nil;
    break;
  }
  return out;
}

} // namespace

Expected<std::unique_ptr<RedisClient>> RedisClient::connect(const std::string &url, std::chrono::milliseconds timeout) {
  static const std::regex form(R"(^redis://(?:([^:@/]*):([^@/]*)@)?([^:/@]+)(?::(\d+))?(?:/(\d+))?/?$)");
  std::smatch m;
  std::string shown = redact_url(url);
  if (!std::regex_match(url, m, form))
    return make_error("remote '" + shown + "' is not a redis://[user:password@]host[:port][/db] URL", "remote-config");
  int port = m[4].matched ? std::stoi(m[4].str()) : 6379;
  redisContext *c = redisConnectWithTimeout(m[3].str().c_str(), port, to_timeval(timeout));
  if (!c) return make_error("connect " + shown + ": out of memory", "remote-io");
  if (c->err) {
    std::string why = c->errstr;
    redisFree(c);
    return make_error("connect " + shown + ": " + why,
                      why.find("timed out") != std::string::npos ? "remote-timeout" : "remote-io");
  }
  redisSetTimeout(c, to_timeval(timeout));
  std::unique_ptr<RedisClient> client(new RedisClient());
  client->ctx_ = c;
  client->url_ = shown;
  if (m[2].matched && !m[2].str().empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!m[1].str().empty()) auth.push_back(m[1].str());
    auth.push_back(m[2].str());
    auto r = client->command(auth);
    if (!r) return r.error();
    if (r->type == RedisReply::Error) return make_error("AUTH on " + shown + ": " + r->str, "remote-io");
  }
  if (m[5].matched && m[5].str() != "0") {
    auto r = client->command({"SELECT", m[5].str()});
    if (!r) return r.error();
    if (r->type == RedisReply::Error) return make_error("SELECT on " + shown + ": " + r->str, "remote-io");
  }
  return client;
}

RedisClient::~RedisClient() {
  if (ctx_) redisFree(static_cast<redisContext *>(ctx_));
}

void RedisClient::set_timeout(std::chrono::milliseconds timeout) {
  redisSetTimeout(static_cast<redisContext *>(ctx_), to_timeval(timeout));
}

Expected<RedisReply> RedisClient::command(const std::vector<std::string> &argv) {
  auto *c = static_cast<redisContext *>(ctx_);
  if (c->err) return make_error(url_ + ": connection unusable after an earlier error: " + c->errstr, "remote-io");
  std::vector<const char *> args;
  std::vector<size_t> lens;
  for (const auto &a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  auto *r = static_cast<redisReply *>(redisCommandArgv(c, static_cast<int>(args.size()), args.data(), lens.data()));
  if (!r) {
    std::string why = c->errstr;
    bool timeout = c->err == REDIS_ERR_IO && (why.find("temporarily unavailable") != std::string::npos ||
                                              why.find("timed out") != std::string::npos);
    return make_error(argv.front() + " " + url_ + ": " + (timeout ? "no answer in time" : why),
                      timeout ? "remote-timeout" : (c->err == REDIS_ERR_PROTOCOL ? "remote-garbage" : "remote-io"));
  }
  RedisReply out = convert(r);
  freeReplyObject(r);
  return out;
}

} // namespace kbcc::remote

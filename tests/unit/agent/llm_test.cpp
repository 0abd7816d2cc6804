// LLM clients and the LLM lowering path against the scripted server, for
// both protocols. GPU steps use the Evaluator double; the compile check uses
// the real nvcc when it is installed.
#include "agent/gradient.h"
#include "agent/llm/client.h"
#include "agent/llm_lowering.h"
#include "agent/loop.h"
#include "llm_server.h"
#include "support/log.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::agent;
using nlohmann::json;

namespace {

const char *kKey = "sk-test-SECRET-0123456789";

std::string block(const std::string &code) { return "Here is the kernel:\n```cuda\n" + code + "\n```\n"; }

const std::string kGood = R"(__global__ void saxpy(int n, float a, const float *__restrict__ x, float *y) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fmaf(a, x[i], y[i]);
})";
const std::string kSlow = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    volatile float t = a * x[i];
    y[i] = t + y[i];
  }
})";
const std::string kWrong = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i];
})";
const std::string kSkips = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) (void)x[i];
})";
const std::string kBroken = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = fmaf(a, x[i], y[i]) +;
})";

const std::string kNvcc = "/usr/local/cuda/bin/nvcc";

// Evaluator double: compiles with the real nvcc when present; "validates" by
// checking that the candidate still computes a*x+y (test-supplied rule);
// times fmaf candidates at 0.6 ms and volatile ones at 1.5 ms.
class LlmEvaluator : public Evaluator {
public:
  int evaluations = 0;
  Expected<Measurement> baseline(const KernelTask &) override {
    return Measurement{Timing{1.0, 0.002, 50}, {{"dram_throughput_pct", 85}, {"sm_throughput_pct", 20}}, 0.5};
  }
  std::vector<Expected<Evaluation>> evaluate(const KernelTask &t, const std::vector<Candidate> &cs) override {
    std::vector<Expected<Evaluation>> out;
    for (const Candidate &c : cs)
      out.push_back(evaluate_one(t, c));
    return out;
  }
  Metrics profile(const KernelTask &, const Candidate &) override {
    return {{"dram_throughput_pct", 88}, {"sm_throughput_pct", 22}};
  }
  Expected<bool> sanitize(const KernelTask &, const Candidate &, std::string &) override { return true; }
  Expected<Evaluation> evaluate_one(const KernelTask &, const Candidate &c) {
    ++evaluations;
    Evaluation e;
    e.gpu_seconds = 0.5;
    if (file_exists(kNvcc)) {
      auto dir = *make_temp_dir("kbcc-llm-nvcc");
      (void)write_file_atomic(dir + "/k.cu", c.source);
      auto r = run_process({kNvcc, "-cubin", "-arch=sm_80", "-o", dir + "/k.cubin", dir + "/k.cu"});
      remove_all(dir);
      if (!r || r->exit_code != 0) {
        e.compile_log = r ? r->err : "nvcc did not run";
        return e;
      }
    } else if (c.source.find(") +;") != std::string::npos) {
      e.compile_log = "error: expected an expression";
      return e;
    }
    e.compiled = true;
    bool computes =
        c.source.find("fmaf(a, x[i], y[i])") != std::string::npos || c.source.find("t + y[i]") != std::string::npos;
    if (!computes) {
      e.validation_log = "capture 1, buffer y: 1048576 mismatches, max abs error 2.5";
      return e;
    }
    e.validated = true;
    double ms = c.source.find("volatile") != std::string::npos ? 1.5 : 0.6;
    e.timing = Timing{ms, 0.002, 50};
    e.metrics = {{"dram_throughput_pct", 88}, {"sm_throughput_pct", 22}};
    return e;
  }
};

json llm_only_kb() {
  return json::parse(R"({"states":[{"name":"memory_bound","bottleneck":"memory_bound",
    "signature":{"dram_throughput_pct":85,"sm_throughput_pct":20},
    "optimizations":[{"id":"vectorize","description":"use fused multiply-add and read-only loads",
                      "predicted_speedup":1.3,"insights":"worked on streaming kernels"}]}]})");
}

KernelTask saxpy_task() {
  KernelTask t;
  t.kernel.qualified_name = "saxpy";
  t.kernel.hash = "00112233445566778899aabbccddeeff";
  t.kernel.source = test::kSaxpy;
  t.arch = "sm_80";
  kbcc::launch::Launch l;
  l.block[0] = 256;
  l.grid[0] = 4096;
  t.launches = {l};
  kbcc::tooling::Param n, a, x, y;
  n.name = "n", n.is_integer = n.is_signed = true, n.size = 4;
  a.name = "a", a.size = 4;
  x.name = "x", x.is_pointer = true, x.size = 8;
  y.name = "y", y.is_pointer = true, y.size = 8;
  t.kernel.params = {n, a, x, y};
  return t;
}

class LlmTest : public ::testing::TestWithParam<std::string> {
protected:
  llm::ClientOptions options(const std::string &url) {
    llm::ClientOptions o;
    o.api = GetParam();
    o.endpoint = url;
    o.model = "test-model";
    o.api_key = kKey;
    o.timeout_seconds = 5;
    o.max_retries = 2;
    o.backoff_seconds = 0.05;
    o.cost_input = 3;
    o.cost_output = 15;
    return o;
  }

  struct Run {
    KernelResult result;
    JsonPolicy policy = *JsonPolicy::from_json(llm_only_kb());
    int stored = 0;
    int evaluations = 0;
    std::vector<json> requests;
    const StepRecord &step() const { return result.trajectories.at(0).steps.at(0); }
    OptionStats stats() const { return policy.options("memory_bound", "sm_80").at(0).stats; }
  };

  // One trajectory of one step with the LLM lowering the only (LLM-only) option.
  Run run_loop(const json &responses, double timeout = 5) {
    test::ScriptedServer server(responses);
    EXPECT_FALSE(server.url().empty());
    Run run;
    auto o = options(server.url());
    o.timeout_seconds = timeout;
    auto client = llm::make_client(o);
    EXPECT_TRUE(client);
    LlmLowerer llm(**client);
    CombinedLowerer lowerer(&llm);
    LlmEvaluator ev;
    LoopOptions lo;
    lo.trajectories = 1;
    lo.depth = 1;
    Budget budget;
    LoopHooks hooks;
    hooks.store_variant = [&](const KernelTask &, const Candidate &, const Measurement &, const Evaluation &, int) {
      ++run.stored;
      return Status::ok();
    };
    auto r = optimize_kernel(saxpy_task(), ev, run.policy, lowerer, lo, budget, hooks);
    EXPECT_TRUE(r);
    if (r) run.result = *r;
    run.evaluations = ev.evaluations;
    run.requests = server.requests();
    return run;
  }
};

std::string last_user_text(const json &request) {
  const json &m = request["body"]["messages"];
  return m.back()["content"].get<std::string>();
}

} // namespace

TEST_P(LlmTest, ClientSpeaksTheProtocolAndCountsTokens) {
  test::ScriptedServer server(json::array({{{"content", "hello"}, {"usage", {1200, 300}}}}));
  auto client = llm::make_client(options(server.url()));
  ASSERT_TRUE(client) << client.error().message;
  auto r = (*client)->complete({{"system", "be brief"}, {"user", "hi"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "hello");
  EXPECT_EQ(r->usage.input_tokens, 1200);
  EXPECT_EQ(r->usage.output_tokens, 300);
  EXPECT_NEAR(r->usage.cost, 1200 * 3 / 1e6 + 300 * 15 / 1e6, 1e-12);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  const json &req = reqs[0];
  EXPECT_EQ(req["body"]["model"], "test-model");
  if (GetParam() == "anthropic") {
    EXPECT_EQ(req["path"], "/v1/messages");
    EXPECT_EQ(req["headers"]["x-api-key"], kKey);
    EXPECT_EQ(req["headers"]["anthropic-version"], "2023-06-01");
    EXPECT_EQ(req["body"]["system"], "be brief");
    EXPECT_EQ(req["body"]["messages"].size(), 1u);
  } else {
    EXPECT_EQ(req["path"], "/v1/chat/completions");
    EXPECT_EQ(req["headers"]["authorization"], std::string("Bearer ") + kKey);
    EXPECT_EQ(req["body"]["messages"][0]["role"], "system");
  }
}

TEST_P(LlmTest, RateLimitHonoursRetryAfter) {
  test::ScriptedServer server(json::array({{{"status", 429}, {"retry_after", 1}}, {{"content", "ok"}}}));
  auto client = llm::make_client(options(server.url()));
  auto r = (*client)->complete({{"user", "hi"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "ok");
  EXPECT_EQ(r->retries, 1);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_GE(reqs[1]["time"].get<double>() - reqs[0]["time"].get<double>(), 0.9);
}

TEST_P(LlmTest, ServerErrorsAreRetriedWithBackoff) {
  test::ScriptedServer server(json::array({{{"status", 500}}, {{"status", 503}}, {{"content", "ok"}}}));
  auto client = llm::make_client(options(server.url()));
  auto r = (*client)->complete({{"user", "hi"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->retries, 2);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  // 0.05 s then 0.1 s
  EXPECT_GE(reqs[2]["time"].get<double>() - reqs[1]["time"].get<double>(), 0.09);
}

TEST_P(LlmTest, PersistentServerErrorGivesUp) {
  test::ScriptedServer server(json::array({{{"status", 500}, {"message", "boom"}}}));
  auto client = llm::make_client(options(server.url()));
  auto r = (*client)->complete({{"user", "hi"}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("HTTP 500"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("boom"), std::string::npos) << r.error().message;
  EXPECT_EQ(server.requests().size(), 3u); // 1 + max_retries
}

TEST_P(LlmTest, TimeoutIsRetriedThenReported) {
  test::ScriptedServer server(json::array({{{"delay", 3}, {"content", "late"}}}));
  auto o = options(server.url());
  o.timeout_seconds = 0.5;
  o.max_retries = 1;
  auto client = llm::make_client(o);
  auto start = std::chrono::steady_clock::now();
  auto r = (*client)->complete({{"user", "hi"}});
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "llm-timeout");
  EXPECT_LT(took, 2.9);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_P(LlmTest, MalformedJsonIsAnErrorNotACrash) {
  test::ScriptedServer server(json::array({{{"raw", "{\"choices\": [ {\"message\": "}}}));
  auto client = llm::make_client(options(server.url()));
  auto r = (*client)->complete({{"user", "hi"}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "llm-malformed");
  test::ScriptedServer wrong_shape(json::array({{{"raw", "{\"unexpected\": true}"}}}));
  client = llm::make_client(options(wrong_shape.url()));
  r = (*client)->complete({{"user", "hi"}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "llm-malformed");
}

TEST_P(LlmTest, ApiKeyNeverInErrorsOrLog) {
  auto dir = *make_temp_dir("kbcc-llm-log");
  set_log_path(dir + "/kbcc.log");
  // The server echoes the key it received in its error message.
  auto run = run_loop(json::array({{{"status", 401}, {"message", "invalid key"}, {"echo_auth", true}}}));
  const StepRecord &s = run.step();
  EXPECT_NE(s.error.find("invalid key"), std::string::npos) << s.error;
  EXPECT_EQ(s.error.find(kKey), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("<redacted>"), std::string::npos) << s.error;
  EXPECT_EQ(to_json(run.result.trajectories[0]).dump().find(kKey), std::string::npos);
  EXPECT_EQ(run.policy.document().dump().find(kKey), std::string::npos);
  EXPECT_EQ(read_file(dir + "/kbcc.log").value_or("").find(kKey), std::string::npos);
  EXPECT_EQ(run.requests.size(), 1u); // 401 is not retried
  remove_all(dir);
}

TEST_P(LlmTest, GoodCodeIsValidatedTimedAndStored) {
  auto run = run_loop(json::array({{{"content", block(kGood)}, {"usage", {2000, 400}}}}));
  const StepRecord &s = run.step();
  EXPECT_EQ(s.outcome, Outcome::Improved) << s.error;
  EXPECT_EQ(s.lowering, "llm:test-model");
  EXPECT_EQ(s.usage.input_tokens, 2000);
  EXPECT_EQ(s.usage.output_tokens, 400);
  EXPECT_EQ(run.result.trajectories[0].usage.tokens(), 2400);
  EXPECT_EQ(run.stored, 1);
  ASSERT_TRUE(run.result.best);
  EXPECT_NE(run.result.best->source.find("fmaf"), std::string::npos);
  EXPECT_EQ(run.stats().successes, 1);
  // The prompt carried the kernel, the state, the metrics, the optimization and its insights.
  std::string prompt = last_user_text(run.requests.at(0));
  for (const char *needle : {"__global__ void saxpy", "memory_bound", "dram_throughput_pct", "vectorize",
                             "worked on streaming kernels", "block (256,1,1)", "sm_80"})
    EXPECT_NE(prompt.find(needle), std::string::npos) << needle;
}

std::string with_mapping(const std::string &code, const std::string &mapping) {
  return block(code) + "And the launch:\n```json\n" + mapping + "\n```\n";
}

TEST_P(LlmTest, AGoodLaunchMappingIsCheckedAndCarried) {
  auto run =
      run_loop(json::array({{{"content", with_mapping(kGood, R"J({"launch": {"grid": ["ceil_div(grid.x*block.x, 512)",
    "1", "1"], "block": ["512", "1", "1"], "shared": "0", "preconditions": ["n <= grid.x * block.x"]},
    "numerics": "exact"})J")}}}));
  EXPECT_EQ(run.step().outcome, Outcome::Improved) << run.step().error;
  ASSERT_TRUE(run.result.best);
  ASSERT_TRUE(run.result.best->launch);
  EXPECT_EQ(run.result.best->launch->grid[0], "ceil_div(grid.x * block.x, 512)");
  EXPECT_EQ(run.result.best->numerics, "exact");
  std::string prompt = run.requests.at(0)["body"].dump();
  EXPECT_NE(prompt.find("ceil_div(a, b)"), std::string::npos); // the contract states the language
}

TEST_P(LlmTest, AMalformedLaunchMappingFailsTheStep) {
  auto run = run_loop(json::array({{{"content", with_mapping(kGood, R"({"launch": {"grid": ["1", "1"]}})")}}}));
  EXPECT_EQ(run.step().outcome, Outcome::Failed);
  EXPECT_NE(run.step().error.find("$.launch.grid"), std::string::npos) << run.step().error;
  EXPECT_EQ(run.evaluations, 0);
  EXPECT_EQ(run.stored, 0);
}

TEST_P(LlmTest, AnUnsafeLaunchMappingIsRefused) {
  // A pointer used as a number, and a name the kernel does not have.
  for (const char *pre : {"x > 0", "rows > 0"}) {
    std::string mapping = std::string(R"({"launch": {"grid": ["grid.x", "1", "1"], "block": ["block.x", "1", "1"],
      "shared": "0", "preconditions": [")") +
                          pre + R"("]}})";
    auto run = run_loop(json::array({{{"content", with_mapping(kGood, mapping)}}}));
    EXPECT_EQ(run.step().outcome, Outcome::Failed) << pre;
    EXPECT_NE(run.step().error.find("LLM reply"), std::string::npos) << run.step().error;
    EXPECT_EQ(run.evaluations, 0) << pre;
  }
}

TEST_P(LlmTest, CompileErrorIsFedBackToTheFixer) {
  auto run = run_loop(json::array({{{"content", block(kBroken)}}, {{"content", block(kGood)}}}));
  const StepRecord &s = run.step();
  EXPECT_EQ(s.outcome, Outcome::Improved) << s.error;
  EXPECT_EQ(s.fix_rounds, 1);
  ASSERT_EQ(run.requests.size(), 2u);
  std::string feedback = last_user_text(run.requests[1]);
  EXPECT_NE(feedback.find("compile error"), std::string::npos) << feedback;
  EXPECT_NE(feedback.find("expected an expression"), std::string::npos) << feedback; // nvcc's own diagnostic
  EXPECT_EQ(run.stored, 1);
}

TEST_P(LlmTest, WrongCodeFailsValidationAndCountsAsFailure) {
  auto run = run_loop(json::array({{{"content", block(kWrong)}}})); // repeated for every fix round
  const StepRecord &s = run.step();
  EXPECT_EQ(s.outcome, Outcome::Failed);
  EXPECT_NE(s.error.find("validation failed"), std::string::npos) << s.error;
  EXPECT_EQ(s.fix_rounds, 2);
  EXPECT_EQ(run.requests.size(), 3u);
  EXPECT_NE(last_user_text(run.requests[1]).find("mismatches"), std::string::npos);
  EXPECT_EQ(run.stored, 0);
  EXPECT_EQ(run.stats().failures, 1);
}

TEST_P(LlmTest, CodeThatSkipsWorkNeverReachesTheGpu) {
  auto run = run_loop(json::array({{{"content", block(kSkips)}}}));
  const StepRecord &s = run.step();
  EXPECT_EQ(s.outcome, Outcome::Failed);
  EXPECT_NE(s.error.find("removed-work"), std::string::npos) << s.error;
  EXPECT_EQ(run.evaluations, 0);
  EXPECT_EQ(run.stored, 0);
  EXPECT_EQ(run.stats().failures, 1);
}

TEST_P(LlmTest, SlowerCodeIsARegression) {
  auto run = run_loop(json::array({{{"content", block(kSlow)}}}));
  const StepRecord &s = run.step();
  EXPECT_EQ(s.outcome, Outcome::Regressed) << s.error;
  EXPECT_NEAR(s.speedup, 1.0 / 1.5, 1e-9);
  EXPECT_EQ(run.stored, 0);
  EXPECT_FALSE(run.result.best.has_value());
  EXPECT_EQ(run.stats().regressions, 1);
}

TEST_P(LlmTest, MalformedReplyFailsTheStepWithoutKbEvidence) {
  auto run = run_loop(json::array({{{"raw", "<html>502 Bad Gateway</html>"}}}));
  const StepRecord &s = run.step();
  EXPECT_EQ(s.outcome, Outcome::Failed);
  EXPECT_NE(s.error.find("not JSON"), std::string::npos) << s.error;
  EXPECT_EQ(run.stats().attempts, 0);
  EXPECT_EQ(run.stored, 0);
}

TEST_P(LlmTest, ReplyWithoutCodeFailsTheStep) {
  auto run = run_loop(json::array({{{"content", "I cannot help with that."}}}));
  EXPECT_EQ(run.step().outcome, Outcome::Failed);
  EXPECT_NE(run.step().error.find("no ```cuda block"), std::string::npos);
  EXPECT_EQ(run.evaluations, 0);
}

TEST_P(LlmTest, RateLimitAndServerErrorsInTheLoopRecover) {
  auto run =
      run_loop(json::array({{{"status", 429}, {"retry_after", 0}}, {{"status", 500}}, {{"content", block(kGood)}}}));
  EXPECT_EQ(run.step().outcome, Outcome::Improved) << run.step().error;
  EXPECT_EQ(run.requests.size(), 3u);
  EXPECT_EQ(run.stored, 1);
}

TEST_P(LlmTest, TimeoutInTheLoopFailsTheStep) {
  auto run = run_loop(json::array({{{"delay", 2}, {"content", block(kGood)}}}), 0.3);
  EXPECT_EQ(run.step().outcome, Outcome::Failed);
  EXPECT_NE(run.step().error.find("timed out"), std::string::npos) << run.step().error;
  EXPECT_EQ(run.stats().attempts, 0);
  EXPECT_EQ(run.stored, 0);
}

TEST_P(LlmTest, TextualGradientAppliesAValidKbEdit) {
  json patch =
      json::array({{{"op", "replace"},
                    {"path", "/states/0/optimizations/0/insights"},
                    {"value", "fmaf + __restrict__ gave 1.6x on saxpy (sm_80)"}},
                   {{"op", "add"},
                    {"path", "/states/0/optimizations/-"},
                    {"value", {{"id", "vector_loads"}, {"description", "float4 loads"}, {"predicted_speedup", 1.2}}}}});
  test::ScriptedServer server(json::array({{{"content", "the prediction was too pessimistic"}},
                                           {{"content", "read-only loads matter more on sm_80"}},
                                           {{"content", "```json\n" + patch.dump(2) + "\n```"}}}));
  auto client = llm::make_client(options(server.url()));
  JsonPolicy policy = *JsonPolicy::from_json(llm_only_kb());
  TrajectoryRecord t;
  t.kernel_name = "saxpy";
  t.arch = "sm_80";
  StepRecord s;
  s.state = "memory_bound";
  s.option = "vectorize";
  s.predicted = 1.3;
  s.speedup = 1.6;
  s.outcome = Outcome::Improved;
  t.steps = {s};
  auto g = textual_gradient(**client, policy, {t});
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_TRUE(g->applied) << g->message;
  EXPECT_EQ(g->usage.requests, 3);
  auto opts = policy.options("memory_bound", "sm_80");
  ASSERT_EQ(opts.size(), 2u);
  EXPECT_EQ(opts[0].insights, "fmaf + __restrict__ gave 1.6x on saxpy (sm_80)");
  EXPECT_EQ(opts[1].id, "vector_loads");
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_NE(last_user_text(reqs[0]).find("| vectorize |"), std::string::npos);
  EXPECT_NE(last_user_text(reqs[1]).find("too pessimistic"), std::string::npos);
  EXPECT_NE(last_user_text(reqs[2]).find("read-only loads matter more"), std::string::npos);
}

TEST_P(LlmTest, TextualGradientRejectsAnEditThatBreaksTheSchema) {
  json bad =
      json::array({{{"op", "replace"}, {"path", "/states/0/optimizations/0/predicted_speedup"}, {"value", "fast"}}});
  json stats = json::array({{{"op", "add"}, {"path", "/states/0/optimizations/0/stats"}, {"value", {{"sm_80", {}}}}}});
  for (const json &patch : {bad, stats}) {
    test::ScriptedServer server(json::array(
        {{{"content", "eval"}}, {{"content", "gap"}}, {{"content", "```json\n" + patch.dump() + "\n```"}}}));
    auto client = llm::make_client(options(server.url()));
    JsonPolicy policy = *JsonPolicy::from_json(llm_only_kb());
    json before = policy.document();
    auto g = textual_gradient(**client, policy, {});
    ASSERT_TRUE(g);
    EXPECT_FALSE(g->applied);
    EXPECT_FALSE(g->message.empty());
    EXPECT_EQ(policy.document(), before);
  }
}

INSTANTIATE_TEST_SUITE_P(Protocols, LlmTest, ::testing::Values("openai", "anthropic"),
                         [](const auto &info) { return info.param; });

TEST(LlmConfig, UnknownApiAndMissingFieldsAreErrors) {
  llm::ClientOptions o;
  o.api = "gemini";
  o.endpoint = "http://127.0.0.1:1";
  o.model = "m";
  EXPECT_FALSE(llm::make_client(o));
  o.api = "anthropic";
  EXPECT_FALSE(llm::make_client(o)); // no key
  o.api = "openai";
  EXPECT_TRUE(llm::make_client(o)); // local servers need no key
  o.model.clear();
  EXPECT_FALSE(llm::make_client(o));
  EXPECT_EQ(llm::redact("a sk-1 b sk-1", "sk-1"), "a <redacted> b <redacted>");
}

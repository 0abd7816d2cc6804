#include "driver/compile_pipeline.h"
#include "support/fs.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::driver;

namespace {

class FakeExtractor : public Extractor {
public:
  bool fail = false;
  std::vector<std::string> seen_archs;
  Expected<tooling::Extraction> extract(const CompileUnit &unit, const std::string &arch) override {
    if (fail) return make_error("no parse", "parse-failed");
    seen_archs.push_back(arch);
    tooling::Extraction e;
    e.arch = arch;
    e.parse_seconds = 0.5;
    tooling::Kernel k;
    k.qualified_name = "scale";
    k.hash = "hash-" + arch;
    e.kernels.push_back(k);
    tooling::Kernel fixed;
    fixed.hash = "other";
    fixed.not_optimizable = "uses-printf";
    e.kernels.push_back(fixed);
    return e;
  }
};

// What a FakeLookup saw; owned by the test because the pipeline destroys the lookup.
struct LookupLog {
  int recorded = 0;
  std::vector<std::string> looked_up;
};

class FakeLookup : public VariantLookup {
public:
  FakeLookup(std::string hit_arch, LookupLog &log) : hit_arch(std::move(hit_arch)), log(log) {}
  std::string hit_arch; // arch that has a variant
  LookupLog &log;
  std::optional<ChosenVariant> lookup(const tooling::Kernel &k, const std::string &arch) override {
    log.looked_up.push_back(k.hash);
    if (arch != hit_arch) return std::nullopt;
    return ChosenVariant{k.hash, arch, "__global__ void scale() {}", "kbcc-variant-1", "cache"};
  }
  void record(const CompileUnit &, const std::vector<tooling::Extraction> &per_arch) override {
    log.recorded += static_cast<int>(per_arch.size());
  }
};

class FakeRewriter : public UnitRewriter {
public:
  Expected<RewrittenUnit> rewrite(const CompileUnit &unit, const std::vector<tooling::Extraction> &,
                                  const std::vector<ChosenVariant> &chosen) override {
    return RewrittenUnit{"// rewritten " + unit.source + " with " + std::to_string(chosen.size()) + " variant(s)\n",
                         {"kbcc-variant-1"}};
  }
};

Compilation compile_of(const std::string &source) {
  Compilation c;
  c.unit.source = source;
  c.unit.source_abs = "/proj/" + source;
  c.unit.archs = {"sm_80", "sm_90"};
  c.unit.nvcc_argv = {"/cuda/bin/nvcc", "-Iinc", "-c", source, "-o", "k.o"};
  c.source_index = 3;
  return c;
}

struct Fixture {
  FakeExtractor extractor;
  FakeRewriter rewriter;
  LookupLog log;
  LookupLog *lookup = &log;
  std::string hit_arch;
  PlanStages stages() {
    return PlanStages{extractor,
                      [this]() -> Expected<std::unique_ptr<VariantLookup>> {
                        return std::unique_ptr<VariantLookup>(std::make_unique<FakeLookup>(hit_arch, log));
                      },
                      rewriter};
  }
};

} // namespace

TEST(Pipeline, MissRunsTheOriginalCommandAndRecords) {
  Fixture f;
  cache::Counters stats;
  auto plan = plan_with_stages(compile_of("src/k.cu"), Config::with({}), f.stages(), stats);
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->substituted);
  EXPECT_EQ(plan->argv, compile_of("src/k.cu").unit.nvcc_argv);
  EXPECT_EQ(f.extractor.seen_archs, (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(f.lookup->looked_up, (std::vector<std::string>{"hash-sm_80", "hash-sm_90"})); // not the unoptimizable one
  EXPECT_EQ(f.lookup->recorded, 2);
  EXPECT_EQ(stats[cache::kMisses], 2u);
  EXPECT_EQ(stats[cache::kParses], 2u);
  EXPECT_EQ(stats[cache::kParseMicros], 1000000u);
}

TEST(Pipeline, RecordingCanBeTurnedOff) {
  Fixture f;
  cache::Counters stats;
  ASSERT_TRUE(plan_with_stages(compile_of("k.cu"), Config::with({{"record", "false"}}), f.stages(), stats));
  EXPECT_EQ(f.lookup->recorded, 0);
}

TEST(Pipeline, HitRewritesToADeterministicPathWithTheSourceDirFirst) {
  Fixture f;
  f.hit_arch = "sm_90";
  cache::Counters stats;
  auto plan = plan_with_stages(compile_of("src/k.cu"), Config::with({}), f.stages(), stats);
  ASSERT_TRUE(plan);
  ASSERT_TRUE(plan->substituted);
  std::string text = "// rewritten src/k.cu with 1 variant(s)\n";
  EXPECT_EQ(plan->temp_source, rewritten_path(text, "src/k.cu"));
  EXPECT_EQ(*read_file(plan->temp_source), text);
  EXPECT_NE(plan->temp_source.find("/tmp/kbcc-"), std::string::npos);
  EXPECT_EQ(plan->temp_source.substr(plan->temp_source.size() - 5), "/k.cu");
  EXPECT_EQ(plan->argv,
            (std::vector<std::string>{"/cuda/bin/nvcc", "-Isrc", "-Iinc", "-c", plan->temp_source, "-o", "k.o"}));
  EXPECT_EQ(plan->line_names, (std::vector<std::string>{"kbcc-variant-1", "/proj/src/k.cu"}));
  EXPECT_EQ(stats[cache::kHits], 1u);
  EXPECT_EQ(stats[cache::kMisses], 1u);
  // Same text, same path: pinned builds see the same command.
  cache::Counters again;
  Fixture g;
  g.hit_arch = "sm_90";
  EXPECT_EQ(plan_with_stages(compile_of("src/k.cu"), Config::with({}), g.stages(), again)->temp_source,
            plan->temp_source);
}

TEST(Pipeline, SourceInTheCurrentDirectoryGetsDotInclude) {
  Compilation c = compile_of("k.cu");
  EXPECT_EQ(rewritten_command(c, "/tmp/x/k.cu")[1], "-I.");
}

TEST(Pipeline, ExtractionErrorIsAnInternalFailure) {
  Fixture f;
  f.extractor.fail = true;
  cache::Counters stats;
  auto plan = plan_with_stages(compile_of("k.cu"), Config::with({}), f.stages(), stats);
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, "parse-failed");
}

// plan_compile: the compile pipeline with kbcc's default stages.
#include "driver/compile_pipeline.h"
#include "driver/toolchain.h"

namespace kbcc::driver {

Expected<CompilePlan> plan_compile(Compilation c, const Config &config, const std::string &nvcc,
                                   cache::Counters &stats) {
  auto toolchain = toolchain_id(nvcc, config.dir());
  if (!toolchain) return toolchain.error();
  c.unit.toolchain = *toolchain;
  auto extractor = make_extractor(config);
  auto rewriter = make_rewriter(config);
  PlanStages stages{*extractor, [&] { return make_variant_lookup(config, c.unit); }, *rewriter};
  return plan_with_stages(c, config, stages, stats);
}

} // namespace kbcc::driver

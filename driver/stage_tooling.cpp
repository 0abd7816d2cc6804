// Extractor and rewriter stages backed by tooling/ (not yet available: every
// compile falls back to the original nvcc command).
#include "driver/stages.h"

namespace kbcc::driver {
namespace {
class UnavailableExtractor : public Extractor {
public:
  Expected<tooling::Extraction> extract(const CompileUnit &, const std::string &) override {
    return make_error("kernel extraction is not built in", "no-extractor");
  }
};
class UnavailableRewriter : public UnitRewriter {
public:
  Expected<std::string> rewrite(const CompileUnit &, const std::vector<tooling::Extraction> &,
                                const std::vector<ChosenVariant> &) override {
    return make_error("rewriting is not built in", "no-rewriter");
  }
};
}  // namespace

std::unique_ptr<Extractor> make_extractor(const Config &) { return std::make_unique<UnavailableExtractor>(); }
std::unique_ptr<UnitRewriter> make_rewriter(const Config &) { return std::make_unique<UnavailableRewriter>(); }

}  // namespace kbcc::driver

// Variant lookup and registry recording backed by cache/ and kb/ (not yet
// available: nothing is found and nothing is recorded).
#include "driver/stages.h"

namespace kbcc::driver {
namespace {
class EmptyLookup : public VariantLookup {
public:
  std::optional<ChosenVariant> lookup(const tooling::Kernel &, const std::string &) override { return std::nullopt; }
  void record(const CompileUnit &, const std::vector<tooling::Extraction> &) override {}
};
}  // namespace

Expected<std::unique_ptr<VariantLookup>> make_variant_lookup(const Config &, const CompileUnit &) {
  return std::unique_ptr<VariantLookup>(std::make_unique<EmptyLookup>());
}

}  // namespace kbcc::driver

#include "transform/captured.h"

#include "launch/expr.h"
#include "transform/analysis.h"

namespace kbcc::transform {

namespace {

// One capture's integer arguments as the values of names.
class ArgumentScope : public launch::Scope {
public:
  explicit ArgumentScope(const std::map<std::string, int64_t> &args) : args_(args) {}
  std::optional<int64_t> value(const std::string &name) const override {
    auto it = args_.find(name);
    return it == args_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  std::optional<uint64_t> address(const std::string &) const override { return std::nullopt; }

private:
  const std::map<std::string, int64_t> &args_;
};

} // namespace

std::vector<std::optional<int64_t>> captured_values(const clang::Expr *e, const Input &in) {
  auto text = as_mapping_expr(e);
  return text ? captured_values(*text, in) : std::vector<std::optional<int64_t>>(in.arguments.size());
}

std::vector<std::optional<int64_t>> captured_values(const std::string &text, const Input &in) {
  std::vector<std::optional<int64_t>> out(in.arguments.size());
  auto parsed = launch::parse_expr(text);
  if (!parsed) return out;
  for (size_t i = 0; i < in.arguments.size(); ++i)
    if (auto v = launch::evaluate(**parsed, ArgumentScope(in.arguments[i]))) out[i] = *v;
  return out;
}

} // namespace kbcc::transform

// The table of transforms and the search helpers.
#include "transform/items_form.h"
#include "transform/normal_form.h"
#include "transform/transform.h"
#include "transform/versioning.h"

#include "clang/AST/Stmt.h"

#include <functional>
#include <memory>
#include <mutex>

namespace kbcc::transform {

// Defined in the transform's own file.
std::vector<Transform> lexical_transforms();
Transform block_size_transform();
Transform coarsen_transform();
Transform split_loop_transform();
Transform privatize_transform();
Transform aggregate_transform();
Transform transpose_transform();
Transform interchange_transform();
Transform tiling_transform();
Transform register_blocking_transform();
Transform vectorize_transform();
Transform cache_hint_transform();
Transform collectives_transform();
Transform window_transform();
Transform versioning_transform();
Transform padding_transform();

Error not_applicable(const std::string &why) { return make_error(why, "not-applicable"); }

long int_param(const Params &p, const char *key, long fallback) {
  auto it = p.find(key);
  if (it == p.end()) return fallback;
  try {
    return std::stol(it->second);
  } catch (...) {
    return fallback;
  }
}

std::array<long, 3> shape3_param(const Params &p, const char *key, const std::string &fallback) {
  auto it = p.find(key);
  const std::string &v = it == p.end() ? fallback : it->second;
  std::array<long, 3> out{1, 1, 1};
  size_t at = 0;
  for (int d = 0; d < 3; ++d) {
    size_t x = v.find('x', at);
    std::string part = v.substr(at, x == std::string::npos ? std::string::npos : x - at);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6) return {0, 0, 0};
    out[d] = std::stol(part);
    if (x == std::string::npos) return out;
    at = x + 1;
  }
  return {0, 0, 0}; // more than three extents
}

std::pair<long, long> shape_param(const Params &p, const char *key, const std::string &fallback) {
  auto s = shape3_param(p, key, fallback);
  if (s[2] != 1) return {0, 0};
  return {s[0], s[1]};
}

const std::vector<Transform> &transforms() {
  static const std::vector<Transform> table = [] {
    std::vector<Transform> t = lexical_transforms();
    for (Transform x : {block_size_transform(), coarsen_transform(), split_loop_transform(), privatize_transform(),
                        aggregate_transform(), transpose_transform(), interchange_transform(), tiling_transform(),
                        register_blocking_transform(), vectorize_transform(), cache_hint_transform(),
                        collectives_transform(), window_transform(), versioning_transform(), padding_transform()}) {
      std::string id = x.id;
      x.per_item = x.needs_ast && id != "shuffle_collectives" && id != "value_versioning" && id != "smem_padding";
      x.prefers_form = std::string(x.id) == "warp_aggregated_atomics"; // one atomic per block, not per warp
      t.push_back(x);
    }
    return t;
  }();
  return table;
}

namespace {

// A kernel's thread-per-item form, parsed.
struct ParsedForm {
  ItemsForm form;
  std::shared_ptr<KernelAst> ast;
};

// The values `make` gave for the last two keys asked for: every transform
// asks for the same kernel's forms in turn, and each costs a parse.
template <typename T> class Recent {
public:
  T get(const std::string &key, const std::function<T()> &make) {
    {
      std::lock_guard<std::mutex> guard(lock_);
      for (const auto &[k, v] : items_)
        if (k == key) return v;
    }
    T value = make();
    std::lock_guard<std::mutex> guard(lock_);
    if (items_.size() >= 2) items_.erase(items_.begin());
    items_.emplace_back(key, value);
    return value;
  }

private:
  std::mutex lock_;
  std::vector<std::pair<std::string, T>> items_;
};

// The thread-per-item form of `k`, parsed. Errors: those of items_form and
// of the parse.
Expected<std::shared_ptr<ParsedForm>> parsed_form(const KernelAst &k) {
  static Recent<Expected<std::shared_ptr<ParsedForm>>> recent;
  return recent.get(k.parse_key(), [&]() -> Expected<std::shared_ptr<ParsedForm>> {
    auto form = items_form(k);
    if (!form) return form.error();
    auto ast = k.reparsed(form->source);
    if (!ast) return make_error("its thread-per-item form does not parse: " + ast.error().message, "not-applicable");
    return std::make_shared<ParsedForm>(ParsedForm{*form, std::make_shared<KernelAst>(std::move(*ast))});
  });
}

// The split-index form of `f`'s kernel (a grid-stride loop's items split
// into a row and a column), its launch composed after `f`'s. Errors: those
// of split_index_form, of the parse and of the composition.
Expected<std::shared_ptr<ParsedForm>> parsed_split(const ParsedForm &f) {
  static Recent<Expected<std::shared_ptr<ParsedForm>>> recent;
  return recent.get(f.ast->parse_key(), [&]() -> Expected<std::shared_ptr<ParsedForm>> {
    const auto *body = clang::dyn_cast_or_null<clang::CompoundStmt>(f.ast->kernel()->getBody());
    if (!body) return make_error("the kernel has no body", "no-form");
    auto split = split_index_form(*f.ast, body);
    if (!split) return split.error();
    auto launch = launch::compose(f.form.launch, split->launch);
    if (!launch) return not_applicable("its split form's launch does not compose: " + launch.error().message);
    auto ast = f.ast->reparsed(split->source);
    if (!ast) return not_applicable("its split form does not parse: " + ast.error().message);
    ItemsForm both{split->source, *launch};
    return std::make_shared<ParsedForm>(ParsedForm{both, std::make_shared<KernelAst>(std::move(*ast))});
  });
}

// `t` on `form`, the thread-per-item form of `in`'s kernel. Error
// "not-applicable" with `t`'s reason.
Expected<Offer> offer_on(const Transform &t, const Input &in, const std::shared_ptr<ParsedForm> &form) {
  Input there{form->ast->source(), form->ast.get(), in.launches, in.metrics, in.arguments};
  auto axes = t.space(there);
  if (!axes) return axes.error();
  return Offer{std::move(*axes), there, form->form.launch, form->ast};
}

// `t` on the thread-per-item form of `in`'s kernel or, when `t` refuses it,
// on that form's items split into a row and a column. Error "no-form" when
// the kernel has none; otherwise "not-applicable" saying whether the form
// could not be built or `t` refuses it.
Expected<Offer> form_offer(const Transform &t, const Input &in) {
  auto form = parsed_form(*in.ast);
  if (!form) {
    if (form.error().code == "no-form") return form.error();
    return not_applicable("its thread-per-item form does not apply: " + form.error().message);
  }
  auto o = offer_on(t, in, *form);
  if (o) return o;
  std::string why = "in its thread-per-item form: " + o.error().message;
  auto split = parsed_split(**form);
  if (!split)
    return split.error().code == "no-form"
               ? not_applicable(why)
               : not_applicable(why + "; its split form does not apply: " + split.error().message);
  auto s = offer_on(t, in, *split);
  if (s) return s;
  return not_applicable(why + "; in its split form: " + s.error().message);
}

// `t` on the kernel as written, or on its thread-per-item form.
Expected<Offer> written_offer(const Transform &t, const Input &in) {
  if (t.prefers_form && in.ast)
    if (auto form = form_offer(t, in)) return form;
  auto own = t.space(in);
  if (own) return Offer{std::move(*own), in, std::nullopt, nullptr};
  if (!t.per_item || !in.ast || own.error().code != "not-applicable") return own.error();
  auto form = form_offer(t, in);
  if (form) return form;
  if (form.error().code == "no-form") return own.error();
  return not_applicable(own.error().message + "; " + form.error().message);
}

// The normal form of `k`, parsed. Errors: those of normal_form.
Expected<std::shared_ptr<KernelAst>> parsed_normal_form(const KernelAst &k) {
  static Recent<Expected<std::shared_ptr<KernelAst>>> recent;
  return recent.get(k.parse_key(), [&]() -> Expected<std::shared_ptr<KernelAst>> {
    auto form = normal_form(k);
    if (!form) return form.error();
    return std::make_shared<KernelAst>(std::move(*form));
  });
}

// `t` on the kernel that versioned `in`'s, its versions put back by
// apply_offer.
Expected<Offer> versioned_offer(const Transform &t, const Input &in, const Versioned &parts) {
  static Recent<Expected<std::shared_ptr<KernelAst>>> recent;
  auto plain = recent.get(in.ast->parse_key(), [&]() -> Expected<std::shared_ptr<KernelAst>> {
    auto ast = in.ast->reparsed(parts.plain);
    if (!ast) return not_applicable("its body as written before versioning does not parse: " + ast.error().message);
    return std::make_shared<KernelAst>(std::move(*ast));
  });
  if (!plain) return plain.error();
  auto o = offer(t, Input{(*plain)->source(), plain->get(), in.launches, in.metrics, in.arguments});
  if (!o) return o.error();
  o->plain_ast = *plain;
  o->version_calls = parts.calls;
  return o;
}

} // namespace

Expected<Offer> offer(const Transform &t, const Input &in) {
  if (t.needs_ast && in.ast && std::string(t.id) != "value_versioning")
    if (auto parts = versioned_parts(*in.ast)) return versioned_offer(t, in, *parts);
  auto written = written_offer(t, in);
  if (written || !t.needs_ast || !in.ast || written.error().code != "not-applicable") return written;
  auto normal = parsed_normal_form(*in.ast);
  if (!normal) {
    if (normal.error().code == "no-form") return written;
    return not_applicable(written.error().message + "; " + normal.error().message);
  }
  Input there{(*normal)->source(), normal->get(), in.launches, in.metrics, in.arguments};
  auto o = written_offer(t, there);
  if (!o && o.error().message == written.error().message) return written;
  if (!o)
    return not_applicable(
        written.error().message +
        "; in its normal form (loop hints dropped, helpers inlined, while loops as for loops, accumulators in "
        "registers): " +
        o.error().message);
  if (!o->form_ast) o->form_ast = *normal;
  return o;
}

Expected<Output> apply_offer(const Transform &t, const Offer &o, const Params &p) {
  auto out = t.apply(o.input, p);
  if (out && !o.version_calls.empty()) {
    auto source = versioned(out->source, o.version_calls);
    if (!source) return source.error();
    out->source = *source;
  }
  if (!out || !o.form_launch) return out;
  auto launch = launch::compose(*o.form_launch, out->launch.value_or(launch::LaunchMapping{}));
  if (!launch) return launch.error();
  out->launch = *launch;
  return out;
}

const Transform *find_transform(const std::string &id) {
  for (const Transform &t : transforms())
    if (id == t.id) return &t;
  return nullptr;
}

std::vector<Params> configurations(const std::vector<Axis> &axes) {
  std::vector<Params> out{Params{}};
  for (const Axis &a : axes) {
    std::vector<Params> next;
    for (const Params &p : out)
      for (const std::string &v : a.values) {
        Params q = p;
        q[a.name] = v;
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  return out;
}

} // namespace kbcc::transform

#include "tooling/kernel_hash.h"

#include "support/hash.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

namespace kbcc::tooling {
using namespace clang;

namespace {

// The declaration whose text defines `d`: the template pattern for an
// instantiation, else `d` itself.
const Decl *text_decl(const Decl *d) {
  if (const auto *fd = dyn_cast<FunctionDecl>(d))
    if (const FunctionDecl *p = fd->getTemplateInstantiationPattern()) return p;
  if (const auto *rd = dyn_cast<CXXRecordDecl>(d))
    if (const CXXRecordDecl *p = rd->getTemplateInstantiationPattern()) return p;
  if (const auto *vd = dyn_cast<VarDecl>(d))
    if (const VarDecl *p = vd->getTemplateInstantiationPattern()) return p;
  return d;
}

std::string display_name(const NamedDecl *d, const PrintingPolicy &policy) {
  std::string out;
  llvm::raw_string_ostream os(out);
  d->getNameForDiagnostic(os, policy, /*Qualified=*/true);
  if (const auto *fd = dyn_cast<FunctionDecl>(d)) os << " : " << fd->getType().getAsString(policy);
  return strip_locations(out);
}

class SectionBuilder {
public:
  SectionBuilder(ASTContext &ctx) : ctx_(ctx), sm_(ctx.getSourceManager()), policy_(name_policy(ctx.getLangOpts())) {}

  void add_decl(const std::string &kind, const NamedDecl *d) {
    auto range = decl_file_range(text_decl(d), sm_, ctx_.getLangOpts());
    std::string label = kind + ":" + display_name(d, policy_);
    if (!range) {
      deps_.push_back({label, "<no source>"});
      return;
    }
    deps_.push_back({label, canonical_tokens(*range, sm_, ctx_.getLangOpts())});
    ranges_.push_back(*range);
  }

  KernelHash finish(const FunctionDecl *kernel, const HashContext &hc) {
    KernelHash out;
    auto range = decl_file_range(text_decl(kernel), sm_, ctx_.getLangOpts());
    out.sections.push_back({"kernel", range ? canonical_tokens(*range, sm_, ctx_.getLangOpts()) : "<no source>"});
    if (const TemplateArgumentList *args = kernel->getTemplateSpecializationArgs()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      printTemplateArgumentList(os, args->asArray(), policy_);
      out.sections.push_back({"template-args", strip_locations(text)});
    }
    if (range) out.ranges.push_back(*range);
    out.ranges.insert(out.ranges.end(), ranges_.begin(), ranges_.end());
    std::vector<HashSection> macros = macro_sections(out.ranges, hc.macros);
    sort_unique(deps_);
    out.sections.insert(out.sections.end(), deps_.begin(), deps_.end());
    out.sections.insert(out.sections.end(), macros.begin(), macros.end());
    std::string flags;
    for (const std::string &f : hc.device_flags)
      flags += f + "\n";
    out.sections.push_back({"flags", flags});
    out.sections.push_back({"arch", hc.arch});
    out.sections.push_back({"toolchain", hc.toolchain});
    out.hash = hash_sections(out.sections);
    out.dependency_text = dependency_text(hc.macros);
    return out;
  }

private:
  static void sort_unique(std::vector<HashSection> &v) {
    auto key = [](const HashSection &s) { return std::tie(s.label, s.text); };
    std::sort(v.begin(), v.end(), [&](const auto &a, const auto &b) { return key(a) < key(b); });
    v.erase(std::unique(v.begin(), v.end(), [&](const auto &a, const auto &b) { return key(a) == key(b); }), v.end());
  }

  std::vector<HashSection> macro_sections(const std::vector<FileRange> &ranges, const MacroUses &macros) {
    std::vector<HashSection> out;
    for (const FileRange &r : ranges)
      for (const MacroUse *u : macros.in(r)) {
        out.push_back({"macro:" + u->name, u->definition});
        if (u->user_defined) user_macros_.insert({u->name, u->definition});
      }
    sort_unique(out);
    return out;
  }

  // `r` extended over the ';' that ends a type or variable declaration.
  FileRange with_semicolon(FileRange r) const {
    bool invalid = false;
    StringRef buffer = sm_.getBufferData(r.file, &invalid);
    if (invalid) return r;
    size_t next = buffer.find_first_not_of(" \t\r\n", r.end);
    if (next != StringRef::npos && buffer[next] == ';') r.end = static_cast<unsigned>(next + 1);
    return r;
  }

  // User source of the dependencies (outermost ranges only), in file order.
  std::string dependency_text(const MacroUses &) {
    std::vector<FileRange> rs(ranges_);
    std::sort(rs.begin(), rs.end(), [](const FileRange &a, const FileRange &b) {
      return std::tie(a.file, a.begin, b.end) < std::tie(b.file, b.begin, a.end);
    });
    std::string out;
    for (const auto &[name, def] : user_macros_) {
      bool function_like = !def.empty() && def[0] == '(';
      out += "#define " + name + (function_like ? "" : " ") + def + "\n";
    }
    const FileRange *last = nullptr;
    for (const FileRange &r : rs) {
      if (last && last->contains(r)) continue;
      out += range_text(with_semicolon(r), sm_) + "\n\n";
      last = &r;
    }
    return out;
  }

  ASTContext &ctx_;
  const SourceManager &sm_;
  PrintingPolicy policy_;
  std::vector<HashSection> deps_;
  std::vector<FileRange> ranges_;
  std::set<std::pair<std::string, std::string>> user_macros_;
};

} // namespace

std::string hash_sections(const std::vector<HashSection> &sections) {
  Hasher h;
  h.field("kbcc-kernel-hash-v1");
  for (const HashSection &s : sections) {
    h.field(s.label);
    h.field(s.text);
  }
  return h.hex();
}

KernelHash hash_kernel(const FunctionDecl *kernel, const Dependencies &deps, ASTContext &context,
                       const HashContext &hc) {
  SectionBuilder b(context);
  for (const NamedDecl *t : deps.types)
    b.add_decl("type", t);
  for (const VarDecl *v : deps.variables)
    b.add_decl("var", v);
  for (const FunctionDecl *f : deps.functions)
    b.add_decl("callee", f);
  return b.finish(kernel, hc);
}

} // namespace kbcc::tooling

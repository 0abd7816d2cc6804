#include "transform/specialize.h"

#include "tooling/kernel_text.h"
#include "tooling/source_range.h"
#include "transform/ast.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"

#include <cctype>
#include <map>
#include <optional>

namespace kbcc::transform {
using namespace clang;

namespace {

// The instantiated kernel named `name` whose template is written in the main file.
class InstanceFinder : public RecursiveASTVisitor<InstanceFinder> {
public:
  explicit InstanceFinder(const std::string &name) : name_(name) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *fd) {
    if (found || !fd->hasAttr<CUDAGlobalAttr>() || !fd->isTemplateInstantiation()) return true;
    if (fd->getPrimaryTemplate() && instance_name(fd) == name_) found = fd;
    return true;
  }
  const FunctionDecl *found = nullptr;

private:
  const std::string &name_;
};

// Where the definition of the template reads its own parameters (depth 0):
// the location of each use and the parameter's index.
class ParameterUses : public RecursiveASTVisitor<ParameterUses> {
public:
  bool VisitTemplateTypeParmTypeLoc(TemplateTypeParmTypeLoc tl) {
    if (tl.getTypePtr()->getDepth() == 0) add(tl.getNameLoc(), tl.getTypePtr()->getIndex());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *e) {
    if (const auto *p = dyn_cast<NonTypeTemplateParmDecl>(e->getDecl()); p && p->getDepth() == 0)
      add(e->getLocation(), p->getIndex());
    return true;
  }
  std::vector<std::pair<SourceLocation, unsigned>> uses;

private:
  void add(SourceLocation loc, unsigned index) { uses.emplace_back(loc, index); }
};

// A template type argument as one simple-type-specifier, which can stand
// wherever the parameter's name stood (`T(0)`, `const T *`, `T::value`);
// Error for types no single specifier names without changing what a
// declarator around it means (pointers, references, arrays, functions,
// cv-qualified and unnamed types).
Expected<std::string> type_text(QualType t, const ASTContext &ctx) {
  QualType c = t.getCanonicalType();
  std::string shown = t.getAsString(ctx.getPrintingPolicy());
  if (c.hasQualifiers() || c->isPointerType() || c->isReferenceType() || c->isArrayType() || c->isFunctionType() ||
      c->isMemberPointerType())
    return make_error("the argument '" + shown + "' is not a plain named type", "not-applicable");
  if (const auto *b = dyn_cast<BuiltinType>(c.getTypePtr())) {
    if (!b->isInteger() && !b->isFloatingPoint())
      return make_error("the argument '" + shown + "' is not arithmetic", "not-applicable");
    std::string spelled = c.getAsString(ctx.getPrintingPolicy());
    if (spelled == "unsigned int") return std::string("unsigned");
    return spelled.find(' ') == std::string::npos ? spelled : "decltype((" + spelled + ")0)";
  }
  if (!c->isRecordType() && !c->isEnumeralType())
    return make_error("the argument '" + shown + "' is not a class or an enum", "not-applicable");
  const TagDecl *tag = c->getAsTagDecl();
  if (!tag || !tag->getIdentifier() || !tag->getDeclContext()->getRedeclContext()->isFileContext())
    return make_error("the argument '" + shown + "' is not named at namespace scope", "not-applicable");
  PrintingPolicy policy = ctx.getPrintingPolicy();
  policy.SuppressTagKeyword = true;
  return TypeName::getFullyQualifiedName(c, ctx, policy, /*WithGlobalNsPrefix=*/true);
}

// A template argument's text where a parameter was read: a type as above, an
// integer as a literal of the parameter's type.
Expected<std::string> argument_text(const TemplateArgument &a, const ASTContext &ctx) {
  if (a.getKind() == TemplateArgument::Type) return type_text(a.getAsType(), ctx);
  if (a.getKind() != TemplateArgument::Integral)
    return make_error("a template argument is neither a type nor an integer", "not-applicable");
  const llvm::APSInt &v = a.getAsIntegral();
  QualType t = a.getIntegralType().getCanonicalType();
  if (t->isBooleanType()) return std::string(v.getBoolValue() ? "true" : "false");
  std::string digits = llvm::toString(v, 10);
  if (ctx.hasSameType(t, ctx.IntTy)) return v.isNegative() ? "(" + digits + ")" : digits;
  auto type = type_text(t, ctx);
  if (!type) return type.error();
  return "((" + *type + ")" + digits + (v.isUnsigned() ? "ull" : "ll") + ")";
}

// Every template parameter of `tmpl` is a type or an integer, one each.
std::string parameter_refusal(const FunctionTemplateDecl *tmpl) {
  for (const NamedDecl *p : *tmpl->getTemplateParameters()) {
    if (p->isTemplateParameterPack()) return "the template has a parameter pack '" + p->getNameAsString() + "'";
    if (isa<TemplateTemplateParmDecl>(p))
      return "the template has a template template parameter '" + p->getNameAsString() + "'";
  }
  return {};
}

// The offset of the `static` keyword written in `text` between `begin` and
// `end` (a declaration's specifiers, comments skipped), or nullopt.
std::optional<size_t> static_keyword(const std::string &text, size_t begin, size_t end) {
  std::string masked = tooling::mask_code(text.substr(begin, end - begin));
  auto word = [&](size_t i) {
    return i < masked.size() && (std::isalnum(static_cast<unsigned char>(masked[i])) || masked[i] == '_');
  };
  for (size_t at = masked.find("static"); at != std::string::npos; at = masked.find("static", at + 1))
    if ((at == 0 || !word(at - 1)) && !word(at + 6)) return begin + at;
  return std::nullopt;
}

} // namespace

Expected<std::vector<ParameterUse>> parameter_uses(const FunctionDecl *fd) {
  const FunctionTemplateDecl *tmpl = fd->getPrimaryTemplate();
  const FunctionDecl *pattern = fd->getTemplateInstantiationPattern();
  if (!tmpl || !pattern || !fd->isTemplateInstantiation()) return std::vector<ParameterUse>();
  if (std::string why = parameter_refusal(tmpl); !why.empty()) return make_error(why, "not-applicable");
  const ASTContext &ctx = fd->getASTContext();
  const SourceManager &sm = ctx.getSourceManager();
  std::vector<std::string> texts;
  for (const TemplateArgument &a : fd->getTemplateSpecializationArgs()->asArray()) {
    auto t = argument_text(a, ctx);
    if (!t) return t.error();
    texts.push_back(*t);
  }
  ParameterUses uses;
  uses.TraverseDecl(const_cast<FunctionDecl *>(pattern));
  std::vector<ParameterUse> out;
  for (const auto &[loc, index] : uses.uses) {
    if (!loc.isFileID()) return make_error("a template parameter is read inside a macro", "not-applicable");
    if (index >= texts.size())
      return make_error("a template parameter is read outside the definition", "not-applicable");
    out.push_back({loc, Lexer::MeasureTokenLength(loc, sm, ctx.getLangOpts()), texts[index]});
  }
  return out;
}

bool is_instance_name(const std::string &name) { return name.find('<') != std::string::npos; }

std::string instance_name(const FunctionDecl *fd) {
  std::string out;
  llvm::raw_string_ostream os(out);
  fd->getNameForDiagnostic(os, tooling::name_policy(fd->getASTContext().getLangOpts()), /*Qualified=*/false);
  return tooling::strip_locations(os.str());
}

Expected<Specialization> specialize_kernel(const tooling::ParseRequest &request, const std::string &unit_text,
                                           const std::string &instance) {
  auto unit = parse_unit(request, unit_text);
  if (!unit) return make_error(unit.error().message, "not-applicable");
  ASTContext &ctx = (*unit)->getASTContext();
  const SourceManager &sm = ctx.getSourceManager();
  InstanceFinder finder(instance);
  finder.TraverseDecl(ctx.getTranslationUnitDecl());
  auto refuse = [&](const std::string &why) {
    return make_error("kernel template instance " + instance + ": " + why, "not-applicable");
  };
  if (!finder.found) return refuse("no such instantiation in " + request.source);
  const FunctionDecl *fd = finder.found;
  const FunctionTemplateDecl *tmpl = fd->getPrimaryTemplate();
  const FunctionDecl *pattern = fd->getTemplateInstantiationPattern();
  if (!tmpl || !pattern || pattern->getDescribedFunctionTemplate() != tmpl)
    return refuse("its definition is not the primary template's");
  auto range = tooling::decl_file_range(pattern, sm, ctx.getLangOpts());
  SourceLocation header_end = tmpl->getTemplateParameters()->getRAngleLoc();
  if (!range || range->file != sm.getMainFileID() || pattern->getLocation().isMacroID() || !header_end.isFileID())
    return refuse("the template is not written in " + request.source);
  size_t begin = sm.getFileOffset(header_end) + 1, end = range->end;
  auto uses = parameter_uses(fd);
  if (!uses) return refuse(uses.error().message);
  std::map<size_t, std::pair<size_t, std::string>> edits; // offset -> (length, text)
  for (const ParameterUse &use : *uses) {
    if (sm.getFileID(use.at) != range->file) return refuse("a template parameter is read inside a macro");
    size_t at = sm.getFileOffset(use.at);
    if (at < begin || at >= end) return refuse("a template parameter is read outside the definition");
    edits[at] = {use.length, use.text};
  }
  std::vector<std::string> texts;
  for (const TemplateArgument &a : fd->getTemplateSpecializationArgs()->asArray())
    texts.push_back(*argument_text(a, ctx)); // parameter_uses checked each
  std::string list;
  for (const std::string &t : texts)
    list += (list.empty() ? "" : ", ") + t;
  size_t name_at = sm.getFileOffset(pattern->getLocation());
  edits[name_at] = {pattern->getName().size(), pattern->getNameAsString() + "<" + list + ">"};
  if (pattern->getStorageClass() == SC_Static) { // the specialization has the template's linkage
    auto at = static_keyword(unit_text, begin, name_at);
    if (!at) return refuse("the template is static through a macro");
    edits[*at] = {std::string_view("static").size(), ""};
  }
  std::string text = unit_text.substr(begin, end - begin);
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) {
    auto next = std::next(it);
    if (next != edits.rend() && next->first + next->second.first > it->first)
      return refuse("two parameter uses overlap");
    text.replace(it->first - begin, it->second.first, it->second.second);
  }
  size_t lead = text.find_first_not_of(" \t\n");
  return Specialization{"template <>" + (lead == std::string::npos ? text : " " + text.substr(lead)), end};
}

} // namespace kbcc::transform

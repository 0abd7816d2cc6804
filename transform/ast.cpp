#include "transform/ast.h"

#include "tooling/shims.h"
#include "tooling/source_range.h"
#include "transform/edits.h"
#include "transform/specialize.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"

namespace kbcc::transform {
using namespace clang;

namespace {

// Counts fatal errors; other errors are tolerated as in extraction.
class FatalCounter : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level == DiagnosticsEngine::Fatal) fatal = true;
  }
  bool fatal = false;
};

class KernelByName : public RecursiveASTVisitor<KernelByName> {
public:
  explicit KernelByName(const std::string &name) : name_(name) {}
  bool VisitFunctionDecl(FunctionDecl *fd) {
    if (found || !fd->hasAttr<CUDAGlobalAttr>() || !fd->doesThisDeclarationHaveABody()) return true;
    if (fd->isTemplated() || fd->isTemplateInstantiation()) return true;
    if (!fd->getASTContext().getSourceManager().isInMainFile(fd->getLocation())) return true;
    bool specialization = fd->getTemplateSpecializationKind() == TSK_ExplicitSpecialization;
    if (is_instance_name(name_) ? specialization && instance_name(fd) == name_
                                : !specialization && (name_.empty() || fd->getName() == name_))
      found = fd;
    return true;
  }
  const FunctionDecl *found = nullptr;

private:
  const std::string &name_;
};

} // namespace

KernelAst::~KernelAst() = default;
KernelAst::KernelAst(KernelAst &&) noexcept = default;
KernelAst &KernelAst::operator=(KernelAst &&) noexcept = default;

ASTContext &KernelAst::context() const { return unit_->getASTContext(); }
const SourceManager &KernelAst::sources() const { return unit_->getSourceManager(); }

size_t KernelAst::offset(SourceLocation loc) const {
  if (loc.isInvalid() || !loc.isFileID()) return std::string::npos;
  auto [file, off] = sources().getDecomposedLoc(loc);
  if (file != file_ || off < begin_ || off > begin_ + source_.size()) return std::string::npos;
  return off - begin_;
}

bool KernelAst::span(SourceRange range, size_t &begin, size_t &end) const {
  begin = offset(range.getBegin());
  SourceLocation last = range.getEnd();
  if (begin == std::string::npos || last.isInvalid() || !last.isFileID()) return false;
  SourceLocation after = Lexer::getLocForEndOfToken(last, 0, sources(), context().getLangOpts());
  end = offset(after);
  return end != std::string::npos && end >= begin;
}

bool KernelAst::file_span(SourceRange range, size_t &begin, size_t &end) const {
  CharSourceRange r =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(range), sources(), context().getLangOpts());
  begin = r.isValid() ? offset(r.getBegin()) : std::string::npos;
  end = r.isValid() ? offset(r.getEnd()) : std::string::npos;
  return begin != std::string::npos && end != std::string::npos && end >= begin;
}

std::string KernelAst::text(SourceRange range) const {
  size_t b = 0, e = 0;
  return span(range, b, e) || file_span(range, b, e) ? source_.substr(b, e - b) : std::string();
}

size_t statement_begin(const KernelAst &k, const Stmt *s) {
  size_t at = k.offset(s->getBeginLoc());
  if (at == std::string::npos || !isa<AttributedStmt>(s)) return at;
  const std::string &src = k.source();
  size_t line = src.rfind('\n', at);
  line = line == std::string::npos ? 0 : line + 1;
  size_t first = src.find_first_not_of(" \t", line);
  return first != std::string::npos && src.compare(first, 7, "#pragma") == 0 ? line : std::string::npos;
}

size_t statement_end(const KernelAst &k, const Stmt *s) {
  size_t begin = 0, end = 0;
  if (!k.file_span(s->getSourceRange(), begin, end)) return std::string::npos;
  return isa<DeclStmt>(s) ? end : past_semicolon(k.source(), end);
}

Expected<std::unique_ptr<ASTUnit>> parse_unit(const tooling::ParseRequest &request, const std::string &text) {
  auto shims = tooling::ensure_shims(request.shim_dir, request.cuda_root);
  if (!shims) return shims.error();
  std::vector<std::string> args = tooling::clang_arguments(request, *shims);
  args.erase(args.begin()); // the program name
  args.pop_back();          // the source: given below with its text
  FatalCounter diagnostics;
  auto unit = clang::tooling::buildASTFromCodeWithArgs(
      text, args, request.source, "kbcc-transform", std::make_shared<PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), clang::tooling::FileContentMappings(), &diagnostics);
  if (!unit || diagnostics.fatal)
    return make_error(request.source + ": clang could not parse the unit for the transform", "parse-fatal");
  return unit;
}

Expected<KernelAst> parse_kernel(const tooling::ParseRequest &request, const std::string &text,
                                 const std::string &kernel) {
  auto parsed = parse_unit(request, text);
  if (!parsed) return parsed.error();
  std::unique_ptr<ASTUnit> unit = std::move(*parsed);
  KernelByName finder(kernel);
  finder.TraverseDecl(unit->getASTContext().getTranslationUnitDecl());
  if (!finder.found)
    return make_error(
        std::string(is_instance_name(kernel) ? "no specialization of a kernel template " : "no non-template kernel ") +
            (kernel.empty() ? std::string("") : "'" + kernel + "' ") + "is defined in " + request.source,
        "not-applicable");
  KernelAst k;
  k.unit_ = std::move(unit);
  k.kernel_ = finder.found;
  const SourceManager &sm = k.unit_->getSourceManager();
  if (finder.found->getLocation().isMacroID())
    return make_error("kernel " + kernel + " is generated by a macro", "not-applicable");
  auto range = tooling::decl_file_range(finder.found, sm, k.unit_->getASTContext().getLangOpts());
  if (!range || range->file != sm.getMainFileID())
    return make_error("kernel " + kernel + " is not written in " + request.source, "not-applicable");
  k.file_ = range->file;
  k.begin_ = range->begin;
  k.source_ = tooling::range_text(*range, sm);
  k.request_ = request;
  k.unit_text_ = text;
  return k;
}

std::string KernelAst::parse_key() const {
  std::string key = request_.source + '\0' + request_.arch + '\0' + request_.working_dir;
  for (const std::string &f : request_.flags)
    key += '\0' + f;
  return key + '\0' + unit_text_;
}

Expected<KernelAst> KernelAst::reparsed(const std::string &definition) const {
  std::string text = unit_text_;
  text.replace(begin_, source_.size(), definition);
  return parse_kernel(request_, text, instance_name(kernel_));
}

} // namespace kbcc::transform

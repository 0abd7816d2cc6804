#include "tooling/extract.h"

#include "gpu/device_names.h"
#include "support/fs.h"
#include "tooling/dependencies.h"
#include "tooling/kernel_hash.h"
#include "tooling/macros.h"
#include "tooling/shims.h"
#include "tooling/source_range.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/MathExtras.h"

#include <chrono>
#include <map>
#include <optional>
#include <set>

namespace kbcc::tooling {
using namespace clang;

namespace {

struct ParseState {
  const ParseRequest &request;
  MacroUses macros;
  std::vector<FullSourceLoc> errors;
  std::vector<ParseDiagnostic> diagnostics;
  bool fatal = false;
  bool finished = false;
  Extraction result;
};

// Counts errors (clang may reject code nvcc accepts) and remembers where.
class ErrorCollector : public DiagnosticConsumer {
public:
  explicit ErrorCollector(ParseState &s) : s_(s) {}
  void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < DiagnosticsEngine::Error) return;
    if (level == DiagnosticsEngine::Fatal) s_.fatal = true;
    bool tolerated = nvcc_accepts(info.getID());
    if (!tolerated && info.hasSourceManager() && info.getLocation().isValid())
      s_.errors.emplace_back(info.getSourceManager().getExpansionLoc(info.getLocation()), info.getSourceManager());
    if (s_.diagnostics.size() < kMaxDiagnostics || level == DiagnosticsEngine::Fatal) {
      s_.diagnostics.push_back(describe(level, info));
      s_.diagnostics.back().tolerated = tolerated;
    }
  }

private:
  // Errors clang reports for code nvcc compiles with a warning, that leave
  // the kernel's text and AST usable: `__shared__` variables of class type
  // with a constructor (cuda::barrier): nvcc skips the dynamic initialisation.
  static bool nvcc_accepts(unsigned id) { return id == diag::err_shared_var_init; }
  static ParseDiagnostic describe(DiagnosticsEngine::Level level, const Diagnostic &info) {
    ParseDiagnostic d;
    d.fatal = level == DiagnosticsEngine::Fatal;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    d.message = text.str().str();
    if (!info.hasSourceManager() || info.getLocation().isInvalid()) return d;
    const SourceManager &sm = info.getSourceManager();
    SourceLocation loc = sm.getExpansionLoc(info.getLocation());
    d.file = sm.getFilename(loc).str();
    d.line = sm.getExpansionLineNumber(loc);
    d.column = sm.getExpansionColumnNumber(loc);
    return d;
  }
  ParseState &s_;
};

// Where one launch was seen, with what the rewriter needs to route it.
struct LaunchUse {
  SourceLocation loc;     // start of the launch expression
  std::string form;       // kLaunch* or the API's name
  SourceLocation edit[2]; // first and last+1 character of the replaced callee text
  SourceLocation close;   // ">>>" of <<<>>> launches
  bool in_device_code = false;
  // Launches a template's instance from an instance of another template:
  // the site's text may launch other instances in other instantiations.
  bool instance_in_template = false;
};

// Finds kernel definitions (each template instantiation separately) and launch sites.
class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  explicit KernelFinder(const SourceManager &sm) : sm_(sm) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *d) {
    auto *fd = dyn_cast_or_null<FunctionDecl>(d);
    if (fd) functions_.push_back(fd);
    bool r = RecursiveASTVisitor::TraverseDecl(d);
    if (fd) functions_.pop_back();
    return r;
  }

  bool VisitFunctionDecl(FunctionDecl *fd) {
    if (!fd->hasAttr<CUDAGlobalAttr>() || !fd->doesThisDeclarationHaveABody() || fd->isDependentContext()) return true;
    const FunctionDecl *pattern = fd->getTemplateInstantiationPattern();
    if (in_system_header(pattern ? pattern : fd, sm_)) return true;
    if (seen_.insert(fd).second) kernels.push_back(fd);
    return true;
  }
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *e) {
    const FunctionDecl *k = e->getDirectCallee();
    const CallExpr *config = e->getConfig();
    if (!k || !config) return true;
    LaunchUse use = at(e->getBeginLoc(), kLaunchChevron);
    use.edit[0] = e->getCallee()->getBeginLoc();
    use.edit[1] = config->getBeginLoc().getLocWithOffset(3);
    use.close = config->getRParenLoc();
    add_launch(k, use);
    return true;
  }
  bool VisitCallExpr(CallExpr *e) {
    const FunctionDecl *callee = e->getDirectCallee();
    if (!callee || !callee->getIdentifier()) return true;
    StringRef name = callee->getName();
    if (!name.starts_with("cudaLaunch") && !name.starts_with("cuLaunch")) return true;
    unsigned kernel_arg = name == kLaunchKernel ? 0 : (name == kLaunchKernelEx || name == kLaunchKernelExC) ? 1 : ~0u;
    const auto *ref = dyn_cast<DeclRefExpr>(e->getCallee()->IgnoreImpCasts());
    for (unsigned i = 0; i < e->getNumArgs(); ++i) {
      const FunctionDecl *k = referenced_kernel(e->getArg(i));
      if (!k) continue;
      LaunchUse use = at(e->getBeginLoc(), i == kernel_arg && ref ? name.str() : "api:" + name.str());
      if (ref) {
        use.edit[0] = ref->getBeginLoc();
        use.edit[1] = ref->getLocation().getLocWithOffset(static_cast<int>(name.size()));
      }
      add_launch(k, use);
    }
    return true;
  }

  std::vector<const FunctionDecl *> kernels;
  std::map<const FunctionDecl *, std::vector<LaunchUse>> launches; // by canonical decl

private:
  static const FunctionDecl *referenced_kernel(const Expr *arg) {
    const Expr *e = arg->IgnoreParenCasts();
    if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
      e = u->getSubExpr()->IgnoreParenCasts();
    const auto *ref = dyn_cast<DeclRefExpr>(e);
    const auto *fd = ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : nullptr;
    return fd && fd->hasAttr<CUDAGlobalAttr>() ? fd : nullptr;
  }
  LaunchUse at(SourceLocation loc, std::string form) const {
    LaunchUse use;
    use.loc = loc;
    use.form = std::move(form);
    const FunctionDecl *f = functions_.empty() ? nullptr : functions_.back();
    use.in_device_code = f && (f->hasAttr<CUDADeviceAttr>() || f->hasAttr<CUDAGlobalAttr>());
    return use;
  }
  void add_launch(const FunctionDecl *k, LaunchUse use) {
    const FunctionDecl *f = functions_.empty() ? nullptr : functions_.back();
    use.instance_in_template = k->isTemplateInstantiation() && f && in_template_instance(f);
    launches[k->getCanonicalDecl()].push_back(use);
  }
  // `f` is instantiated from a template, or lies in something that is.
  static bool in_template_instance(const FunctionDecl *f) {
    if (f->getTemplateInstantiationPattern()) return true;
    for (const DeclContext *dc = f->getDeclContext(); dc; dc = dc->getParent())
      if (const auto *rd = dyn_cast<CXXRecordDecl>(dc); rd && rd->getTemplateInstantiationPattern()) return true;
    return false;
  }
  const SourceManager &sm_;
  std::set<const FunctionDecl *> seen_;
  std::vector<const FunctionDecl *> functions_;
};

std::string file_path(FileID file, const SourceManager &sm) {
  auto ref = sm.getFileEntryRefForID(file);
  return ref ? real_path(ref->getName().str()) : std::string();
}

std::vector<Param> kernel_params(const FunctionDecl *fd, ASTContext &ctx) {
  PrintingPolicy policy = name_policy(ctx.getLangOpts());
  std::vector<Param> out;
  uint64_t offset = 0;
  for (const ParmVarDecl *p : fd->parameters()) {
    Param param;
    QualType t = p->getType();
    param.name = p->getName().str();
    param.type = t.getAsString(policy);
    QualType canon = t.getCanonicalType();
    if (!canon->isIncompleteType() && !canon->isDependentType()) {
      param.size = ctx.getTypeSizeInChars(canon).getQuantity();
      param.align = ctx.getTypeAlignInChars(canon).getQuantity();
    }
    if (param.align) offset = llvm::alignTo(offset, param.align);
    param.offset = offset;
    offset += param.size;
    if (canon->isPointerType()) {
      QualType pointee = canon->getPointeeType();
      param.is_pointer = true;
      param.pointee_const = pointee.isConstQualified();
      param.pointee_type = pointee.getUnqualifiedType().getAsString(policy);
    }
    param.is_record = canon->isRecordType();
    param.is_integer = canon->isIntegerType() && !canon->isBooleanType();
    param.is_signed = param.is_integer && canon->isSignedIntegerOrEnumerationType();
    out.push_back(std::move(param));
  }
  return out;
}

// nvcc does not mark internal linkage in the mangled name of a `static`
// kernel (Itanium puts an 'L' before its source name): drop that 'L'.
std::string drop_internal_linkage_mark(std::string mangled, const FunctionDecl *fd) {
  if (fd->getFormalLinkage() != Linkage::Internal || fd->isInAnonymousNamespace()) return mangled;
  std::string source_name = "L" + std::to_string(fd->getName().size()) + fd->getName().str();
  if (auto p = mangled.find(source_name); p != std::string::npos) mangled.erase(p, 1);
  return mangled;
}

// The kernel's device name as the registry keeps it: nvcc's, but with an
// anonymous namespace in the file-keyed form of the unit being parsed
// (gpu/device_names.h).
std::vector<std::string> mangled_names(const FunctionDecl *fd, ASTContext &ctx) {
  std::unique_ptr<MangleContext> mc(ctx.createMangleContext());
  if (!mc->shouldMangleDeclName(fd)) return {fd->getName().str()};
  std::string name;
  llvm::raw_string_ostream os(name);
  mc->mangleName(GlobalDecl(fd, KernelReferenceKind::Kernel), os);
  name = drop_internal_linkage_mark(os.str(), fd);
  if (!fd->isInAnonymousNamespace()) return {name};
  const SourceManager &sm = ctx.getSourceManager();
  OptionalFileEntryRef unit = sm.getFileEntryRefForID(sm.getMainFileID());
  return {gpu::file_keyed_name(name, unit ? unit->getName() : llvm::StringRef())};
}

// Main-file byte offset of `loc`, when it is written there (not in a macro).
std::optional<uint64_t> main_file_offset(SourceLocation loc, const SourceManager &sm) {
  if (loc.isInvalid() || !loc.isFileID()) return std::nullopt;
  auto [file, offset] = sm.getDecomposedLoc(loc);
  if (file != sm.getMainFileID()) return std::nullopt;
  return offset;
}

// True when the main file holds `text` at `offset`.
bool text_at(const SourceManager &sm, uint64_t offset, StringRef text) {
  StringRef buffer = sm.getBufferData(sm.getMainFileID());
  return offset + text.size() <= buffer.size() && buffer.substr(offset, text.size()) == text;
}

// Fills the edit offsets of `s` from `use`, or says why it cannot be rewritten.
void locate_edits(LaunchSite &s, const LaunchUse &use, const SourceManager &sm) {
  if (s.form.rfind("api:", 0) == 0) {
    s.form = s.form.substr(4);
    s.not_rewritable = "launch-api";
    return;
  }
  if (use.in_device_code) {
    s.not_rewritable = "launch-in-device-code";
    return;
  }
  if (use.instance_in_template) {
    s.not_rewritable = "launch-in-template";
    return;
  }
  auto begin = main_file_offset(use.edit[0], sm), end = main_file_offset(use.edit[1], sm);
  auto close = main_file_offset(use.close, sm);
  bool chevron = s.form == kLaunchChevron;
  if (!begin || !end || (chevron && !close)) {
    bool header = main_file_offset(sm.getExpansionLoc(use.loc), sm) == std::nullopt;
    s.not_rewritable = header ? "launch-in-header" : "launch-in-macro";
    return;
  }
  if (chevron && (!text_at(sm, *end - 3, "<<<") || !text_at(sm, *close, ">>>"))) {
    s.not_rewritable = "launch-in-macro";
    return;
  }
  s.edit_begin = *begin, s.edit_end = *end;
  if (chevron) s.close_begin = *close, s.close_end = *close + 3;
}

std::vector<LaunchSite> launch_sites(const std::vector<LaunchUse> &uses, const SourceManager &sm) {
  std::vector<LaunchSite> out;
  std::set<std::tuple<std::string, unsigned, unsigned, std::string>> seen;
  for (const LaunchUse &use : uses) {
    SourceLocation e = sm.getExpansionLoc(use.loc);
    LaunchSite s{file_path(sm.getFileID(e), sm), sm.getExpansionLineNumber(e), sm.getExpansionColumnNumber(e),
                 use.form};
    if (!seen.insert({s.file, s.line, s.column, s.form}).second) continue;
    locate_edits(s, use, sm);
    out.push_back(std::move(s));
  }
  return out;
}

// Why the launches of `fd` cannot go through a host adapter; empty if they can.
std::string adapter_refusal(const FunctionDecl *fd) {
  if (fd->getDescribedFunctionTemplate()) return "template-kernel"; // a pattern: its instances may have one
  const FunctionTemplateDecl *tmpl = fd->getPrimaryTemplate();
  if (fd->isTemplateInstantiation() && (!tmpl || tmpl->getTemplatedDecl()->isVariadic())) return "template-kernel";
  if (fd->isVariadic()) return "variadic-kernel";
  for (const ParmVarDecl *p : fd->parameters())
    if (p->hasDefaultArg()) return "default-arguments";
  const DeclContext *dc = fd->getDeclContext()->getRedeclContext();
  if (!dc->isFileContext()) return "not-at-namespace-scope";
  for (const NamedDecl *d : fd->getDeclContext()->lookup(fd->getDeclName())) {
    if (tmpl && isa<FunctionTemplateDecl>(d) && d->getCanonicalDecl() == tmpl->getCanonicalDecl()) continue;
    if (const auto *other = dyn_cast<FunctionDecl>(d); !other || other->getCanonicalDecl() != fd->getCanonicalDecl())
      return "overloaded-kernel";
  }
  return {};
}

bool has_error_in(const std::vector<FullSourceLoc> &errors, const std::vector<FileRange> &ranges,
                  const SourceManager &sm) {
  for (const FullSourceLoc &loc : errors) {
    auto [file, offset] = sm.getDecomposedLoc(loc);
    for (const FileRange &r : ranges)
      if (r.file == file && offset >= r.begin && offset < r.end) return true;
  }
  return false;
}

class ExtractConsumer : public ASTConsumer {
public:
  explicit ExtractConsumer(ParseState &s) : s_(s) {}

  void HandleTranslationUnit(ASTContext &ctx) override {
    KernelFinder finder(ctx.getSourceManager());
    finder.TraverseDecl(ctx.getTranslationUnitDecl());
    HashContext hc{s_.macros, device_code_flags(s_.request.flags), s_.request.arch, s_.request.toolchain};
    for (const FunctionDecl *fd : finder.kernels)
      s_.result.kernels.push_back(make_kernel(fd, finder, ctx, hc));
    const SourceManager &sm = ctx.getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
      s_.result.included_files.push_back(real_path(it->first.getName().str()));
    std::sort(s_.result.included_files.begin(), s_.result.included_files.end());
    s_.finished = true;
  }

private:
  Kernel make_kernel(const FunctionDecl *fd, KernelFinder &finder, ASTContext &ctx, const HashContext &hc) {
    const SourceManager &sm = ctx.getSourceManager();
    Kernel k;
    llvm::raw_string_ostream name(k.qualified_name);
    fd->getNameForDiagnostic(name, name_policy(ctx.getLangOpts()), /*Qualified=*/true);
    k.qualified_name = strip_locations(k.qualified_name);
    k.mangled_names = mangled_names(fd, ctx);
    k.is_template = fd->isTemplateInstantiation();
    k.params = kernel_params(fd, ctx);
    auto it = finder.launches.find(fd->getCanonicalDecl());
    if (it != finder.launches.end()) k.launches = launch_sites(it->second, sm);
    k.not_adaptable = adapter_refusal(fd);
    Dependencies deps = collect_dependencies(fd, ctx);
    KernelHash h = hash_kernel(fd, deps, ctx, hc);
    k.hash = h.hash;
    k.hash_inputs = std::move(h.sections);
    k.dependencies = std::move(h.dependency_text);
    const FunctionDecl *pattern = fd->getTemplateInstantiationPattern();
    auto range = decl_file_range(pattern ? pattern : fd, sm, ctx.getLangOpts());
    if (!range) {
      k.not_optimizable = kUnreadableRange;
      return k;
    }
    k.file = file_path(range->file, sm);
    k.begin = range->begin;
    k.end = range->end;
    k.line = sm.getLineNumber(range->file, range->begin);
    k.in_main_file = range->file == sm.getMainFileID();
    k.source = range_text(*range, sm);
    for (LaunchSite &l : k.launches) // the adapter is inserted after the definition
      if (l.not_rewritable.empty() && l.edit_begin < k.end) l.not_rewritable = "launch-before-definition";
    if ((pattern ? pattern : fd)->getLocation().isMacroID())
      k.not_optimizable = kMacroGenerated;
    else if (!k.in_main_file)
      k.not_optimizable = kKernelInHeader;
    else if (fd->isInvalidDecl() || has_error_in(s_.errors, h.ranges, sm))
      k.not_optimizable = kParseErrorInKernel;
    return k;
  }

  ParseState &s_;
};

class ExtractAction : public ASTFrontendAction {
public:
  explicit ExtractAction(ParseState &s) : s_(s) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci, StringRef) override {
    ci.getPreprocessor().addPPCallbacks(make_macro_recorder(ci.getPreprocessor(), s_.macros));
    return std::make_unique<ExtractConsumer>(s_);
  }

private:
  ParseState &s_;
};

} // namespace

std::string format_diagnostic(const ParseDiagnostic &d) {
  std::string where = d.file.empty() ? std::string() : d.file + ":" + std::to_string(d.line) + ":";
  if (!where.empty() && d.column) where += std::to_string(d.column) + ":";
  return where + (where.empty() ? "" : " ") + (d.fatal ? "fatal error: " : "error: ") + d.message +
         (d.tolerated ? " [nvcc accepts this: no kernel is marked for it]" : "");
}

std::string format_diagnostics(const std::vector<ParseDiagnostic> &list, size_t max) {
  std::vector<const ParseDiagnostic *> shown;
  for (const ParseDiagnostic &d : list) // fatal errors first: they are why the parse stopped
    if (d.fatal && shown.size() < max) shown.push_back(&d);
  for (const ParseDiagnostic &d : list)
    if (!d.fatal && shown.size() < max) shown.push_back(&d);
  std::string out;
  for (const ParseDiagnostic *d : shown)
    out += (out.empty() ? "" : "; ") + format_diagnostic(*d);
  if (list.size() > shown.size()) out += "; (" + std::to_string(list.size() - shown.size()) + " more)";
  return out.empty() ? "no diagnostic text" : out;
}

Expected<Extraction> extract_in_process(const ParseRequest &request) {
  auto start = std::chrono::steady_clock::now();
  auto shim_dir = ensure_shims(request.shim_dir, request.cuda_root);
  if (!shim_dir) return shim_dir.error();
  ParseState state{request, {}, {}, {}, false, false, {}};
  state.result.source_path = real_path(request.source);
  state.result.arch = request.arch;
  ErrorCollector diagnostics(state);
  FileSystemOptions fs_options;
  fs_options.WorkingDir = request.working_dir;
  llvm::IntrusiveRefCntPtr<FileManager> files(new FileManager(fs_options));
  clang::tooling::ToolInvocation invocation(clang_arguments(request, *shim_dir), std::make_unique<ExtractAction>(state),
                                            files.get());
  invocation.setDiagnosticConsumer(&diagnostics);
  invocation.run();
  if (state.fatal)
    return make_error(request.source + ": clang reported a fatal error while parsing: " +
                          format_diagnostics(state.diagnostics, kMaxDiagnosticsInError),
                      "parse-fatal");
  if (!state.finished) return make_error(request.source + ": clang produced no AST", "parse-failed");
  state.result.parse_errors = diagnostics.getNumErrors();
  state.result.diagnostics = std::move(state.diagnostics);
  state.result.parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::move(state.result);
}

} // namespace kbcc::tooling

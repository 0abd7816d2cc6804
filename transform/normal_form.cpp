#include "transform/normal_form.h"

#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/specialize.h"
#include "transform/transform.h"
#include "transform/uniform.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <cctype>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

constexpr int kRounds = 4; // helpers calling helpers: inlined this deep

// `base_N` for the smallest N whose name is not in `taken`, which then holds it.
std::string fresh(const std::string &base, std::set<std::string> &taken) {
  for (int n = 1;; ++n)
    if (std::string name = base + "_" + std::to_string(n); taken.insert(name).second) return name;
}

// The names of `fd`'s locals declared at the top of its body, and of all of
// them (nested blocks included).
void local_names(const FunctionDecl *fd, std::set<std::string> &top, std::set<std::string> &all) {
  const auto *body = cast<CompoundStmt>(fd->getBody());
  for (const Stmt *s : body->body())
    if (const auto *d = dyn_cast<DeclStmt>(s))
      for (const Decl *x : d->decls())
        if (const auto *v = dyn_cast<VarDecl>(x)) top.insert(v->getName().str());
  walk(body, [&](const Stmt *s) {
    if (const auto *d = dyn_cast<DeclStmt>(s))
      for (const Decl *x : d->decls())
        if (const auto *v = dyn_cast<VarDecl>(x)) all.insert(v->getName().str());
  });
}

// The text of one helper's body between its braces, and the edits that
// rename its parameters, by file offsets.
class HelperText {
public:
  // Errors: the body is not written in one file.
  static Expected<HelperText> of(const FunctionDecl *fd) {
    const SourceManager &sm = fd->getASTContext().getSourceManager();
    const auto *body = dyn_cast_or_null<CompoundStmt>(fd->getBody());
    if (!body) return not_applicable("'" + fd->getName().str() + "' has no body in braces");
    SourceLocation l = body->getLBracLoc(), r = body->getRBracLoc();
    if (!l.isFileID() || !r.isFileID() || sm.getFileID(l) != sm.getFileID(r))
      return not_applicable("the body of '" + fd->getName().str() + "' is written in a macro");
    HelperText h;
    h.sm_ = &sm;
    h.lang_ = &fd->getASTContext().getLangOpts();
    h.file_ = sm.getFileID(l);
    h.begin_ = sm.getFileOffset(l) + 1;
    h.text_ = sm.getBufferData(h.file_).substr(h.begin_, sm.getFileOffset(r) - h.begin_).str();
    return h;
  }
  const std::string &text() const { return text_; }
  // Offset of `loc` in text(), npos when it is not written there.
  size_t offset(SourceLocation loc) const {
    if (!loc.isFileID() || sm_->getFileID(loc) != file_) return std::string::npos;
    unsigned off = sm_->getFileOffset(loc);
    return off < begin_ || off > begin_ + text_.size() ? std::string::npos : off - begin_;
  }
  // Offsets in text() of the first character and one past the last token of `range`.
  bool span(SourceRange range, size_t &b, size_t &e) const {
    b = offset(range.getBegin());
    e = offset(Lexer::getLocForEndOfToken(range.getEnd(), 0, *sm_, *lang_));
    return b != std::string::npos && e != std::string::npos && e >= b;
  }
  void rename(size_t at, size_t length, const std::string &name) { renames_.push_back({at, length, name}); }
  // text()[b, e) with the renames inside it applied.
  std::string slice(size_t b, size_t e) const {
    Edits edits;
    for (const Rename &r : renames_)
      if (r.at >= b && r.at + r.length <= e) edits.replace(r.at - b, r.at - b + r.length, r.name);
    auto out = edits.apply(text_.substr(b, e - b));
    return out ? *out : std::string();
  }

private:
  struct Rename {
    size_t at, length;
    std::string name;
  };
  const SourceManager *sm_ = nullptr;
  const LangOptions *lang_ = nullptr;
  FileID file_;
  unsigned begin_ = 0;
  std::string text_;
  std::vector<Rename> renames_;
};

// What the kernel's round of inlining knows: the kernel, its names, and the
// names taken by what was placed so far.
struct Round {
  const KernelAst &k;
  std::set<std::string> taken;        // identifiers of the kernel and of the helpers, and new names
  std::set<std::string> kernel_names; // identifiers of the kernel as written
  std::set<std::string> spliced;      // helper locals already placed in the kernel's blocks
  std::set<const Stmt *> statements;  // statements that received an inlined call
  Edits edits;
};

// Why `fd` cannot be inlined, or "".
std::string helper_refusal(const FunctionDecl *fd, const CallExpr *call, const KernelAst &k) {
  const SourceManager &sm = k.sources();
  const std::string name = "'" + fd->getName().str() + "'";
  if (!fd->hasAttr<CUDADeviceAttr>() || fd->hasAttr<CUDAGlobalAttr>()) return name + " is not a __device__ function";
  if (sm.isInSystemHeader(fd->getLocation()) || fd->getLocation().isMacroID())
    return name + " is not written in the program";
  bool plain_or_instance = fd->getTemplatedKind() == FunctionDecl::TK_NonTemplate ||
                           fd->getTemplatedKind() == FunctionDecl::TK_FunctionTemplateSpecialization;
  if (isa<CXXMethodDecl>(fd) || !plain_or_instance || fd->isVariadic())
    return name + " is a member, a template or variadic";
  if (call->getNumArgs() != fd->getNumParams()) return name + " is called with default arguments";
  QualType ret = fd->getReturnType();
  if (ret->isReferenceType() || ret->getContainedAutoType()) return name + " returns a reference or auto";
  for (const ParmVarDecl *p : fd->parameters())
    if (p->hasDefaultArg() || p->getOriginalType()->isArrayType() || p->getOriginalType()->isFunctionType())
      return name + " has an array parameter or a default argument";
  const auto *body = dyn_cast_or_null<CompoundStmt>(fd->getBody());
  if (!body) return name + " has no body";
  const Stmt *last = body->body_empty() ? nullptr : body->body_back();
  std::string why;
  int returns = 0;
  walk(body, [&](const Stmt *s) {
    if (isa<LabelStmt>(s) || isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s) || isa<LambdaExpr>(s) || isa<CXXThisExpr>(s))
      why = name + " has a goto, a label, a lambda or `this`";
    if (isa<ReturnStmt>(s)) {
      ++returns;
      if (s != last) why = name + " returns before its last statement";
    }
    if (const auto *c = dyn_cast<CallExpr>(s); c && c->getDirectCallee() == fd) why = name + " is recursive";
    if (const auto *d = dyn_cast<DeclStmt>(s))
      for (const Decl *x : d->decls())
        if (const auto *v = dyn_cast<VarDecl>(x); v && (v->isStaticLocal() || v->hasAttr<CUDASharedAttr>()))
          why = name + " declares a static or __shared__ local";
    if (const auto *ref = dyn_cast<DeclRefExpr>(s)) {
      const ValueDecl *d = ref->getDecl();
      if (const auto *p = dyn_cast<ParmVarDecl>(d); p && p->getDeclContext() == fd) {
        if (ref->getLocation().isMacroID()) why = name + " names a parameter in a macro";
        return;
      }
      if (d->getDeclContext() == fd || d->getParentFunctionOrMethod() == fd) return; // its own local
      if (!sm.isBeforeInTranslationUnit(d->getCanonicalDecl()->getLocation(), k.kernel()->getBeginLoc()))
        why = name + " uses '" + d->getName().str() + "', declared after the kernel";
      for (const ParmVarDecl *kp : k.kernel()->parameters())
        if (kp->getName() == d->getName()) why = name + " uses '" + d->getName().str() + "', a name the kernel hides";
      walk(k.kernel()->getBody(), [&](const Stmt *ks) {
        if (const auto *kd = dyn_cast<DeclStmt>(ks))
          for (const Decl *x : kd->decls())
            if (const auto *v = dyn_cast<VarDecl>(x); v && v->getName() == d->getName())
              why = name + " uses '" + d->getName().str() + "', a name the kernel hides";
      });
    }
  });
  if (!why.empty()) return why;
  bool is_void = ret->isVoidType();
  const auto *final_return = dyn_cast_or_null<ReturnStmt>(last);
  if (!is_void && (!final_return || !final_return->getRetValue() || returns != 1))
    return name + " does not end with its one return";
  if (is_void && returns > (final_return ? 1 : 0)) return name + " returns before its last statement";
  return "";
}

// Whether `e` (an argument) names a local or parameter of the kernel that
// may stand for parameter `p` of `fd` in its body.
const VarDecl *substitute(const Expr *e, const ParmVarDecl *p, const FunctionDecl *fd, const KernelAst &k,
                          const std::set<std::string> &helper_locals) {
  const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto *v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!v || v->getParentFunctionOrMethod() != k.kernel() || helper_locals.count(v->getName().str())) return nullptr;
  if (ref->getLocation().isMacroID()) return nullptr;
  const ASTContext &ctx = k.context();
  QualType pt = p->getType().getNonReferenceType(), vt = v->getType().getNonReferenceType();
  bool same = ctx.hasSameUnqualifiedType(pt, vt);
  if (!same && pt->isPointerType() && vt->isPointerType())
    same = ctx.hasSameUnqualifiedType(pt->getPointeeType(), vt->getPointeeType());
  if (!same) return nullptr;
  if (p->getType()->isReferenceType()) return v;
  return assigns(fd->getBody(), p) ? nullptr : v;
}

// The statement of the kernel that holds `call` (a statement of a block or
// a branch), whether it sits in a block, and "" or why the call cannot be
// moved before it.
struct Site {
  const Stmt *statement = nullptr;
  bool in_block = false;
  std::string why;
};

Site site_of(const CallExpr *call, ASTContext &ctx) {
  Site site;
  DynTypedNode node = DynTypedNode::create(*call);
  for (;;) {
    auto parents = ctx.getParents(node);
    if (parents.size() != 1) return {nullptr, false, "the call's statement is not found"};
    const DynTypedNode &up = parents[0];
    const Stmt *child = node.get<Stmt>();
    if (const auto *d = up.get<Decl>()) {
      if (!isa<VarDecl>(d)) return {nullptr, false, "the call is not in a statement"};
      node = up;
      continue;
    }
    const Stmt *s = up.get<Stmt>();
    if (!s) return {nullptr, false, "the call is not in a statement"};
    if (isa<CompoundStmt>(s)) return {child, true, ""};
    if (const auto *i = dyn_cast<IfStmt>(s)) {
      if (i->getInit() || i->getConditionVariable()) return {nullptr, false, "the call is in an if with a declaration"};
      if (child == i->getThen() || child == i->getElse()) return {child, false, ""};
    } else if (const auto *w = dyn_cast<SwitchStmt>(s)) {
      if (w->getInit() || w->getConditionVariable())
        return {nullptr, false, "the call is in a switch with a declaration"};
      if (child == w->getBody()) return {child, false, ""};
    } else if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s)) {
      const Stmt *body = isa<ForStmt>(s)     ? cast<ForStmt>(s)->getBody()
                         : isa<WhileStmt>(s) ? cast<WhileStmt>(s)->getBody()
                         : isa<DoStmt>(s)    ? cast<DoStmt>(s)->getBody()
                                             : cast<CXXForRangeStmt>(s)->getBody();
      if (child == body) return {child, false, ""};
      return {nullptr, false, "the call is in a loop's header"};
    } else if (isa<SwitchCase>(s) || isa<LabelStmt>(s) || isa<AttributedStmt>(s)) {
      return {nullptr, false, "the call's statement is labelled"};
    } else if (const auto *c = dyn_cast<ConditionalOperator>(s)) {
      if (child != c->getCond()) return {nullptr, false, "the call is under ?:"};
    } else if (const auto *b = dyn_cast<BinaryOperator>(s)) {
      if ((b->isLogicalOp() || b->isCommaOp()) && child != b->getLHS())
        return {nullptr, false, "the call is under && , || or a comma"};
    } else if (isa<LambdaExpr>(s) || isa<StmtExpr>(s)) {
      return {nullptr, false, "the call is in a lambda"};
    }
    node = up;
  }
}

// Whether `s`, but the subtree of `call` and `s`'s own assignment, has a
// side effect outside function calls: ++, -- or an assignment. (A call of
// `s` other than `call` is sequenced indeterminately with it, so `call` may
// run first.)
bool other_effects(const Stmt *s, const CallExpr *call) {
  if (const auto *i = dyn_cast<IfStmt>(s)) return other_effects(i->getCond(), call);
  if (const auto *w = dyn_cast<SwitchStmt>(s)) return other_effects(w->getCond(), call);
  bool found = false;
  std::function<void(const Stmt *)> visit = [&](const Stmt *x) {
    if (!x || x == call) return;
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp() && x != s) found = true;
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->isIncrementDecrementOp()) found = true;
    for (const Stmt *c : x->children())
      visit(c);
  };
  visit(s);
  return found;
}

// The kernel's text of `e`, whole macro invocations included; "" when an end
// lies inside one.
std::string invocation_text(const KernelAst &k, const Expr *e) {
  size_t b = 0, end = 0;
  return k.file_span(e->getSourceRange(), b, end) ? k.source().substr(b, end - b) : std::string();
}

// Inlines `call` of `fd` into the round's edits. Error: why it cannot.
Status inline_call(Round &r, const CallExpr *call, const FunctionDecl *fd) {
  const KernelAst &k = r.k;
  if (std::string why = helper_refusal(fd, call, k); !why.empty()) return not_applicable(why);
  Site site = site_of(call, k.context());
  if (!site.statement) return not_applicable(site.why);
  if (r.statements.count(site.statement)) return not_applicable("another call of the statement is inlined first");
  const Stmt *s = site.statement;
  bool whole = s == call; // `f(...);`
  bool is_void = fd->getReturnType()->isVoidType();
  if (is_void && !whole) return not_applicable("the value of a void call is used");
  if (isa<DeclStmt>(s) && !cast<DeclStmt>(s)->isSingleDecl())
    return not_applicable("the call's declaration declares several variables");
  if (other_effects(s, call)) return not_applicable("the call's statement does more than assign");
  size_t sb = statement_begin(k, s), se = statement_end(k, s), cb = 0, ce = 0;
  if (sb == std::string::npos || se == std::string::npos || !k.file_span(call->getSourceRange(), cb, ce))
    return not_applicable("the call is written in a macro");

  auto helper = HelperText::of(fd);
  if (!helper) return helper.error();
  auto uses = parameter_uses(fd); // an instance of a template reads its arguments
  if (!uses) return not_applicable("'" + fd->getName().str() + "': " + uses.error().message);
  for (const ParameterUse &use : *uses)
    if (size_t at = helper->offset(use.at); at != std::string::npos) helper->rename(at, use.length, use.text);
  std::set<std::string> top, locals;
  local_names(fd, top, locals);
  std::string decls;
  for (unsigned i = 0; i < fd->getNumParams(); ++i) {
    const ParmVarDecl *p = fd->getParamDecl(i);
    const Expr *arg = call->getArg(i);
    std::string name;
    if (const VarDecl *v = substitute(arg, p, fd, k, locals)) {
      name = v->getName().str();
    } else if (p->getName().empty()) {
      if (arg->HasSideEffects(k.context())) return not_applicable("an unnamed parameter's argument has side effects");
      continue;
    } else {
      std::string text = invocation_text(k, arg);
      if (text.empty()) return not_applicable("an argument is written in part of a macro");
      name = fresh(p->getName().str(), r.taken);
      const SourceManager &sm = k.sources();
      CharSourceRange range = CharSourceRange::getTokenRange(p->getSourceRange());
      std::string decl = Lexer::getSourceText(range, sm, k.context().getLangOpts()).str();
      unsigned at = sm.getFileOffset(p->getLocation()) - sm.getFileOffset(p->getBeginLoc());
      if (decl.empty() || !p->getLocation().isFileID() || at + p->getName().size() > decl.size())
        return not_applicable("a parameter's declaration is written in a macro");
      Edits written; // the name, and the template's arguments where its type reads its parameters
      written.replace(at, at + p->getName().size(), name);
      unsigned base = sm.getFileOffset(p->getBeginLoc());
      for (const ParameterUse &use : *uses) {
        unsigned u = sm.getFileOffset(use.at);
        if (sm.getFileID(use.at) == sm.getFileID(p->getBeginLoc()) && u >= base && u - base + use.length <= at)
          written.replace(u - base, u - base + use.length, use.text);
      }
      auto with_arguments = written.apply(decl);
      if (!with_arguments) return with_arguments.error();
      decl = *with_arguments;
      decls.append(decl).append(" = ").append(text).append("; ");
    }
    walk(fd->getBody(), [&](const Stmt *x) {
      if (const auto *ref = dyn_cast<DeclRefExpr>(x); ref && ref->getDecl() == p)
        helper->rename(helper->offset(ref->getLocation()), p->getName().size(), name);
    });
  }
  const auto *body = cast<CompoundStmt>(fd->getBody());
  const auto *ret = dyn_cast_or_null<ReturnStmt>(body->body_empty() ? nullptr : body->body_back());
  size_t rb = helper->text().size(), re = rb, vb = 0, ve = 0;
  if (ret) {
    size_t e = 0;
    if (!helper->span(ret->getSourceRange(), rb, e)) return not_applicable("the return is written in a macro");
    re = past_semicolon(helper->text(), e);
    if (ret->getRetValue() && !helper->span(ret->getRetValue()->getSourceRange(), vb, ve))
      return not_applicable("the returned value is written in a macro");
  }
  std::string stmts = helper->slice(0, rb) + helper->slice(re, helper->text().size());
  std::string value = ret && ret->getRetValue() ? "(" + helper->slice(vb, ve) + ")" : "";
  if (!value.empty()) {
    QualType written = ret->getRetValue()->IgnoreImpCasts()->getType();
    if (!k.context().hasSameUnqualifiedType(written, fd->getReturnType()))
      value = "static_cast<" + fd->getReturnType().getAsString(k.context().getPrintingPolicy()) + ">" + value;
  }
  bool own_block = false;
  for (const std::string &n : top)
    if (r.kernel_names.count(n) || r.spliced.count(n)) own_block = true;
  // A discarded value is still computed when computing it has effects.
  std::string tail =
      whole && ret && ret->getRetValue() && ret->getRetValue()->HasSideEffects(k.context()) ? value + "; " : "";
  std::string before;
  if (!own_block) {
    r.spliced.insert(top.begin(), top.end());
    before = decls + stmts + tail;
  } else if (whole) {
    before = "{ " + decls + stmts + tail + "}";
  } else {
    std::string result = fresh(fd->getName().str(), r.taken);
    before = fd->getReturnType().getAsString(k.context().getPrintingPolicy()) + " " + result + "; { " + decls +
             helper->slice(0, rb) + result + " = " + value + "; " + helper->slice(re, helper->text().size()) + "}";
    value = result;
  }
  r.statements.insert(s);
  bool wrap = !site.in_block;
  r.edits.insert(sb, (wrap ? "{ " : "") + before + "\n");
  if (whole)
    r.edits.replace(sb, se, "");
  else
    r.edits.replace(cb, ce, value);
  if (wrap) r.edits.insert(se, " }");
  return Status();
}

// Calls of `s` in evaluation order (arguments before the call).
void calls_of(const Stmt *s, std::vector<const CallExpr *> &out) {
  if (!s) return;
  for (const Stmt *c : s->children())
    calls_of(c, out);
  if (const auto *c = dyn_cast<CallExpr>(s)) out.push_back(c);
}

// One round: every call of the kernel that can be inlined, one per
// statement. nullopt when none can.
Expected<std::optional<std::string>> inline_round(const KernelAst &k) {
  Round r{k, {}, {}, {}, {}, {}};
  identifiers(k.source(), r.kernel_names);
  r.taken = r.kernel_names;
  std::vector<const CallExpr *> calls;
  calls_of(k.kernel()->getBody(), calls);
  std::vector<std::pair<const CallExpr *, const FunctionDecl *>> helpers;
  for (const CallExpr *c : calls) {
    const FunctionDecl *callee = c->getDirectCallee();
    const FunctionDecl *def = nullptr;
    if (!callee || !callee->hasBody(def) || !def || k.sources().isInSystemHeader(def->getLocation())) continue;
    helpers.emplace_back(c, def);
    if (auto text = HelperText::of(def)) identifiers(text->text(), r.taken);
  }
  bool any = false;
  for (const auto &[c, def] : helpers)
    if (inline_call(r, c, def)) any = true;
  if (!any) return std::optional<std::string>();
  auto text = r.edits.apply(k.source());
  if (!text) return text.error();
  return std::optional<std::string>(*text);
}

// Whether `s` steps `v` by a constant-free-of-v amount: `v++`, `v--`
// (either side), `v op= K` or `v = v op K` with op one of + - * / % << >>,
// K naming neither v nor anything with a side effect.
bool is_step_of(const Stmt *s, const VarDecl *v, const ASTContext &ctx) {
  if (const auto *u = dyn_cast<UnaryOperator>(s)) return u->isIncrementDecrementOp() && names(u->getSubExpr(), v);
  const auto *b = dyn_cast<BinaryOperator>(s);
  if (!b || !names(b->getLHS(), v)) return false;
  auto by = [&](const Expr *k) { return !refers_to(k, v) && !k->HasSideEffects(ctx); };
  auto arithmetic = [](BinaryOperatorKind op) {
    return op == BO_Add || op == BO_Sub || op == BO_Mul || op == BO_Div || op == BO_Rem || op == BO_Shl || op == BO_Shr;
  };
  if (b->isCompoundAssignmentOp())
    return arithmetic(BinaryOperator::getOpForCompoundAssignment(b->getOpcode())) && by(b->getRHS());
  const auto *r = dyn_cast<BinaryOperator>(b->getRHS()->IgnoreParens());
  return b->getOpcode() == BO_Assign && r && arithmetic(r->getOpcode()) && names(r->getLHS(), v) && by(r->getRHS());
}

// The for loop that while loop `w`, after statement `before` of `block`,
// is, as edits; false when it is not one.
bool while_as_for(const KernelAst &k, const CompoundStmt *block, size_t at, Edits &e) {
  const auto *w = dyn_cast<WhileStmt>(block->body_begin()[at]);
  const auto *decl = at > 0 ? dyn_cast<DeclStmt>(block->body_begin()[at - 1]) : nullptr;
  const auto *v = decl && decl->isSingleDecl() ? dyn_cast<VarDecl>(decl->getSingleDecl()) : nullptr;
  const auto *body = w ? dyn_cast<CompoundStmt>(w->getBody()) : nullptr;
  if (!v || !v->getInit() || !v->getType()->isIntegerType() || !body || body->body_empty() ||
      w->getConditionVariable() || !refers_to(w->getCond(), v))
    return false;
  const Stmt *step = body->body_back();
  if (!is_step_of(step, v, k.context()) || continues(body)) return false;
  for (const Stmt *s : body->body())
    if (s != step && assigns(s, v)) return false;
  for (size_t i = at + 1; i < block->size(); ++i)
    if (refers_to(block->body_begin()[i], v)) return false;
  size_t db = statement_begin(k, decl), de = statement_end(k, decl), wb = statement_begin(k, w);
  size_t bb = k.offset(body->getLBracLoc()), sb = statement_begin(k, step), se = statement_end(k, step);
  size_t cb = 0, ce = 0, xb = 0, xe = 0;
  if (db == std::string::npos || de == std::string::npos || wb == std::string::npos || bb == std::string::npos ||
      sb == std::string::npos || se == std::string::npos || !k.file_span(w->getCond()->getSourceRange(), cb, ce) ||
      !k.span(step->getSourceRange(), xb, xe) || k.source().compare(wb, 5, "while") != 0)
    return false;
  const std::string &src = k.source();
  e.replace(db, de, "");
  e.replace(wb, bb,
            "for (" + src.substr(db, de - db) + " " + src.substr(cb, ce - cb) + "; " + src.substr(xb, xe - xb) + ") ");
  e.replace(sb, se, "");
  return true;
}

// The kernel's while loops written as for loops; nullopt when none is one.
Expected<std::optional<std::string>> while_round(const KernelAst &k) {
  Edits e;
  bool any = false;
  walk(k.kernel()->getBody(), [&](const Stmt *s) {
    if (const auto *block = dyn_cast<CompoundStmt>(s))
      for (size_t i = 0; i < block->size(); ++i)
        if (isa<WhileStmt>(block->body_begin()[i]) && while_as_for(k, block, i, e)) any = true;
  });
  if (!any) return std::optional<std::string>();
  auto text = e.apply(k.source());
  if (!text) return text.error();
  return std::optional<std::string>(*text);
}

// The lines of loop hints above loop `a` (`#pragma unroll`, `nounroll`,
// `clang loop`): from the first hint's line to the loop's line, when those
// lines hold only such pragmas, blank lines and `//` comments; false
// otherwise.
bool hint_lines(const KernelAst &k, const AttributedStmt *a, size_t &begin, size_t &end) {
  for (const Attr *attr : a->getAttrs())
    if (!isa<LoopHintAttr>(attr)) return false;
  const Stmt *loop = a->getSubStmt();
  if (!isa<ForStmt>(loop) && !isa<WhileStmt>(loop) && !isa<DoStmt>(loop) && !isa<CXXForRangeStmt>(loop)) return false;
  begin = statement_begin(k, a);
  size_t at = k.offset(loop->getBeginLoc());
  if (begin == std::string::npos || at == std::string::npos || at < begin) return false;
  const std::string &src = k.source();
  size_t line = src.rfind('\n', at);
  end = line == std::string::npos || line < begin ? begin : line + 1;
  for (size_t l = begin; l < end;) {
    size_t first = src.find_first_not_of(" \t", l), next = src.find('\n', l);
    bool blank = first == std::string::npos || first == next;
    if (!blank && src.compare(first, 7, "#pragma") != 0 && src.compare(first, 2, "//") != 0) return false;
    l = next == std::string::npos ? end : next + 1;
  }
  return end > begin;
}

// The kernel without the hints on its loops; nullopt when it has none. Hints
// only steer nvcc's unrolling: the loop computes the same without them.
Expected<std::optional<std::string>> hint_round(const KernelAst &k) {
  Edits e;
  bool any = false;
  walk(k.kernel()->getBody(), [&](const Stmt *s) {
    size_t b = 0, end = 0;
    if (const auto *a = dyn_cast<AttributedStmt>(s); a && hint_lines(k, a, b, end)) {
      e.replace(b, end, "");
      any = true;
    }
  });
  if (!any) return std::optional<std::string>();
  auto text = e.apply(k.source());
  if (!text) return text.error();
  return std::optional<std::string>(*text);
}

// An element of memory that a loop accumulates into: `P[E] = V;` (a
// statement of a block, P a pointer variable, E free of side effects,
// calls and loads), then the loop, a later statement of the same block.
struct Accumulator {
  const Stmt *store = nullptr;
  const ArraySubscriptExpr *element = nullptr;
  const VarDecl *pointer = nullptr;
  const Stmt *loop = nullptr;
  std::vector<const ArraySubscriptExpr *> uses; // P[E] in the loop
};

// The variables `e` names.
std::set<const VarDecl *> variables_of(const Stmt *e) {
  std::set<const VarDecl *> out;
  walk(e, [&](const Stmt *s) {
    if (const auto *ref = dyn_cast<DeclRefExpr>(s))
      if (const auto *v = dyn_cast<VarDecl>(ref->getDecl())) out.insert(v);
  });
  return out;
}

// Whether `e` has no call (but reads of threadIdx, blockIdx, blockDim and
// gridDim) and no assignment, increment or decrement.
bool plain_index(const Stmt *e) {
  if (!e) return true;
  if (const auto *x = dyn_cast<Expr>(e); x && as_builtin(x)) return true;
  if (isa<CallExpr>(e) || isa<CXXConstructExpr>(e)) return false;
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) return false;
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp()) return false;
  for (const Stmt *c : e->children())
    if (!plain_index(c)) return false;
  return true;
}

// `s` as `P[E] = V;` with P a pointer variable that the kernel never
// assigns, to an arithmetic, non-volatile element, and E free of side
// effects, calls and loads; nullopt otherwise.
std::optional<Accumulator> initial_store(const KernelAst &k, const Stmt *s) {
  const auto *set = dyn_cast<BinaryOperator>(s);
  const auto *sub =
      set && set->getOpcode() == BO_Assign ? dyn_cast<ArraySubscriptExpr>(set->getLHS()->IgnoreParens()) : nullptr;
  const VarDecl *p = sub ? var_of(sub->getBase()) : nullptr;
  if (!p || !p->getType()->isPointerType() || assigns(k.kernel()->getBody(), p)) return std::nullopt;
  QualType element = p->getType()->getPointeeType();
  if (!element->isArithmeticType() || element.isVolatileQualified() || !plain_index(sub->getIdx()) ||
      reads_memory(sub->getIdx()))
    return std::nullopt;
  Accumulator a;
  a.store = s;
  a.element = sub;
  a.pointer = p;
  return a;
}

// Whether `s` may run between the store and the loop: a declaration or an
// expression that does not name P, writes no memory, assigns none of E's
// variables and does not jump.
bool between(const Accumulator &a, const Stmt *s) {
  if (!isa<DeclStmt>(s) && !isa<Expr>(s)) return false;
  if (refers_to(s, a.pointer) || writes_memory(s)) return false;
  for (const VarDecl *v : variables_of(a.element->getIdx()))
    if (assigns(s, v)) return false;
  return true;
}

// Whether `loop` keeps P[E] in a register exactly: every reference to P in
// it is P[E], whose address it does not take; it writes no other memory and
// reads no memory through P's parameter or through a pointer the kernel
// assigns; it does not assign E's
// variables, return, jump out by goto, synchronize or use atomics, warp
// operations or calls kbcc cannot see. (Other pointer parameters are taken
// not to overlap P's elements, as by every structural transform.)
bool promotable(const KernelAst &k, Accumulator &a, const Stmt *loop) {
  const ASTContext &ctx = k.context();
  const Stmt *body = k.kernel()->getBody();
  Effects fx = effects_in(loop);
  bool jumps = false;
  walk(loop,
       [&](const Stmt *s) { jumps = jumps || isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s) || isa<LabelStmt>(s); });
  if (jumps || has_return(loop) || fx.barrier || fx.warp_ops || fx.atomics || fx.inline_asm || fx.device_launch ||
      fx.unknown_calls)
    return false;
  for (const VarDecl *v : variables_of(a.element->getIdx()))
    if (assigns(loop, v)) return false;
  const ParmVarDecl *root = root_parameter(a.element->getBase());
  auto is_use = [&](const Expr *e) {
    const auto *sub = dyn_cast<ArraySubscriptExpr>(e->IgnoreParens());
    return sub && names(sub->getBase(), a.pointer) && same_expr(sub->getIdx(), a.element->getIdx(), ctx);
  };
  bool ok = true;
  a.uses.clear();
  walk(loop, [&](const Stmt *s) {
    if (!ok) return;
    if (const auto *sub = dyn_cast<ArraySubscriptExpr>(s)) {
      if (is_use(sub)) {
        a.uses.push_back(sub);
        return;
      }
      const ParmVarDecl *r = sub->getBase()->getType()->isPointerType() ? root_parameter(sub->getBase()) : nullptr;
      if (sub->getBase()->getType()->isPointerType() && (!r || r == root)) ok = false;
    }
    if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_Deref) {
      const ParmVarDecl *r = root_parameter(u->getSubExpr());
      if (!r || r == root) ok = false;
    }
    if (const auto *ref = dyn_cast<DeclRefExpr>(s))
      if (const auto *v = dyn_cast<VarDecl>(ref->getDecl()); v && v->getType()->isPointerType() && assigns(body, v))
        ok = false;
    if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_AddrOf && is_use(u->getSubExpr()))
      ok = false; // the element's address outlives the register
    const Expr *lhs = nullptr;
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) lhs = b->getLHS();
    if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp()) lhs = u->getSubExpr();
    if (lhs && is_memory(lhs) && !is_use(lhs)) ok = false;
    if (const auto *call = dyn_cast<CallExpr>(s); call && writes_memory(call)) ok = false;
  });
  a.loop = loop;
  return ok && !a.uses.empty() && (int)a.uses.size() == references(loop, a.pointer);
}

// The accumulators of `block` whose loops hold no other's.
void block_accumulators(const KernelAst &k, const CompoundStmt *block, std::vector<Accumulator> &out) {
  for (size_t i = 0; i < block->size(); ++i) {
    auto a = initial_store(k, block->body_begin()[i]);
    if (!a) continue;
    for (size_t j = i + 1; j < block->size(); ++j) {
      const Stmt *s = block->body_begin()[j];
      bool loop = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s);
      if (loop && refers_to(s, a->pointer)) {
        if (promotable(k, *a, s)) out.push_back(*a);
        break;
      }
      if (!between(*a, s)) break;
    }
  }
}

// The kernel with each accumulator's element kept in a new local from its
// initial store to the end of its loop, where it is stored: `P[E] = V;`
// becomes `T P_acc_N = V;`, P[E] in the loop `P_acc_N`, and `P[E] =
// P_acc_N;` follows the loop. nullopt when there is none.
Expected<std::optional<std::string>> accumulator_round(const KernelAst &k) {
  std::vector<Accumulator> found;
  walk(k.kernel()->getBody(), [&](const Stmt *s) {
    if (const auto *block = dyn_cast<CompoundStmt>(s)) block_accumulators(k, block, found);
  });
  std::set<std::string> taken;
  identifiers(k.source(), taken);
  const std::string &src = k.source();
  Edits e;
  std::vector<const Stmt *> loops;
  bool any = false;
  for (const Accumulator &a : found) {
    bool nested = false;
    for (const Stmt *l : loops)
      walk(l, [&](const Stmt *s) { nested = nested || s == a.store; });
    size_t sb = statement_begin(k, a.store), se = statement_end(k, a.store), le = statement_end(k, a.loop);
    size_t eb = 0, ee = 0, vb = 0, ve = 0;
    const Expr *value = cast<BinaryOperator>(a.store)->getRHS();
    if (nested || sb == std::string::npos || se == std::string::npos || le == std::string::npos ||
        !k.span(a.element->getSourceRange(), eb, ee) || !span_of(k, value, vb, ve))
      continue;
    std::vector<std::pair<size_t, size_t>> uses;
    for (const ArraySubscriptExpr *u : a.uses) {
      size_t ub = 0, ue = 0;
      if (!k.span(u->getSourceRange(), ub, ue)) break;
      uses.emplace_back(ub, ue);
    }
    if (uses.size() != a.uses.size()) continue;
    std::string name = fresh(a.pointer->getName().str() + "_acc", taken);
    std::string type = type_text(a.pointer->getType()->getPointeeType().getUnqualifiedType(), k.context());
    e.replace(sb, se, type.append(" ").append(name).append(" = ").append(src, vb, ve - vb).append(";"));
    for (const auto &[ub, ue] : uses)
      e.replace(ub, ue, name);
    e.replace(le, le, "\n" + src.substr(eb, ee - eb) + " = " + name + ";");
    loops.push_back(a.loop);
    any = true;
  }
  if (!any) return std::optional<std::string>();
  auto text = e.apply(k.source());
  if (!text) return text.error();
  return std::optional<std::string>(*text);
}

} // namespace

Expected<KernelAst> normal_form(const KernelAst &k) {
  std::optional<KernelAst> current;
  const KernelAst *at = &k;
  auto step = [&](const std::optional<std::string> &text) -> Status {
    auto parsed = at->reparsed(*text);
    if (!parsed) return not_applicable("its normal form does not parse: " + parsed.error().message);
    current.emplace(std::move(*parsed));
    at = &*current;
    return Status();
  };
  auto hints = hint_round(*at);
  if (!hints) return not_applicable(hints.error().message);
  if (*hints)
    if (Status ok = step(*hints); !ok) return ok.error();
  for (int round = 0; round < kRounds; ++round) {
    auto text = inline_round(*at);
    if (!text) return not_applicable(text.error().message);
    if (!*text) break;
    if (Status ok = step(*text); !ok) return ok.error();
  }
  auto loops = while_round(*at);
  if (!loops) return not_applicable(loops.error().message);
  if (*loops)
    if (Status ok = step(*loops); !ok) return ok.error();
  auto registers = accumulator_round(*at);
  if (!registers) return not_applicable(registers.error().message);
  if (*registers)
    if (Status ok = step(*registers); !ok) return ok.error();
  if (!current)
    return make_error(
        "no loop hint, nothing to inline, no while loop to write as a for loop and no accumulator in memory",
        "no-form");
  return std::move(*current);
}

} // namespace kbcc::transform

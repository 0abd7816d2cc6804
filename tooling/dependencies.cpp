#include "tooling/dependencies.h"

#include "tooling/source_range.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <deque>

namespace kbcc::tooling {
using namespace clang;

namespace {

class Collector;

// Visits one body (or initializer) and reports what it references.
class BodyVisitor : public RecursiveASTVisitor<BodyVisitor> {
public:
  explicit BodyVisitor(Collector &c) : c_(c) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitDeclRefExpr(DeclRefExpr *e);
  bool VisitMemberExpr(MemberExpr *e);
  bool VisitCallExpr(CallExpr *e);
  bool VisitCXXConstructExpr(CXXConstructExpr *e);
  bool VisitCXXNewExpr(CXXNewExpr *e);
  bool VisitCXXDeleteExpr(CXXDeleteExpr *e);
  bool VisitOverloadExpr(OverloadExpr *e);
  bool VisitExpr(Expr *e);
  bool VisitValueDecl(ValueDecl *d);
  bool VisitTypeLoc(TypeLoc tl);

private:
  Collector &c_;
};

class Collector {
public:
  Collector(ASTContext &context) : ctx_(context), sm_(context.getSourceManager()) {}

  void add_function(const FunctionDecl *fd) {
    if (!fd || !seen_.insert(fd->getCanonicalDecl()).second) return;
    if (in_system_header(fd, sm_)) {
      deps_.system_functions.push_back(fd);
      if (const TemplateArgumentList *args = fd->getTemplateSpecializationArgs())
        for (const TemplateArgument &a : args->asArray())
          add_argument(a);
      return;
    }
    const FunctionDecl *def = fd->getDefinition();
    deps_.functions.push_back(def ? def : fd);
    add_type(fd->getType());
    if (const auto *md = dyn_cast<CXXMethodDecl>(fd)) add_record(md->getParent());
    pending_.push_back(def ? def : fd);
  }

  void add_variable(const VarDecl *vd) {
    if (!vd || !vd->hasGlobalStorage() || vd->isStaticLocal()) return;
    if (!seen_.insert(vd->getCanonicalDecl()).second) return;
    add_type(vd->getType());
    if (in_system_header(vd, sm_)) return;
    const VarDecl *def = vd->getDefinition();
    deps_.variables.push_back(def ? def : vd);
    if (const Expr *init = (def ? def : vd)->getInit()) walk(const_cast<Expr *>(init));
  }

  void add_type(QualType t) {
    if (t.isNull()) return;
    const Type *ty = t.getTypePtr();
    if (!seen_types_.insert(ty).second) return;
    if (const auto *td = ty->getAs<TypedefType>()) add_typedef(td->getDecl());
    if (const auto *tst = ty->getAs<TemplateSpecializationType>())
      for (const TemplateArgument &a : tst->template_arguments())
        add_argument(a);
    QualType inner = t.getCanonicalType();
    if (inner->isPointerType() || inner->isReferenceType()) return add_type(inner->getPointeeType());
    if (const ArrayType *at = ctx_.getAsArrayType(inner)) return add_type(at->getElementType());
    if (const auto *ft = inner->getAs<FunctionProtoType>()) {
      add_type(ft->getReturnType());
      for (QualType p : ft->param_types())
        add_type(p);
      return;
    }
    if (const auto *mp = inner->getAs<MemberPointerType>()) return add_type(mp->getPointeeType());
    if (const TagDecl *tag = inner->getAsTagDecl()) add_tag(tag);
  }

  void run() {
    while (!pending_.empty()) {
      const FunctionDecl *fd = pending_.front();
      pending_.pop_front();
      for (const ParmVarDecl *p : fd->parameters())
        add_type(p->getType());
      if (Stmt *body = fd->getBody()) walk(body);
      if (const auto *ctor = dyn_cast<CXXConstructorDecl>(fd))
        for (const CXXCtorInitializer *init : ctor->inits())
          if (init->getInit()) walk(init->getInit());
    }
  }

  void walk(Stmt *s) { BodyVisitor(*this).TraverseStmt(s); }
  Dependencies take() { return std::move(deps_); }
  ASTContext &context() { return ctx_; }

private:
  void add_argument(const TemplateArgument &a) {
    if (a.getKind() == TemplateArgument::Type) add_type(a.getAsType());
    if (a.getKind() == TemplateArgument::Declaration) {
      if (const auto *fd = dyn_cast<FunctionDecl>(a.getAsDecl())) add_function(fd);
      if (const auto *vd = dyn_cast<VarDecl>(a.getAsDecl())) add_variable(vd);
    }
    if (a.getKind() == TemplateArgument::Pack)
      for (const TemplateArgument &p : a.pack_elements())
        add_argument(p);
  }

  void add_typedef(const TypedefNameDecl *td) {
    if (!seen_.insert(td->getCanonicalDecl()).second) return;
    add_type(td->getUnderlyingType());
    if (!in_system_header(td, sm_)) deps_.types.push_back(td);
  }

  void add_tag(const TagDecl *tag) {
    if (const auto *rd = dyn_cast<CXXRecordDecl>(tag)) return add_record(rd);
    const TagDecl *def = tag->getDefinition();
    if (!def || !seen_.insert(def->getCanonicalDecl()).second) return;
    if (!in_system_header(def, sm_)) deps_.types.push_back(def);
  }

  void add_record(const CXXRecordDecl *rd) {
    if (!rd) return;
    const CXXRecordDecl *def = rd->getDefinition();
    if (!def || !seen_.insert(def->getCanonicalDecl()).second) return;
    if (const auto *spec = dyn_cast<ClassTemplateSpecializationDecl>(def))
      for (const TemplateArgument &a : spec->getTemplateArgs().asArray())
        add_argument(a);
    if (in_system_header(def, sm_)) return;
    deps_.types.push_back(def);
    for (const CXXBaseSpecifier &b : def->bases())
      add_type(b.getType());
    for (const FieldDecl *f : def->fields())
      add_type(f->getType());
    for (const Decl *d : def->decls())
      if (const auto *vd = dyn_cast<VarDecl>(d)) add_variable(vd);
    if (const CXXDestructorDecl *dtor = def->getDestructor()) add_function(dtor);
    for (const CXXMethodDecl *m : def->methods()) {
      const FunctionDecl *body = m->getDefinition();
      if (body && body->isOutOfLine() && body->hasAttr<CUDADeviceAttr>()) add_function(body);
    }
  }

  ASTContext &ctx_;
  const SourceManager &sm_;
  std::set<const Decl *> seen_;
  std::set<const Type *> seen_types_;
  std::deque<const FunctionDecl *> pending_;
  Dependencies deps_;
};

bool BodyVisitor::VisitDeclRefExpr(DeclRefExpr *e) {
  if (auto *fd = dyn_cast<FunctionDecl>(e->getDecl())) c_.add_function(fd);
  if (auto *vd = dyn_cast<VarDecl>(e->getDecl())) c_.add_variable(vd);
  if (auto *ec = dyn_cast<EnumConstantDecl>(e->getDecl()))
    c_.add_type(c_.context().getTypeDeclType(cast<EnumDecl>(ec->getDeclContext())));
  return true;
}
bool BodyVisitor::VisitMemberExpr(MemberExpr *e) {
  if (auto *fd = dyn_cast<FunctionDecl>(e->getMemberDecl())) c_.add_function(fd);
  if (auto *vd = dyn_cast<VarDecl>(e->getMemberDecl())) c_.add_variable(vd);
  return true;
}
bool BodyVisitor::VisitCallExpr(CallExpr *e) {
  if (auto *fd = e->getDirectCallee()) c_.add_function(fd);
  return true;
}
bool BodyVisitor::VisitCXXConstructExpr(CXXConstructExpr *e) {
  c_.add_function(e->getConstructor());
  return true;
}
bool BodyVisitor::VisitCXXNewExpr(CXXNewExpr *e) {
  c_.add_function(e->getOperatorNew());
  return true;
}
bool BodyVisitor::VisitCXXDeleteExpr(CXXDeleteExpr *e) {
  c_.add_function(e->getOperatorDelete());
  return true;
}
bool BodyVisitor::VisitOverloadExpr(OverloadExpr *e) {
  for (NamedDecl *d : e->decls()) {
    NamedDecl *u = d->getUnderlyingDecl();
    if (auto *fd = dyn_cast<FunctionDecl>(u)) c_.add_function(fd);
    if (auto *ft = dyn_cast<FunctionTemplateDecl>(u)) c_.add_function(ft->getTemplatedDecl());
  }
  return true;
}
bool BodyVisitor::VisitExpr(Expr *e) {
  c_.add_type(e->getType());
  return true;
}
bool BodyVisitor::VisitValueDecl(ValueDecl *d) {
  c_.add_type(d->getType());
  return true;
}
bool BodyVisitor::VisitTypeLoc(TypeLoc tl) {
  c_.add_type(tl.getType());
  return true;
}

} // namespace

Dependencies collect_dependencies(const FunctionDecl *kernel, ASTContext &context) {
  Collector c(context);
  for (const ParmVarDecl *p : kernel->parameters())
    c.add_type(p->getType());
  if (const TemplateArgumentList *args = kernel->getTemplateSpecializationArgs())
    for (const TemplateArgument &a : args->asArray())
      if (a.getKind() == TemplateArgument::Type) c.add_type(a.getAsType());
  if (Stmt *body = kernel->getBody()) c.walk(body);
  c.run();
  return c.take();
}

} // namespace kbcc::tooling

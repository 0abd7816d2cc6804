// register_blocking: smem_tiling with a micro-tile of outputs per thread. A
// block of (tile/micro)^2 threads computes a tile x tile block of outputs;
// per step of `bk` values of k it stages the (row, k) operand transposed and
// the (k, col) operand in shared memory, then every thread updates its
// micro x micro accumulators from registers: micro^2 multiply-adds for
// 2 * micro shared-memory reads instead of one for two. The micro-tile is
// `blocked` (a thread owns micro consecutive rows and columns: its shared
// reads are contiguous and can be vectorized) or `strided` (rows and columns
// tile/micro apart: a warp's stores are contiguous). The global reads of a
// stage go to registers while the previous stage is multiplied, and to shared
// memory after it. Each output's sum keeps its order (k ascending): results
// are bit-identical.
//
// Legal when analyze_tiling accepts the kernel (tiling_analysis.h) and
// moreover: the statements before the loop are declarations, each of the
// output index variables, of an accumulator whose initializer depends on
// neither index or reads memory (then read for in-range outputs only), of
// a variable that depends on neither index and that no later statement
// assigns, or of a variable computed from the indexes without reading memory
// or side effects that nothing assigns (a row's pointer
// `const float *a = A + row * n;`: declared again wherever the indexes are);
// the shared loads read only parameters, the output indexes, the loop
// variable and those variables, and a load of one operand no variable that
// depends on the other's index; the statements after the loop do not return.
#include "cache/variant.h"
#include "transform/edits.h"
#include "transform/tiling_analysis.h"
#include "transform/transform.h"

#include <algorithm>
#include <functional>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

struct Blocking {
  TilingPlan plan;
  std::vector<const VarDecl *> accumulators; // declared before the loop, each with an initializer
  std::vector<std::string> uniform;          // declarations kept at the top, in order
  // Variables computed from the output indexes (`const float *a = A + row * n;`),
  // in order, each declared alone: written again after each declaration of the indexes.
  std::vector<std::pair<const VarDecl *, std::string>> derived;
  bool mask_body = false;                    // the loop body reads memory that depends on an output index
};

bool is_accumulator(const TilingPlan &p, const VarDecl *v) {
  for (const Accumulation &a : p.accs)
    if (a.var == v) return true;
  return false;
}

// Every variable `e` names is a parameter, one of `allowed`, or not a variable.
bool reads_only(const Stmt *e, const std::set<const VarDecl *> &allowed) {
  if (!e) return true;
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    if (const auto *v = dyn_cast<VarDecl>(ref->getDecl()))
      if (!isa<ParmVarDecl>(v) && !allowed.count(v) && v->hasLocalStorage()) return false;
  for (const Stmt *c : e->children())
    if (!reads_only(c, allowed)) return false;
  return true;
}

// Whether the loop body reads memory, other than the shared loads, at an
// address that depends on an output index (out of range for masked outputs).
bool row_dependent_reads(const TilingPlan &p) {
  std::set<const Expr *> tiled;
  for (const TileLoad &l : p.loads)
    tiled.insert(l.expr);
  bool found = false;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || found) return;
    if (const auto *c = dyn_cast<ImplicitCastExpr>(s); c && c->getCastKind() == CK_LValueToRValue) {
      const Expr *lv = c->getSubExpr()->IgnoreParenImpCasts();
      if (!tiled.count(lv) && reads_memory(c) && (depends_on(lv, p.row) || depends_on(lv, p.col))) found = true;
    }
    if (const auto *call = dyn_cast<CallExpr>(s); call && reads_memory(call)) found = true;
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(p.loop.loop->getBody());
  return found;
}

// `v` declared alone (`int k;`, `float s = 0.5f;`), for a declaration that
// also declares indexes or accumulators; "" when its type or initializer
// cannot be written apart (arrays, braced initializers, text in a macro).
std::string declared_alone(const KernelAst &k, const VarDecl *v) {
  if (!v->getType()->isScalarType() || v->isStaticLocal() || (v->getInit() && isa<InitListExpr>(v->getInit())))
    return "";
  std::string init = v->getInit() ? k.text(v->getInit()->getSourceRange()) : "";
  if (v->getInit() && (init.empty() || v->getInitStyle() != VarDecl::CInit)) return "";
  return v->getType().getAsString() + " " + v->getName().str() + (init.empty() ? "" : " = " + init) + ";";
}

// Why `v`, whose initializer depends on an output index, cannot be declared
// again wherever the indexes are ("" when it can): its initializer must read
// only `allowed` variables and no memory, have no side effects, and nothing
// in the kernel may assign `v`.
std::string underivable(const KernelAst &k, const VarDecl *v, const std::set<const VarDecl *> &allowed) {
  const Expr *init = v->getInit();
  std::string name = "variable '" + v->getName().str() + "'";
  if (reads_memory(init) || init->HasSideEffects(k.context()))
    return name + " depends on the output's row or column and reads memory";
  if (!reads_only(init, allowed))
    return name + " depends on the output's row or column and on a variable other than the indexes and parameters";
  if (assigns(k.kernel()->getBody(), v)) return name + " depends on the output's row or column and is assigned";
  if (declared_alone(k, v).empty()) return name + " depends on the output's row or column and cannot be declared apart";
  return "";
}

Expected<Blocking> analyze(const KernelAst &k) {
  auto p = analyze_tiling(k);
  if (!p) return p.error();
  Blocking b;
  b.plan = *p;
  std::set<const VarDecl *> allowed{p->row, p->col, p->loop.var};
  for (const Stmt *st : p->before) {
    if (isa<NullStmt>(st)) continue;
    const auto *d = dyn_cast<DeclStmt>(st);
    if (!d) return not_applicable("a statement before the reduction loop is not a declaration");
    int index = 0, acc = 0;
    std::vector<const VarDecl *> other;
    for (const Decl *decl : d->decls()) {
      const auto *v = dyn_cast<VarDecl>(decl);
      if (!v) return not_applicable("a declaration before the reduction loop is not a variable");
      if (v == p->row || v == p->col) {
        ++index;
        continue;
      }
      const Expr *init = v->getInit();
      bool indexed = init && !p->loads_init(v) && (depends_on(init, p->row) || depends_on(init, p->col));
      if (indexed && is_accumulator(*p, v))
        return not_applicable("accumulator '" + v->getName().str() + "' depends on the output's row or column");
      if (indexed) {
        if (std::string why = underivable(k, v, allowed); !why.empty()) return not_applicable(why);
        b.derived.emplace_back(v, declared_alone(k, v));
        allowed.insert(v);
        continue;
      }
      if (is_accumulator(*p, v)) {
        if (!init) return not_applicable("accumulator '" + v->getName().str() + "' has no initializer");
        b.accumulators.push_back(v);
        ++acc;
        continue;
      }
      for (const Stmt *a : p->after)
        if (assigns(a, v)) return not_applicable("variable '" + v->getName().str() + "' is assigned after the loop");
      allowed.insert(v);
      other.push_back(v);
    }
    if (other.empty()) continue;
    // Declared with indexes or accumulators, the others are written apart.
    if (index == 0 && acc == 0) {
      size_t x = 0, y = 0;
      if (!k.span(st->getSourceRange(), x, y)) return not_applicable("a declaration is written in a macro");
      b.uniform.push_back(k.source().substr(x, past_semicolon(k.source(), y) - x));
      continue;
    }
    for (const VarDecl *v : other) {
      if (v == p->loop.var) continue; // the loop declares it again
      for (const Accumulation &a : p->accs)
        if (v->getInit() && refers_to(v->getInit(), a.var))
          return not_applicable("variable '" + v->getName().str() + "' is initialized from an accumulator");
      std::string alone = declared_alone(k, v);
      if (alone.empty())
        return not_applicable("variable '" + v->getName().str() +
                              "' is declared with the indexes or accumulators and cannot be declared apart");
      b.uniform.push_back(alone);
    }
  }
  if (b.accumulators.size() != p->accs.size()) {
    std::set<const VarDecl *> distinct;
    for (const Accumulation &a : p->accs)
      distinct.insert(a.var);
    if (distinct.size() != b.accumulators.size())
      return not_applicable("an accumulator is not declared at the top of the kernel");
  }
  for (const TileLoad &l : p->loads) {
    if (!reads_only(l.expr, allowed))
      return not_applicable("a shared load reads a variable other than the indexes, parameters and constants");
    for (const auto &[v, decl] : b.derived)
      if (refers_to(l.expr, v) && depends_on(v->getInit(), l.operand == 'A' ? p->col : p->row))
        return not_applicable("a shared load reads '" + v->getName().str() + "', which depends on the other index");
  }
  for (const Stmt *a : p->after)
    if (has_return(a) || has_break_or_goto(a)) return not_applicable("a statement after the loop returns or jumps");
  b.mask_body = row_dependent_reads(*p);
  return b;
}

// One search point: a tile x tile block, micro x micro outputs per thread,
// bk values of k per shared-memory stage, blocked or strided micro-tiles.
struct Shape {
  long tile = 64, micro = 4, bk = 16;
  bool blocked = true;
  long side() const { return tile / micro; } // threads per block side
};

Expected<Shape> shape_of(const Params &params) {
  Shape s;
  auto it = params.find("shape");
  std::string v = it == params.end() ? "64x4x16" : it->second;
  if (std::sscanf(v.c_str(), "%ldx%ldx%ld", &s.tile, &s.micro, &s.bk) != 3)
    return not_applicable("shape '" + v + "' is not TILExMICROxBK");
  auto m = params.find("map");
  s.blocked = m == params.end() || m->second != "strided";
  long threads = s.side() * s.side();
  bool pow2 = (s.tile & (s.tile - 1)) == 0 && (s.micro & (s.micro - 1)) == 0 && (s.bk & (s.bk - 1)) == 0;
  if (!pow2 || s.micro < 1 || s.micro > 8 || s.tile % s.micro || threads < 32 || threads > 1024 || s.bk < 4 ||
      s.bk > 64)
    return not_applicable("shape '" + v + "' is out of range");
  return s;
}

std::string type_of(const VarDecl *v) { return v->getType().getUnqualifiedType().getAsString(); }

struct Generator {
  const KernelAst &k;
  const Blocking &b;
  const Shape &s;
  std::string T, M, BK, S; // tile, micro, bk, side as text
  std::string in_range;    // the loop variable is inside the loop's range

  Generator(const KernelAst &k, const Blocking &b, const Shape &s)
      : k(k), b(b), s(s), T(std::to_string(s.tile)), M(std::to_string(s.micro)), BK(std::to_string(s.bk)),
        S(std::to_string(s.side())) {
    const CountedLoop &l = b.plan.loop;
    in_range = l.var->getName().str() + (l.inclusive ? " <= " : " < ") + "(" + k.text(l.bound->getSourceRange()) + ")";
  }

  // Position of output i (rows) or j (columns) of this thread inside the tile.
  std::string local(const std::string &thread, const std::string &i) const {
    return s.blocked ? "(" + thread + " * " + M + " + " + i + ")" : "(" + thread + " + " + i + " * " + S + ")";
  }
  // Declarations of the output indexes for micro-tile position (i, j), then
  // `more` (the derived variables the code after them reads).
  std::string indexes(const char *i, const char *j, const std::string &more = "") const {
    const TilingPlan &p = b.plan;
    return "const " + type_of(p.row) + " " + p.row->getName().str() + " = (" + type_of(p.row) + ")(blockIdx.y * " + T +
           "u + " + local("__kbcc_ty", i) + "); const " + type_of(p.col) + " " + p.col->getName().str() + " = (" +
           type_of(p.col) + ")(blockIdx.x * " + T + "u + " + local("__kbcc_tx", j) + "); (void)" +
           p.row->getName().str() + "; (void)" + p.col->getName().str() + ";" + more;
  }
  // The declarations of the derived variables that `code` reads outside the
  // shared loads (with those their initializers read), in order.
  std::string derived_for(const std::vector<const Stmt *> &code) const {
    std::set<const Expr *> loads;
    for (const TileLoad &l : b.plan.loads)
      loads.insert(l.expr);
    std::set<const VarDecl *> used;
    std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
      if (!s || (isa<Expr>(s) && loads.count(cast<Expr>(s)))) return;
      if (const auto *ref = dyn_cast<DeclRefExpr>(s))
        if (const auto *v = dyn_cast<VarDecl>(ref->getDecl())) used.insert(v);
      for (const Stmt *c : s->children())
        visit(c);
    };
    for (const Stmt *s : code)
      visit(s);
    return declarations(used);
  }
  // The declarations of the derived variables in `used`, and of those their
  // initializers read, in order.
  std::string declarations(std::set<const VarDecl *> used) const {
    for (auto d = b.derived.rbegin(); d != b.derived.rend(); ++d)
      if (used.count(d->first))
        walk(d->first->getInit(), [&](const Stmt *s) {
          if (const auto *ref = dyn_cast<DeclRefExpr>(s))
            if (const auto *v = dyn_cast<VarDecl>(ref->getDecl())) used.insert(v);
        });
    std::string out;
    for (const auto &[v, decl] : b.derived)
      if (used.count(v)) out += " " + decl;
    return out;
  }
  // The declarations of the derived variables operand's load reads.
  std::string derived_for_load(char operand) const {
    std::set<const VarDecl *> used;
    for (const TileLoad &l : b.plan.loads)
      if (l.operand == operand)
        for (const auto &[v, decl] : b.derived)
          if (refers_to(l.expr, v)) used.insert(v);
    return declarations(used);
  }

  // References named like the accumulators, to their (i, j) elements.
  std::string aliases() const {
    std::string out;
    for (size_t a = 0; a < b.accumulators.size(); ++a)
      out += " " + type_of(b.accumulators[a]) + " &" + b.accumulators[a]->getName().str() + " = __kbcc_acc" +
             std::to_string(a) + "[__kbcc_i][__kbcc_j];";
    return out;
  }
  std::string loop_var_decl(const std::string &offset, const std::string &base = "__kbcc_k0") const {
    const CountedLoop &l = b.plan.loop;
    return "const " + type_of(l.var) + " " + l.var->getName().str() + " = " + base + " + (" + type_of(l.var) + ")(" +
           offset + ");";
  }
  std::string tile_type(char operand) const {
    for (const TileLoad &l : b.plan.loads)
      if (l.operand == operand) return l.expr->getType().getUnqualifiedType().getAsString();
    return {};
  }
  std::string load_text(char operand) const {
    for (const TileLoad &l : b.plan.loads)
      if (l.operand == operand) return k.text(l.expr->getSourceRange());
    return {};
  }

  // The loop body with the shared loads read from the tiles.
  Expected<std::string> body() const {
    const std::string &src = k.source();
    const Stmt *lb = b.plan.loop.loop->getBody();
    size_t bb = 0, be = 0;
    if (!k.span(lb->getSourceRange(), bb, be)) return not_applicable("the loop is written in a macro");
    be = past_semicolon(src, be);
    Edits e;
    std::string a_text = load_text('A'), b_text = load_text('B');
    for (const TileLoad &l : b.plan.loads) {
      size_t x = 0, y = 0;
      if (!k.span(l.expr->getSourceRange(), x, y)) return not_applicable("a load is written in a macro");
      if (src.substr(x, y - x) != (l.operand == 'A' ? a_text : b_text))
        return not_applicable("the loop reads two different operands along one axis");
      e.replace(x - bb, y - bb, l.operand == 'A' ? "__kbcc_Af[__kbcc_i]" : "__kbcc_Bf[__kbcc_j]");
    }
    return e.apply(src.substr(bb, be - bb));
  }

  // The statements from the first one after the loop to the end of the body.
  Expected<std::string> after() const {
    size_t ab = 0, ae = 0;
    if (!k.span(b.plan.after.front()->getSourceRange(), ab, ae))
      return not_applicable("a statement is written in a macro");
    size_t close = k.offset(b.plan.scope->getRBracLoc());
    return k.source().substr(ab, close - ab);
  }

  // Declares this thread's fragment of the operand's tile at step __kbcc_kk
  // (`__kbcc_Af[M]`: its micro-tile's rows of A; `__kbcc_Bf[M]`: columns of
  // B) and reads it from shared memory: every micro x micro update then reads
  // registers only (and a blocked map's reads are contiguous, which ptxas
  // merges into vector loads).
  std::string fragment(char operand) const {
    if (load_text(operand).empty()) return {};
    bool a = operand == 'A';
    std::string f = a ? "__kbcc_Af" : "__kbcc_Bf", t = a ? "__kbcc_At" : "__kbcc_Bt";
    return "        " + tile_type(operand) + " " + f + "[" + M + "];\n        #pragma unroll\n" +
           "        for (int __kbcc_v = 0; __kbcc_v < " + M + "; ++__kbcc_v) " + f + "[__kbcc_v] = " + t +
           "[__kbcc_kk][" + local(a ? "__kbcc_ty" : "__kbcc_tx", "__kbcc_v") + "];\n";
  }

  // Elements of one operand's stage that each thread moves, and whether
  // every thread moves that many (the stage divides by the block's threads).
  long per_thread() const { return (s.tile * s.bk + s.side() * s.side() - 1) / (s.side() * s.side()); }
  bool even() const { return s.tile * s.bk % (s.side() * s.side()) == 0; }

  // The element of the stage this thread moves at __kbcc_p and its (r, c),
  // opening a block the caller closes. A: element e is (r = e / bk,
  // c = e % bk), stored transposed at [c][r]; B: element e is (r = e / tile,
  // c = e % tile) at [r][c]. Consecutive threads read consecutive k (A) or
  // columns (B).
  std::string element(char operand) const {
    bool a = operand == 'A';
    std::string r = a ? "__kbcc_e / " + BK + "u" : "__kbcc_e / " + T + "u";
    std::string c = a ? "__kbcc_e % " + BK + "u" : "__kbcc_e % " + T + "u";
    return "    #pragma unroll\n    for (int __kbcc_p = 0; __kbcc_p < " + std::to_string(per_thread()) +
           "; ++__kbcc_p) {\n      const unsigned __kbcc_e = __kbcc_ty * " + S + "u + __kbcc_tx + __kbcc_p * " + S +
           "u * " + S + "u;\n      const unsigned __kbcc_r = " + r + ", __kbcc_c = " + c + ";\n";
  }

  // Reads this thread's elements of the operand's stage at k0 = `base` into
  // registers (`__kbcc_Ap`, `__kbcc_Bp`); elements outside the matrix or the
  // loop's range read nothing and stage 0.
  std::string prefetch(char operand, const std::string &base) const {
    const TilingPlan &p = b.plan;
    std::string text = load_text(operand);
    if (text.empty()) return {};
    bool a = operand == 'A';
    const VarDecl *idx = a ? p.row : p.col;
    std::string type = tile_type(operand);
    std::string ok = working(k, p, a ? p.row_terms : p.col_terms);
    std::string inside = even() ? "" : "__kbcc_e < " + T + "u * " + BK + "u && ";
    return element(operand) + "      const " + type_of(idx) + " " + idx->getName().str() + " = (" + type_of(idx) +
           ")(blockIdx." + (a ? "y" : "x") + " * " + T + "u + " + (a ? "__kbcc_r" : "__kbcc_c") + ");" +
           derived_for_load(operand) + "\n      " + loop_var_decl(a ? "__kbcc_c" : "__kbcc_r", base) +
           "\n      __kbcc_" + operand + "p[__kbcc_p] = (" + inside + "(" + ok + ") && " + in_range + ") ? (" + type +
           ")(" + text + ") : (" + type + ")0;\n    }\n";
  }

  // Writes the registers prefetch read into the operand's shared tile.
  std::string store(char operand) const {
    if (load_text(operand).empty()) return {};
    std::string dst = operand == 'A' ? "__kbcc_At[__kbcc_c][__kbcc_r]" : "__kbcc_Bt[__kbcc_r][__kbcc_c]";
    std::string inside = even() ? "" : "if (__kbcc_e < " + T + "u * " + BK + "u) ";
    return element(operand) + "      " + inside + dst + " = __kbcc_" + operand + "p[__kbcc_p];\n    }\n";
  }

  // Declares accumulator v's micro-tile `arr` and sets each element to v's
  // initial value; one that reads memory is read for in-range outputs only.
  std::string accumulator_init(const VarDecl *v, const std::string &arr) const {
    std::string type = type_of(v);
    std::string init = "(" + type + ")(" + k.text(v->getInit()->getSourceRange()) + ")";
    std::string out = "  " + type + " " + arr + "[" + M + "][" + M + "];\n  #pragma unroll\n" +
                      "  for (int __kbcc_i = 0; __kbcc_i < " + M + "; ++__kbcc_i)\n    #pragma unroll\n" +
                      "    for (int __kbcc_j = 0; __kbcc_j < " + M + "; ++__kbcc_j) ";
    if (!b.plan.loads_init(v)) return out + arr + "[__kbcc_i][__kbcc_j] = " + init + ";\n";
    return out + "{\n      " + indexes("__kbcc_i", "__kbcc_j", derived_for({v->getInit()})) + "\n      " + arr +
           "[__kbcc_i][__kbcc_j] = (__kbcc_rok[__kbcc_i] && __kbcc_cok[__kbcc_j]) ? " + init + " : (" + type +
           ")0;\n    }\n";
  }

  Expected<std::string> kernel_body() const {
    const TilingPlan &p = b.plan;
    auto inner = body();
    if (!inner) return inner.error();
    auto tail = after();
    if (!tail) return tail.error();
    std::string out = "{\n";
    for (char op : {'A', 'B'})
      if (!load_text(op).empty())
        out += "  __shared__ __align__(16) " + tile_type(op) + " __kbcc_" + op + "t[" + BK + "][" + T + " + 4];\n";
    if (!p.uniform_terms.empty()) out += "  if (!(" + working(k, p, p.uniform_terms) + ")) return;\n";
    for (const std::string &decl : b.uniform)
      out += "  " + decl + "\n";
    out += "  const unsigned __kbcc_tx = threadIdx.x, __kbcc_ty = threadIdx.y;\n";
    std::vector<const Stmt *> terms(p.row_terms.begin(), p.row_terms.end());
    terms.insert(terms.end(), p.col_terms.begin(), p.col_terms.end());
    out += "  bool __kbcc_rok[" + M + "], __kbcc_cok[" + M +
           "];\n  #pragma unroll\n  for (int __kbcc_i = 0; __kbcc_i < " + M +
           "; ++__kbcc_i) {\n    const int __kbcc_j = __kbcc_i;\n    " +
           indexes("__kbcc_i", "__kbcc_j", derived_for(terms)) +
           "\n    __kbcc_rok[__kbcc_i] = " + working(k, p, p.row_terms) +
           ";\n    __kbcc_cok[__kbcc_j] = " + working(k, p, p.col_terms) + ";\n  }\n";
    for (size_t a = 0; a < b.accumulators.size(); ++a) {
      const VarDecl *v = b.accumulators[a];
      out += accumulator_init(v, "__kbcc_acc" + std::to_string(a));
    }
    const CountedLoop &l = p.loop;
    std::string init = k.text(l.init->getSourceRange()), bound = k.text(l.bound->getSourceRange());
    // Each stage's global reads are issued before the previous stage's
    // products, so that their latency overlaps them.
    for (char op : {'A', 'B'})
      if (!load_text(op).empty())
        out += "  " + tile_type(op) + " __kbcc_" + op + "p[" + std::to_string(per_thread()) + "];\n";
    out += "  {\n  const " + type_of(l.var) + " __kbcc_k1 = " + init + ";\n" + prefetch('A', "__kbcc_k1") +
           prefetch('B', "__kbcc_k1") + "  }\n";
    out += "  for (" + type_of(l.var) + " __kbcc_k0 = " + init + "; __kbcc_k0" + (l.inclusive ? " <= " : " < ") + "(" +
           bound + "); __kbcc_k0 += " + BK + ") {\n" + store('A') + store('B') + "    __syncthreads();\n    {\n" +
           "    const " + type_of(l.var) + " __kbcc_k1 = __kbcc_k0 + " + BK + ";\n" + prefetch('A', "__kbcc_k1") +
           prefetch('B', "__kbcc_k1") + "    }\n";
    out += "    #pragma unroll\n    for (int __kbcc_kk = 0; __kbcc_kk < " + BK + "; ++__kbcc_kk) {\n      " +
           loop_var_decl("__kbcc_kk") + "\n      if (" + in_range + ") {\n" + fragment('A') + fragment('B') +
           "        #pragma unroll\n" + "        for (int __kbcc_i = 0; __kbcc_i < " + M +
           "; ++__kbcc_i)\n        #pragma unroll\n" + "        for (int __kbcc_j = 0; __kbcc_j < " + M +
           "; ++__kbcc_j) {\n          " + indexes("__kbcc_i", "__kbcc_j", derived_for({p.loop.loop->getBody()})) +
           aliases() + "\n          " + (b.mask_body ? "if (__kbcc_rok[__kbcc_i] && __kbcc_cok[__kbcc_j]) " : "") +
           *inner + "\n        }\n      }\n    }\n    __syncthreads();\n  }\n";
    out += "  #pragma unroll\n  for (int __kbcc_i = 0; __kbcc_i < " + M + "; ++__kbcc_i)\n  #pragma unroll\n" +
           "  for (int __kbcc_j = 0; __kbcc_j < " + M + "; ++__kbcc_j) {\n    " +
           indexes("__kbcc_i", "__kbcc_j", derived_for(p.after)) + aliases() +
           "\n    if (__kbcc_rok[__kbcc_i] && __kbcc_cok[__kbcc_j]) {\n  " + *tail + "  }\n  }\n}";
    return out;
  }
};

Expected<std::vector<Axis>> space(const Input &in) {
  auto b = analyze(*in.ast);
  if (!b) return b.error();
  return std::vector<Axis>{
      {"shape", {"64x4x16", "128x8x8", "64x8x16", "32x2x16", "128x8x16", "64x4x8", "128x4x16", "32x4x32"}},
      {"map", {"blocked", "strided"}}};
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto b = analyze(k);
  if (!b) return b.error();
  auto s = shape_of(params);
  if (!s) return s.error();
  long bytes = 0;
  for (const TileLoad &l : b->plan.loads)
    bytes = std::max<long>(bytes, k.context().getTypeSizeInChars(l.expr->getType()).getQuantity());
  if (2L * s->bk * (s->tile + 4) * bytes > 48L * 1024) return not_applicable("the tiles need more than 48 KiB");
  Generator g(k, *b, *s);
  auto body = g.kernel_body();
  if (!body) return body.error();
  size_t open = k.offset(b->plan.space.body->getLBracLoc());
  size_t close = k.offset(b->plan.space.body->getRBracLoc());
  if (open == std::string::npos || close == std::string::npos) return not_applicable("the body is written in a macro");
  Output out;
  out.source =
      with_launch_bounds(k.source().substr(0, open) + *body + k.source().substr(close + 1), s->side() * s->side());
  out.launch = tile_mapping(b->plan.space, s->tile, s->tile, s->side(), s->side());
  out.numerics = cache::kNumericsExact;
  std::set<std::string> sizes = b->plan.space.bound_params;
  auto kp = integer_params(b->plan.loop.bound);
  sizes.insert(kp.begin(), kp.end());
  out.size_params.assign(sizes.begin(), sizes.end());
  return out;
}

} // namespace

Transform register_blocking_transform() {
  return {"register_blocking",
          cache::kNumericsExact,
          "smem_tiling with a micro-tile of outputs per thread: operands staged per bk-step in shared memory, "
          "micro x micro accumulators in registers",
          true,
          space,
          apply};
}

} // namespace kbcc::transform

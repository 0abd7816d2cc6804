#include "launch/expr.h"

#include <cctype>
#include <limits>

namespace kbcc::launch {
namespace {

struct Token {
  enum class Kind { Number, Name, Op, End } kind = Kind::End;
  std::string text;
  size_t pos = 0;
};

Error syntax(const std::string &text, size_t pos, const std::string &what) {
  return make_error("launch expression '" + text + "': " + what + " at offset " + std::to_string(pos), "bad-expression");
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Splits `text` into tokens; names may contain '.' (grid.x).
Expected<std::vector<Token>> tokenize(const std::string &text) {
  static const char *two[] = {"&&", "||", "==", "!=", "<=", ">="};
  std::vector<Token> out;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.pos = i;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))
        ++j;
      t = {Token::Kind::Number, text.substr(i, j - i), i};
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < text.size() && is_name_char(text[j]))
        ++j;
      t = {Token::Kind::Name, text.substr(i, j - i), i};
      i = j;
    } else {
      std::string op(1, c);
      for (const char *d : two)
        if (text.compare(i, 2, d) == 0) op = d;
      if (op.size() == 1 && std::string("+-*/%<>!(),").find(c) == std::string::npos)
        return syntax(text, i, std::string("unexpected character '") + c + "'");
      t = {Token::Kind::Op, op, i};
      i += op.size();
    }
    out.push_back(t);
  }
  out.push_back({Token::Kind::End, "", text.size()});
  return out;
}

ExprPtr make(Expr::Kind kind, std::string op, std::vector<ExprPtr> args, int64_t number = 0) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->op = std::move(op);
  e->args = std::move(args);
  e->number = number;
  return e;
}

// Binary operators by precedence level, loosest first.
const std::vector<std::vector<std::string>> &levels() {
  static const std::vector<std::vector<std::string>> l = {
      {"||"}, {"&&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%"}};
  return l;
}

int precedence(const std::string &op) {
  for (size_t i = 0; i < levels().size(); ++i)
    for (const std::string &o : levels()[i])
      if (o == op) return static_cast<int>(i);
  return 100;
}

const std::set<std::string> &functions() {
  static const std::set<std::string> f = {"ceil_div", "min", "max", "aligned", "distinct"};
  return f;
}

class Parser {
public:
  Parser(const std::string &text, std::vector<Token> tokens) : text_(text), t_(std::move(tokens)) {}

  Expected<ExprPtr> parse() {
    auto e = binary(0);
    if (!e) return e;
    if (peek().kind != Token::Kind::End) return syntax(text_, peek().pos, "unexpected '" + peek().text + "'");
    return e;
  }

private:
  const Token &peek() const { return t_[i_]; }
  bool accept(const std::string &op) {
    if (peek().kind != Token::Kind::Op || peek().text != op) return false;
    ++i_;
    return true;
  }

  Expected<ExprPtr> binary(size_t level) {
    if (level == levels().size()) return unary();
    auto lhs = binary(level + 1);
    if (!lhs) return lhs;
    ExprPtr e = *lhs;
    for (;;) {
      std::string op;
      for (const std::string &o : levels()[level])
        if (peek().kind == Token::Kind::Op && peek().text == o) op = o;
      if (op.empty()) return e;
      ++i_;
      auto rhs = binary(level + 1);
      if (!rhs) return rhs;
      e = make(Expr::Kind::Binary, op, {e, *rhs});
    }
  }

  Expected<ExprPtr> unary() {
    for (const char *op : {"-", "!"})
      if (accept(op)) {
        auto operand = unary();
        if (!operand) return operand;
        return make(Expr::Kind::Unary, op, {*operand});
      }
    return primary();
  }

  Expected<ExprPtr> primary() {
    Token t = peek();
    if (t.kind == Token::Kind::Number) {
      ++i_;
      try {
        return make(Expr::Kind::Number, "", {}, std::stoll(t.text));
      } catch (...) {
        return syntax(text_, t.pos, "number out of range");
      }
    }
    if (accept("(")) {
      auto e = binary(0);
      if (!e) return e;
      if (!accept(")")) return syntax(text_, peek().pos, "expected ')'");
      return e;
    }
    if (t.kind != Token::Kind::Name) return syntax(text_, t.pos, "expected a number, a name or '('");
    ++i_;
    if (!accept("(")) return make(Expr::Kind::Name, t.text, {});
    if (!functions().count(t.text)) return syntax(text_, t.pos, "unknown function '" + t.text + "'");
    std::vector<ExprPtr> args;
    do {
      auto a = binary(0);
      if (!a) return a;
      args.push_back(*a);
    } while (accept(","));
    if (!accept(")")) return syntax(text_, peek().pos, "expected ')' after the arguments of " + t.text);
    if (args.size() != 2) return syntax(text_, t.pos, t.text + " takes 2 arguments");
    if (t.text == "aligned") {
      if (args[0]->kind != Expr::Kind::Name || args[1]->kind != Expr::Kind::Number || args[1]->number <= 0 ||
          (args[1]->number & (args[1]->number - 1)) != 0)
        return syntax(text_, t.pos, "aligned(pointer_parameter, bytes) wants a parameter and a power of two");
    }
    if (t.text == "distinct" && (args[0]->kind != Expr::Kind::Name || args[1]->kind != Expr::Kind::Name))
      return syntax(text_, t.pos, "distinct(pointer_parameter, pointer_parameter) wants two parameters");
    return make(Expr::Kind::Call, t.text, std::move(args));
  }

  const std::string &text_;
  std::vector<Token> t_;
  size_t i_ = 0;
};

Error eval_error(const Expr &e, const std::string &what) {
  return make_error("launch expression '" + to_string(e) + "': " + what, "bad-evaluation");
}

Expected<int64_t> apply(const Expr &e, const std::string &op, int64_t a, int64_t b) {
  int64_t r = 0;
  if (op == "+" && !__builtin_add_overflow(a, b, &r)) return r;
  if (op == "-" && !__builtin_sub_overflow(a, b, &r)) return r;
  if (op == "*" && !__builtin_mul_overflow(a, b, &r)) return r;
  if (op == "+" || op == "-" || op == "*") return eval_error(e, "overflow");
  if (op == "/" || op == "%" || op == "ceil_div") {
    if (b == 0) return eval_error(e, "division by zero");
    if (a == std::numeric_limits<int64_t>::min() && b == -1) return eval_error(e, "overflow");
    if (op == "/") return a / b;
    if (op == "%") return a % b;
    return a / b + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
  }
  if (op == "==") return int64_t(a == b);
  if (op == "!=") return int64_t(a != b);
  if (op == "<") return int64_t(a < b);
  if (op == "<=") return int64_t(a <= b);
  if (op == ">") return int64_t(a > b);
  if (op == ">=") return int64_t(a >= b);
  if (op == "min") return std::min(a, b);
  if (op == "max") return std::max(a, b);
  return eval_error(e, "unknown operator " + op);
}

} // namespace

Expected<ExprPtr> parse_expr(const std::string &text) {
  auto tokens = tokenize(text);
  if (!tokens) return tokens.error();
  return Parser(text, std::move(*tokens)).parse();
}

std::string to_string(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Number:
    return std::to_string(e.number);
  case Expr::Kind::Name:
    return e.op;
  case Expr::Kind::Unary: {
    const Expr &a = *e.args[0];
    bool wrap = a.kind == Expr::Kind::Binary;
    return e.op + (wrap ? "(" + to_string(a) + ")" : to_string(a));
  }
  case Expr::Kind::Binary: {
    int p = precedence(e.op);
    auto side = [&](const Expr &s, bool right) {
      bool wrap = s.kind == Expr::Kind::Binary && (precedence(s.op) < p || (right && precedence(s.op) == p));
      return wrap ? "(" + to_string(s) + ")" : to_string(s);
    };
    return side(*e.args[0], false) + " " + e.op + " " + side(*e.args[1], true);
  }
  case Expr::Kind::Call:
    return e.op + "(" + to_string(*e.args[0]) + ", " + to_string(*e.args[1]) + ")";
  }
  return "";
}

Expected<int64_t> evaluate(const Expr &e, const Scope &scope) {
  switch (e.kind) {
  case Expr::Kind::Number:
    return e.number;
  case Expr::Kind::Name: {
    auto v = scope.value(e.op);
    if (!v) return eval_error(e, "unknown name '" + e.op + "'");
    return *v;
  }
  case Expr::Kind::Unary: {
    auto a = evaluate(*e.args[0], scope);
    if (!a) return a;
    if (e.op == "!") return int64_t(*a == 0);
    if (*a == std::numeric_limits<int64_t>::min()) return eval_error(e, "overflow");
    return -*a;
  }
  case Expr::Kind::Binary:
  case Expr::Kind::Call: {
    if (e.op == "aligned") {
      auto p = scope.address(e.args[0]->op);
      if (!p) return eval_error(e, "'" + e.args[0]->op + "' is not a pointer parameter");
      return int64_t(*p % static_cast<uint64_t>(e.args[1]->number) == 0);
    }
    if (e.op == "distinct") {
      auto p = scope.address(e.args[0]->op), q = scope.address(e.args[1]->op);
      if (!p || !q) return eval_error(e, "'" + e.args[p ? 1 : 0]->op + "' is not a pointer parameter");
      return int64_t(*p != *q);
    }
    auto a = evaluate(*e.args[0], scope);
    if (!a) return a;
    if (e.op == "&&" && *a == 0) return int64_t(0);
    if (e.op == "||" && *a != 0) return int64_t(1);
    auto b = evaluate(*e.args[1], scope);
    if (!b) return b;
    if (e.op == "&&" || e.op == "||") return int64_t(*b != 0);
    return apply(e, e.op, *a, *b);
  }
  }
  return eval_error(e, "malformed expression");
}

void collect_names(const Expr &e, std::set<std::string> &values, std::set<std::string> &pointers) {
  if (e.kind == Expr::Kind::Name) values.insert(e.op);
  if (e.kind == Expr::Kind::Call && e.op == "aligned") {
    pointers.insert(e.args[0]->op);
    return;
  }
  if (e.kind == Expr::Kind::Call && e.op == "distinct") {
    pointers.insert({e.args[0]->op, e.args[1]->op});
    return;
  }
  for (const ExprPtr &a : e.args)
    collect_names(*a, values, pointers);
}

std::string to_cpp(const Expr &e, const std::string &calc, const std::function<std::string(const std::string &)> &spell) {
  auto sub = [&](size_t i) { return to_cpp(*e.args[i], calc, spell); };
  switch (e.kind) {
  case Expr::Kind::Number:
    return std::to_string(e.number) + "LL";
  case Expr::Kind::Name:
    return spell(e.op);
  case Expr::Kind::Unary:
    return e.op == "!" ? "(long long)!(" + sub(0) + ")" : calc + ".neg(" + sub(0) + ")";
  case Expr::Kind::Binary:
  case Expr::Kind::Call: {
    static const std::map<std::string, std::string> helpers = {
        {"+", "add"},     {"-", "sub"}, {"*", "mul"}, {"/", "div"}, {"%", "mod"},
        {"ceil_div", "ceil_div"}, {"min", "min"}, {"max", "max"}};
    if (e.op == "aligned")
      return "(long long)(" + spell(e.args[0]->op) + " % " + std::to_string(e.args[1]->number) + "ULL == 0)";
    if (e.op == "distinct") return "(long long)(" + spell(e.args[0]->op) + " != " + spell(e.args[1]->op) + ")";
    if (auto h = helpers.find(e.op); h != helpers.end())
      return calc + "." + h->second + "(" + sub(0) + ", " + sub(1) + ")";
    if (e.op == "&&" || e.op == "||")
      return "(long long)((" + sub(0) + ") != 0 " + e.op + " (" + sub(1) + ") != 0)";
    return "(long long)((" + sub(0) + ") " + e.op + " (" + sub(1) + "))";
  }
  }
  return "0LL";
}

ExprPtr substitute(const ExprPtr &e, const std::map<std::string, ExprPtr> &with) {
  if (e->kind == Expr::Kind::Name) {
    auto it = with.find(e->op);
    return it == with.end() ? e : it->second;
  }
  if (e->args.empty() || (e->kind == Expr::Kind::Call && (e->op == "aligned" || e->op == "distinct"))) return e;
  std::vector<ExprPtr> args;
  for (const ExprPtr &a : e->args)
    args.push_back(substitute(a, with));
  return make(e->kind, e->op, std::move(args), e->number);
}

const std::vector<std::string> &launch_fields() {
  static const std::vector<std::string> f = {"grid.x",  "grid.y",  "grid.z", "block.x",
                                             "block.y", "block.z", "shared"};
  return f;
}

} // namespace kbcc::launch

#pragma once

// The typer's tests write kernels as Python source: a small parser for the
// subset the tests need drives frontend::builder the way the walker does
// (`for ... in range` is for_range, augmented assignment is assignment,
// chains of comparisons are `and`s, elif nests), resolving names through a
// table of globals. Locations are the source's: line 1 is the `def` line,
// columns are 0-based as Python's ast gives them.

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/intrinsics.hpp>
#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/typer.hpp>
#include <cuforge/frontend/types.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace typer_test {

using namespace cuforge::frontend;

// --- globals ------------------------------------------------------------------------

inline global_value module_global(const std::string& name) {
  global_value g;
  g.k = global_value::kind::module;
  g.name = name;
  return g;
}

inline global_value function_global(const std::string& name) {
  global_value g;
  g.k = global_value::kind::function;
  g.name = name;
  return g;
}

inline global_value dtype_global(const std::string& typestr, const std::string& name) {
  global_value g;
  g.k = global_value::kind::dtype;
  g.dtype = typestr;
  g.name = name;
  return g;
}

inline global_value int_global(std::int64_t v, const std::string& typestr = "") {
  global_value g;
  g.k = global_value::kind::constant;
  g.value.k = constant_value::kind::integer;
  g.value.i = v;
  g.value.weak = typestr.empty();
  g.value.typestr = typestr;
  return g;
}

inline global_value float_global(double v, const std::string& typestr = "") {
  global_value g;
  g.k = global_value::kind::constant;
  g.value.k = constant_value::kind::floating;
  g.value.f = v;
  g.value.weak = typestr.empty();
  g.value.typestr = typestr;
  return g;
}

inline global_value tuple_global(std::vector<global_value> elements) {
  global_value g;
  g.k = global_value::kind::tuple;
  g.elements = std::move(elements);
  return g;
}

// --- the parser -----------------------------------------------------------------------

class parse_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct token {
  enum kind_t { name, number, string, op, newline, indent, dedent, end } kind;
  std::string text;
  location loc;
};

inline std::vector<token> tokenize(const std::string& src) {
  std::vector<token> out;
  std::vector<int> indents{0};
  int depth = 0;  // open brackets: newlines inside do not count
  std::size_t i = 0;
  int line = 1;
  bool line_start = true;
  const char* ops3[] = {"**=", "//=", ">>=", "<<="};
  const char* ops2[] = {"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
  std::size_t line_begin = 0;
  while (i <= src.size()) {
    if (line_start) {
      // Measure indentation; skip blank and comment lines.
      std::size_t j = i;
      int col = 0;
      while (j < src.size() && src[j] == ' ') ++j, ++col;
      if (j >= src.size()) break;
      if (src[j] == '\n' || src[j] == '#') {
        while (j < src.size() && src[j] != '\n') ++j;
        i = j + 1;
        ++line;
        line_begin = i;
        continue;
      }
      if (depth == 0) {
        if (col > indents.back()) {
          indents.push_back(col);
          out.push_back({token::indent, "", {line, 0}});
        }
        while (col < indents.back()) {
          indents.pop_back();
          out.push_back({token::dedent, "", {line, 0}});
        }
      }
      i = j;
      line_start = false;
    }
    if (i >= src.size()) break;
    char c = src[i];
    location loc{line, static_cast<std::int32_t>(i - line_begin)};
    if (c == '\n') {
      if (depth == 0) out.push_back({token::newline, "", loc});
      ++i;
      ++line;
      line_begin = i;
      line_start = depth == 0;
      continue;
    }
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t b = i;
      while (i < src.size() && (std::isalnum(static_cast<unsigned char>(src[i])) || src[i] == '_')) ++i;
      out.push_back({token::name, src.substr(b, i - b), loc});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      std::size_t b = i;
      if (c == '0' && i + 1 < src.size() && (src[i + 1] == 'x' || src[i + 1] == 'X')) {
        i += 2;
        while (i < src.size() && std::isxdigit(static_cast<unsigned char>(src[i]))) ++i;
      } else {
        while (i < src.size() && (std::isdigit(static_cast<unsigned char>(src[i])) || src[i] == '.')) ++i;
        if (i < src.size() && (src[i] == 'e' || src[i] == 'E')) {
          ++i;
          if (i < src.size() && (src[i] == '+' || src[i] == '-')) ++i;
          while (i < src.size() && std::isdigit(static_cast<unsigned char>(src[i]))) ++i;
        }
        if (i < src.size() && (src[i] == 'j' || src[i] == 'J')) ++i;
      }
      out.push_back({token::number, src.substr(b, i - b), loc});
      continue;
    }
    if (c == '\'' || c == '"') {
      std::size_t b = ++i;
      while (i < src.size() && src[i] != c) ++i;
      out.push_back({token::string, src.substr(b, i - b), loc});
      ++i;
      continue;
    }
    std::string o;
    for (const char* p : ops3)
      if (src.compare(i, 3, p) == 0) o = p;
    if (o.empty())
      for (const char* p : ops2)
        if (src.compare(i, 2, p) == 0) o = p;
    if (o.empty()) o = std::string(1, c);
    if (o == "(" || o == "[" || o == "{") ++depth;
    if (o == ")" || o == "]" || o == "}") --depth;
    out.push_back({token::op, o, loc});
    i += o.size();
  }
  if (out.empty() || out.back().kind != token::newline) out.push_back({token::newline, "", {line, 0}});
  while (indents.size() > 1) {
    indents.pop_back();
    out.push_back({token::dedent, "", {line, 0}});
  }
  out.push_back({token::end, "", {line, 0}});
  return out;
}

class parser {
 public:
  parser(const std::string& src, const std::map<std::string, global_value>& globals, const std::string& filename)
      : toks_(tokenize(src)), globals_(globals), src_(src), filename_(filename) {}

  std::shared_ptr<function> parse() {
    expect_name("def");
    std::string fname = take(token::name).text;
    b_ = std::make_unique<builder>(fname, fname, filename_, 1);
    expect_op("(");
    while (!is_op(")")) {
      token p = take(token::name);
      b_->param(p.text, p.loc);
      if (!is_op(")")) expect_op(",");
    }
    expect_op(")");
    expect_op(":");
    b_->set_body(suite());
    std::vector<std::string> lines;
    std::size_t s = 0;
    while (s <= src_.size()) {
      std::size_t e = src_.find('\n', s);
      if (e == std::string::npos) e = src_.size();
      lines.push_back(src_.substr(s, e - s));
      s = e + 1;
    }
    b_->set_source(lines);
    b_->set_fingerprint(src_);
    return b_->finish();
  }

 private:
  struct node {
    expr_id id = no_id;
    location loc;
  };

  const token& peek(std::size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  [[noreturn]] void error(const std::string& what) const {
    throw parse_error("test parser: " + what + " at line " + std::to_string(peek().loc.line) + " col " +
                      std::to_string(peek().loc.col) + " ('" + peek().text + "')");
  }
  token take(token::kind_t k) {
    if (peek().kind != k) error("unexpected token");
    return toks_[pos_++];
  }
  bool is_op(const char* o) const { return peek().kind == token::op && peek().text == o; }
  bool is_name(const char* n) const { return peek().kind == token::name && peek().text == n; }
  bool eat_op(const char* o) {
    if (!is_op(o)) return false;
    ++pos_;
    return true;
  }
  void expect_op(const char* o) {
    if (!eat_op(o)) error(std::string("expected '") + o + "'");
  }
  void expect_name(const char* n) {
    if (!is_name(n)) error(std::string("expected '") + n + "'");
    ++pos_;
  }

  std::vector<stmt_id> suite() {
    std::vector<stmt_id> body;
    if (peek().kind != token::newline) {
      body.push_back(simple_statement());
      take(token::newline);
      return body;
    }
    take(token::newline);
    take(token::indent);
    while (peek().kind != token::dedent && peek().kind != token::end) {
      auto s = statement();
      body.insert(body.end(), s.begin(), s.end());
    }
    if (peek().kind == token::dedent) ++pos_;
    return body;
  }

  std::vector<stmt_id> statement() {
    location loc = peek().loc;
    if (is_name("if")) {
      ++pos_;
      return {if_rest(loc)};
    }
    if (is_name("while")) {
      ++pos_;
      node c = test();
      expect_op(":");
      auto body = suite();
      std::vector<stmt_id> orelse;
      if (is_name("else")) {
        ++pos_;
        expect_op(":");
        orelse = suite();
      }
      return {b_->while_(c.id, body, orelse, loc)};
    }
    if (is_name("for")) {
      ++pos_;
      token v = take(token::name);
      var_id var = b_->variable(v.text, v.loc);
      expect_name("in");
      location rloc = peek().loc;
      expect_name("range");
      expect_op("(");
      std::vector<node> args;
      while (!is_op(")")) {
        args.push_back(test());
        if (!is_op(")")) expect_op(",");
      }
      expect_op(")");
      expect_op(":");
      auto body = suite();
      std::vector<stmt_id> orelse;
      if (is_name("else")) {
        ++pos_;
        expect_op(":");
        orelse = suite();
      }
      expr_id start = args.size() >= 2 ? args[0].id : int_constant(0, rloc);
      expr_id stop = args.size() >= 2 ? args[1].id : args.at(0).id;
      expr_id step = args.size() == 3 ? args[2].id : int_constant(1, rloc);
      return {b_->for_range(var, start, stop, step, body, orelse, loc)};
    }
    stmt_id s = simple_statement();
    take(token::newline);
    return {s};
  }

  stmt_id if_rest(location loc) {
    node c = test();
    expect_op(":");
    auto body = suite();
    std::vector<stmt_id> orelse;
    if (is_name("elif")) {
      location l = peek().loc;
      ++pos_;
      orelse = {if_rest(l)};
    } else if (is_name("else")) {
      ++pos_;
      expect_op(":");
      orelse = suite();
    }
    return b_->if_(c.id, body, orelse, loc);
  }

  stmt_id simple_statement() {
    location loc = peek().loc;
    if (is_name("pass")) return ++pos_, b_->pass(loc);
    if (is_name("break")) return ++pos_, b_->break_(loc);
    if (is_name("continue")) return ++pos_, b_->continue_(loc);
    if (is_name("return")) {
      ++pos_;
      if (peek().kind == token::newline) return b_->return_(no_id, loc);
      return b_->return_(testlist().id, loc);
    }
    if (is_name("raise")) {
      ++pos_;
      expr_id v = peek().kind == token::newline ? no_id : test().id;
      return b_->raise_(v, loc);
    }
    if (is_name("assert")) {
      ++pos_;
      node c = test();
      std::string msg;
      if (eat_op(",")) msg = take(token::string).text;
      return b_->assert_(c.id, msg, loc);
    }
    node target = testlist();
    if (eat_op("=")) {
      node value = testlist();
      return b_->assign(target.id, value.id, loc);
    }
    static const std::pair<const char*, binop> aug[] = {
        {"+=", binop::add},      {"-=", binop::sub},     {"*=", binop::mul},       {"/=", binop::truediv},
        {"//=", binop::floordiv}, {"%=", binop::mod},    {"**=", binop::pow},      {"<<=", binop::lshift},
        {">>=", binop::rshift},  {"|=", binop::bitor_},  {"^=", binop::bitxor},    {"&=", binop::bitand_}};
    for (const auto& [o, op] : aug)
      if (eat_op(o)) {
        node value = test();
        expr_id again = reread(target.id, target.loc);
        return b_->assign(target.id, b_->binary(op, again, value.id, target.loc), loc);
      }
    return b_->expression(target.id, loc);
  }

  // The target of an augmented assignment read as a value: a fresh node for
  // a name; for a subscript, the same object and index nodes.
  expr_id reread(expr_id target, location loc) {
    auto it = kinds_.find(target);
    if (it == kinds_.end()) error("cannot augment-assign this target");
    if (it->second.first == 'v') return b_->name(it->second.second, loc);
    auto sub = subs_.at(target);
    return b_->subscript(sub.first, sub.second, loc);
  }

  expr_id int_constant(std::int64_t v, location loc) {
    constant_value c;
    c.k = constant_value::kind::integer;
    c.i = v;
    return b_->constant(c, loc);
  }

  node testlist() {
    node first = test();
    if (!is_op(",")) return first;
    std::vector<expr_id> es{first.id};
    while (eat_op(",")) {
      if (peek().kind == token::newline || is_op("=") || is_op(")")) break;
      es.push_back(test().id);
    }
    return {b_->tuple(es, first.loc), first.loc};
  }

  node test() {
    node a = or_test();
    if (is_name("if")) {
      ++pos_;
      node c = or_test();
      expect_name("else");
      node e = test();
      return {b_->conditional(c.id, a.id, e.id, a.loc), a.loc};
    }
    return a;
  }

  node or_test() {
    node a = and_test();
    while (is_name("or")) {
      ++pos_;
      node b = and_test();
      a = {b_->logical(false, a.id, b.id, a.loc), a.loc};
    }
    return a;
  }

  node and_test() {
    node a = not_test();
    while (is_name("and")) {
      ++pos_;
      node b = not_test();
      a = {b_->logical(true, a.id, b.id, a.loc), a.loc};
    }
    return a;
  }

  node not_test() {
    if (is_name("not")) {
      location loc = peek().loc;
      ++pos_;
      node a = not_test();
      return {b_->unary(unop::not_, a.id, loc), loc};
    }
    return comparison();
  }

  bool comparison_op(cmpop& o) {
    static const std::pair<const char*, cmpop> ops[] = {{"==", cmpop::eq}, {"!=", cmpop::ne}, {"<=", cmpop::le},
                                                        {">=", cmpop::ge}, {"<", cmpop::lt},  {">", cmpop::gt}};
    for (const auto& [t, c] : ops)
      if (eat_op(t)) return o = c, true;
    if (is_name("in")) return ++pos_, o = cmpop::in, true;
    if (is_name("is")) {
      ++pos_;
      o = cmpop::is;
      if (is_name("not")) ++pos_, o = cmpop::is_not;
      return true;
    }
    if (is_name("not") && peek(1).kind == token::name && peek(1).text == "in") return pos_ += 2, o = cmpop::not_in, true;
    return false;
  }

  node comparison() {
    node a = bitor_expr();
    node result{no_id, a.loc};
    cmpop o;
    while (comparison_op(o)) {
      node b = bitor_expr();
      expr_id c = b_->compare(o, a.id, b.id, a.loc);
      result.id = result.id == no_id ? c : b_->logical(true, result.id, c, result.loc);
      a = b;
    }
    return result.id == no_id ? a : result;
  }

  template <class Next>
  node left_assoc(Next next, std::initializer_list<std::pair<const char*, binop>> ops) {
    node a = (this->*next)();
    for (;;) {
      bool any = false;
      for (const auto& [t, o] : ops)
        if (eat_op(t)) {
          node b = (this->*next)();
          a = {b_->binary(o, a.id, b.id, a.loc), a.loc};
          any = true;
          break;
        }
      if (!any) return a;
    }
  }
  node bitor_expr() { return left_assoc(&parser::bitxor_expr, {{"|", binop::bitor_}}); }
  node bitxor_expr() { return left_assoc(&parser::bitand_expr, {{"^", binop::bitxor}}); }
  node bitand_expr() { return left_assoc(&parser::shift_expr, {{"&", binop::bitand_}}); }
  node shift_expr() { return left_assoc(&parser::arith_expr, {{"<<", binop::lshift}, {">>", binop::rshift}}); }
  node arith_expr() { return left_assoc(&parser::term, {{"+", binop::add}, {"-", binop::sub}}); }
  node term() {
    return left_assoc(&parser::factor, {{"*", binop::mul}, {"/", binop::truediv}, {"//", binop::floordiv}, {"%", binop::mod}, {"@", binop::matmul}});
  }

  node factor() {
    location loc = peek().loc;
    static const std::pair<const char*, unop> ops[] = {{"-", unop::neg}, {"+", unop::pos}, {"~", unop::invert}};
    for (const auto& [t, o] : ops)
      if (eat_op(t)) {
        node a = factor();
        return {b_->unary(o, a.id, loc), loc};
      }
    node a = atom_expr();
    if (eat_op("**")) {
      node b = factor();
      return {b_->binary(binop::pow, a.id, b.id, a.loc), a.loc};
    }
    return a;
  }

  node atom_expr() {
    node a = atom();
    for (;;) {
      if (eat_op("(")) {
        std::vector<expr_id> args, kw_values;
        std::vector<std::string> kws;
        while (!is_op(")")) {
          if (peek().kind == token::name && peek(1).kind == token::op && peek(1).text == "=") {
            kws.push_back(take(token::name).text);
            ++pos_;
            kw_values.push_back(test().id);
          } else {
            if (!kws.empty()) error("positional argument after keyword");
            args.push_back(test().id);
          }
          if (!is_op(")")) expect_op(",");
        }
        expect_op(")");
        args.insert(args.end(), kw_values.begin(), kw_values.end());
        a = {b_->call(a.id, args, kws, a.loc), a.loc};
      } else if (eat_op("[")) {
        std::vector<expr_id> items;
        location iloc = peek().loc;
        bool tuple = false;
        while (!is_op("]")) {
          items.push_back(subscript_item());
          if (!is_op("]")) {
            expect_op(",");
            tuple = true;
          }
        }
        expect_op("]");
        expr_id index = (tuple || items.size() != 1) ? b_->tuple(items, iloc) : items[0];
        expr_id s = b_->subscript(a.id, index, a.loc);
        kinds_[s] = {'s', 0};
        subs_[s] = {a.id, index};
        a = {s, a.loc};
      } else if (eat_op(".")) {
        token n = take(token::name);
        a = {b_->attribute(a.id, n.text, a.loc), a.loc};
      } else {
        return a;
      }
    }
  }

  expr_id subscript_item() {
    location loc = peek().loc;
    expr_id parts[3] = {no_id, no_id, no_id};
    bool slice = false;
    if (!is_op(":")) {
      node a = test();
      if (!is_op(":")) return a.id;
      parts[0] = a.id;
    }
    for (int k = 1; k < 3 && eat_op(":"); ++k) {
      slice = true;
      if (!is_op(":") && !is_op("]") && !is_op(",")) parts[k] = test().id;
    }
    if (!slice) error("bad subscript");
    return b_->slice(parts[0], parts[1], parts[2], loc);
  }

  node atom() {
    const token t = peek();
    if (t.kind == token::number) {
      ++pos_;
      constant_value c;
      std::string s = t.text;
      if (s.back() == 'j' || s.back() == 'J') {
        c.k = constant_value::kind::complex;
        c.c = {0, std::stod(s.substr(0, s.size() - 1))};
      } else if (s.size() > 2 && (s[1] == 'x' || s[1] == 'X')) {
        c.k = constant_value::kind::integer;
        c.i = static_cast<std::int64_t>(std::stoull(s, nullptr, 16));
      } else if (s.find_first_of(".eE") != std::string::npos) {
        c.k = constant_value::kind::floating;
        c.f = std::stod(s);
      } else {
        c.k = constant_value::kind::integer;
        c.i = static_cast<std::int64_t>(std::stoull(s));
      }
      return {b_->constant(c, t.loc), t.loc};
    }
    if (t.kind == token::name) {
      ++pos_;
      if (t.text == "True" || t.text == "False") {
        constant_value c;
        c.k = constant_value::kind::boolean;
        c.b = t.text == "True";
        return {b_->constant(c, t.loc), t.loc};
      }
      if (t.text == "None") return {b_->constant(constant_value{}, t.loc), t.loc};
      auto g = globals_.find(t.text);
      if (g != globals_.end()) {
        auto it = global_ids_.find(t.text);
        if (it == global_ids_.end()) it = global_ids_.emplace(t.text, b_->global(g->second)).first;
        return {b_->global_ref(it->second, t.loc), t.loc};
      }
      var_id v = b_->variable(t.text, t.loc);
      expr_id e = b_->name(v, t.loc);
      kinds_[e] = {'v', v};
      return {e, t.loc};
    }
    if (t.kind == token::op && t.text == "(") {
      ++pos_;
      if (eat_op(")")) return {b_->tuple({}, t.loc), t.loc};
      node first = test();
      if (eat_op(")")) return first;
      std::vector<expr_id> es{first.id};
      while (eat_op(",")) {
        if (is_op(")")) break;
        es.push_back(test().id);
      }
      expect_op(")");
      return {b_->tuple(es, t.loc), t.loc};
    }
    error("unexpected token in an expression");
  }

  std::vector<token> toks_;
  std::size_t pos_ = 0;
  const std::map<std::string, global_value>& globals_;
  std::map<std::string, std::int32_t> global_ids_;
  std::map<expr_id, std::pair<char, var_id>> kinds_;
  std::map<expr_id, std::pair<expr_id, expr_id>> subs_;
  std::string src_;
  std::string filename_;
  std::unique_ptr<builder> b_;
};

// --- the environment a test types kernels in ------------------------------------------

struct failure {
  bool thrown = false;
  std::string message;
  location loc;
  std::string what;
};

struct env {
  type_context tc;
  std::map<std::string, global_value> globals;

  env() {
    for (const char* m : {"math", "cmath", "cuda", "operator", "numpy"}) globals[m] = module_global(m);
    globals["np"] = module_global("numpy");
    // As the walker resolves them: Python's int, float, bool and complex
    // are dtypes; the other builtins are functions.
    for (const char* f : {"abs", "min", "max", "round", "len", "range", "print", "pow", "enumerate", "zip", "divmod"})
      globals[f] = function_global(std::string("builtins.") + f);
    globals["int"] = dtype_global("<i8", "int");
    globals["float"] = dtype_global("<f8", "float");
    globals["bool"] = dtype_global("|b1", "bool");
    globals["complex"] = dtype_global("<c16", "complex");
    const std::pair<const char*, const char*> dtypes[] = {
        {"float16", "<f2"}, {"float32", "<f4"}, {"float64", "<f8"}, {"int8", "|i1"},       {"int16", "<i2"},
        {"int32", "<i4"},   {"int64", "<i8"},   {"uint8", "|u1"},   {"uint16", "<u2"},     {"uint32", "<u4"},
        {"uint64", "<u8"},  {"complex64", "<c8"}, {"complex128", "<c16"}, {"bool_", "|b1"}};
    for (const auto& [n, t] : dtypes) globals[n] = dtype_global(t, n);
  }

  std::shared_ptr<function> parse(const std::string& src, const std::string& filename = "test.py") {
    return parser(src, globals, filename).parse();
  }

  /// Parses `src` and makes it a global device function named as its def.
  std::shared_ptr<function> device(const std::string& src) {
    auto f = parse(src);
    global_value g;
    g.k = global_value::kind::device_function;
    g.name = f->name;
    g.callee = f;
    globals[f->name] = g;
    return f;
  }

  std::vector<const type*> types(const std::vector<std::string>& specs) {
    std::vector<const type*> out;
    for (const auto& s : specs) out.push_back(parse_type(tc, s));
    return out;
  }

  typed_module infer(const std::string& src, const std::vector<std::string>& args, bool kernel = true,
                     typer_options opts = {}) {
    return cuforge::frontend::infer(tc, parse(src), signature{types(args), nullptr}, kernel, opts);
  }

  /// The typed dump of the entry.
  std::string dump(const std::string& src, const std::vector<std::string>& args, bool kernel = true,
                   typer_options opts = {}) {
    return infer(src, args, kernel, opts).functions.at(0).ir->dump();
  }

  /// The typing_error `src` must fail with.
  failure fail(const std::string& src, const std::vector<std::string>& args, bool kernel = true,
               typer_options opts = {}) {
    failure f;
    try {
      infer(src, args, kernel, opts);
    } catch (const typing_error& e) {
      f.thrown = true;
      f.message = e.message();
      f.loc = {e.line(), e.column()};
      f.what = e.what();
    }
    return f;
  }
};

/// Makes reads of the name `name` in `f` refer to the device function
/// `callee`: how tests build recursion, which needs a function's globals
/// to name the function itself.
inline void bind_device(function& f, const std::string& name, const std::shared_ptr<function>& callee) {
  global_value g;
  g.k = global_value::kind::device_function;
  g.name = name;
  g.callee = callee;
  f.globals.push_back(g);
  for (auto& x : f.exprs)
    if (x.kind == expr_kind::variable && f.vars[static_cast<std::size_t>(x.var)].name == name) {
      x.kind = expr_kind::global;
      x.global = static_cast<std::int32_t>(f.globals.size() - 1);
    }
}

/// The location of the first `token` on 1-based `line` of `src`.
inline location at(const std::string& src, int line, const std::string& token) {
  std::size_t s = 0;
  for (int l = 1; l < line; ++l) s = src.find('\n', s) + 1;
  std::size_t e = src.find('\n', s);
  std::string text = src.substr(s, e == std::string::npos ? std::string::npos : e - s);
  auto c = text.find(token);
  EXPECT_NE(c, std::string::npos) << "no '" << token << "' on line " << line;
  return {line, static_cast<std::int32_t>(c)};
}

#define EXPECT_TYPING_ERROR(failure_, substring, where)                                                     \
  do {                                                                                                      \
    auto f_ = (failure_);                                                                                   \
    auto w_ = (where);                                                                                      \
    EXPECT_TRUE(f_.thrown) << "no TypingError";                                                             \
    EXPECT_NE(f_.message.find(substring), std::string::npos) << "message: " << f_.message;                  \
    EXPECT_EQ(f_.loc.line, w_.line) << f_.what;                                                             \
    EXPECT_EQ(f_.loc.col, w_.col) << f_.what;                                                               \
  } while (0)

// --- walking the typed IR -------------------------------------------------------------

/// Every expression reachable from the statements, in order.
inline void walk_exprs(const function& f, expr_id e, std::vector<const expr*>& out) {
  if (e == no_id) return;
  const expr& x = f.at(e);
  out.push_back(&x);
  for (auto o : x.operands) walk_exprs(f, o, out);
}

inline void walk_block(const function& f, const std::vector<stmt_id>& block, std::vector<const expr*>& out) {
  for (auto id : block) {
    const stmt& s = f.at_stmt(id);
    for (auto e : {s.target, s.value, s.start, s.stop, s.step}) walk_exprs(f, e, out);
    walk_block(f, s.body, out);
    walk_block(f, s.orelse, out);
  }
}

inline std::vector<const expr*> reachable(const function& f) {
  std::vector<const expr*> out;
  walk_block(f, f.body, out);
  return out;
}

/// The reachable ops named `o`.
inline std::vector<const expr*> ops_of(const function& f, op_id o) {
  std::vector<const expr*> out;
  for (const expr* e : reachable(f))
    if (e->kind == expr_kind::op && e->op == o) out.push_back(e);
  return out;
}

/// The only reachable op named `o` (a test failure when there are others).
inline const expr& only_op(const function& f, op_id o) {
  auto v = ops_of(f, o);
  EXPECT_EQ(v.size(), 1u) << "ops named " << to_string(o) << " in\n" << f.dump();
  static expr none;
  return v.empty() ? none : *v[0];
}

/// The reachable `intrinsic` ops of the registry's entry `name` ("cuda.syncthreads").
inline std::vector<const expr*> ops_of(const function& f, std::string_view name) {
  const std::int64_t index = intrinsic_index(name);
  EXPECT_GE(index, 0) << "no intrinsic " << name;
  std::vector<const expr*> out;
  for (const expr* e : reachable(f))
    if (e->kind == expr_kind::op && e->op == op_id::intrinsic && !e->attrs.empty() && e->attrs[0] == index)
      out.push_back(e);
  return out;
}

/// The only reachable `intrinsic` op of `name`.
inline const expr& only_op(const function& f, std::string_view name) {
  auto v = ops_of(f, name);
  EXPECT_EQ(v.size(), 1u) << "intrinsics " << name << " in\n" << f.dump();
  static expr none;
  return v.empty() ? none : *v[0];
}

inline std::vector<std::string> operand_types(const function& f, const expr& e) {
  std::vector<std::string> out;
  for (auto o : e.operands) out.push_back(f.at(o).ty ? f.at(o).ty->str() : "?");
  return out;
}

/// The type of the value assigned to the variable named `name` (from its
/// first assignment), as text.
inline std::string var_type(const function& f, const std::string& name) {
  for (const auto& v : f.vars)
    if (v.name == name) return v.ty ? v.ty->str() : "?";
  return "(no variable " + name + ")";
}

}  // namespace typer_test

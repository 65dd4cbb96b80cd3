#include <cuforge/frontend/intrinsics.hpp>
#include <cuforge/frontend/ir.hpp>

#include <sstream>

namespace cuforge::frontend {

const char* to_string(op_id op) noexcept {
  switch (op) {
#define CUFORGE_FRONTEND_OP_NAME(name, group) \
  case op_id::name:                           \
    return #name;
    CUFORGE_FRONTEND_OPS(CUFORGE_FRONTEND_OP_NAME)
#undef CUFORGE_FRONTEND_OP_NAME
  }
  return "?";
}

const char* to_string(binop op) noexcept {
  switch (op) {
    case binop::add: return "+";
    case binop::sub: return "-";
    case binop::mul: return "*";
    case binop::truediv: return "/";
    case binop::floordiv: return "//";
    case binop::mod: return "%";
    case binop::pow: return "**";
    case binop::lshift: return "<<";
    case binop::rshift: return ">>";
    case binop::bitor_: return "|";
    case binop::bitxor: return "^";
    case binop::bitand_: return "&";
    case binop::matmul: return "@";
  }
  return "?";
}

const char* to_string(unop op) noexcept {
  switch (op) {
    case unop::neg: return "-";
    case unop::pos: return "+";
    case unop::invert: return "~";
    case unop::not_: return "not";
  }
  return "?";
}

const char* to_string(cmpop op) noexcept {
  switch (op) {
    case cmpop::eq: return "==";
    case cmpop::ne: return "!=";
    case cmpop::lt: return "<";
    case cmpop::le: return "<=";
    case cmpop::gt: return ">";
    case cmpop::ge: return ">=";
    case cmpop::is: return "is";
    case cmpop::is_not: return "is not";
    case cmpop::in: return "in";
    case cmpop::not_in: return "not in";
  }
  return "?";
}

// --- builder -------------------------------------------------------------------

builder::builder(std::string name, std::string qualname, std::string filename, std::int32_t first_line)
    : f_(std::make_shared<function>()) {
  f_->name = std::move(name);
  f_->qualname = std::move(qualname);
  f_->filename = std::move(filename);
  f_->first_line = first_line;
}

var_id builder::param(const std::string& name, location loc) {
  var_id v = variable(name, loc);
  f_->params.push_back(v);
  return v;
}

var_id builder::variable(const std::string& name, location loc) {
  if (!name.empty())
    for (std::size_t i = 0; i < f_->vars.size(); ++i)
      if (f_->vars[i].name == name) return static_cast<var_id>(i);
  f_->vars.push_back({name, loc, nullptr});
  return static_cast<var_id>(f_->vars.size() - 1);
}

std::int32_t builder::global(global_value g) {
  f_->globals.push_back(std::move(g));
  return static_cast<std::int32_t>(f_->globals.size() - 1);
}

namespace {
expr_id add(function& f, expr e) {
  f.exprs.push_back(std::move(e));
  return static_cast<expr_id>(f.exprs.size() - 1);
}
stmt_id add(function& f, stmt s) {
  f.stmts.push_back(std::move(s));
  return static_cast<stmt_id>(f.stmts.size() - 1);
}
expr make(expr_kind k, location loc, std::vector<expr_id> operands = {}) {
  expr e;
  e.kind = k;
  e.loc = loc;
  e.operands = std::move(operands);
  return e;
}
stmt make_stmt(stmt_kind k, location loc) {
  stmt s;
  s.kind = k;
  s.loc = loc;
  return s;
}
}  // namespace

expr_id builder::constant(constant_value v, location loc) {
  auto e = make(expr_kind::constant, loc);
  e.value = v;
  return add(*f_, std::move(e));
}

expr_id builder::name(var_id v, location loc) {
  auto e = make(expr_kind::variable, loc);
  e.var = v;
  return add(*f_, std::move(e));
}

expr_id builder::global_ref(std::int32_t g, location loc) {
  auto e = make(expr_kind::global, loc);
  e.global = g;
  return add(*f_, std::move(e));
}

expr_id builder::unary(unop op, expr_id a, location loc) {
  auto e = make(expr_kind::unary, loc, {a});
  e.unary_op = op;
  return add(*f_, std::move(e));
}

expr_id builder::binary(binop op, expr_id a, expr_id b, location loc, bool inplace) {
  auto e = make(expr_kind::binary, loc, {a, b});
  e.binary_op = op;
  if (inplace) e.attrs = {1};
  return add(*f_, std::move(e));
}

expr_id builder::compare(cmpop op, expr_id a, expr_id b, location loc) {
  auto e = make(expr_kind::compare, loc, {a, b});
  e.compare_op = op;
  return add(*f_, std::move(e));
}

expr_id builder::logical(bool is_and, expr_id a, expr_id b, location loc) {
  auto e = make(expr_kind::logical, loc, {a, b});
  e.is_and = is_and;
  return add(*f_, std::move(e));
}

expr_id builder::conditional(expr_id cond, expr_id then, expr_id otherwise, location loc) {
  return add(*f_, make(expr_kind::conditional, loc, {cond, then, otherwise}));
}

expr_id builder::call(expr_id callee, std::vector<expr_id> args, std::vector<std::string> keywords, location loc) {
  std::vector<expr_id> ops{callee};
  ops.insert(ops.end(), args.begin(), args.end());
  auto e = make(expr_kind::call, loc, std::move(ops));
  e.keywords = std::move(keywords);
  return add(*f_, std::move(e));
}

expr_id builder::attribute(expr_id object, const std::string& name, location loc) {
  auto e = make(expr_kind::attribute, loc, {object});
  e.name = name;
  return add(*f_, std::move(e));
}

expr_id builder::subscript(expr_id object, expr_id index, location loc) {
  return add(*f_, make(expr_kind::subscript, loc, {object, index}));
}

expr_id builder::tuple(std::vector<expr_id> elements, location loc) {
  return add(*f_, make(expr_kind::tuple, loc, std::move(elements)));
}

expr_id builder::slice(expr_id start, expr_id stop, expr_id step, location loc) {
  return add(*f_, make(expr_kind::slice, loc, {start, stop, step}));
}

stmt_id builder::assign(expr_id target, expr_id value, location loc) {
  auto s = make_stmt(stmt_kind::assign, loc);
  s.target = target;
  s.value = value;
  return add(*f_, std::move(s));
}

stmt_id builder::expression(expr_id value, location loc) {
  auto s = make_stmt(stmt_kind::expression, loc);
  s.value = value;
  return add(*f_, std::move(s));
}

stmt_id builder::if_(expr_id cond, std::vector<stmt_id> body, std::vector<stmt_id> orelse, location loc) {
  auto s = make_stmt(stmt_kind::if_, loc);
  s.value = cond;
  s.body = std::move(body);
  s.orelse = std::move(orelse);
  return add(*f_, std::move(s));
}

stmt_id builder::while_(expr_id cond, std::vector<stmt_id> body, std::vector<stmt_id> orelse, location loc) {
  auto s = make_stmt(stmt_kind::while_, loc);
  s.value = cond;
  s.body = std::move(body);
  s.orelse = std::move(orelse);
  return add(*f_, std::move(s));
}

stmt_id builder::for_range(var_id v, expr_id start, expr_id stop, expr_id step, std::vector<stmt_id> body,
                           std::vector<stmt_id> orelse, location loc) {
  auto s = make_stmt(stmt_kind::for_range, loc);
  s.var = v;
  s.start = start;
  s.stop = stop;
  s.step = step;
  s.body = std::move(body);
  s.orelse = std::move(orelse);
  return add(*f_, std::move(s));
}

stmt_id builder::break_(location loc) { return add(*f_, make_stmt(stmt_kind::break_, loc)); }
stmt_id builder::continue_(location loc) { return add(*f_, make_stmt(stmt_kind::continue_, loc)); }

stmt_id builder::return_(expr_id value, location loc) {
  auto s = make_stmt(stmt_kind::return_, loc);
  s.value = value;
  return add(*f_, std::move(s));
}

stmt_id builder::pass(location loc) { return add(*f_, make_stmt(stmt_kind::pass, loc)); }

stmt_id builder::raise_(expr_id value, location loc) {
  auto s = make_stmt(stmt_kind::raise_, loc);
  s.value = value;
  return add(*f_, std::move(s));
}

stmt_id builder::assert_(expr_id cond, std::string message, location loc) {
  auto s = make_stmt(stmt_kind::assert_, loc);
  s.value = cond;
  s.message = std::move(message);
  return add(*f_, std::move(s));
}

void builder::set_body(std::vector<stmt_id> body) { f_->body = std::move(body); }
void builder::set_source(std::vector<std::string> lines) { f_->source_lines = std::move(lines); }
void builder::set_fingerprint(std::string text) { f_->fingerprint = std::move(text); }
void builder::set_varargs() { f_->varargs = true; }

std::shared_ptr<function> builder::finish() {
  auto f = std::move(f_);
  f_ = std::make_shared<function>();
  return f;
}

// --- dump -----------------------------------------------------------------------

namespace {

std::string constant_text(const constant_value& v) {
  std::ostringstream o;
  switch (v.k) {
    case constant_value::kind::none: return "None";
    case constant_value::kind::boolean: return v.b ? "True" : "False";
    case constant_value::kind::integer: o << v.i; break;
    case constant_value::kind::floating: {
      // Python's spelling: 0.0 stays a float, 1e-05 keeps its exponent.
      o.precision(17);
      o << v.f;
      std::string t = o.str();
      if (t.find_first_of(".eEni") == std::string::npos) t += ".0";
      return t;
    }
    case constant_value::kind::complex: o << "complex(" << v.c.real() << ", " << v.c.imag() << ")"; break;
  }
  return o.str();
}

class dumper {
 public:
  explicit dumper(const function& f) : f_(f) {}

  std::string run() {
    out_ << "def " << f_.name << "(";
    for (std::size_t i = 0; i < f_.params.size(); ++i) {
      const auto& v = f_.vars[static_cast<std::size_t>(f_.params[i])];
      out_ << (i ? ", " : "") << (f_.varargs && i + 1 == f_.params.size() ? "*" : "") << v.name;
      if (v.ty) out_ << ": " << v.ty->str();
    }
    out_ << "):\n";
    block(f_.body, 1);
    return out_.str();
  }

 private:
  std::string var(var_id v) const {
    const auto& x = f_.vars[static_cast<std::size_t>(v)];
    return x.name.empty() ? "$t" + std::to_string(v) : x.name;
  }

  std::string e(expr_id id) const {
    if (id == no_id) return "<none>";
    const expr& x = f_.at(id);
    std::string s;
    auto operands = [&](std::size_t from = 0) {
      std::string r;
      for (std::size_t i = from; i < x.operands.size(); ++i) r += (i > from ? ", " : "") + e(x.operands[i]);
      return r;
    };
    switch (x.kind) {
      case expr_kind::constant: s = constant_text(x.value); break;
      case expr_kind::variable: s = var(x.var); break;
      case expr_kind::tuple: s = "(" + operands() + (x.operands.size() == 1 ? ",)" : ")"); break;
      case expr_kind::conditional: s = "(" + e(x.operands[1]) + " if " + e(x.operands[0]) + " else " + e(x.operands[2]) + ")"; break;
      case expr_kind::logical: s = "(" + e(x.operands[0]) + (x.is_and ? " and " : " or ") + e(x.operands[1]) + ")"; break;
      case expr_kind::global: s = "global(" + f_.globals[static_cast<std::size_t>(x.global)].name + ")"; break;
      case expr_kind::unary: s = std::string("(") + to_string(x.unary_op) + " " + e(x.operands[0]) + ")"; break;
      case expr_kind::binary: s = "(" + e(x.operands[0]) + " " + to_string(x.binary_op) + " " + e(x.operands[1]) + ")"; break;
      case expr_kind::compare: s = "(" + e(x.operands[0]) + " " + to_string(x.compare_op) + " " + e(x.operands[1]) + ")"; break;
      case expr_kind::call: {
        s = e(x.operands[0]) + "(";
        std::size_t nargs = x.operands.size() - 1, nkw = x.keywords.size();
        for (std::size_t i = 0; i < nargs; ++i) {
          s += i ? ", " : "";
          if (i >= nargs - nkw) s += x.keywords[i - (nargs - nkw)] + "=";
          s += e(x.operands[i + 1]);
        }
        s += ")";
        break;
      }
      case expr_kind::attribute: s = e(x.operands[0]) + "." + x.name; break;
      case expr_kind::subscript: s = e(x.operands[0]) + "[" + e(x.operands[1]) + "]"; break;
      case expr_kind::slice: s = "slice(" + operands() + ")"; break;
      case expr_kind::cast: s = "cast(" + e(x.operands[0]) + ")"; break;
      case expr_kind::op: {
        // An intrinsic prints as the name it has in the registry, without its index.
        const intrinsic_info* in = x.op == op_id::intrinsic && !x.attrs.empty() ? intrinsic_at(x.attrs[0]) : nullptr;
        s = (in != nullptr ? std::string(in->name) : std::string(to_string(x.op))) + "(" + operands();
        for (std::size_t i = in != nullptr ? 1 : 0; i < x.attrs.size(); ++i) s += "; " + std::to_string(x.attrs[i]);
        s += ")";
        break;
      }
    }
    if (x.ty) s += " :: " + x.ty->str();
    return s;
  }

  void block(const std::vector<stmt_id>& ids, int depth) {
    if (ids.empty()) line(depth, "pass");
    for (auto id : ids) statement(f_.at_stmt(id), depth);
  }

  void line(int depth, const std::string& text) { out_ << std::string(static_cast<std::size_t>(depth) * 4, ' ') << text << "\n"; }

  void statement(const stmt& s, int d) {
    switch (s.kind) {
      case stmt_kind::assign: line(d, e(s.target) + " = " + e(s.value)); break;
      case stmt_kind::expression: line(d, e(s.value)); break;
      case stmt_kind::if_:
        line(d, "if " + e(s.value) + ":");
        block(s.body, d + 1);
        if (!s.orelse.empty()) {
          line(d, "else:");
          block(s.orelse, d + 1);
        }
        break;
      case stmt_kind::while_:
        line(d, "while " + e(s.value) + ":");
        block(s.body, d + 1);
        if (!s.orelse.empty()) {
          line(d, "else:");
          block(s.orelse, d + 1);
        }
        break;
      case stmt_kind::for_range:
        line(d, "for " + var(s.var) + " in range(" + e(s.start) + ", " + e(s.stop) + ", " + e(s.step) + "):");
        block(s.body, d + 1);
        if (!s.orelse.empty()) {
          line(d, "else:");
          block(s.orelse, d + 1);
        }
        break;
      case stmt_kind::break_: line(d, "break"); break;
      case stmt_kind::continue_: line(d, "continue"); break;
      case stmt_kind::return_: line(d, "return " + (s.value == no_id ? std::string("None") : e(s.value))); break;
      case stmt_kind::pass: line(d, "pass"); break;
      case stmt_kind::raise_:  // typed: the message it raises with, the class in its raise site
        line(d, s.value != no_id ? "raise " + e(s.value) : s.message.empty() ? std::string("raise") : "raise: " + s.message);
        break;
      case stmt_kind::assert_:
        line(d, "assert " + e(s.value) + (s.message.empty() ? std::string() : ", " + s.message));
        break;
    }
  }

  const function& f_;
  std::ostringstream out_;
};

}  // namespace

std::string function::dump() const { return dumper(*this).run(); }

}  // namespace cuforge::frontend

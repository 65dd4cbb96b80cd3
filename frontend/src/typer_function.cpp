// One function typed for one tuple of argument types: the passes to a
// fixpoint over the variables' types, then the final pass; the helpers that
// emit typed nodes, convert values and join types.
#include "typer_impl.hpp"

#include "gpu_conversions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cuforge::frontend::detail {

// --- free helpers ------------------------------------------------------------------

void add_roots(std::vector<int>& into, const std::vector<int>& from) {
  for (int r : from)
    if (!std::binary_search(into.begin(), into.end(), r)) into.insert(std::upper_bound(into.begin(), into.end(), r), r);
}

const type* literal_type(type_context& tc, const constant_value& cv) {
  switch (cv.k) {
    case constant_value::kind::none: return tc.none();
    case constant_value::kind::boolean: return tc.boolean();
    case constant_value::kind::integer: return tc.int64();
    case constant_value::kind::floating: return tc.float64();
    case constant_value::kind::complex: return tc.complex128();
  }
  return tc.none();
}

namespace {

std::int64_t wrap_int(std::uint64_t bits, const type* t) {
  if (t->bits >= 64) return static_cast<std::int64_t>(bits);
  std::uint64_t mask = (std::uint64_t{1} << t->bits) - 1;
  bits &= mask;
  if (t->is_signed && (bits >> (t->bits - 1)) & 1) bits |= ~mask;
  return static_cast<std::int64_t>(bits);
}

double as_double(const constant_value& cv, const type* from) {
  switch (cv.k) {
    case constant_value::kind::boolean: return cv.b ? 1 : 0;
    case constant_value::kind::integer:
      if (from && from->is_int() && !from->is_signed) return static_cast<double>(static_cast<std::uint64_t>(cv.i));
      return static_cast<double>(cv.i);
    case constant_value::kind::floating: return cv.f;
    case constant_value::kind::complex: return cv.c.real();
    case constant_value::kind::none: return 0;
  }
  return 0;
}

// A float constant converted to the integer type `to` as the same conversion of a run-time value
// runs (target::float_to_int; the GPU's cvt.rzi): toward zero, saturating at the range of the
// conversion's register (16 bits at least; narrower types take its low bits), nan giving the sign
// bit alone at 64 bits and at 32 from a float64, else 0. So a value the compiler knows converts as
// one it does not.
std::uint64_t float_to_int_bits(double d, bool from_double, const type* to) {
  const int wide = std::max(to->bits, 16);
  if (std::isnan(d)) return nan_int_bits(wide, from_double);
  d = std::trunc(d);
  if (to->is_signed) {
    const double lo = -std::ldexp(1.0, wide - 1), hi = std::ldexp(1.0, wide - 1);  // hi itself is out of range
    if (d <= lo) return static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::min() >> (64 - wide));
    if (d >= hi) return (std::uint64_t{1} << (wide - 1)) - 1;
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(d));
  }
  if (d <= 0) return 0;
  if (d >= std::ldexp(1.0, wide)) return wide == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << wide) - 1;
  return static_cast<std::uint64_t>(d);
}

std::uint64_t as_bits(const constant_value& cv, const type* from, const type* to) {
  switch (cv.k) {
    case constant_value::kind::boolean: return cv.b ? 1 : 0;
    case constant_value::kind::integer: return static_cast<std::uint64_t>(cv.i);
    case constant_value::kind::floating:
    case constant_value::kind::complex: {
      // a complex64's parts are float32s (bits: the whole number's); a Python float is a float64
      int part_bits = from == nullptr ? 64 : from->is_complex() ? from->bits / 2 : from->bits;
      return float_to_int_bits(as_double(cv, from), part_bits == 64, to);
    }
    case constant_value::kind::none: return 0;
  }
  return 0;
}

}  // namespace

constant_value convert_constant(const constant_value& cv, const type* from, const type* to) {
  constant_value r;
  r.weak = cv.weak;
  switch (to->kind) {
    case type_kind::boolean:
      r.k = constant_value::kind::boolean;
      switch (cv.k) {
        case constant_value::kind::boolean: r.b = cv.b; break;
        case constant_value::kind::integer: r.b = cv.i != 0; break;
        case constant_value::kind::floating: r.b = cv.f != 0; break;
        case constant_value::kind::complex: r.b = cv.c != std::complex<double>(0, 0); break;
        case constant_value::kind::none: r.b = false; break;
      }
      break;
    case type_kind::integer:
      r.k = constant_value::kind::integer;
      r.i = wrap_int(as_bits(cv, from, to), to);
      break;
    case type_kind::floating:
      r.k = constant_value::kind::floating;
      r.f = as_double(cv, from);
      // A narrower float holds the value rounded (np.float32(0.1) widened again is 0.10000000149011612).
      if (to->bits == 32) r.f = static_cast<double>(static_cast<float>(r.f));
      if (to->bits == 16) r.f = static_cast<double>(static_cast<_Float16>(r.f));
      break;
    case type_kind::complex:
      r.k = constant_value::kind::complex;
      r.c = cv.k == constant_value::kind::complex ? cv.c : std::complex<double>(as_double(cv, from), 0);
      break;
    default: r.k = constant_value::kind::none; break;
  }
  return r;
}

std::string canonical_name(const std::string& name, bool is_module) {
  std::string n = name;
  for (const char* prefix : {"cuforge.cuda", "numba.cuda"}) {
    std::string p = prefix;
    if (n == p || n.rfind(p + ".", 0) == 0) n = "cuda" + n.substr(p.size());
  }
  if (n == "np" || n.rfind("np.", 0) == 0) n = "numpy" + n.substr(2);
  if (!is_module && n.find('.') == std::string::npos) n = "builtins." + n;
  return n;
}

// --- the function typer ------------------------------------------------------------

function_typer::function_typer(module_typer& m, const function& src, std::vector<const type*> args, bool is_kernel,
                               const type* declared_return, int sid)
    : m_(m),
      tc_(m.tc),
      src_(src),
      args_(std::move(args)),
      is_kernel_(is_kernel),
      declared_return_(declared_return),
      sid_(sid) {}

void function_typer::fail(location loc, const std::string& message) const { throw typing_error(message, src_, loc); }

std::string function_typer::types_text(const call_args& c) {
  std::string s = "(";
  std::size_t n = 0;
  for (const auto& a : c.args) s += (n++ ? ", " : "") + (a.ty ? a.ty->str() : std::string("?"));
  for (const auto& k : c.kwargs) s += (n++ ? ", " : "") + k.name + "=" + (k.v.ty ? k.v.ty->str() : std::string("?"));
  return s + (n == 1 ? ",)" : ")");
}

void function_typer::no_impl(const call_args& c, const std::string& why) const {
  fail(c.loc, "No implementation of " + c.name + " for " + types_text(c) + (why.empty() ? "" : ": " + why));
}

function_typer::nesting::nesting(function_typer& ft, location loc) : ft(ft) {
  // Deeper than any source a person writes; well within the stack.
  constexpr int limit = 1000;
  if (++ft.depth_ > limit) {
    --ft.depth_;
    ft.fail(loc, "malformed IR: expressions or statements nested more than " + std::to_string(limit) +
                     " deep (a cycle?)");
  }
}

const expr& function_typer::sx(expr_id id, location where) const {
  if (id < 0 || static_cast<std::size_t>(id) >= src_.exprs.size())
    fail(where, "malformed IR: expression " + std::to_string(id) + " does not exist");
  return src_.exprs[static_cast<std::size_t>(id)];
}

const stmt& function_typer::ss(stmt_id id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= src_.stmts.size())
    fail({src_.first_line, 0}, "malformed IR: statement " + std::to_string(id) + " does not exist");
  return src_.stmts[static_cast<std::size_t>(id)];
}

expr_id function_typer::add(expr e) {
  out_->exprs.push_back(std::move(e));
  used_.push_back(false);
  return static_cast<expr_id>(out_->exprs.size() - 1);
}

expr_id function_typer::use(expr_id id) {
  if (id == no_id) return id;
  auto i = static_cast<std::size_t>(id);
  if (!used_[i]) {
    used_[i] = true;
    return id;
  }
  return clone(id);
}

expr_id function_typer::clone(expr_id id) {
  expr e = out_->at(id);
  for (auto& o : e.operands)
    if (o != no_id) o = clone(o);
  expr_id c = add(std::move(e));
  used_[static_cast<std::size_t>(c)] = true;
  return c;
}

stmt_id function_typer::add_stmt(stmt s) {
  out_->stmts.push_back(std::move(s));
  return static_cast<stmt_id>(out_->stmts.size() - 1);
}

value function_typer::constant(const constant_value& cv, const type* t, location loc, bool weak) {
  expr e;
  e.kind = expr_kind::constant;
  e.loc = loc;
  e.ty = t;
  e.value = convert_constant(cv, t, t);
  e.value.weak = weak;
  value v;
  v.ty = t;
  v.weak = weak;
  v.nonneg = t->kind == type_kind::boolean || (t->is_int() && (!t->is_signed || e.value.i >= 0));
  v.id = add(std::move(e));
  return v;
}

value function_typer::int_constant(std::int64_t i, const type* t, location loc, bool weak) {
  constant_value cv;
  cv.k = constant_value::kind::integer;
  cv.i = i;
  return constant(convert_constant(cv, tc_.int64(), t), t, loc, weak);
}

value function_typer::op(op_id id, const type* t, std::vector<value> operands, location loc,
                         std::vector<std::int64_t> attrs, bool side_effects) {
  expr e;
  e.kind = expr_kind::op;
  e.op = id;
  e.loc = loc;
  e.ty = t;
  e.attrs = std::move(attrs);
  value v;
  v.ty = t;
  v.pure = !side_effects;
  for (const auto& o : operands) {
    e.operands.push_back(use(o.id));
    v.pure = v.pure && o.pure;
  }
  v.id = add(std::move(e));
  return v;
}

const constant_value* function_typer::const_of(const value& v) const {
  if (v.id == no_id) return nullptr;
  const expr& e = out_->at(v.id);
  return e.kind == expr_kind::constant ? &e.value : nullptr;
}

std::optional<std::int64_t> function_typer::const_int(const value& v) const {
  const constant_value* c = const_of(v);
  if (!c) return std::nullopt;
  if (c->k == constant_value::kind::integer) return c->i;
  if (c->k == constant_value::kind::boolean) return c->b ? 1 : 0;
  return std::nullopt;
}

std::int64_t function_typer::add_string(const std::string& text) { return m_.add_string(text); }

value function_typer::unwrap(const value& v, location loc) {
  if (v.ty == nullptr || !v.ty->is_optional()) return v;
  const std::string message = "expected " + v.ty->dtype->str() + ", got None";
  std::int64_t site = 0;  // a scratch pass's site is never lowered
  if (final_) site = m_.add_site({kernel_error::raised, "TypeError", message, src_.display_name(), src_.filename, loc.line});
  // Pure: evaluated where it is used (never hoisted before a test that guards it, as in
  // `r is not None and r > 0`); evaluated twice it checks twice.
  value r = op(op_id::optional_value, v.ty->dtype, {v}, loc, {site});
  r.roots = v.roots;
  return r;
}

value function_typer::cast(const value& v, const type* t, location loc) {
  if (v.ty == t) return v;
  if (v.ty->is_optional()) return cast(unwrap(v, loc), t, loc);
  if (v.ty->is_time() || t->is_time()) return time_cast(v, t, loc);
  if (v.ty->is_bfloat16() || t->is_bfloat16()) {  // to and from a real number, at run time (codegen's cast)
    const type* other = v.ty->is_bfloat16() ? t : v.ty;
    if (!other->is_bfloat16() && (!other->is_scalar() || other->is_complex()))
      fail(loc, "cannot convert " + v.ty->str() + " to " + t->str());
    value r = cast_node(v, t, loc);
    r.nonneg = false;
    return r;
  }
  if (!v.ty->is_scalar() || !t->is_scalar())
    fail(loc, "cannot convert " + v.ty->str() + " to " + t->str());
  if (const constant_value* c = const_of(v)) {
    value r = constant(convert_constant(*c, v.ty, t), t, loc, false);
    return r;
  }
  value r = cast_node(v, t, loc);
  // Non-negative integers stay so in a type at least as wide (or unsigned).
  r.nonneg = t->is_int() && (!t->is_signed || (v.nonneg && (v.ty->kind == type_kind::boolean ||
                                                             (v.ty->is_int() && (t->bits > v.ty->bits ||
                                                                                 (t->bits == v.ty->bits && v.ty->is_signed))))));
  return r;
}

value function_typer::cast_node(const value& v, const type* t, location loc) {
  expr e;
  e.kind = expr_kind::cast;
  e.loc = loc;
  e.ty = t;
  e.operands = {use(v.id)};
  value r;
  r.ty = t;
  r.pure = v.pure;
  r.id = add(std::move(e));
  return r;
}

value function_typer::convert(const value& v, const type* t, location loc, const std::string& what) {
  if (v.ty == t) return v;
  auto bad = [&]() -> value {
    fail(loc, "cannot convert " + v.ty->str() + " to " + t->str() + (what.empty() ? "" : " " + what));
  };
  if (!v.runtime() || !t->is_runtime()) return bad();
  if (t->is_optional()) {
    if (v.ty->kind == type_kind::none) return op(op_id::optional_none, t, {}, loc);
    if (!v.ty->is_optional()) {
      value r = op(op_id::optional_some, t, {convert(v, t->dtype, loc, what)}, loc);
      r.roots = v.roots;
      return r;
    }
    // OptionalType(S) to OptionalType(T), None staying None: for the T that S widens to.
    bool weak = false;
    if (join(v.ty->dtype, false, t->dtype, false, weak) != t->dtype) return bad();
    value r = cast_node(v, t, loc);
    r.roots = v.roots;
    return r;
  }
  if (v.ty->is_optional()) return convert(unwrap(v, loc), t, loc, what);
  if ((v.ty->is_scalar() || v.ty->is_bfloat16()) && (t->is_scalar() || t->is_bfloat16())) return cast(v, t, loc);
  if (v.ty->is_time() && t->is_time()) return cast(v, t, loc);
  if (v.ty->is_tuple() && t->is_tuple() && v.ty->elements.size() == t->elements.size()) {
    std::vector<value> es = tuple_elements(v, loc);
    for (std::size_t i = 0; i < es.size(); ++i) es[i] = convert(es[i], t->elements[i], loc, what);
    if (v.ty->names != t->names) return bad();
    if (!t->names.empty()) return make_named_tuple(std::move(es), tc_.tuple_class(t->name, t->names), loc);
    return make_tuple(std::move(es), loc);
  }
  if (v.ty->is_array() && t->is_array() && v.ty->dtype == t->dtype && v.ty->ndim == t->ndim &&
      v.ty->space == t->space && (t->layout == array_layout::any || t->layout == v.ty->layout) &&
      (t->readonly || !v.ty->readonly)) {
    // A view of the whole array, typed with the wider layout (or readonly).
    value r = op(op_id::array_view, t, {v}, loc, std::vector<std::int64_t>(static_cast<std::size_t>(t->ndim), 1));
    r.roots = v.roots;
    return r;
  }
  return bad();
}

var_id function_typer::new_temp(const type* t) {
  out_->vars.push_back({"", {}, t});
  return static_cast<var_id>(out_->vars.size() - 1);
}

void function_typer::emit_effect(const value& v, location loc, std::vector<stmt_id>& out) {
  stmt st;
  st.kind = stmt_kind::expression;
  st.loc = loc;
  st.value = use(v.id);
  out.push_back(add_stmt(std::move(st)));
}

value function_typer::hoist(const value& v, location loc) {
  if (!prefix_) fail(loc, "internal: no statement to evaluate this expression before");
  var_id t = new_temp(v.ty);
  expr target;
  target.kind = expr_kind::variable;
  target.loc = loc;
  target.var = t;
  target.ty = v.ty;
  expr_id tid = add(target);
  stmt s;
  s.kind = stmt_kind::assign;
  s.loc = loc;
  s.target = tid;
  s.value = use(v.id);
  prefix_->push_back(add_stmt(std::move(s)));
  value r = v;
  r.id = add(target);
  r.pure = true;
  r.literal = false;
  r.elems.clear();
  return r;
}

std::optional<fixed_value> function_typer::freeze(const value& v) const {
  fixed_value f;
  f.ty = v.ty;
  if (!v.runtime()) {
    if (v.self || v.id != no_id) return std::nullopt;  // a bound method keeps its receiver's node
    f.name = v.name;
    return f;
  }
  if (v.ty->is_scalar()) {
    const constant_value* c = const_of(v);
    if (!c) return std::nullopt;
    f.cv = *c;
    f.weak = v.weak;
    return f;
  }
  if (v.ty->is_tuple() && v.literal) {
    for (const auto& e : v.elems) {
      auto fe = freeze(e);
      if (!fe) return std::nullopt;
      f.elems.push_back(std::move(*fe));
    }
    return f;
  }
  return std::nullopt;
}

value function_typer::thaw(const fixed_value& f, location loc) {
  if (!f.ty->is_runtime()) {
    value r;
    r.ty = f.ty;
    r.name = f.name;
    return r;
  }
  if (f.ty->is_tuple()) {
    std::vector<value> es;
    for (const auto& e : f.elems) es.push_back(thaw(e, loc));
    if (!f.ty->names.empty()) return make_named_tuple(std::move(es), tc_.tuple_class(f.ty->name, f.ty->names), loc);
    return make_tuple(std::move(es), loc);
  }
  return constant(f.cv, f.ty, loc, f.weak);
}

value function_typer::var_ref(var_id v, location loc) {
  if (v < 0 || static_cast<std::size_t>(v) >= vars_.size())
    fail(loc, "malformed IR: variable " + std::to_string(v) + " does not exist");
  const var_state& s = vars_[static_cast<std::size_t>(v)];
  if (s.ty && s.fixed) return thaw(*s.fixed, loc);
  if (!s.ty) {
    if (!final_) throw unknown_type{};
    const std::string& name = src_.vars[static_cast<std::size_t>(v)].name;
    if (assigned_somewhere_[static_cast<std::size_t>(v)]) {
      if (first_error_) std::rethrow_exception(first_error_);
      fail(loc, "cannot infer the type of '" + name + "': every value assigned to it depends on itself");
    }
    fail(loc, "'" + name + "' is used but never assigned");
  }
  expr e;
  e.kind = expr_kind::variable;
  e.loc = loc;
  e.var = v;
  e.ty = s.ty;
  value r;
  r.ty = s.ty;
  r.weak = s.weak;
  r.nonneg = (s.ty->is_int() || s.ty->kind == type_kind::boolean) && (s.nonneg || !s.ty->is_signed);
  r.roots = s.roots;
  r.id = add(std::move(e));
  return r;
}

value function_typer::make_tuple(std::vector<value> elems, location loc) {
  expr e;
  e.kind = expr_kind::tuple;
  e.loc = loc;
  std::vector<const type*> types;
  value r;
  for (const auto& x : elems) {
    if (!x.runtime()) fail(loc, "cannot put " + x.ty->str() + " in a tuple");
    types.push_back(x.ty);
    e.operands.push_back(use(x.id));
    r.pure = r.pure && x.pure;
    add_roots(r.roots, x.roots);
  }
  r.ty = e.ty = tc_.tuple(std::move(types));
  r.id = add(std::move(e));
  r.literal = true;
  r.elems = std::move(elems);
  return r;
}

value function_typer::make_named_tuple(std::vector<value> elems, const type* cls, location loc) {
  value r = make_tuple(std::move(elems), loc);
  r.ty = tc_.named_tuple(r.ty->elements, cls->name, cls->names);
  out_->at(r.id).ty = r.ty;
  return r;
}

value function_typer::conditional(const value& cond, const value& a, const value& b, const type* t, location loc) {
  expr e;
  e.kind = expr_kind::conditional;
  e.loc = loc;
  e.ty = t;
  e.operands = {use(cond.id), use(a.id), use(b.id)};
  value r;
  r.ty = t;
  r.weak = a.weak && b.weak;
  r.nonneg = a.nonneg && b.nonneg;
  r.pure = cond.pure && a.pure && b.pure;
  r.roots = a.roots;
  add_roots(r.roots, b.roots);
  r.id = add(std::move(e));
  return r;
}

std::vector<value> function_typer::tuple_elements(const value& t, location loc) {
  if (!t.ty->is_tuple()) fail(loc, "expected a tuple, got " + t.ty->str());
  if (t.literal) return t.elems;
  value p = pure(t, loc);
  std::vector<value> out;
  for (std::size_t i = 0; i < t.ty->elements.size(); ++i) {
    value e = op(op_id::tuple_get, t.ty->elements[i], {p}, loc, {static_cast<std::int64_t>(i)});
    e.roots = p.roots;
    e.nonneg = e.ty->is_int() && !e.ty->is_signed;
    out.push_back(std::move(e));
  }
  return out;
}


// --- variables -----------------------------------------------------------------------

const type* function_typer::join(const type* a, bool a_weak, const type* b, bool b_weak, bool& weak) {
  weak = a_weak && b_weak;
  if (a == b) return a;
  if (a->is_scalar() && b->is_scalar()) return promote(tc_, a, b);
  weak = false;
  // None with a value, or an optional with either: an optional of the values' common type.
  if (a->kind == type_kind::none || b->kind == type_kind::none || a->is_optional() || b->is_optional()) {
    if (!a->is_runtime() || !b->is_runtime()) return nullptr;
    auto value_of = [](const type* t) { return t->is_optional() ? t->dtype : t; };
    const type *x = value_of(a), *y = value_of(b);
    if (x->kind == type_kind::none) return tc_.optional(y);
    if (y->kind == type_kind::none) return tc_.optional(x);
    bool w = false;
    const type* j = join(x, false, y, false, w);
    return j ? tc_.optional(j) : nullptr;
  }
  if (a->is_tuple() && b->is_tuple() && a->elements.size() == b->elements.size() && a->name == b->name &&
      a->names == b->names) {
    std::vector<const type*> es;
    for (std::size_t i = 0; i < a->elements.size(); ++i) {
      bool w = false;
      const type* e = join(a->elements[i], false, b->elements[i], false, w);
      if (!e) return nullptr;
      es.push_back(e);
    }
    return a->names.empty() ? tc_.tuple(std::move(es)) : tc_.named_tuple(std::move(es), a->name, a->names);
  }
  if (a->is_array() && b->is_array() && a->dtype == b->dtype && a->ndim == b->ndim && a->space == b->space)
    return tc_.array(a->dtype, a->ndim, a->layout == b->layout ? a->layout : array_layout::any,
                     a->readonly || b->readonly, a->space);
  return nullptr;
}

void function_typer::assign_var(var_id v, const value& val, location loc, std::vector<stmt_id>& out) {
  if (v < 0 || static_cast<std::size_t>(v) >= vars_.size())
    fail(loc, "malformed IR: variable " + std::to_string(v) + " does not exist");
  const std::string& name = src_.vars[static_cast<std::size_t>(v)].name;
  var_state& s = vars_[static_cast<std::size_t>(v)];
  if (!val.runtime() || (s.ty && !s.ty->is_runtime())) {
    // A compile-time value (`f = math.sin`): the variable names it; nothing runs.
    std::optional<fixed_value> f = val.runtime() ? std::nullopt : freeze(val);
    if (!f && !val.runtime()) fail(loc, "cannot assign " + val.ty->str() + " to '" + name + "': it is not a run-time value");
    if (s.ty && s.ty != val.ty)
      fail(loc, "variable '" + name + "' is assigned " + s.ty->str() + " and " + val.ty->str() +
                    ": a variable holding a compile-time value (a function, a dtype, a module) must always hold "
                    "the same one");
    if (!s.ty) {
      s.ty = val.ty;
      s.fixed = std::move(f);
      changed_ = true;
    }
    return;
  }
  auto no_common_type = [&] {
    fail(loc, "variable '" + name + "' is assigned values of types " + s.ty->str() + " and " + val.ty->str() +
                  ", which have no common type");
  };
  if (final_) {
    bool weak = false;
    if (s.ty && !join(s.ty, s.weak, val.ty, val.weak, weak)) no_common_type();
  } else {
    if (!s.ty) {
      s.ty = val.ty;
      s.weak = val.weak;
      s.nonneg = s.nonneg && val.nonneg;
      s.roots = val.roots;
      changed_ = true;
    } else {
      bool weak = false;
      const type* t = join(s.ty, s.weak, val.ty, val.weak, weak);
      if (!t) no_common_type();
      bool nonneg = s.nonneg && (val.nonneg || (val.ty->is_int() && !val.ty->is_signed));
      std::size_t roots = s.roots.size();
      add_roots(s.roots, val.roots);
      if (t != s.ty || weak != s.weak || nonneg != s.nonneg || roots != s.roots.size()) changed_ = true;
      s.ty = t;
      s.weak = weak;
      s.nonneg = nonneg;
    }
    // Assigned once, a constant: reads become the constant.
    const bool once = assignments_[static_cast<std::size_t>(v)] == 1;
    std::optional<fixed_value> f = once && s.ty == val.ty ? freeze(val) : std::nullopt;
    if (f.has_value() != s.fixed.has_value()) changed_ = true;
    s.fixed = std::move(f);
  }
  value c = convert(val, s.ty, loc, "for variable '" + name + "'");
  expr target;
  target.kind = expr_kind::variable;
  target.loc = loc;
  target.var = v;
  target.ty = s.ty;
  stmt st;
  st.kind = stmt_kind::assign;
  st.loc = loc;
  st.target = add(std::move(target));
  st.value = use(c.id);
  out.push_back(add_stmt(std::move(st)));
}

void function_typer::mark_written(const value& a) {
  for (int r : a.roots)
    if (r >= 0 && static_cast<std::size_t>(r) < writes_.size()) writes_[static_cast<std::size_t>(r)] = true;
}

// --- the passes ------------------------------------------------------------------

namespace {

void scan_targets(const function& f, expr_id e, std::vector<int>& assigned, int depth = 0) {
  if (e < 0 || static_cast<std::size_t>(e) >= f.exprs.size() || depth > 1000) return;
  const expr& x = f.at(e);
  if (x.kind == expr_kind::variable && x.var >= 0 && static_cast<std::size_t>(x.var) < assigned.size())
    ++assigned[static_cast<std::size_t>(x.var)];
  if (x.kind == expr_kind::tuple)
    for (auto o : x.operands) scan_targets(f, o, assigned, depth + 1);
}

void scan_assignments(const function& f, const std::vector<stmt_id>& block, std::vector<int>& assigned, int depth) {
  if (depth > 1000) return;
  for (auto id : block) {
    if (id < 0 || static_cast<std::size_t>(id) >= f.stmts.size()) continue;
    const stmt& s = f.at_stmt(id);
    if (s.kind == stmt_kind::assign) scan_targets(f, s.target, assigned);
    if (s.kind == stmt_kind::for_range && s.var >= 0 && static_cast<std::size_t>(s.var) < assigned.size())
      assigned[static_cast<std::size_t>(s.var)] += 2;  // the loop assigns it again and again
    scan_assignments(f, s.body, assigned, depth + 1);
    scan_assignments(f, s.orelse, assigned, depth + 1);
  }
}

// Pushes the function being typed (recursive calls find it), pops on exit.
struct stack_entry {
  module_typer& m;
  explicit stack_entry(module_typer& m, module_typer::frame f) : m(m) { m.frames.push_back(f); }
  ~stack_entry() { m.frames.pop_back(); }
  stack_entry(const stack_entry&) = delete;
  stack_entry& operator=(const stack_entry&) = delete;
};

}  // namespace

typed_function function_typer::run() {
  stack_entry guard(m_, module_typer::frame{&src_, &args_, this, sid_});
  const location def{src_.first_line, 0};
  const std::string fname = src_.display_name();
  if (args_.size() != src_.params.size())
    fail(def, fname + "() takes " + std::to_string(src_.params.size()) + " argument" +
                  (src_.params.size() == 1 ? "" : "s") + " but " + std::to_string(args_.size()) + " type" +
                  (args_.size() == 1 ? " was" : "s were") + " given");
  if (is_kernel_ && src_.varargs)
    fail(def, "Unsupported: a kernel with *arguments (" + fname + "); device functions may take them");
  vars_.assign(src_.vars.size(), var_state{});
  assignments_.assign(src_.vars.size(), 0);
  for (std::size_t i = 0; i < args_.size(); ++i) {
    var_id p = src_.params[i];
    if (p < 0 || static_cast<std::size_t>(p) >= src_.vars.size())
      fail(def, "malformed IR: parameter " + std::to_string(i) + " is not a variable");
    // A device function may be given compile-time values (a function, a
    // dtype...): the parameter names that value, each a specialisation of
    // its own, and is not a parameter of the generated function.
    if (!args_[i] || (!args_[i]->is_runtime() && (is_kernel_ || args_[i]->kind == type_kind::none)))
      fail(def, "argument '" + src_.vars[static_cast<std::size_t>(p)].name + "' has type " +
                    (args_[i] ? args_[i]->str() : std::string("(none given)")) + ", which is not a run-time value");
    var_state& s = vars_[static_cast<std::size_t>(p)];
    if (s.ty) fail(def, "malformed IR: parameter '" + src_.vars[static_cast<std::size_t>(p)].name + "' appears twice");
    s.ty = args_[i];
    s.nonneg = false;
    s.roots = {static_cast<int>(i)};
    if (!args_[i]->is_runtime()) s.fixed = fixed_value{args_[i], src_.vars[static_cast<std::size_t>(p)].name, {}, false, {}};
    ++assignments_[static_cast<std::size_t>(p)];
  }
  scan_assignments(src_, src_.body, assignments_, 0);
  assigned_somewhere_.assign(src_.vars.size(), false);
  for (std::size_t i = 0; i < assignments_.size(); ++i) assigned_somewhere_[i] = assignments_[i] > 0;

  auto begin_pass = [&](bool final) {
    out_ = std::make_shared<function>();
    out_->name = src_.name;
    out_->qualname = src_.qualname;
    out_->filename = src_.filename;
    out_->first_line = src_.first_line;
    out_->source_lines = src_.source_lines;
    out_->params = src_.params;
    out_->vars = src_.vars;
    out_->globals = src_.globals;
    out_->fingerprint = src_.fingerprint;
    used_.clear();
    ufunc_recipes_.clear();
    final_ = final;
    changed_ = false;
    writes_.assign(args_.size(), false);
    uses_barrier_ = false;
    cooperative_ = false;
    loop_depth_ = 0;
    depth_ = 0;
    prefix_ = nullptr;
  };

  // Types only widen and the lattice is finite, so this settles; the bound
  // is a guard against a bug turning into a hang.
  constexpr int max_passes = 64;
  std::exception_ptr last_error;
  for (int pass = 0;; ++pass) {
    if (pass == max_passes) fail(def, "internal: type inference for " + fname + " did not settle");
    begin_pass(false);
    first_error_ = nullptr;
    std::vector<stmt_id> body;
    incomplete_ = false;
    block(src_.body, body);
    last_error = first_error_;
    // Running off the end returns None (the return type becomes an optional), as Python and Numba
    // do; judged only on a pass that typed every statement (a return left out would look like an end).
    if (!is_kernel_ && !declared_return_ && !incomplete_ && !terminates(body)) {
      bool weak = false;
      const type* j = ret_.ty ? join(ret_.ty, ret_.weak, tc_.none(), false, weak) : tc_.none();
      if (!j)
        fail(def, fname + " can reach its end without returning, but returns " + ret_.ty->str() + " at line " +
                      std::to_string(ret_loc_.line));
      if (j != ret_.ty) {
        if (!ret_.ty) ret_loc_ = def;
        ret_.ty = j;
        ret_.weak = false;
        changed_ = true;
      }
    }
    if (!changed_) break;
  }

  begin_pass(true);
  first_error_ = last_error;  // what var_ref reports when a variable never got a type
  for (std::size_t i = 0; i < vars_.size(); ++i)
    out_->vars[i].ty = vars_[i].ty ? vars_[i].ty : tc_.none();
  std::vector<stmt_id> body;
  // A parameter assigned values of another type becomes a local of the
  // joined type, copied from a fresh parameter of the argument's type.
  for (std::size_t i = 0; i < args_.size(); ++i) {
    var_id p = src_.params[i];
    if (vars_[static_cast<std::size_t>(p)].ty == args_[i] || !args_[i]->is_runtime()) continue;
    out_->vars.push_back({src_.vars[static_cast<std::size_t>(p)].name, src_.vars[static_cast<std::size_t>(p)].first,
                          args_[i]});
    var_id np = static_cast<var_id>(out_->vars.size() - 1);
    out_->params[i] = np;
    value arg;
    expr e;
    e.kind = expr_kind::variable;
    e.loc = def;
    e.var = np;
    e.ty = args_[i];
    arg.ty = args_[i];
    arg.roots = {static_cast<int>(i)};
    arg.id = add(std::move(e));
    assign_var(p, arg, def, body);
  }
  block(src_.body, body);

  const type* ret = is_kernel_ ? tc_.none() : declared_return_ ? declared_return_ : ret_.ty ? ret_.ty : tc_.none();
  if (handed_out_ && handed_out_ != ret)
    fail(def, "the return type of recursive function " + fname + " does not converge: a function it calls was "
              "typed with it returning " + handed_out_->str() + ", and it returns " + ret->str() +
              "; give it an explicit signature");
  if (ret->kind != type_kind::none && !terminates(body)) {
    // Where the body can run off its end Python returns None: an optional's None (the
    // inferred return type is one then); under a declared return type, that type's zero.
    location end = body.empty() ? def : out_->at_stmt(body.back()).loc;
    std::vector<stmt_id> tail;
    prefix_ = &tail;
    auto zero = [&](auto&& self, const type* t) -> value {
      if (t->is_optional()) return op(op_id::optional_none, t, {}, end);
      if (t->is_scalar()) return int_constant(0, t, end);
      if (t->is_tuple()) {
        std::vector<value> es;
        for (auto* e : t->elements) es.push_back(self(self, e));
        return make_tuple(std::move(es), end);
      }
      fail(end, fname + " can reach its end without returning, but it returns " + t->str() + " elsewhere");
    };
    value z = zero(zero, ret);
    stmt s;
    s.kind = stmt_kind::return_;
    s.loc = end;
    s.value = use(z.id);
    body.push_back(add_stmt(std::move(s)));
    prefix_ = nullptr;
  }
  out_->body = std::move(body);

  // Compile-time arguments are gone from the generated function's parameters.
  std::vector<var_id> params;
  std::vector<const type*> runtime_args;
  for (std::size_t i = 0; i < args_.size(); ++i)
    if (args_[i]->is_runtime()) {
      params.push_back(out_->params[i]);
      runtime_args.push_back(args_[i]);
    }
  out_->params = std::move(params);

  typed_function tf;
  tf.ir = out_;
  tf.arg_types = std::move(runtime_args);
  tf.return_type = ret;
  tf.symbol = make_symbol(src_, args_);
  tf.is_kernel = is_kernel_;
  tf.writes_arg = writes_;
  tf.uses_barrier = uses_barrier_;
  tf.cooperative = cooperative_;
  return tf;
}

}  // namespace cuforge::frontend::detail

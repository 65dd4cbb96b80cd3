// Expressions: constants, variables, globals, operators (Numba's typing,
// numba_typing.hpp, with Python's operator semantics),
// conditionals, attributes and the dispatch of calls.
#include "intrinsic_registry.hpp"
#include "numba_typing.hpp"
#include "typer_impl.hpp"

#include <cuforge/frontend/extending.hpp>

#include <algorithm>

#include <cmath>
#include <limits>

namespace cuforge::frontend::detail {

namespace {

std::int64_t wrap(std::uint64_t bits, const type* t) {
  constant_value cv;
  cv.k = constant_value::kind::integer;
  cv.i = static_cast<std::int64_t>(bits);
  return convert_constant(cv, t, t).i;
}

// Integer arithmetic on constants of type `t` (values sign- or
// zero-extended in int64), as the ops define it; nullopt where it is not
// folded.
std::optional<std::int64_t> fold_int(binop o, const type* t, std::int64_t x, std::int64_t y) {
  std::uint64_t ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
  bool s = t->is_signed;
  switch (o) {
    case binop::add: return wrap(ux + uy, t);
    case binop::sub: return wrap(ux - uy, t);
    case binop::mul: return wrap(ux * uy, t);
    case binop::floordiv:
      if (y == 0) return 0;
      if (!s) return wrap(ux / uy, t);
      if (x == std::numeric_limits<std::int64_t>::min() && y == -1) return wrap(ux, t);
      {
        std::int64_t q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        return wrap(static_cast<std::uint64_t>(q), t);
      }
    case binop::mod:
      if (y == 0) return 0;
      if (!s) return wrap(ux % uy, t);
      if (y == -1) return 0;
      {
        std::int64_t r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return wrap(static_cast<std::uint64_t>(r), t);
      }
    case binop::pow: {
      if (s && y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
      std::uint64_t r = 1, b = ux, e = uy;
      while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
      }
      return wrap(r, t);
    }
    case binop::lshift:
      if (y < 0 && s) return std::nullopt;
      if (uy >= static_cast<std::uint64_t>(t->bits)) return 0;
      return wrap(ux << uy, t);
    case binop::rshift:
      if (y < 0 && s) return std::nullopt;
      if (uy >= static_cast<std::uint64_t>(t->bits)) return (s && x < 0) ? -1 : 0;
      return s ? wrap(static_cast<std::uint64_t>(x >> uy), t) : wrap(ux >> uy, t);
    case binop::bitand_: return wrap(ux & uy, t);
    case binop::bitor_: return wrap(ux | uy, t);
    case binop::bitxor: return wrap(ux ^ uy, t);
    default: return std::nullopt;
  }
}

// Whether Python's exact value of `x o y`, two Python ints, leaves int64
// (where the IR keeps Python ints): such a constant cannot compile.
bool python_int_overflows(binop o, std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  switch (o) {
    case binop::add: return __builtin_add_overflow(x, y, &r);
    case binop::sub: return __builtin_sub_overflow(x, y, &r);
    case binop::mul: return __builtin_mul_overflow(x, y, &r);
    case binop::floordiv: return x == std::numeric_limits<std::int64_t>::min() && y == -1;
    case binop::lshift:
      if (y < 0 || x == 0) return false;
      return y >= 64 || ((x << y) >> y) != x;
    case binop::pow: {
      if (y < 0) return false;
      std::int64_t acc = 1, base = x;
      for (std::int64_t e = y; e > 0; e >>= 1) {
        if ((e & 1) && __builtin_mul_overflow(acc, base, &acc)) return true;
        if (e > 1 && __builtin_mul_overflow(base, base, &base)) return true;  // |x| >= 2: later bits need it
      }
      return false;
    }
    default: return false;
  }
}

op_id arith_op(binop o) {
  switch (o) {
    case binop::add: return op_id::add;
    case binop::sub: return op_id::sub;
    case binop::mul: return op_id::mul;
    case binop::truediv: return op_id::div;
    case binop::floordiv: return op_id::floordiv;
    case binop::mod: return op_id::mod;
    case binop::pow: return op_id::pow;
    case binop::lshift: return op_id::shl;
    case binop::rshift: return op_id::shr;
    case binop::bitor_: return op_id::bit_or;
    case binop::bitxor: return op_id::bit_xor;
    case binop::bitand_: return op_id::bit_and;
    case binop::matmul: return op_id::none;
  }
  return op_id::none;
}

op_id compare_op(cmpop o) {
  switch (o) {
    case cmpop::eq: return op_id::eq;
    case cmpop::ne: return op_id::ne;
    case cmpop::lt: return op_id::lt;
    case cmpop::le: return op_id::le;
    case cmpop::gt: return op_id::gt;
    case cmpop::ge: return op_id::ge;
    default: return op_id::none;
  }
}

bool weak_int_constant(const function_typer& ft, const value& v, std::int64_t& out) {
  if (!v.weak || !v.ty->is_int()) return false;
  auto k = ft.const_int(v);
  if (!k) return false;
  out = *k;
  return true;
}

}  // namespace

// --- lowering ---------------------------------------------------------------------

value function_typer::lower(expr_id id) {
  const expr& x = sx(id, {src_.first_line, 0});
  const location loc = x.loc;
  nesting guard(*this, loc);
  auto need = [&](std::size_t n) {
    if (x.operands.size() != n) fail(loc, "malformed IR: this expression needs " + std::to_string(n) + " operands");
  };
  switch (x.kind) {
    case expr_kind::constant: {
      const constant_value& cv = x.value;
      if (!cv.typestr.empty()) {
        const type* t = tc_.from_typestr(cv.typestr);
        if (!t) fail(loc, "Unsupported: a constant of NumPy type '" + cv.typestr + "'");
        return constant(convert_constant(cv, literal_type(tc_, cv), t), t, loc, false);
      }
      const type* t = literal_type(tc_, cv);
      return constant(cv, t, loc, cv.weak && cv.k != constant_value::kind::none);
    }
    case expr_kind::variable: return var_ref(x.var, loc);
    case expr_kind::tuple: {
      std::vector<value> es;
      for (auto o : x.operands) es.push_back(lower(o));
      return make_tuple(std::move(es), loc);
    }
    case expr_kind::conditional: {
      need(3);
      value c = truth(lower(x.operands[0]), loc);
      if (auto k = const_int(c)) return lower(x.operands[*k ? 1 : 2]);  // the other branch never runs
      value a = lower(x.operands[1]);
      value b = lower(x.operands[2]);
      if (!a.runtime() || !b.runtime())
        fail(loc, "a conditional expression's branches must be run-time values, not " + (a.runtime() ? b : a).ty->str());
      bool weak = false;
      const type* t = join(a.ty, a.weak, b.ty, b.weak, weak);
      if (!t)
        fail(loc, "the branches of this conditional expression have types " + a.ty->str() + " and " + b.ty->str() +
                      ", which have no common type");
      value r = conditional(c, convert(a, t, loc, ""), convert(b, t, loc, ""), t, loc);
      r.weak = weak;
      return r;
    }
    case expr_kind::logical: {
      need(2);
      value a = lower(x.operands[0]);
      if (const constant_value* k = a.runtime() && a.ty->is_scalar() ? const_of(a) : nullptr) {
        // A constant left operand decides whether the right one runs at
        // all; Python then gives whichever operand decided, as it is.
        bool t = k->k == constant_value::kind::complex ? k->c != std::complex<double>(0, 0) : *const_int(truth(a, loc)) != 0;
        return t != x.is_and ? a : lower(x.operands[1]);
      }
      value b = lower(x.operands[1]);
      return logical(x.is_and, a, b, loc);
    }
    case expr_kind::global: return lower_global(x.global, loc);
    case expr_kind::unary: {
      need(1);
      value a = lower(x.operands[0]);
      if (m_.opts.host_only && a.runtime() && a.ty->is_array()) {
        if (x.unary_op == unop::neg) return array_operator("numpy.negative", {a}, false, loc);
        if (x.unary_op == unop::invert) return array_operator("numpy.invert", {a}, false, loc);
      }
      return unary(x.unary_op, a, loc);
    }
    case expr_kind::binary: {
      need(2);
      value a = unwrap(lower(x.operands[0]), loc);
      value b = unwrap(lower(x.operands[1]), loc);
      if (m_.opts.host_only && ((a.runtime() && a.ty->is_array()) || (b.runtime() && b.ty->is_array()))) {
        static const std::pair<binop, const char*> ufuncs[] = {
            {binop::add, "numpy.add"}, {binop::sub, "numpy.subtract"}, {binop::mul, "numpy.multiply"},
            {binop::truediv, "numpy.true_divide"}, {binop::floordiv, "numpy.floor_divide"},
            {binop::mod, "numpy.remainder"}, {binop::pow, "numpy.power"}, {binop::lshift, "numpy.left_shift"},
            {binop::rshift, "numpy.right_shift"}, {binop::bitand_, "numpy.bitwise_and"},
            {binop::bitor_, "numpy.bitwise_or"}, {binop::bitxor, "numpy.bitwise_xor"}};
        for (const auto& [o, name] : ufuncs)
          if (o == x.binary_op) return array_operator(name, {a, b}, !x.attrs.empty() && x.attrs[0] == 1, loc);
      }
      return binary(x.binary_op, a, b, loc);
    }
    case expr_kind::compare: {
      need(2);
      value a = lower(x.operands[0]);
      value b = lower(x.operands[1]);
      if (m_.opts.host_only && ((a.runtime() && a.ty->is_array()) || (b.runtime() && b.ty->is_array()))) {
        static const std::pair<cmpop, const char*> ufuncs[] = {
            {cmpop::eq, "numpy.equal"}, {cmpop::ne, "numpy.not_equal"}, {cmpop::lt, "numpy.less"},
            {cmpop::le, "numpy.less_equal"}, {cmpop::gt, "numpy.greater"}, {cmpop::ge, "numpy.greater_equal"}};
        for (const auto& [o, name] : ufuncs)
          if (o == x.compare_op) return array_operator(name, {unwrap(a, loc), unwrap(b, loc)}, false, loc);
      }
      return compare(x.compare_op, a, b, loc);
    }
    case expr_kind::call: {
      if (x.operands.empty()) fail(loc, "malformed IR: a call without a callee");
      std::size_t nargs = x.operands.size() - 1;
      if (x.keywords.size() > nargs) fail(loc, "malformed IR: more keywords than arguments");
      value callee = lower(x.operands[0]);
      call_args c;
      c.loc = loc;
      switch (callee.ty->kind) {
        case type_kind::function: c.name = callee.ty->name; break;
        case type_kind::dtype: c.name = callee.name.empty() ? callee.ty->dtype->str() : callee.name; break;
        case type_kind::device_function:
          c.name = callee.ty->callee->display_name();
          break;
        default: c.name = callee.ty->str(); break;
      }
      std::size_t npos = nargs - x.keywords.size();
      for (std::size_t i = 0; i < nargs; ++i) {
        if (i < npos && is_star(x.operands[i + 1])) {
          // f(*t): t's elements are positional arguments.
          const expr& star = sx(x.operands[i + 1], loc);
          if (star.operands.size() != 2) fail(star.loc, "malformed IR: a star argument without its value");
          value t = lower(star.operands[1]);
          if (!t.runtime() || !t.ty->is_tuple())
            fail(star.loc, "a star argument (*x) must be a tuple, not " + t.ty->str());
          for (auto& e : tuple_elements(t, star.loc)) {
            c.args.push_back(std::move(e));
            c.arg_exprs.push_back(no_id);
          }
          continue;
        }
        value v = lower(x.operands[i + 1]);
        // A device function or a namedtuple takes an optional as it is; the rest take its value.
        if (callee.ty->kind != type_kind::device_function && callee.ty->kind != type_kind::tuple_class) v = unwrap(v, loc);
        if (i < npos) {
          c.args.push_back(std::move(v));
          c.arg_exprs.push_back(x.operands[i + 1]);
        } else
          c.kwargs.push_back({x.keywords[i - npos], std::move(v)});
      }
      return call(callee, c);
    }
    case expr_kind::attribute: need(1); return attribute(unwrap(lower(x.operands[0]), loc), x.name, loc);
    case expr_kind::subscript: need(2); return subscript(unwrap(lower(x.operands[0]), loc), x.operands[1], loc, x.operands[0]);
    case expr_kind::slice: fail(loc, "Unsupported: a slice outside an array subscript");
    case expr_kind::cast:
    case expr_kind::op: fail(loc, "malformed IR: a typed expression in the untyped input");
  }
  fail(loc, "malformed IR: unknown expression kind");
}

value function_typer::global_constant(const global_value& g, location loc) {
  switch (g.k) {
    case global_value::kind::constant: {
      const constant_value& cv = g.value;
      if (!cv.typestr.empty()) {
        const type* t = tc_.from_typestr(cv.typestr);
        if (!t) fail(loc, "Unsupported: the global '" + g.name + "' of NumPy type '" + cv.typestr + "'");
        return constant(convert_constant(cv, literal_type(tc_, cv), t), t, loc, false);
      }
      const type* t = literal_type(tc_, cv);
      return constant(cv, t, loc, cv.weak && cv.k != constant_value::kind::none);
    }
    case global_value::kind::tuple: {
      std::vector<value> es;
      for (const auto& e : g.elements) es.push_back(global_constant(e, loc));
      if (!g.fields.empty()) {
        if (g.fields.size() != es.size()) fail(loc, "malformed IR: the named tuple '" + g.name + "' has " +
                                                        std::to_string(g.fields.size()) + " field names for " +
                                                        std::to_string(es.size()) + " elements");
        return make_named_tuple(std::move(es), tc_.tuple_class(g.cls, g.fields), loc);
      }
      return make_tuple(std::move(es), loc);
    }
    default:
      fail(loc, "Unsupported global: a tuple holding " + (g.name.empty() ? std::string("a non-constant") : g.name));
  }
}

value function_typer::lower_global(std::int32_t gi, location loc) {
  if (gi < 0 || static_cast<std::size_t>(gi) >= src_.globals.size())
    fail(loc, "malformed IR: global " + std::to_string(gi) + " does not exist");
  const global_value& g = src_.globals[static_cast<std::size_t>(gi)];
  value v;
  switch (g.k) {
    case global_value::kind::constant:
    case global_value::kind::tuple: return global_constant(g, loc);
    case global_value::kind::const_array: {
      const type* dt = tc_.from_typestr(g.dtype);
      if (!dt) fail(loc, "Unsupported: the global array '" + g.name + "' of NumPy type '" + g.dtype + "'");
      std::int64_t n = 1;
      for (auto e : g.shape) {
        if (e < 0) fail(loc, "malformed IR: the global array '" + g.name + "' has a negative extent");
        n *= e;
      }
      if (static_cast<std::size_t>(n) * static_cast<std::size_t>(dt->itemsize()) != g.bytes.size())
        fail(loc, "malformed IR: the global array '" + g.name + "' holds " + std::to_string(g.bytes.size()) +
                      " bytes, not what its shape and dtype need");
      const type* t = tc_.array(dt, static_cast<int>(g.shape.size()), array_layout::c, true, address_space::constant);
      return op(op_id::const_array, t, {}, loc, {gi});
    }
    case global_value::kind::device_array: {
      // A global device array (numba-cuda's globals example): read and
      // written where it is, by the address it had when the kernel compiled.
      const type* dt = tc_.from_typestr(g.dtype);
      if (!dt) fail(loc, "Unsupported: the global device array '" + g.name + "' of NumPy type '" + g.dtype + "'");
      if (g.strides.size() != g.shape.size())
        fail(loc, "malformed IR: the global device array '" + g.name + "' has " + std::to_string(g.strides.size()) +
                      " strides for " + std::to_string(g.shape.size()) + " extents");
      const std::int64_t item = dt->itemsize();
      bool c = true, f = true;
      std::int64_t sc = item, sf = item;
      for (std::size_t d = g.shape.size(); d-- > 0;) {
        if (g.shape[d] < 0) fail(loc, "malformed IR: the global device array '" + g.name + "' has a negative extent");
        if (g.shape[d] != 1 && g.strides[d] != sc) c = false;
        sc *= g.shape[d];
      }
      for (std::size_t d = 0; d < g.shape.size(); ++d) {
        if (g.shape[d] != 1 && g.strides[d] != sf) f = false;
        sf *= g.shape[d];
      }
      const array_layout lay = c ? array_layout::c : f ? array_layout::f : array_layout::any;
      const type* t = tc_.array(dt, static_cast<int>(g.shape.size()), lay);
      return op(op_id::global_array, t, {}, loc, {gi});
    }
    case global_value::kind::module: {
      std::string n = canonical_name(g.name, true);
      const intrinsic* e = find_entry(n);
      if (e == nullptr || e->info.kind != intrinsic_kind::module) fail(loc, "Unsupported module: " + g.name);
      v.ty = tc_.module(n);
      return v;
    }
    case global_value::kind::function: v.ty = tc_.function(canonical_name(g.name, false)); return v;
    case global_value::kind::tuple_class: {
      if (g.cls.empty() || g.fields.empty()) fail(loc, "malformed IR: the namedtuple class '" + g.name + "' has no fields");
      std::vector<const type*> declared;  // a struct type's fields (cuda.extending.struct_type)
      for (const auto& spec : g.field_types) declared.push_back(parse_type(tc_, spec));
      if (!declared.empty() && declared.size() != g.fields.size())
        fail(loc, "malformed IR: the struct type '" + g.cls + "' has " + std::to_string(g.fields.size()) +
                      " fields but " + std::to_string(declared.size()) + " types");
      v.ty = tc_.tuple_class(g.cls, g.fields, std::move(declared));
      v.name = g.name;
      return v;
    }
    case global_value::kind::overloaded:
      v.ty = tc_.function("overload:" + g.name);
      v.name = g.message.empty() ? g.name : g.message;
      return v;
    case global_value::kind::dtype: {
      // A scalar type's type string, or a structured dtype's spec ("Record(...)").
      const type* dt = nullptr;
      if (g.dtype.rfind("Record(", 0) == 0) {
        try {
          dt = parse_type(tc_, g.dtype);
        } catch (const cuforge::logic_error& e) {
          fail(loc, std::string("Unsupported dtype: ") + e.what());
        }
      } else {
        dt = tc_.from_typestr(g.dtype);
      }
      if (!dt) fail(loc, "Unsupported dtype '" + g.dtype + "'" + (g.name.empty() ? "" : " (" + g.name + ")"));
      v.ty = tc_.dtype_value(dt);
      v.name = g.name;
      return v;
    }
    case global_value::kind::device_function:
      if (!g.callee) {
        // A recursive reference: the function of that name being typed further up.
        for (auto it = m_.frames.rbegin(); it != m_.frames.rend(); ++it)
          if (it->f->display_name() == g.name && it->f->filename == g.file) {
            v.ty = tc_.device_function(it->f);
            return v;
          }
        fail(loc, "malformed IR: the device function '" + g.name + "' has no IR");
      }
      v.ty = tc_.device_function(g.callee.get());
      return v;
    case global_value::kind::string:
      v.ty = tc_.string_literal(g.message);
      return v;
    case global_value::kind::external_function: {
      // cuda.declare_device(name, sig): scalars and pointers in, a scalar (or nothing) out.
      auto spec = [&](const std::string& s, const std::string& what) -> const type* {
        try {
          return parse_type(tc_, s);
        } catch (const cuforge::logic_error& e) {
          fail(loc, "the declared function " + g.name + ": cannot read its " + what + " type '" + s + "': " + e.what());
        }
      };
      std::vector<const type*> params;
      for (std::size_t i = 0; i < g.fields.size(); ++i) {
        const type* p = spec(g.fields[i], "parameter");
        if (!p->is_scalar() && p->kind != type_kind::pointer)
          fail(loc, "the declared function " + g.name + ": parameter " + std::to_string(i + 1) + " is " + p->str() +
                        "; a declared function takes scalars and pointers (CPointer) only");
        params.push_back(p);
      }
      const type* ret = spec(g.dtype, "return");
      if (!ret->is_scalar() && ret->kind != type_kind::none)
        fail(loc, "the declared function " + g.name + " returns " + ret->str() +
                      "; a declared function returns a scalar (or nothing)");
      const int abi = g.cls == "numba" ? 0 : g.cls == "c" ? 1 : g.cls == "ptx" ? 2 : g.cls == "llvm" ? 3 : -1;
      if (abi < 0)
        fail(loc, "the declared function " + g.name + ": unknown ABI '" + g.cls + "' (\"numba\" or \"c\")");
      if (abi >= 2) {  // an intrinsic (cuda.extending.intrinsic): its body, and its host implementation
        if (g.message.empty()) fail(loc, "the intrinsic " + g.name + " has no body");
        v.ty = tc_.external_function(g.name, std::move(params), ret, abi, {g.message}, g.callee.get());
        return v;
      }
      v.ty = tc_.external_function(g.name, std::move(params), ret, abi, g.link, nullptr, g.cooperative);
      return v;
    }
    case global_value::kind::exception:
      fail(loc, "Unsupported: the exception " + g.cls + " used as a value (a kernel may only raise it)");
    case global_value::kind::unsupported:
      fail(loc, "Unsupported global: " + (g.name.empty() ? std::string("a Python object") : g.name));
  }
  fail(loc, "malformed IR: unknown global kind");
}

// --- operators ----------------------------------------------------------------------

value function_typer::truth(const value& v, location loc) {
  if (!v.runtime()) fail(loc, "cannot use " + v.ty->str() + " as a condition");
  if (v.ty->kind == type_kind::boolean) return v;
  if (v.ty->is_optional()) {
    // Python's truth: None is false, a value its own (numba-cuda refuses bool() of an optional).
    value o = pure(v, loc);
    value present = op(op_id::optional_present, tc_.boolean(), {o}, loc);
    return logical(true, present, truth(op(op_id::optional_value, v.ty->dtype, {o}, loc, {-1}), loc), loc);
  }
  if (v.ty->kind == type_kind::none) {
    constant_value no;
    no.k = constant_value::kind::boolean;
    return constant(no, tc_.boolean(), loc);
  }
  if (v.ty->is_scalar() || v.ty->is_bfloat16()) return cast(v, tc_.boolean(), loc);
  if (v.ty->is_tuple()) {
    if (!v.pure) hoist(v, loc);
    constant_value cv;
    cv.k = constant_value::kind::boolean;
    cv.b = !v.ty->elements.empty();
    return constant(cv, tc_.boolean(), loc);
  }
  fail(loc, "the truth value of " + v.ty->str() + " is ambiguous");
}

namespace {

// Python's operator module's name of each operator (the key of its overloads, frontend/extending.hpp).
const char* operator_name(binop o) {
  switch (o) {
    case binop::add: return "add";
    case binop::sub: return "sub";
    case binop::mul: return "mul";
    case binop::truediv: return "truediv";
    case binop::floordiv: return "floordiv";
    case binop::mod: return "mod";
    case binop::pow: return "pow";
    case binop::lshift: return "lshift";
    case binop::rshift: return "rshift";
    case binop::bitor_: return "or_";
    case binop::bitxor: return "xor";
    case binop::bitand_: return "and_";
    case binop::matmul: return "matmul";
  }
  return "?";
}

const char* operator_name(cmpop o) {
  switch (o) {
    case cmpop::eq: return "eq";
    case cmpop::ne: return "ne";
    case cmpop::lt: return "lt";
    case cmpop::le: return "le";
    case cmpop::gt: return "gt";
    case cmpop::ge: return "ge";
    default: return nullptr;  // is, in: never overloaded
  }
}

const char* operator_name(unop o) {
  switch (o) {
    case unop::neg: return "neg";
    case unop::pos: return "pos";
    case unop::invert: return "invert";
    case unop::not_: return nullptr;
  }
  return nullptr;
}

// A struct type's value (a named tuple of a class): what registered operators apply to.
bool user_typed(const value& v) { return v.runtime() && v.ty->is_tuple() && !v.ty->name.empty(); }

}  // namespace

value function_typer::unary(unop o, const value& a0, location loc) {
  if (const char* n = operator_name(o); n != nullptr && user_typed(a0))
    if (auto r = user_overload(std::string("operator.") + n, {a0}, loc)) return *r;
  const char* sym = to_string(o);
  const value a = o == unop::not_ ? a0 : unwrap(a0, loc);
  if (o == unop::not_) {
    value t = truth(a, loc);
    if (auto k = const_int(t)) {
      constant_value cv;
      cv.k = constant_value::kind::boolean;
      cv.b = !*k;
      return constant(cv, tc_.boolean(), loc, a.weak);
    }
    value r = op(op_id::not_, tc_.boolean(), {t}, loc);
    r.weak = a.weak;
    return r;
  }
  if (a.runtime() && a.ty->is_bfloat16()) return bfloat16_unary(o, a, loc);
  if (a.runtime() && a.ty->is_time()) return time_unary(o, a, loc);
  if (!a.runtime() || !a.ty->is_scalar())
    fail(loc, std::string("bad operand type for unary ") + sym + ": " + a.ty->str());
  if (o == unop::invert && a.ty->kind == type_kind::boolean) return unary(unop::not_, a, loc);  // ~True is False
  resolved_op sig = numba_unary(tc_, o, a.ty);
  if (!sig) fail(loc, std::string("bad operand type for unary ") + sym + ": " + a.ty->str());
  const type* t = sig.result;
  // Numba negates and inverts in the operand's own type, then widens
  // (-uint8(7) is 249).
  const type* ct = o == unop::pos || sig.params[0]->kind == type_kind::boolean ? t : sig.params[0];
  value x = cast(a, ct, loc);
  switch (o) {
    case unop::pos: return cast(x, t, loc);
    case unop::neg: {
      if (const constant_value* c = const_of(x)) {
        if (a.weak && t->is_int()) python_int(binop::sub, 0, c->i, loc);
        constant_value r = *c;
        if (ct->is_int())
          r.i = wrap(0 - static_cast<std::uint64_t>(c->i), ct);
        else if (ct->is_float())
          r.f = -c->f;
        else
          r.c = -c->c;
        return cast(constant(r, ct, loc, a.weak), t, loc);
      }
      value r = op(op_id::neg, ct, {x}, loc);
      r.weak = a.weak;
      return cast(r, t, loc);
    }
    case unop::invert: {
      if (auto k = const_int(x)) return cast(int_constant(wrap(~static_cast<std::uint64_t>(*k), ct), ct, loc, a.weak), t, loc);
      value r = op(op_id::invert, ct, {x}, loc);
      r.weak = a.weak;
      return cast(r, t, loc);
    }
    case unop::not_: break;
  }
  fail(loc, "malformed IR: unknown unary operator");
}

void function_typer::python_int(binop o, std::int64_t x, std::int64_t y, location loc) {
  if (python_int_overflows(o, x, y))
    fail(loc, "the Python integer " + std::to_string(x) + " " + to_string(o) + " " + std::to_string(y) +
                  " does not fit in 64 bits (kernels keep Python integers in int64)");
}

value function_typer::pow(const value& a, const value& b, location loc) {
  if (!a.runtime() || !b.runtime() || !a.ty->is_scalar() || !b.ty->is_scalar())
    fail(loc, "unsupported operand types for **: " + a.ty->str() + " and " + b.ty->str());
  bool weak = a.weak && b.weak;
  std::int64_t x = 0, y = 0;
  if (weak_int_constant(*this, a, x) && weak_int_constant(*this, b, y) && y < 0) {
    // Two Python ints: a negative power is a float (2 ** -1 == 0.5).
    constant_value cv;
    cv.k = constant_value::kind::floating;
    cv.f = std::pow(static_cast<double>(x), static_cast<double>(y));
    return constant(cv, tc_.float64(), loc, true);
  }
  if (weak_int_constant(*this, a, x) && weak_int_constant(*this, b, y)) python_int(binop::pow, x, y, loc);
  resolved_op sig = numba_binary(tc_, binop::pow, a.ty, b.ty);
  if (!sig) fail(loc, "unsupported operand types for **: " + a.ty->str() + " and " + b.ty->str());
  const type* t = sig.result;
  value r;
  if (t->is_complex()) {
    r = op(op_id::pow, t, {cast(a, t, loc), cast(b, t, loc)}, loc);
  } else if (t->is_float()) {
    const type* ct = t;
    if (sig.params[1]->is_int())  // float ** int: Numba's powi cases
      r = op(op_id::powi, ct, {cast(cast(a, sig.params[0], loc), ct, loc), cast(cast(b, sig.params[1], loc), tc_.int64(), loc)}, loc);
    else {
      value ca = cast(a, ct, loc), cb = cast(b, ct, loc);
      const constant_value* ka = const_of(ca);
      const constant_value* kb = const_of(cb);
      if (ct->bits == 64 && ka != nullptr && kb != nullptr && ka->k == constant_value::kind::floating &&
          kb->k == constant_value::kind::floating) {
        // numba-cuda's float64 ** is llvm.pow, which NVVM folds for constants with the host's pow
        // (correctly rounded 2 ** 0.5, where libdevice's pow is an ulp off): so do we.
        constant_value cv;
        cv.k = constant_value::kind::floating;
        cv.f = std::pow(ka->f, kb->f);
        return constant(cv, ct, loc, weak);
      }
      r = op(op_id::pow, ct, {ca, cb}, loc);
    }
    r = cast(r, t, loc);
  } else {
    value ca = cast(cast(a, sig.params[0], loc), t, loc), cb = cast(cast(b, sig.params[1], loc), t, loc);
    auto ka = const_int(ca), kb = const_int(cb);
    if (ka && kb) {
      if (auto f = fold_int(binop::pow, t, *ka, *kb)) return int_constant(*f, t, loc, weak);
    }
    r = op(op_id::pow, t, {ca, cb}, loc);
    r.nonneg = ca.nonneg;
  }
  r.weak = weak;
  return r;
}

value function_typer::checked_divisor(binop o, const value& y, location loc) {
  // Numba's python error model (the host jit's, and numba-cuda's under debug=True): a zero divisor
  // raises.
  if (!m_.opts.check_divisors) return y;
  if (const constant_value* k = const_of(y)) {
    const bool zero = k->k == constant_value::kind::integer    ? k->i == 0
                      : k->k == constant_value::kind::boolean  ? !k->b
                      : k->k == constant_value::kind::floating ? k->f == 0.0
                      : k->k == constant_value::kind::complex  ? k->c == std::complex<double>(0.0, 0.0)
                                                               : false;
    if (!zero) return y;
  }
  const bool integer = y.ty->is_int() || y.ty->kind == type_kind::boolean;
  std::string message = y.ty->is_complex()        ? "complex division by zero"
                        : o == binop::mod         ? (integer ? "integer modulo by zero" : "modulo by zero")
                        : o == binop::floordiv && integer ? "integer division by zero"
                                                  : "division by zero";
  std::int64_t site = 0;  // a scratch pass's site is never lowered
  if (final_)
    site = m_.add_site({kernel_error::zero_division, std::string(python_exception_of(kernel_error::zero_division)),
                        std::move(message), src_.display_name(), src_.filename, loc.line});
  value r = op(op_id::nonzero, y.ty, {y}, loc, {site});
  r.nonneg = y.nonneg;
  r.weak = y.weak;
  return r;
}


value function_typer::binary(binop o, const value& a, const value& b, location loc) {
  if (user_typed(a) || user_typed(b))
    if (auto r = user_overload(std::string("operator.") + operator_name(o), {a, b}, loc)) return *r;
  const char* sym = to_string(o);
  auto unsupported = [&]() -> value {
    fail(loc, std::string("unsupported operand types for ") + sym + ": " + a.ty->str() + " and " + b.ty->str());
  };
  if (a.runtime() && b.runtime() && a.ty->is_tuple() && b.ty->is_tuple() && o == binop::add) {
    std::vector<value> es = tuple_elements(a, loc), more = tuple_elements(b, loc);
    es.insert(es.end(), more.begin(), more.end());
    return make_tuple(std::move(es), loc);
  }
  if (o == binop::mul && a.runtime() && b.runtime() && (a.ty->is_tuple() || b.ty->is_tuple())) {
    const value& t = a.ty->is_tuple() ? a : b;
    const value& n = a.ty->is_tuple() ? b : a;
    auto k = const_int(n);
    if (!k || !n.ty->is_int())
      fail(loc, "a tuple can only be repeated a constant number of times, not " + n.ty->str());
    std::vector<value> one = tuple_elements(t, loc), es;
    for (std::int64_t i = 0; i < *k && i < 4096; ++i) es.insert(es.end(), one.begin(), one.end());
    return make_tuple(std::move(es), loc);
  }
  if (a.runtime() && b.runtime() && (a.ty->is_time() || b.ty->is_time())) return time_binary(o, a, b, loc);
  if (a.runtime() && b.runtime() && (a.ty->is_bfloat16() || b.ty->is_bfloat16())) return bfloat16_binary(o, a, b, loc);
  if (!a.runtime() || !b.runtime() || !a.ty->is_scalar() || !b.ty->is_scalar()) return unsupported();
  if (o == binop::matmul) return unsupported();
  if (o == binop::pow) return pow(a, b, loc);
  const bool weak = a.weak && b.weak;
  resolved_op sig = numba_binary(tc_, o, a.ty, b.ty);
  if (!sig) return unsupported();
  if (std::int64_t kx = 0, ky = 0; weak_int_constant(*this, a, kx) && weak_int_constant(*this, b, ky)) python_int(o, kx, ky, loc);
  // Numba converts the operands to the signature's parameters, then
  // computes in the result type (float16 as cuda_fp16.h does: codegen_half.cpp).
  const type* result = sig.result;
  const type* t = result;
  value x = cast(cast(a, sig.params[0], loc), t, loc), y = cast(cast(b, sig.params[1], loc), t, loc);
  const constant_value *cx = const_of(x), *cy = const_of(y);
  if (cx && cy) {
    if (t->is_int() || t->kind == type_kind::boolean) {
      if (auto f = fold_int(o, t->kind == type_kind::boolean ? tc_.uint8() : t, *const_int(x), *const_int(y))) {
        if (t->kind == type_kind::boolean) {
          constant_value cv;
          cv.k = constant_value::kind::boolean;
          cv.b = (*f & 1) != 0;
          return constant(cv, t, loc, weak);
        }
        return int_constant(*f, t, loc, weak);
      }
    } else if (t == tc_.float64() && (o == binop::add || o == binop::sub || o == binop::mul || o == binop::truediv)) {
      constant_value cv;
      cv.k = constant_value::kind::floating;
      cv.f = o == binop::add ? cx->f + cy->f : o == binop::sub ? cx->f - cy->f : o == binop::mul ? cx->f * cy->f : cx->f / cy->f;
      return constant(cv, t, loc, weak);
    } else if (t == tc_.complex128() && (o == binop::add || o == binop::sub || o == binop::mul)) {
      // Python folds `1.5 + 2j` to one constant; so do we (a literal's truth is then known).
      constant_value cv;
      cv.k = constant_value::kind::complex;
      cv.c = o == binop::add ? cx->c + cy->c : o == binop::sub ? cx->c - cy->c : cx->c * cy->c;
      return constant(cv, t, loc, weak);
    }
  }
  if (o == binop::truediv || o == binop::floordiv || o == binop::mod) y = checked_divisor(o, y, loc);
  value r = op(arith_op(o), t, {x, y}, loc);
  r.weak = weak;
  if (t->is_int()) {
    switch (o) {
      case binop::add:
      case binop::mul:
      case binop::floordiv:
      case binop::bitor_:
      case binop::bitxor: r.nonneg = x.nonneg && y.nonneg; break;
      case binop::bitand_: r.nonneg = x.nonneg || y.nonneg; break;
      case binop::mod: r.nonneg = y.nonneg; break;  // the sign of the divisor
      case binop::rshift: r.nonneg = x.nonneg; break;
      default: break;
    }
  }
  return cast(r, result, loc);
}

value function_typer::compare(cmpop o, const value& a0, const value& b0, location loc) {
  if (const char* n = operator_name(o); n != nullptr && (user_typed(a0) || user_typed(b0)))
    if (auto r = user_overload(std::string("operator.") + n, {a0, b0}, loc)) return *r;
  const char* sym = to_string(o);
  if (a0.runtime() && b0.runtime() && (o == cmpop::is || o == cmpop::is_not || o == cmpop::eq || o == cmpop::ne)) {
    // An optional against None: whether it holds a value.
    const bool a_opt = a0.ty->is_optional() && b0.ty->kind == type_kind::none;
    const bool b_opt = b0.ty->is_optional() && a0.ty->kind == type_kind::none;
    if (a_opt || b_opt) {
      value present = op(op_id::optional_present, tc_.boolean(), {a_opt ? a0 : b0}, loc);
      return o == cmpop::is || o == cmpop::eq ? unary(unop::not_, present, loc) : present;
    }
  }
  const value a = unwrap(a0, loc), b = unwrap(b0, loc);
  auto boolean = [&](bool v) {
    constant_value cv;
    cv.k = constant_value::kind::boolean;
    cv.b = v;
    return constant(cv, tc_.boolean(), loc);
  };
  auto unsupported = [&]() -> value {
    fail(loc, std::string("unsupported operand types for ") + sym + ": " + a.ty->str() + " and " + b.ty->str());
  };
  if (!a.runtime() || !b.runtime()) return unsupported();
  bool a_none = a.ty->kind == type_kind::none, b_none = b.ty->kind == type_kind::none;
  if (o == cmpop::is || o == cmpop::is_not || a_none || b_none) {
    // Only None has an identity worth comparing; it is known while typing.
    if (!a_none && !b_none)
      fail(loc, std::string("Unsupported: '") + sym + "' between " + a.ty->str() + " and " + b.ty->str() + " (use == or !=)");
    if (o != cmpop::is && o != cmpop::is_not && o != cmpop::eq && o != cmpop::ne) return unsupported();
    bool same = a_none && b_none;
    return boolean((o == cmpop::is || o == cmpop::eq) ? same : !same);
  }
  if (o == cmpop::in || o == cmpop::not_in) {
    if (!b.ty->is_tuple()) fail(loc, std::string("Unsupported: '") + sym + "' on " + b.ty->str() + " (only tuples)");
    value x = pure(a, loc);
    value any;
    bool first = true;
    for (const value& e : tuple_elements(b, loc)) {
      value eq = compare(cmpop::eq, x, e, loc);
      any = first ? eq : logical(false, any, eq, loc);
      first = false;
    }
    if (first) any = boolean(false);
    return o == cmpop::in ? any : unary(unop::not_, any, loc);
  }
  if (a.ty->is_tuple() && b.ty->is_tuple() && (o == cmpop::eq || o == cmpop::ne)) {
    value all;
    if (a.ty->elements.size() != b.ty->elements.size()) {
      all = boolean(false);
    } else {
      std::vector<value> xs = tuple_elements(a, loc), ys = tuple_elements(b, loc);
      all = boolean(true);
      for (std::size_t i = 0; i < xs.size(); ++i) {
        value eq = compare(cmpop::eq, xs[i], ys[i], loc);
        all = i ? logical(true, all, eq, loc) : eq;
      }
    }
    return o == cmpop::eq ? all : unary(unop::not_, all, loc);
  }
  if (a.runtime() && b.runtime() && (a.ty->is_time() || b.ty->is_time())) return time_compare(o, a, b, loc);
  if (a.runtime() && b.runtime() && (a.ty->is_bfloat16() || b.ty->is_bfloat16())) return bfloat16_compare(o, a, b, loc);
  if (!a.ty->is_scalar() || !b.ty->is_scalar()) return unsupported();
  const bool weak = a.weak && b.weak;
  resolved_op sig = numba_compare(tc_, o, a.ty, b.ty);
  if (!sig) {
    if (a.ty->is_complex() || b.ty->is_complex())
      fail(loc, std::string("'") + sym + "' is not supported between " + a.ty->str() + " and " + b.ty->str());
    return unsupported();
  }
  // Compared in the signature's parameter type (booleans ordered as 0 and 1).
  const type* t = sig.params[0]->kind == type_kind::boolean && o != cmpop::eq && o != cmpop::ne ? tc_.int64()
                                                                                                 : sig.params[0];
  value x = cast(cast(a, sig.params[0], loc), t, loc), y = cast(cast(b, sig.params[1], loc), t, loc);
  const constant_value *cx = const_of(x), *cy = const_of(y);
  if (cx && cy && (t->is_int() || t->kind == type_kind::boolean || t == tc_.float64())) {
    int c = 0;  // -1, 0, 1; 2 for unordered
    if (t->is_float()) {
      c = std::isnan(cx->f) || std::isnan(cy->f) ? 2 : cx->f < cy->f ? -1 : cx->f > cy->f ? 1 : 0;
    } else if (t->is_int() && !t->is_signed) {
      auto ux = static_cast<std::uint64_t>(*const_int(x)), uy = static_cast<std::uint64_t>(*const_int(y));
      c = ux < uy ? -1 : ux > uy ? 1 : 0;
    } else {
      auto ix = *const_int(x), iy = *const_int(y);
      c = ix < iy ? -1 : ix > iy ? 1 : 0;
    }
    bool r = false;
    switch (o) {
      case cmpop::eq: r = c == 0; break;
      case cmpop::ne: r = c != 0; break;
      case cmpop::lt: r = c == -1; break;
      case cmpop::le: r = c == -1 || c == 0; break;
      case cmpop::gt: r = c == 1; break;
      case cmpop::ge: r = c == 1 || c == 0; break;
      default: break;
    }
    value v = boolean(r);
    v.weak = weak;
    return v;
  }
  value r = op(compare_op(o), tc_.boolean(), {x, y}, loc);
  r.weak = weak;
  return r;
}

value function_typer::logical(bool is_and, const value& a, const value& b, location loc) {
  if (!a.runtime() || !b.runtime() || !a.ty->is_scalar() || !b.ty->is_scalar())
    fail(loc, std::string("Unsupported: '") + (is_and ? "and" : "or") + "' on " + a.ty->str() + " and " + b.ty->str() +
                  " (only numbers and booleans)");
  const bool weak = a.weak && b.weak;
  const type* t = a.ty == b.ty ? a.ty : promote(tc_, a.ty, b.ty);
  if (!t) fail(loc, std::string("no common type for '") + (is_and ? "and" : "or") + "' of " + a.ty->str() + " and " + b.ty->str());
  value x = cast(a, t, loc), y = cast(b, t, loc);
  if (const_of(x)) {
    // Python returns the left operand when it decides the result.
    bool lt = *const_int(truth(x, loc)) != 0;
    value r = (lt == is_and) ? y : x;
    r.weak = weak;
    return r;
  }
  expr e;
  e.kind = expr_kind::logical;
  e.loc = loc;
  e.ty = t;
  e.is_and = is_and;
  e.operands = {use(x.id), use(y.id)};
  value r;
  r.ty = t;
  r.weak = weak;
  r.pure = x.pure && y.pure;
  r.nonneg = x.nonneg && y.nonneg;
  r.id = add(std::move(e));
  return r;
}

// --- attributes and calls ------------------------------------------------------------

value function_typer::attribute(const value& obj, const std::string& name, location loc) {
  switch (obj.ty->kind) {
    case type_kind::module: return module_attribute(obj.ty->name, name, loc);
    case type_kind::array: return array_attribute(obj, name, loc);
    case type_kind::record: return record_get(obj, field_index(obj, no_id, name, loc), loc);
    case type_kind::tuple:
      for (std::size_t i = 0; i < obj.ty->names.size(); ++i)
        if (obj.ty->names[i] == name) return tuple_elements(obj, loc).at(i);
      if (!obj.ty->name.empty()) {  // a struct type's attributes and methods (cuda.extending)
        if (auto r = user_overload("attribute:" + obj.ty->name + "." + name, {obj}, loc)) return *r;
        if (!overloads_of("method:" + obj.ty->name + "." + name).empty()) {
          value m;
          m.ty = tc_.function("usermethod:" + obj.ty->name + "." + name);
          m.self = std::make_shared<value>(obj);
          return m;
        }
      }
      break;
    case type_kind::vector: {
      static constexpr const char* members[] = {"x", "y", "z", "w"};
      for (std::size_t i = 0; i < obj.ty->elements.size(); ++i)
        if (name == members[i]) {
          value r = op(op_id::tuple_get, obj.ty->elements[i], {obj}, loc, {static_cast<std::int64_t>(i)});
          r.nonneg = r.ty->is_int() && !r.ty->is_signed;
          return r;
        }
      break;
    }
    case type_kind::boolean:
    case type_kind::integer:
    case type_kind::floating:
    case type_kind::complex: {
      if (name == "real" || name == "imag") {
        if (obj.ty->is_complex()) {
          value r = op(name == "real" ? op_id::real : op_id::imag, tc_.floating(obj.ty->bits / 2), {obj}, loc);
          r.weak = obj.weak;
          return r;
        }
        if (name == "real") return obj;
        if (!obj.pure) hoist(obj, loc);
        return int_constant(0, obj.ty, loc, obj.weak);
      }
      if (name == "conjugate" || (name == "bit_count" && obj.ty->is_int())) {
        value m;
        m.ty = tc_.function("method." + name);
        m.self = std::make_shared<value>(obj);
        return m;
      }
      break;
    }
    default: break;
  }
  fail(loc, "Unknown attribute '" + name + "' of " + obj.ty->str());
}

value function_typer::module_attribute(const std::string& module, const std::string& name, location loc) {
  if (module == "numpy") {
    if (const scalar_type_info* row = find_numpy_scalar(name)) {  // np.float32, np.intc...: the scalar-type table's
      value v;
      v.ty = tc_.dtype_value(tc_.scalar(*row));
      v.name = "numpy." + name;
      return v;
    }
  }
  if (module == "cuda") {
    // numba.cuda has numba.cuda.types' names: cuda.int32(x), cuda.float32, cuda.bfloat16(x).
    for (const scalar_type_info& row : scalar_types)
      if (row.name == name || alias_listed(row.numba_aliases, name)) {
        value v;
        v.ty = tc_.dtype_value(tc_.scalar(row));
        v.name = "cuda." + name;
        return v;
      }
    if (name == "bfloat16") return module_attribute("cuda.bf16", name, loc);
  }
  const std::string full = module + "." + name;
  if (const intrinsic* e = find_entry(full)) {
    value v;
    switch (e->info.kind) {
      case intrinsic_kind::module: v.ty = tc_.module(full); return v;
      case intrinsic_kind::function: v.ty = tc_.function(full); return v;
      case intrinsic_kind::value: return e->read(*this, *e, loc);
    }
  }
  if (module == "numpy") {
    // (empty, zeros, ones, full and their _like forms, arange and copy are rows: host code may call them.)
    static const char* const allocating[] = {"array", "asarray", "ascontiguousarray", "linspace", "eye",
                                             "identity", "concatenate", "stack"};
    for (const char* a : allocating)
      if (name == a)
        fail(loc, "numpy." + name + " makes a new array, and kernels cannot allocate arrays: use "
                  "cuda.local.array(shape, dtype) (per thread) or cuda.shared.array(shape, dtype) (per block) with "
                  "a constant shape, or pass the array in as an argument");
    fail(loc, "numpy." + name + " is not supported in kernels (docs/intrinsics.md lists what is)");
  }
  fail(loc, "module '" + module + "' has no attribute '" + name + "'");
}

bool function_typer::is_star(expr_id arg) const {
  // The walker's `builtins.__star__(t)` for a call's `*t`.
  if (arg < 0 || static_cast<std::size_t>(arg) >= src_.exprs.size()) return false;
  const expr& x = src_.at(arg);
  if (x.kind != expr_kind::call || x.operands.empty()) return false;
  const expr& callee = src_.at(x.operands[0]);
  if (callee.kind != expr_kind::global || callee.global < 0 ||
      static_cast<std::size_t>(callee.global) >= src_.globals.size())
    return false;
  const global_value& g = src_.globals[static_cast<std::size_t>(callee.global)];
  return g.k == global_value::kind::function && g.name == "builtins.__star__";
}

value function_typer::call(const value& callee, call_args& c) {
  switch (callee.ty->kind) {
    case type_kind::function:
      if (callee.self) return call_method(callee.ty->name, *callee.self, c);
      if (callee.ty->name.rfind("overload:", 0) == 0) {
        if (!callee.name.empty()) c.name = callee.name;
        return call_overloaded(callee.ty->name.substr(9), c);
      }
      return call_function(callee.ty->name, c);
    case type_kind::dtype:
      // Python's int, float, complex and bool are the registry's rows
      // (Numba's typing: int() keeps an integer's type...); NumPy's
      // dtypes convert to themselves.
      if (callee.name.rfind("builtins.", 0) == 0 && find_entry(callee.name)) return call_function(callee.name, c);
      return call_dtype(callee.ty->dtype, c);
    case type_kind::device_function: return call_device(*callee.ty->callee, c);
    case type_kind::external_function: return call_external(*callee.ty, c);
    case type_kind::tuple_class: {
      // Point(x, y=2): the fields by position, then by name.
      const auto& names = callee.ty->names;
      if (c.args.size() > names.size())
        fail(c.loc, callee.ty->name + "() takes " + std::to_string(names.size()) + " arguments but " +
                        std::to_string(c.args.size()) + " were given");
      std::vector<std::optional<value>> bound(names.size());
      for (std::size_t i = 0; i < c.args.size(); ++i) bound[i] = c.args[i];
      for (const auto& k : c.kwargs) {
        auto it = std::find(names.begin(), names.end(), k.name);
        if (it == names.end()) fail(c.loc, callee.ty->name + "() got an unexpected keyword argument '" + k.name + "'");
        auto j = static_cast<std::size_t>(it - names.begin());
        if (bound[j]) fail(c.loc, callee.ty->name + "() got multiple values for argument '" + k.name + "'");
        bound[j] = k.v;
      }
      std::vector<value> es;
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (!bound[i]) fail(c.loc, callee.ty->name + "() missing argument '" + names[i] + "' (field defaults are not supported)");
        // A struct type's fields have their declared types.
        es.push_back(callee.ty->elements.empty()
                         ? *bound[i]
                         : convert(*bound[i], callee.ty->elements[i], c.loc, "for field '" + names[i] + "'"));
      }
      return make_named_tuple(std::move(es), callee.ty, c.loc);
    }
    case type_kind::module: fail(c.loc, "module '" + callee.ty->name + "' is not callable");
    default: fail(c.loc, "a value of type " + callee.ty->str() + " is not callable");
  }
}

}  // namespace cuforge::frontend::detail

// Calls: Python's builtins, math/cmath/numpy scalar functions, the
// operator module, dtypes as conversions, methods of scalars, and device
// functions (specialised per argument types).
#include "typer_impl.hpp"

#include <cstring>

namespace cuforge::frontend::detail {

namespace {

struct named_op {
  const char* name;
  op_id op;
};

// Real functions: a float32 argument computes in float32, integers in
// float64 (float16 in float32, its arithmetic type).
constexpr named_op math_unary[] = {
    {"sqrt", op_id::sqrt},   {"exp", op_id::exp},     {"expm1", op_id::expm1}, {"log2", op_id::log2},
    {"log10", op_id::log10}, {"log1p", op_id::log1p}, {"sin", op_id::sin},     {"cos", op_id::cos},
    {"tan", op_id::tan},     {"asin", op_id::asin},   {"acos", op_id::acos},   {"atan", op_id::atan},
    {"sinh", op_id::sinh},   {"cosh", op_id::cosh},   {"tanh", op_id::tanh},   {"asinh", op_id::asinh},
    {"acosh", op_id::acosh}, {"atanh", op_id::atanh}, {"erf", op_id::erf},     {"erfc", op_id::erfc},
    {"gamma", op_id::tgamma}, {"lgamma", op_id::lgamma}, {"fabs", op_id::fabs}, {"exp2", op_id::exp2},
    {"cbrt", op_id::cbrt}};
constexpr named_op numpy_unary[] = {
    {"sqrt", op_id::sqrt},      {"exp", op_id::exp},        {"expm1", op_id::expm1},    {"log", op_id::log},
    {"log2", op_id::log2},      {"log10", op_id::log10},    {"log1p", op_id::log1p},    {"sin", op_id::sin},
    {"cos", op_id::cos},        {"tan", op_id::tan},        {"arcsin", op_id::asin},    {"arccos", op_id::acos},
    {"arctan", op_id::atan},    {"sinh", op_id::sinh},      {"cosh", op_id::cosh},      {"tanh", op_id::tanh},
    {"arcsinh", op_id::asinh},  {"arccosh", op_id::acosh},  {"arctanh", op_id::atanh},  {"fabs", op_id::fabs},
    {"exp2", op_id::exp2},      {"cbrt", op_id::cbrt},      {"floor", op_id::floor},    {"ceil", op_id::ceil},
    {"trunc", op_id::trunc},    {"rint", op_id::rint}};
constexpr named_op math_binary[] = {{"atan2", op_id::atan2},       {"hypot", op_id::hypot}, {"copysign", op_id::copysign},
                                    {"fmod", op_id::fmod},         {"pow", op_id::fpow},    {"nextafter", op_id::nextafter},
                                    {"remainder", op_id::remainder}};
constexpr named_op numpy_binary[] = {{"arctan2", op_id::atan2}, {"hypot", op_id::hypot}, {"copysign", op_id::copysign},
                                     {"fmod", op_id::fmod},     {"fmin", op_id::fmin},   {"fmax", op_id::fmax},
                                     {"nextafter", op_id::nextafter}};
// numpy's and cmath's complex counterparts of the real functions.
constexpr named_op complex_unary[] = {{"sqrt", op_id::csqrt}, {"exp", op_id::cexp},   {"log", op_id::clog},
                                      {"sin", op_id::csin},   {"cos", op_id::ccos},   {"tan", op_id::ctan},
                                      {"sinh", op_id::csinh}, {"cosh", op_id::ccosh}, {"tanh", op_id::ctanh}};

template <std::size_t N>
const named_op* find(const named_op (&table)[N], const std::string& name) {
  for (const auto& e : table)
    if (name == e.name) return &e;
  return nullptr;
}

const char* const builtin_names[] = {"abs", "min", "max", "round", "int", "float", "bool", "complex", "len",
                                     "range", "enumerate", "zip", "print", "pow", "divmod",
                                     // the walker's desugaring of range() inside enumerate() and zip(); no
                                     // Python name reaches these
                                     "__range_len__", "__range_item__"};
const char* const math_special[] = {"floor", "ceil", "trunc", "log", "isnan", "isinf", "isfinite", "ldexp",
                                    "frexp", "modf", "radians", "degrees"};
const char* const numpy_special[] = {"isnan", "isinf", "isfinite", "ldexp", "frexp", "modf", "radians", "degrees",
                                     "deg2rad", "rad2deg", "abs", "absolute", "minimum", "maximum", "power",
                                     "real", "imag", "conj", "conjugate", "angle", "square"};
const char* const cmath_special[] = {"phase", "polar", "rect", "isnan", "isinf", "isfinite"};
const char* const operator_names[] = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift",
                                      "rshift", "and_", "or_", "xor", "neg", "pos", "invert", "not_",
                                      "eq", "ne", "lt", "le", "gt", "ge", "abs"};

template <std::size_t N>
bool listed(const char* const (&names)[N], const std::string& name) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

}  // namespace

bool function_typer::known_function(const std::string& full) {
  auto dot = full.rfind('.');
  if (dot == std::string::npos) return false;
  std::string module = full.substr(0, dot), name = full.substr(dot + 1);
  if (module == "builtins") return listed(builtin_names, name);
  if (module == "math") return find(math_unary, name) || find(math_binary, name) || listed(math_special, name);
  if (module == "numpy") return find(numpy_unary, name) || find(numpy_binary, name) || listed(numpy_special, name);
  if (module == "cmath") return find(complex_unary, name) || listed(cmath_special, name);
  if (module == "operator") return listed(operator_names, name);
  return known_cuda_function(full);
}

value function_typer::call_function(const std::string& name, call_args& c) {
  for (const auto& a : c.args)
    if (!a.runtime() && name.rfind("cuda.", 0) != 0) no_impl(c);
  if (auto r = call_builtin(name, c)) return *r;
  if (auto r = call_math(name, c)) return *r;
  if (auto r = call_cuda(name, c)) return *r;
  fail(c.loc, "Unsupported function: " + name);
}

// --- builtins ---------------------------------------------------------------------

namespace {

void expect_args(const function_typer& ft, const call_args& c, std::size_t lo, std::size_t hi) {
  if (c.args.size() < lo || c.args.size() > hi || !c.kwargs.empty()) {
    std::string n = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    ft.no_impl(c, "it takes " + n + " positional argument" + (hi == 1 ? "" : "s"));
  }
}

}  // namespace

std::optional<value> function_typer::call_builtin(const std::string& name, call_args& c) {
  if (name.rfind("builtins.", 0) != 0) return std::nullopt;
  const std::string b = name.substr(9);
  const location loc = c.loc;
  auto scalar_arg = [&](std::size_t i) -> const value& {
    if (!c.args[i].runtime() || !c.args[i].ty->is_scalar()) no_impl(c);
    return c.args[i];
  };
  if (b == "abs") {
    expect_args(*this, c, 1, 1);
    const value& x = scalar_arg(0);
    if (x.ty->is_complex()) {
      value r = op(op_id::abs, tc_.floating(x.ty->bits / 2), {x}, loc);
      r.weak = x.weak;
      return r;
    }
    const type* t = x.ty->kind == type_kind::boolean ? tc_.int64() : arith(x.ty);
    value v = cast(x, t, loc);
    if (t->is_int()) {
      if (auto k = const_int(v)) return int_constant(*k < 0 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(*k)) : *k, t, loc, x.weak);
      if (!t->is_signed) return v;
    }
    value r = op(op_id::abs, t, {v}, loc);
    r.weak = x.weak;
    r.nonneg = t->is_int();
    return r;
  }
  if (b == "min" || b == "max") {
    if (!c.kwargs.empty()) no_impl(c);
    return min_max(b == "min", c.args, c);
  }
  if (b == "round") return round(c);
  if (b == "pow") {
    expect_args(*this, c, 2, 2);
    return pow(scalar_arg(0), scalar_arg(1), loc);
  }
  if (b == "divmod") {
    expect_args(*this, c, 2, 2);
    value x = pure(scalar_arg(0), loc), y = pure(scalar_arg(1), loc);
    return make_tuple({binary(binop::floordiv, x, y, loc), binary(binop::mod, x, y, loc)}, loc);
  }
  if (b == "int" || b == "float" || b == "complex" || b == "bool") {
    if (b == "complex" && c.args.size() == 2 && c.kwargs.empty()) {
      const value &re = scalar_arg(0), &im = scalar_arg(1);
      if (re.ty->is_complex() || im.ty->is_complex()) no_impl(c, "the parts must be real");
      const type* f = tc_.float64();
      return op(op_id::complex_make, tc_.complex128(), {cast(re, f, loc), cast(im, f, loc)}, loc);
    }
    expect_args(*this, c, 0, 1);
    const type* t = b == "int" ? tc_.int64() : b == "float" ? tc_.float64() : b == "complex" ? tc_.complex128() : tc_.boolean();
    return call_dtype(t, c);
  }
  if (b == "len") {
    expect_args(*this, c, 1, 1);
    const value& x = c.args[0];
    if (x.ty->is_array()) {
      if (x.ty->ndim == 0) no_impl(c, "len() of a 0-d array");
      value r = op(op_id::array_shape, tc_.int64(), {x}, loc, {0});
      r.weak = r.nonneg = true;
      return r;
    }
    if (x.ty->is_tuple()) {
      if (!x.pure) hoist(x, loc);
      return int_constant(static_cast<std::int64_t>(x.ty->elements.size()), tc_.int64(), loc, true);
    }
    no_impl(c, "len() takes an array or a tuple");
  }
  if (b == "__range_len__" || b == "__range_item__") {
    // range(start, stop, step) as a source inside enumerate() or zip(): its
    // length, and its item at an index, in the type for_range counts in.
    const bool item = b == "__range_item__";
    if (c.args.size() != (item ? 4u : 3u) || !c.kwargs.empty()) fail(loc, "malformed IR: " + b);
    for (const auto& a : c.args)
      if (!a.runtime()) fail(loc, "range() arguments must be integers, got " + a.ty->str());
    value start = pure(c.args[0], loc), stop = pure(c.args[1], loc), step = pure(c.args[2], loc);
    const value* parts[] = {&start, &stop, &step};
    const location where[3] = {loc, loc, loc};
    bool weak = false;
    const type* t = range_type(parts, where, loc, weak);
    value s0 = cast(start, t, loc), s1 = cast(stop, t, loc), st = cast(step, t, loc);
    if (item) {
      value i = cast(c.args[3], t, loc);
      return cast(binary(binop::add, s0, binary(binop::mul, i, st, loc), loc), t, loc);
    }
    value n;
    if (t->is_signed) {
      // Python's floor division makes -((start - stop) // step) the ceiling
      // of (stop - start) / step for either sign of step.
      n = unary(unop::neg, binary(binop::floordiv, binary(binop::sub, s0, s1, loc), st, loc), loc);
      n = min_max(false, {pure(n, loc), int_constant(0, t, loc)}, c);
    } else {
      // Unsigned: the step is positive (a negative constant made it int64).
      value span = binary(binop::sub, min_max(false, {s1, s0}, c), s0, loc);
      n = binary(binop::floordiv, binary(binop::sub, binary(binop::add, span, st, loc), int_constant(1, t, loc), loc),
                 st, loc);
    }
    value r = cast(n, tc_.int64(), loc);
    r.nonneg = true;
    return r;
  }
  if (b == "range" || b == "enumerate" || b == "zip")
    fail(loc, "Unsupported: " + b + "() outside the iterable of a for loop");
  if (b == "print") fail(loc, "Unsupported: print() in kernels");
  return std::nullopt;
}

value function_typer::min_max(bool is_min, std::vector<value> xs, call_args& c) {
  const location loc = c.loc;
  if (xs.size() == 1 && xs[0].runtime() && xs[0].ty->is_tuple()) xs = tuple_elements(xs[0], loc);
  if (xs.size() < 2) no_impl(c, "it takes two or more numbers, or a tuple of them");
  for (const auto& x : xs)
    if (!x.runtime() || !x.ty->is_scalar() || x.ty->is_complex()) no_impl(c);
  value acc = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const value& x = xs[i];
    const type* t = acc.ty == x.ty ? acc.ty : promote(tc_, acc.ty, acc.weak, x.ty, x.weak);
    if (t->kind == type_kind::boolean) t = tc_.int64();
    t = arith(t);
    value r = op(is_min ? op_id::min : op_id::max, t, {cast(acc, t, loc), cast(x, t, loc)}, loc);
    r.weak = acc.weak && x.weak;
    r.nonneg = is_min ? (acc.nonneg && x.nonneg) : (acc.nonneg || x.nonneg);
    acc = r;
  }
  return acc;
}

value function_typer::round(call_args& c) {
  const location loc = c.loc;
  if (c.args.size() == 2 && const_of(c.args[1]) && c.args[1].ty->kind == type_kind::none) c.args.pop_back();
  expect_args(*this, c, 1, 2);
  const value& x = c.args[0];
  if (!x.runtime() || !x.ty->is_scalar() || x.ty->is_complex()) no_impl(c);
  if (c.args.size() == 1) {
    // round(x) is an int, halves to even.
    if (!x.ty->is_float()) return cast(x, x.ty->kind == type_kind::boolean ? tc_.int64() : x.ty, loc);
    const type* t = arith(x.ty);
    value r = cast(op(op_id::rint, t, {cast(x, t, loc)}, loc), tc_.int64(), loc);
    r.weak = x.weak;
    return r;
  }
  const value& n = c.args[1];
  if (!n.runtime() || !(n.ty->is_int() || n.ty->kind == type_kind::boolean)) no_impl(c, "ndigits must be an integer");
  const type* xt = x.ty->kind == type_kind::boolean ? tc_.int64() : x.ty;
  if (xt->is_int()) {
    if (auto k = const_int(n); k && *k >= 0) return cast(x, xt, loc);
  }
  // NumPy's way: rint(x * 10**n) / 10**n in x's float type (float64 for
  // integers, converted back).
  const type* t = xt->is_int() ? tc_.float64() : arith(xt);
  value ten = int_constant(10, t, loc);
  value p = pure(op(op_id::powi, t, {ten, cast(n, tc_.int64(), loc)}, loc), loc);
  value scaled = op(op_id::mul, t, {cast(x, t, loc), p}, loc);
  value r = op(op_id::div, t, {op(op_id::rint, t, {scaled}, loc), p}, loc);
  if (xt->is_int()) r = cast(r, xt, loc);
  r.weak = x.weak && n.weak;
  return r;
}

value function_typer::call_dtype(const type* scalar, call_args& c) {
  const location loc = c.loc;
  if (scalar->is_complex() && c.args.size() == 2 && c.kwargs.empty()) {
    // complex(re, im): Python's complex is the dtype complex128.
    for (const auto& a : c.args)
      if (!a.runtime() || !a.ty->is_scalar() || a.ty->is_complex()) no_impl(c, "the parts must be real numbers");
    const type* f = tc_.floating(scalar->bits / 2);
    return op(op_id::complex_make, scalar, {cast(c.args[0], f, loc), cast(c.args[1], f, loc)}, loc);
  }
  if (!c.kwargs.empty() || c.args.size() > 1) no_impl(c, "it takes one number");
  if (c.args.empty()) return int_constant(0, scalar, loc);
  const value& x = c.args[0];
  if (!x.runtime() || !x.ty->is_scalar()) no_impl(c);
  if (scalar->kind == type_kind::boolean) {  // a complex number's truth too: nonzero
    value r = truth(x, loc);
    r.weak = false;
    return r;
  }
  if (x.ty->is_complex() && !scalar->is_complex()) no_impl(c, "cannot convert a complex number to " + scalar->str());
  value r = cast(x, scalar, loc);
  r.weak = false;
  return r;
}

value function_typer::call_method(const std::string& name, const value& self, call_args& c) {
  if (name == "method.conjugate") {
    c.name = self.ty->str() + ".conjugate";
    expect_args(*this, c, 0, 0);
    if (!self.ty->is_complex()) return self;
    value r = op(op_id::conj, self.ty, {self}, c.loc);
    r.weak = self.weak;
    return r;
  }
  fail(c.loc, "Unsupported method " + name);
}

// --- math, cmath, numpy, operator ------------------------------------------------------

namespace {

const type* real_float(type_context& tc, const type* t) {
  if (t->kind == type_kind::boolean || t->is_int()) return tc.float64();
  if (t->is_float()) return t->bits == 16 ? tc.float32() : t;
  return nullptr;
}

const type* complex_for(type_context& tc, const type* t) {
  if (t->is_complex()) return t;
  if (t->is_float() && t->bits <= 32) return tc.complex64();
  return tc.complex128();
}

}  // namespace

value function_typer::float_math(op_id o, const value& x, call_args& c) {
  if (!x.runtime() || !x.ty->is_scalar() || x.ty->is_complex()) no_impl(c);
  const type* t = real_float(tc_, x.ty);
  value r = op(o, t, {cast(x, t, c.loc)}, c.loc);
  r.weak = x.weak;
  return r;
}

std::optional<value> function_typer::call_math(const std::string& name, call_args& c) {
  auto dot = name.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::string module = name.substr(0, dot), f = name.substr(dot + 1);
  const bool is_math = module == "math", is_numpy = module == "numpy", is_cmath = module == "cmath";
  if (!is_math && !is_numpy && !is_cmath && module != "operator") return std::nullopt;
  const location loc = c.loc;
  auto real_arg = [&](std::size_t i) -> const value& {
    const value& x = c.args[i];
    if (!x.runtime() || !x.ty->is_scalar() || x.ty->is_complex()) no_impl(c);
    return x;
  };
  auto scalar_arg = [&](std::size_t i) -> const value& {
    const value& x = c.args[i];
    if (!x.runtime() || !x.ty->is_scalar()) no_impl(c);
    return x;
  };
  auto bool_constant = [&](bool b) {
    constant_value cv;
    cv.k = constant_value::kind::boolean;
    cv.b = b;
    return constant(cv, tc_.boolean(), loc);
  };

  if (module == "operator") {
    static const struct {
      const char* name;
      binop o;
    } binops[] = {{"add", binop::add},       {"sub", binop::sub},         {"mul", binop::mul},
                  {"truediv", binop::truediv}, {"floordiv", binop::floordiv}, {"mod", binop::mod},
                  {"pow", binop::pow},       {"lshift", binop::lshift},   {"rshift", binop::rshift},
                  {"and_", binop::bitand_},  {"or_", binop::bitor_},      {"xor", binop::bitxor}};
    for (const auto& e : binops)
      if (f == e.name) {
        expect_args(*this, c, 2, 2);
        return binary(e.o, c.args[0], c.args[1], loc);
      }
    static const struct {
      const char* name;
      cmpop o;
    } cmps[] = {{"eq", cmpop::eq}, {"ne", cmpop::ne}, {"lt", cmpop::lt}, {"le", cmpop::le}, {"gt", cmpop::gt}, {"ge", cmpop::ge}};
    for (const auto& e : cmps)
      if (f == e.name) {
        expect_args(*this, c, 2, 2);
        return compare(e.o, c.args[0], c.args[1], loc);
      }
    static const struct {
      const char* name;
      unop o;
    } unops[] = {{"neg", unop::neg}, {"pos", unop::pos}, {"invert", unop::invert}, {"not_", unop::not_}};
    for (const auto& e : unops)
      if (f == e.name) {
        expect_args(*this, c, 1, 1);
        return unary(e.o, c.args[0], loc);
      }
    if (f == "abs") return call_builtin("builtins.abs", c);
    return std::nullopt;
  }

  // Complex arguments: cmath always, numpy for the functions it has both ways.
  if (is_cmath || is_numpy) {
    if (const named_op* e = find(complex_unary, f)) {
      if (is_cmath || (c.args.size() == 1 && c.args[0].runtime() && c.args[0].ty->is_complex())) {
        if (is_cmath && f == "log" && c.args.size() == 2) {
          const value &z = scalar_arg(0), &base = scalar_arg(1);
          const type* t = complex_for(tc_, promote(tc_, complex_for(tc_, z.ty), false, complex_for(tc_, base.ty), false));
          return op(op_id::div, t, {op(op_id::clog, t, {cast(z, t, loc)}, loc), op(op_id::clog, t, {cast(base, t, loc)}, loc)}, loc);
        }
        expect_args(*this, c, 1, 1);
        const value& z = scalar_arg(0);
        const type* t = complex_for(tc_, z.ty);
        return op(e->op, t, {cast(z, t, loc)}, loc);
      }
    }
  }
  if (is_cmath) {
    if (f == "phase") {
      expect_args(*this, c, 1, 1);
      const value& z = scalar_arg(0);
      const type* t = complex_for(tc_, z.ty);
      return op(op_id::phase, tc_.floating(t->bits / 2), {cast(z, t, loc)}, loc);
    }
    if (f == "polar") {
      expect_args(*this, c, 1, 1);
      const type* t = complex_for(tc_, scalar_arg(0).ty);
      value z = pure(cast(c.args[0], t, loc), loc);
      const type* ft = tc_.floating(t->bits / 2);
      return make_tuple({op(op_id::abs, ft, {z}, loc), op(op_id::phase, ft, {z}, loc)}, loc);
    }
    if (f == "rect") {
      expect_args(*this, c, 2, 2);
      const value &r0 = real_arg(0), &p0 = real_arg(1);
      const type* t = real_float(tc_, promote(tc_, r0.ty, r0.weak, p0.ty, p0.weak));
      value r = pure(cast(r0, t, loc), loc), phi = pure(cast(p0, t, loc), loc);
      value re = op(op_id::mul, t, {r, op(op_id::cos, t, {phi}, loc)}, loc);
      value im = op(op_id::mul, t, {r, op(op_id::sin, t, {phi}, loc)}, loc);
      return op(op_id::complex_make, complex_for(tc_, t), {re, im}, loc);
    }
  }

  // isnan / isinf / isfinite: integers are never nan or inf; a complex
  // number (numpy, cmath) is nan or inf when a part is, finite when both are.
  if (f == "isnan" || f == "isinf" || f == "isfinite") {
    expect_args(*this, c, 1, 1);
    const value& x = scalar_arg(0);
    op_id o = f == "isnan" ? op_id::isnan : f == "isinf" ? op_id::isinf : op_id::isfinite;
    if (x.ty->is_complex()) {
      if (is_math) no_impl(c);
      value z = pure(x, loc);
      const type* ft = tc_.floating(z.ty->bits / 2);
      value re = op(o, tc_.boolean(), {op(op_id::real, ft, {z}, loc)}, loc);
      value im = op(o, tc_.boolean(), {op(op_id::imag, ft, {z}, loc)}, loc);
      return logical(o == op_id::isfinite, re, im, loc);
    }
    if (!x.ty->is_float()) {
      if (!x.pure) hoist(x, loc);
      return bool_constant(o == op_id::isfinite);
    }
    return op(o, tc_.boolean(), {cast(x, arith(x.ty), loc)}, loc);
  }

  if (is_math && (f == "floor" || f == "ceil" || f == "trunc")) {
    // Python's: an int.
    expect_args(*this, c, 1, 1);
    const value& x = real_arg(0);
    if (!x.ty->is_float()) {
      value r = cast(x, tc_.int64(), loc);
      r.weak = x.weak;
      return r;
    }
    op_id o = f == "floor" ? op_id::floor : f == "ceil" ? op_id::ceil : op_id::trunc;
    value r = cast(float_math(o, x, c), tc_.int64(), loc);
    r.weak = x.weak;
    return r;
  }
  if ((is_math || is_numpy) && f == "log" && !(c.args.size() == 1 && c.args[0].runtime() && c.args[0].ty->is_complex())) {
    expect_args(*this, c, 1, is_math ? 2 : 1);
    if (c.args.size() == 1) return float_math(op_id::log, real_arg(0), c);
    const value &x = real_arg(0), &base = real_arg(1);
    const type* t = real_float(tc_, promote(tc_, x.ty, x.weak, base.ty, base.weak));
    value r = op(op_id::div, t, {op(op_id::log, t, {cast(x, t, loc)}, loc), op(op_id::log, t, {cast(base, t, loc)}, loc)}, loc);
    r.weak = x.weak && base.weak;
    return r;
  }
  if (const named_op* e = is_math ? find(math_unary, f) : is_numpy ? find(numpy_unary, f) : nullptr) {
    expect_args(*this, c, 1, 1);
    return float_math(e->op, c.args[0], c);
  }
  if (const named_op* e = is_math ? find(math_binary, f) : is_numpy ? find(numpy_binary, f) : nullptr) {
    expect_args(*this, c, 2, 2);
    const value &x = real_arg(0), &y = real_arg(1);
    const type* t = real_float(tc_, promote(tc_, x.ty, x.weak, y.ty, y.weak));
    value r = op(e->op, t, {cast(x, t, loc), cast(y, t, loc)}, loc);
    r.weak = x.weak && y.weak;
    return r;
  }
  if ((is_math || is_numpy) && f == "ldexp") {
    expect_args(*this, c, 2, 2);
    const value &x = real_arg(0), &n = real_arg(1);
    if (n.ty->is_float()) no_impl(c, "the exponent must be an integer");
    const type* t = real_float(tc_, x.ty);
    value r = op(op_id::ldexp, t, {cast(x, t, loc), cast(n, tc_.int32(), loc)}, loc);
    r.weak = x.weak;
    return r;
  }
  if ((is_math || is_numpy) && (f == "frexp" || f == "modf")) {
    expect_args(*this, c, 1, 1);
    const value& x = real_arg(0);
    const type* t = real_float(tc_, x.ty);
    const type* rt = f == "frexp" ? tc_.tuple({t, tc_.int32()}) : tc_.tuple({t, t});
    return op(f == "frexp" ? op_id::frexp : op_id::modf, rt, {cast(x, t, loc)}, loc);
  }
  if ((is_math || is_numpy) && (f == "radians" || f == "degrees" || f == "deg2rad" || f == "rad2deg")) {
    expect_args(*this, c, 1, 1);
    const value& x = real_arg(0);
    const type* t = real_float(tc_, x.ty);
    constexpr double pi = 3.14159265358979323846;
    constant_value k;
    k.k = constant_value::kind::floating;
    k.f = (f == "radians" || f == "deg2rad") ? pi / 180 : 180 / pi;
    value r = op(op_id::mul, t, {cast(x, t, loc), constant(k, t, loc)}, loc);
    r.weak = x.weak;
    return r;
  }
  if (!is_numpy) return std::nullopt;
  if (f == "abs" || f == "absolute") return call_builtin("builtins.abs", c);
  if (f == "minimum" || f == "maximum") {
    // Python's min/max: where NumPy propagates a NaN in either operand,
    // these return the second operand when the comparison is false.
    expect_args(*this, c, 2, 2);
    return min_max(f == "minimum", c.args, c);
  }
  if (f == "power") {
    expect_args(*this, c, 2, 2);
    return pow(scalar_arg(0), scalar_arg(1), loc);
  }
  if (f == "square") {
    expect_args(*this, c, 1, 1);
    value x = pure(scalar_arg(0), loc);
    return binary(binop::mul, x, x, loc);
  }
  if (f == "real" || f == "imag" || f == "conj" || f == "conjugate" || f == "angle") {
    expect_args(*this, c, 1, 1);
    const value& x = scalar_arg(0);
    if (f == "angle") {
      const type* t = complex_for(tc_, x.ty);
      return op(op_id::phase, tc_.floating(t->bits / 2), {cast(x, t, loc)}, loc);
    }
    if (f == "real" || f == "imag") return attribute(x, f, loc);
    if (!x.ty->is_complex()) return x;
    return op(op_id::conj, x.ty, {x}, loc);
  }
  return std::nullopt;
}

// --- device functions -----------------------------------------------------------------

value function_typer::call_device(const function& callee, call_args& c) {
  const std::string& fname = c.name;
  const std::size_t n = callee.params.size();
  if (c.args.size() > n)
    fail(c.loc, fname + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " but " +
                    std::to_string(c.args.size()) + " were given");
  std::vector<std::optional<value>> bound(n);
  for (std::size_t i = 0; i < c.args.size(); ++i) bound[i] = c.args[i];
  for (const auto& k : c.kwargs) {
    std::size_t j = n;
    for (std::size_t i = 0; i < n; ++i) {
      var_id p = callee.params[i];
      if (p >= 0 && static_cast<std::size_t>(p) < callee.vars.size() && callee.vars[static_cast<std::size_t>(p)].name == k.name) j = i;
    }
    if (j == n) fail(c.loc, fname + "() got an unexpected keyword argument '" + k.name + "'");
    if (bound[j]) fail(c.loc, fname + "() got multiple values for argument '" + k.name + "'");
    bound[j] = k.v;
  }
  std::vector<value> args;
  std::vector<const type*> types;
  for (std::size_t i = 0; i < n; ++i) {
    if (!bound[i]) {
      var_id p = callee.params[i];
      std::string pname = p >= 0 && static_cast<std::size_t>(p) < callee.vars.size() ? callee.vars[static_cast<std::size_t>(p)].name : "?";
      fail(c.loc, fname + "() missing argument '" + pname + "'");
    }
    const value& v = *bound[i];
    if (!v.runtime()) fail(c.loc, "cannot pass " + v.ty->str() + " to " + fname + "(): it is not a run-time value");
    args.push_back(v);
    types.push_back(v.ty);
  }
  int sid = m_.specialize(callee, types, src_, c.loc);
  const specialization& sp = m_.at(sid);
  for (std::size_t i = 0; i < n && i < sp.tf.writes_arg.size(); ++i)
    if (sp.tf.writes_arg[i]) mark_written(args[i]);
  uses_barrier_ = uses_barrier_ || sp.tf.uses_barrier;
  value r = op(op_id::call_device, sp.tf.return_type, args, c.loc, {sid}, true);
  for (int j : sp.return_roots)
    if (j >= 0 && static_cast<std::size_t>(j) < args.size()) add_roots(r.roots, args[static_cast<std::size_t>(j)].roots);
  return r;
}

}  // namespace cuforge::frontend::detail

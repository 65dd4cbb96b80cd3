// The registry's math.*, cmath.* and numpy.* rows: scalar functions and
// constants. They type into the math library's ops (ops.hpp: sin, atan2,
// csqrt...), which codegen lowers, so none needs a lowering of its own; and
// random.random/random.seed, which call host_random.cpp (host code only).
// numpy's dtypes (np.float32, np.intc...) are the scalar-type table's, not
// rows here.
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"
#include "numba_typing.hpp"

#include <cmath>
#include <limits>

namespace cuforge::frontend::detail {

namespace {

value bool_constant(function_typer& ft, bool b, location loc) {
  constant_value cv;
  cv.k = constant_value::kind::boolean;
  cv.b = b;
  return ft.constant(cv, ft.tc_.boolean(), loc);
}

// --- random: Python's generator, in host code only (host_random.cpp) ---------------------------

value type_random(function_typer& ft, const intrinsic& self, call_args& c) {
  if (!ft.m_.opts.host_only)
    ft.no_impl(c, "it runs in host code only (cuforge.jit / njit, vectorize's CPU targets); in kernels use "
                  "cuda.random's xoroshiro128p generators");
  if (!c.kwargs.empty()) ft.no_impl(c, "it takes no keyword arguments");
  if (self.arg == 0) {  // random.random()
    if (!c.args.empty()) ft.no_impl(c, "it takes no arguments");
    return ft.intrinsic_op(self, ft.tc_.float64(), {}, c.loc, {}, true);
  }
  if (c.args.size() != 1 || !c.args[0].runtime() || !c.args[0].ty->is_int())
    ft.no_impl(c, "it takes one integer (the seed)");
  return ft.intrinsic_op(self, ft.tc_.none(), {ft.cast(c.args[0], ft.tc_.int64(), c.loc)}, c.loc, {}, true);
}

llvm::Value* lower_random_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  if (self.arg == 0) {
    llvm::FunctionCallee f = fl.ms.mod.getOrInsertFunction("cuforge_host_random", b.getDoubleTy());
    return b.CreateCall(f, {});
  }
  llvm::FunctionCallee f = fl.ms.mod.getOrInsertFunction("cuforge_host_seed", b.getVoidTy(), b.getInt64Ty());
  b.CreateCall(f, {fl.expr(e.operands[0])});
  return fl.ms.none_value();
}

llvm::Value* lower_random_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  fl.fail_at(std::string(self.info.name) + "() runs in host code only (cuforge.jit / njit); in kernels use "
                 "cuda.random's xoroshiro128p generators",
             e.loc);
}

// --- constants ----------------------------------------------------------------------------------

constexpr double pi = 3.14159265358979323846;
// arg indexes this table.
constexpr double real_constants[] = {pi, 2.71828182845904523536, std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN(), 2 * pi, 0.57721566490153286061};
enum : int { k_pi, k_e, k_inf, k_nan, k_tau, k_euler_gamma };

value read_real(function_typer& ft, const intrinsic& self, location loc) {
  constant_value cv;
  cv.k = constant_value::kind::floating;
  cv.f = real_constants[self.arg];
  return ft.constant(cv, ft.tc_.float64(), loc, true);
}

// cmath.infj (arg 0), cmath.nanj (arg 1).
value read_imaginary(function_typer& ft, const intrinsic& self, location loc) {
  constant_value cv;
  cv.k = constant_value::kind::complex;
  cv.c = {0, self.arg == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN()};
  return ft.constant(cv, ft.tc_.complex128(), loc, true);
}

// --- real functions -------------------------------------------------------------------------------

// numpy's functions that take complex numbers too: the complex op is `arg`.
value type_numpy_unary(function_typer& ft, const intrinsic& self, call_args& c) {
  if (c.args.size() == 1 && c.args[0].runtime() && c.args[0].ty->is_complex()) {
    expect_args(ft, c, 1, 1);
    const value& z = scalar_arg(ft, c, 0);
    const type* t = complex_for(ft.tc_, z.ty);
    return ft.op(static_cast<op_id>(self.arg), t, {ft.cast(z, t, c.loc)}, c.loc);
  }
  return type_unary(ft, self, c);
}

// The signature a row computes `args` in: Numba's candidates where the row
// is one of numba-cuda's math functions (a TypingError when none fits),
// else `fallback` for the result and every argument (numpy's rows).
resolved_op signature_of(function_typer& ft, const intrinsic& self, call_args& c, const std::vector<const type*>& args,
                         const type* fallback) {
  if (!numba_call_known(self.info.name)) return {fallback, std::vector<const type*>(args.size(), fallback)};
  resolved_op sig = numba_call(ft.tc_, self.info.name, args);
  if (!sig) ft.no_impl(c);
  return sig;
}

// (x, y) -> the op: Numba's signature, or the float type of their promotion.
value type_binary(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 2, 2);
  const value &x = real_arg(ft, c, 0), &y = real_arg(ft, c, 1);
  const resolved_op sig = signature_of(ft, self, c, {x.ty, y.ty}, real_float(ft.tc_, promote(ft.tc_, x.ty, y.ty)));
  const type* t = sig.result;
  const location loc = c.loc;
  value a = ft.cast(ft.cast(x, sig.params[0], loc), t, loc);
  if (sig.params[1]->is_int())  // math.pow(float, int32)
    return ft.op(op_id::powi, t, {a, ft.cast(ft.cast(y, sig.params[1], loc), ft.tc_.int64(), loc)}, loc);
  return ft.op(self.op, t, {a, ft.cast(ft.cast(y, sig.params[1], loc), t, loc)}, loc);
}

// math.log(x[, base]) and numpy.log(x) of a real x (numpy's complex log is numpy_unary's).
value type_log(function_typer& ft, const intrinsic& self, call_args& c) {
  const bool is_math = self.arg == 1;
  if (!is_math && c.args.size() == 1 && c.args[0].runtime() && c.args[0].ty->is_complex()) {
    const type* t = complex_for(ft.tc_, c.args[0].ty);
    return ft.op(op_id::clog, t, {ft.cast(c.args[0], t, c.loc)}, c.loc);
  }
  expect_args(ft, c, 1, is_math ? 2 : 1);
  if (c.args.size() == 1) return ft.float_math(op_id::log, c.args[0], c);  // which checks it
  const value &x = real_arg(ft, c, 0), &base = real_arg(ft, c, 1);
  const type* t = real_float(ft.tc_, promote(ft.tc_, x.ty, base.ty));
  const location loc = c.loc;
  value r = ft.op(op_id::div, t,
                  {ft.op(op_id::log, t, {ft.cast(x, t, loc)}, loc), ft.op(op_id::log, t, {ft.cast(base, t, loc)}, loc)},
                  loc);
  r.weak = x.weak && base.weak;
  return r;
}

// isnan / isinf / isfinite: integers are never nan or inf; a complex number
// (numpy, cmath: arg 1) is nan or inf when a part is, finite when both are.
// np.isnat(x): a datetime64 or timedelta64 only, as NumPy's and Numba's.
value type_isnat(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 1, 1);
  if (!c.args[0].runtime() || !c.args[0].ty->is_time())
    ft.no_impl(c, "it takes a datetime64 or timedelta64, not " + c.args[0].ty->str());
  return ft.time_isnat(c.args[0], c.loc);
}

value type_classify(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  const location loc = c.loc;
  const value& x = scalar_arg(ft, c, 0);
  const op_id o = self.op;
  if (x.ty->is_complex()) {
    if (self.arg == 0) ft.no_impl(c);
    value z = ft.pure(x, loc);
    const type* fty = ft.tc_.floating(z.ty->bits / 2);
    value re = ft.op(o, ft.tc_.boolean(), {ft.op(op_id::real, fty, {z}, loc)}, loc);
    value im = ft.op(o, ft.tc_.boolean(), {ft.op(op_id::imag, fty, {z}, loc)}, loc);
    return ft.logical(o == op_id::isfinite, re, im, loc);
  }
  if (!x.ty->is_float()) {
    if (!x.pure) ft.hoist(x, loc);
    return bool_constant(ft, o == op_id::isfinite, loc);
  }
  return ft.op(o, ft.tc_.boolean(), {x}, loc);
}

value type_ldexp(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 2, 2);
  const value &x = real_arg(ft, c, 0), &n = real_arg(ft, c, 1);
  if (n.ty->is_float()) ft.no_impl(c, "the exponent must be an integer");
  const type* t = signature_of(ft, self, c, {x.ty, n.ty}, real_float(ft.tc_, x.ty)).result;
  value r = ft.op(op_id::ldexp, t, {ft.cast(x, t, c.loc), ft.cast(n, ft.tc_.int32(), c.loc)}, c.loc);
  r.weak = x.weak;
  return r;
}

// frexp -> (mantissa, int32 exponent); modf -> (fractional, integral).
value type_frexp_modf(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  const value& x = real_arg(ft, c, 0);
  const type* t = signature_of(ft, self, c, {x.ty}, real_float(ft.tc_, x.ty)).result;
  const type* rt = self.op == op_id::frexp ? ft.tc_.tuple({t, ft.tc_.int32()}) : ft.tc_.tuple({t, t});
  return ft.op(self.op, rt, {ft.cast(x, t, c.loc)}, c.loc);
}

// radians / deg2rad (arg 0), degrees / rad2deg (arg 1).
value type_angle_unit(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  const value& x = real_arg(ft, c, 0);
  const type* t = signature_of(ft, self, c, {x.ty}, real_float(ft.tc_, x.ty)).result;
  constant_value k;
  k.k = constant_value::kind::floating;
  k.f = self.arg == 0 ? pi / 180 : 180 / pi;
  value r = ft.op(op_id::mul, t, {ft.cast(x, t, c.loc), ft.constant(k, t, c.loc)}, c.loc);
  r.weak = x.weak;
  return r;
}

// --- numpy's own ------------------------------------------------------------------------------

// numpy.minimum (arg 1) / maximum (arg 0): Python's min/max. Where NumPy
// propagates a nan in either operand, these return the second operand when
// the comparison is false.
value type_numpy_min_max(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 2, 2);
  return ft.min_max(self.arg == 1, c.args, c);
}

value type_square(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 1, 1);
  value x = ft.pure(scalar_arg(ft, c, 0), c.loc);
  return ft.binary(binop::mul, x, x, c.loc);
}

// --- NumPy's loop-typed ufuncs: the first of the ufunc's loops every argument casts to safely --

// The loops (their inputs, in NumPy's type strings without the byte order), as numba-cuda's ufunc
// typing sees them: NumPy's list without float16. Loops are separated by spaces, inputs by commas.
constexpr std::string_view k_loops[] = {
    "f4,f4 f8,f8 c8,c8 c16,c16",  // 0: true_divide / divide
    "b1,b1 i1,i1 u1,u1 i2,i2 u2,u2 i4,i4 u4,u4 i8,i8 u8,u8 i8,u8 u8,i8 f4,f4 f8,f8 c8,c8 c16,c16",  // 1: compare, logical
    "b1,b1 i1,i1 u1,u1 i2,i2 u2,u2 i4,i4 u4,u4 i8,i8 u8,u8",  // 2: bitwise_and/or/xor
    "i1,i1 u1,u1 i2,i2 u2,u2 i4,i4 u4,u4 i8,i8 u8,u8",        // 3: left_shift / right_shift
    "b1 i1 u1 i2 u2 i4 u4 i8 u8",                              // 4: invert
    "b1 i1 u1 i2 u2 i4 u4 i8 u8 f4 f8 c8 c16",                 // 5: logical_not
    "b1,b1 i1,i1 u1,u1 i2,i2 u2,u2 i4,i4 u4,u4 i8,i8 u8,u8 f4,f4 f8,f8 c8,c8 c16,c16",  // 6: add, multiply
    "i1,i1 u1,u1 i2,i2 u2,u2 i4,i4 u4,u4 i8,i8 u8,u8 f4,f4 f8,f8 c8,c8 c16,c16",  // 7: subtract
    "i1,i1 u1,u1 i2,i2 u2,u2 i4,i4 u4,u4 i8,i8 u8,u8 f4,f4 f8,f8",  // 8: floor_divide, remainder
    "i1 u1 i2 u2 i4 u4 i8 u8 f4 f8 c8 c16",  // 9: negative
};
constexpr int k_loop_sets = 32;  // a row's arg: an index of k_loops plus a numpy_loop_row (a multiple of this)

// A row's `arg`: its loops (an index of k_loops) plus what it computes.
enum numpy_loop_row : int {
  in_loop_type = 0,  ///< the op in the loop's type, the result of that type
  comparison = k_loop_sets,   ///< bool: the op (eq ... ge) compares in the loop's type
  logical = 2 * k_loop_sets,  ///< bool: the op (bit_and/or/xor, not_) on the arguments' truth
};

// numpy.<ufunc>(x1[, x2]) on scalars, typed by the first of its loops every argument casts to
// safely (NumPy's can_cast: promote_types gives the loop's type), with numba's exception: when the
// arguments mix integers with floats or complex numbers, any integer casts to any float or complex
// loop (np.true_divide(float32, int64) computes in float32, numba's ufunc_can_cast).
value type_numpy_loop(function_typer& ft, const intrinsic& self, call_args& c) {
  const std::size_t n = self.op == op_id::invert || self.op == op_id::not_ || self.op == op_id::neg ? 1 : 2;
  expect_args(ft, c, n, n);
  std::vector<value> xs;
  for (std::size_t i = 0; i < n; ++i) xs.push_back(scalar_arg(ft, c, i));
  bool any_int = false, any_float = false;
  for (const value& x : xs) {
    any_int = any_int || x.ty->is_int();
    any_float = any_float || x.ty->is_float() || x.ty->is_complex();
  }
  const bool mixed = any_int && any_float;
  std::vector<const type*> loop;
  std::string_view loops = k_loops[self.arg % k_loop_sets];
  while (loop.empty() && !loops.empty()) {
    const std::size_t end = std::min(loops.find(' '), loops.size());
    std::string_view one = loops.substr(0, end);
    loops.remove_prefix(std::min(end + 1, loops.size()));
    std::vector<const type*> cand;
    for (std::size_t at = 0; at <= one.size();) {
      const std::size_t comma = std::min(one.find(',', at), one.size());
      cand.push_back(ft.tc_.from_typestr("<" + std::string(one.substr(at, comma - at))));
      at = comma + 1;
    }
    bool safe = cand.size() == n;
    for (std::size_t i = 0; safe && i < n; ++i)
      safe = promote(ft.tc_, xs[i].ty, cand[i]) == cand[i] ||
             (mixed && xs[i].ty->is_int() && (cand[i]->is_float() || cand[i]->is_complex()));
    if (safe) loop = std::move(cand);
  }
  if (loop.empty()) ft.no_impl(c, "no loop of the ufunc takes these types safely (NumPy's casting rule)");
  const location loc = c.loc;
  const int kind = self.arg - self.arg % k_loop_sets;
  if (kind == logical) {  // the truth of each argument (a safe cast keeps it)
    value a = ft.truth(xs[0], loc);
    if (n == 1) return ft.unary(unop::not_, a, loc);
    value b = ft.truth(xs[1], loc);
    if (self.op == op_id::bit_xor) return ft.compare(cmpop::ne, a, b, loc);
    return ft.op(self.op, ft.tc_.boolean(), {a, b}, loc);
  }
  if (kind == comparison) {  // int64 with uint64 (the i8,u8 and u8,i8 loops) compares exactly
    const cmpop cmp = self.op == op_id::eq   ? cmpop::eq
                      : self.op == op_id::ne ? cmpop::ne
                      : self.op == op_id::lt ? cmpop::lt
                      : self.op == op_id::le ? cmpop::le
                      : self.op == op_id::gt ? cmpop::gt
                                             : cmpop::ge;
    if (loop[0] != loop[1]) {
      const bool a_signed = loop[0]->is_signed;
      value a = ft.pure(ft.cast(xs[0], loop[0], loc), loc), b = ft.pure(ft.cast(xs[1], loop[1], loc), loc);
      const value& s = a_signed ? a : b;  // the int64 operand: below 0 it is below every uint64
      value neg = ft.compare(cmpop::lt, s, ft.int_constant(0, s.ty, loc), loc);
      value ua = ft.cast(a, ft.tc_.uint64(), loc), ub = ft.cast(b, ft.tc_.uint64(), loc);
      value same = ft.compare(cmp, ua, ub, loc);
      bool when_negative = false;  // the answer where the signed operand is negative
      switch (cmp) {
        case cmpop::ne: when_negative = true; break;
        case cmpop::lt: case cmpop::le: when_negative = a_signed; break;
        case cmpop::gt: case cmpop::ge: when_negative = !a_signed; break;
        default: break;
      }
      value k = ft.int_constant(when_negative ? 1 : 0, ft.tc_.boolean(), loc);
      return ft.conditional(neg, k, same, ft.tc_.boolean(), loc);
    }
    return ft.compare(cmp, ft.cast(xs[0], loop[0], loc), ft.cast(xs[1], loop[1], loc), loc);
  }
  std::vector<value> ops;
  for (std::size_t i = 0; i < n; ++i) ops.push_back(ft.cast(xs[i], loop[i], loc));
  if (self.op == op_id::invert && loop[0]->kind == type_kind::boolean) return ft.unary(unop::not_, ops[0], loc);
  if (loop[0]->kind == type_kind::boolean && (self.op == op_id::add || self.op == op_id::mul))  // NumPy's ??->?
    return ft.op(self.op == op_id::add ? op_id::bit_or : op_id::bit_and, loop[0], std::move(ops), loc);
  return ft.op(self.op, loop[0], std::move(ops), loc);
}

// numpy.real / imag (as the attributes), conj / conjugate, angle.
value type_complex_part(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  const value& x = scalar_arg(ft, c, 0);
  switch (self.op) {
    case op_id::phase: {
      const type* t = complex_for(ft.tc_, x.ty);
      return ft.op(op_id::phase, ft.tc_.floating(t->bits / 2), {ft.cast(x, t, c.loc)}, c.loc);
    }
    case op_id::real: return ft.attribute(x, "real", c.loc);
    case op_id::imag: return ft.attribute(x, "imag", c.loc);
    default:
      if (!x.ty->is_complex()) return x;
      return ft.op(op_id::conj, x.ty, {x}, c.loc);
  }
}

// --- cmath ----------------------------------------------------------------------------------------

// cmath's functions always compute in complex (the op).
value type_cmath_unary(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  if (self.op == op_id::clog && c.args.size() == 2 && c.kwargs.empty()) {
    const value &z = scalar_arg(ft, c, 0), &base = scalar_arg(ft, c, 1);
    const type* t = complex_for(ft.tc_, promote(ft.tc_, complex_for(ft.tc_, z.ty), complex_for(ft.tc_, base.ty)));
    return ft.op(op_id::div, t,
                 {ft.op(op_id::clog, t, {ft.cast(z, t, loc)}, loc), ft.op(op_id::clog, t, {ft.cast(base, t, loc)}, loc)},
                 loc);
  }
  expect_args(ft, c, 1, 1);
  const value& z = scalar_arg(ft, c, 0);
  const type* t = complex_for(ft.tc_, z.ty);
  // numba-cuda's tanh, acosh and log10 mix in float64 constants: complex128 for complex64 too.
  const bool wide = self.op == op_id::ctanh || self.op == op_id::cacosh || self.op == op_id::clog10;
  return ft.op(self.op, wide ? ft.tc_.complex128() : t, {ft.cast(z, t, loc)}, loc);
}

value type_polar(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 1, 1);
  const location loc = c.loc;
  const type* t = complex_for(ft.tc_, scalar_arg(ft, c, 0).ty);
  value z = ft.pure(ft.cast(c.args[0], t, loc), loc);
  const type* fty = ft.tc_.floating(t->bits / 2);
  return ft.make_tuple({ft.op(op_id::abs, fty, {z}, loc), ft.op(op_id::phase, fty, {z}, loc)}, loc);
}

value type_rect(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 2, 2);
  const location loc = c.loc;
  const value &r0 = real_arg(ft, c, 0), &p0 = real_arg(ft, c, 1);
  const type* t = real_float(ft.tc_, promote(ft.tc_, r0.ty, p0.ty));
  return ft.op(op_id::crect, complex_for(ft.tc_, t), {ft.cast(r0, t, loc), ft.cast(p0, t, loc)}, loc);
}

// --- the rows -------------------------------------------------------------------------------------

constexpr intrinsic unary(std::string_view name, op_id op, std::string_view doc) {
  return function_entry(name, "(x)", doc, type_unary, op);
}
constexpr intrinsic numpy_unary(std::string_view name, op_id op, op_id complex_op, std::string_view doc) {
  return function_entry(name, "(x)", doc, type_numpy_unary, op, static_cast<int>(complex_op));
}
constexpr intrinsic binary(std::string_view name, op_id op, std::string_view doc) {
  return function_entry(name, "(x, y)", doc, type_binary, op);
}
constexpr intrinsic cmath_unary(std::string_view name, op_id op, std::string_view doc) {
  return function_entry(name, "(z)", doc, type_cmath_unary, op);
}
constexpr intrinsic real(std::string_view name, std::string_view doc, int which) {
  return value_entry(name, doc, read_real, op_id::none, which);
}

const intrinsic table[] = {
    // random (host code)
    module_entry("random", "Python's random module: random() and seed(n), in host code (cuforge.jit) only."),
    lowered_by(function_entry("random.random", "()", "A float64 in [0, 1) from this thread's Mersenne Twister "
                              "(CPython's algorithm and seeding). Host code only.", type_random, op_id::none, 0),
               lower_random_nvptx, lower_random_host),
    lowered_by(function_entry("random.seed", "(n)", "Seeds this thread's generator as CPython's random.seed(n) "
                              "does. Host code only.", type_random, op_id::none, 1),
               lower_random_nvptx, lower_random_host),
    // math
    module_entry("math", "Python's math module, on scalars (a float32 argument computes in float32)."),
    real("math.pi", "3.14159... (a float64: float32 * math.pi is a float64, as in Numba).", k_pi),
    real("math.e", "2.71828... (float64).", k_e),
    real("math.inf", "Positive infinity (float64).", k_inf),
    real("math.nan", "A quiet nan (float64).", k_nan),
    real("math.tau", "2 pi (float64).", k_tau),
    unary("math.sqrt", op_id::sqrt, "The square root."),
    unary("math.cbrt", op_id::cbrt, "The cube root."),
    unary("math.exp", op_id::exp, "e ** x."),
    unary("math.exp2", op_id::exp2, "2 ** x."),
    unary("math.expm1", op_id::expm1, "e ** x - 1, accurate near 0."),
    function_entry("math.log", "(x, base=e)", "The logarithm of x to base (natural by default).", type_log,
                   op_id::none, 1),
    unary("math.log2", op_id::log2, "The base-2 logarithm."),
    unary("math.log10", op_id::log10, "The base-10 logarithm."),
    unary("math.log1p", op_id::log1p, "log(1 + x), accurate near 0."),
    unary("math.sin", op_id::sin, "The sine (radians)."),
    unary("math.cos", op_id::cos, "The cosine (radians)."),
    unary("math.tan", op_id::tan, "The tangent (radians)."),
    unary("math.asin", op_id::asin, "The arc sine."),
    unary("math.acos", op_id::acos, "The arc cosine."),
    unary("math.atan", op_id::atan, "The arc tangent."),
    unary("math.sinh", op_id::sinh, "The hyperbolic sine."),
    unary("math.cosh", op_id::cosh, "The hyperbolic cosine."),
    unary("math.tanh", op_id::tanh, "The hyperbolic tangent."),
    unary("math.asinh", op_id::asinh, "The inverse hyperbolic sine."),
    unary("math.acosh", op_id::acosh, "The inverse hyperbolic cosine."),
    unary("math.atanh", op_id::atanh, "The inverse hyperbolic tangent."),
    unary("math.erf", op_id::erf, "The error function."),
    unary("math.erfc", op_id::erfc, "The complementary error function."),
    unary("math.gamma", op_id::tgamma, "The gamma function."),
    unary("math.lgamma", op_id::lgamma, "The natural logarithm of |gamma(x)|."),
    unary("math.fabs", op_id::fabs, "The absolute value, as a float."),
    unary("math.floor", op_id::floor, "The largest integer <= x, as a float (numba-cuda's; Python's is an int)."),
    unary("math.ceil", op_id::ceil, "The smallest integer >= x, as a float (numba-cuda's)."),
    unary("math.trunc", op_id::trunc, "x rounded toward 0, as a float (numba-cuda's)."),
    binary("math.atan2", op_id::atan2, "The arc tangent of y / x in the right quadrant: atan2(y, x)."),
    binary("math.hypot", op_id::hypot, "sqrt(x * x + y * y) without overflow."),
    binary("math.copysign", op_id::copysign, "x with the sign of y."),
    binary("math.fmod", op_id::fmod, "C's fmod: x - n * y with n = trunc(x / y)."),
    binary("math.pow", op_id::fpow, "x ** y in floats."),
    binary("math.nextafter", op_id::nextafter, "The next float after x toward y."),
    binary("math.remainder", op_id::remainder, "IEEE 754 remainder: x - n * y, n the nearest integer to x / y."),
    function_entry("math.isnan", "(x)", "Whether x is nan.", type_classify, op_id::isnan, 0),
    function_entry("math.isinf", "(x)", "Whether x is an infinity.", type_classify, op_id::isinf, 0),
    function_entry("math.isfinite", "(x)", "Whether x is neither nan nor an infinity.", type_classify,
                   op_id::isfinite, 0),
    function_entry("math.ldexp", "(x, i)", "x * 2 ** i.", type_ldexp),
    function_entry("math.frexp", "(x)", "(m, e) with x == m * 2 ** e, 0.5 <= |m| < 1 (e an int32).",
                   type_frexp_modf, op_id::frexp),
    function_entry("math.modf", "(x)", "(fractional part, integral part) of x.", type_frexp_modf, op_id::modf),
    function_entry("math.radians", "(x)", "Degrees to radians.", type_angle_unit, op_id::none, 0),
    function_entry("math.degrees", "(x)", "Radians to degrees.", type_angle_unit, op_id::none, 1),

    // cmath
    module_entry("cmath", "Python's cmath module, on scalars."),
    real("cmath.pi", "3.14159... (float64).", k_pi),
    real("cmath.e", "2.71828... (float64).", k_e),
    real("cmath.inf", "Positive infinity (float64).", k_inf),
    real("cmath.nan", "A quiet nan (float64).", k_nan),
    real("cmath.tau", "2 pi (float64).", k_tau),
    value_entry("cmath.infj", "Infinity times 1j (complex128).", read_imaginary, op_id::none, 0),
    value_entry("cmath.nanj", "nan times 1j (complex128).", read_imaginary, op_id::none, 1),
    cmath_unary("cmath.sqrt", op_id::csqrt, "The complex square root."),
    cmath_unary("cmath.exp", op_id::cexp, "The complex exponential."),
    function_entry("cmath.log", "(z, base=e)", "The complex logarithm of z to base.", type_cmath_unary, op_id::clog),
    cmath_unary("cmath.sin", op_id::csin, "The complex sine."),
    cmath_unary("cmath.cos", op_id::ccos, "The complex cosine."),
    cmath_unary("cmath.tan", op_id::ctan, "The complex tangent."),
    cmath_unary("cmath.sinh", op_id::csinh, "The complex hyperbolic sine."),
    cmath_unary("cmath.cosh", op_id::ccosh, "The complex hyperbolic cosine."),
    cmath_unary("cmath.tanh", op_id::ctanh, "The complex hyperbolic tangent (complex128 for complex64 too)."),
    cmath_unary("cmath.asin", op_id::casin, "The complex arc sine."),
    cmath_unary("cmath.acos", op_id::cacos, "The complex arc cosine."),
    cmath_unary("cmath.atan", op_id::catan, "The complex arc tangent."),
    cmath_unary("cmath.asinh", op_id::casinh, "The complex inverse hyperbolic sine."),
    cmath_unary("cmath.acosh", op_id::cacosh, "The complex inverse hyperbolic cosine (complex128 for complex64 too)."),
    cmath_unary("cmath.atanh", op_id::catanh, "The complex inverse hyperbolic tangent."),
    cmath_unary("cmath.log10", op_id::clog10, "The complex base-10 logarithm (complex128 for complex64 too)."),
    function_entry("cmath.phase", "(z)", "The argument of z: atan2(z.imag, z.real).", type_complex_part,
                   op_id::phase),
    function_entry("cmath.polar", "(z)", "(abs(z), phase(z)).", type_polar),
    function_entry("cmath.rect", "(r, phi)", "The complex number with modulus r and argument phi.", type_rect),
    function_entry("cmath.isnan", "(z)", "Whether a part of z is nan.", type_classify, op_id::isnan, 1),
    function_entry("cmath.isinf", "(z)", "Whether a part of z is an infinity.", type_classify, op_id::isinf, 1),
    function_entry("cmath.isfinite", "(z)", "Whether both parts of z are finite.", type_classify, op_id::isfinite, 1),

    // numpy
    module_entry("numpy", "NumPy's scalar functions and constants; its scalar types (numpy.float32...) come from "
                          "the scalar-type table."),
    real("numpy.pi", "3.14159... (float64).", k_pi),
    real("numpy.e", "2.71828... (float64).", k_e),
    real("numpy.inf", "Positive infinity (float64).", k_inf),
    real("numpy.nan", "A quiet nan (float64).", k_nan),
    real("numpy.euler_gamma", "The Euler-Mascheroni constant (float64).", k_euler_gamma),
    numpy_unary("numpy.sqrt", op_id::sqrt, op_id::csqrt, "The square root (complex for complex x)."),
    numpy_unary("numpy.exp", op_id::exp, op_id::cexp, "e ** x."),
    unary("numpy.expm1", op_id::expm1, "e ** x - 1, accurate near 0."),
    function_entry("numpy.log", "(x)", "The natural logarithm (complex for complex x).", type_log, op_id::none, 0),
    unary("numpy.log2", op_id::log2, "The base-2 logarithm."),
    unary("numpy.log10", op_id::log10, "The base-10 logarithm."),
    unary("numpy.log1p", op_id::log1p, "log(1 + x), accurate near 0."),
    numpy_unary("numpy.sin", op_id::sin, op_id::csin, "The sine."),
    numpy_unary("numpy.cos", op_id::cos, op_id::ccos, "The cosine."),
    numpy_unary("numpy.tan", op_id::tan, op_id::ctan, "The tangent."),
    numpy_unary("numpy.arcsin", op_id::asin, op_id::casin, "The arc sine."),
    numpy_unary("numpy.arccos", op_id::acos, op_id::cacos, "The arc cosine."),
    numpy_unary("numpy.arctan", op_id::atan, op_id::catan, "The arc tangent."),
    numpy_unary("numpy.sinh", op_id::sinh, op_id::np_csinh, "The hyperbolic sine."),
    numpy_unary("numpy.cosh", op_id::cosh, op_id::np_ccosh, "The hyperbolic cosine."),
    numpy_unary("numpy.tanh", op_id::tanh, op_id::np_ctanh, "The hyperbolic tangent."),
    numpy_unary("numpy.arcsinh", op_id::asinh, op_id::casinh, "The inverse hyperbolic sine."),
    numpy_unary("numpy.arccosh", op_id::acosh, op_id::np_cacosh, "The inverse hyperbolic cosine."),
    numpy_unary("numpy.arctanh", op_id::atanh, op_id::catanh, "The inverse hyperbolic tangent."),
    unary("numpy.fabs", op_id::fabs, "The absolute value, as a float."),
    unary("numpy.exp2", op_id::exp2, "2 ** x."),
    unary("numpy.cbrt", op_id::cbrt, "The cube root."),
    unary("numpy.floor", op_id::floor, "The largest integer <= x, as a float."),
    unary("numpy.ceil", op_id::ceil, "The smallest integer >= x, as a float."),
    unary("numpy.trunc", op_id::trunc, "x rounded toward 0, as a float."),
    unary("numpy.rint", op_id::rint, "x rounded to the nearest integer (halves to even), as a float."),
    binary("numpy.arctan2", op_id::atan2, "The arc tangent of x1 / x2 in the right quadrant."),
    binary("numpy.hypot", op_id::hypot, "sqrt(x1 * x1 + x2 * x2) without overflow."),
    binary("numpy.copysign", op_id::copysign, "x1 with the sign of x2."),
    binary("numpy.fmod", op_id::fmod, "C's fmod."),
    binary("numpy.fmin", op_id::fmin, "The smaller of x1 and x2, ignoring a nan."),
    binary("numpy.fmax", op_id::fmax, "The larger of x1 and x2, ignoring a nan."),
    binary("numpy.nextafter", op_id::nextafter, "The next float after x1 toward x2."),
    function_entry("numpy.isnat", "(x)", "Whether a datetime64 or timedelta64 is NaT.", type_isnat),
    function_entry("numpy.isnan", "(x)", "Whether x (a part of complex x) is nan.", type_classify, op_id::isnan, 1),
    function_entry("numpy.isinf", "(x)", "Whether x (a part of complex x) is an infinity.", type_classify,
                   op_id::isinf, 1),
    function_entry("numpy.isfinite", "(x)", "Whether x (both parts of complex x) is finite.", type_classify,
                   op_id::isfinite, 1),
    function_entry("numpy.ldexp", "(x1, x2)", "x1 * 2 ** x2.", type_ldexp),
    function_entry("numpy.frexp", "(x)", "(mantissa, exponent) of x.", type_frexp_modf, op_id::frexp),
    function_entry("numpy.modf", "(x)", "(fractional part, integral part) of x.", type_frexp_modf, op_id::modf),
    function_entry("numpy.radians", "(x)", "Degrees to radians.", type_angle_unit, op_id::none, 0),
    function_entry("numpy.deg2rad", "(x)", "Degrees to radians.", type_angle_unit, op_id::none, 0),
    function_entry("numpy.degrees", "(x)", "Radians to degrees.", type_angle_unit, op_id::none, 1),
    function_entry("numpy.rad2deg", "(x)", "Radians to degrees.", type_angle_unit, op_id::none, 1),
    function_entry("numpy.abs", "(x)", "The absolute value (abs()).", type_abs),
    function_entry("numpy.absolute", "(x)", "The absolute value (abs()).", type_abs),
    function_entry("numpy.minimum", "(x1, x2)", "The smaller of x1 and x2, as Python's min() compares them.",
                   type_numpy_min_max, op_id::none, 1),
    function_entry("numpy.maximum", "(x1, x2)", "The larger of x1 and x2, as Python's max() compares them.",
                   type_numpy_min_max, op_id::none, 0),
    function_entry("numpy.power", "(x1, x2)", "x1 ** x2.", type_pow),
    function_entry("numpy.square", "(x)", "x * x.", type_square),
    function_entry("numpy.real", "(x)", "The real part.", type_complex_part, op_id::real),
    function_entry("numpy.imag", "(x)", "The imaginary part (0 for a real x).", type_complex_part, op_id::imag),
    function_entry("numpy.conj", "(x)", "The complex conjugate.", type_complex_part, op_id::conj),
    function_entry("numpy.conjugate", "(x)", "The complex conjugate.", type_complex_part, op_id::conj),
    function_entry("numpy.angle", "(z)", "The argument of z (radians).", type_complex_part, op_id::phase),
    // Loop-typed (type_numpy_loop: arg = an index of k_loops + a numpy_loop_row).
    function_entry("numpy.true_divide", "(x1, x2)", "x1 / x2 in the first float or complex loop that holds both.",
                   type_numpy_loop, op_id::div, 0),
    function_entry("numpy.divide", "(x1, x2)", "x1 / x2 in the first float or complex loop that holds both.",
                   type_numpy_loop, op_id::div, 0),
    function_entry("numpy.add", "(x1, x2)", "x1 + x2 in their loop's type (or for bools).", type_numpy_loop, op_id::add,
                   6),
    function_entry("numpy.multiply", "(x1, x2)", "x1 * x2 in their loop's type (and for bools).", type_numpy_loop,
                   op_id::mul, 6),
    function_entry("numpy.subtract", "(x1, x2)", "x1 - x2 in their loop's type.", type_numpy_loop, op_id::sub, 7),
    function_entry("numpy.floor_divide", "(x1, x2)", "x1 // x2 in their loop's type (x // 0 is 0 for integers).",
                   type_numpy_loop, op_id::floordiv, 8),
    function_entry("numpy.remainder", "(x1, x2)", "x1 % x2 in their loop's type (the divisor's sign).",
                   type_numpy_loop, op_id::mod, 8),
    function_entry("numpy.mod", "(x1, x2)", "x1 % x2 in their loop's type (the divisor's sign).", type_numpy_loop,
                   op_id::mod, 8),
    function_entry("numpy.negative", "(x)", "-x in its loop's type.", type_numpy_loop, op_id::neg, 9),
    function_entry("numpy.equal", "(x1, x2)", "x1 == x2, compared in their loop's type.", type_numpy_loop, op_id::eq, 1 + comparison),
    function_entry("numpy.not_equal", "(x1, x2)", "x1 != x2.", type_numpy_loop, op_id::ne, 1 + comparison),
    function_entry("numpy.less", "(x1, x2)", "x1 < x2.", type_numpy_loop, op_id::lt, 1 + comparison),
    function_entry("numpy.less_equal", "(x1, x2)", "x1 <= x2.", type_numpy_loop, op_id::le, 1 + comparison),
    function_entry("numpy.greater", "(x1, x2)", "x1 > x2.", type_numpy_loop, op_id::gt, 1 + comparison),
    function_entry("numpy.greater_equal", "(x1, x2)", "x1 >= x2.", type_numpy_loop, op_id::ge, 1 + comparison),
    function_entry("numpy.logical_and", "(x1, x2)", "Both true (bool).", type_numpy_loop, op_id::bit_and, 1 + logical),
    function_entry("numpy.logical_or", "(x1, x2)", "Either true (bool).", type_numpy_loop, op_id::bit_or, 1 + logical),
    function_entry("numpy.logical_xor", "(x1, x2)", "Exactly one true (bool).", type_numpy_loop, op_id::bit_xor, 1 + logical),
    function_entry("numpy.logical_not", "(x)", "Not true (bool).", type_numpy_loop, op_id::not_, 5 + logical),
    function_entry("numpy.bitwise_and", "(x1, x2)", "x1 & x2 in their loop's type.", type_numpy_loop, op_id::bit_and, 2),
    function_entry("numpy.bitwise_or", "(x1, x2)", "x1 | x2.", type_numpy_loop, op_id::bit_or, 2),
    function_entry("numpy.bitwise_xor", "(x1, x2)", "x1 ^ x2.", type_numpy_loop, op_id::bit_xor, 2),
    function_entry("numpy.invert", "(x)", "~x in its loop's type (not for a bool).", type_numpy_loop, op_id::invert, 4),
    function_entry("numpy.bitwise_not", "(x)", "~x in its loop's type (not for a bool).", type_numpy_loop,
                   op_id::invert, 4),
    function_entry("numpy.left_shift", "(x1, x2)", "x1 << x2 in their loop's type.", type_numpy_loop, op_id::shl, 3),
    function_entry("numpy.right_shift", "(x1, x2)", "x1 >> x2 in their loop's type.", type_numpy_loop, op_id::shr, 3),
};

}  // namespace

// (x) -> the op: a float32 argument computes in float32, integers in float64.
value type_unary(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  return ft.float_math(self.op, c.args[0], c);
}

std::span<const intrinsic> math_intrinsics() { return table; }

}  // namespace cuforge::frontend::detail

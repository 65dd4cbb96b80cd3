// Complex functions (the complex_fn ops: cmath's and NumPy's on complex numbers) as numba-cuda
// 0.30 computes them, special values (C99's inf and nan cases) included.
//
// numba-cuda writes these functions in Python (cmath's after CPython's cmathmodule.c, NumPy's
// after npymath) and compiles them with its own typing, so on complex64 some steps compute in
// float32 and others in float64: a float literal or a float64 constant widens what it touches,
// `complex(a, b)` is complex64 only when both parts are float32, and a function Numba lowers with
// a signature rounds its result to that signature's type. `part` below carries each value's width
// and promotes as that typing does, so each function here is written once and gives numba-cuda's
// numbers on both widths. Branches become selects (every path is computed; none has effects).
#include "codegen_lower.hpp"

#include <cfloat>
#include <cmath>
#include <limits>

namespace cuforge::frontend::detail {

namespace {

/// A float with its width (32 or 64).
struct part {
  llvm::Value* v;
  int bits;
};

/// A complex number as its two parts (their widths may differ until `make` joins them).
struct cpart {
  part re, im;
};

class complex_math {
 public:
  explicit complex_math(function_lowering& fl) : fl_(fl), b_(fl.b) {}

  // --- values ---
  /// A Python float literal or a float64 constant of Numba's code: float64.
  part lit(double d) { return num(d, 64); }
  /// A constant of width `bits` (NumPy's formulas compute in the argument's type).
  part num(double d, int bits) { return {llvm::ConstantFP::get(fl_.ms.float_type(bits), d), bits}; }
  part of(llvm::Value* v) { return {v, v->getType()->isDoubleTy() ? 64 : 32}; }
  part to(part a, int bits) { return {fl_.float_resize(a.v, bits), bits}; }
  /// `complex(a, b)`: complex64 when both parts are float32, else complex128.
  cpart make(part a, part b) {
    const int w = a.bits == 32 && b.bits == 32 ? 32 : 64;
    return {to(a, w), to(b, w)};
  }
  /// A result rounded to the complex type of parts `bits` (a function lowered with a signature).
  cpart round(cpart z, int bits) { return {to(z.re, bits), to(z.im, bits)}; }

  // --- arithmetic, promoting as Numba's typing does (float32 with float64 gives float64) ---
  part add(part a, part b) { return bin(a, b, [&](auto* x, auto* y) { return b_.CreateFAdd(x, y); }); }
  part sub(part a, part b) { return bin(a, b, [&](auto* x, auto* y) { return b_.CreateFSub(x, y); }); }
  part mul(part a, part b) { return bin(a, b, [&](auto* x, auto* y) { return b_.CreateFMul(x, y); }); }
  part div(part a, part b) { return bin(a, b, [&](auto* x, auto* y) { return b_.CreateFDiv(x, y); }); }
  part neg(part a) { return {b_.CreateFNeg(a.v), a.bits}; }
  part fabs(part a) { return fn(op_id::fabs, a); }
  part fn(op_id o, part a) { return {fl_.math(o, {a.v}, a.bits), a.bits}; }
  part fn(op_id o, part a, part b) {
    const int w = std::max(a.bits, b.bits);
    return {fl_.math(o, {to(a, w).v, to(b, w).v}, w), w};
  }

  // --- tests (Python's: == < > ordered, != unordered) ---
  llvm::Value* eq(part a, part b) { return cmp(llvm::CmpInst::FCMP_OEQ, a, b); }
  llvm::Value* ne(part a, part b) { return cmp(llvm::CmpInst::FCMP_UNE, a, b); }
  llvm::Value* lt(part a, part b) { return cmp(llvm::CmpInst::FCMP_OLT, a, b); }
  llvm::Value* gt(part a, part b) { return cmp(llvm::CmpInst::FCMP_OGT, a, b); }
  llvm::Value* ge(part a, part b) { return cmp(llvm::CmpInst::FCMP_OGE, a, b); }
  llvm::Value* isnan(part a) { return b_.CreateFCmpUNO(a.v, a.v); }
  llvm::Value* isinf(part a) { return b_.CreateFCmpOEQ(fabs(a).v, inf(a.bits)); }
  llvm::Value* isfinite(part a) { return b_.CreateFCmpONE(fabs(a).v, inf(a.bits)); }
  llvm::Value* both(llvm::Value* x, llvm::Value* y) { return b_.CreateAnd(x, y); }
  llvm::Value* either(llvm::Value* x, llvm::Value* y) { return b_.CreateOr(x, y); }
  llvm::Value* no(llvm::Value* x) { return b_.CreateNot(x); }

  /// `c ? a : b` where both were computed: the wider width, as a join of Numba's branches gives.
  part pick(llvm::Value* c, part a, part b) {
    const int w = std::max(a.bits, b.bits);
    return {b_.CreateSelect(c, to(a, w).v, to(b, w).v), w};
  }
  cpart pick(llvm::Value* c, cpart a, cpart b) {
    const int w = std::max(std::max(a.re.bits, a.im.bits), std::max(b.re.bits, b.im.bits));
    return {pick(c, to(a.re, w), to(b.re, w)), pick(c, to(a.im, w), to(b.im, w))};
  }

  // --- cmath (numba-cuda's cmathimpl) ---
  cpart exp(cpart z) {
    const int w = z.re.bits;
    part x = z.re, y = z.im;
    llvm::Value *xf = isfinite(x), *yf = isfinite(y);
    part r = fn(op_id::exp, x), c = fn(op_id::cos, y), s = fn(op_id::sin, y);
    cpart finite{mul(r, c), mul(r, s)};
    cpart nan_x = pick(ne(y, zero()), cpart{x, x}, cpart{x, y});
    // +inf: cos and sin times inf, except where they are 0 (exp(inf + 0j) is inf + 0j).
    cpart pos_inf = pick(yf, cpart{pick(ne(c, zero()), mul(c, x), c), pick(ne(s, zero()), mul(s, x), s)},
                         cpart{x, lit(NAN)});
    cpart neg_inf = pick(yf, finite, cpart{lit(0.0), lit(0.0)});
    cpart rest = pick(isnan(x), nan_x, pick(gt(x, zero()), pos_inf, neg_inf));
    return round(pick(xf, pick(yf, finite, cpart{lit(NAN), lit(NAN)}), rest), w);
  }

  cpart log(cpart z) { return {fn(op_id::log, fn(op_id::hypot, z.re, z.im)), fn(op_id::atan2, z.im, z.re)}; }

  cpart log10(cpart z) {
    constexpr double ln10 = 2.302585092994045684;
    cpart l = log(z);
    return make(div(l.re, lit(ln10)), div(l.im, lit(ln10)));
  }

  cpart sqrt(cpart z) {
    const int w = z.re.bits;
    // NumPy's npy_csqrt, scaled down near the top of the range to keep the hypot finite.
    const double thres = (w == 64 ? DBL_MAX : FLT_MAX) / (1.0 + 1.414213562373095048801688724209698079);
    part a = z.re, b = z.im;
    cpart zero_or_inf_b{fabs(b), b};
    cpart nan_a{a, a};
    cpart inf_a = pick(lt(a, zero()), cpart{fabs(sub(b, b)), fn(op_id::copysign, a, b)},
                       cpart{a, fn(op_id::copysign, sub(b, b), b)});
    llvm::Value* scale = either(ge(fabs(a), lit(thres)), ge(fabs(b), lit(thres)));
    part sa = pick(scale, mul(a, lit(0.25)), a), sb = pick(scale, mul(b, lit(0.25)), b);  // a phi: float64
    part h = fn(op_id::hypot, sa, sb);
    part t_right = fn(op_id::sqrt, mul(add(sa, h), lit(0.5)));
    part t_left = fn(op_id::sqrt, mul(add(neg(sa), h), lit(0.5)));
    llvm::Value* right = ge(sa, zero());
    cpart general = pick(right, cpart{t_right, div(sb, mul(lit(2.0), t_right))},
                         cpart{div(fabs(sb), mul(lit(2.0), t_left)), fn(op_id::copysign, t_left, sb)});
    general = pick(scale, cpart{mul(general.re, lit(2.0)), general.im}, general);
    cpart r = pick(both(eq(a, zero()), eq(b, zero())), zero_or_inf_b,
                   pick(isinf(b), zero_or_inf_b, pick(isnan(a), nan_a, pick(isinf(a), inf_a, general))));
    return round(r, w);
  }

  cpart cosh(cpart z) {
    part x = z.re, y = z.im;
    part re_inf = pick(either(isnan(y), eq(y, zero())), fabs(x), fn(op_id::copysign, x, fn(op_id::cos, y)));
    part im_inf = pick(either(isnan(y), eq(y, zero())), y, fn(op_id::copysign, x, fn(op_id::sin, y)));
    im_inf = pick(lt(x, zero()), neg(im_inf), im_inf);
    cpart finite = make(mul(fn(op_id::cos, y), fn(op_id::cosh, x)), mul(fn(op_id::sin, y), fn(op_id::sinh, x)));
    return pick(isinf(x), make(re_inf, im_inf), finite);
  }

  cpart sinh(cpart z) {
    part x = z.re, y = z.im;
    part c = fn(op_id::cos, y), s = fn(op_id::sin, y);
    cpart inf_x = pick(isnan(y), cpart{x, y},
                       make(pick(ne(c, zero()), mul(c, x), c), pick(ne(s, zero()), mul(s, fabs(x)), s)));
    cpart finite = make(mul(c, fn(op_id::sinh, x)), mul(s, fn(op_id::cosh, x)));
    return pick(isinf(x), inf_x, finite);
  }

  cpart tanh(cpart z) {
    part x = z.re, y = z.im;
    part re_inf = fn(op_id::copysign, lit(1.0), x);
    part im_inf = pick(isinf(y), lit(0.0), fn(op_id::copysign, lit(0.0), fn(op_id::sin, mul(lit(2.0), y))));
    // CPython's c_tanh.
    part tx = fn(op_id::tanh, x), ty = fn(op_id::tan, y);
    part cx = div(lit(1.0), fn(op_id::cosh, x));
    part txty = mul(tx, ty);
    part denom = add(lit(1.0), mul(txty, txty));
    cpart finite = make(div(mul(tx, add(lit(1.0), mul(ty, ty))), denom), mul(mul(div(ty, denom), cx), cx));
    return pick(isinf(x), make(re_inf, im_inf), finite);
  }

  /// -j * f(j z), f returning a number of its own width: sin, tan, asin from sinh, tanh, asinh.
  template <class F>
  cpart rotated(cpart z, F&& f) {
    cpart r = f(make(neg(z.im), z.re));
    return round(make(r.im, neg(r.re)), z.re.bits);
  }

  cpart acos(cpart z) {
    const int w = z.re.bits;
    const double ln4 = std::log(4.0), thres = FLT_MAX / 4;
    part x = z.re, y = z.im;
    cpart large{fn(op_id::atan2, fabs(y), x),
                fn(op_id::copysign, add(fn(op_id::log, fn(op_id::hypot, mul(x, lit(0.5)), mul(y, lit(0.5)))), lit(ln4)),
                   neg(y))};
    cpart s1 = sqrt(make(sub(lit(1.0), x), neg(y))), s2 = sqrt(make(add(lit(1.0), x), y));
    cpart small{mul(lit(2.0), fn(op_id::atan2, s1.re, s2.re)),
                fn(op_id::asinh, sub(mul(s2.re, s1.im), mul(s2.im, s1.re)))};
    return round(pick(either(gt(fabs(x), lit(thres)), gt(fabs(y), lit(thres))), large, small), w);
  }

  cpart acosh(cpart z) {
    const double ln4 = std::log(4.0), thres = FLT_MAX / 4;
    part x = z.re, y = z.im;
    cpart large = make(add(fn(op_id::log, fn(op_id::hypot, mul(x, lit(0.5)), mul(y, lit(0.5)))), lit(ln4)),
                       fn(op_id::atan2, y, x));
    cpart s1 = sqrt(make(sub(x, lit(1.0)), y)), s2 = sqrt(make(add(x, lit(1.0)), y));
    cpart small = make(fn(op_id::asinh, add(mul(s1.re, s2.re), mul(s1.im, s2.im))),
                       mul(lit(2.0), fn(op_id::atan2, s1.im, s2.re)));
    return pick(either(gt(fabs(x), lit(thres)), gt(fabs(y), lit(thres))), large, small);
  }

  cpart asinh(cpart z) {
    const int w = z.re.bits;
    const double ln4 = std::log(4.0), thres = FLT_MAX / 4;
    part x = z.re, y = z.im;
    cpart large{fn(op_id::copysign, add(fn(op_id::log, fn(op_id::hypot, mul(x, lit(0.5)), mul(y, lit(0.5)))), lit(ln4)), x),
                fn(op_id::atan2, y, fabs(x))};
    cpart s1 = sqrt(make(add(lit(1.0), y), neg(x))), s2 = sqrt(make(sub(lit(1.0), y), x));
    cpart small{fn(op_id::asinh, sub(mul(s1.re, s2.im), mul(s2.re, s1.im))),
                fn(op_id::atan2, y, sub(mul(s1.re, s2.re), mul(s1.im, s2.im)))};
    return round(pick(either(gt(fabs(x), lit(thres)), gt(fabs(y), lit(thres))), large, small), w);
  }

  cpart atanh(cpart z0) {
    const int w = z0.re.bits;
    const double large_t = std::sqrt(FLT_MAX / 4), small_t = std::sqrt(FLT_MIN), half_pi = M_PI / 2;
    // atanh(z) = -atanh(-z): computed for a non-negative real part.
    llvm::Value* negate = lt(z0.re, zero());
    cpart z{pick(negate, neg(z0.re), z0.re), pick(negate, neg(z0.im), z0.im)};
    part x = z.re, y = z.im, ay = fabs(y);
    // Large or nan.
    part h = fn(op_id::hypot, mul(x, lit(0.5)), mul(y, lit(0.5)));
    part re_large = pick(isinf(y), fn(op_id::copysign, lit(0.0), x),
                         pick(isinf(x), lit(0.0), div(div(div(x, lit(4.0)), h), h)));
    part im_large = neg(fn(op_id::copysign, lit(half_pi), neg(y)));
    // Next to 1 (C99: atanh(1 +- 0j) is inf +- 0j).
    part re_one = pick(eq(ay, zero()), lit(INFINITY),
                       neg(fn(op_id::log, div(fn(op_id::sqrt, ay), fn(op_id::sqrt, fn(op_id::hypot, ay, lit(2.0)))))));
    part im_one = pick(eq(ay, zero()), y, fn(op_id::copysign, div(fn(op_id::atan2, lit(2.0), neg(ay)), lit(2.0)), y));
    // Elsewhere.
    part sqay = mul(ay, ay);
    part zr1 = sub(lit(1.0), x);
    part re_mid = mul(fn(op_id::log1p, div(mul(lit(4.0), x), add(mul(zr1, zr1), sqay))), lit(0.25));
    part im_mid = mul(neg(fn(op_id::atan2, mul(lit(-2.0), y), sub(mul(zr1, add(lit(1.0), x)), sqay))), lit(0.5));
    llvm::Value* large = either(isnan(x), either(gt(x, lit(large_t)), gt(ay, lit(large_t))));
    llvm::Value* one = both(eq(x, lit(1.0)), lt(ay, lit(small_t)));
    part re = pick(large, re_large, pick(one, re_one, re_mid));
    part im = pick(large, im_large, pick(one, im_one, im_mid));
    im = pick(isnan(y), lit(NAN), im);
    return round(pick(negate, cpart{neg(re), neg(im)}, cpart{re, im}), w);
  }

  cpart atan(cpart z) {
    const int w = z.re.bits;
    cpart r = atanh(make(neg(z.im), z.re));
    return round(pick(both(isinf(z.re), isnan(z.im)), make(r.im, r.re), make(r.im, neg(r.re))), w);
  }

  /// cmath.rect(r, phi) (numba-cuda's overload), in the width of r and phi.
  cpart rect(part r, part phi) {
    part c = fn(op_id::cos, phi), s = fn(op_id::sin, phi);
    llvm::Value* inf_r = isinf(r);
    cpart general = make(pick(both(eq(c, zero()), inf_r), div(c, r), mul(c, r)),
                         pick(both(eq(s, zero()), inf_r), div(s, r), mul(s, r)));
    cpart odd_phi = pick(no(ne(r, zero())), make(fabs(r), num(0.0, r.bits)),
                         pick(inf_r, make(r, phi), general));
    return pick(no(isfinite(phi)), odd_phi, general);
  }

  // --- NumPy's own (npyfuncs): formulas without special cases, in the argument's width ---
  cpart np_sinh(cpart z) {
    return {mul(fn(op_id::cos, z.im), fn(op_id::sinh, z.re)), mul(fn(op_id::sin, z.im), fn(op_id::cosh, z.re))};
  }
  cpart np_cosh(cpart z) {
    return {mul(fn(op_id::cos, z.im), fn(op_id::cosh, z.re)), mul(fn(op_id::sin, z.im), fn(op_id::sinh, z.re))};
  }
  cpart np_tanh(cpart z) {
    part si = fn(op_id::sin, z.im), ci = fn(op_id::cos, z.im), shr = fn(op_id::sinh, z.re), chr = fn(op_id::cosh, z.re);
    part rs = mul(ci, shr), is = mul(si, chr), rc = mul(ci, chr), ic = mul(si, shr);
    part inv_d = div(num(1.0, z.re.bits), add(mul(rc, rc), mul(ic, ic)));
    return {mul(add(mul(rs, rc), mul(is, ic)), inv_d), mul(sub(mul(is, rc), mul(rs, ic)), inv_d)};
  }
  cpart np_acosh(cpart z) {
    // log(z + sqrt(z + 1) * sqrt(z - 1)), with Numba's complex + - * (no special cases).
    const int w = z.re.bits;
    part one = num(1.0, w), nil = num(0.0, w);
    // z +- (1 + 0j): the imaginary parts add a zero too (-0.0 + 0.0 is +0.0).
    cpart p = sqrt({add(z.re, one), add(z.im, nil)}), m = sqrt({sub(z.re, one), sub(z.im, nil)});
    cpart prod{sub(mul(p.re, m.re), mul(p.im, m.im)), add(mul(p.re, m.im), mul(p.im, m.re))};
    return log({add(z.re, prod.re), add(z.im, prod.im)});
  }

 private:
  template <class F>
  part bin(part a, part b, F&& f) {
    const int w = std::max(a.bits, b.bits);
    return {f(to(a, w).v, to(b, w).v), w};
  }
  llvm::Value* cmp(llvm::CmpInst::Predicate p, part a, part b) {
    const int w = std::max(a.bits, b.bits);
    return b_.CreateFCmp(p, to(a, w).v, to(b, w).v);
  }
  llvm::Constant* inf(int bits) { return llvm::ConstantFP::getInfinity(fl_.ms.float_type(bits)); }
  /// The literal 0.0 of a comparison (float64: comparing widens, which changes no answer).
  part zero() { return lit(0.0); }

  function_lowering& fl_;
  llvm::IRBuilder<>& b_;
};

}  // namespace

llvm::Value* function_lowering::complex_op(op_id op, const std::vector<llvm::Value*>& args, const type* result) {
  complex_math m(*this);
  // crect's operands are its two floats; every other op's is one complex number.
  const cpart z = op == op_id::crect ? cpart{m.of(args.at(0)), m.of(args.at(1))}
                                     : cpart{m.of(re(args.at(0))), m.of(im(args.at(0)))};
  cpart r{};
  switch (op) {
    case op_id::crect: r = m.rect(z.re, z.im); break;
    case op_id::conj: r = {z.re, m.neg(z.im)}; break;
    case op_id::cexp: r = m.exp(z); break;
    case op_id::clog: r = m.log(z); break;
    case op_id::clog10: r = m.log10(z); break;
    case op_id::csqrt: r = m.sqrt(z); break;
    case op_id::ccosh: r = m.cosh(z); break;
    case op_id::csinh: r = m.sinh(z); break;
    case op_id::ctanh: r = m.tanh(z); break;
    case op_id::ccos: r = m.round(m.cosh(m.make(m.neg(z.im), z.re)), z.re.bits); break;
    case op_id::csin: r = m.rotated(z, [&](cpart u) { return m.sinh(u); }); break;
    case op_id::ctan: r = m.rotated(z, [&](cpart u) { return m.tanh(u); }); break;
    case op_id::casin: r = m.rotated(z, [&](cpart u) { return m.asinh(u); }); break;
    case op_id::cacos: r = m.acos(z); break;
    case op_id::catan: r = m.atan(z); break;
    case op_id::casinh: r = m.asinh(z); break;
    case op_id::cacosh: r = m.acosh(z); break;
    case op_id::catanh: r = m.atanh(z); break;
    case op_id::np_csinh: r = m.np_sinh(z); break;
    case op_id::np_ccosh: r = m.np_cosh(z); break;
    case op_id::np_ctanh: r = m.np_tanh(z); break;
    case op_id::np_cacosh: r = m.np_acosh(z); break;
    default: fail_at(std::string("complex ") + to_string(op) + " is no complex function", {});
  }
  const int w = result->bits / 2;  // lower_complex_fn checked it is complex
  return cmake(m.to(r.re, w).v, m.to(r.im, w).v);
}

}  // namespace cuforge::frontend::detail

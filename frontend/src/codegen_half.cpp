// float16 arithmetic and math, computed as numba-cuda computes them: numba-cuda
// 0.30 lowers float16 operators, math functions on float16 and cuda.fp16.* to
// cuda_fp16.h, so these follow that header's algorithms (facts read from
// it: the instructions, constants and corrected inputs), written here as
// LLVM IR.
//
// - + - * are the native half instructions (add.f16, ...; on the host LLVM
//   computes them in float and rounds once, which gives the same result).
// - / is cuda_fp16.h's __hdiv on the GPU (an approximate reciprocal, a
//   correction for tiny quotients); correctly rounded on the host.
// - sin and cos are its float32 polynomial with two corrected inputs, the
//   same instructions on every target, so the same bits everywhere.
// - sqrt, rsqrt, rcp, exp, exp2, exp10, log, log2 and log10 are built on the
//   GPU's approximate float32 instructions plus per-function corrections for
//   inputs the approximation rounds wrongly; the host has no such
//   instructions and computes them correctly rounded (through float64),
//   which is what the corrections aim at. docs/compiler.md lists this.
// - fabs, floor, ceil, trunc, rint, fmin, fmax and fma are exact or
//   correctly rounded on every target (fma on the host through float64 with
//   round-to-odd, so that rounding twice cannot differ from rounding once).
#include "codegen_lower.hpp"
#include "codegen_target.hpp"

#include <llvm/ADT/APFloat.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <utility>

namespace cuforge::frontend::detail {

namespace {

using spec = std::pair<std::uint16_t, std::uint16_t>;  // (input bits, half added to the result there)

struct half_builder {
  function_lowering& fl;
  llvm::IRBuilder<>& b;
  llvm::IRBuilder<>::FastMathFlagGuard guard;  // these sequences are exact as written: no fast-math rewrites

  explicit half_builder(function_lowering& f) : fl(f), b(f.b), guard(f.b) { b.setFastMathFlags(llvm::FastMathFlags()); }

  llvm::Type* half() { return b.getHalfTy(); }
  llvm::Type* f32() { return b.getFloatTy(); }
  llvm::Value* H(std::uint16_t bits) {
    return llvm::ConstantFP::get(b.getContext(), llvm::APFloat(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits)));
  }
  llvm::Value* F(float v) { return llvm::ConstantFP::get(f32(), v); }
  llvm::Value* Fbits(std::uint32_t bits) { return F(std::bit_cast<float>(bits)); }
  llvm::Value* widen(llvm::Value* h) { return b.CreateFPExt(h, f32()); }
  llvm::Value* narrow(llvm::Value* f) { return b.CreateFPTrunc(f, half()); }  // to nearest (cvt.rn.f16.f32)
  llvm::Value* fma(llvm::Value* x, llvm::Value* y, llvm::Value* z) {
    return fl.intrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, z});
  }
  llvm::Value* fabs(llvm::Value* x) { return fl.intrinsic(llvm::Intrinsic::fabs, {x->getType()}, {x}); }
  llvm::Value* approx(approx_fn fn, llvm::Value* x) { return fl.ms.tgt.approx_f32(fl, fn, x); }

  /// a * b + c on halves, rounded once.
  llvm::Value* half_fma(llvm::Value* x, llvm::Value* y, llvm::Value* z) {
    if (fl.ms.tgt.has_approx_f32()) return fma(x, y, z);  // the GPU: fma.rn.f16
    // The host: the product of two halves is exact in float64; the sum is
    // rounded to odd (the rounded sum, its last bit set when inexact), after
    // which rounding to half is the correctly rounded result.
    llvm::Type* f64 = b.getDoubleTy();
    llvm::Value* p = b.CreateFMul(b.CreateFPExt(x, f64), b.CreateFPExt(y, f64));
    llvm::Value* c = b.CreateFPExt(z, f64);
    llvm::Value* s = b.CreateFAdd(p, c);
    llvm::Value* bb = b.CreateFSub(s, p);  // TwoSum: s + err == p + c exactly
    llvm::Value* err = b.CreateFAdd(b.CreateFSub(p, b.CreateFSub(s, bb)), b.CreateFSub(c, bb));
    llvm::Value* bits = b.CreateBitCast(s, b.getInt64Ty());
    llvm::Value* even = b.CreateICmpEQ(b.CreateAnd(bits, b.getInt64(1)), b.getInt64(0));
    llvm::Value* inexact = b.CreateFCmpONE(err, llvm::ConstantFP::get(f64, 0.0));
    // Toward the exact value: away from zero when err has s's sign.
    llvm::Value* same_sign = b.CreateICmpEQ(b.CreateICmpSLT(bits, b.getInt64(0)),
                                            b.CreateFCmpOLT(err, llvm::ConstantFP::get(f64, 0.0)));
    llvm::Value* odd = b.CreateAdd(bits, b.CreateSelect(same_sign, b.getInt64(1), b.getInt64(-1)));
    s = b.CreateBitCast(b.CreateSelect(b.CreateAnd(even, inexact), odd, bits), f64);
    return narrow(s);
  }

  /// cuda_fp16.h's correction: where `in` equals the half `when`, add the half `ulp` to r (an fma of
  /// 1 or 0 with it, as there).
  llvm::Value* correct(llvm::Value* in, llvm::Value* r, std::initializer_list<spec> cases) {
    for (auto [when, ulp] : cases) {
      llvm::Value* hit = b.CreateSelect(b.CreateFCmpOEQ(in, H(when)), H(0x3C00), H(0));
      r = half_fma(hit, H(ulp), r);
    }
    return r;
  }

  /// The host's form of a function: float64's, rounded once to half.
  llvm::Value* rounded(op_id op, llvm::Value* x) {
    return narrow(fl.math(op, {b.CreateFPExt(x, b.getDoubleTy())}, 64));
  }

  // cuda_fp16.h's sin/cos: one Cody-Waite step to [-pi/4, pi/4] and a quadrant, then a polynomial
  // in float32 with fmas.
  llvm::Value* sin_cos(llvm::Value* h, bool cos) {
    llvm::Value* a = widen(h);
    llvm::Value* ar = fma(a, F(0.636619772f), F(12582912.0f));
    llvm::Value* q = b.CreateBitCast(ar, b.getInt32Ty());
    llvm::Value* j = b.CreateFSub(ar, F(12582912.0f));
    llvm::Value* t = fma(j, F(-1.5707962512969971e+000f), a);
    t = fma(j, F(-7.5497894158615964e-008f), t);
    llvm::Value* i = cos ? b.CreateAdd(b.CreateAnd(q, b.getInt32(3)), b.getInt32(1)) : q;
    llvm::Value* x2 = b.CreateFMul(t, t);
    llvm::Value* is_cos = b.CreateICmpNE(b.CreateAnd(i, b.getInt32(1)), b.getInt32(0));
    auto pick = [&](float c, float s) { return b.CreateSelect(is_cos, F(c), F(s)); };
    llvm::Value* z = fma(pick(2.44331571e-5f, -1.95152959e-4f), x2, pick(-1.38873163e-3f, 8.33216087e-3f));
    z = fma(z, x2, pick(4.16666457e-2f, -1.66666546e-1f));
    z = fma(z, x2, pick(-5.00000000e-1f, 0.0f));
    z = fma(z, b.CreateSelect(is_cos, x2, t), b.CreateSelect(is_cos, F(1.0f), t));
    llvm::Value* flip = b.CreateICmpNE(b.CreateAnd(i, b.getInt32(2)), b.getInt32(0));
    z = b.CreateSelect(flip, b.CreateFNeg(z), z);
    llvm::Value* r = narrow(z);
    llvm::Value* in = fabs(h);
    if (cos) return correct(in, r, {{0x2B7C, 0x1000}});
    llvm::Value* sign = b.CreateAnd(b.CreateBitCast(r, b.getInt16Ty()), b.getInt16(0x8000));
    r = correct(in, fabs(r), {{0x32B3, 0x0800}, {0x5CB0, 0x9000}});
    return b.CreateBitCast(b.CreateOr(b.CreateBitCast(r, b.getInt16Ty()), sign), half());
  }

  // exp, exp10: 2 ** (x * log2(base)) with the approximate ex2, corrected at a few inputs.
  llvm::Value* exp_base(llvm::Value* h, std::uint32_t log2_base, std::initializer_list<spec> cases) {
    llvm::Value* f = fma(widen(h), Fbits(log2_base), Fbits(0x80000000u));
    llvm::Value* r = narrow(approx(approx_fn::ex2, f));
    return correct(h, r, cases);
  }

  // log, log10: the approximate lg2 times 1 / log2(base), corrected at a few inputs.
  llvm::Value* log_base(llvm::Value* h, std::uint32_t inv_log2_base, std::initializer_list<spec> cases) {
    llvm::Value* f = b.CreateFMul(approx(approx_fn::lg2, widen(h)), Fbits(inv_log2_base));
    return correct(h, narrow(f), cases);
  }
};

}  // namespace

llvm::Value* function_lowering::half_arith(op_id op, llvm::Value* a, llvm::Value* y) {
  half_builder h(*this);
  switch (op) {
    case op_id::add: return b.CreateFAdd(a, y);
    case op_id::sub: return b.CreateFSub(a, y);
    case op_id::mul: return b.CreateFMul(a, y);
    case op_id::div: {
      llvm::Value *fa = h.widen(a), *fb = h.widen(y);
      if (!ms.tgt.has_approx_f32()) return b.CreateFDiv(a, y);  // the host: correctly rounded
      llvm::Value* rcp = h.approx(approx_fn::rcp, fb);
      // __hdiv: the quotient through the approximate reciprocal, refined by one Newton step where it
      // is tiny (below the half 0x008F, a subnormal).
      llvm::Value* fv = b.CreateFMul(rcp, fa);
      llvm::Value* v = h.narrow(fv);
      llvm::Value* mag = h.fabs(v);
      llvm::Value* tiny = b.CreateAnd(b.CreateFCmpOLT(mag, h.H(0x008F)), b.CreateFCmpOLT(h.H(0), mag));
      llvm::Value* err = h.fma(b.CreateFNeg(fb), fv, fa);
      llvm::Value* refined = h.narrow(h.fma(rcp, err, fv));
      return b.CreateSelect(tiny, refined, v);
    }
    default: return nullptr;
  }
}

llvm::Value* function_lowering::half_math(op_id op, const std::vector<llvm::Value*>& args) {
  half_builder h(*this);
  llvm::Value* x = args.empty() ? nullptr : args[0];
  const bool gpu = ms.tgt.has_approx_f32();
  switch (op) {
    case op_id::sin: return h.sin_cos(x, false);
    case op_id::cos: return h.sin_cos(x, true);
    case op_id::sqrt: return gpu ? h.narrow(h.approx(approx_fn::sqrt, h.widen(x))) : h.rounded(op, x);
    case op_id::exp:
      if (!gpu) return h.rounded(op, x);
      return h.exp_base(x, 0x3fb8aa3bu, {{0x1F79, 0x9400}, {0x25CF, 0x9400}, {0xC13B, 0x0400}, {0xC1EF, 0x0200}});
    case op_id::exp2: {
      if (!gpu) return h.rounded(op, x);
      // One float32 ulp up before rounding to half.
      llvm::Value* f = h.approx(approx_fn::ex2, h.widen(x));
      return h.narrow(h.fma(f, h.Fbits(0x33800000u), f));
    }
    case op_id::log2: {
      if (!gpu) return h.rounded(op, x);
      llvm::Value* r = h.narrow(h.approx(approx_fn::lg2, h.widen(x)));
      r = h.correct(r, r, {{0xA2E2, 0x8080}});
      return h.correct(r, r, {{0xBF46, 0x9400}});
    }
    case op_id::log:
      if (!gpu) return h.rounded(op, x);
      return h.log_base(x, 0x3f317218u, {{0x160D, 0x9C00}, {0x3BFE, 0x8010}, {0x3C0B, 0x8080}, {0x6051, 0x1C00}});
    case op_id::log10:
      if (!gpu) return h.rounded(op, x);
      return h.log_base(x, 0x3E9A209Bu, {{0x338F, 0x1000}, {0x33F8, 0x9000}, {0x57E1, 0x9800}, {0x719D, 0x9C00}});
    case op_id::fabs: return h.fabs(x);
    case op_id::floor: return intrinsic(llvm::Intrinsic::floor, {x->getType()}, {x});
    case op_id::ceil: return intrinsic(llvm::Intrinsic::ceil, {x->getType()}, {x});
    case op_id::trunc: return intrinsic(llvm::Intrinsic::trunc, {x->getType()}, {x});
    case op_id::rint: return intrinsic(llvm::Intrinsic::rint, {x->getType()}, {x});
    case op_id::fmin: return intrinsic(llvm::Intrinsic::minnum, {x->getType()}, args);
    case op_id::fmax: return intrinsic(llvm::Intrinsic::maxnum, {x->getType()}, args);
    case op_id::fma: return h.half_fma(args[0], args[1], args[2]);
    default: return nullptr;
  }
}

llvm::Value* function_lowering::half_function(half_fn fn, llvm::Value* x) {
  half_builder h(*this);
  const bool gpu = ms.tgt.has_approx_f32();
  llvm::Type* f64 = b.getDoubleTy();
  switch (fn) {
    case half_fn::rcp:
      if (gpu) return h.narrow(h.approx(approx_fn::rcp, h.widen(x)));
      return h.narrow(b.CreateFDiv(llvm::ConstantFP::get(f64, 1.0), b.CreateFPExt(x, f64)));
    case half_fn::rsqrt:
      if (gpu) return h.narrow(h.approx(approx_fn::rsqrt, h.widen(x)));
      return h.narrow(
          b.CreateFDiv(llvm::ConstantFP::get(f64, 1.0), math(op_id::sqrt, {b.CreateFPExt(x, f64)}, 64)));
    case half_fn::exp10:
      if (gpu)
        return h.exp_base(x, 0x40549A78u,
                          {{0x34DE, 0x9800}, {0x9766, 0x9000}, {0x9972, 0x1000}, {0xA5C4, 0x1000}, {0xBF0A, 0x8100}});
      return h.narrow(math(op_id::fpow, {llvm::ConstantFP::get(f64, 10.0), b.CreateFPExt(x, f64)}, 64));
  }
  fail("half function " + std::to_string(static_cast<int>(fn)));
}

}  // namespace cuforge::frontend::detail

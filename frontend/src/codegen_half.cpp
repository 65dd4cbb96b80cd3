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
    return narrow(fl.sum_rounded_to_odd(p, b.CreateFPExt(z, f64)));
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

namespace cuforge::frontend::detail {

llvm::Value* function_lowering::sum_rounded_to_odd(llvm::Value* p, llvm::Value* c) {
  llvm::IRBuilder<>::FastMathFlagGuard guard(b);
  b.setFastMathFlags(llvm::FastMathFlags());
  llvm::Type* f64 = b.getDoubleTy();
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
  return b.CreateBitCast(b.CreateSelect(b.CreateAnd(even, inexact), odd, bits), f64);
}

llvm::Value* function_lowering::bf16_to_f32(llvm::Value* v) {
  llvm::Value* bits = b.CreateZExt(b.CreateBitCast(v, b.getInt16Ty()), b.getInt32Ty());
  return b.CreateBitCast(b.CreateShl(bits, 16), b.getFloatTy());
}

llvm::Value* function_lowering::f32_to_bf16(llvm::Value* f, rounding m) {
  llvm::Value* bits = b.CreateBitCast(f, b.getInt32Ty());
  llvm::Value* top = b.CreateLShr(bits, 16);
  llvm::Value* rest = b.CreateAnd(bits, b.getInt32(0xffff));
  llvm::Value* negative = b.CreateICmpSLT(bits, b.getInt32(0));
  llvm::Value* inexact = b.CreateICmpNE(rest, b.getInt32(0));
  llvm::Value* up = nullptr;  // whether the magnitude goes up a step (past the largest finite: inf)
  switch (m) {
    case rounding::rn: {
      llvm::Value* tie = b.CreateICmpEQ(rest, b.getInt32(0x8000));
      llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(top, b.getInt32(1)), b.getInt32(0));
      up = b.CreateOr(b.CreateICmpUGT(rest, b.getInt32(0x8000)), b.CreateAnd(tie, odd));
      break;
    }
    case rounding::rz: up = b.getFalse(); break;
    case rounding::ru: up = b.CreateAnd(inexact, b.CreateNot(negative)); break;
    case rounding::rd: up = b.CreateAnd(inexact, negative); break;
  }
  llvm::Value* r = b.CreateTrunc(b.CreateAdd(top, b.CreateZExt(up, b.getInt32Ty())), b.getInt16Ty());
  r = b.CreateSelect(b.CreateFCmpUNO(f, f), b.getInt16(canonical_small_nan), r);
  return b.CreateBitCast(r, b.getBFloatTy());
}

llvm::Value* function_lowering::odd_f32_of_f64(llvm::Value* v) {
  // The nearest float32, moved to its odd neighbour toward v when inexact; a finite v beyond
  // float32's range gives the largest float32 (odd), which still rounds as v does.
  llvm::Type* f32 = b.getFloatTy();
  llvm::Value* r = b.CreateFPTrunc(v, f32);
  llvm::Value* back = b.CreateFPExt(r, b.getDoubleTy());
  llvm::Value* bits = b.CreateBitCast(r, b.getInt32Ty());
  llvm::Value* inexact = b.CreateFCmpONE(back, v);
  llvm::Value* even = b.CreateICmpEQ(b.CreateAnd(bits, b.getInt32(1)), b.getInt32(0));
  llvm::Value* above = b.CreateFCmpOGT(intrinsic(llvm::Intrinsic::fabs, {v->getType()}, {v}),
                                       intrinsic(llvm::Intrinsic::fabs, {back->getType()}, {back}));
  llvm::Value* odd = b.CreateAdd(bits, b.CreateSelect(above, b.getInt32(1), b.getInt32(-1)));
  bits = b.CreateSelect(b.CreateAnd(inexact, even), odd, bits);
  return b.CreateBitCast(bits, f32);  // inf from a finite v: 0x7f800000 - 1, the largest float32
}

llvm::Value* function_lowering::odd_f32(llvm::Value* v, const type* from) {
  llvm::Type* f32 = b.getFloatTy();
  if (from->kind == type_kind::boolean) return b.CreateUIToFP(v, f32);
  if (from->is_bfloat16()) return bf16_to_f32(v);
  if (from->is_float()) return from->bits <= 32 ? float_resize(v, 32) : odd_f32_of_f64(v);  // <= 32: exact
  // An integer: its top 24 bits, the last one set when any below is (round to odd), times 2^shift.
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* wide = from->is_signed ? b.CreateSExt(v, i64) : b.CreateZExt(v, i64);  // itself at 64 bits
  llvm::Value* negative = from->is_signed ? b.CreateICmpSLT(wide, b.getInt64(0)) : b.getFalse();
  llvm::Value* mag = b.CreateSelect(negative, b.CreateSub(b.getInt64(0), wide), wide);
  llvm::Value* width = b.CreateSub(b.getInt64(64), intrinsic(llvm::Intrinsic::ctlz, {i64}, {mag, b.getFalse()}));
  llvm::Value* shift = b.CreateSelect(b.CreateICmpUGT(width, b.getInt64(24)), b.CreateSub(width, b.getInt64(24)),
                                      b.getInt64(0));
  llvm::Value* kept = b.CreateLShr(mag, shift);
  llvm::Value* below = b.CreateAnd(mag, b.CreateSub(b.CreateShl(b.getInt64(1), shift), b.getInt64(1)));
  kept = b.CreateOr(kept, b.CreateZExt(b.CreateICmpNE(below, b.getInt64(0)), i64));
  llvm::Value* f = b.CreateUIToFP(kept, f32);  // fewer than 25 bits: exact
  llvm::Value* scale = b.CreateBitCast(b.CreateTrunc(b.CreateShl(b.CreateAdd(shift, b.getInt64(127)), 23), b.getInt32Ty()), f32);
  f = b.CreateFMul(f, scale);  // a power of two: exact
  return b.CreateSelect(negative, b.CreateFNeg(f), f);
}

llvm::Value* function_lowering::small_float_to_int(llvm::Value* x, rounding m, const type* to) {
  static constexpr const char* integer_rounding[] = {"rni", "rzi", "rmi", "rpi"};  // by `rounding`
  const bool bf16 = x->getType()->isBFloatTy();
  const unsigned bits = static_cast<unsigned>(to->bits);
  const std::string ins = std::string("cvt.") + integer_rounding[static_cast<int>(m)] + "." +
                          (to->is_signed ? "s" : "u") + std::to_string(bits) + (bf16 ? ".bf16" : ".f16");
  // An 8-bit result from a half comes in a 32-bit register, as cuda_fp16.h takes it (a bfloat16's
  // needs an 8-bit one: the computation below instead). bfloat16's cvt are sm_90's.
  if (!(bf16 && bits < 16))
    if (llvm::Value* r = ms.tgt.ptx_instruction(*this, ins, bf16 ? 90 : 0, b.getIntNTy(bits < 16 ? 32 : bits), {x}))
      return bits < 16 ? b.CreateTrunc(r, b.getIntNTy(bits)) : r;
  // Rounded to an integral float first (exact in float32), then cvt.rzi's saturating conversion.
  static constexpr llvm::Intrinsic::ID round_ids[] = {llvm::Intrinsic::rint, llvm::Intrinsic::trunc,
                                                      llvm::Intrinsic::floor, llvm::Intrinsic::ceil};
  llvm::Value* f = bf16 ? bf16_to_f32(x) : b.CreateFPExt(x, b.getFloatTy());
  f = intrinsic(round_ids[static_cast<int>(m)], {f->getType()}, {f});
  if (bits >= 16) return float_to_int(f, static_cast<int>(bits), to->is_signed);
  // 8 bits: saturate at 8 bits (cvt.rzi.s8 does), from the 16-bit conversion.
  llvm::Value* r = float_to_int(f, 16, to->is_signed);
  const auto lo = static_cast<std::uint16_t>(to->is_signed ? -128 : 0), hi = static_cast<std::uint16_t>(to->is_signed ? 127 : 255);
  llvm::Value* below = to->is_signed ? b.CreateICmpSLT(r, b.getInt16(lo)) : b.getFalse();
  llvm::Value* above = to->is_signed ? b.CreateICmpSGT(r, b.getInt16(hi)) : b.CreateICmpUGT(r, b.getInt16(hi));
  r = b.CreateSelect(below, b.getInt16(lo), r);
  r = b.CreateSelect(above, b.getInt16(hi), r);
  return b.CreateTrunc(r, b.getInt8Ty());
}

namespace {

// A float64's nan as the GPU's cvt from f64 makes it a 16-bit float (an H200: NumPy's nan 0x7e00
// as a half, 0x7fc0 as a bfloat16, -nan with the sign bit): its sign and the top of its payload,
// quieted. From narrower sources every nan is the canonical 0x7fff. (target_host.cpp's
// nan_from_f64: the same rule for LLVM's own fptrunc on the host.)
llvm::Value* with_f64_nan(llvm::IRBuilder<>& b, llvm::Value* d, llvm::Value* r, bool bf16) {
  const int fraction = bf16 ? 7 : 10;
  const std::uint64_t exponent = bf16 ? 0x7f80 : 0x7c00;
  llvm::Value* bits = b.CreateBitCast(d, b.getInt64Ty());
  llvm::Value* sign = b.CreateAnd(b.CreateLShr(bits, 48), b.getInt64(0x8000));
  llvm::Value* payload = b.CreateAnd(b.CreateLShr(bits, 52 - fraction), b.getInt64((1u << fraction) - 1));
  llvm::Value* nan = b.CreateOr(b.CreateOr(sign, payload), b.getInt64(exponent | (1u << (fraction - 1))));
  llvm::Value* as = b.CreateBitCast(b.CreateTrunc(nan, b.getInt16Ty()), r->getType());
  return b.CreateSelect(b.CreateFCmpUNO(d, d), as, r);
}

}  // namespace

llvm::Value* function_lowering::to_small_float(llvm::Value* v, const type* from, rounding m, bool bf16) {
  static constexpr const char* suffix[] = {"rn", "rz", "rm", "rp"};  // PTX's, by `rounding`
  llvm::Type* to = bf16 ? b.getBFloatTy() : b.getHalfTy();
  if (from->kind != type_kind::boolean && !from->is_bfloat16() && !(from->is_float() && from->bits == 16 && !bf16)) {
    const bool is_signed = !from->is_int() || from->is_signed;
    const std::string source = from->is_float() ? "f" + std::to_string(from->bits)
                                                : (is_signed ? "s" : "u") + std::to_string(from->bits);
    std::string ins = std::string("cvt.") + suffix[static_cast<int>(m)] + (bf16 ? ".bf16." : ".f16.") + source;
    // Halves: every conversion is cvt on every GPU. bfloat16: sm_80 has float32's to nearest and
    // toward zero, sm_90 the rest (cuda_bf16.h's split); 8-bit integers have no cvt to either.
    const int min_sm = !bf16 ? 0 : (source == "f32" && (m == rounding::rn || m == rounding::rz)) ? 80 : 90;
    if (from->bits > 8)
      if (llvm::Value* r = ms.tgt.ptx_instruction(*this, ins, min_sm, to, {v})) return r;
  }
  const bool f64 = from->is_float() && from->bits == 64;
  if (bf16) {
    llvm::Value* r = f32_to_bf16(odd_f32(v, from), m);
    return f64 ? with_f64_nan(b, v, r, true) : r;
  }
  if (from->is_float() && from->bits == 16) return v;
  if (from->kind == type_kind::boolean || from->bits <= 8)  // exact in a half
    return from->is_int() && from->is_signed ? b.CreateSIToFP(v, to) : b.CreateUIToFP(v, to);
  // No cvt here (the host): small_floats.hpp's exact rounding, from a double, an int64 or a uint64.
  llvm::Value* x = v;
  const char* helper = "cuforge_small_float_from_f64";
  if (from->is_float()) {
    x = b.CreateFPExt(x, b.getDoubleTy());
  } else if (from->is_signed) {
    x = from->bits == 64 ? x : b.CreateSExt(x, b.getInt64Ty());
    helper = "cuforge_small_float_from_i64";
  } else {
    x = from->bits == 64 ? x : b.CreateZExt(x, b.getInt64Ty());
    helper = "cuforge_small_float_from_u64";
  }
  auto* fty = llvm::FunctionType::get(b.getInt16Ty(), {x->getType(), b.getInt32Ty(), b.getInt32Ty()}, false);
  llvm::CallInst* bits = b.CreateCall(ms.mod.getOrInsertFunction(helper, fty),
                                      {x, b.getInt32(static_cast<int>(m)), b.getInt32(ieee_half.fraction)});
  bits->setDoesNotAccessMemory();
  llvm::Value* r = b.CreateBitCast(bits, to);
  return f64 ? with_f64_nan(b, v, r, false) : r;
}

}  // namespace cuforge::frontend::detail

// The registry's cuda.fp16.* rows: numba-cuda 0.30's half-precision
// functions (cuda_fp16.h's, which numba-cuda binds). Each is typed by
// Numba's candidates for it (numba_typing.cpp: float16 parameters, any
// argument that converts to float16 taken) and is either an op of the IR on
// float16, which codegen computes as cuda_fp16.h does (codegen_half.cpp), or
// one of the few with no op, lowered here.
#include "codegen_lower.hpp"
#include "codegen_target.hpp"
#include "intrinsic_registry.hpp"
#include <cuforge/runtime/small_floats.hpp>

#include <llvm/IR/Intrinsics.h>

#include <string>

namespace cuforge::frontend::detail {

namespace {

// The row's own lowering, by its arg: what is no op of the IR.
enum : int { fp16_rcp, fp16_rsqrt, fp16_exp10, fp16_ne };

value type_fp16(function_typer& ft, const intrinsic& self, call_args& c) {
  if (!c.kwargs.empty()) ft.no_impl(c, "it takes no keyword arguments");
  numba_resolved call =
      numba_resolve(ft, self, c, "it takes " + std::string(self.info.params) + ", each a number that converts to float16");
  if (self.op != op_id::none) return ft.op(self.op, call.sig.result, std::move(call.args), c.loc);
  return ft.intrinsic_op(self, call.sig.result, std::move(call.args), c.loc);
}

llvm::Value* lower_fp16(function_lowering& fl, const intrinsic& self, const expr& e) {
  const std::size_t n = self.arg == fp16_ne ? 2 : 1;
  if (e.operands.size() != n) fl.fail_at(std::string(self.info.name) + ": wrong operand count", e.loc);
  llvm::Value* x = fl.expr(e.operands[0]);
  if (!x->getType()->isHalfTy()) fl.fail_at(std::string(self.info.name) + " of a non-half operand", e.loc);
  switch (self.arg) {
    case fp16_rcp: return fl.half_function(function_lowering::half_fn::rcp, x);
    case fp16_rsqrt: return fl.half_function(function_lowering::half_fn::rsqrt, x);
    case fp16_exp10: return fl.half_function(function_lowering::half_fn::exp10, x);
    default: return fl.b.CreateFCmpONE(x, fl.expr(e.operands[1]));  // __hne: ordered (nan gives false)
  }
}

// --- the rest of cuda_fp16.h that numba-cuda binds: conversions in a rounding mode, bit
// reinterpretations, non-contracting and saturating arithmetic, nan-aware max/min, unordered
// comparisons, classification, tanh. Typed by their C prototypes (type_by_prototype); each is one
// PTX instruction on a GPU that has it (target::ptx_instruction), else computed to the same value.

// What a row computes (the row's arg: the kind, with a rounding mode or a predicate << 8).
enum half_kind : int {
  hk_to_half,     // an integer or float to half, in the row's rounding mode
  hk_from_half,   // half to an integer, in the row's rounding mode (saturating, nan as cvt gives)
  hk_to_float,    // exact
  hk_bits,        // the 16 bits reinterpreted
  hk_rn,          // + - * rounded once, never contracted into an fma (the row's op)
  hk_sat,         // + - * fma clamped to [+0, 1], nan to +0 (the row's op)
  hk_fma_relu,    // fma, then max_nan with +0
  hk_max_nan,     // a nan operand gives nan; +0 above -0
  hk_min_nan,
  hk_unordered,   // a comparison that is true when either operand is nan (the predicate << 8)
  hk_isnan,
  hk_isinf,       // -1 for -inf, 1 for inf, else 0
  hk_tanh,        // tanhf, rounded to half
  hk_tanh_approx, // tanh.approx.f16 where the GPU has it, else tanh
};
constexpr int kind_of(int arg) { return arg & 0xff; }
constexpr int detail_of(int arg) { return arg >> 8; }

// llvm.maximum/minimum of halves with the nan taken from the operands, not from the result: LLVM 19's
// x86 lowering of the vectorised form (halves widened to floats) can return the other operand for
// a nan (cpu_execution.md, "One call per block": blocks vectorise across threads).
llvm::Value* nan_propagating(function_lowering& fl, llvm::Intrinsic::ID id, llvm::Value* a, llvm::Value* c) {
  auto& b = fl.b;
  llvm::Value* r = fl.intrinsic(id, {a->getType()}, {a, c});
  llvm::Value* nan = llvm::ConstantFP::get(b.getContext(), llvm::APFloat(llvm::APFloat::IEEEhalf(), llvm::APInt(16, canonical_small_nan)));
  return b.CreateSelect(b.CreateFCmpUNO(a, c), nan, r);
}

llvm::Value* lower_half_extra(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  llvm::IRBuilder<>::FastMathFlagGuard guard(b);
  b.setFastMathFlags(llvm::FastMathFlags());  // exact as written
  const target& tgt = fl.ms.tgt;
  std::vector<llvm::Value*> x;
  for (expr_id id : e.operands) x.push_back(fl.expr(id));
  if (x.empty()) fl.fail_at(std::string(self.info.name) + ": no operands", e.loc);
  llvm::Type* half = b.getHalfTy();
  llvm::Value* zero = llvm::ConstantFP::get(half, 0.0);
  const int detail = detail_of(self.arg);
  auto op_name = [&] {
    switch (self.op) {
      case op_id::add: return "add";
      case op_id::sub: return "sub";
      case op_id::mul: return "mul";
      default: return "fma";
    }
  };
  auto arith = [&] {
    if (self.op == op_id::fma) return fl.math(op_id::fma, {x[0], x[1], x[2]}, 16);
    return fl.half_arith(self.op, x[0], x[1]);
  };
  switch (kind_of(self.arg)) {
    case hk_to_half: return fl.to_small_float(x[0], fl.type_of(e.operands[0]), static_cast<rounding>(detail), false);
    case hk_from_half: return fl.small_float_to_int(x[0], static_cast<rounding>(detail), e.ty);
    case hk_to_float: return b.CreateFPExt(x[0], b.getFloatTy());
    case hk_bits: return b.CreateBitCast(x[0], fl.ms.value_type(e.ty));
    case hk_rn: {
      if (llvm::Value* r = tgt.ptx_instruction(fl, std::string(op_name()) + ".rn.f16", 53, half, x)) return r;
      return arith();  // the host contracts nothing
    }
    case hk_sat: {
      const std::string ins = std::string(op_name()) + (self.op == op_id::fma ? ".rn.sat.f16" : ".sat.f16");
      if (llvm::Value* r = tgt.ptx_instruction(fl, ins, 53, half, x)) return r;
      llvm::Value* r = arith();
      llvm::Value* one = llvm::ConstantFP::get(half, 1.0);
      return b.CreateSelect(b.CreateFCmpOGT(r, zero), fl.intrinsic(llvm::Intrinsic::minnum, {half}, {r, one}), zero);
    }
    case hk_fma_relu: {
      if (llvm::Value* r = tgt.ptx_instruction(fl, "fma.rn.relu.f16", 80, half, x)) return r;
      llvm::Value* r = fl.math(op_id::fma, {x[0], x[1], x[2]}, 16);
      return nan_propagating(fl, llvm::Intrinsic::maximum, r, zero);
    }
    case hk_max_nan:
    case hk_min_nan: {
      const bool max = kind_of(self.arg) == hk_max_nan;
      if (llvm::Value* r = tgt.ptx_instruction(fl, max ? "max.NaN.f16" : "min.NaN.f16", 80, half, x)) return r;
      return nan_propagating(fl, max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, x[0], x[1]);
    }
    case hk_unordered: return b.CreateFCmp(static_cast<llvm::CmpInst::Predicate>(detail), x[0], x[1]);
    case hk_isnan: return b.CreateFCmpUNO(x[0], x[0]);
    case hk_isinf: {
      llvm::Value* inf = b.CreateFCmpOEQ(fl.intrinsic(llvm::Intrinsic::fabs, {half}, {x[0]}),
                                         llvm::ConstantFP::getInfinity(half));
      llvm::Value* sign = b.CreateSelect(b.CreateFCmpOLT(x[0], zero), b.getInt32(-1), b.getInt32(1));
      return b.CreateSelect(inf, sign, b.getInt32(0));
    }
    case hk_tanh_approx:
      // sm_75 has the instruction, but not the PTX ISA version (6.3) LLVM writes for sm_75: from sm_80.
      if (llvm::Value* r = tgt.ptx_instruction(fl, "tanh.approx.f16", 80, half, x)) return r;
      [[fallthrough]];  // elsewhere: htanh
    case hk_tanh: return fl.math(op_id::tanh, {x[0]}, 16);
    default: fl.fail_at(std::string(self.info.name) + ": unknown half function", e.loc);
  }
}

constexpr intrinsic half_row(std::string_view name, std::string_view proto, std::string_view params,
                             std::string_view doc, int kind, int detail = 0, op_id op = op_id::none) {
  intrinsic e = lowered_by(function_entry(name, params, doc, type_by_prototype, op, kind | detail << 8), lower_half_extra);
  e.proto = proto;
  return e;
}

constexpr intrinsic fn(std::string_view name, std::string_view params, std::string_view doc, op_id op) {
  return function_entry(name, params, doc, type_fp16, op);
}
constexpr intrinsic own(std::string_view name, std::string_view params, std::string_view doc, int which) {
  return lowered_by(function_entry(name, params, doc, type_fp16, op_id::none, which), lower_fp16);
}

// Every function twice, as numba-cuda has them: hadd and __hadd. X(name, params, doc, op, own lowering)
#define CUFORGE_FP16_PAIRED(X)                                                                              \
  X(hadd, "(a, b)", "a + b in half precision (add.f16).", op_id::add)                                       \
  X(hsub, "(a, b)", "a - b in half precision.", op_id::sub)                                                 \
  X(hmul, "(a, b)", "a * b in half precision.", op_id::mul)                                                 \
  X(hdiv, "(a, b)", "a / b in half precision (cuda_fp16.h's __hdiv).", op_id::div)                          \
  X(hfma, "(a, b, c)", "a * b + c in half precision, rounded once.", op_id::fma)                            \
  X(hneg, "(a)", "-a.", op_id::neg)                                                                         \
  X(habs, "(a)", "|a|.", op_id::fabs)                                                                       \
  X(hmax, "(a, b)", "The larger of a and b; a nan gives the other (max.f16).", op_id::fmax)                 \
  X(hmin, "(a, b)", "The smaller of a and b; a nan gives the other (min.f16).", op_id::fmin)                \
  X(heq, "(a, b)", "a == b (a bool; false when either is nan).", op_id::eq)                                 \
  X(hgt, "(a, b)", "a > b (a bool; false when either is nan).", op_id::gt)                                  \
  X(hge, "(a, b)", "a >= b (a bool; false when either is nan).", op_id::ge)                                 \
  X(hlt, "(a, b)", "a < b (a bool; false when either is nan).", op_id::lt)                                  \
  X(hle, "(a, b)", "a <= b (a bool; false when either is nan).", op_id::le)

#define CUFORGE_FP16_ROW(name, params, doc, op) fn("cuda.fp16." #name, params, doc, op), \
                                                fn("cuda.fp16.__" #name, params, doc, op),


// The rest, typed by prototype. A conversion in each rounding mode: _rn to the nearest (ties to
// even), _rz toward zero, _rd down, _ru up.
#define CUFORGE_FP16_ROUNDED(base, proto, kind, what)                                                           \
  half_row("cuda.fp16.__" #base "_rn", proto, "(a)", what ", rounded to the nearest (ties to even).", kind, 0), \
  half_row("cuda.fp16.__" #base "_rz", proto, "(a)", what ", rounded toward zero.", kind, 1),                  \
  half_row("cuda.fp16.__" #base "_rd", proto, "(a)", what ", rounded down.", kind, 2),                         \
  half_row("cuda.fp16.__" #base "_ru", proto, "(a)", what ", rounded up.", kind, 3),
#define CUFORGE_FP16_EXTRA_ROWS                                                                                       \
  half_row("cuda.fp16.__double2half", "e:d", "(a)", "A float64 as a float16, rounded to the nearest.", hk_to_half),  \
  half_row("cuda.fp16.__float2half", "e:f", "(a)", "A float32 as a float16, rounded to the nearest.", hk_to_half),   \
  CUFORGE_FP16_ROUNDED(float2half, "e:f", hk_to_half, "A float32 as a float16")                                     \
  CUFORGE_FP16_ROUNDED(short2half, "e:h", hk_to_half, "An int16 as a float16")                                      \
  CUFORGE_FP16_ROUNDED(ushort2half, "e:H", hk_to_half, "A uint16 as a float16")                                     \
  CUFORGE_FP16_ROUNDED(int2half, "e:i", hk_to_half, "An int32 as a float16")                                        \
  CUFORGE_FP16_ROUNDED(uint2half, "e:I", hk_to_half, "A uint32 as a float16")                                       \
  CUFORGE_FP16_ROUNDED(ll2half, "e:l", hk_to_half, "An int64 as a float16")                                         \
  CUFORGE_FP16_ROUNDED(ull2half, "e:L", hk_to_half, "A uint64 as a float16")                                        \
  half_row("cuda.fp16.__half2float", "f:e", "(a)", "A float16 as a float32 (exact).", hk_to_float),                 \
  half_row("cuda.fp16.__half2char_rz", "b:e", "(a)", "A float16 as an int8, toward zero (saturating; nan 0).",      \
           hk_from_half, 1),                                                                                        \
  half_row("cuda.fp16.__half2uchar_rz", "B:e", "(a)", "A float16 as a uint8, toward zero (saturating; nan 0).",     \
           hk_from_half, 1),                                                                                        \
  CUFORGE_FP16_ROUNDED(half2short, "h:e", hk_from_half, "A float16 as an int16 (saturating)")                       \
  CUFORGE_FP16_ROUNDED(half2ushort, "H:e", hk_from_half, "A float16 as a uint16 (saturating)")                      \
  CUFORGE_FP16_ROUNDED(half2int, "i:e", hk_from_half, "A float16 as an int32 (saturating)")                         \
  CUFORGE_FP16_ROUNDED(half2uint, "I:e", hk_from_half, "A float16 as a uint32 (saturating)")                        \
  CUFORGE_FP16_ROUNDED(half2ll, "l:e", hk_from_half, "A float16 as an int64 (saturating)")                          \
  CUFORGE_FP16_ROUNDED(half2ull, "L:e", hk_from_half, "A float16 as a uint64 (saturating)")                         \
  half_row("cuda.fp16.__short_as_half", "e:h", "(a)", "The float16 whose bits are the int16's.", hk_bits),          \
  half_row("cuda.fp16.__ushort_as_half", "e:H", "(a)", "The float16 whose bits are the uint16's.", hk_bits),        \
  half_row("cuda.fp16.__half_as_short", "h:e", "(a)", "The float16's bits as an int16.", hk_bits),                  \
  half_row("cuda.fp16.__half_as_ushort", "H:e", "(a)", "The float16's bits as a uint16.", hk_bits),                 \
  half_row("cuda.fp16.__hadd_rn", "e:e,e", "(a, b)", "a + b, never contracted into an fma.", hk_rn, 0, op_id::add), \
  half_row("cuda.fp16.__hsub_rn", "e:e,e", "(a, b)", "a - b, never contracted into an fma.", hk_rn, 0, op_id::sub), \
  half_row("cuda.fp16.__hmul_rn", "e:e,e", "(a, b)", "a * b, never contracted into an fma.", hk_rn, 0, op_id::mul), \
  half_row("cuda.fp16.__hadd_sat", "e:e,e", "(a, b)", "a + b clamped to [0, 1] (nan gives 0).", hk_sat, 0, op_id::add), \
  half_row("cuda.fp16.__hsub_sat", "e:e,e", "(a, b)", "a - b clamped to [0, 1] (nan gives 0).", hk_sat, 0, op_id::sub), \
  half_row("cuda.fp16.__hmul_sat", "e:e,e", "(a, b)", "a * b clamped to [0, 1] (nan gives 0).", hk_sat, 0, op_id::mul), \
  half_row("cuda.fp16.__hfma_sat", "e:e,e,e", "(a, b, c)", "a * b + c rounded once, clamped to [0, 1] (nan gives 0).", \
           hk_sat, 0, op_id::fma),                                                                                  \
  half_row("cuda.fp16.__hfma_relu", "e:e,e,e", "(a, b, c)", "a * b + c rounded once; negative gives 0, nan stays nan.", \
           hk_fma_relu),                                                                                            \
  half_row("cuda.fp16.__hmax_nan", "e:e,e", "(a, b)", "The larger of a and b; a nan operand gives nan.", hk_max_nan), \
  half_row("cuda.fp16.__hmin_nan", "e:e,e", "(a, b)", "The smaller of a and b; a nan operand gives nan.", hk_min_nan), \
  half_row("cuda.fp16.__hequ", "?:e,e", "(a, b)", "a == b, or either is nan.", hk_unordered, llvm::CmpInst::FCMP_UEQ), \
  half_row("cuda.fp16.__hneu", "?:e,e", "(a, b)", "a != b, or either is nan.", hk_unordered, llvm::CmpInst::FCMP_UNE), \
  half_row("cuda.fp16.__hgtu", "?:e,e", "(a, b)", "a > b, or either is nan.", hk_unordered, llvm::CmpInst::FCMP_UGT),  \
  half_row("cuda.fp16.__hgeu", "?:e,e", "(a, b)", "a >= b, or either is nan.", hk_unordered, llvm::CmpInst::FCMP_UGE), \
  half_row("cuda.fp16.__hltu", "?:e,e", "(a, b)", "a < b, or either is nan.", hk_unordered, llvm::CmpInst::FCMP_ULT),  \
  half_row("cuda.fp16.__hleu", "?:e,e", "(a, b)", "a <= b, or either is nan.", hk_unordered, llvm::CmpInst::FCMP_ULE), \
  half_row("cuda.fp16.__hisnan", "?:e", "(a)", "Whether a is nan.", hk_isnan),                                       \
  half_row("cuda.fp16.__hisinf", "i:e", "(a)", "-1 when a is -inf, 1 when it is inf, else 0 (an int32).", hk_isinf), \
  half_row("cuda.fp16.htanh", "e:e", "(a)", "The hyperbolic tangent (float32's, rounded to float16).", hk_tanh),     \
  half_row("cuda.fp16.htanh_approx", "e:e", "(a)",                                                                  \
           "The hyperbolic tangent by the GPU's approximate instruction (sm_80 and newer; elsewhere htanh's).",    \
           hk_tanh_approx),

const intrinsic table[] = {
    module_entry("cuda.fp16", "numba-cuda's half-precision functions (cuda_fp16.h's): float16 in, float16 out."),
    CUFORGE_FP16_PAIRED(CUFORGE_FP16_ROW)
    own("cuda.fp16.hne", "(a, b)", "a != b (a bool; false when either is nan, unlike the operator).", fp16_ne),
    own("cuda.fp16.__hne", "(a, b)", "a != b (a bool; false when either is nan, unlike the operator).", fp16_ne),
    fn("cuda.fp16.hsin", "(a)", "The sine (cuda_fp16.h's, the same bits on every target).", op_id::sin),
    fn("cuda.fp16.hcos", "(a)", "The cosine (cuda_fp16.h's, the same bits on every target).", op_id::cos),
    fn("cuda.fp16.hexp", "(a)", "e ** a.", op_id::exp),
    fn("cuda.fp16.hexp2", "(a)", "2 ** a.", op_id::exp2),
    own("cuda.fp16.hexp10", "(a)", "10 ** a.", fp16_exp10),
    fn("cuda.fp16.hlog", "(a)", "The natural logarithm.", op_id::log),
    fn("cuda.fp16.hlog2", "(a)", "The base-2 logarithm.", op_id::log2),
    fn("cuda.fp16.hlog10", "(a)", "The base-10 logarithm.", op_id::log10),
    fn("cuda.fp16.hsqrt", "(a)", "The square root.", op_id::sqrt),
    own("cuda.fp16.hrsqrt", "(a)", "1 / sqrt(a).", fp16_rsqrt),
    own("cuda.fp16.hrcp", "(a)", "1 / a.", fp16_rcp),
    fn("cuda.fp16.hceil", "(a)", "The smallest integer >= a, as a float16.", op_id::ceil),
    fn("cuda.fp16.hfloor", "(a)", "The largest integer <= a, as a float16.", op_id::floor),
    fn("cuda.fp16.htrunc", "(a)", "a rounded toward zero, as a float16.", op_id::trunc),
    fn("cuda.fp16.hrint", "(a)", "a rounded to the nearest integer (halves to even), as a float16.", op_id::rint),
    CUFORGE_FP16_EXTRA_ROWS
};

#undef CUFORGE_FP16_ROW
#undef CUFORGE_FP16_EXTRA_ROWS
#undef CUFORGE_FP16_ROUNDED
#undef CUFORGE_FP16_PAIRED

}  // namespace

std::span<const intrinsic> fp16_intrinsics() { return table; }

}  // namespace cuforge::frontend::detail

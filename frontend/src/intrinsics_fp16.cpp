// The registry's cuda.fp16.* rows: numba-cuda 0.30's half-precision
// functions (cuda_fp16.h's, which numba-cuda binds). Each is typed by
// Numba's candidates for it (numba_typing.cpp: float16 parameters, any
// argument that converts to float16 taken) and is either an op of the IR on
// float16, which codegen computes as cuda_fp16.h does (codegen_half.cpp), or
// one of the few with no op, lowered here.
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

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
};

#undef CUFORGE_FP16_ROW
#undef CUFORGE_FP16_PAIRED

}  // namespace

std::span<const intrinsic> fp16_intrinsics() { return table; }

}  // namespace cuforge::frontend::detail

// The registry's cuda.bf16.* rows: numba-cuda 0.30's bfloat16 (its bindings of cuda_bf16.h), and
// the typer's rules for bfloat16 operands.
//
// numba-cuda's bfloat16 is no Number: its operators and the math functions it overloads are
// cuda_bf16.h's functions on two bfloat16s (an 8-bit integer converts to one safely); any other
// use widens it to float32, which holds it exactly (bfloat16 + float32 is float32, + int32 float64).
// The functions are typed by their C prototypes (type_by_prototype; 'E' is bfloat16) and computed
// as cuda_bf16.h computes them: one PTX instruction where the GPU compiled for has it
// (target::ptx_instruction; most are sm_80's or sm_90's), else through float32, exactly:
// + - * / and sqrt of two bfloat16s rounded once in float32 and again to bfloat16 round as once
// (float32's 24 bits are more than twice bfloat16's 8, plus two), fma through float64 rounded to
// odd, conversions through float32 rounded to odd (codegen_half.cpp). The math functions are
// cuda_bf16.h's float32 sequences on the GPU (its approximate instructions) and correctly
// rounded on the host (docs/compiler.md).
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

#include <llvm/IR/Intrinsics.h>

#include <bit>
#include <string>
#include <utility>

namespace cuforge::frontend::detail {

namespace {

enum bf16_kind : int {
  bk_make,         // bfloat16(x): to the nearest, from any real number (a bfloat16 stays itself)
  bk_to,           // the parameter converted in the row's rounding mode
  bk_from,         // to the integer result in the row's rounding mode (saturating; nan as cvt)
  bk_to_float,     // exact
  bk_bits,         // the 16 bits reinterpreted
  bk_arith,        // the row's op (add, sub, mul, div, fma); detail: 0 as __hadd, 1 _rn, 2 _sat
  bk_neg,
  bk_abs,
  bk_max,          // a nan gives the other; +0 above -0
  bk_min,
  bk_max_nan,      // a nan gives nan
  bk_min_nan,
  bk_fma_relu,     // fma, then max_nan with +0
  bk_cmp,          // detail: the predicate (ordered, or unordered for hequ...)
  bk_isnan,
  bk_isinf,        // -1, 0 or 1
  bk_round,        // the row's op (floor, ceil, trunc, rint): exact
  bk_math,         // the row's op, or detail's function (hrsqrt, hrcp, hexp10)
  bk_tanh_approx,  // tanh.approx.bf16 on sm_90, else htanh
};
enum : int { own_rsqrt = 1, own_rcp, own_exp10 };
enum : int { plain = 0, rn_only = 1, saturating = 2 };

constexpr int kind_of(int arg) { return arg & 0xff; }
constexpr int detail_of(int arg) { return arg >> 8; }

struct bf16_lowering {
  function_lowering& fl;
  llvm::IRBuilder<>& b;
  const target& tgt;
  const intrinsic& self;
  const expr& e;
  std::vector<llvm::Value*> x;

  llvm::Type* bf() { return b.getBFloatTy(); }
  llvm::Type* f32() { return b.getFloatTy(); }
  llvm::Value* bits_to_bf(std::uint16_t v) { return b.CreateBitCast(b.getInt16(v), bf()); }
  llvm::Value* wide(llvm::Value* v) { return fl.bf16_to_f32(v); }
  llvm::Value* narrow(llvm::Value* f) { return fl.f32_to_bf16(f, rounding::rn); }
  llvm::Value* ptx(const std::string& ins, int min_sm, llvm::Type* t, std::vector<llvm::Value*> args) {
    return tgt.ptx_instruction(fl, ins, min_sm, t, args);
  }
  llvm::Value* nan_if_nan(llvm::Value* r) {
    llvm::Value* f = wide(r);
    return b.CreateSelect(b.CreateFCmpUNO(f, f), bits_to_bf(canonical_small_nan), r);
  }
  const char* op_name() const {
    switch (self.op) {
      case op_id::add: return "add";
      case op_id::sub: return "sub";
      case op_id::mul: return "mul";
      case op_id::div: return "div";
      default: return "fma";
    }
  }

  // a op b (op c), rounded once to bfloat16, computed exactly through float32 or float64.
  llvm::Value* arith_exact() {
    llvm::Value *fa = wide(x[0]), *fb = wide(x[1]);
    switch (self.op) {
      case op_id::add: return narrow(b.CreateFAdd(fa, fb));
      case op_id::sub: return narrow(b.CreateFSub(fa, fb));
      case op_id::mul: return narrow(b.CreateFMul(fa, fb));
      case op_id::div: return narrow(b.CreateFDiv(fa, fb));
      default: {
        llvm::Type* f64 = b.getDoubleTy();
        // In float64: exact (8-bit significands; a float32 product of two tiny bfloat16s would round).
        llvm::Value* p = b.CreateFMul(b.CreateFPExt(fa, f64), b.CreateFPExt(fb, f64));
        llvm::Value* s = fl.sum_rounded_to_odd(p, b.CreateFPExt(wide(x[2]), f64));
        return fl.f32_to_bf16(fl.odd_f32_of_f64(s), rounding::rn);
      }
    }
  }

  llvm::Value* arith() {
    const int how = detail_of(self.arg);
    if (self.op == op_id::fma && how != saturating) {
      if (llvm::Value* r = ptx("fma.rn.bf16", 80, bf(), x)) return r;
    } else if (self.op != op_id::div && self.op != op_id::fma && how != saturating) {
      if (llvm::Value* r = ptx(std::string(op_name()) + (how == rn_only ? ".rn.bf16" : ".bf16"), 90, bf(), x)) return r;
    }
    llvm::Value* r = arith_exact();
    if (how != saturating) return r;
    llvm::Value* f = wide(r);  // [+0, 1], nan to +0 (cuda_bf16.h's max and min with 0 and 1)
    llvm::Value* clamped = b.CreateSelect(b.CreateFCmpOGT(f, llvm::ConstantFP::get(f32(), 1.0)), bits_to_bf(0x3f80), r);
    return b.CreateSelect(b.CreateFCmpOGT(f, llvm::ConstantFP::get(f32(), 0.0)), clamped, bits_to_bf(0));
  }

  // max or min of two bfloat16s: a nan operand gives the other (both: nan), +0 above -0.
  llvm::Value* extreme(llvm::Value* a, llvm::Value* c, bool max) {
    llvm::Value *fa = wide(a), *fc = wide(c);
    llvm::Value* pick_a = b.CreateOr(max ? b.CreateFCmpOGT(fa, fc) : b.CreateFCmpOLT(fa, fc), b.CreateFCmpUNO(fc, fc));
    llvm::Value* r = b.CreateSelect(pick_a, a, c);
    llvm::Value *ia = b.CreateBitCast(a, b.getInt16Ty()), *ic = b.CreateBitCast(c, b.getInt16Ty());
    llvm::Value* zeros = b.CreateBitCast(max ? b.CreateAnd(ia, ic) : b.CreateOr(ia, ic), bf());
    return nan_if_nan(b.CreateSelect(b.CreateFCmpOEQ(fa, fc), zeros, r));
  }

  llvm::Value* extreme_nan(llvm::Value* a, llvm::Value* c, bool max) {
    llvm::Value *fa = wide(a), *fc = wide(c);
    llvm::Value* any_nan = b.CreateFCmpUNO(fa, fc);
    return b.CreateSelect(any_nan, bits_to_bf(canonical_small_nan), extreme(a, c, max));
  }

  // The math functions: cuda_bf16.h's float32 sequences where the GPU has the approximate
  // instructions they use, else (the host) correctly rounded through float64; sin, cos and tanh
  // are the float32 functions (libdevice's on the GPU, libm's on the host) everywhere.
  llvm::Value* math() {
    llvm::Value* f = wide(x[0]);
    const int own = detail_of(self.arg);
    if (self.op == op_id::sin || self.op == op_id::cos || self.op == op_id::tanh)
      return narrow(fl.math(self.op, {f}, 32));
    auto approx = [&](const char* ins, llvm::Value* v) { return ptx(std::string(ins) + ".approx.f32", 0, f32(), {v}); };
    auto times = [&](llvm::Value* v, std::uint32_t c) {
      return b.CreateFMul(v, llvm::ConstantFP::get(f32(), std::bit_cast<float>(c)));
    };
    llvm::Value* r = nullptr;
    if (own == own_rsqrt) r = approx("rsqrt", f);
    else if (own == own_rcp) r = approx("rcp", f);
    else if (own == own_exp10) r = approx("ex2", times(f, 0x40549A78u));
    else {
      switch (self.op) {
        case op_id::sqrt: r = approx("sqrt", f); break;
        case op_id::exp2: r = approx("ex2", f); break;
        case op_id::exp: r = approx("ex2", times(f, 0x3FB8AA3Cu)); break;
        case op_id::log2: r = approx("lg2", f); break;
        case op_id::log: r = (r = approx("lg2", f)) ? times(r, 0x3f317218u) : nullptr; break;
        case op_id::log10: r = (r = approx("lg2", f)) ? times(r, 0x3E9A209Bu) : nullptr; break;
        default: fl.fail_at(std::string(self.info.name) + ": no bfloat16 form", e.loc);
      }
    }
    if (r != nullptr) {
      llvm::Value* h = narrow(r);
      if (own != own_exp10) return h;
      // cuda_bf16.h's one correction: hexp10 of 0xBC95 is 0x3f75.
      llvm::Value* hit = b.CreateICmpEQ(b.CreateBitCast(x[0], b.getInt16Ty()), b.getInt16(0xBC95));
      return b.CreateSelect(hit, bits_to_bf(0x3f75), h);
    }
    // The host: float64's function, rounded once.
    llvm::Value* d = b.CreateFPExt(f, b.getDoubleTy());
    llvm::Value* one = llvm::ConstantFP::get(b.getDoubleTy(), 1.0);
    llvm::Value* v = nullptr;
    if (own == own_rsqrt) v = b.CreateFDiv(one, fl.math(op_id::sqrt, {d}, 64));
    else if (own == own_rcp) v = b.CreateFDiv(one, d);
    else if (own == own_exp10) v = fl.math(op_id::pow, {llvm::ConstantFP::get(b.getDoubleTy(), 10.0), d}, 64);
    else v = fl.math(self.op, {d}, 64);
    return fl.f32_to_bf16(fl.odd_f32_of_f64(v), rounding::rn);
  }

  llvm::Value* lower() {
    llvm::IRBuilder<>::FastMathFlagGuard guard(b);
    b.setFastMathFlags(llvm::FastMathFlags());  // exact as written
    for (expr_id id : e.operands) x.push_back(fl.expr(id));
    if (x.empty()) fl.fail_at(std::string(self.info.name) + ": no operands", e.loc);
    const int detail = detail_of(self.arg);
    switch (kind_of(self.arg)) {
      case bk_make:
      case bk_to: {
        const type* from = fl.type_of(e.operands[0]);
        if (from->is_bfloat16()) return x[0];
        return fl.to_small_float(x[0], from, static_cast<rounding>(detail), true);
      }
      case bk_from: return fl.small_float_to_int(x[0], static_cast<rounding>(detail), e.ty);
      case bk_to_float: return wide(x[0]);
      case bk_bits: return b.CreateBitCast(x[0], fl.ms.value_type(e.ty));
      case bk_arith: return arith();
      case bk_neg: return b.CreateBitCast(b.CreateXor(b.CreateBitCast(x[0], b.getInt16Ty()), b.getInt16(0x8000)), bf());
      case bk_abs: return b.CreateBitCast(b.CreateAnd(b.CreateBitCast(x[0], b.getInt16Ty()), b.getInt16(0x7fff)), bf());
      case bk_max:
      case bk_min: {
        const bool max = kind_of(self.arg) == bk_max;
        if (llvm::Value* r = ptx(max ? "max.bf16" : "min.bf16", 80, bf(), x)) return r;
        return extreme(x[0], x[1], max);
      }
      case bk_max_nan:
      case bk_min_nan: {
        const bool max = kind_of(self.arg) == bk_max_nan;
        if (llvm::Value* r = ptx(max ? "max.NaN.bf16" : "min.NaN.bf16", 80, bf(), x)) return r;
        return extreme_nan(x[0], x[1], max);
      }
      case bk_fma_relu: {
        if (llvm::Value* r = ptx("fma.rn.relu.bf16", 80, bf(), x)) return r;
        llvm::Value* r = arith_exact();
        return extreme_nan(r, bits_to_bf(0), true);
      }
      case bk_cmp: return b.CreateFCmp(static_cast<llvm::CmpInst::Predicate>(detail), wide(x[0]), wide(x[1]));
      case bk_isnan: {
        llvm::Value* f = wide(x[0]);
        return b.CreateFCmpUNO(f, f);
      }
      case bk_isinf: {
        llvm::Value* f = wide(x[0]);
        llvm::Value* inf = b.CreateFCmpOEQ(fl.intrinsic(llvm::Intrinsic::fabs, {f32()}, {f}), llvm::ConstantFP::getInfinity(f32()));
        llvm::Value* sign = b.CreateSelect(b.CreateFCmpOLT(f, llvm::ConstantFP::get(f32(), 0.0)), b.getInt32(-1), b.getInt32(1));
        return b.CreateSelect(inf, sign, b.getInt32(0));
      }
      case bk_round: {
        llvm::Intrinsic::ID id = self.op == op_id::floor ? llvm::Intrinsic::floor
                                 : self.op == op_id::ceil ? llvm::Intrinsic::ceil
                                 : self.op == op_id::trunc ? llvm::Intrinsic::trunc
                                                           : llvm::Intrinsic::rint;
        return narrow(fl.intrinsic(id, {f32()}, {wide(x[0])}));  // an integral float32 of 8 bits: exact
      }
      case bk_math: return math();
      case bk_tanh_approx: {
        if (llvm::Value* r = ptx("tanh.approx.bf16", 90, bf(), x)) return r;
        return narrow(fl.math(op_id::tanh, {wide(x[0])}, 32));
      }
      default: fl.fail_at(std::string(self.info.name) + ": unknown bfloat16 function", e.loc);
    }
  }
};

llvm::Value* lower_bf16(function_lowering& fl, const intrinsic& self, const expr& e) {
  return bf16_lowering{fl, fl.b, fl.ms.tgt, self, e, {}}.lower();
}

// bfloat16(x): one real number or bfloat16, to the nearest.
value type_make(function_typer& ft, const intrinsic& self, call_args& c) {
  if (!c.kwargs.empty() || c.args.size() != 1) ft.no_impl(c, "it takes one number");
  const value& a = c.args[0];
  if (!a.runtime() || !(a.ty->is_bfloat16() || (a.ty->is_scalar() && !a.ty->is_complex())))
    ft.no_impl(c, "it takes a real number, not " + a.ty->str());
  return ft.intrinsic_op(self, ft.tc_.bfloat16(), {a}, c.loc);
}

constexpr intrinsic row(std::string_view name, std::string_view proto, std::string_view params, std::string_view doc,
                        int kind, int detail = 0, op_id op = op_id::none) {
  intrinsic e = lowered_by(function_entry(name, params, doc, type_by_prototype, op, kind | detail << 8), lower_bf16);
  e.proto = proto;
  return e;
}
constexpr intrinsic alias(intrinsic e, std::string_view name, std::string_view of) {
  e.info.name = name;
  e.info.alias_of = of;
  return e;
}

// A conversion in each rounding mode, under cuda_bf16.h's name and numba-cuda's NumPy-style one.
#define CUFORGE_BF16_ROUNDED(c_name, np_name, proto, kind, what)                                            \
  CUFORGE_BF16_ROUNDED_1(c_name, np_name, proto, kind, what ", rounded to the nearest (ties to even).", rn, 0) \
  CUFORGE_BF16_ROUNDED_1(c_name, np_name, proto, kind, what ", rounded toward zero.", rz, 1)                   \
  CUFORGE_BF16_ROUNDED_1(c_name, np_name, proto, kind, what ", rounded down.", rd, 2)                          \
  CUFORGE_BF16_ROUNDED_1(c_name, np_name, proto, kind, what ", rounded up.", ru, 3)
#define CUFORGE_BF16_ROUNDED_1(c_name, np_name, proto, kind, doc, m, mode)                                  \
  row("cuda.bf16." #c_name "_" #m, proto, "(a)", doc, kind, mode),                                          \
  alias(row("cuda.bf16." #c_name "_" #m, proto, "(a)", doc, kind, mode), "cuda.bf16." #np_name "_" #m,      \
        "cuda.bf16." #c_name "_" #m),
// A function with an alias of another name (numba-cuda's NumPy-style conversions).
#define CUFORGE_BF16_ALIASED(c_name, np_name, proto, kind, doc, mode)                                       \
  row("cuda.bf16." #c_name, proto, "(a)", doc, kind, mode),                                                 \
  alias(row("cuda.bf16." #c_name, proto, "(a)", doc, kind, mode), "cuda.bf16." #np_name, "cuda.bf16." #c_name),

using P = llvm::CmpInst::Predicate;

const intrinsic table[] = {
    module_entry("cuda.bf16", "numba-cuda's bfloat16 (cuda_bf16.h's functions on __nv_bfloat16)."),
    lowered_by(function_entry("cuda.bf16.bfloat16", "(x)",
                              "A bfloat16 from a number, rounded to the nearest (numba-cuda's bfloat16 type).",
                              type_make, op_id::none, bk_make),
               lower_bf16),
    row("cuda.bf16.hadd", "E:E,E", "(a, b)", "a + b in bfloat16.", bk_arith, plain, op_id::add),
    row("cuda.bf16.hsub", "E:E,E", "(a, b)", "a - b in bfloat16.", bk_arith, plain, op_id::sub),
    row("cuda.bf16.hmul", "E:E,E", "(a, b)", "a * b in bfloat16.", bk_arith, plain, op_id::mul),
    row("cuda.bf16.hdiv", "E:E,E", "(a, b)", "a / b in bfloat16, correctly rounded.", bk_arith, plain, op_id::div),
    row("cuda.bf16.hfma", "E:E,E,E", "(a, b, c)", "a * b + c, rounded once.", bk_arith, plain, op_id::fma),
    row("cuda.bf16.hadd_rn", "E:E,E", "(a, b)", "a + b, never contracted into an fma.", bk_arith, rn_only, op_id::add),
    row("cuda.bf16.hsub_rn", "E:E,E", "(a, b)", "a - b, never contracted into an fma.", bk_arith, rn_only, op_id::sub),
    row("cuda.bf16.hmul_rn", "E:E,E", "(a, b)", "a * b, never contracted into an fma.", bk_arith, rn_only, op_id::mul),
    row("cuda.bf16.hadd_sat", "E:E,E", "(a, b)", "a + b clamped to [0, 1] (nan gives 0).", bk_arith, saturating, op_id::add),
    row("cuda.bf16.hsub_sat", "E:E,E", "(a, b)", "a - b clamped to [0, 1] (nan gives 0).", bk_arith, saturating, op_id::sub),
    row("cuda.bf16.hmul_sat", "E:E,E", "(a, b)", "a * b clamped to [0, 1] (nan gives 0).", bk_arith, saturating, op_id::mul),
    row("cuda.bf16.hfma_sat", "E:E,E,E", "(a, b, c)", "a * b + c rounded once, clamped to [0, 1] (nan gives 0).",
        bk_arith, saturating, op_id::fma),
    row("cuda.bf16.hfma_relu", "E:E,E,E", "(a, b, c)", "a * b + c rounded once; negative gives 0, nan stays nan.",
        bk_fma_relu),
    row("cuda.bf16.hneg", "E:E", "(a)", "-a (the sign bit flipped).", bk_neg),
    row("cuda.bf16.habs", "E:E", "(a)", "|a| (the sign bit cleared).", bk_abs),
    row("cuda.bf16.hmax", "E:E,E", "(a, b)", "The larger of a and b; a nan gives the other.", bk_max),
    row("cuda.bf16.hmin", "E:E,E", "(a, b)", "The smaller of a and b; a nan gives the other.", bk_min),
    row("cuda.bf16.hmax_nan", "E:E,E", "(a, b)", "The larger of a and b; a nan operand gives nan.", bk_max_nan),
    row("cuda.bf16.hmin_nan", "E:E,E", "(a, b)", "The smaller of a and b; a nan operand gives nan.", bk_min_nan),
    row("cuda.bf16.heq", "?:E,E", "(a, b)", "a == b (false when either is nan).", bk_cmp, P::FCMP_OEQ),
    row("cuda.bf16.hne", "?:E,E", "(a, b)", "a != b (false when either is nan, unlike the operator).", bk_cmp, P::FCMP_ONE),
    row("cuda.bf16.hgt", "?:E,E", "(a, b)", "a > b (false when either is nan).", bk_cmp, P::FCMP_OGT),
    row("cuda.bf16.hge", "?:E,E", "(a, b)", "a >= b (false when either is nan).", bk_cmp, P::FCMP_OGE),
    row("cuda.bf16.hlt", "?:E,E", "(a, b)", "a < b (false when either is nan).", bk_cmp, P::FCMP_OLT),
    row("cuda.bf16.hle", "?:E,E", "(a, b)", "a <= b (false when either is nan).", bk_cmp, P::FCMP_OLE),
    row("cuda.bf16.hequ", "?:E,E", "(a, b)", "a == b, or either is nan.", bk_cmp, P::FCMP_UEQ),
    row("cuda.bf16.hneu", "?:E,E", "(a, b)", "a != b, or either is nan.", bk_cmp, P::FCMP_UNE),
    row("cuda.bf16.hgtu", "?:E,E", "(a, b)", "a > b, or either is nan.", bk_cmp, P::FCMP_UGT),
    row("cuda.bf16.hgeu", "?:E,E", "(a, b)", "a >= b, or either is nan.", bk_cmp, P::FCMP_UGE),
    row("cuda.bf16.hltu", "?:E,E", "(a, b)", "a < b, or either is nan.", bk_cmp, P::FCMP_ULT),
    row("cuda.bf16.hleu", "?:E,E", "(a, b)", "a <= b, or either is nan.", bk_cmp, P::FCMP_ULE),
    row("cuda.bf16.hisnan", "?:E", "(a)", "Whether a is nan.", bk_isnan),
    row("cuda.bf16.hisinf", "i:E", "(a)", "-1 when a is -inf, 1 when it is inf, else 0 (an int32).", bk_isinf),
    CUFORGE_BF16_ALIASED(bfloat162float, bfloat16_to_float32, "f:E", bk_to_float, "A bfloat16 as a float32 (exact).", 0)
    CUFORGE_BF16_ALIASED(float2bfloat16, float32_to_bfloat16, "E:f", bk_to, "A float32 as a bfloat16, to the nearest.", 0)
    CUFORGE_BF16_ALIASED(double2bfloat16, float64_to_bfloat16, "E:d", bk_to, "A float64 as a bfloat16, to the nearest.", 0)
    CUFORGE_BF16_ROUNDED(float2bfloat16, float32_to_bfloat16, "E:f", bk_to, "A float32 as a bfloat16")
    CUFORGE_BF16_ALIASED(bfloat162char_rz, bfloat16_to_int8_rz, "b:E", bk_from,
                         "A bfloat16 as an int8, toward zero (saturating; nan 0).", 1)
    CUFORGE_BF16_ALIASED(bfloat162uchar_rz, bfloat16_to_uint8_rz, "B:E", bk_from,
                         "A bfloat16 as a uint8, toward zero (saturating; nan 0).", 1)
    CUFORGE_BF16_ROUNDED(short2bfloat16, int16_to_bfloat16, "E:h", bk_to, "An int16 as a bfloat16")
    CUFORGE_BF16_ROUNDED(ushort2bfloat16, uint16_to_bfloat16, "E:H", bk_to, "A uint16 as a bfloat16")
    CUFORGE_BF16_ROUNDED(int2bfloat16, int32_to_bfloat16, "E:i", bk_to, "An int32 as a bfloat16")
    CUFORGE_BF16_ROUNDED(uint2bfloat16, uint32_to_bfloat16, "E:I", bk_to, "A uint32 as a bfloat16")
    CUFORGE_BF16_ROUNDED(ll2bfloat16, int64_to_bfloat16, "E:l", bk_to, "An int64 as a bfloat16")
    CUFORGE_BF16_ROUNDED(ull2bfloat16, uint64_to_bfloat16, "E:L", bk_to, "A uint64 as a bfloat16")
    CUFORGE_BF16_ROUNDED(bfloat162short, bfloat16_to_int16, "h:E", bk_from, "A bfloat16 as an int16 (saturating)")
    CUFORGE_BF16_ROUNDED(bfloat162ushort, bfloat16_to_uint16, "H:E", bk_from, "A bfloat16 as a uint16 (saturating)")
    CUFORGE_BF16_ROUNDED(bfloat162int, bfloat16_to_int32, "i:E", bk_from, "A bfloat16 as an int32 (saturating)")
    CUFORGE_BF16_ROUNDED(bfloat162uint, bfloat16_to_uint32, "I:E", bk_from, "A bfloat16 as a uint32 (saturating)")
    CUFORGE_BF16_ROUNDED(bfloat162ll, bfloat16_to_int64, "l:E", bk_from, "A bfloat16 as an int64 (saturating)")
    CUFORGE_BF16_ROUNDED(bfloat162ull, bfloat16_to_uint64, "L:E", bk_from, "A bfloat16 as a uint64 (saturating)")
    CUFORGE_BF16_ALIASED(bfloat16_as_short, bfloat16_as_int16, "h:E", bk_bits, "The bfloat16's bits as an int16.", 0)
    CUFORGE_BF16_ALIASED(bfloat16_as_ushort, bfloat16_as_uint16, "H:E", bk_bits, "The bfloat16's bits as a uint16.", 0)
    CUFORGE_BF16_ALIASED(short_as_bfloat16, int16_as_bfloat16, "E:h", bk_bits, "The bfloat16 whose bits are the int16's.", 0)
    CUFORGE_BF16_ALIASED(ushort_as_bfloat16, uint16_as_bfloat16, "E:H", bk_bits,
                         "The bfloat16 whose bits are the uint16's.", 0)
    row("cuda.bf16.htrunc", "E:E", "(a)", "a rounded toward zero, as a bfloat16.", bk_round, 0, op_id::trunc),
    row("cuda.bf16.hceil", "E:E", "(a)", "The smallest integer >= a, as a bfloat16.", bk_round, 0, op_id::ceil),
    row("cuda.bf16.hfloor", "E:E", "(a)", "The largest integer <= a, as a bfloat16.", bk_round, 0, op_id::floor),
    row("cuda.bf16.hrint", "E:E", "(a)", "a rounded to the nearest integer (halves to even).", bk_round, 0, op_id::rint),
    row("cuda.bf16.hsqrt", "E:E", "(a)", "The square root.", bk_math, 0, op_id::sqrt),
    row("cuda.bf16.hrsqrt", "E:E", "(a)", "1 / sqrt(a).", bk_math, own_rsqrt),
    row("cuda.bf16.hrcp", "E:E", "(a)", "1 / a.", bk_math, own_rcp),
    row("cuda.bf16.hlog", "E:E", "(a)", "The natural logarithm.", bk_math, 0, op_id::log),
    row("cuda.bf16.hlog2", "E:E", "(a)", "The base-2 logarithm.", bk_math, 0, op_id::log2),
    row("cuda.bf16.hlog10", "E:E", "(a)", "The base-10 logarithm.", bk_math, 0, op_id::log10),
    row("cuda.bf16.hcos", "E:E", "(a)", "The cosine (float32's, rounded).", bk_math, 0, op_id::cos),
    row("cuda.bf16.hsin", "E:E", "(a)", "The sine (float32's, rounded).", bk_math, 0, op_id::sin),
    row("cuda.bf16.hexp", "E:E", "(a)", "e ** a.", bk_math, 0, op_id::exp),
    row("cuda.bf16.hexp2", "E:E", "(a)", "2 ** a.", bk_math, 0, op_id::exp2),
    row("cuda.bf16.hexp10", "E:E", "(a)", "10 ** a.", bk_math, own_exp10),
    row("cuda.bf16.htanh", "E:E", "(a)", "The hyperbolic tangent (float32's, rounded).", bk_math, 0, op_id::tanh),
    row("cuda.bf16.htanh_approx", "E:E", "(a)",
        "The hyperbolic tangent by the GPU's approximate instruction (sm_90; elsewhere htanh's).", bk_tanh_approx),
};

#undef CUFORGE_BF16_ROUNDED
#undef CUFORGE_BF16_ROUNDED_1
#undef CUFORGE_BF16_ALIASED

}  // namespace

std::span<const intrinsic> bf16_intrinsics() { return table; }

const intrinsic* bfloat16_math_row(std::string_view math_name) {
  static constexpr std::pair<std::string_view, std::string_view> overloads[] = {
      {"math.trunc", "cuda.bf16.htrunc"}, {"math.ceil", "cuda.bf16.hceil"}, {"math.floor", "cuda.bf16.hfloor"},
      {"math.sqrt", "cuda.bf16.hsqrt"},   {"math.log", "cuda.bf16.hlog"},   {"math.log10", "cuda.bf16.hlog10"},
      {"math.cos", "cuda.bf16.hcos"},     {"math.sin", "cuda.bf16.hsin"},   {"math.tanh", "cuda.bf16.htanh"},
      {"math.exp", "cuda.bf16.hexp"},     {"math.exp2", "cuda.bf16.hexp2"}};
  for (auto [m, row_name] : overloads)
    if (m == math_name) return &entry(row_name);
  return nullptr;
}

// --- the typer's rules for bfloat16 operands -------------------------------------------------

namespace {
// numba-cuda's cuda_bf16 operators take two bfloat16s; an 8-bit integer converts to one safely.
bool takes_as_bfloat16(const type* t) { return t->is_bfloat16() || (t->is_int() && t->bits == 8); }
}  // namespace

value function_typer::bfloat16_binary(binop o, const value& a, const value& b, location loc) {
  const char* row = o == binop::add ? "cuda.bf16.hadd" : o == binop::sub ? "cuda.bf16.hsub"
                    : o == binop::mul ? "cuda.bf16.hmul" : o == binop::truediv ? "cuda.bf16.hdiv" : nullptr;
  if (row != nullptr && takes_as_bfloat16(a.ty) && takes_as_bfloat16(b.ty))
    return intrinsic_op(entry(row), tc_.bfloat16(), {cast(a, tc_.bfloat16(), loc), cast(b, tc_.bfloat16(), loc)}, loc);
  auto widen = [&](const value& v) { return v.ty->is_bfloat16() ? cast(v, tc_.float32(), loc) : v; };
  return binary(o, widen(a), widen(b), loc);
}

value function_typer::bfloat16_compare(cmpop o, const value& a, const value& b, location loc) {
  // cuda_bf16.h's operators: == is __heq, != __hneu (true at nan, as Python's), the others ordered.
  const char* row = o == cmpop::eq ? "cuda.bf16.heq" : o == cmpop::ne ? "cuda.bf16.hneu"
                    : o == cmpop::lt ? "cuda.bf16.hlt" : o == cmpop::le ? "cuda.bf16.hle"
                    : o == cmpop::gt ? "cuda.bf16.hgt" : o == cmpop::ge ? "cuda.bf16.hge" : nullptr;
  if (row != nullptr && takes_as_bfloat16(a.ty) && takes_as_bfloat16(b.ty))
    return intrinsic_op(entry(row), tc_.boolean(), {cast(a, tc_.bfloat16(), loc), cast(b, tc_.bfloat16(), loc)}, loc);
  auto widen = [&](const value& v) { return v.ty->is_bfloat16() ? cast(v, tc_.float32(), loc) : v; };
  return compare(o, widen(a), widen(b), loc);
}

value function_typer::bfloat16_unary(unop o, const value& a, location loc) {
  if (o == unop::neg) return intrinsic_op(entry("cuda.bf16.hneg"), tc_.bfloat16(), {a}, loc);
  if (o == unop::pos) return a;
  return unary(o, cast(a, tc_.float32(), loc), loc);
}

}  // namespace cuforge::frontend::detail

// The operations of ops.hpp that are not about arrays: a lowering function
// per group of ops (ops.hpp's second column), arithmetic with Python's
// semantics, comparisons, math, complex numbers, tuples, device calls, and
// the dispatch of `intrinsic` ops to their registry rows.
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/SourceMgr.h>

#include <cmath>
#include <limits>

namespace cuforge::frontend::detail {

namespace {

using k = scalar_info::kind;

// Emits a helper function's body with the lowering's own builder and
// methods, then puts the builder back where it was. Helpers carry no debug
// locations (they have no subprogram).
class helper_scope {
 public:
  helper_scope(function_lowering& fl, llvm::Function* helper)
      : fl_(fl), guard_(fl.b), loc_(fl.b.getCurrentDebugLocation()), fn_(fl.fn), ctx_(fl.ctx) {
    fl.b.SetCurrentDebugLocation(llvm::DebugLoc());
    fl.fn = helper;
    fl.ctx = nullptr;
    fl.b.SetInsertPoint(llvm::BasicBlock::Create(fl.c_(), "entry", helper));
  }
  ~helper_scope() {
    fl_.fn = fn_;
    fl_.ctx = ctx_;
    fl_.b.SetCurrentDebugLocation(loc_);
  }
  helper_scope(const helper_scope&) = delete;
  helper_scope& operator=(const helper_scope&) = delete;

 private:
  function_lowering& fl_;
  llvm::IRBuilderBase::InsertPointGuard guard_;
  llvm::DebugLoc loc_;
  llvm::Function* fn_;
  llvm::Value* ctx_;
};

llvm::Function* new_helper(function_lowering& fl, const std::string& name, llvm::Type* ret,
                           std::vector<llvm::Type*> params) {
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(ret, params, false), llvm::Function::InternalLinkage, name,
                                    fl.ms.mod);
  fl.ms.tgt.set_attributes(*fn);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fl.ms.helpers[name] = fn;
  return fn;
}

}  // namespace

llvm::Value* function_lowering::intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Type*> types,
                                          llvm::ArrayRef<llvm::Value*> args) {
  return b.CreateCall(llvm::Intrinsic::getDeclaration(&ms.mod, id, types), args);
}

llvm::Value* function_lowering::call_math(const std::string& symbol, llvm::Type* ret,
                                          const std::vector<llvm::Value*>& args, bool pure) {
  std::vector<llvm::Type*> types;
  for (auto* a : args) types.push_back(a->getType());
  auto* fty = llvm::FunctionType::get(ret, types, false);
  llvm::FunctionCallee callee = ms.mod.getOrInsertFunction(symbol, fty);
  if (auto* decl = llvm::dyn_cast<llvm::Function>(callee.getCallee()); decl != nullptr && decl->getFunctionType() != fty)
    fail("math function " + symbol + " declared with two signatures");
  llvm::CallInst* call = b.CreateCall(callee, args);
  call->setDoesNotThrow();
  // errno is nobody's business in a kernel: the pure ones may move and fold.
  if (pure) call->setDoesNotAccessMemory();
  return call;
}

// --- the dispatcher: one lowering function per group of ops.hpp ---------------------------

namespace {

// What every group's function needs of the op: its operand count checked, operands converted to
// the type the contract says they have (lenient), float widths.
struct op_site {
  function_lowering& fl;
  const frontend::expr& e;

  [[noreturn]] void bad(const std::string& what) const { fl.fail_at(std::string(to_string(e.op)) + " " + what, e.loc); }
  void need(std::size_t count) const {
    if (e.operands.size() != count)
      bad("takes " + std::to_string(count) + " operands, got " + std::to_string(e.operands.size()));
  }
  llvm::Value* operand(std::size_t i, const type* want) const {
    llvm::Value* v = fl.expr(e.operands[i]);
    return want != nullptr ? fl.cast(v, fl.type_of(e.operands[i]), want) : v;
  }
  int float_bits(const type* ft) const {
    if (!ft->is_float()) bad("on " + ft->str());
    return ft->bits;
  }
};

using op_lowering = llvm::Value* (*)(const op_site& s);

llvm::Value* lower_invalid(const op_site& s) { s.fl.fail_at("op 'none' in typed IR", s.e.loc); }

llvm::Value* lower_arith(const op_site& s) {
  const type* t = s.e.ty;
  s.need(2);
  if (!t->is_scalar()) s.bad("on " + t->str());
  llvm::Value* a = s.operand(0, t);  // Python's order: the left operand first
  llvm::Value* y = s.operand(1, t);
  return s.fl.arith(s.e.op, a, y, scalar_of(t));
}

llvm::Value* lower_neg(const op_site& s) {
  const type* t = s.e.ty;
  auto& b = s.fl.b;
  s.need(1);
  llvm::Value* a = s.operand(0, t);
  switch (scalar_of(t).k) {
    case k::integer: return b.CreateNeg(a);
    case k::boolean: return a;
    case k::floating: return b.CreateFNeg(a);
    case k::complex: return s.fl.cmake(b.CreateFNeg(s.fl.re(a)), b.CreateFNeg(s.fl.im(a)));
  }
  s.bad("on " + t->str());
}

llvm::Value* lower_invert(const op_site& s) {
  const type* t = s.e.ty;
  s.need(1);
  llvm::Value* a = s.operand(0, t);
  if (!t->is_int() && t->kind != type_kind::boolean) s.bad("on " + t->str());
  return s.fl.b.CreateNot(a);
}

llvm::Value* lower_not_(const op_site& s) {
  s.need(1);
  return s.fl.b.CreateNot(s.fl.truth(s.fl.expr(s.e.operands[0]), s.fl.type_of(s.e.operands[0])));
}

llvm::Value* lower_abs(const op_site& s) {
  function_lowering& fl = s.fl;
  const type* t = s.e.ty;
  s.need(1);
  const type* at = fl.type_of(s.e.operands[0]);
  llvm::Value* a = fl.expr(s.e.operands[0]);
  if (at->is_complex()) {
    llvm::Value* h = fl.math(op_id::hypot, {fl.re(a), fl.im(a)}, at->bits / 2);
    return fl.scalar_cast(h, scalar_info{k::floating, at->bits / 2, true}, scalar_of(t));
  }
  a = fl.cast(a, at, t);
  switch (scalar_of(t).k) {
    case k::integer:
      return t->is_signed ? fl.intrinsic(llvm::Intrinsic::abs, {a->getType()}, {a, fl.b.getFalse()}) : a;
    case k::boolean: return a;
    case k::floating: return fl.math(op_id::fabs, {a}, t->bits);
    case k::complex: break;
  }
  s.bad("of " + t->str());
}

llvm::Value* lower_powi(const op_site& s) {
  function_lowering& fl = s.fl;
  const type* t = s.e.ty;
  s.need(2);
  llvm::Value* a = s.operand(0, t);
  llvm::Value* p = fl.to_index(fl.expr(s.e.operands[1]), fl.type_of(s.e.operands[1]));
  s.float_bits(t);
  if (t->bits == 16) return fl.float_resize(fl.powi(fl.float_resize(a, 32), p), 16);
  return fl.powi(a, p);
}

llvm::Value* lower_compare(const op_site& s) {
  function_lowering& fl = s.fl;
  const type* t = s.e.ty;
  s.need(2);
  const type* at = fl.type_of(s.e.operands[0]);
  const type* bt = fl.type_of(s.e.operands[1]);
  if (at != bt) s.bad("of " + at->str() + " and " + bt->str());
  llvm::Value* a = fl.expr(s.e.operands[0]);  // Python's order: the left operand first
  llvm::Value* y = fl.expr(s.e.operands[1]);
  llvm::Value* r = fl.compare(s.e.op, a, y, at);
  return t->kind == type_kind::boolean ? r : fl.scalar_cast(r, scalar_info{k::boolean, 1, false}, scalar_of(t));
}

llvm::Value* lower_math1(const op_site& s) {
  s.need(1);
  return s.fl.math(s.e.op, {s.operand(0, s.e.ty)}, s.float_bits(s.e.ty));
}

llvm::Value* lower_math2(const op_site& s) {
  s.need(2);
  return s.fl.math(s.e.op, {s.operand(0, s.e.ty), s.operand(1, s.e.ty)}, s.float_bits(s.e.ty));
}

llvm::Value* lower_ldexp(const op_site& s) {
  function_lowering& fl = s.fl;
  s.need(2);
  int bits = s.float_bits(s.e.ty);
  llvm::Value* a = s.operand(0, s.e.ty);
  llvm::Value* x = fl.scalar_cast(fl.expr(s.e.operands[1]), scalar_of(fl.type_of(s.e.operands[1])),
                                  scalar_info{k::integer, 32, true});
  return fl.math(op_id::ldexp, {a, x}, bits);
}

llvm::Value* lower_fma(const op_site& s) {
  s.need(3);
  const type* t = s.e.ty;
  int bits = s.float_bits(t);
  return s.fl.math(op_id::fma, {s.operand(0, t), s.operand(1, t), s.operand(2, t)}, bits);
}

llvm::Value* lower_fclass(const op_site& s) {
  function_lowering& fl = s.fl;
  auto& b = fl.b;
  const frontend::expr& e = s.e;
  s.need(1);
  const type* at = fl.type_of(e.operands[0]);
  llvm::Value* a = fl.expr(e.operands[0]);
  llvm::Value* r = nullptr;
  if (at->is_int() || at->kind == type_kind::boolean) {
    r = b.getInt1(e.op == op_id::isfinite);
  } else if (at->is_float() || at->is_complex()) {
    auto test = [&](llvm::Value* x) -> llvm::Value* {
      if (x->getType()->isHalfTy()) x = fl.float_resize(x, 32);
      llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
      switch (e.op) {
        case op_id::isnan: return b.CreateFCmpUNO(x, x);
        case op_id::isinf: return b.CreateFCmpOEQ(fl.intrinsic(llvm::Intrinsic::fabs, {x->getType()}, {x}), inf);
        default: return b.CreateFCmpOLT(fl.intrinsic(llvm::Intrinsic::fabs, {x->getType()}, {x}), inf);
      }
    };
    if (at->is_float()) {
      r = test(a);
    } else if (e.op == op_id::isfinite) {
      r = b.CreateAnd(test(fl.re(a)), test(fl.im(a)));
    } else {
      r = b.CreateOr(test(fl.re(a)), test(fl.im(a)));
    }
  } else {
    s.bad("of " + at->str());
  }
  return e.ty->kind == type_kind::boolean ? r : fl.scalar_cast(r, scalar_info{k::boolean, 1, false}, scalar_of(e.ty));
}

llvm::Value* lower_frexp_modf(const op_site& s) {
  function_lowering& fl = s.fl;
  auto& b = fl.b;
  const type* t = s.e.ty;
  s.need(1);
  if (!t->is_tuple() || t->elements.size() != 2) s.bad("typed " + t->str());
  const type* ft = t->elements[0];
  int bits = s.float_bits(ft);
  llvm::Value* a = s.operand(0, ft);
  int cb = bits == 16 ? 32 : bits;
  if (bits == 16) a = fl.float_resize(a, 32);
  llvm::Value* first = nullptr;
  llvm::Value* second = nullptr;
  if (s.e.op == op_id::frexp) {
    llvm::AllocaInst* ex = fl.entry_alloca(b.getInt32Ty(), "frexp.exp");
    b.CreateStore(b.getInt32(0), ex);
    first = fl.call_math(fl.ms.tgt.math_symbol(op_id::frexp, cb, false), a->getType(), {a, ex}, false);
    llvm::Value* x = b.CreateLoad(b.getInt32Ty(), ex);
    // Python: frexp of 0, inf and nan is (x, 0).
    llvm::Value* regular = b.CreateAnd(
        b.CreateFCmpOLT(fl.intrinsic(llvm::Intrinsic::fabs, {a->getType()}, {a}), llvm::ConstantFP::getInfinity(a->getType())),
        b.CreateFCmpUNE(a, llvm::ConstantFP::get(a->getType(), 0.0)));
    first = b.CreateSelect(regular, first, a);
    second = b.CreateSelect(regular, x, b.getInt32(0));
    second = fl.scalar_cast(second, scalar_info{k::integer, 32, true}, scalar_of(t->elements[1]));
    first = fl.float_resize(first, bits);
  } else {
    llvm::AllocaInst* ip = fl.entry_alloca(a->getType(), "modf.int");
    b.CreateStore(llvm::ConstantFP::get(a->getType(), 0.0), ip);
    first = fl.call_math(fl.ms.tgt.math_symbol(op_id::modf, cb, false), a->getType(), {a, ip}, false);
    second = b.CreateLoad(a->getType(), ip);
    first = fl.float_resize(first, bits);
    second = fl.cast(fl.float_resize(second, bits), ft, t->elements[1]);
  }
  llvm::Value* r = llvm::PoisonValue::get(fl.ms.value_type(t));
  r = b.CreateInsertValue(r, first, 0);
  return b.CreateInsertValue(r, second, 1);
}

llvm::Value* lower_complex_make(const op_site& s) {
  function_lowering& fl = s.fl;
  const type* t = s.e.ty;
  s.need(2);
  if (!t->is_complex()) s.bad("typed " + t->str());
  scalar_info part{k::floating, t->bits / 2, true};
  llvm::Value* r = fl.scalar_cast(fl.expr(s.e.operands[0]), scalar_of(fl.type_of(s.e.operands[0])), part);
  llvm::Value* i = fl.scalar_cast(fl.expr(s.e.operands[1]), scalar_of(fl.type_of(s.e.operands[1])), part);
  return fl.cmake(r, i);
}

llvm::Value* lower_complex_part(const op_site& s) {
  function_lowering& fl = s.fl;
  const frontend::expr& e = s.e;
  const type* t = e.ty;
  s.need(1);
  const type* at = fl.type_of(e.operands[0]);
  llvm::Value* a = fl.expr(e.operands[0]);
  llvm::Value* r = nullptr;
  int bits = at->is_complex() ? at->bits / 2 : 0;
  if (at->is_complex()) {
    r = e.op == op_id::real   ? fl.re(a)
        : e.op == op_id::imag ? fl.im(a)
                              : fl.math(op_id::atan2, {fl.im(a), fl.re(a)}, bits);
  } else if (at->is_scalar()) {
    // A real number's real part is itself, its imaginary part 0, its phase atan2(0, x).
    llvm::Value* x = fl.scalar_cast(a, scalar_of(at), scalar_of(t));
    if (e.op == op_id::real) return x;
    llvm::Value* zero = llvm::Constant::getNullValue(x->getType());
    if (e.op == op_id::imag) return zero;
    bits = s.float_bits(t);
    return fl.math(op_id::atan2, {zero, x}, bits);
  } else {
    s.bad("of " + at->str());
  }
  return fl.scalar_cast(r, scalar_info{k::floating, bits, true}, scalar_of(t));
}

llvm::Value* lower_complex_fn(const op_site& s) {
  const type* t = s.e.ty;
  s.need(s.e.op == op_id::crect ? 2 : 1);
  if (!t->is_complex()) s.bad("typed " + t->str());
  std::vector<llvm::Value*> args;
  for (std::size_t i = 0; i < s.e.operands.size(); ++i) {
    const type* at = s.fl.type_of(s.e.operands[i]);
    if (s.e.op == op_id::crect ? !at->is_float() || at->bits < 32 : !at->is_complex()) s.bad("of " + at->str());
    args.push_back(s.operand(i, nullptr));
  }
  return s.fl.complex_op(s.e.op, args, t);
}

llvm::Value* lower_array(const op_site& s) { return s.fl.array_op(s.e); }
llvm::Value* lower_ufunc(const op_site& s) { return s.fl.ufunc_op(s.e); }

llvm::Value* lower_record(const op_site& s) { return s.fl.record_op(s.e); }

llvm::Value* lower_tuple_get(const op_site& s) {
  function_lowering& fl = s.fl;
  const frontend::expr& e = s.e;
  s.need(1);
  const type* at = fl.type_of(e.operands[0]);
  if (!(at->is_tuple() || at->is_vector()) || e.attrs.empty() || e.attrs[0] < 0 ||
      static_cast<std::size_t>(e.attrs[0]) >= at->elements.size())
    s.bad("of element " + (e.attrs.empty() ? std::string("?") : std::to_string(e.attrs[0])) + " of " + at->str());
  auto i = static_cast<unsigned>(e.attrs[0]);
  return fl.cast(fl.b.CreateExtractValue(fl.expr(e.operands[0]), i), at->elements[i], e.ty);
}

// An optional is {value, present}; None's value is its type's zero.
llvm::Value* lower_optional(const op_site& s) {
  function_lowering& fl = s.fl;
  const frontend::expr& e = s.e;
  auto& b = fl.b;
  switch (e.op) {
    case op_id::optional_some:
    case op_id::optional_none: {
      if (!e.ty->is_optional()) s.bad("typed " + e.ty->str());
      llvm::Value* v = llvm::Constant::getNullValue(fl.ms.value_type(e.ty));
      if (e.op == op_id::optional_none) {
        s.need(0);
        return v;
      }
      s.need(1);
      v = b.CreateInsertValue(v, s.operand(0, e.ty->dtype), 0);
      return b.CreateInsertValue(v, b.getTrue(), 1);
    }
    case op_id::optional_present:
    case op_id::optional_value: {
      s.need(1);
      const type* ot = fl.type_of(e.operands[0]);
      if (!ot->is_optional()) s.bad("of " + ot->str());
      llvm::Value* o = fl.expr(e.operands[0]);
      if (e.op == op_id::optional_value && !e.attrs.empty() && e.attrs[0] >= 0) {
        // Checked: None raises the TypeError of raise site attrs[0].
        auto* none_bb = llvm::BasicBlock::Create(fl.c_(), "optional.none", fl.fn);
        auto* ok = llvm::BasicBlock::Create(fl.c_(), "optional.ok", fl.fn);
        b.CreateCondBr(b.CreateExtractValue(o, 1), ok, none_bb);
        b.SetInsertPoint(none_bb);
        fl.raise_site_at(static_cast<std::int32_t>(e.attrs[0]), e.loc);
        b.SetInsertPoint(ok);
      }
      return b.CreateExtractValue(o, e.op == op_id::optional_present ? 1U : 0U);
    }
    default: s.bad("is not an optional op");
  }
}

// A divisor checked under debug=True: zero raises its site's ZeroDivisionError.
llvm::Value* lower_check(const op_site& s) {
  s.need(1);
  if (s.e.attrs.empty()) s.bad("without its raise site");
  auto& b = s.fl.b;
  const type* t = s.fl.type_of(s.e.operands[0]);
  llvm::Value* y = s.fl.expr(s.e.operands[0]);
  llvm::Value* zero = nullptr;
  if (t->is_complex()) {
    llvm::Value* re = b.CreateExtractValue(y, 0);
    llvm::Value* im = b.CreateExtractValue(y, 1);
    llvm::Constant* z = llvm::ConstantFP::get(re->getType(), 0.0);
    zero = b.CreateAnd(b.CreateFCmpOEQ(re, z), b.CreateFCmpOEQ(im, z));
  } else if (t->is_float()) {
    zero = b.CreateFCmpOEQ(y, llvm::ConstantFP::get(y->getType(), 0.0));
  } else if (t->is_int() || t->kind == type_kind::boolean) {
    zero = b.CreateIsNull(y);
  } else {
    s.bad("on " + t->str());
  }
  auto* raise_bb = llvm::BasicBlock::Create(s.fl.c_(), "divisor.zero", s.fl.fn);
  auto* ok = llvm::BasicBlock::Create(s.fl.c_(), "divisor.ok", s.fl.fn);
  b.CreateCondBr(zero, raise_bb, ok);
  b.SetInsertPoint(raise_bb);
  s.fl.raise_site_at(static_cast<std::int32_t>(s.e.attrs[0]), s.e.loc);
  b.SetInsertPoint(ok);
  return y;
}

llvm::Value* lower_call_device(const op_site& s) { return s.fl.call_device(s.e); }
llvm::Value* lower_call_external(const op_site& s) { return s.fl.call_external(s.e); }

// A kernel-side function of the intrinsic registry: its row lowers it, for
// every target or for this one.
llvm::Value* lower_intrinsic(const op_site& s) {
  const intrinsic& in = entry_of(s.e);
  const auto target = static_cast<std::size_t>(s.fl.ms.opts.target);
  intrinsic_lowering lower = in.lower != nullptr ? in.lower : in.lower_on[target];
  if (lower == nullptr)
    s.fl.fail_at(std::string(in.info.name) + " has no lowering for the " +
                     std::string(to_string(s.fl.ms.opts.target)) + " target",
                 s.e.loc);
  return lower(s.fl, in, s.e);
}

// Indexed by op_id: each op's group function (ops.hpp's second column).
constexpr op_lowering op_lowerings[] = {
#define CUFORGE_OP_LOWERING(name, group) &lower_##group,
    CUFORGE_FRONTEND_OPS(CUFORGE_OP_LOWERING)
#undef CUFORGE_OP_LOWERING
};

}  // namespace

llvm::Value* function_lowering::op(const frontend::expr& e) {
  const auto i = static_cast<std::size_t>(e.op);
  if (i >= std::size(op_lowerings)) fail_at("unknown op " + std::to_string(i), e.loc);
  return op_lowerings[i](op_site{*this, e});
}

// --- arithmetic --------------------------------------------------------------------------

llvm::Value* function_lowering::arith(op_id op, llvm::Value* a, llvm::Value* y, scalar_info s) {
  switch (s.k) {
    case k::floating: {
      if (s.bits == 16) {  // cuda_fp16.h's + - * /; the rest in float, rounded back
        if (llvm::Value* r = half_arith(op, a, y)) return r;
        return float_resize(arith(op, float_resize(a, 32), float_resize(y, 32), scalar_info{k::floating, 32, true}), 16);
      }
      switch (op) {
        case op_id::add: return b.CreateFAdd(a, y);
        case op_id::sub: return b.CreateFSub(a, y);
        case op_id::mul: return b.CreateFMul(a, y);
        case op_id::div: return b.CreateFDiv(a, y);
        case op_id::floordiv: case op_id::mod: return float_divmod(op, a, y, s.bits);
        case op_id::pow: return math(op_id::fpow, {a, y}, s.bits);
        case op_id::min: return b.CreateSelect(b.CreateFCmpOLT(y, a), y, a);
        case op_id::max: return b.CreateSelect(b.CreateFCmpOGT(y, a), y, a);
        default: break;
      }
      break;
    }
    case k::boolean: case k::integer: {
      const bool sgn = s.k == k::integer && s.is_signed;
      switch (op) {
        case op_id::add: return b.CreateAdd(a, y);
        case op_id::sub: return b.CreateSub(a, y);
        case op_id::mul: return b.CreateMul(a, y);
        case op_id::floordiv: case op_id::mod: return int_divmod(op, a, y, sgn);
        case op_id::pow: return ipow(a, y, sgn);
        case op_id::bit_and: return b.CreateAnd(a, y);
        case op_id::bit_or: return b.CreateOr(a, y);
        case op_id::bit_xor: return b.CreateXor(a, y);
        case op_id::shl: case op_id::shr: return shift(op, a, y, sgn);
        case op_id::min: return b.CreateSelect(sgn ? b.CreateICmpSLT(y, a) : b.CreateICmpULT(y, a), y, a);
        case op_id::max: return b.CreateSelect(sgn ? b.CreateICmpSGT(y, a) : b.CreateICmpUGT(y, a), y, a);
        default: break;
      }
      break;
    }
    case k::complex:
      switch (op) {
        case op_id::add: return cmake(b.CreateFAdd(re(a), re(y)), b.CreateFAdd(im(a), im(y)));
        case op_id::sub: return cmake(b.CreateFSub(re(a), re(y)), b.CreateFSub(im(a), im(y)));
        case op_id::mul: return cmul(a, y);
        case op_id::div: return cdiv(a, y);
        case op_id::pow: return cpow(a, y, s.bits);
        default: break;
      }
      break;
  }
  fail(std::string(to_string(op)) + " is not defined on this type (in " + f.name + ")");
}

// Python's // and % on integers (floor, the sign of the divisor); x // 0 and
// x % 0 are 0 and MIN // -1 wraps, with no trap on any target.
llvm::Value* function_lowering::int_divmod(op_id op, llvm::Value* a, llvm::Value* y, bool is_signed) {
  llvm::Type* it = a->getType();
  llvm::Value* zero = llvm::ConstantInt::get(it, 0);
  llvm::Value* one = llvm::ConstantInt::get(it, 1);
  llvm::Value* by_zero = b.CreateICmpEQ(y, zero);
  if (!is_signed) {
    llvm::Value* safe = b.CreateSelect(by_zero, one, y);
    llvm::Value* r = op == op_id::floordiv ? b.CreateUDiv(a, safe) : b.CreateURem(a, safe);
    return b.CreateSelect(by_zero, zero, r);
  }
  llvm::Value* by_minus_one = b.CreateICmpEQ(y, llvm::ConstantInt::getSigned(it, -1));
  llvm::Value* safe = b.CreateSelect(b.CreateOr(by_zero, by_minus_one), one, y);
  llvm::Value* q = b.CreateSDiv(a, safe);
  llvm::Value* r = b.CreateSRem(a, safe);
  // C truncates; Python floors: adjust when the remainder's sign differs from the divisor's.
  llvm::Value* adjust = b.CreateAnd(b.CreateICmpNE(r, zero), b.CreateICmpSLT(b.CreateXor(r, safe), zero));
  if (op == op_id::floordiv) {
    q = b.CreateSelect(adjust, b.CreateSub(q, one), q);
    q = b.CreateSelect(by_minus_one, b.CreateSub(zero, a), q);
    return b.CreateSelect(by_zero, zero, q);
  }
  r = b.CreateSelect(adjust, b.CreateAdd(r, safe), r);
  return b.CreateSelect(b.CreateOr(by_zero, by_minus_one), zero, r);
}

// Python's float // and % (CPython's float_divmod), with NumPy's results
// for a zero divisor: x // 0.0 is x / 0.0 and x % 0.0 is nan.
llvm::Value* function_lowering::float_divmod(op_id op, llvm::Value* a, llvm::Value* y, int bits) {
  llvm::Type* ft = a->getType();
  auto F = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  llvm::Value* mod = math(op_id::fmod, {a, y}, bits);
  llvm::Value* by_zero = b.CreateFCmpOEQ(y, F(0.0));
  if (op == op_id::mod) {
    llvm::Value* nonzero = b.CreateFCmpUNE(mod, F(0.0));
    llvm::Value* adjust = b.CreateAnd(nonzero, b.CreateXor(b.CreateFCmpOLT(y, F(0.0)), b.CreateFCmpOLT(mod, F(0.0))));
    llvm::Value* m = b.CreateSelect(adjust, b.CreateFAdd(mod, y), mod);
    m = b.CreateSelect(nonzero, m, math(op_id::copysign, {F(0.0), y}, bits));
    return b.CreateSelect(by_zero, mod, m);
  }
  llvm::Value* div = b.CreateFDiv(b.CreateFSub(a, mod), y);
  llvm::Value* nonzero = b.CreateFCmpUNE(mod, F(0.0));
  llvm::Value* adjust = b.CreateAnd(nonzero, b.CreateXor(b.CreateFCmpOLT(y, F(0.0)), b.CreateFCmpOLT(mod, F(0.0))));
  div = b.CreateSelect(adjust, b.CreateFSub(div, F(1.0)), div);
  llvm::Value* fl = math(op_id::floor, {div}, bits);
  fl = b.CreateSelect(b.CreateFCmpOGT(b.CreateFSub(div, fl), F(0.5)), b.CreateFAdd(fl, F(1.0)), fl);
  llvm::Value* quotient = b.CreateFDiv(a, y);
  llvm::Value* r = b.CreateSelect(b.CreateFCmpUNE(div, F(0.0)), fl, math(op_id::copysign, {F(0.0), quotient}, bits));
  return b.CreateSelect(by_zero, quotient, r);
}

// NumPy's shifts: a shift by the width or more (or negative) gives 0, or -1
// for an arithmetic right shift of a negative number.
llvm::Value* function_lowering::shift(op_id op, llvm::Value* a, llvm::Value* y, bool is_signed) {
  llvm::Type* it = a->getType();
  llvm::Value* zero = llvm::ConstantInt::get(it, 0);
  llvm::Value* in_range = b.CreateICmpULT(y, llvm::ConstantInt::get(it, it->getIntegerBitWidth()));
  llvm::Value* safe = b.CreateSelect(in_range, y, zero);
  if (op == op_id::shl) return b.CreateSelect(in_range, b.CreateShl(a, safe), zero);
  if (!is_signed) return b.CreateSelect(in_range, b.CreateLShr(a, safe), zero);
  llvm::Value* fill = b.CreateSelect(b.CreateICmpSLT(a, zero), llvm::ConstantInt::getSigned(it, -1), zero);
  return b.CreateSelect(in_range, b.CreateAShr(a, safe), fill);
}

// int ** int by squaring; a negative exponent gives 0 unless the base is +-1.
llvm::Value* function_lowering::ipow(llvm::Value* a, llvm::Value* y, bool is_signed) {
  llvm::Type* it = a->getType();
  std::string name = std::string("cuforge_ipow_") + (is_signed ? "i" : "u") + std::to_string(it->getIntegerBitWidth());
  llvm::Function* h = ms.helper(name);
  if (h == nullptr) {
    h = new_helper(*this, name, it, {it, it});
    helper_scope scope(*this, h);
    llvm::Value* base = h->getArg(0);
    llvm::Value* ex = h->getArg(1);
    llvm::Value* zero = llvm::ConstantInt::get(it, 0);
    llvm::Value* one = llvm::ConstantInt::get(it, 1);
    llvm::Value* minus_one = llvm::ConstantInt::getSigned(it, -1);
    auto* pre = llvm::BasicBlock::Create(c_(), "pre", h);
    if (is_signed) {
      auto* neg = llvm::BasicBlock::Create(c_(), "negative", h);
      b.CreateCondBr(b.CreateICmpSLT(ex, zero), neg, pre);
      b.SetInsertPoint(neg);
      llvm::Value* odd = b.CreateTrunc(ex, b.getInt1Ty());
      llvm::Value* r = b.CreateSelect(b.CreateICmpEQ(base, minus_one), b.CreateSelect(odd, minus_one, one), zero);
      b.CreateRet(b.CreateSelect(b.CreateICmpEQ(base, one), one, r));
    } else {
      b.CreateBr(pre);
    }
    auto* loop = llvm::BasicBlock::Create(c_(), "loop", h);
    auto* body = llvm::BasicBlock::Create(c_(), "body", h);
    auto* done = llvm::BasicBlock::Create(c_(), "done", h);
    b.SetInsertPoint(pre);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    auto* r = b.CreatePHI(it, 2);
    auto* x = b.CreatePHI(it, 2);
    auto* m = b.CreatePHI(it, 2);
    b.CreateCondBr(b.CreateICmpEQ(m, zero), done, body);
    b.SetInsertPoint(body);
    llvm::Value* r2 = b.CreateSelect(b.CreateTrunc(m, b.getInt1Ty()), b.CreateMul(r, x), r);
    llvm::Value* x2 = b.CreateMul(x, x);
    llvm::Value* m2 = b.CreateLShr(m, one);
    b.CreateBr(loop);
    r->addIncoming(one, pre);
    r->addIncoming(r2, body);
    x->addIncoming(base, pre);
    x->addIncoming(x2, body);
    m->addIncoming(ex, pre);
    m->addIncoming(m2, body);
    b.SetInsertPoint(done);
    b.CreateRet(r);
  }
  return b.CreateCall(h, {a, y});
}

// x ** n for an int64 n by squaring (compiler-rt's __powidf2, which NVPTX
// cannot call).
llvm::Value* function_lowering::powi(llvm::Value* a, llvm::Value* n) {
  llvm::Type* ft = a->getType();
  std::string name = "cuforge_powi_f" + std::to_string(ft->getPrimitiveSizeInBits().getFixedValue());
  llvm::Function* h = ms.helper(name);
  if (h == nullptr) {
    auto* i64 = b.getInt64Ty();
    h = new_helper(*this, name, ft, {ft, i64});
    helper_scope scope(*this, h);
    llvm::Value* base = h->getArg(0);
    llvm::Value* ex = h->getArg(1);
    llvm::Value* zero = b.getInt64(0);
    llvm::Value* negative = b.CreateICmpSLT(ex, zero);
    llvm::Value* magnitude = b.CreateSelect(negative, b.CreateSub(zero, ex), ex);
    llvm::BasicBlock* pre = b.GetInsertBlock();
    auto* loop = llvm::BasicBlock::Create(c_(), "loop", h);
    auto* body = llvm::BasicBlock::Create(c_(), "body", h);
    auto* done = llvm::BasicBlock::Create(c_(), "done", h);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    auto* r = b.CreatePHI(ft, 2);
    auto* x = b.CreatePHI(ft, 2);
    auto* m = b.CreatePHI(i64, 2);
    b.CreateCondBr(b.CreateICmpEQ(m, zero), done, body);
    b.SetInsertPoint(body);
    llvm::Value* r2 = b.CreateSelect(b.CreateTrunc(m, b.getInt1Ty()), b.CreateFMul(r, x), r);
    llvm::Value* x2 = b.CreateFMul(x, x);
    llvm::Value* m2 = b.CreateLShr(m, b.getInt64(1));
    b.CreateBr(loop);
    llvm::Value* fone = llvm::ConstantFP::get(ft, 1.0);
    r->addIncoming(fone, pre);
    r->addIncoming(r2, body);
    x->addIncoming(base, pre);
    x->addIncoming(x2, body);
    m->addIncoming(magnitude, pre);
    m->addIncoming(m2, body);
    b.SetInsertPoint(done);
    b.CreateRet(b.CreateSelect(negative, b.CreateFDiv(fone, r), r));
  }
  return b.CreateCall(h, {a, n});
}

// --- comparisons -------------------------------------------------------------------------

llvm::Value* function_lowering::compare(op_id op, llvm::Value* a, llvm::Value* y, const type* t) {
  if (t->kind == type_kind::none) return b.getInt1(op == op_id::eq || op == op_id::le || op == op_id::ge);
  if (t->is_tuple() && (op == op_id::eq || op == op_id::ne)) {
    llvm::Value* all = b.getTrue();
    for (unsigned i = 0; i < t->elements.size(); ++i)
      all = b.CreateAnd(all, compare(op_id::eq, b.CreateExtractValue(a, i), b.CreateExtractValue(y, i), t->elements[i]));
    return op == op_id::eq ? all : b.CreateNot(all);
  }
  if (!t->is_scalar()) fail(std::string(to_string(op)) + " of " + t->str() + " (in " + f.name + ")");
  scalar_info s = scalar_of(t);
  switch (s.k) {
    case k::boolean: case k::integer: {
      const bool sgn = s.k == k::integer && s.is_signed;
      switch (op) {
        case op_id::eq: return b.CreateICmpEQ(a, y);
        case op_id::ne: return b.CreateICmpNE(a, y);
        case op_id::lt: return sgn ? b.CreateICmpSLT(a, y) : b.CreateICmpULT(a, y);
        case op_id::le: return sgn ? b.CreateICmpSLE(a, y) : b.CreateICmpULE(a, y);
        case op_id::gt: return sgn ? b.CreateICmpSGT(a, y) : b.CreateICmpUGT(a, y);
        case op_id::ge: return sgn ? b.CreateICmpSGE(a, y) : b.CreateICmpUGE(a, y);
        default: break;
      }
      break;
    }
    case k::floating: {
      switch (op) {  // on halves too: setp.f16 on the GPU
        case op_id::eq: return b.CreateFCmpOEQ(a, y);
        case op_id::ne: return b.CreateFCmpUNE(a, y);
        case op_id::lt: return b.CreateFCmpOLT(a, y);
        case op_id::le: return b.CreateFCmpOLE(a, y);
        case op_id::gt: return b.CreateFCmpOGT(a, y);
        case op_id::ge: return b.CreateFCmpOGE(a, y);
        default: break;
      }
      break;
    }
    case k::complex:
      if (op == op_id::eq) return b.CreateAnd(b.CreateFCmpOEQ(re(a), re(y)), b.CreateFCmpOEQ(im(a), im(y)));
      if (op == op_id::ne) return b.CreateOr(b.CreateFCmpUNE(re(a), re(y)), b.CreateFCmpUNE(im(a), im(y)));
      break;
  }
  fail(std::string(to_string(op)) + " of " + t->str() + " (in " + f.name + ")");
}

// --- math --------------------------------------------------------------------------------

llvm::Value* function_lowering::math(op_id op, const std::vector<llvm::Value*>& args, int bits) {
  if (bits == 16) {  // cuda_fp16.h's function where it has one, else in float, rounded back
    if (llvm::Value* r = half_math(op, args)) return r;
    std::vector<llvm::Value*> wide;
    for (auto* a : args) wide.push_back(a->getType()->isHalfTy() ? float_resize(a, 32) : a);
    return float_resize(math(op, wide, 32), 16);
  }
  llvm::Type* ft = ms.float_type(bits);
  for (auto* a : args)
    if (a->getType()->isFloatingPointTy() && a->getType() != ft) fail("math operand of the wrong width (in " + f.name + ")");
  if (op == op_id::sqrt && ms.opts.fastmath)
    if (std::string approx = ms.tgt.math_symbol(op, bits, true); !approx.empty()) return call_math(approx, ft, args, true);
  // What every target lowers natively goes through LLVM's intrinsics.
  switch (op) {
    case op_id::sqrt: return intrinsic(llvm::Intrinsic::sqrt, {ft}, args);
    case op_id::fabs: return intrinsic(llvm::Intrinsic::fabs, {ft}, args);
    case op_id::floor: return intrinsic(llvm::Intrinsic::floor, {ft}, args);
    case op_id::ceil: return intrinsic(llvm::Intrinsic::ceil, {ft}, args);
    case op_id::trunc: return intrinsic(llvm::Intrinsic::trunc, {ft}, args);
    case op_id::rint: return intrinsic(llvm::Intrinsic::rint, {ft}, args);
    case op_id::copysign: return intrinsic(llvm::Intrinsic::copysign, {ft}, args);
    case op_id::fma: return intrinsic(llvm::Intrinsic::fma, {ft}, args);
    case op_id::fmin: return intrinsic(llvm::Intrinsic::minnum, {ft}, args);
    case op_id::fmax: return intrinsic(llvm::Intrinsic::maxnum, {ft}, args);
    default: break;
  }
  return call_math(ms.tgt.math_symbol(op, bits, ms.opts.fastmath), ft, args, true);
}

// --- complex -----------------------------------------------------------------------------

llvm::Value* function_lowering::cmul(llvm::Value* x, llvm::Value* y) {
  llvm::Value *a = re(x), *bb = im(x), *c = re(y), *d = im(y);
  return cmake(b.CreateFSub(b.CreateFMul(a, c), b.CreateFMul(bb, d)), b.CreateFAdd(b.CreateFMul(a, d), b.CreateFMul(bb, c)));
}

// NumPy's complex division (Smith's method; a zero divisor gives inf/nan).
llvm::Value* function_lowering::cdiv(llvm::Value* x, llvm::Value* y) {
  llvm::Value *ar = re(x), *ai = im(x), *br = re(y), *bi = im(y);
  llvm::Type* ft = ar->getType();
  auto F = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  llvm::Value* abr = intrinsic(llvm::Intrinsic::fabs, {ft}, {br});
  llvm::Value* abi = intrinsic(llvm::Intrinsic::fabs, {ft}, {bi});
  llvm::Value* real_big = b.CreateFCmpOGE(abr, abi);
  llvm::Value* both_zero = b.CreateAnd(b.CreateFCmpOEQ(abr, F(0.0)), b.CreateFCmpOEQ(abi, F(0.0)));
  llvm::Value* rat1 = b.CreateFDiv(bi, br);
  llvm::Value* scl1 = b.CreateFDiv(F(1.0), b.CreateFAdd(br, b.CreateFMul(bi, rat1)));
  llvm::Value* re1 = b.CreateFMul(b.CreateFAdd(ar, b.CreateFMul(ai, rat1)), scl1);
  llvm::Value* im1 = b.CreateFMul(b.CreateFSub(ai, b.CreateFMul(ar, rat1)), scl1);
  llvm::Value* rez = b.CreateFDiv(ar, abr);
  llvm::Value* imz = b.CreateFDiv(ai, abr);
  llvm::Value* rat2 = b.CreateFDiv(br, bi);
  llvm::Value* scl2 = b.CreateFDiv(F(1.0), b.CreateFAdd(bi, b.CreateFMul(br, rat2)));
  llvm::Value* re2 = b.CreateFMul(b.CreateFAdd(b.CreateFMul(ar, rat2), ai), scl2);
  llvm::Value* im2 = b.CreateFMul(b.CreateFSub(b.CreateFMul(ai, rat2), ar), scl2);
  llvm::Value* r = b.CreateSelect(real_big, b.CreateSelect(both_zero, rez, re1), re2);
  llvm::Value* i = b.CreateSelect(real_big, b.CreateSelect(both_zero, imz, im1), im2);
  return cmake(r, i);
}

// NumPy's complex power (npy_cpow): 1 for a zero exponent, 0 or nan for a
// zero base, repeated multiplication for integer exponents below 100 in
// magnitude, exp(b log a) otherwise.
llvm::Value* function_lowering::cpow(llvm::Value* a, llvm::Value* y, int bits) {
  std::string name = "cuforge_cpow_c" + std::to_string(2 * bits);
  llvm::Function* h = ms.helper(name);
  if (h == nullptr) {
    llvm::Type* zt = a->getType();
    llvm::Type* ft = ms.float_type(bits);
    h = new_helper(*this, name, zt, {zt, zt});
    helper_scope scope(*this, h);
    auto F = [&](double v) { return llvm::ConstantFP::get(ft, v); };
    llvm::Value* za = h->getArg(0);
    llvm::Value* zb = h->getArg(1);
    llvm::Value *ar = re(za), *ai = im(za), *br = re(zb), *bi = im(zb);
    auto* b_zero = llvm::BasicBlock::Create(c_(), "b_zero", h);
    auto* test_a = llvm::BasicBlock::Create(c_(), "test_a", h);
    auto* a_zero = llvm::BasicBlock::Create(c_(), "a_zero", h);
    auto* test_int = llvm::BasicBlock::Create(c_(), "test_int", h);
    auto* small_int = llvm::BasicBlock::Create(c_(), "small_int", h);
    auto* loop = llvm::BasicBlock::Create(c_(), "loop", h);
    auto* mult = llvm::BasicBlock::Create(c_(), "mult", h);
    auto* next = llvm::BasicBlock::Create(c_(), "next", h);
    auto* square = llvm::BasicBlock::Create(c_(), "square", h);
    auto* loop_done = llvm::BasicBlock::Create(c_(), "loop_done", h);
    auto* general = llvm::BasicBlock::Create(c_(), "general", h);
    b.CreateCondBr(b.CreateAnd(b.CreateFCmpOEQ(br, F(0.0)), b.CreateFCmpOEQ(bi, F(0.0))), b_zero, test_a);
    b.SetInsertPoint(b_zero);
    b.CreateRet(cmake(F(1.0), F(0.0)));
    b.SetInsertPoint(test_a);
    b.CreateCondBr(b.CreateAnd(b.CreateFCmpOEQ(ar, F(0.0)), b.CreateFCmpOEQ(ai, F(0.0))), a_zero, test_int);
    b.SetInsertPoint(a_zero);
    llvm::Value* nan = llvm::ConstantFP::getNaN(ft);
    llvm::Value* positive = b.CreateFCmpOGT(br, F(0.0));
    b.CreateRet(cmake(b.CreateSelect(positive, F(0.0), nan), b.CreateSelect(positive, F(0.0), nan)));
    b.SetInsertPoint(test_int);
    llvm::Value* integral = b.CreateAnd(
        b.CreateAnd(b.CreateFCmpOEQ(bi, F(0.0)), b.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, {ft}, {br}), F(100.0))),
        b.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::floor, {ft}, {br}), br));
    b.CreateCondBr(integral, small_int, general);
    // Integer exponent: n = 1, 2, 3 unrolled as NumPy does (better with infinities), else by squaring.
    b.SetInsertPoint(small_int);
    llvm::Value* nn = b.CreateFPToSI(br, b.getInt32Ty());
    auto* n1 = llvm::BasicBlock::Create(c_(), "n1", h);
    auto* n2 = llvm::BasicBlock::Create(c_(), "n2", h);
    auto* n3 = llvm::BasicBlock::Create(c_(), "n3", h);
    auto* sw = b.CreateSwitch(nn, loop, 3);
    sw->addCase(b.getInt32(1), n1);
    sw->addCase(b.getInt32(2), n2);
    sw->addCase(b.getInt32(3), n3);
    b.SetInsertPoint(n1);
    b.CreateRet(za);
    b.SetInsertPoint(n2);
    b.CreateRet(cmul(za, za));
    b.SetInsertPoint(n3);
    b.CreateRet(cmul(za, cmul(za, za)));
    b.SetInsertPoint(loop);
    llvm::Value* mag = b.CreateSelect(b.CreateICmpSLT(nn, b.getInt32(0)), b.CreateNeg(nn), nn);
    llvm::BasicBlock* loop_entry = loop;
    auto* head = llvm::BasicBlock::Create(c_(), "head", h, mult);
    b.CreateBr(head);
    b.SetInsertPoint(head);
    auto* acc = b.CreatePHI(zt, 2);
    auto* p = b.CreatePHI(zt, 2);
    auto* mask = b.CreatePHI(b.getInt32Ty(), 2);
    b.CreateCondBr(b.CreateICmpNE(b.CreateAnd(mag, mask), b.getInt32(0)), mult, next);
    b.SetInsertPoint(mult);
    llvm::Value* acc_mul = cmul(acc, p);
    b.CreateBr(next);
    b.SetInsertPoint(next);
    auto* acc2 = b.CreatePHI(zt, 2);
    acc2->addIncoming(acc, head);
    acc2->addIncoming(acc_mul, mult);
    llvm::Value* mask2 = b.CreateShl(mask, b.getInt32(1));
    b.CreateCondBr(b.CreateICmpSLT(mag, mask2), loop_done, square);
    b.SetInsertPoint(square);
    llvm::Value* p2 = cmul(p, p);
    b.CreateBr(head);
    acc->addIncoming(cmake(F(1.0), F(0.0)), loop_entry);
    acc->addIncoming(acc2, square);
    p->addIncoming(za, loop_entry);
    p->addIncoming(p2, square);
    mask->addIncoming(b.getInt32(1), loop_entry);
    mask->addIncoming(mask2, square);
    b.SetInsertPoint(loop_done);
    llvm::Value* inverse = cdiv(cmake(F(1.0), F(0.0)), acc2);
    llvm::Value* neg = b.CreateFCmpOLT(br, F(0.0));
    b.CreateRet(cmake(b.CreateSelect(neg, re(inverse), re(acc2)), b.CreateSelect(neg, im(inverse), im(acc2))));
    // exp(b * log(a)).
    b.SetInsertPoint(general);
    llvm::Value* log_a = cmake(math(op_id::log, {math(op_id::hypot, {ar, ai}, bits)}, bits), math(op_id::atan2, {ai, ar}, bits));
    llvm::Value* t = cmul(zb, log_a);
    llvm::Value* mag_r = math(op_id::exp, {re(t)}, bits);
    b.CreateRet(cmake(b.CreateFMul(mag_r, math(op_id::cos, {im(t)}, bits)), b.CreateFMul(mag_r, math(op_id::sin, {im(t)}, bits))));
  }
  return b.CreateCall(h, {a, y});
}

// --- device calls --------------------------------------------------------------------------

llvm::Value* function_lowering::call_device(const frontend::expr& e) {
  // Index 0 is the entry: a device function entry may call itself.
  if (e.attrs.empty() || e.attrs[0] < 0 || (e.attrs[0] == 0 && ms.tm.functions[0].is_kernel) ||
      static_cast<std::size_t>(e.attrs[0]) >= ms.tm.functions.size())
    fail_at("call_device to function " + (e.attrs.empty() ? std::string("?") : std::to_string(e.attrs[0])) +
                " of a module of " + std::to_string(ms.tm.functions.size()),
            e.loc);
  auto callee_index = static_cast<std::size_t>(e.attrs[0]);
  const typed_function& callee = ms.tm.functions[callee_index];
  if (e.operands.size() != callee.arg_types.size())
    fail_at("call to " + callee.ir->name + " with " + std::to_string(e.operands.size()) + " arguments for " +
                std::to_string(callee.arg_types.size()),
            e.loc);
  std::vector<llvm::Value*> args;
  if (ms.tgt.takes_context()) args.push_back(ctx != nullptr ? ctx : llvm::ConstantPointerNull::get(llvm::PointerType::get(c_(), 0)));
  for (std::size_t i = 0; i < e.operands.size(); ++i)
    args.push_back(cast(expr(e.operands[i]), type_of(e.operands[i]), callee.arg_types[i]));
  if (ms.tm.may_raise()) args.push_back(error_record);  // the launch's error record, passed along
  llvm::Value* r = b.CreateCall(ms.fns[callee_index], args);
  if (ms.fns[callee_index]->getReturnType()->isVoidTy()) return ms.none_value();
  return cast(r, callee.return_type, e.ty);
}

llvm::Value* function_lowering::call_external(const frontend::expr& e) {
  if (e.attrs.empty() || e.attrs[0] < 0 || static_cast<std::size_t>(e.attrs[0]) >= ms.tm.externals.size())
    fail_at("call_external to a function the module does not declare", e.loc);
  const type* f = ms.tm.externals[static_cast<std::size_t>(e.attrs[0])];
  if (e.operands.size() != f->elements.size()) fail_at("call to " + f->name + " with the wrong count of arguments", e.loc);
  if (f->bits >= 2) return call_intrinsic_body(e, *f);
  const bool c_abi = f->bits == 1;
  const type* rt = f->dtype;
  const bool returns = rt != nullptr && rt->kind != type_kind::none;
  auto* generic = llvm::PointerType::get(c_(), 0);
  auto as_generic = [&](llvm::Value* p) {
    return p->getType()->getPointerAddressSpace() == 0 ? p : b.CreateAddrSpaceCast(p, generic);
  };
  std::vector<llvm::Type*> params;
  std::vector<llvm::Value*> args;
  llvm::AllocaInst* slot = nullptr;
  if (!c_abi) {  // where the function stores its result
    slot = entry_alloca(returns ? ms.memory_type(rt) : llvm::Type::getInt64Ty(c_()), f->name + ".ret");
    params.push_back(generic);
    args.push_back(as_generic(slot));
  }
  for (std::size_t i = 0; i < e.operands.size(); ++i) {
    const type* p = f->elements[i];
    if (p->kind == type_kind::pointer) {
      array_parts parts = unpack(expr(e.operands[i]), type_of(e.operands[i]));
      params.push_back(generic);
      args.push_back(as_generic(parts.data));
      continue;
    }
    llvm::Value* v = cast(expr(e.operands[i]), type_of(e.operands[i]), p);
    if (p->kind == type_kind::boolean) v = b.CreateZExt(v, b.getInt8Ty());
    params.push_back(ms.memory_type(p));
    args.push_back(v);
  }
  llvm::Type* ret = c_abi ? (returns ? ms.memory_type(rt) : llvm::Type::getVoidTy(c_())) : llvm::Type::getInt32Ty(c_());
  auto* fty = llvm::FunctionType::get(ret, params, false);
  llvm::Function* callee = ms.mod.getFunction(f->name);
  if (callee == nullptr) {
    callee = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, f->name, ms.mod);
    callee->addFnAttr(llvm::Attribute::NoUnwind);
  } else if (callee->getFunctionType() != fty) {
    fail_at("the declared function " + f->name + " clashes with another symbol of that name in the module", e.loc);
  }
  llvm::CallInst* call = b.CreateCall(callee, args);
  if (!returns) return ms.none_value();
  llvm::Value* r = c_abi ? static_cast<llvm::Value*>(call) : b.CreateLoad(ms.memory_type(rt), slot);
  if (rt->kind == type_kind::boolean) r = b.CreateICmpNE(r, llvm::ConstantInt::get(r->getType(), 0));
  return cast(r, rt, e.ty);
}

// An intrinsic of cuda.extending: its host implementation on the host target (a device function of
// the module), else its body: inline PTX (NVPTX only) or an LLVM IR module defining the function.
llvm::Value* function_lowering::call_intrinsic_body(const frontend::expr& e, const type& f) {
  const bool nvptx = ms.opts.target == target_kind::nvptx;
  const std::int64_t host = e.attrs.size() > 1 ? e.attrs[1] : -1;
  if (!nvptx && host >= 0) {
    frontend::expr call = e;
    call.attrs = {host};
    return call_device(call);
  }
  const type* rt = f.dtype;
  const bool returns = rt != nullptr && rt->kind != type_kind::none;
  std::vector<llvm::Value*> args;
  std::vector<llvm::Type*> params;
  for (std::size_t i = 0; i < e.operands.size(); ++i) {
    llvm::Value* v = cast(expr(e.operands[i]), type_of(e.operands[i]), f.elements[i]);
    if (f.elements[i]->kind == type_kind::boolean) v = b.CreateZExt(v, b.getInt8Ty());
    args.push_back(v);
    params.push_back(v->getType());
  }
  llvm::Type* ret = returns ? ms.memory_type(rt) : llvm::Type::getVoidTy(c_());
  llvm::Value* r = nullptr;
  if (f.bits == 2) {
    if (!nvptx)
      fail_at("the intrinsic " + f.name + " is inline PTX, which only a GPU runs, and has no host implementation "
              "(cuda.extending.intrinsic(host=...))", e.loc);
    // Constraints by type: $0 the result (when there is one), then the arguments.
    auto letter = [&](llvm::Type* t) -> std::string {
      if (t->isFloatTy()) return "f";
      if (t->isDoubleTy()) return "d";
      if (t->isHalfTy() || t->isIntegerTy(16)) return "h";
      if (t->isIntegerTy(64)) return "l";
      if (t->isIntegerTy(8)) return "c";
      return "r";
    };
    std::string constraints;
    if (returns) constraints = "=" + letter(ret);
    for (llvm::Type* t : params) constraints += (constraints.empty() ? "" : ",") + letter(t);
    auto* fty = llvm::FunctionType::get(ret, params, false);
    if (llvm::Error err = llvm::InlineAsm::verify(fty, constraints))
      fail_at("the intrinsic " + f.name + ": " + llvm::toString(std::move(err)), e.loc);
    auto* asm_ = llvm::InlineAsm::get(fty, f.names.at(0), constraints, /*hasSideEffects=*/true);
    r = b.CreateCall(fty, asm_, args);
  } else {
    llvm::Function* fn = ms.mod.getFunction(f.name);
    if (fn == nullptr) {
      llvm::SMDiagnostic diag;
      std::unique_ptr<llvm::Module> body = llvm::parseAssemblyString(f.names.at(0), diag, c_());
      if (!body) {
        std::string text;
        llvm::raw_string_ostream os(text);
        diag.print(f.name.c_str(), os);
        fail_at("the intrinsic " + f.name + "'s LLVM IR does not parse: " + text, e.loc);
      }
      if (!body->getFunction(f.name) || body->getFunction(f.name)->isDeclaration())
        fail_at("the intrinsic " + f.name + "'s LLVM IR does not define @" + f.name, e.loc);
      body->setDataLayout(ms.mod.getDataLayout());
      body->setTargetTriple(ms.mod.getTargetTriple());
      if (llvm::Linker::linkModules(ms.mod, std::move(body)))
        fail_at("the intrinsic " + f.name + "'s LLVM IR does not link into the kernel's module", e.loc);
      fn = ms.mod.getFunction(f.name);
      fn->setLinkage(llvm::GlobalValue::InternalLinkage);
      fn->addFnAttr(llvm::Attribute::AlwaysInline);
    }
    if (fn->getFunctionType() != llvm::FunctionType::get(ret, params, false))
      fail_at("the intrinsic " + f.name + "'s LLVM function is " + [&] {
        std::string t;
        llvm::raw_string_ostream os(t);
        fn->getFunctionType()->print(os);
        return t;
      }() + ", not what its signature " + f.str() + " makes", e.loc);
    r = b.CreateCall(fn, args);
  }
  if (!returns) return ms.none_value();
  if (rt->kind == type_kind::boolean) r = b.CreateICmpNE(r, llvm::ConstantInt::get(r->getType(), 0));
  return cast(r, rt, e.ty);
}

}  // namespace cuforge::frontend::detail

// Expressions of the typed stage: constants, variables, tuples, conditionals,
// short-circuit and/or, casts (Python/NumPy conversion semantics), and the
// kernel's values rebuilt from their parameter slots.
#include "codegen_lower.hpp"

#include <algorithm>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <limits>

namespace cuforge::frontend::detail {

const type* function_lowering::type_of(expr_id id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= f.exprs.size()) fail("expression id " + std::to_string(id) + " out of range in " + f.name);
  return f.exprs[static_cast<std::size_t>(id)].ty;
}

llvm::Value* function_lowering::expr(expr_id id) {
  if (id < 0 || static_cast<std::size_t>(id) >= f.exprs.size())
    fail("expression id " + std::to_string(id) + " out of range in " + f.name);
  const frontend::expr& e = f.exprs[static_cast<std::size_t>(id)];
  if (e.ty == nullptr) fail_at("an expression has no type (the IR is not typed)", e.loc);
  switch (e.kind) {
    case expr_kind::constant: return constant(e.ty, e.value);
    case expr_kind::variable: {
      if (e.var < 0 || static_cast<std::size_t>(e.var) >= vars_.size() || vars_[static_cast<std::size_t>(e.var)] == nullptr)
        fail_at("use of a variable without a type", e.loc);
      const type* vt = f.vars[static_cast<std::size_t>(e.var)].ty;
      auto* slot = vars_[static_cast<std::size_t>(e.var)];
      llvm::Value* v = b.CreateLoad(slot->getAllocatedType(), var_address(e.var), f.vars[static_cast<std::size_t>(e.var)].name);
      return cast(v, vt, e.ty);
    }
    case expr_kind::tuple: {
      if (!e.ty->is_tuple() || e.ty->elements.size() != e.operands.size())
        fail_at("tuple expression whose type is " + e.ty->str(), e.loc);
      llvm::Value* t = llvm::PoisonValue::get(ms.value_type(e.ty));
      for (unsigned i = 0; i < e.operands.size(); ++i) {
        llvm::Value* v = cast(expr(e.operands[i]), type_of(e.operands[i]), e.ty->elements[i]);
        t = b.CreateInsertValue(t, v, i);
      }
      return t;
    }
    case expr_kind::conditional: return conditional(e);
    case expr_kind::logical: return logical(e);
    case expr_kind::cast:
      if (e.operands.size() != 1) fail_at("cast with " + std::to_string(e.operands.size()) + " operands", e.loc);
      return cast(expr(e.operands[0]), type_of(e.operands[0]), e.ty);
    case expr_kind::op: return op(e);
    default:
      fail_at("expression kind " + std::to_string(static_cast<int>(e.kind)) +
                  " belongs to the untyped stage (the typer rewrites it)",
              e.loc);
  }
}

llvm::Value* function_lowering::conditional(const frontend::expr& e) {
  if (e.operands.size() != 3) fail_at("conditional without three operands", e.loc);
  auto* then_bb = llvm::BasicBlock::Create(c_(), "cond.then", fn);
  auto* else_bb = llvm::BasicBlock::Create(c_(), "cond.else", fn);
  auto* merge = llvm::BasicBlock::Create(c_(), "cond.end", fn);
  branch_on(e.operands[0], then_bb, else_bb);
  b.SetInsertPoint(then_bb);
  llvm::Value* a = cast(expr(e.operands[1]), type_of(e.operands[1]), e.ty);
  llvm::BasicBlock* a_end = b.GetInsertBlock();
  b.CreateBr(merge);
  b.SetInsertPoint(else_bb);
  llvm::Value* z = cast(expr(e.operands[2]), type_of(e.operands[2]), e.ty);
  llvm::BasicBlock* z_end = b.GetInsertBlock();
  b.CreateBr(merge);
  b.SetInsertPoint(merge);
  auto* phi = b.CreatePHI(a->getType(), 2);
  phi->addIncoming(a, a_end);
  phi->addIncoming(z, z_end);
  return phi;
}

// Python's `and`/`or`: the left operand when it decides, else the right one.
llvm::Value* function_lowering::logical(const frontend::expr& e) {
  if (e.operands.size() != 2) fail_at("logical without two operands", e.loc);
  llvm::Value* l = cast(expr(e.operands[0]), type_of(e.operands[0]), e.ty);
  llvm::Value* t = truth(l, e.ty);
  llvm::BasicBlock* l_end = b.GetInsertBlock();
  auto* rhs = llvm::BasicBlock::Create(c_(), e.is_and ? "and.rhs" : "or.rhs", fn);
  auto* merge = llvm::BasicBlock::Create(c_(), e.is_and ? "and.end" : "or.end", fn);
  if (e.is_and)
    b.CreateCondBr(t, rhs, merge);
  else
    b.CreateCondBr(t, merge, rhs);
  b.SetInsertPoint(rhs);
  llvm::Value* r = cast(expr(e.operands[1]), type_of(e.operands[1]), e.ty);
  llvm::BasicBlock* r_end = b.GetInsertBlock();
  b.CreateBr(merge);
  b.SetInsertPoint(merge);
  auto* phi = b.CreatePHI(l->getType(), 2);
  phi->addIncoming(l, l_end);
  phi->addIncoming(r, r_end);
  return phi;
}

// A condition's truth as branches: `a and b`, `a or b` and `not a` branch on their operands'
// own truth (Python's meaning of `if a and b:`) instead of making the operand `and` returns and
// testing it. The loops' range checks (`if i < n and j < m:`) thus stay compares of their own,
// which LLVM unswitches and IRCE splits off (the cpu backend's thread loops vectorise
// without masks); on the GPU the branches are what the selects became anyway.
void function_lowering::branch_on(expr_id id, llvm::BasicBlock* yes, llvm::BasicBlock* no) {
  const frontend::expr& e = f.exprs.at(static_cast<std::size_t>(id));
  if (e.kind == expr_kind::logical && e.operands.size() == 2) {
    auto* rhs = llvm::BasicBlock::Create(c_(), e.is_and ? "and.rhs" : "or.rhs", fn);
    if (e.is_and)
      branch_on(e.operands[0], rhs, no);
    else
      branch_on(e.operands[0], yes, rhs);
    b.SetInsertPoint(rhs);
    branch_on(e.operands[1], yes, no);
    return;
  }
  if (e.kind == expr_kind::op && e.op == op_id::not_ && e.operands.size() == 1) {
    branch_on(e.operands[0], no, yes);
    return;
  }
  b.CreateCondBr(truth(expr(id), type_of(id)), yes, no);
}

llvm::Value* function_lowering::constant(const type* t, const constant_value& v) {
  using k = constant_value::kind;
  auto real = [&]() -> double {
    switch (v.k) {
      case k::boolean: return v.b ? 1.0 : 0.0;
      case k::integer: return static_cast<double>(v.i);
      case k::floating: return v.f;
      case k::complex: return v.c.real();
      case k::none: return 0.0;
    }
    return 0.0;
  };
  switch (t->kind) {
    case type_kind::none: return ms.none_value();
    case type_kind::boolean: {
      bool x = v.k == k::boolean ? v.b : v.k == k::integer ? v.i != 0 : v.k == k::complex ? v.c != 0.0 : real() != 0.0;
      return b.getInt1(x);
    }
    case type_kind::integer: {
      std::int64_t x = 0;
      if (v.k == k::integer) {
        x = v.i;
      } else if (v.k == k::boolean) {
        x = v.b ? 1 : 0;
      } else {
        double d = std::trunc(real());
        // Out of range and nan saturate, as float->int casts do at run time.
        if (std::isnan(d)) x = 0;
        else if (d >= 9223372036854775807.0) x = std::numeric_limits<std::int64_t>::max();
        else if (d <= -9223372036854775808.0) x = std::numeric_limits<std::int64_t>::min();
        else x = static_cast<std::int64_t>(d);
      }
      llvm::APInt bits(64, static_cast<std::uint64_t>(x), true);
      return llvm::ConstantInt::get(c_(), bits.trunc(static_cast<unsigned>(t->bits)));
    }
    case type_kind::floating: return llvm::ConstantFP::get(ms.float_type(t->bits), real());
    case type_kind::complex: {
      llvm::Type* ft = ms.float_type(t->bits / 2);
      double im = v.k == k::complex ? v.c.imag() : 0.0;
      return llvm::ConstantStruct::get(llvm::cast<llvm::StructType>(ms.value_type(t)),
                                       {llvm::ConstantFP::get(ft, real()), llvm::ConstantFP::get(ft, im)});
    }
    default: fail("a constant of type " + t->str());
  }
}

llvm::Value* function_lowering::truth(llvm::Value* v, const type* t) {
  if (t == nullptr) fail("truth of an untyped value");
  switch (t->kind) {
    case type_kind::boolean: return v;
    case type_kind::none: return b.getFalse();
    case type_kind::tuple: return b.getInt1(!t->elements.empty());
    case type_kind::integer: return b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    case type_kind::floating: {
      if (t->bits == 16) v = float_resize(v, 32);
      return b.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    }
    case type_kind::bfloat16: return b.CreateFCmpUNE(bf16_to_f32(v), llvm::ConstantFP::get(b.getFloatTy(), 0.0));
    case type_kind::complex: {
      llvm::Value* z = llvm::Constant::getNullValue(re(v)->getType());
      return b.CreateOr(b.CreateFCmpUNE(re(v), z), b.CreateFCmpUNE(im(v), z));
    }
    default: fail("the truth of a value of type " + t->str());
  }
}

llvm::Value* function_lowering::float_resize(llvm::Value* v, int to_bits) {
  llvm::Type* to = ms.float_type(to_bits);
  unsigned from_bits = v->getType()->getPrimitiveSizeInBits().getFixedValue();
  if (from_bits == static_cast<unsigned>(to_bits)) return v;
  return from_bits < static_cast<unsigned>(to_bits) ? b.CreateFPExt(v, to) : b.CreateFPTrunc(v, to);
}

// float -> int as numba-cuda's fptosi/fptoui run on the GPU (cvt.rzi): toward zero, saturating at the
// width of the register the conversion has (16 bits at least: 8-bit results are the 16-bit one
// truncated, so int8(300.0) is 44 and uint8(-1.0) is 0), nan giving the sign bit at 64 bits and
// at 32 from a float64, else 0. The target spells the conversion (target::float_to_int); the same
// values on every target.
llvm::Value* function_lowering::float_to_int(llvm::Value* v, int bits, bool is_signed) {
  if (v->getType()->isHalfTy()) v = float_resize(v, 32);
  unsigned wide = static_cast<unsigned>(std::max(bits, 16));
  llvm::Value* r = ms.tgt.float_to_int(*this, v, wide, is_signed);
  return bits < 16 ? b.CreateTrunc(r, b.getIntNTy(static_cast<unsigned>(bits))) : r;
}

llvm::Value* function_lowering::int_to_float(llvm::Value* v, bool is_signed, int to_bits) {
  // Through float for half: every integer that rounds to a finite half is exact in float.
  if (to_bits == 16) return float_resize(int_to_float(v, is_signed, 32), 16);
  llvm::Type* to = ms.float_type(to_bits);
  return is_signed ? b.CreateSIToFP(v, to) : b.CreateUIToFP(v, to);
}

llvm::Value* function_lowering::scalar_cast(llvm::Value* v, scalar_info from, scalar_info to) {
  using k = scalar_info::kind;
  if (from.k == to.k && from.bits == to.bits && (from.k != k::integer || from.is_signed == to.is_signed)) return v;
  switch (to.k) {
    case k::boolean:
      switch (from.k) {
        case k::boolean: return v;
        case k::integer: return b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
        case k::floating: {
          if (from.bits == 16) v = float_resize(v, 32);
          return b.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
        }
        case k::complex: {
          llvm::Value* z = llvm::Constant::getNullValue(re(v)->getType());
          return b.CreateOr(b.CreateFCmpUNE(re(v), z), b.CreateFCmpUNE(im(v), z));
        }
      }
      break;
    case k::integer: {
      llvm::Type* it = b.getIntNTy(static_cast<unsigned>(to.bits));
      switch (from.k) {
        case k::boolean: return b.CreateZExt(v, it);
        case k::integer:
          if (from.bits == to.bits) return v;
          if (from.bits > to.bits) return b.CreateTrunc(v, it);
          return from.is_signed ? b.CreateSExt(v, it) : b.CreateZExt(v, it);
        case k::floating: return float_to_int(v, to.bits, to.is_signed);
        case k::complex: return float_to_int(re(v), to.bits, to.is_signed);
      }
      break;
    }
    case k::floating:
      switch (from.k) {
        case k::boolean: return int_to_float(v, false, to.bits);
        case k::integer: return int_to_float(v, from.is_signed, to.bits);
        case k::floating: return float_resize(v, to.bits);
        case k::complex: return float_resize(re(v), to.bits);
      }
      break;
    case k::complex: {
      if (from.k == k::complex) return cmake(float_resize(re(v), to.bits), float_resize(im(v), to.bits));
      llvm::Value* r = scalar_cast(v, from, scalar_info{k::floating, to.bits, true});
      return cmake(r, llvm::Constant::getNullValue(r->getType()));
    }
  }
  fail("unknown scalar conversion");
}

llvm::Value* function_lowering::cast(llvm::Value* v, const type* from, const type* to) {
  if (from == to) return v;
  if (from == nullptr || to == nullptr) fail("conversion of an untyped value in " + f.name);
  if (to->kind == type_kind::none) return ms.none_value();
  if (from->is_scalar() && to->is_scalar()) return scalar_cast(v, scalar_of(from), scalar_of(to));
  // datetime64/timedelta64 and int64: the same bits (the typer converts units with arithmetic).
  if (from->is_time() || to->is_time()) {
    auto int64_or_time = [](const type* t) { return t->is_time() || (t->is_int() && t->bits == 64); };
    if (int64_or_time(from) && int64_or_time(to) && !(from->is_time() && to->is_time())) return v;
    fail("cannot convert " + from->str() + " to " + to->str() + " in " + f.name);
  }
  // bfloat16 (cuda.bf16): from a number rounded once to the nearest (numba-cuda's constructors and
  // casts are cuda_bf16.h's _rn conversions); to one through float32, which holds it exactly.
  if (to->is_bfloat16() && from->is_scalar() && !from->is_complex()) return to_small_float(v, from, rounding::rn, true);
  if (from->is_bfloat16() && to->is_scalar() && !to->is_complex()) {
    if (to->is_int()) return small_float_to_int(v, rounding::rz, to);
    return scalar_cast(bf16_to_f32(v), scalar_info{scalar_info::kind::floating, 32, true}, scalar_of(to));
  }
  if (from->is_array() && to->is_array() && from->dtype == to->dtype && from->ndim == to->ndim) {
    // The same struct; only the layout the code assumes (and maybe the address space) changes.
    array_parts p = unpack(v, from);
    p.data = in_address_space(p.data, ms.tgt.address_space(to->space));
    return pack(to, p);
  }
  if (from->is_record() && to->is_record() && from->size == to->size) {
    return in_address_space(v, ms.tgt.address_space(to->space));  // the same bytes, seen from another space
  }
  if (from->is_tuple() && to->is_tuple() && from->elements.size() == to->elements.size()) {
    llvm::Value* t = llvm::PoisonValue::get(ms.value_type(to));
    for (unsigned i = 0; i < to->elements.size(); ++i)
      t = b.CreateInsertValue(t, cast(b.CreateExtractValue(v, i), from->elements[i], to->elements[i]), i);
    return t;
  }
  if (from->is_optional() && to->is_optional()) {  // None stays None (its value a zero, cast too)
    llvm::Value* o = llvm::PoisonValue::get(ms.value_type(to));
    o = b.CreateInsertValue(o, cast(b.CreateExtractValue(v, 0), from->dtype, to->dtype), 0);
    return b.CreateInsertValue(o, b.CreateExtractValue(v, 1), 1);
  }
  fail("cannot convert " + from->str() + " to " + to->str() + " in " + f.name);
}

llvm::Value* function_lowering::in_address_space(llvm::Value* p, unsigned as) {
  const unsigned from = p->getType()->getPointerAddressSpace();
  if (from == as) return p;
  llvm::Value* generic = from == 0 ? p : b.CreateAddrSpaceCast(p, llvm::PointerType::get(c_(), 0));
  return as == 0 ? generic : b.CreateAddrSpaceCast(generic, llvm::PointerType::get(c_(), as));
}

llvm::Value* function_lowering::cmake(llvm::Value* r, llvm::Value* i) {
  auto* st = llvm::StructType::get(c_(), {r->getType(), i->getType()});
  llvm::Value* z = llvm::PoisonValue::get(st);
  z = b.CreateInsertValue(z, r, 0);
  return b.CreateInsertValue(z, i, 1);
}

llvm::Value* function_lowering::from_slots(const type* t, const std::vector<llvm::Value*>& slots, std::size_t& pos) {
  auto next = [&]() -> llvm::Value* {
    if (pos >= slots.size()) fail("kernel parameter slots run out");
    return slots[pos++];
  };
  auto low = [&](llvm::Value* s, unsigned bits) { return b.CreateTrunc(s, b.getIntNTy(bits)); };
  switch (t->kind) {
    case type_kind::none: return ms.none_value();
    case type_kind::boolean: return b.CreateICmpNE(low(next(), 8), b.getInt8(0));
    case type_kind::integer: {
      llvm::Value* s = next();
      return t->bits == 64 ? s : low(s, static_cast<unsigned>(t->bits));
    }
    case type_kind::datetime:
    case type_kind::timedelta: return next();  // its int64
    case type_kind::floating: {
      llvm::Value* s = next();
      llvm::Type* ft = ms.float_type(t->bits);
      return b.CreateBitCast(t->bits == 64 ? s : low(s, static_cast<unsigned>(t->bits)), ft);
    }
    case type_kind::complex: {
      if (t->bits == 128) {
        llvm::Value* r = b.CreateBitCast(next(), b.getDoubleTy());
        llvm::Value* i = b.CreateBitCast(next(), b.getDoubleTy());
        return cmake(r, i);
      }
      llvm::Value* s = next();
      llvm::Value* r = b.CreateBitCast(low(s, 32), b.getFloatTy());
      llvm::Value* i = b.CreateBitCast(low(b.CreateLShr(s, 32), 32), b.getFloatTy());
      return cmake(r, i);
    }
    case type_kind::array: {
      array_parts p;
      p.data = b.CreateIntToPtr(next(), llvm::PointerType::get(c_(), ms.tgt.address_space(t->space)));
      for (int k = 0; k < t->ndim; ++k) p.shape.push_back(next());
      for (int k = 0; k < t->ndim; ++k) p.strides.push_back(next());
      return pack(t, p);
    }
    case type_kind::record: return b.CreateIntToPtr(next(), ms.value_type(t));
    case type_kind::tuple: {
      llvm::Value* v = llvm::PoisonValue::get(ms.value_type(t));
      for (unsigned i = 0; i < t->elements.size(); ++i) v = b.CreateInsertValue(v, from_slots(t->elements[i], slots, pos), i);
      return v;
    }
    default: fail("kernel argument of type " + t->str());
  }
}

llvm::Value* function_lowering::to_memory(llvm::Value* v, const type* t) {
  if (t->kind == type_kind::boolean) return b.CreateZExt(v, b.getInt8Ty());
  if (t->kind == type_kind::tuple) {
    llvm::Value* m = llvm::PoisonValue::get(ms.memory_type(t));
    for (unsigned i = 0; i < t->elements.size(); ++i)
      m = b.CreateInsertValue(m, to_memory(b.CreateExtractValue(v, i), t->elements[i]), i);
    return m;
  }
  if (t->kind == type_kind::optional) {  // {value, present as i8}
    llvm::Value* m = llvm::PoisonValue::get(ms.memory_type(t));
    m = b.CreateInsertValue(m, to_memory(b.CreateExtractValue(v, 0), t->dtype), 0);
    return b.CreateInsertValue(m, b.CreateZExt(b.CreateExtractValue(v, 1), b.getInt8Ty()), 1);
  }
  return v;
}

llvm::Value* function_lowering::from_memory(llvm::Value* v, const type* t) {
  if (t->kind == type_kind::boolean) return b.CreateICmpNE(v, b.getInt8(0));
  if (t->kind == type_kind::tuple) {
    llvm::Value* r = llvm::PoisonValue::get(ms.value_type(t));
    for (unsigned i = 0; i < t->elements.size(); ++i)
      r = b.CreateInsertValue(r, from_memory(b.CreateExtractValue(v, i), t->elements[i]), i);
    return r;
  }
  if (t->kind == type_kind::optional) {
    llvm::Value* r = llvm::PoisonValue::get(ms.value_type(t));
    r = b.CreateInsertValue(r, from_memory(b.CreateExtractValue(v, 0), t->dtype), 0);
    return b.CreateInsertValue(r, b.CreateICmpNE(b.CreateExtractValue(v, 1), b.getInt8(0)), 1);
  }
  return v;
}

}  // namespace cuforge::frontend::detail

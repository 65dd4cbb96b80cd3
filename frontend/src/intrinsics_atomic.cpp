// The registry's cuda.atomic.* rows: one typing function and one lowering
// for all of them (the row's `arg` says which operation), with the GPU's
// own instructions for 32-bit inc and dec.
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>

namespace cuforge::frontend::detail {

namespace {

enum class rmw : int { add, sub, and_, or_, xor_, max, min, nanmax, nanmin, exch, inc, dec, cas, compare_and_swap };

// cas (ary, idx, old, val) and the legacy compare_and_swap (ary, old, val): both compare and swap.
constexpr bool is_cas(rmw w) { return w == rmw::cas || w == rmw::compare_and_swap; }

struct rule {
  bool floats;         // float32 and float64 too
  bool only_unsigned;  // uint32 and uint64 only
};

rule rule_of(rmw w) {
  switch (w) {
    case rmw::add: case rmw::sub: case rmw::max: case rmw::min: case rmw::nanmax: case rmw::nanmin: case rmw::exch:
      return {true, false};
    case rmw::inc: case rmw::dec: return {false, true};
    default: return {false, false};
  }
}

// Operands: (ary, values..., indices...) with the indices non-negative (counted from the end here).
value type_atomic(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  const auto which = static_cast<rmw>(self.arg);
  const std::string name(self.info.name);
  const bool cas = is_cas(which);
  const bool legacy_cas = which == rmw::compare_and_swap;  // (ary, old, val) on ary[0]
  const std::size_t nargs = cas && !legacy_cas ? 4 : 3;
  if (c.args.size() != nargs || !c.kwargs.empty())
    ft.no_impl(c, legacy_cas ? "it takes (ary, old, val)" : cas ? "it takes (ary, idx, old, val)" : "it takes (ary, idx, val)");
  if (!c.args[0].ty->is_array()) ft.no_impl(c, "the first argument must be an array");
  const value a = ft.pure(c.args[0], loc);  // used again to count negative indices from the end
  if (a.ty->space != address_space::global && a.ty->space != address_space::shared)
    ft.no_impl(c, "atomics work on global and shared arrays");
  if (a.ty->readonly) ft.no_impl(c, "the array is read-only");
  const type* dt = a.ty->dtype;
  const rule r = rule_of(which);
  bool ok = dt->is_int() && dt->bits >= 32 && (!r.only_unsigned || !dt->is_signed);
  ok = ok || (r.floats && dt->is_float() && dt->bits >= 32);
  if (!ok)
    ft.no_impl(c, name + " supports " +
                      (r.only_unsigned ? "uint32 and uint64"
                       : r.floats      ? "int32, uint32, int64, uint64, float32 and float64"
                                       : "int32, uint32, int64 and uint64") +
                      " arrays");
  std::vector<value> idx;
  // boundscheck=True (or debug): the lowering wraps negative indices and checks the element is in
  // the array, naming the index as written (attrs[1] of the op: the raise site).
  std::vector<std::int64_t> attrs;
  if (legacy_cas) {
    if (a.ty->ndim != 1) ft.no_impl(c, "compare_and_swap works on 1-d arrays");
    idx.push_back(ft.int_constant(0, ft.tc_.int64(), loc));
  } else {
    bool neg = false;
    idx = ft.element_indices(a, c.args[1], loc, neg, name);
    if (std::int64_t bounds = ft.bounds_site(c.arg_expr(0), loc); bounds >= 0)
      attrs.push_back(bounds);
    else
      for (std::size_t d = 0; d < idx.size(); ++d) idx[d] = ft.wrap_index(a, static_cast<int>(d), idx[d], loc);
  }
  std::vector<value> operands{a};
  for (std::size_t i = legacy_cas ? 1 : 2; i < c.args.size(); ++i) {
    const value& v = c.args[i];
    if (!v.ty->is_scalar() || v.ty->is_complex()) ft.no_impl(c);
    operands.push_back(ft.cast(v, dt, loc));
  }
  operands.insert(operands.end(), idx.begin(), idx.end());
  ft.mark_written(a);
  return ft.intrinsic_op(self, dt, std::move(operands), loc, std::move(attrs), true);
}

// What one atomic needs: the element's pointer, the values converted to memory form, the order.
struct site {
  const type* dt = nullptr;
  address_space space = address_space::global;
  llvm::Value* ptr = nullptr;
  std::vector<llvm::Value*> values;
  llvm::Type* mt = nullptr;
  llvm::Align align;
  llvm::SyncScope::ID scope{};
};

site prepare(function_lowering& fl, const intrinsic& self, const expr& e) {
  const auto which = static_cast<rmw>(self.arg);
  const std::string name(self.info.name);
  if (e.operands.empty()) fl.fail_at(name + " without an array", e.loc);
  const type* at = fl.type_of(e.operands[0]);
  if (!at->is_array()) fl.fail_at(name + " on " + at->str(), e.loc);
  site s;
  s.dt = at->dtype;
  s.space = at->space;
  const std::size_t nvalues = is_cas(which) ? 2 : 1;
  if (e.operands.size() != 1 + nvalues + static_cast<std::size_t>(at->ndim))
    fl.fail_at(name + " with " + std::to_string(e.operands.size()) + " operands on a " + std::to_string(at->ndim) +
                   "-d array",
               e.loc);
  if (at->space == address_space::constant) fl.fail_at("atomic on a constant array", e.loc);
  if (scalar_of(s.dt).k == scalar_info::kind::complex) fl.fail_at(name + " on complex elements", e.loc);
  llvm::Value* arr = fl.expr(e.operands[0]);
  for (std::size_t i = 0; i < nvalues; ++i)
    s.values.push_back(fl.to_memory(fl.cast(fl.expr(e.operands[1 + i]), fl.type_of(e.operands[1 + i]), s.dt), s.dt));
  std::vector<llvm::Value*> idx;
  for (std::size_t i = 1 + nvalues; i < e.operands.size(); ++i)
    idx.push_back(fl.to_index(fl.expr(e.operands[i]), fl.type_of(e.operands[i])));
  // attrs: the registry index, then the bounds check's raise site when indices are checked.
  const bool checked = e.attrs.size() > 1 && e.attrs[1] >= 0;
  if (checked) fl.check_bounds(at, arr, idx, true, static_cast<std::int32_t>(e.attrs[1]), e.loc);
  s.ptr = fl.element_pointer(at, arr, idx, checked);
  s.mt = fl.ms.memory_type(s.dt);
  s.align = fl.ms.layout().getABITypeAlign(s.mt);
  s.scope = fl.ms.tgt.atomic_scope(fl.c_(), at->space);
  return s;
}

// Float max and min as a compare-and-swap loop on the bits, not writing at
// all when the element would not change. Numba's rules: max/min ignore a nan
// operand and keep a nan element; nanmax/nanmin ignore a nan operand and
// replace a nan element.
llvm::Value* float_minmax(function_lowering& fl, const site& s, bool is_max, bool nan_aware) {
  auto& b = fl.b;
  const auto order = llvm::AtomicOrdering::Monotonic;
  llvm::Type* ft = s.mt;
  llvm::Type* it = b.getIntNTy(static_cast<unsigned>(ft->getPrimitiveSizeInBits().getFixedValue()));
  llvm::Value* val = s.values[0];
  auto* first = b.CreateAlignedLoad(it, s.ptr, s.align);
  first->setAtomic(order, s.scope);
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(fl.c_(), "atomic.loop", fl.fn);
  auto* attempt = llvm::BasicBlock::Create(fl.c_(), "atomic.cas", fl.fn);
  auto* done = llvm::BasicBlock::Create(fl.c_(), "atomic.done", fl.fn);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  auto* cur = b.CreatePHI(it, 2);
  llvm::Value* curf = b.CreateBitCast(cur, ft);
  // Whether val replaces the element: it is further (and neither is nan), or, for the nan-aware
  // forms, the element is nan and val is not.
  llvm::Value* further = is_max ? b.CreateFCmpOLT(curf, val) : b.CreateFCmpOGT(curf, val);
  if (nan_aware) further = b.CreateOr(further, b.CreateAnd(b.CreateFCmpUNO(curf, curf), b.CreateFCmpORD(val, val)));
  b.CreateCondBr(further, attempt, done);
  b.SetInsertPoint(attempt);
  auto* cas = b.CreateAtomicCmpXchg(s.ptr, cur, b.CreateBitCast(val, it), s.align, order, order, s.scope);
  llvm::Value* seen = b.CreateExtractValue(cas, 0);
  b.CreateCondBr(b.CreateExtractValue(cas, 1), done, loop);
  cur->addIncoming(first, pre);
  cur->addIncoming(seen, attempt);
  b.SetInsertPoint(done);
  return b.CreateBitCast(cur, ft);
}

llvm::Value* lower_atomic(function_lowering& fl, const intrinsic& self, const expr& e) {
  const auto which = static_cast<rmw>(self.arg);
  const site s = prepare(fl, self, e);
  auto& b = fl.b;
  const auto order = llvm::AtomicOrdering::Monotonic;
  const scalar_info si = scalar_of(s.dt);
  const bool is_float = si.k == scalar_info::kind::floating;
  const bool sgn = si.k == scalar_info::kind::integer && si.is_signed;
  auto op = [&](llvm::AtomicRMWInst::BinOp bop, llvm::Value* v) -> llvm::Value* {
    return b.CreateAtomicRMW(bop, s.ptr, v, s.align, order, s.scope);
  };
  auto int_only = [&]() {
    if (is_float) fl.fail_at(std::string(self.info.name) + " on " + s.dt->str(), e.loc);
  };
  if (is_float && s.mt->isHalfTy() && which != rmw::exch && !is_cas(which))
    fl.fail_at(std::string(self.info.name) + " on float16", e.loc);
  llvm::Value* old = nullptr;
  // Adding into a worker's private copy (the cpu backend's private sums): a plain add.
  llvm::BasicBlock* plain_end = nullptr;
  llvm::Value* plain_old = nullptr;
  llvm::BasicBlock* join = nullptr;
  if (self.adds_into && (s.mt->getPrimitiveSizeInBits() == 32 || s.mt->getPrimitiveSizeInBits() == 64))
    if (llvm::Value* mine = fl.ms.tgt.private_copy(fl, fl.f.at(e.operands[0]))) {
      auto* plain = llvm::BasicBlock::Create(fl.c_(), "sum.private", fl.fn);
      auto* shared = llvm::BasicBlock::Create(fl.c_(), "sum.shared", fl.fn);
      join = llvm::BasicBlock::Create(fl.c_(), "sum.done", fl.fn);
      b.CreateCondBr(mine, plain, shared);
      b.SetInsertPoint(plain);
      // The block's thread loop declares its iterations independent (llvm.loop.parallel_accesses),
      // which holds for the atomic but not for a plain add: two threads adding into one element
      // would be vectorised into one gather and one scatter, losing an add. An empty asm statement
      // that may touch memory keeps the vectoriser off the loop and costs no instruction.
      auto* fence_ty = llvm::FunctionType::get(b.getVoidTy(), false);
      b.CreateCall(fence_ty, llvm::InlineAsm::get(fence_ty, "", "~{memory}", /*hasSideEffects=*/true));
      plain_old = b.CreateAlignedLoad(s.mt, s.ptr, s.align);
      llvm::Value* v = s.values[0];
      llvm::Value* sum = is_float ? (which == rmw::add ? b.CreateFAdd(plain_old, v) : b.CreateFSub(plain_old, v))
                                  : (which == rmw::add ? b.CreateAdd(plain_old, v) : b.CreateSub(plain_old, v));
      b.CreateAlignedStore(sum, s.ptr, s.align);
      plain_end = b.GetInsertBlock();
      b.CreateBr(join);
      b.SetInsertPoint(shared);
    }
  switch (which) {
    case rmw::add: old = op(is_float ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add, s.values[0]); break;
    case rmw::sub:
      // Float subtraction as the addition of the negation: native where fsub is not.
      old = is_float ? op(llvm::AtomicRMWInst::FAdd, b.CreateFNeg(s.values[0])) : op(llvm::AtomicRMWInst::Sub, s.values[0]);
      break;
    case rmw::and_: int_only(); old = op(llvm::AtomicRMWInst::And, s.values[0]); break;
    case rmw::or_: int_only(); old = op(llvm::AtomicRMWInst::Or, s.values[0]); break;
    case rmw::xor_: int_only(); old = op(llvm::AtomicRMWInst::Xor, s.values[0]); break;
    case rmw::exch: old = op(llvm::AtomicRMWInst::Xchg, s.values[0]); break;
    case rmw::inc: int_only(); old = op(llvm::AtomicRMWInst::UIncWrap, s.values[0]); break;
    case rmw::dec: int_only(); old = op(llvm::AtomicRMWInst::UDecWrap, s.values[0]); break;
    case rmw::max: case rmw::min: case rmw::nanmax: case rmw::nanmin: {
      const bool is_max = which == rmw::max || which == rmw::nanmax;
      if (is_float) {
        old = float_minmax(fl, s, is_max, which == rmw::nanmax || which == rmw::nanmin);
        break;
      }
      old = op(is_max ? (sgn ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax)
                      : (sgn ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin),
               s.values[0]);
      break;
    }
    case rmw::cas: case rmw::compare_and_swap: {
      llvm::Value* expected = s.values[0];
      llvm::Value* desired = s.values[1];
      llvm::Type* it = s.mt;
      if (!s.mt->isIntegerTy()) {
        it = b.getIntNTy(static_cast<unsigned>(s.mt->getPrimitiveSizeInBits().getFixedValue()));
        expected = b.CreateBitCast(expected, it);
        desired = b.CreateBitCast(desired, it);
      }
      auto* cas = b.CreateAtomicCmpXchg(s.ptr, expected, desired, s.align, order, order, s.scope);
      old = b.CreateExtractValue(cas, 0);
      if (it != s.mt) old = b.CreateBitCast(old, s.mt);
      break;
    }
  }
  if (join != nullptr) {
    llvm::BasicBlock* shared_end = b.GetInsertBlock();
    b.CreateBr(join);
    b.SetInsertPoint(join);
    auto* phi = b.CreatePHI(s.mt, 2);
    phi->addIncoming(plain_old, plain_end);
    phi->addIncoming(old, shared_end);
    old = phi;
  }
  return fl.cast(fl.from_memory(old, s.dt), s.dt, e.ty);
}

// LLVM 19's NVPTX expands uinc_wrap/udec_wrap into compare-and-swap loops; on
// 32-bit global and shared words the GPU has one instruction for each.
llvm::Value* lower_inc_dec_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  const type* at = e.operands.empty() ? nullptr : fl.type_of(e.operands[0]);
  if (at == nullptr || !at->is_array() || at->dtype->bits != 32 ||
      (at->space != address_space::global && at->space != address_space::shared))
    return lower_atomic(fl, self, e);
  const site s = prepare(fl, self, e);
  auto& b = fl.b;
  const bool inc = static_cast<rmw>(self.arg) == rmw::inc;
  std::string text = std::string("atom.") + (s.space == address_space::shared ? "shared" : "global") +
                     (inc ? ".inc" : ".dec") + ".u32 $0, [$1], $2;";
  auto* ty = llvm::FunctionType::get(b.getInt32Ty(), {s.ptr->getType(), b.getInt32Ty()}, false);
  auto* asm_ = llvm::InlineAsm::get(ty, text, "=r,l,r,~{memory}", /*hasSideEffects=*/true);
  llvm::Value* old = b.CreateCall(ty, asm_, {s.ptr, s.values[0]});
  return fl.cast(fl.from_memory(old, s.dt), s.dt, e.ty);
}

constexpr intrinsic adding_into(intrinsic e) {
  e.adds_into = true;
  return e;
}

constexpr intrinsic atomic(std::string_view name, std::string_view params, std::string_view doc, rmw w) {
  return lowered_by(function_entry(name, params, doc, type_atomic, op_id::none, static_cast<int>(w)), lower_atomic);
}

const intrinsic table[] = {
    module_entry("cuda.atomic", "Atomic read-modify-write of an array element (global or shared memory); each "
                                "returns the element's old value."),
    adding_into(atomic("cuda.atomic.add", "(ary, idx, val)", "ary[idx] += val.", rmw::add)),
    adding_into(atomic("cuda.atomic.sub", "(ary, idx, val)", "ary[idx] -= val.", rmw::sub)),
    atomic("cuda.atomic.and_", "(ary, idx, val)", "ary[idx] &= val (integers).", rmw::and_),
    atomic("cuda.atomic.or_", "(ary, idx, val)", "ary[idx] |= val (integers).", rmw::or_),
    atomic("cuda.atomic.xor", "(ary, idx, val)", "ary[idx] ^= val (integers).", rmw::xor_),
    atomic("cuda.atomic.max", "(ary, idx, val)",
           "ary[idx] = max(ary[idx], val); a nan val is ignored, a nan element stays.", rmw::max),
    atomic("cuda.atomic.min", "(ary, idx, val)",
           "ary[idx] = min(ary[idx], val); a nan val is ignored, a nan element stays.", rmw::min),
    atomic("cuda.atomic.nanmax", "(ary, idx, val)",
           "ary[idx] = max(ary[idx], val), nan a missing value: a nan val is ignored, a nan element replaced.",
           rmw::nanmax),
    atomic("cuda.atomic.nanmin", "(ary, idx, val)",
           "ary[idx] = min(ary[idx], val), nan a missing value: a nan val is ignored, a nan element replaced.",
           rmw::nanmin),
    atomic("cuda.atomic.exch", "(ary, idx, val)", "ary[idx] = val.", rmw::exch),
    lowered_by(function_entry("cuda.atomic.inc", "(ary, idx, val)",
                              "ary[idx] = 0 if ary[idx] >= val else ary[idx] + 1 (uint32, uint64).", type_atomic,
                              op_id::none, static_cast<int>(rmw::inc)),
               lower_inc_dec_nvptx, lower_atomic),
    lowered_by(function_entry("cuda.atomic.dec", "(ary, idx, val)",
                              "ary[idx] = val if ary[idx] == 0 or ary[idx] > val else ary[idx] - 1 (uint32, uint64).",
                              type_atomic, op_id::none, static_cast<int>(rmw::dec)),
               lower_inc_dec_nvptx, lower_atomic),
    atomic("cuda.atomic.cas", "(ary, idx, old, val)", "ary[idx] = val where ary[idx] == old (integers).", rmw::cas),
    atomic("cuda.atomic.compare_and_swap", "(ary, old, val)", "ary[0] = val where ary[0] == old (a 1-d array).",
           rmw::compare_and_swap),
};

}  // namespace

std::span<const intrinsic> atomic_intrinsics() { return table; }

}  // namespace cuforge::frontend::detail

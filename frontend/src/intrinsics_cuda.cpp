// The registry's cuda.* rows (but cuda.atomic.*, intrinsics_atomic.cpp):
// thread coordinates and the grid, barriers, fences and warps, integer
// intrinsics, fma and cbrt, shared, local and constant arrays. Each row's
// typing and lowering functions are beside it.
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <array>

namespace cuforge::frontend::detail {

namespace {

using k = scalar_info::kind;
constexpr scalar_info i32{k::integer, 32, true};

// The intrinsic's int32 result as the op's type, or None.
llvm::Value* result(function_lowering& fl, const expr& e, llvm::Value* v) {
  if (e.ty->kind == type_kind::none) return fl.ms.none_value();
  return fl.scalar_cast(v, i32, scalar_of(e.ty));
}

// Operand i converted to int32 (predicates, masks).
llvm::Value* i32_operand(function_lowering& fl, const expr& e, std::size_t i) {
  if (e.operands.size() <= i) fl.fail_at(std::string(entry_of(e).info.name) + " without its operand", e.loc);
  return fl.scalar_cast(fl.expr(e.operands[i]), scalar_of(fl.type_of(e.operands[i])), i32);
}

// --- thread coordinates: cuda.threadIdx.x ... cuda.gridDim.z -----------------------------------

// arg = register * 3 + dimension (coordinate()); cuda.laneid reads the same way.
constexpr int coordinate(sreg r, int dim) { return static_cast<int>(r) * 3 + dim; }

value read_coordinate(function_typer& ft, const intrinsic& self, location loc) {
  value v = ft.intrinsic_op(self, ft.tc_.int32(), {}, loc);
  v.nonneg = true;
  return v;
}

llvm::Value* lower_coordinate(function_lowering& fl, const intrinsic& self, const expr& e) {
  return result(fl, e, fl.ms.tgt.special_register(fl, static_cast<sreg>(self.arg / 3), self.arg % 3));
}

llvm::Value* lower_laneid_nvptx(function_lowering& fl, const intrinsic&, const expr& e) {
  return result(fl, e, fl.intrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_laneid, {}, {}));
}

// The lane of the calling thread on the host: its linear id in the block modulo 32, as on a GPU
// (the cpu backend's warps are those ids, cpu_execution.md "Warps").
llvm::Value* host_lane(function_lowering& fl) {
  auto& b = fl.b;
  target& t = fl.ms.tgt;
  llvm::Value* tx = t.special_register(fl, sreg::thread_idx, 0);
  llvm::Value* ty = t.special_register(fl, sreg::thread_idx, 1);
  llvm::Value* tz = t.special_register(fl, sreg::thread_idx, 2);
  llvm::Value* bx = t.special_register(fl, sreg::block_dim, 0);
  llvm::Value* by = t.special_register(fl, sreg::block_dim, 1);
  llvm::Value* linear = b.CreateAdd(tx, b.CreateMul(bx, b.CreateAdd(ty, b.CreateMul(by, tz))));
  return b.CreateAnd(linear, b.getInt32(31));
}

llvm::Value* lower_laneid_host(function_lowering& fl, const intrinsic&, const expr& e) {
  return result(fl, e, host_lane(fl));
}

// The thread context host code reaches the cpu backend's warps through.
llvm::Value* host_context(function_lowering& fl, const expr& e) {
  if (fl.ctx == nullptr) fl.fail_at("a warp operation in host code without a thread context", e.loc);
  return fl.ctx;
}

value read_warpsize(function_typer& ft, const intrinsic&, location loc) { return ft.int_constant(32, ft.tc_.int64(), loc, true); }

// cuda.grid(n) and cuda.gridsize(n) (arg 1): int64, or a tuple of n.
value type_grid(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  if (c.args.size() != 1 || !c.kwargs.empty()) ft.no_impl(c, "it takes the number of dimensions, 1, 2 or 3");
  auto n = c.args[0].ty->is_int() ? ft.const_int(c.args[0]) : std::nullopt;
  if (!n || *n < 1 || *n > 3) ft.no_impl(c, "the number of dimensions must be a constant 1, 2 or 3");
  const bool size = self.arg == 1;
  // The coordinate rows, by coordinate(): found once.
  static const auto rows = [] {
    std::array<const intrinsic*, 12> r{};
    for (const intrinsic* e : registry())
      if (e->lower == &lower_coordinate) r.at(static_cast<std::size_t>(e->arg)) = e;
    return r;
  }();
  const type* i64 = ft.tc_.int64();
  auto coord = [&](sreg r, int d) {
    return ft.cast(read_coordinate(ft, *rows[static_cast<std::size_t>(coordinate(r, d))], loc), i64, loc);
  };
  std::vector<value> dims;
  for (int d = 0; d < *n; ++d) {
    value v = size ? ft.op(op_id::mul, i64, {coord(sreg::block_dim, d), coord(sreg::grid_dim, d)}, loc)
                   : ft.op(op_id::add, i64,
                           {ft.op(op_id::mul, i64, {coord(sreg::block_idx, d), coord(sreg::block_dim, d)}, loc),
                            coord(sreg::thread_idx, d)},
                           loc);
    v.nonneg = true;
    dims.push_back(v);
  }
  if (*n == 1) return dims[0];
  return ft.make_tuple(std::move(dims), loc);
}

// --- barriers, fences, warps -----------------------------------------------------------------

// cuda.syncthreads(), the fences, syncwarp's typing without a mask: no arguments, no value.
value type_no_args(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 0, 0);
  return ft.intrinsic_op(self, ft.tc_.none(), {}, c.loc, {}, true);
}

llvm::Value* lower_syncthreads(function_lowering& fl, const intrinsic&, const expr&) {
  fl.ms.tgt.barrier(fl);
  return fl.ms.none_value();
}

// syncthreads_count (arg 0), _and (1), _or (2): a barrier that reduces a predicate over the block.
value type_barrier_reduce(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  if (!c.args[0].ty->is_scalar()) ft.no_impl(c);
  value pred = ft.cast(ft.truth(c.args[0], c.loc), ft.tc_.int32(), c.loc);
  return ft.intrinsic_op(self, ft.tc_.int32(), {pred}, c.loc, {}, true);
}

llvm::Value* lower_barrier_reduce_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_barrier0_popc, llvm::Intrinsic::nvvm_barrier0_and,
                                                llvm::Intrinsic::nvvm_barrier0_or};
  return result(fl, e, fl.intrinsic(ids[self.arg], {}, {i32_operand(fl, e, 0)}));
}

// A block's threads run on one OS thread on the cpu backend, so plain loads
// and stores to a scratch in the block's shared memory suffice: each thread
// adds its predicate to accumulator g&1, a barrier, every thread reads it
// and clears the other accumulator for the next reduction and advances g,
// a second barrier.
llvm::Value* lower_barrier_reduce_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  llvm::Value* pred = i32_operand(fl, e, 0);
  // Two i32 accumulators and a generation, zeroed with the block's shared memory.
  const std::uint64_t offset = fl.ms.block_scratch("cuforge_barrier_reduce", 12);
  llvm::Value* scratch = fl.ms.tgt.static_shared(fl, "cuforge_barrier_reduce", b.getInt32Ty(), 3, offset);
  llvm::Value* gen_ptr = b.CreateConstInBoundsGEP1_64(b.getInt32Ty(), scratch, 2);
  llvm::Value* gen = b.CreateLoad(b.getInt32Ty(), gen_ptr);
  llvm::Value* mine = b.CreateInBoundsGEP(b.getInt32Ty(), scratch, b.CreateAnd(gen, b.getInt32(1)));
  llvm::Value* other = b.CreateInBoundsGEP(b.getInt32Ty(), scratch, b.CreateAnd(b.CreateAdd(gen, b.getInt32(1)), b.getInt32(1)));
  llvm::Value* p = b.CreateICmpNE(pred, b.getInt32(0));
  const bool all = self.arg == 1;
  // _and counts the threads whose predicate is false.
  llvm::Value* contrib = b.CreateZExt(all ? b.CreateNot(p) : p, b.getInt32Ty());
  b.CreateStore(b.CreateAdd(b.CreateLoad(b.getInt32Ty(), mine), contrib), mine);
  fl.ms.tgt.barrier(fl);
  llvm::Value* total = b.CreateLoad(b.getInt32Ty(), mine);
  b.CreateStore(b.getInt32(0), other);
  b.CreateStore(b.CreateAdd(gen, b.getInt32(1)), gen_ptr);
  fl.ms.tgt.barrier(fl);
  switch (self.arg) {
    case 0: return result(fl, e, total);
    case 1: return result(fl, e, b.CreateZExt(b.CreateICmpEQ(total, b.getInt32(0)), b.getInt32Ty()));
    default: return result(fl, e, b.CreateZExt(b.CreateICmpNE(total, b.getInt32(0)), b.getInt32Ty()));
  }
}

value type_syncwarp(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 0, 1);
  value mask = c.args.empty() ? ft.int_constant(0xFFFFFFFF, ft.tc_.uint32(), c.loc)
                              : ft.cast(int_arg(ft, c, 0), ft.tc_.uint32(), c.loc);
  return ft.intrinsic_op(self, ft.tc_.none(), {mask}, c.loc, {}, true);
}

llvm::Value* lower_syncwarp_nvptx(function_lowering& fl, const intrinsic&, const expr& e) {
  fl.intrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {}, {i32_operand(fl, e, 0)});
  return fl.ms.none_value();
}

// The cpu backend's threads of a block are fibers: the lanes of the mask meet at a warp barrier of
// the runtime's (a fence alone let lane 0 read its neighbour's slot before lane 1 had written it).
llvm::Value* lower_syncwarp_host(function_lowering& fl, const intrinsic&, const expr& e) {
  auto& b = fl.b;
  llvm::FunctionCallee fn =
      fl.ms.mod.getOrInsertFunction("cuforge_cpu_syncwarp", b.getVoidTy(), b.getPtrTy(), b.getInt32Ty());
  b.CreateCall(fn, {host_context(fl, e), i32_operand(fl, e, 0)});
  return fl.ms.none_value();
}

// --- cooperative groups: cuda.cg ----------------------------------------------------------------

// cuda.cg.this_grid() (arg 0) and cuda.cg.this_thread_block() (arg 1): the group, a compile-time
// value whose sync() is a row of its own. As in numba-cuda, this_grid() alone makes the launch
// cooperative.
value type_this_group(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 0, 0);
  value v;
  v.ty = ft.tc_.module(self.arg == 0 ? "cuda.cg.GridGroup" : "cuda.cg.ThreadBlock");
  if (self.arg == 0) ft.mark_cooperative();
  return v;
}

// A group's thread_rank and size (CUDA's cooperative groups' thread_rank() and size()), int64:
// the grid's (arg 0, 1) or the block's (arg 2, 3), x fastest.
value read_group_value(function_typer& ft, const intrinsic& self, location loc) {
  auto rd = [&](const std::string& name) {
    const intrinsic* e = find_entry(name);
    if (e == nullptr || e->read == nullptr) ft.fail(loc, "internal: no " + name);
    return ft.cast(e->read(ft, *e, loc), ft.tc_.int64(), loc);
  };
  auto linear = [&](const char* index, const char* extent) {  // x + y * X + z * X * Y
    const std::string i(index), n(extent);
    value x = rd(i + ".x"), y = rd(i + ".y"), z = rd(i + ".z");
    value nx = rd(n + ".x"), ny = rd(n + ".y");
    return ft.binary(binop::add, x, ft.binary(binop::mul, nx, ft.binary(binop::add, y, ft.binary(binop::mul, ny, z, loc), loc), loc), loc);
  };
  auto count = [&](const char* extent) {
    const std::string n(extent);
    return ft.binary(binop::mul, ft.binary(binop::mul, rd(n + ".x"), rd(n + ".y"), loc), rd(n + ".z"), loc);
  };
  value r;
  switch (self.arg) {
    case 0:
      r = ft.binary(binop::add, ft.binary(binop::mul, linear("cuda.blockIdx", "cuda.gridDim"), count("cuda.blockDim"), loc),
                    linear("cuda.threadIdx", "cuda.blockDim"), loc);
      break;
    case 1: r = ft.binary(binop::mul, count("cuda.gridDim"), count("cuda.blockDim"), loc); break;
    case 2: r = linear("cuda.threadIdx", "cuda.blockDim"); break;
    default: r = count("cuda.blockDim"); break;
  }
  r.nonneg = true;
  return r;
}

// GridGroup.sync() on a GPU: every block's thread 0 arrives at a barrier word of the module and
// waits for the word's top bit to flip; block (0, 0, 0) adds 2^31 - (blocks - 1) and the others 1,
// so each round adds exactly 2^31 and the word needs no reset. The block's own barrier before and
// after, and fences around the arrival, as CUDA's cooperative groups do it. The launch is
// cooperative (every block co-resident), so the wait ends.
llvm::Value* lower_grid_sync_nvptx(function_lowering& fl, const intrinsic&, const expr&) {
  auto& b = fl.b;
  auto* i32 = b.getInt32Ty();
  llvm::GlobalVariable* word = fl.ms.mod.getNamedGlobal("cuforge_grid_barrier");
  if (word == nullptr)
    word = new llvm::GlobalVariable(fl.ms.mod, i32, false, llvm::GlobalValue::InternalLinkage,
                                    llvm::ConstantInt::get(i32, 0), "cuforge_grid_barrier", nullptr,
                                    llvm::GlobalVariable::NotThreadLocal, /*global space*/ 1);
  auto reg = [&](sreg r, int d) { return fl.ms.tgt.special_register(fl, r, d); };
  auto all_zero = [&](sreg r) {
    return b.CreateAnd(b.CreateAnd(b.CreateIsNull(reg(r, 0)), b.CreateIsNull(reg(r, 1))), b.CreateIsNull(reg(r, 2)));
  };
  fl.ms.tgt.barrier(fl);
  auto* arrive = llvm::BasicBlock::Create(fl.c_(), "grid.arrive", fl.fn);
  auto* wait = llvm::BasicBlock::Create(fl.c_(), "grid.wait", fl.fn);
  auto* passed = llvm::BasicBlock::Create(fl.c_(), "grid.passed", fl.fn);
  auto* after = llvm::BasicBlock::Create(fl.c_(), "grid.after", fl.fn);
  b.CreateCondBr(all_zero(sreg::thread_idx), arrive, after);
  b.SetInsertPoint(arrive);
  llvm::Value* blocks = b.CreateMul(b.CreateMul(reg(sreg::grid_dim, 0), reg(sreg::grid_dim, 1)), reg(sreg::grid_dim, 2));
  llvm::Value* first = b.CreateSub(b.getInt32(0x80000000u), b.CreateSub(blocks, b.getInt32(1)));
  llvm::Value* add = b.CreateSelect(all_zero(sreg::block_idx), first, b.getInt32(1));
  fl.intrinsic(llvm::Intrinsic::nvvm_membar_gl, {}, {});  // __threadfence()
  llvm::Value* old = b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, word, add, llvm::Align(4), llvm::AtomicOrdering::Monotonic);
  b.CreateBr(wait);
  b.SetInsertPoint(wait);
  llvm::LoadInst* now = b.CreateAlignedLoad(i32, word, llvm::Align(4), /*isVolatile=*/true);
  llvm::Value* flipped = b.CreateIsNotNull(b.CreateAnd(b.CreateXor(old, now), b.getInt32(0x80000000u)));
  b.CreateCondBr(flipped, passed, wait);
  b.SetInsertPoint(passed);
  fl.intrinsic(llvm::Intrinsic::nvvm_membar_gl, {}, {});
  b.CreateBr(after);
  b.SetInsertPoint(after);
  fl.ms.tgt.barrier(fl);
  return fl.ms.none_value();
}

// The cpu backend's grid barrier (a cooperative launch's blocks are all fibers at once).
llvm::Value* lower_grid_sync_host(function_lowering& fl, const intrinsic&, const expr& e) {
  auto& b = fl.b;
  llvm::FunctionCallee fn = fl.ms.mod.getOrInsertFunction("cuforge_cpu_grid_sync", b.getVoidTy(), b.getPtrTy());
  b.CreateCall(fn, {host_context(fl, e)});
  return fl.ms.none_value();
}

// --- warp shuffles, votes and matches ----------------------------------------------------------
//
// numba-cuda's: cuda.shfl_sync / shfl_up_sync / shfl_down_sync / shfl_xor_sync(mask, value, b) of
// 32- and 64-bit ints and floats (the value's type back); all_sync / any_sync / eq_sync (a
// boolean) and ballot_sync (int32) of an integer or boolean predicate; activemask() and
// lanemask_lt() (uint32); match_any_sync(mask, value) (int32) and match_all_sync (int32,
// boolean). On the GPU: shfl.sync (64-bit values as two), vote.sync, match.any/all.sync. On the cpu backend the lanes of the mask meet in the
// runtime (cuforge_cpu_warp_*: a warp barrier of those lanes around an exchange), which reads the
// shuffle's source lane as shfl.sync does: b's low five bits, out of range or outside the mask
// giving the lane's own value.

enum shuffle_mode : int { shfl_idx = 0, shfl_up = 1, shfl_down = 2, shfl_xor = 3 };
enum vote_mode : int { vote_all = 0, vote_any = 1, vote_eq = 2, vote_ballot = 3 };
enum match_mode : int { match_any = 0, match_all = 1 };

bool shufflable(const type* t) {
  return ((t->is_int() && t->is_signed) || t->is_float()) && (t->bits == 32 || t->bits == 64);  // numba-cuda: i4 i8 f4 f8
}

value type_shuffle(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 3, 3);
  value mask = ft.cast(int_arg(ft, c, 0), ft.tc_.uint32(), c.loc);
  if (!c.args[1].ty->is_scalar() || !shufflable(c.args[1].ty))
    ft.no_impl(c, "shfl_sync only supports 32- and 64-bit ints and floats");
  value lane = ft.cast(int_arg(ft, c, 2), ft.tc_.int32(), c.loc);
  return ft.intrinsic_op(self, c.args[1].ty, {mask, c.args[1], lane}, c.loc, {}, true);
}

// A 32- or 64-bit value as its bits (i32 or i64), and back.
llvm::Value* as_bits(function_lowering& fl, llvm::Value* v) {
  return fl.b.CreateBitCast(v, fl.b.getIntNTy(v->getType()->getPrimitiveSizeInBits()));
}

llvm::Value* lower_shuffle_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_shfl_sync_idx_i32, llvm::Intrinsic::nvvm_shfl_sync_up_i32,
                                                llvm::Intrinsic::nvvm_shfl_sync_down_i32, llvm::Intrinsic::nvvm_shfl_sync_bfly_i32};
  auto& b = fl.b;
  llvm::Value* mask = i32_operand(fl, e, 0);
  llvm::Value* v = fl.expr(e.operands[1]);
  llvm::Value* lane = i32_operand(fl, e, 2);
  llvm::Value* clamp = b.getInt32(self.arg == shfl_up ? 0 : 0x1f);  // numba-cuda's c operands
  auto shuffle = [&](llvm::Value* x) { return fl.intrinsic(ids[self.arg], {}, {mask, x, lane, clamp}); };
  llvm::Value* bits = as_bits(fl, v);
  llvm::Value* r = nullptr;
  if (bits->getType()->isIntegerTy(32)) {
    r = shuffle(bits);
  } else {  // two 32-bit halves
    llvm::Value* lo = shuffle(b.CreateTrunc(bits, b.getInt32Ty()));
    llvm::Value* hi = shuffle(b.CreateTrunc(b.CreateLShr(bits, 32), b.getInt32Ty()));
    r = b.CreateOr(b.CreateShl(b.CreateZExt(hi, b.getInt64Ty()), 32), b.CreateZExt(lo, b.getInt64Ty()));
  }
  return b.CreateBitCast(r, v->getType());
}

llvm::Value* lower_shuffle_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  llvm::Value* mask = i32_operand(fl, e, 0);
  llvm::Value* v = fl.expr(e.operands[1]);
  llvm::Value* d = b.CreateAnd(i32_operand(fl, e, 2), b.getInt32(31));  // shfl.sync reads b[4:0]
  llvm::Value* lane = host_lane(fl);
  llvm::Value* src = nullptr;
  switch (self.arg) {
    case shfl_idx: src = d; break;
    case shfl_up: {
      llvm::Value* j = b.CreateSub(lane, d);
      src = b.CreateSelect(b.CreateICmpSLT(j, b.getInt32(0)), lane, j);
      break;
    }
    case shfl_down: {
      llvm::Value* j = b.CreateAdd(lane, d);
      src = b.CreateSelect(b.CreateICmpSGT(j, b.getInt32(31)), lane, j);
      break;
    }
    default: src = b.CreateXor(lane, d); break;
  }
  llvm::Value* bits = as_bits(fl, v);
  llvm::Value* wide = b.CreateZExt(bits, b.getInt64Ty());
  llvm::FunctionCallee fn = fl.ms.mod.getOrInsertFunction("cuforge_cpu_warp_shuffle", b.getInt64Ty(), b.getPtrTy(),
                                                          b.getInt32Ty(), b.getInt64Ty(), b.getInt32Ty());
  llvm::Value* r = b.CreateCall(fn, {host_context(fl, e), mask, wide, src});
  return b.CreateBitCast(b.CreateTrunc(r, bits->getType()), v->getType());
}

value type_vote(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 2, 2);
  value mask = ft.cast(int_arg(ft, c, 0), ft.tc_.uint32(), c.loc);
  const type* p = c.args[1].ty;
  if (!(p->is_int() || p->kind == type_kind::boolean)) ft.no_impl(c, "the predicate must be an integer or boolean");
  value pred = ft.cast(ft.truth(c.args[1], c.loc), ft.tc_.int32(), c.loc);
  const type* out = self.arg == vote_ballot ? ft.tc_.int32() : ft.tc_.boolean();
  return ft.intrinsic_op(self, out, {mask, pred}, c.loc, {}, true);
}

// all/any/eq from the ballot of the masked lanes (`m`: the lanes in the mask that voted).
llvm::Value* vote_result(function_lowering& fl, int mode, llvm::Value* ballot, llvm::Value* m) {
  auto& b = fl.b;
  llvm::Value* mine = b.CreateAnd(ballot, m);
  switch (mode) {
    case vote_all: return b.CreateICmpEQ(mine, m);
    case vote_any: return b.CreateICmpNE(mine, b.getInt32(0));
    case vote_eq: return b.CreateOr(b.CreateICmpEQ(mine, b.getInt32(0)), b.CreateICmpEQ(mine, m));
    default: return mine;
  }
}

llvm::Value* lower_vote_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_vote_all_sync, llvm::Intrinsic::nvvm_vote_any_sync,
                                                llvm::Intrinsic::nvvm_vote_uni_sync, llvm::Intrinsic::nvvm_vote_ballot_sync};
  auto& b = fl.b;
  llvm::Value* mask = i32_operand(fl, e, 0);
  llvm::Value* pred = b.CreateICmpNE(i32_operand(fl, e, 1), b.getInt32(0));
  llvm::Value* r = fl.intrinsic(ids[self.arg], {}, {mask, pred});
  return result(fl, e, self.arg == vote_ballot ? r : b.CreateZExt(r, b.getInt32Ty()));
}

llvm::Value* lower_vote_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  llvm::Value* mask = i32_operand(fl, e, 0);
  llvm::FunctionCallee fn = fl.ms.mod.getOrInsertFunction("cuforge_cpu_warp_vote", b.getInt64Ty(), b.getPtrTy(),
                                                          b.getInt32Ty(), b.getInt32Ty());
  llvm::Value* both = b.CreateCall(fn, {host_context(fl, e), mask, i32_operand(fl, e, 1)});
  llvm::Value* ballot = b.CreateTrunc(both, b.getInt32Ty());
  llvm::Value* voters = b.CreateTrunc(b.CreateLShr(both, 32), b.getInt32Ty());
  llvm::Value* r = vote_result(fl, self.arg, ballot, b.CreateAnd(mask, voters));
  return result(fl, e, self.arg == vote_ballot ? r : b.CreateZExt(r, b.getInt32Ty()));
}

// activemask() (arg 0) and lanemask_lt() (arg 1): uint32.
value type_lane_masks(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 0, 0);
  return ft.intrinsic_op(self, ft.tc_.uint32(), {}, c.loc, {}, self.arg == 0);
}

llvm::Value* lower_lane_masks_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  return result(fl, e, fl.intrinsic(self.arg == 0 ? llvm::Intrinsic::nvvm_activemask
                                                  : llvm::Intrinsic::nvvm_read_ptx_sreg_lanemask_lt, {}, {}));
}

llvm::Value* lower_lane_masks_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  if (self.arg == 1) return result(fl, e, b.CreateSub(b.CreateShl(b.getInt32(1), host_lane(fl)), b.getInt32(1)));
  llvm::FunctionCallee fn = fl.ms.mod.getOrInsertFunction("cuforge_cpu_warp_active", b.getInt32Ty(), b.getPtrTy());
  return result(fl, e, b.CreateCall(fn, {host_context(fl, e)}));
}

// The value a match compares, as numba-cuda converts it to one of its 32- and 64-bit cases:
// narrower ints and booleans to int32, uint32 to int64, float16 to float32 (each exact, so
// equal values stay equal and different ones different).
value match_value(function_typer& ft, call_args& c, const char* what) {
  const value& v = c.args[1];
  const type* t = v.ty;
  if (!t->is_scalar() || !(t->is_int() || t->is_float() || t->kind == type_kind::boolean))
    ft.no_impl(c, std::string(what) + " takes an int, float or boolean");
  if (t->kind == type_kind::boolean || (t->is_int() && t->bits < 32)) return ft.cast(v, ft.tc_.int32(), c.loc);
  if (t->is_int() && !t->is_signed) return ft.cast(v, ft.tc_.int64(), c.loc);  // uint64 keeps its bits
  if (t->is_float() && t->bits < 32) return ft.cast(v, ft.tc_.float32(), c.loc);
  return v;
}

value type_match(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 2, 2);
  value mask = ft.cast(int_arg(ft, c, 0), ft.tc_.uint32(), c.loc);
  const bool all = self.arg == match_all;
  value v = match_value(ft, c, all ? "match_all_sync" : "match_any_sync");
  // numba-cuda's results: the matching lanes (int32); for match_all, with whether all matched.
  const type* out = all ? ft.tc_.tuple({ft.tc_.int32(), ft.tc_.boolean()}) : ft.tc_.int32();
  return ft.intrinsic_op(self, out, {mask, v}, c.loc, {}, true);
}

// (mask, all): match_all's tuple, its boolean as the tuple stores one.
llvm::Value* match_all_tuple(function_lowering& fl, const expr& e, llvm::Value* lanes, llvm::Value* all) {
  auto& b = fl.b;
  llvm::Type* st = fl.ms.value_type(e.ty);
  llvm::Value* t = llvm::PoisonValue::get(st);
  t = b.CreateInsertValue(t, lanes, 0u);
  return b.CreateInsertValue(t, b.CreateZExtOrTrunc(all, st->getStructElementType(1)), 1u);
}

llvm::Value* lower_match_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  llvm::Value* bits = as_bits(fl, fl.expr(e.operands[1]));
  const bool wide = bits->getType()->isIntegerTy(64);
  llvm::Value* mask = i32_operand(fl, e, 0);
  if (self.arg == match_any)
    return result(fl, e, fl.intrinsic(wide ? llvm::Intrinsic::nvvm_match_any_sync_i64
                                           : llvm::Intrinsic::nvvm_match_any_sync_i32, {}, {mask, bits}));
  llvm::Value* r = fl.intrinsic(wide ? llvm::Intrinsic::nvvm_match_all_sync_i64p : llvm::Intrinsic::nvvm_match_all_sync_i32p,
                                {}, {mask, bits});
  return match_all_tuple(fl, e, fl.b.CreateExtractValue(r, 0u), fl.b.CreateExtractValue(r, 1u));
}

// A warp function's row: `mode` its variant, lowered per target; on the cpu backend its kernel's
// blocks run as fibers, so that the lanes can meet (cpu_needs::warp_sync).
constexpr intrinsic warp_row(std::string_view name, std::string_view params, std::string_view doc, call_typing typing,
                             int mode, intrinsic_lowering nvptx, intrinsic_lowering host) {
  return lowered_by(function_entry(name, params, doc, typing, op_id::none, mode, cpu_needs::warp_sync), nvptx, host);
}

// match.any gives the members holding this lane's value; match.all gives the mask when every
// member holds it (match.all.sync's d), else 0, and whether they did.
llvm::Value* lower_match_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  llvm::Value* mask = i32_operand(fl, e, 0);
  llvm::Value* wide = b.CreateZExt(as_bits(fl, fl.expr(e.operands[1])), b.getInt64Ty());
  llvm::FunctionCallee fn = fl.ms.mod.getOrInsertFunction("cuforge_cpu_warp_match", b.getInt64Ty(), b.getPtrTy(),
                                                          b.getInt32Ty(), b.getInt64Ty());
  llvm::Value* both = b.CreateCall(fn, {host_context(fl, e), mask, wide});
  llvm::Value* same = b.CreateTrunc(both, b.getInt32Ty());
  if (self.arg == match_any) return result(fl, e, b.CreateAnd(same, mask));
  llvm::Value* members = b.CreateTrunc(b.CreateLShr(both, 32), b.getInt32Ty());
  llvm::Value* all = b.CreateICmpEQ(same, members);
  return match_all_tuple(fl, e, b.CreateSelect(all, mask, b.getInt32(0)), all);
}

// cuda.nanosleep(ns): the thread sleeps about ns nanoseconds (at most a millisecond on a GPU).
value type_nanosleep(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  return ft.intrinsic_op(self, ft.tc_.none(), {ft.cast(int_arg(ft, c, 0), ft.tc_.uint32(), c.loc)}, c.loc, {}, true);
}

llvm::Value* lower_nanosleep_nvptx(function_lowering& fl, const intrinsic&, const expr& e) {
  fl.intrinsic(llvm::Intrinsic::nvvm_nanosleep, {}, {i32_operand(fl, e, 0)});
  return fl.ms.none_value();
}

// On the cpu backend the OS thread running the kernel thread sleeps (host_random.cpp's neighbour,
// cuforge_host_nanosleep, bound by the host JIT).
llvm::Value* lower_nanosleep_host(function_lowering& fl, const intrinsic&, const expr& e) {
  auto& b = fl.b;
  llvm::FunctionCallee f = fl.ms.mod.getOrInsertFunction("cuforge_host_nanosleep", b.getVoidTy(), b.getInt32Ty());
  b.CreateCall(f, {i32_operand(fl, e, 0)});
  return fl.ms.none_value();
}

// threadfence_block (arg 0), threadfence (1), threadfence_system (2): typed by type_no_args.
llvm::Value* lower_fence_nvptx(function_lowering& fl, const intrinsic& self, const expr&) {
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_membar_cta, llvm::Intrinsic::nvvm_membar_gl,
                                                llvm::Intrinsic::nvvm_membar_sys};
  fl.intrinsic(ids[self.arg], {}, {});
  return fl.ms.none_value();
}

// A block is one OS thread on the cpu backend: its fence only orders the compiler.
llvm::Value* lower_fence_host(function_lowering& fl, const intrinsic& self, const expr&) {
  if (self.arg == 0)
    fl.b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent, llvm::SyncScope::SingleThread);
  else
    fl.b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  return fl.ms.none_value();
}

// --- integer intrinsics: popc (arg 0), brev (1), clz (2), ffs (3) ----------------------------------

// Numba's candidates: popc and clz keep the integer's type, ffs gives
// uint32, brev takes and gives uint32 or uint64; the operand is converted to
// the candidate's parameter, which the operation works on.
value type_bits(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  const value& x = scalar_arg(ft, c, 0);
  if (x.ty->is_float() || x.ty->is_complex()) ft.no_impl(c, "it takes an integer");
  numba_resolved call = numba_resolve(ft, self, c, "it takes an integer");
  value r = ft.intrinsic_op(self, call.sig.result, std::move(call.args), c.loc);
  r.nonneg = self.arg != 1;
  return r;
}

llvm::Value* lower_bits(function_lowering& fl, const intrinsic& self, const expr& e) {
  if (e.operands.size() != 1) fl.fail_at(std::string(self.info.name) + " takes one operand", e.loc);
  const type* at = fl.type_of(e.operands[0]);
  if (!at->is_int()) fl.fail_at(std::string(self.info.name) + " of " + at->str(), e.loc);
  auto& b = fl.b;
  llvm::Value* a = fl.expr(e.operands[0]);
  llvm::Type* ty = a->getType();
  llvm::Value* r = nullptr;
  switch (self.arg) {
    case 0: r = fl.intrinsic(llvm::Intrinsic::ctpop, {ty}, {a}); break;
    case 1: r = fl.intrinsic(llvm::Intrinsic::bitreverse, {ty}, {a}); break;
    case 2: r = fl.intrinsic(llvm::Intrinsic::ctlz, {ty}, {a, b.getFalse()}); break;
    default: {
      llvm::Value* tz = fl.intrinsic(llvm::Intrinsic::cttz, {ty}, {a, b.getFalse()});
      r = b.CreateSelect(b.CreateICmpEQ(a, llvm::ConstantInt::get(ty, 0)), llvm::ConstantInt::get(ty, 0),
                         b.CreateAdd(tz, llvm::ConstantInt::get(ty, 1)));
    }
  }
  scalar_info from = scalar_of(at);
  from.is_signed = false;  // counts are never negative
  return fl.scalar_cast(r, from, scalar_of(e.ty));
}

// --- fma, cbrt: the math library's ops -----------------------------------------------------------

// Numba's candidates: float32 or float64 (cuda.fp16.hfma is the half one).
value type_fma(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 3, 3);
  numba_resolved call = numba_resolve(ft, self, c);  // its candidates' parameters are the result's type
  return ft.op(op_id::fma, call.sig.result, std::move(call.args), c.loc);
}

// cuda.selp(predicate, a, b): a where the predicate is true, else b (PTX's selp). numba-cuda's
// types: a and b of one type, float32, float64 or a 16-, 32- or 64-bit int; the result that type.
value type_selp(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 3, 3);
  const type* p = c.args[0].ty;
  if (!p->is_scalar() || !(p->is_int() || p->kind == type_kind::boolean))
    ft.no_impl(c, "the predicate must be a boolean or an integer");
  const type* t = c.args[1].ty;
  const bool ok = t == c.args[2].ty && t->is_scalar() && ((t->is_float() && t->bits >= 32) || (t->is_int() && t->bits >= 16));
  if (!ok) ft.no_impl(c, "selp takes two values of one type: float32, float64, or a 16-, 32- or 64-bit int");
  return ft.conditional(ft.truth(c.args[0], c.loc), c.args[1], c.args[2], t, c.loc);
}

// --- arrays: cuda.shared.array (arg 1), cuda.local.array (arg 0), cuda.const.array_like ------------

value type_array_alloc(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  const bool shared = self.arg == 1;
  const char* what = shared ? "cuda.shared.array" : "cuda.local.array";
  const value* shape = nullptr;
  const value* dtype = nullptr;
  if (c.args.size() > 2) ft.no_impl(c, "it takes (shape, dtype)");
  if (!c.args.empty()) shape = &c.args[0];
  if (c.args.size() > 1) dtype = &c.args[1];
  for (const auto& kw : c.kwargs) {
    const value** slot = kw.name == "shape" ? &shape : kw.name == "dtype" ? &dtype : nullptr;
    if (!slot) ft.no_impl(c, "unexpected keyword argument '" + kw.name + "'");
    if (*slot) ft.no_impl(c, "'" + kw.name + "' given twice");
    *slot = &kw.v;
  }
  if (!shape || !dtype) ft.no_impl(c, "it takes (shape, dtype)");
  if (dtype->ty->kind != type_kind::dtype)
    ft.no_impl(c, std::string("the dtype of ") + what + " must be a scalar type such as numpy.float32");
  std::vector<std::int64_t> dims;
  const std::string shape_rule = std::string("the shape of ") + what + " must be a constant integer or a tuple of them";
  if (shape->ty->is_int()) {
    auto n = ft.const_int(*shape);
    if (!n) ft.no_impl(c, shape_rule);
    dims.push_back(*n);
  } else if (shape->ty->is_tuple() && shape->literal) {
    for (const auto& e : shape->elems) {
      auto n = e.ty->is_int() ? ft.const_int(e) : std::nullopt;
      if (!n) ft.no_impl(c, shape_rule);
      dims.push_back(*n);
    }
  } else {
    ft.no_impl(c, shape_rule);
  }
  if (dims.empty()) ft.no_impl(c, std::string("a ") + what + " needs at least one dimension");
  for (auto d : dims) {
    if (d < 0) ft.no_impl(c, "an extent cannot be negative");
    if (d == 0 && !(shared && dims.size() == 1))
      ft.no_impl(c, shared ? "only a 1-d shared array may have extent 0 (the launch's dynamic shared memory)"
                           : "a local array's extents must be positive");
  }
  const type* t = ft.tc_.array(dtype->ty->dtype, static_cast<int>(dims.size()), array_layout::c, false,
                               shared ? address_space::shared : address_space::local);
  // Each call site is its own array: never evaluated twice or dropped.
  return ft.op(shared ? op_id::shared_array : op_id::local_array, t, {}, loc, dims, true);
}

value type_const_array_like(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 1, 1);
  const value& a = c.args[0];
  if (!a.ty->is_array() || a.ty->space != address_space::constant)
    ft.no_impl(c, "it takes a global NumPy array (captured as constant memory)");
  return a;
}

// A thread-coordinate row: cuda.threadIdx.x ... cuda.gridDim.z.
constexpr intrinsic coordinate_entry(std::string_view name, std::string_view doc, sreg r, int dim) {
  return lowered_by(value_entry(name, doc, read_coordinate, op_id::none, coordinate(r, dim)), lower_coordinate);
}

const intrinsic table[] = {
    module_entry("cuda", "The kernel language's names: thread coordinates, barriers, atomics, arrays."),
    module_entry("cuda.threadIdx", "The thread's index in its block, per dimension (int32)."),
    module_entry("cuda.blockIdx", "The block's index in the grid, per dimension (int32)."),
    module_entry("cuda.blockDim", "The block's shape in threads, per dimension (int32)."),
    module_entry("cuda.gridDim", "The grid's shape in blocks, per dimension (int32)."),
    module_entry("cuda.shared", "Arrays in the block's shared memory."),
    module_entry("cuda.local", "Arrays private to each thread."),
    module_entry("cuda.const", "Arrays in constant memory."),
    coordinate_entry("cuda.threadIdx.x", "The thread's x index in its block.", sreg::thread_idx, 0),
    coordinate_entry("cuda.threadIdx.y", "The thread's y index in its block.", sreg::thread_idx, 1),
    coordinate_entry("cuda.threadIdx.z", "The thread's z index in its block.", sreg::thread_idx, 2),
    coordinate_entry("cuda.blockIdx.x", "The block's x index in the grid.", sreg::block_idx, 0),
    coordinate_entry("cuda.blockIdx.y", "The block's y index in the grid.", sreg::block_idx, 1),
    coordinate_entry("cuda.blockIdx.z", "The block's z index in the grid.", sreg::block_idx, 2),
    coordinate_entry("cuda.blockDim.x", "Threads per block in x.", sreg::block_dim, 0),
    coordinate_entry("cuda.blockDim.y", "Threads per block in y.", sreg::block_dim, 1),
    coordinate_entry("cuda.blockDim.z", "Threads per block in z.", sreg::block_dim, 2),
    coordinate_entry("cuda.gridDim.x", "Blocks in the grid in x.", sreg::grid_dim, 0),
    coordinate_entry("cuda.gridDim.y", "Blocks in the grid in y.", sreg::grid_dim, 1),
    coordinate_entry("cuda.gridDim.z", "Blocks in the grid in z.", sreg::grid_dim, 2),
    lowered_by(value_entry("cuda.laneid", "The thread's lane in its warp, 0 to 31 (int32).", read_coordinate),
               lower_laneid_nvptx, lower_laneid_host),
    value_entry("cuda.warpsize", "Threads per warp: 32.", read_warpsize),
    function_entry("cuda.grid", "(ndim)",
                   "The thread's absolute position in the grid: an int64, or a tuple of ndim of them.", type_grid,
                   op_id::none, 0),
    function_entry("cuda.gridsize", "(ndim)",
                   "The grid's size in threads: an int64, or a tuple of ndim of them.", type_grid, op_id::none, 1),
    lowered_by(function_entry("cuda.syncthreads", "()", "Waits until every thread of the block has reached it.",
                              type_no_args, op_id::none, 0, cpu_needs::block_sync),
               lower_syncthreads),
    lowered_by(function_entry("cuda.syncthreads_count", "(predicate)",
                              "syncthreads(), then the number of threads whose predicate was true (int32).",
                              type_barrier_reduce, op_id::none, 0, cpu_needs::block_sync),
               lower_barrier_reduce_nvptx, lower_barrier_reduce_host),
    lowered_by(function_entry("cuda.syncthreads_and", "(predicate)",
                              "syncthreads(), then 1 if the predicate was true in every thread, else 0 (int32).",
                              type_barrier_reduce, op_id::none, 1, cpu_needs::block_sync),
               lower_barrier_reduce_nvptx, lower_barrier_reduce_host),
    lowered_by(function_entry("cuda.syncthreads_or", "(predicate)",
                              "syncthreads(), then 1 if the predicate was true in any thread, else 0 (int32).",
                              type_barrier_reduce, op_id::none, 2, cpu_needs::block_sync),
               lower_barrier_reduce_nvptx, lower_barrier_reduce_host),
    lowered_by(function_entry("cuda.syncwarp", "(mask=0xFFFFFFFF)",
                              "Waits until the warp's threads named in mask have reached it.", type_syncwarp,
                              op_id::none, 0, cpu_needs::warp_sync),
               lower_syncwarp_nvptx, lower_syncwarp_host),
    warp_row("cuda.shfl_sync", "(mask, value, src_lane)",
             "value from lane src_lane of the warp (its own when src_lane is outside it); 32- and 64-bit ints "
             "and floats.", type_shuffle, shfl_idx, lower_shuffle_nvptx, lower_shuffle_host),
    warp_row("cuda.shfl_up_sync", "(mask, value, delta)", "value from lane laneid - delta (its own below lane 0).",
             type_shuffle, shfl_up, lower_shuffle_nvptx, lower_shuffle_host),
    warp_row("cuda.shfl_down_sync", "(mask, value, delta)", "value from lane laneid + delta (its own past lane 31).",
             type_shuffle, shfl_down, lower_shuffle_nvptx, lower_shuffle_host),
    warp_row("cuda.shfl_xor_sync", "(mask, value, lane_mask)", "value from lane laneid ^ lane_mask (a butterfly).",
             type_shuffle, shfl_xor, lower_shuffle_nvptx, lower_shuffle_host),
    warp_row("cuda.all_sync", "(mask, predicate)", "True when the predicate is true in every lane of mask (boolean).",
             type_vote, vote_all, lower_vote_nvptx, lower_vote_host),
    warp_row("cuda.any_sync", "(mask, predicate)", "True when the predicate is true in any lane of mask (boolean).",
             type_vote, vote_any, lower_vote_nvptx, lower_vote_host),
    warp_row("cuda.eq_sync", "(mask, predicate)", "True when the predicate is the same in every lane of mask (boolean).",
             type_vote, vote_eq, lower_vote_nvptx, lower_vote_host),
    warp_row("cuda.ballot_sync", "(mask, predicate)", "The lanes of mask whose predicate is true, as bits (int32).",
             type_vote, vote_ballot, lower_vote_nvptx, lower_vote_host),
    warp_row("cuda.match_any_sync", "(mask, value)",
             "The lanes of mask whose value equals this lane's, as bits (int32; sm_70 and up).", type_match, match_any,
             lower_match_nvptx, lower_match_host),
    warp_row("cuda.match_all_sync", "(mask, value)",
             "(mask, True) when every lane of mask holds this lane's value, else (0, False) (int32, boolean; sm_70 and up).",
             type_match, match_all, lower_match_nvptx, lower_match_host),
    warp_row("cuda.activemask", "()", "The lanes of the warp executing this call, as bits (uint32).",
             type_lane_masks, 0, lower_lane_masks_nvptx, lower_lane_masks_host),
    lowered_by(function_entry("cuda.lanemask_lt", "()", "The bits of the lanes below this one (uint32).",
                              type_lane_masks, op_id::none, 1),
               lower_lane_masks_nvptx, lower_lane_masks_host),
    lowered_by(function_entry("cuda.nanosleep", "(ns)",
                              "Suspends the thread for about ns nanoseconds (uint32; a GPU sleeps at most about "
                              "a millisecond, sm_70 and up).", type_nanosleep),
               lower_nanosleep_nvptx, lower_nanosleep_host),
    lowered_by(function_entry("cuda.threadfence_block", "()",
                              "Orders this thread's memory accesses as seen by its block.", type_no_args, op_id::none, 0),
               lower_fence_nvptx, lower_fence_host),
    lowered_by(function_entry("cuda.threadfence", "()",
                              "Orders this thread's memory accesses as seen by the whole device.", type_no_args,
                              op_id::none, 1),
               lower_fence_nvptx, lower_fence_host),
    lowered_by(function_entry("cuda.threadfence_system", "()",
                              "Orders this thread's memory accesses as seen by the device and the host.", type_no_args,
                              op_id::none, 2),
               lower_fence_nvptx, lower_fence_host),
    lowered_by(function_entry("cuda.popc", "(x)", "The number of bits set in the integer x (x's type).", type_bits,
                              op_id::none, 0),
               lower_bits),
    lowered_by(function_entry("cuda.brev", "(x)", "The integer x with its bits in reverse order (uint32, or uint64 for 64-bit x).", type_bits,
                              op_id::none, 1),
               lower_bits),
    lowered_by(function_entry("cuda.clz", "(x)", "The number of leading zero bits of the integer x (x's type).", type_bits,
                              op_id::none, 2),
               lower_bits),
    lowered_by(function_entry("cuda.ffs", "(x)",
                              "The 1-based position of the lowest bit set in the integer x, 0 for 0 (uint32).",
                              type_bits, op_id::none, 3),
               lower_bits),
    function_entry("cuda.fma", "(a, b, c)", "a * b + c rounded once (floats).", type_fma),
    function_entry("cuda.cbrt", "(x)", "The cube root of x.", type_unary, op_id::cbrt),
    function_entry("cuda.selp", "(predicate, a, b)",
                   "a where the predicate is true, else b (one type: float32, float64 or a 16- to 64-bit int).",
                   type_selp),
    module_entry("cuda.cg", "Cooperative groups: the grid and the block as groups that sync."),
    function_entry("cuda.cg.this_grid", "()",
                   "The grid as a group; a kernel that calls it is launched cooperatively (every block "
                   "co-resident, the grid at most max_cooperative_grid_blocks).",
                   type_this_group, op_id::none, 0),
    function_entry("cuda.cg.this_thread_block", "()", "The thread's block as a group.", type_this_group, op_id::none,
                   1),
    module_entry("cuda.cg.GridGroup", "What cuda.cg.this_grid() returns."),
    lowered_by(function_entry("cuda.cg.GridGroup.sync", "()",
                              "Waits until every thread of the grid has reached it.", type_no_args, op_id::none, 0,
                              cpu_needs::grid_sync),
               lower_grid_sync_nvptx, lower_grid_sync_host),
    value_entry("cuda.cg.GridGroup.thread_rank", "The thread's rank in the grid, x fastest (int64).",
                read_group_value, op_id::none, 0),
    value_entry("cuda.cg.GridGroup.size", "The number of threads in the grid (int64).", read_group_value,
                op_id::none, 1),
    module_entry("cuda.cg.ThreadBlock", "What cuda.cg.this_thread_block() returns."),
    value_entry("cuda.cg.ThreadBlock.thread_rank", "The thread's rank in its block, x fastest (int64).",
                read_group_value, op_id::none, 2),
    value_entry("cuda.cg.ThreadBlock.size", "The number of threads in the block (int64).", read_group_value,
                op_id::none, 3),
    lowered_by(function_entry("cuda.cg.ThreadBlock.sync", "()",
                              "Waits until every thread of the block has reached it (cuda.syncthreads()).",
                              type_no_args, op_id::none, 0, cpu_needs::block_sync),
               lower_syncthreads),
    taking_compile_time_args(function_entry(
        "cuda.shared.array", "(shape, dtype)",
        "An array in the block's shared memory; shape 0 is the launch's dynamic shared memory.", type_array_alloc,
        op_id::none, 1)),
    taking_compile_time_args(function_entry("cuda.local.array", "(shape, dtype)",
                                            "An array private to the thread.", type_array_alloc, op_id::none, 0)),
    taking_compile_time_args(function_entry("cuda.const.array_like", "(ary)",
                                            "A global NumPy array read from constant memory.", type_const_array_like)),
};

}  // namespace

std::span<const intrinsic> cuda_intrinsics() { return table; }

}  // namespace cuforge::frontend::detail

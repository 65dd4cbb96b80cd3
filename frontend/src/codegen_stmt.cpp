// Statements: structured control flow (if, while and for_range with their
// else blocks, break, continue, return), assignments, raise and assert (which
// write the launch's error record and end the thread).
#include "codegen_lower.hpp"

#include <llvm/IR/Constants.h>

#include <cstddef>

namespace cuforge::frontend::detail {

bool function_lowering::terminated() const { return b.GetInsertBlock()->getTerminator() != nullptr; }

void function_lowering::continue_in_dead_block() {
  b.SetInsertPoint(llvm::BasicBlock::Create(c_(), "unreachable", fn));
}

void function_lowering::block(const std::vector<stmt_id>& ids) {
  for (stmt_id id : ids) statement(id);
}

void function_lowering::statement(stmt_id id) {
  if (id < 0 || static_cast<std::size_t>(id) >= f.stmts.size())
    fail("statement id " + std::to_string(id) + " out of range in " + f.name);
  const stmt& s = f.stmts[static_cast<std::size_t>(id)];
  if (terminated()) continue_in_dead_block();
  set_location(s.loc);
  switch (s.kind) {
    case stmt_kind::assign: {
      if (s.target < 0 || static_cast<std::size_t>(s.target) >= f.exprs.size()) fail_at("assignment without a target", s.loc);
      const frontend::expr& t = f.exprs[static_cast<std::size_t>(s.target)];
      if (t.kind != expr_kind::variable)
        fail_at("assignment to something other than a variable (the typer makes stores ops)", s.loc);
      if (t.var < 0 || static_cast<std::size_t>(t.var) >= vars_.size() || vars_[static_cast<std::size_t>(t.var)] == nullptr)
        fail_at("assignment to a variable without a type", s.loc);
      llvm::Value* v = cast(expr(s.value), type_of(s.value), f.vars[static_cast<std::size_t>(t.var)].ty);
      b.CreateStore(v, var_address(t.var));
      return;
    }
    case stmt_kind::expression: expr(s.value); return;
    case stmt_kind::if_: if_stmt(s); return;
    case stmt_kind::while_: while_stmt(s); return;
    case stmt_kind::for_range: for_range(s); return;
    case stmt_kind::break_:
      if (loops_.empty()) fail_at("break outside a loop", s.loc);
      b.CreateBr(loops_.back().brk);
      return;
    case stmt_kind::continue_:
      if (loops_.empty()) fail_at("continue outside a loop", s.loc);
      b.CreateBr(loops_.back().cont);
      return;
    case stmt_kind::return_: return_stmt(s); return;
    case stmt_kind::pass: return;
    case stmt_kind::raise_: raise_at(s); return;
    case stmt_kind::assert_: {
      auto* fail_bb = llvm::BasicBlock::Create(c_(), "assert.fail", fn);
      auto* next = llvm::BasicBlock::Create(c_(), "assert.ok", fn);
      branch_on(s.value, next, fail_bb);
      b.SetInsertPoint(fail_bb);
      raise_at(s);
      b.SetInsertPoint(next);
      return;
    }
  }
  fail_at("unknown statement kind", s.loc);
}

void function_lowering::raise_site_at(std::int32_t site, location loc, const index_error* detail) {
  if (site == no_id) {  // an unreported raise (a kernel's without debug=True): the thread ends
    ms.tgt.exit_thread(*this);
    return;
  }
  if (site < 0 || static_cast<std::size_t>(site) >= ms.tm.raise_sites.size())
    fail_at("a raising statement without its raise site", loc);
  const kernel_error code = ms.tm.raise_sites[static_cast<std::size_t>(site)].code;
  if (error_record != nullptr) {
    // The first thread to raise claims the record (code 0 -> its code), then fills it in. A device
    // function compiled alone (Numba's device ABI) is given no record: then the thread only exits.
    auto* i32 = b.getInt32Ty();
    // A field of kernel_error_record (abi.hpp), every one a 32-bit word.
    auto field = [&](std::size_t offset) {
      return b.CreateConstInBoundsGEP1_32(i32, error_record, static_cast<unsigned>(offset / 4));
    };
    auto* claim_bb = llvm::BasicBlock::Create(c_(), "raise.claim", fn);
    auto* fill = llvm::BasicBlock::Create(c_(), "raise.fill", fn);
    auto* done = llvm::BasicBlock::Create(c_(), "raise.exit", fn);
    b.CreateCondBr(b.CreateIsNotNull(error_record), claim_bb, done);
    b.SetInsertPoint(claim_bb);
    const auto order = llvm::AtomicOrdering::SequentiallyConsistent;
    auto* claim = b.CreateAtomicCmpXchg(field(offsetof(kernel_error_record, code)), b.getInt32(0), b.getInt32(static_cast<std::int32_t>(code)),
                                        llvm::Align(4), order, order);
    b.CreateCondBr(b.CreateExtractValue(claim, 1), fill, done);
    b.SetInsertPoint(fill);
    b.CreateStore(b.getInt32(site), field(offsetof(kernel_error_record, site)));
    b.CreateStore(b.getInt32(loc.line), field(offsetof(kernel_error_record, line)));
    for (std::size_t d = 0; d < 3; ++d) {
      const int dim = static_cast<int>(d);
      b.CreateStore(ms.tgt.special_register(*this, sreg::block_idx, dim), field(offsetof(kernel_error_record, block) + 4 * d));
      b.CreateStore(ms.tgt.special_register(*this, sreg::thread_idx, dim),
                    field(offsetof(kernel_error_record, thread) + 4 * d));
    }
    if (detail != nullptr) {
      b.CreateStore(b.getInt32(detail->axis), field(offsetof(kernel_error_record, axis)));
      auto wide = [&](std::size_t offset) {
        return b.CreateConstInBoundsGEP1_32(b.getInt64Ty(), error_record, static_cast<unsigned>(offset / 8));
      };
      b.CreateStore(detail->index, wide(offsetof(kernel_error_record, index)));
      b.CreateStore(detail->extent, wide(offsetof(kernel_error_record, extent)));
    }
    b.CreateBr(done);
    b.SetInsertPoint(done);
  }
  ms.tgt.exit_thread(*this);
}

void function_lowering::if_stmt(const stmt& s) {
  auto* then_bb = llvm::BasicBlock::Create(c_(), "if.then", fn);
  auto* else_bb = s.orelse.empty() ? nullptr : llvm::BasicBlock::Create(c_(), "if.else", fn);
  auto* end = llvm::BasicBlock::Create(c_(), "if.end", fn);
  branch_on(s.value, then_bb, else_bb != nullptr ? else_bb : end);
  b.SetInsertPoint(then_bb);
  block(s.body);
  if (!terminated()) b.CreateBr(end);
  if (else_bb != nullptr) {
    b.SetInsertPoint(else_bb);
    block(s.orelse);
    if (!terminated()) b.CreateBr(end);
  }
  b.SetInsertPoint(end);
}

void function_lowering::while_stmt(const stmt& s) {
  auto* cond = llvm::BasicBlock::Create(c_(), "while.cond", fn);
  auto* body = llvm::BasicBlock::Create(c_(), "while.body", fn);
  auto* orelse = llvm::BasicBlock::Create(c_(), "while.else", fn);
  auto* end = llvm::BasicBlock::Create(c_(), "while.end", fn);
  b.CreateBr(cond);
  b.SetInsertPoint(cond);
  set_location(s.loc);
  branch_on(s.value, body, orelse);
  b.SetInsertPoint(body);
  loops_.push_back({end, cond});
  block(s.body);
  loops_.pop_back();
  if (!terminated()) b.CreateBr(cond);
  // The else block runs when the condition turns false, not after a break.
  b.SetInsertPoint(orelse);
  block(s.orelse);
  if (!terminated()) b.CreateBr(end);
  b.SetInsertPoint(end);
}

// range(start, stop, step) as a counted loop: the trip count is computed
// once, in unsigned arithmetic of the variable's width, so no value of
// start, stop or step can overflow it (a step that would carry the variable
// past the type's range ends the loop as Python would). The step's sign is
// decided at run time; a zero step runs no iteration.
llvm::Value* function_lowering::trip_count(llvm::Value* start, llvm::Value* stop, llvm::Value* step, bool sgn) {
  llvm::Type* it = start->getType();
  llvm::Value* zero = llvm::ConstantInt::get(it, 0);
  llvm::Value* one = llvm::ConstantInt::get(it, 1);

  llvm::Value* up = sgn ? b.CreateICmpSGT(step, zero) : b.CreateICmpNE(step, zero);
  llvm::Value* down = sgn ? b.CreateICmpSLT(step, zero) : b.getFalse();
  // Upward: ceil((stop - start) / step) when start < stop.
  llvm::Value* up_step = b.CreateSelect(up, step, one);
  llvm::Value* up_n = b.CreateAdd(b.CreateUDiv(b.CreateSub(b.CreateSub(stop, start), one), up_step), one);
  llvm::Value* up_count = b.CreateSelect(sgn ? b.CreateICmpSLT(start, stop) : b.CreateICmpULT(start, stop), up_n, zero);
  llvm::Value* count = b.CreateSelect(up, up_count, zero, "trip.count");
  if (sgn) {
    llvm::Value* down_step = b.CreateSelect(down, b.CreateSub(zero, step), one);
    llvm::Value* down_n = b.CreateAdd(b.CreateUDiv(b.CreateSub(b.CreateSub(start, stop), one), down_step), one);
    llvm::Value* down_count = b.CreateSelect(b.CreateICmpSGT(start, stop), down_n, zero);
    count = b.CreateSelect(down, down_count, count, "trip.count");
  }
  return count;
}

void function_lowering::for_range(const stmt& s) {
  if (s.var < 0 || static_cast<std::size_t>(s.var) >= vars_.size() || vars_[static_cast<std::size_t>(s.var)] == nullptr)
    fail_at("for loop over a variable without a type", s.loc);
  const type* vt = f.vars[static_cast<std::size_t>(s.var)].ty;
  if (!vt->is_int()) fail_at("for_range over a variable of type " + vt->str(), s.loc);
  llvm::Value* start = cast(expr(s.start), type_of(s.start), vt);
  llvm::Value* stop = cast(expr(s.stop), type_of(s.stop), vt);
  llvm::Value* step = cast(expr(s.step), type_of(s.step), vt);
  llvm::Value* count = trip_count(start, stop, step, vt->is_signed);
  llvm::Type* it = start->getType();
  llvm::Value* zero = llvm::ConstantInt::get(it, 0);
  llvm::Value* one = llvm::ConstantInt::get(it, 1);
  llvm::AllocaInst* k = entry_alloca(it, "range.k");
  llvm::AllocaInst* iv = entry_alloca(it, "range.i");
  b.CreateStore(zero, k);
  b.CreateStore(start, iv);

  auto* cond = llvm::BasicBlock::Create(c_(), "for.cond", fn);
  auto* body = llvm::BasicBlock::Create(c_(), "for.body", fn);
  auto* latch = llvm::BasicBlock::Create(c_(), "for.inc", fn);
  auto* orelse = llvm::BasicBlock::Create(c_(), "for.else", fn);
  auto* end = llvm::BasicBlock::Create(c_(), "for.end", fn);
  b.CreateBr(cond);
  b.SetInsertPoint(cond);
  llvm::Value* kv = b.CreateLoad(it, k);
  b.CreateCondBr(b.CreateICmpULT(kv, count), body, orelse);
  b.SetInsertPoint(body);
  b.CreateStore(b.CreateLoad(it, iv), var_address(s.var));
  loops_.push_back({end, latch});
  block(s.body);
  loops_.pop_back();
  if (!terminated()) b.CreateBr(latch);
  b.SetInsertPoint(latch);
  set_location(s.loc);
  b.CreateStore(b.CreateAdd(b.CreateLoad(it, iv), step), iv);
  b.CreateStore(b.CreateAdd(b.CreateLoad(it, k), one, "", /*HasNUW=*/true), k);
  b.CreateBr(cond);
  b.SetInsertPoint(orelse);
  block(s.orelse);
  if (!terminated()) b.CreateBr(end);
  b.SetInsertPoint(end);
}

void function_lowering::return_stmt(const stmt& s) {
  llvm::Type* rt = fn->getReturnType();
  if (rt->isVoidTy()) {
    if (s.value != no_id) expr(s.value);  // None, or a value a kernel drops
    if (end_thread_in_region()) return;
    b.CreateRetVoid();
    return;
  }
  if (s.value == no_id) {
    b.CreateRet(llvm::Constant::getNullValue(rt));
    return;
  }
  b.CreateRet(cast(expr(s.value), type_of(s.value), tf.return_type));
}

}  // namespace cuforge::frontend::detail

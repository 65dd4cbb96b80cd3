// Records: a record value is the address of its bytes (a pointer in its
// address space). Fields load and store at their offsets with the alignment
// the layout guarantees (none for a packed record, as Numba's); nested
// records are addresses too, nested arrays C-ordered arrays over the bytes;
// whole records and nested arrays are copied.
#include "codegen_lower.hpp"

#include <llvm/IR/Constants.h>

#include <algorithm>

namespace cuforge::frontend::detail {

namespace {

// The largest power of two dividing `offset` (any, for 0).
std::int64_t offset_alignment(std::int64_t offset) { return offset == 0 ? 1 << 30 : offset & -offset; }

}  // namespace

llvm::Align function_lowering::field_alignment(const type* record, const field_info& f) {
  if (!record->aligned) return llvm::Align(1);
  std::int64_t a = std::min<std::int64_t>({f.ty->natural_align(), offset_alignment(f.offset), record->align});
  return llvm::Align(static_cast<std::uint64_t>(std::max<std::int64_t>(a, 1)));
}

void function_lowering::copy_record(llvm::Value* dst, llvm::Value* src, const type* record) {
  const llvm::Align a(static_cast<std::uint64_t>(std::max(record->align, 1)));
  b.CreateMemCpy(dst, a, src, a, b.getInt64(static_cast<std::uint64_t>(record->size)));
}

// Copies the array `src` (type `st`: the field's dtype and rank) into the
// field's bytes at `dst`, element by element in C order over the field's
// shape (the source is read through its own strides).
void function_lowering::copy_nested_array(llvm::Value* dst, const field_info& f, llvm::Value* src, const type* st) {
  std::int64_t count = 1;
  for (auto e : f.shape) count *= e;
  if (count == 0) return;
  array_parts p = unpack(src, st);
  std::vector<llvm::Value*> strides = effective_strides(st, p);
  llvm::Type* mt = ms.memory_type(f.ty);
  const auto itemsize = static_cast<std::int64_t>(ms.layout().getTypeAllocSize(mt));
  const llvm::Align elem(f.ty->is_record() ? static_cast<std::uint64_t>(std::max(f.ty->align, 1))
                                           : ms.layout().getABITypeAlign(mt).value());

  llvm::BasicBlock* pre = b.GetInsertBlock();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(c_(), "nested_copy", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(c_(), "nested_copy_done", fn);
  b.CreateBr(body);
  b.SetInsertPoint(body);
  llvm::PHINode* k = b.CreatePHI(b.getInt64Ty(), 2, "k");
  k->addIncoming(b.getInt64(0), pre);
  // k's index along each dimension (C order), then its byte offset in the source.
  llvm::Value* rest = k;
  llvm::Value* offset = b.getInt64(0);
  for (std::size_t i = f.shape.size(); i-- > 0;) {
    llvm::Value* extent = b.getInt64(static_cast<std::uint64_t>(f.shape[i]));
    llvm::Value* idx = i == 0 ? rest : b.CreateURem(rest, extent);
    if (i != 0) rest = b.CreateUDiv(rest, extent);
    offset = b.CreateAdd(offset, b.CreateMul(idx, strides[i]));
  }
  llvm::Value* from = b.CreateGEP(b.getInt8Ty(), p.data, offset);
  llvm::Value* to = b.CreateGEP(b.getInt8Ty(), dst, b.CreateMul(k, b.getInt64(static_cast<std::uint64_t>(itemsize))));
  if (f.ty->is_record()) {
    b.CreateMemCpy(to, elem, from, elem, b.getInt64(static_cast<std::uint64_t>(itemsize)));
  } else {
    b.CreateAlignedStore(b.CreateAlignedLoad(mt, from, elem), to, elem);
  }
  llvm::Value* next = b.CreateAdd(k, b.getInt64(1));
  k->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(next, b.getInt64(static_cast<std::uint64_t>(count))), body, done);
  b.SetInsertPoint(done);
}

llvm::Value* function_lowering::record_op(const frontend::expr& e) {
  const bool set = e.op == op_id::record_set;
  if (e.operands.size() != (set ? 2u : 1u)) fail_at(std::string(to_string(e.op)) + " with a wrong operand count", e.loc);
  const type* rt = type_of(e.operands[0]);
  if (!rt->is_record() || e.attrs.empty() || e.attrs[0] < 0 || static_cast<std::size_t>(e.attrs[0]) >= rt->fields.size())
    fail_at(std::string(to_string(e.op)) + " of a field " + rt->str() + " does not have", e.loc);
  const field_info& f = rt->fields[static_cast<std::size_t>(e.attrs[0])];
  llvm::Value* base = expr(e.operands[0]);
  llvm::Value* at = b.CreateInBoundsGEP(b.getInt8Ty(), base, b.getInt64(static_cast<std::uint64_t>(f.offset)));
  if (!set) {
    if (!f.shape.empty()) return make_array(e.ty, at, f.shape);
    if (f.ty->is_record()) return at;
    llvm::Type* mt = ms.memory_type(f.ty);
    return from_memory(b.CreateAlignedLoad(mt, at, field_alignment(rt, f)), f.ty);
  }
  const type* vt = type_of(e.operands[1]);
  llvm::Value* v = expr(e.operands[1]);
  if (!f.shape.empty()) {
    if (!vt->is_array() || vt->dtype != f.ty || vt->ndim != static_cast<int>(f.shape.size()))
      fail_at("record_set of nested array field '" + f.name + "' from " + vt->str(), e.loc);
    copy_nested_array(at, f, v, vt);
  } else if (f.ty->is_record()) {
    if (!vt->is_record() || vt->size != f.ty->size) fail_at("record_set of field '" + f.name + "' from " + vt->str(), e.loc);
    copy_record(at, v, f.ty);
  } else {
    b.CreateAlignedStore(to_memory(cast(v, vt, f.ty), f.ty), at, field_alignment(rt, f));
  }
  return ms.none_value();
}

}  // namespace cuforge::frontend::detail

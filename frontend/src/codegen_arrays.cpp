// Arrays: element addresses (from the extents for C and F layouts, which
// lets LLVM see a linear index it can simplify and vectorise; from the
// strides for A), loads and stores, shape and strides, views with Python's
// slice rules, and the arrays a kernel makes: shared, local and constant.
#include "codegen_lower.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include <limits>

namespace cuforge::frontend::detail {

function_lowering::array_parts function_lowering::unpack(llvm::Value* a, const type* t) {
  array_parts p;
  p.data = b.CreateExtractValue(a, 0);
  for (unsigned d = 0; d < static_cast<unsigned>(t->ndim); ++d) {
    p.shape.push_back(b.CreateExtractValue(a, {1u, d}));
    p.strides.push_back(b.CreateExtractValue(a, {2u, d}));
  }
  return p;
}

llvm::Value* function_lowering::pack(const type* t, const array_parts& p) {
  llvm::StructType* st = ms.array_struct(t);
  if (p.shape.size() != static_cast<std::size_t>(t->ndim) || p.strides.size() != p.shape.size())
    fail("array of " + std::to_string(p.shape.size()) + " extents for " + t->str());
  llvm::Value* data = in_address_space(p.data, llvm::cast<llvm::PointerType>(st->getElementType(0))->getAddressSpace());
  llvm::Value* a = llvm::PoisonValue::get(st);
  a = b.CreateInsertValue(a, data, 0);
  for (unsigned d = 0; d < static_cast<unsigned>(t->ndim); ++d) {
    a = b.CreateInsertValue(a, p.shape[d], {1u, d});
    a = b.CreateInsertValue(a, p.strides[d], {2u, d});
  }
  return a;
}

std::vector<llvm::Value*> function_lowering::effective_strides(const type* t, const array_parts& p) {
  if (t->layout == array_layout::any) return p.strides;
  const auto n = static_cast<std::size_t>(t->ndim);
  std::vector<llvm::Value*> s(n);
  llvm::Value* acc = b.getInt64(ms.layout().getTypeAllocSize(ms.memory_type(t->dtype)));
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t d = t->layout == array_layout::c ? n - 1 - i : i;
    s[d] = acc;
    acc = b.CreateNSWMul(acc, p.shape[d]);
  }
  return s;
}

llvm::Value* function_lowering::to_index(llvm::Value* v, const type* t) {
  if (t == nullptr || !(t->is_int() || t->kind == type_kind::boolean)) fail("an index of type " + (t ? t->str() : std::string("?")) + " (in " + f.name + ")");
  return scalar_cast(v, scalar_of(t), scalar_info{scalar_info::kind::integer, 64, true});
}

llvm::Value* function_lowering::element_pointer(const type* t, llvm::Value* a, std::vector<llvm::Value*> idx, bool wrap) {
  if (idx.size() != static_cast<std::size_t>(t->ndim))
    fail(std::to_string(idx.size()) + " indices into " + t->str() + " (in " + f.name + ")");
  array_parts p = unpack(a, t);
  if (wrap)
    for (std::size_t d = 0; d < idx.size(); ++d)
      idx[d] = b.CreateSelect(b.CreateICmpSLT(idx[d], b.getInt64(0)), b.CreateAdd(idx[d], p.shape[d]), idx[d]);
  if (idx.empty()) return p.data;
  llvm::Type* mt = ms.memory_type(t->dtype);
  const std::size_t n = idx.size();
  if (t->layout == array_layout::c || t->layout == array_layout::f) {
    const bool c = t->layout == array_layout::c;
    llvm::Value* lin = idx[c ? 0 : n - 1];
    for (std::size_t i = 1; i < n; ++i) {
      std::size_t d = c ? i : n - 1 - i;
      lin = b.CreateNSWAdd(b.CreateNSWMul(lin, p.shape[d]), idx[d]);
    }
    return b.CreateInBoundsGEP(mt, p.data, lin);
  }
  llvm::Value* offset = b.CreateNSWMul(idx[0], p.strides[0]);
  for (std::size_t d = 1; d < n; ++d) offset = b.CreateNSWAdd(offset, b.CreateNSWMul(idx[d], p.strides[d]));
  return b.CreateInBoundsGEP(b.getInt8Ty(), p.data, offset);
}

void function_lowering::check_bounds(const type* t, llvm::Value* a, const std::vector<llvm::Value*>& idx, bool wrap,
                                     std::int32_t site, location loc) {
  array_parts p = unpack(a, t);
  for (std::size_t d = 0; d < idx.size() && d < p.shape.size(); ++d) {
    llvm::Value* i = idx[d];
    if (wrap) i = b.CreateSelect(b.CreateICmpSLT(i, b.getInt64(0)), b.CreateAdd(i, p.shape[d]), i);
    // Unsigned: a negative index left after wrapping is out too.
    auto* out = llvm::BasicBlock::Create(c_(), "index.out", fn);
    auto* ok = llvm::BasicBlock::Create(c_(), "index.ok", fn);
    b.CreateCondBr(b.CreateICmpUGE(i, p.shape[d]), out, ok);
    b.SetInsertPoint(out);
    const index_error detail{static_cast<std::int32_t>(d), idx[d], p.shape[d]};
    raise_site_at(site, loc, &detail);
    b.SetInsertPoint(ok);
  }
}

llvm::Value* function_lowering::load_element(const type* t, llvm::Value* ptr) {
  llvm::Type* mt = ms.memory_type(t->dtype);
  return from_memory(b.CreateAlignedLoad(mt, ptr, ms.layout().getABITypeAlign(mt)), t->dtype);
}

void function_lowering::store_element(const type* t, llvm::Value* ptr, llvm::Value* v) {
  llvm::Type* mt = ms.memory_type(t->dtype);
  b.CreateAlignedStore(to_memory(v, t->dtype), ptr, ms.layout().getABITypeAlign(mt));
}

llvm::Value* function_lowering::make_array(const type* t, llvm::Value* data, const std::vector<std::int64_t>& shape) {
  if (shape.size() != static_cast<std::size_t>(t->ndim))
    fail(std::to_string(shape.size()) + "-d shape for " + t->str() + " (in " + f.name + ")");
  array_parts p;
  p.data = data;
  for (auto d : shape) p.shape.push_back(b.getInt64(static_cast<std::uint64_t>(d)));
  // Canonical strides for the layout (A arrays made here are C-contiguous).
  const type c_like = [&] {
    type x = *t;
    if (x.layout == array_layout::any) x.layout = array_layout::c;
    return x;
  }();
  p.strides = p.shape;
  p.strides = effective_strides(&c_like, p);
  return pack(t, p);
}

namespace {

bool absent(const function& f, expr_id id) {
  if (id == no_id) return true;
  const expr& e = f.at(id);
  return e.kind == expr_kind::constant && e.value.k == constant_value::kind::integer &&
         e.value.i == std::numeric_limits<std::int64_t>::min();
}

}  // namespace

// Basic indexing that keeps some dimensions: per source dimension an integer
// (dropped; negative counts from the end), ':' (kept), or a slice with
// Python's rules (PySlice_AdjustIndices: clamped bounds, any sign of step;
// a zero step gives an empty view).
llvm::Value* function_lowering::array_view(const frontend::expr& e) {
  const type* at = type_of(e.operands[0]);
  if (!at->is_array()) fail_at("array_view of " + at->str(), e.loc);
  const auto ndim = static_cast<std::size_t>(at->ndim);
  if (e.attrs.size() > ndim + 1) fail_at("array_view with more indices than dimensions", e.loc);
  // attrs[ndim], when present: integer indices are bounds-checked, raising that site.
  const std::int64_t bounds = e.attrs.size() == ndim + 1 ? e.attrs[ndim] : -1;
  array_parts p = unpack(expr(e.operands[0]), at);
  std::vector<llvm::Value*> st = effective_strides(at, p);
  llvm::Value* zero = b.getInt64(0);
  llvm::Value* one = b.getInt64(1);
  llvm::Value* offset = zero;
  array_parts out;
  std::size_t pos = 1;
  auto next_operand = [&]() -> expr_id {
    if (pos >= e.operands.size()) fail_at("array_view runs out of operands", e.loc);
    return e.operands[pos++];
  };
  for (std::size_t d = 0; d < static_cast<std::size_t>(at->ndim); ++d) {
    std::int64_t kind = d < e.attrs.size() ? e.attrs[d] : 1;
    llvm::Value* len = p.shape[d];
    if (kind == 0) {
      expr_id id = next_operand();
      llvm::Value* written = to_index(expr(id), type_of(id));
      llvm::Value* i = b.CreateSelect(b.CreateICmpSLT(written, zero), b.CreateAdd(written, len), written);
      if (bounds >= 0) {
        auto* out_of_range = llvm::BasicBlock::Create(c_(), "index.out", fn);
        auto* in_range = llvm::BasicBlock::Create(c_(), "index.ok", fn);
        b.CreateCondBr(b.CreateICmpUGE(i, len), out_of_range, in_range);
        b.SetInsertPoint(out_of_range);
        const index_error detail{static_cast<std::int32_t>(d), written, len};
        raise_site_at(static_cast<std::int32_t>(bounds), e.loc, &detail);
        b.SetInsertPoint(in_range);
      }
      offset = b.CreateAdd(offset, b.CreateMul(i, st[d]));
    } else if (kind == 1) {
      out.shape.push_back(len);
      out.strides.push_back(st[d]);
    } else if (kind == 2) {
      expr_id ids[3] = {next_operand(), next_operand(), next_operand()};
      auto value = [&](expr_id id) { return to_index(expr(id), type_of(id)); };
      llvm::Value* step = absent(f, ids[2]) ? one : value(ids[2]);
      llvm::Value* step_zero = b.CreateICmpEQ(step, zero);
      // CPython clamps the step to -PY_SSIZE_T_MAX, so that -step exists.
      llvm::Value* min64 = b.getInt64(static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::min()));
      llvm::Value* max64 = b.getInt64(static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
      step = b.CreateSelect(step_zero, one, b.CreateSelect(b.CreateICmpEQ(step, min64), b.CreateNeg(max64), step));
      llvm::Value* down = b.CreateICmpSLT(step, zero);
      llvm::Value* start = absent(f, ids[0]) ? b.CreateSelect(down, max64, zero) : value(ids[0]);
      llvm::Value* stop = absent(f, ids[1]) ? b.CreateSelect(down, min64, max64) : value(ids[1]);
      auto adjust = [&](llvm::Value* x) {
        llvm::Value* negative = b.CreateICmpSLT(x, zero);
        llvm::Value* shifted = b.CreateAdd(x, len);
        llvm::Value* low = b.CreateSelect(down, b.getInt64(static_cast<std::uint64_t>(-1)), zero);
        llvm::Value* high = b.CreateSelect(down, b.CreateSub(len, one), len);
        llvm::Value* from_end = b.CreateSelect(b.CreateICmpSLT(shifted, zero), low, shifted);
        llvm::Value* from_start = b.CreateSelect(b.CreateICmpSGE(x, len), high, x);
        return b.CreateSelect(negative, from_end, from_start);
      };
      start = adjust(start);
      stop = adjust(stop);
      llvm::Value* up_len = b.CreateSelect(
          b.CreateICmpSLT(start, stop), b.CreateAdd(b.CreateUDiv(b.CreateSub(b.CreateSub(stop, start), one), step), one), zero);
      llvm::Value* down_len = b.CreateSelect(
          b.CreateICmpSGT(start, stop),
          b.CreateAdd(b.CreateUDiv(b.CreateSub(b.CreateSub(start, stop), one), b.CreateNeg(step)), one), zero);
      llvm::Value* n = b.CreateSelect(step_zero, zero, b.CreateSelect(down, down_len, up_len));
      // An empty view keeps a valid base (no offset), as NumPy's does.
      offset = b.CreateAdd(offset, b.CreateSelect(b.CreateICmpEQ(n, zero), zero, b.CreateMul(start, st[d])));
      out.shape.push_back(n);
      out.strides.push_back(b.CreateMul(st[d], step));
    } else {
      fail_at("array_view index kind " + std::to_string(kind), e.loc);
    }
  }
  if (pos != e.operands.size()) fail_at("array_view has operands left over", e.loc);
  const type* t = e.ty;
  if (!t->is_array() || static_cast<std::size_t>(t->ndim) != out.shape.size() || t->dtype != at->dtype)
    fail_at("array_view of " + at->str() + " typed " + t->str(), e.loc);
  out.data = b.CreateGEP(b.getInt8Ty(), p.data, offset);
  return pack(t, out);
}

llvm::Value* function_lowering::array_op(const frontend::expr& e) {
  const type* t = e.ty;
  auto site = std::make_pair(index, static_cast<expr_id>(&e - f.exprs.data()));
  switch (e.op) {
    case op_id::array_load: case op_id::array_store: {
      const bool store = e.op == op_id::array_store;
      if (e.operands.empty()) fail_at(std::string(to_string(e.op)) + " without an array", e.loc);
      const type* at = type_of(e.operands[0]);
      if (!at->is_array()) fail_at(std::string(to_string(e.op)) + " on " + at->str(), e.loc);
      std::size_t first_index = store ? 2 : 1;
      if (e.operands.size() != first_index + static_cast<std::size_t>(at->ndim))
        fail_at(std::string(to_string(e.op)) + " with " + std::to_string(e.operands.size() - std::min(e.operands.size(), first_index)) +
                    " indices into a " + std::to_string(at->ndim) + "-d array",
                e.loc);
      if (store && at->space == address_space::constant) fail_at("store into a constant array", e.loc);
      llvm::Value* arr = expr(e.operands[0]);
      const bool record = at->dtype->is_record();
      llvm::Value* value = !store ? nullptr : record ? expr(e.operands[1]) : cast(expr(e.operands[1]), type_of(e.operands[1]), at->dtype);
      std::vector<llvm::Value*> idx;
      for (std::size_t i = first_index; i < e.operands.size(); ++i) idx.push_back(to_index(expr(e.operands[i]), type_of(e.operands[i])));
      const bool wrap = !e.attrs.empty() && e.attrs[0] == 1;
      if (e.attrs.size() > 1 && e.attrs[1] >= 0) check_bounds(at, arr, idx, wrap, static_cast<std::int32_t>(e.attrs[1]), e.loc);
      llvm::Value* ptr = element_pointer(at, arr, idx, wrap);
      if (record) {
        // A record element is its address; storing one copies its bytes.
        if (!store) {
          if (!t->is_record() || t->space != at->space) fail_at("array_load of a record typed " + t->str(), e.loc);
          return ptr;
        }
        copy_record(ptr, value, at->dtype);
        return ms.none_value();
      }
      if (store) {
        store_element(at, ptr, value);
        return ms.none_value();
      }
      return cast(load_element(at, ptr), at->dtype, t);
    }
    case op_id::array_shape: case op_id::array_stride: case op_id::array_size: {
      if (e.operands.size() != 1) fail_at(std::string(to_string(e.op)) + " takes one array", e.loc);
      const type* at = type_of(e.operands[0]);
      if (!at->is_array()) fail_at(std::string(to_string(e.op)) + " of " + at->str(), e.loc);
      array_parts p = unpack(expr(e.operands[0]), at);
      llvm::Value* r = nullptr;
      if (e.op == op_id::array_size) {
        r = b.getInt64(1);
        for (auto* d : p.shape) r = b.CreateMul(r, d);
      } else {
        if (e.attrs.empty() || e.attrs[0] < 0 || e.attrs[0] >= at->ndim)
          fail_at(std::string(to_string(e.op)) + " of a dimension " + at->str() + " does not have", e.loc);
        auto d = static_cast<std::size_t>(e.attrs[0]);
        r = e.op == op_id::array_shape ? p.shape[d] : p.strides[d];
      }
      return scalar_cast(r, scalar_info{scalar_info::kind::integer, 64, true}, scalar_of(t));
    }
    case op_id::array_view:
      if (e.operands.empty()) fail_at("array_view without an array", e.loc);
      return array_view(e);
    case op_id::shared_array: {
      if (!t->is_array()) fail_at("shared_array typed " + t->str(), e.loc);
      llvm::Type* mt = ms.memory_type(t->dtype);
      std::uint64_t itemsize = ms.layout().getTypeAllocSize(mt);
      if (e.attrs.size() == 1 && e.attrs[0] == 0) {
        // The launch's dynamic shared memory; its extent is what the launch gave, as in Numba.
        if (t->ndim != 1) fail_at("dynamic shared array of " + std::to_string(t->ndim) + " dimensions", e.loc);
        auto [ptr, bytes] = ms.tgt.dynamic_shared(*this);
        array_parts p;
        p.data = ptr;
        p.shape.push_back(b.CreateUDiv(bytes, b.getInt64(itemsize)));
        p.strides.push_back(b.getInt64(itemsize));
        return pack(t, p);
      }
      auto it = ms.shared_offsets.find(site);
      if (it == ms.shared_offsets.end()) fail_at("shared array not laid out", e.loc);
      std::uint64_t count = 1;
      for (auto d : e.attrs) count *= static_cast<std::uint64_t>(d);
      std::string name = "cuforge_shared_" + std::to_string(index) + "_" + std::to_string(site.second);
      return make_array(t, ms.tgt.static_shared(*this, name, mt, count, it->second), e.attrs);
    }
    case op_id::local_array: {
      if (!t->is_array()) fail_at("local_array typed " + t->str(), e.loc);
      std::uint64_t count = 1;
      for (auto d : e.attrs) {
        if (d < 0) fail_at("local array of negative extent", e.loc);
        count *= static_cast<std::uint64_t>(d);
      }
      llvm::Type* mt = ms.memory_type(t->dtype);
      auto* storage = entry_alloca(llvm::ArrayType::get(mt, count), "local_array");
      storage->setAlignment(llvm::Align(16));
      // Zeroed where it is made: the same contents on every target, every time.
      b.CreateMemSet(storage, b.getInt8(0), ms.layout().getTypeAllocSize(storage->getAllocatedType()), llvm::Align(16));
      return make_array(t, storage, e.attrs);
    }
    case op_id::const_array: {
      if (!t->is_array()) fail_at("const_array typed " + t->str(), e.loc);
      if (e.attrs.empty() || e.attrs[0] < 0 || static_cast<std::size_t>(e.attrs[0]) >= f.globals.size())
        fail_at("const_array of a global the function does not have", e.loc);
      const global_value& g = f.globals[static_cast<std::size_t>(e.attrs[0])];
      if (g.k != global_value::kind::const_array) fail_at("const_array of a global that is not an array", e.loc);
      llvm::Type* mt = ms.memory_type(t->dtype);
      std::uint64_t count = 1;
      for (auto d : g.shape) {
        if (d < 0) fail_at("constant array of negative extent", e.loc);
        count *= static_cast<std::uint64_t>(d);
      }
      if (g.bytes.size() != count * ms.layout().getTypeAllocSize(mt))
        fail_at("constant array of " + std::to_string(g.bytes.size()) + " bytes for its shape and " + t->dtype->str(), e.loc);
      auto key = std::make_pair(index, static_cast<expr_id>(-1 - e.attrs[0]));
      llvm::Value*& gv = ms.site_globals[key];
      if (gv == nullptr) {
        auto* ty = llvm::ArrayType::get(b.getInt8Ty(), g.bytes.size());
        llvm::Constant* init = llvm::ConstantDataArray::get(c_(), llvm::ArrayRef<std::uint8_t>(g.bytes.data(), g.bytes.size()));
        auto* var = new llvm::GlobalVariable(ms.mod, ty, /*isConstant=*/true, llvm::GlobalValue::InternalLinkage, init,
                                             "cuforge_const_" + std::to_string(index) + "_" + std::to_string(e.attrs[0]),
                                             nullptr, llvm::GlobalValue::NotThreadLocal,
                                             ms.tgt.address_space(address_space::constant));
        var->setAlignment(llvm::Align(16));
        var->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
        gv = var;
      }
      return make_array(t, gv, g.shape);
    }
    case op_id::array_reshape: {
      if (!t->is_array() || e.operands.size() != static_cast<std::size_t>(t->ndim) + 1 || t->layout != array_layout::c)
        fail_at("array_reshape typed " + t->str(), e.loc);
      array_parts src = unpack(expr(e.operands[0]), type_of(e.operands[0]));
      array_parts p;
      p.data = src.data;
      for (std::size_t d = 1; d < e.operands.size(); ++d) p.shape.push_back(expr(e.operands[d]));
      p.strides = p.shape;
      p.strides = effective_strides(t, p);
      return pack(t, p);
    }
    case op_id::global_array: {
      if (!t->is_array()) fail_at("global_array typed " + t->str(), e.loc);
      if (e.attrs.empty() || e.attrs[0] < 0 || static_cast<std::size_t>(e.attrs[0]) >= f.globals.size())
        fail_at("global_array of a global the function does not have", e.loc);
      const global_value& g = f.globals[static_cast<std::size_t>(e.attrs[0])];
      if (g.k != global_value::kind::device_array || g.shape.size() != static_cast<std::size_t>(t->ndim) ||
          g.strides.size() != g.shape.size())
        fail_at("global_array of a global that is not a device array of " + t->str(), e.loc);
      array_parts p;
      p.data = b.CreateIntToPtr(b.getInt64(g.address), llvm::PointerType::get(c_(), ms.tgt.address_space(address_space::global)));
      for (std::size_t d = 0; d < g.shape.size(); ++d) {
        p.shape.push_back(b.getInt64(static_cast<std::uint64_t>(g.shape[d])));
        p.strides.push_back(b.getInt64(static_cast<std::uint64_t>(g.strides[d])));
      }
      return pack(t, p);
    }
    default: break;
  }
  fail_at(std::string("not an array op: ") + to_string(e.op), e.loc);
}

// A ufunc with out=: one loop over out's elements in C order; each input array's index is out's,
// aligned to the last dimensions, 0 where the input's extent is 1 (NumPy's broadcasting; the typer
// checked that the extents agree or are 1).
llvm::Value* function_lowering::ufunc_op(const frontend::expr& e) {
  if (e.op == op_id::ufunc_element) {
    if (e.attrs.empty() || ufunc_elements.empty() || e.attrs[0] < 0 ||
        static_cast<std::size_t>(e.attrs[0]) >= ufunc_elements.back().size())
      fail_at("ufunc_element outside the ufunc loop of its array", e.loc);
    return ufunc_elements.back()[static_cast<std::size_t>(e.attrs[0])];
  }
  if (e.operands.size() < 2) fail_at("ufunc_loop without out and element", e.loc);
  const type* ot = type_of(e.operands[0]);
  if (!ot->is_array() || ot->dtype->is_record()) fail_at("ufunc_loop into " + ot->str(), e.loc);
  llvm::Value* out = expr(e.operands[0]);
  array_parts op = unpack(out, ot);
  std::vector<std::pair<const type*, llvm::Value*>> ins;
  for (std::size_t k = 1; k + 1 < e.operands.size(); ++k) {
    const type* at = type_of(e.operands[k]);
    if (!at->is_array() || at->ndim > ot->ndim) fail_at("ufunc_loop input " + at->str(), e.loc);
    ins.emplace_back(at, expr(e.operands[k]));
  }
  llvm::Value* n = b.getInt64(1);
  for (auto* d : op.shape) n = b.CreateMul(n, d);
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(c_(), "ufunc.head", fn);
  auto* body = llvm::BasicBlock::Create(c_(), "ufunc.body", fn);
  auto* done = llvm::BasicBlock::Create(c_(), "ufunc.done", fn);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, "ufunc.i");
  i->addIncoming(b.getInt64(0), pre);
  b.CreateCondBr(b.CreateICmpSLT(i, n), body, done);
  b.SetInsertPoint(body);
  std::vector<llvm::Value*> idx(static_cast<std::size_t>(ot->ndim));
  llvm::Value* rest = i;
  for (int d = ot->ndim - 1; d >= 0; --d) {
    auto du = static_cast<std::size_t>(d);
    idx[du] = d == 0 ? rest : b.CreateURem(rest, op.shape[du]);
    if (d > 0) rest = b.CreateUDiv(rest, op.shape[du]);
  }
  std::vector<llvm::Value*> elements;
  for (auto& [at, arr] : ins) {
    array_parts p = unpack(arr, at);
    const auto off = static_cast<std::size_t>(ot->ndim - at->ndim);
    std::vector<llvm::Value*> ii;
    for (std::size_t d = 0; d < p.shape.size(); ++d)
      ii.push_back(b.CreateSelect(b.CreateICmpEQ(p.shape[d], b.getInt64(1)), b.getInt64(0), idx[d + off]));
    elements.push_back(load_element(at, element_pointer(at, arr, ii, false)));
  }
  ufunc_elements.push_back(std::move(elements));
  llvm::Value* r = cast(expr(e.operands.back()), type_of(e.operands.back()), ot->dtype);
  ufunc_elements.pop_back();
  store_element(ot, element_pointer(ot, out, idx, false), r);
  i->addIncoming(b.CreateAdd(i, b.getInt64(1)), b.GetInsertBlock());
  b.CreateBr(head);
  b.SetInsertPoint(done);
  return out;
}

}  // namespace cuforge::frontend::detail

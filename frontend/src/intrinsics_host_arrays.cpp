// The registry's array-making and array-reducing rows: numpy.empty, zeros, ones, full and their
// _like forms, in host code only (cuforge.jit / njit functions, vectorize's
// CPU loops: CompileConfig::host_only). Kernels cannot allocate (numba-cuda
// refuses them too); the rows say so there. Host code allocates through
// cuforge_host_alloc (host_arrays.cpp), whose blocks the host call frees when
// it returns unless the function returns an array living in them
// (jit::call_on_host_keeping). Also cuforge.array_address, the host jit's
// entry's way to hand a returned array's data pointer to Python.
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

#include <cuforge/frontend/abi.hpp>

#include <llvm/IR/Intrinsics.h>

#include <optional>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

namespace cuforge::frontend::detail {

namespace {

// The rows' `arg`: what fills the array, plus like_base for the _like forms (and numpy.copy: its
// argument's elements).
enum fill_kind : int { fill_none = 0, fill_zero = 1, fill_one = 2, fill_value = 3, fill_copy = 4 };
constexpr int like_base = 8;

// attrs after the registry index: the raise sites of a negative extent, of a size past int64 and of
// memory that cannot be had (numpy.arange's: then of a zero step and of a length it cannot compute).
enum alloc_attr : std::size_t {
  at_negative = 1,
  at_too_big = 2,
  at_no_memory = 3,
  alloc_attrs = 4,
  at_zero_step = 4,
  at_no_length = 5,
  arange_attrs = 6
};

// (shape | prototype, [fill_value], dtype=...) bound by name as NumPy's signatures name them.
std::vector<const value*> bind_arguments(function_typer& ft, call_args& c, const std::vector<std::string>& names,
                               std::size_t required) {
  std::vector<const value*> got(names.size(), nullptr);
  if (c.args.size() > names.size())
    ft.no_impl(c, "it takes at most " + std::to_string(names.size()) + " arguments (" + [&] {
      std::string s;
      for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
      return s;
    }() + ")");
  for (std::size_t i = 0; i < c.args.size(); ++i) got[i] = &c.args[i];
  for (const auto& k : c.kwargs) {
    std::size_t j = 0;
    while (j < names.size() && names[j] != k.name) ++j;
    if (j == names.size()) ft.no_impl(c, "unexpected keyword argument '" + k.name + "'");
    if (got[j] != nullptr) ft.no_impl(c, "'" + k.name + "' given twice");
    got[j] = &k.v;
  }
  for (std::size_t i = 0; i < required; ++i)
    if (got[i] == nullptr) ft.no_impl(c, "missing argument '" + names[i] + "'");
  return got;
}

std::int64_t site(function_typer& ft, const char* exception, const char* message, location loc) {
  if (!ft.final_) return -1;
  return ft.m_.add_site({kernel_error::raised, exception, message, ft.src_.display_name(), ft.src_.filename, loc.line});
}

// Calls body(element pointer) for each element of `a` (of array type t), its indices in C order, or with
// `reverse` the last index slowest (an F array's memory order: numba's order 'K'); idx holds the indices.
template <class Body>
void each_element(function_lowering& fl, const type* t, llvm::Value* a, const function_lowering::array_parts& p,
                  std::vector<llvm::Value*>& idx, std::size_t depth, Body&& body, bool reverse = false) {
  auto& b = fl.b;
  if (depth == idx.size()) {
    body(fl.element_pointer(t, a, idx, false));
    return;
  }
  const std::size_t d = reverse ? idx.size() - 1 - depth : depth;
  llvm::BasicBlock* before = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(b.getContext(), "each", fl.fn);
  auto* after = llvm::BasicBlock::Create(b.getContext(), "each.done", fl.fn);
  b.CreateCondBr(b.CreateICmpSGT(p.shape[d], b.getInt64(0)), loop, after);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, "each.i");
  i->addIncoming(b.getInt64(0), before);
  idx[d] = i;
  each_element(fl, t, a, p, idx, depth + 1, body, reverse);
  llvm::Value* next = b.CreateNUWAdd(i, b.getInt64(1));
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, p.shape[d]), loop, after);
  b.SetInsertPoint(after);
}

// The allocating row `self`'s op making an array of type t from `operands` (its extents, or the prototype, then
// the fill value), with NumPy's errors.
// The attrs of an op that allocates (alloc_attr, after the registry index): NumPy's errors' raise sites.
std::vector<std::int64_t> allocation_sites(function_typer& ft, location loc) {
  std::vector<std::int64_t> attrs(alloc_attrs - 1);
  attrs[at_negative - 1] = site(ft, "ValueError", "negative dimensions are not allowed", loc);
  attrs[at_too_big - 1] = site(ft, "ValueError", "array is too big; `arr.size * arr.dtype.itemsize` is larger than "
                                                 "the maximum possible size.", loc);
  attrs[at_no_memory - 1] = site(ft, "MemoryError", "cannot allocate array memory", loc);
  return attrs;
}

// dtype= of a reduction: a scalar type, or (absent, None) `otherwise`.
const type* dtype_argument(function_typer& ft, call_args& c, const value* dt, const type* otherwise) {
  if (dt == nullptr || dt->ty->kind == type_kind::none) return otherwise;
  if (dt->ty->kind != type_kind::dtype || dt->ty->dtype == nullptr || !dt->ty->dtype->is_scalar())
    ft.no_impl(c, "the dtype is a scalar type such as numpy.float64, not " + dt->ty->str());
  if (dt->ty->dtype->is_float() && dt->ty->dtype->bits == 16) ft.no_impl(c, "float16 sums are not supported yet");
  return dt->ty->dtype;
}

// The number of elements of an array of extents p.shape.
llvm::Value* element_count(llvm::IRBuilder<>& b, const function_lowering::array_parts& p) {
  llvm::Value* size = b.getInt64(1);
  for (llvm::Value* s : p.shape) size = b.CreateMul(size, s);
  return size;
}

// NumPy's complex division (the ufunc's, as np.divide gives it) of re + im j by the real n + 0j: a
// multiplication by the reciprocal, rat = 0 / n, scl = 1 / (n + 0 * rat); by 0 each part over 0.
std::pair<llvm::Value*, llvm::Value*> numpy_divide_by_real(llvm::IRBuilder<>& b, llvm::Value* re, llvm::Value* im,
                                                           llvm::Value* n) {
  llvm::Value* zero = llvm::ConstantFP::get(n->getType(), 0.0);
  llvm::Value* rat = b.CreateFDiv(zero, n);
  llvm::Value* scl = b.CreateFDiv(llvm::ConstantFP::get(n->getType(), 1.0), b.CreateFAdd(n, b.CreateFMul(zero, rat)));
  llvm::Value* none = b.CreateFCmpOEQ(n, zero);
  return {b.CreateSelect(none, b.CreateFDiv(re, zero), b.CreateFMul(b.CreateFAdd(re, b.CreateFMul(im, rat)), scl)),
          b.CreateSelect(none, b.CreateFDiv(im, zero), b.CreateFMul(b.CreateFSub(im, b.CreateFMul(re, rat)), scl))};
}

// real((v - m) * conj(v - m)) in v's and m's type, as numba's var computes it: (vr + vi j)(vr - vi j)'s real
// part vr*vr - vi*(-vi) for complex numbers.
llvm::Value* squared_deviation(llvm::IRBuilder<>& b, llvm::Value* v, llvm::Value* m, bool cplx) {
  if (!cplx) {
    llvm::Value* val = b.CreateFSub(v, m);
    return b.CreateFMul(val, val);
  }
  llvm::Value* vr = b.CreateFSub(b.CreateExtractValue(v, 0), b.CreateExtractValue(m, 0));
  llvm::Value* vi = b.CreateFSub(b.CreateExtractValue(v, 1), b.CreateExtractValue(m, 1));
  return b.CreateFSub(b.CreateFMul(vr, vr), b.CreateFMul(vi, b.CreateFNeg(vi)));
}

// x < y (lo) or x > y for integers or bools of type t (bools and unsigned integers compared unsigned).
llvm::Value* int_beats(llvm::IRBuilder<>& b, const type* t, bool lo, llvm::Value* x, llvm::Value* y) {
  const bool sign = t->is_int() && t->is_signed;
  return lo ? (sign ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y))
            : (sign ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y));
}

value allocation(function_typer& ft, const intrinsic& self, const type* t, std::vector<value> operands, location loc,
                 const std::vector<std::int64_t>& extra = {}) {
  std::vector<std::int64_t> attrs = allocation_sites(ft, loc);
  attrs.insert(attrs.end(), extra.begin(), extra.end());
  return ft.intrinsic_op(self, t, std::move(operands), loc, std::move(attrs), true);
}

value type_np_alloc(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  const std::string name(self.info.name);
  if (!ft.m_.opts.host_only)
    ft.fail(loc, name + " makes a new array, and kernels cannot allocate arrays: use cuda.local.array(shape, dtype) "
                        "(per thread) or cuda.shared.array(shape, dtype) (per block) with a constant shape, or pass "
                        "the array in as an argument");
  const bool like = self.arg >= like_base;
  const int fill = self.arg % like_base;
  std::vector<std::string> names{like ? (self.arg == like_base ? "prototype" : "a") : "shape"};
  if (fill == fill_value) names.push_back("fill_value");
  if (fill != fill_copy) names.push_back("dtype");  // (numpy.copy(a) alone, as numba has it)
  const std::vector<const value*> got = bind_arguments(ft, c, names, fill == fill_copy ? 1 : names.size() - 1);
  std::vector<value> operands;
  const type* dtype = nullptr;
  int ndim = 0;
  array_layout layout = array_layout::c;
  if (like) {
    const value& a = *got[0];
    if (!a.runtime() || !a.ty->is_array()) ft.no_impl(c, "the first argument is an array, not " + a.ty->str());
    if (a.ty->dtype->is_record()) ft.no_impl(c, "arrays of records are not made in host code");
    dtype = a.ty->dtype;
    ndim = a.ty->ndim;
    // A copy is C-contiguous whatever its source (numba's a.copy() and np.copy).
    if (a.ty->layout == array_layout::f && fill != fill_copy) layout = array_layout::f;
    operands.push_back(a);
  } else {
    const value& shape = *got[0];
    std::vector<value> extents;
    if (shape.runtime() && (shape.ty->is_int() || shape.ty->kind == type_kind::boolean)) {
      extents.push_back(shape);
    } else if (shape.runtime() && shape.ty->is_tuple()) {
      extents = ft.tuple_elements(shape, loc);
    } else {
      ft.no_impl(c, "the shape is an integer or a tuple of integers, not " + shape.ty->str());
    }
    for (const value& e : extents) {
      if (!e.runtime() || !e.ty->is_int())
        ft.no_impl(c, "the shape is an integer or a tuple of integers, not " + shape.ty->str());
      operands.push_back(ft.cast(e, ft.tc_.int64(), loc));
    }
    ndim = static_cast<int>(extents.size());
  }
  const value* fill_arg = fill == fill_value ? got[1] : nullptr;
  if (fill_arg != nullptr && (!fill_arg->runtime() || !(fill_arg->ty->is_scalar())))
    ft.no_impl(c, "the fill value is a number or a bool, not " + fill_arg->ty->str());
  if (const value* d = fill == fill_copy ? nullptr : got.back(); d != nullptr && d->ty->kind != type_kind::none) {
    if (d->ty->kind != type_kind::dtype || d->ty->dtype == nullptr || !d->ty->dtype->is_scalar())
      ft.no_impl(c, "the dtype is a scalar type such as numpy.float32, not " + d->ty->str());
    dtype = d->ty->dtype;
  } else if (dtype == nullptr) {
    // NumPy's defaults: float64; full's dtype is its fill value's (numba: the value's type).
    dtype = fill_arg != nullptr ? (fill_arg->weak && fill_arg->ty->is_int() ? ft.tc_.int64() : fill_arg->ty)
                                : ft.tc_.float64();
  }
  if (fill_arg != nullptr) operands.push_back(ft.cast(*fill_arg, dtype, loc));
  return allocation(ft, self, ft.tc_.array(dtype, ndim, layout, false, address_space::global), std::move(operands),
                    loc);
}

llvm::Value* lower_np_alloc_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  fl.fail_at(std::string(self.info.name) + " allocates in host code only (cuforge.jit / njit)", e.loc);
}

// Raises e's site attrs[attr] where `bad` holds.
void raise_if(function_lowering& fl, const expr& e, llvm::Value* bad, std::size_t attr, const char* name) {
  auto& b = fl.b;
  auto* raise_bb = llvm::BasicBlock::Create(b.getContext(), std::string("alloc.") + name, fl.fn);
  auto* ok = llvm::BasicBlock::Create(b.getContext(), "alloc.ok", fl.fn);
  b.CreateCondBr(bad, raise_bb, ok);
  b.SetInsertPoint(raise_bb);
  fl.raise_site_at(static_cast<std::int32_t>(e.attrs[attr]), e.loc);
  b.SetInsertPoint(ok);
}

// A new C-layout array of `extents` for e's type, zeroed when asked, with NumPy's errors (e's sites);
// `count` gets its element count.
llvm::Value* allocate(function_lowering& fl, const expr& e, const std::vector<llvm::Value*>& extents, bool zero,
                      llvm::Value*& count) {
  auto& b = fl.b;
  const type* t = e.ty;
  llvm::Type* i64 = b.getInt64Ty();
  // The element count and the bytes, refused past int64 as NumPy refuses them.
  llvm::Value* negative = b.getFalse();
  llvm::Value* overflow = b.getFalse();
  count = b.getInt64(1);
  for (llvm::Value* x : extents) {
    negative = b.CreateOr(negative, b.CreateICmpSLT(x, b.getInt64(0)));
    llvm::Value* m = b.CreateBinaryIntrinsic(llvm::Intrinsic::smul_with_overflow, count, x);
    count = b.CreateExtractValue(m, 0);
    overflow = b.CreateOr(overflow, b.CreateExtractValue(m, 1));
  }
  raise_if(fl, e, negative, at_negative, "negative");
  llvm::Type* mt = fl.ms.memory_type(t->dtype);
  const auto itemsize = static_cast<std::int64_t>(fl.ms.layout().getTypeAllocSize(mt));
  llvm::Value* m = b.CreateBinaryIntrinsic(llvm::Intrinsic::smul_with_overflow, count, b.getInt64(itemsize));
  llvm::Value* bytes = b.CreateExtractValue(m, 0);
  raise_if(fl, e, b.CreateOr(overflow, b.CreateExtractValue(m, 1)), at_too_big, "too_big");
  llvm::FunctionCallee alloc =
      fl.ms.mod.getOrInsertFunction("cuforge_host_alloc", b.getPtrTy(), i64, b.getInt32Ty());
  llvm::Value* data = b.CreateCall(alloc, {bytes, b.getInt32(zero ? 1 : 0)});
  raise_if(fl, e, b.CreateIsNull(data), at_no_memory, "no_memory");
  return data;
}

// for (i = 0; i < count; ++i) data[i] = value(i): the elements of a new array, in order.
template <class Value>
void store_each(function_lowering& fl, const char* name, llvm::Value* data, llvm::Type* mt, llvm::Value* count,
                Value&& value) {
  auto& b = fl.b;
  llvm::BasicBlock* before = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(b.getContext(), name, fl.fn);
  auto* done = llvm::BasicBlock::Create(b.getContext(), std::string(name) + ".done", fl.fn);
  b.CreateCondBr(b.CreateICmpSGT(count, b.getInt64(0)), loop, done);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, std::string(name) + ".i");
  i->addIncoming(b.getInt64(0), before);
  b.CreateStore(value(i), b.CreateInBoundsGEP(mt, data, i));
  llvm::Value* next = b.CreateNUWAdd(i, b.getInt64(1));
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, count), loop, done);
  b.SetInsertPoint(done);
}

// The array of e's type over `data` with `extents`.
llvm::Value* array_over(function_lowering& fl, const expr& e, llvm::Value* data, const std::vector<llvm::Value*>& extents) {
  function_lowering::array_parts p;
  p.data = data;
  p.shape = extents;
  p.strides = extents;
  p.strides = fl.effective_strides(e.ty, p);
  return fl.pack(e.ty, p);
}

llvm::Value* lower_np_alloc_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  const type* t = e.ty;
  if (!t->is_array() || e.attrs.size() != alloc_attrs) fl.fail_at("malformed array allocation", e.loc);
  const bool like = self.arg >= like_base;
  const int fill = self.arg % like_base;
  const auto nd = static_cast<std::size_t>(t->ndim);
  llvm::Type* i64 = b.getInt64Ty();
  std::vector<llvm::Value*> extents;
  llvm::Value* source = nullptr;
  function_lowering::array_parts proto;
  if (like) {
    source = fl.expr(e.operands[0]);
    proto = fl.unpack(source, fl.type_of(e.operands[0]));
    extents = proto.shape;
  } else {
    for (std::size_t d = 0; d < nd; ++d) extents.push_back(fl.expr(e.operands[d]));
  }
  llvm::Value* count = nullptr;
  llvm::Value* data = allocate(fl, e, extents, fill == fill_zero, count);
  llvm::Type* mt = fl.ms.memory_type(t->dtype);
  if (fill == fill_copy) {
    // The source's elements in C order of their indices, into consecutive elements.
    llvm::AllocaInst* at = fl.entry_alloca(i64, "copy.at");
    b.CreateStore(b.getInt64(0), at);
    const type* st = fl.type_of(e.operands[0]);
    std::vector<llvm::Value*> idx(nd);
    each_element(fl, st, source, proto, idx, 0, [&](llvm::Value* from) {
      llvm::Value* k = b.CreateLoad(i64, at);
      b.CreateStore(b.CreateLoad(mt, from), b.CreateInBoundsGEP(mt, data, k));
      b.CreateStore(b.CreateNUWAdd(k, b.getInt64(1)), at);
    });
  }
  if (fill == fill_one || fill == fill_value) {
    llvm::Value* v = nullptr;
    if (fill == fill_value) {
      v = fl.expr(e.operands[like ? 1 : nd]);
    } else {
      constant_value one;
      one.k = constant_value::kind::integer;
      one.i = 1;
      v = fl.constant(t->dtype, one);
    }
    llvm::Value* stored = fl.to_memory(v, t->dtype);
    store_each(fl, "fill", data, mt, count, [&](llvm::Value*) { return stored; });
  }
  return array_over(fl, e, data, extents);
}

// --- numpy.array ----------------------------------------------------------------------------------------------
//
// numba's np.array(object, dtype=None) of a (nested) tuple of numbers, or of a list display written in the call
// (the walker passes `np.array([1, 2, n])`'s list as a tuple): a new C array of the nesting's shape, its dtype
// the elements' common type (NumPy's promotion, as numba unifies a list's items) or dtype=; of an array, a copy.

// attrs after alloc_attrs: the extents.
value type_np_array(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  if (!ft.m_.opts.host_only)
    ft.fail(loc, "numpy.array makes a new array, and kernels cannot allocate arrays: use cuda.local.array(shape, "
                 "dtype) or a tuple");
  const std::vector<const value*> got = bind_arguments(ft, c, {"object", "dtype"}, 1);
  const value& obj = *got[0];
  const type* dtype = nullptr;
  if (const value* d = got[1]; d != nullptr && d->ty->kind != type_kind::none) {
    if (d->ty->kind != type_kind::dtype || d->ty->dtype == nullptr || !d->ty->dtype->is_scalar())
      ft.no_impl(c, "the dtype is a scalar type such as numpy.float32, not " + d->ty->str());
    dtype = d->ty->dtype;
  }
  if (obj.runtime() && obj.ty->is_array()) {  // numba's: a copy
    if (dtype != nullptr && dtype != obj.ty->dtype) ft.no_impl(c, "a copy of an array with another dtype");
    const intrinsic* copy = find_entry("numpy.copy");
    if (copy == nullptr) ft.fail(loc, "internal: numpy.copy is not in the registry");
    call_args cc{"numpy.copy", {obj}, {}, loc};
    return copy->call(ft, *copy, cc);
  }
  // The shape, from the first elements down; then every element checked against it.
  std::vector<std::int64_t> shape;
  for (value v = obj; v.runtime() && v.ty->is_tuple();) {
    std::vector<value> es = ft.tuple_elements(v, loc);
    shape.push_back(static_cast<std::int64_t>(es.size()));
    if (es.empty()) break;
    v = es.front();
  }
  std::vector<value> leaves;
  const type* common = nullptr;
  auto walk = [&](auto&& self_, const value& v, std::size_t depth) -> void {
    if (depth < shape.size()) {
      if (!v.runtime() || !v.ty->is_tuple())
        ft.no_impl(c, "its elements nest alike (a sequence of " + std::to_string(shape.size()) +
                          " levels of equal lengths), not with " + v.ty->str() + " at level " + std::to_string(depth));
      std::vector<value> es = ft.tuple_elements(v, loc);
      if (static_cast<std::int64_t>(es.size()) != shape[depth])
        ft.no_impl(c, "its sequences at level " + std::to_string(depth) + " have different lengths (" +
                          std::to_string(shape[depth]) + " and " + std::to_string(es.size()) + ")");
      for (const value& e : es) self_(self_, e, depth + 1);
      return;
    }
    if (!v.runtime() || !v.ty->is_scalar() || v.ty->is_record())
      ft.no_impl(c, "it makes arrays of numbers and bools (a tuple or a list of them), not of " + v.ty->str());
    const type* t = v.weak && v.ty->is_int() ? ft.tc_.int64() : v.ty;
    common = common == nullptr ? t : promote(ft.tc_, common, t);
    if (common == nullptr) ft.no_impl(c, "its elements have no common type");
    leaves.push_back(v);
  };
  walk(walk, obj, 0);
  if (dtype == nullptr) dtype = common != nullptr ? common : ft.tc_.float64();  // (np.array(()): float64, numba's)
  if (dtype->is_float() && dtype->bits == 16) ft.no_impl(c, "float16 arrays are not made in host code yet");
  std::vector<value> operands;
  for (const value& v : leaves) operands.push_back(ft.cast(v, dtype, loc));
  return allocation(ft, self, ft.tc_.array(dtype, static_cast<int>(shape.size()), array_layout::c, false,
                                           address_space::global),
                    std::move(operands), loc, shape);
}

llvm::Value* lower_np_array_host(function_lowering& fl, const intrinsic&, const expr& e) {
  auto& b = fl.b;
  const type* t = e.ty;
  if (!t->is_array() || e.attrs.size() != alloc_attrs + static_cast<std::size_t>(t->ndim))
    fl.fail_at("malformed numpy.array", e.loc);
  std::vector<llvm::Value*> extents;
  for (int d = 0; d < t->ndim; ++d) extents.push_back(b.getInt64(e.attrs[alloc_attrs + static_cast<std::size_t>(d)]));
  llvm::Value* count = nullptr;
  llvm::Value* data = allocate(fl, e, extents, false, count);
  llvm::Type* mt = fl.ms.memory_type(t->dtype);
  for (std::size_t i = 0; i < e.operands.size(); ++i)
    b.CreateStore(fl.to_memory(fl.expr(e.operands[i]), t->dtype), b.CreateConstInBoundsGEP1_64(mt, data, i));
  return array_over(fl, e, data, extents);
}

// --- numpy.arange ----------------------------------------------------------------------------------------------
//
// numba's: arange(stop), arange(start, stop[, step]), dtype= by name; without a dtype, float64 when a bound is a
// float, else int64 (uint64 for a uint64 bound); a zero step is NumPy's ValueError; the length is
// max(ceil((stop - start) / step), 0) with the division in float64, and element i is start + i * step computed
// in the bounds' type (float64 or the integer type), then converted to the dtype.

value type_arange(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  if (!ft.m_.opts.host_only)
    ft.fail(loc, "numpy.arange makes a new array, and kernels cannot allocate arrays: pass the array in, or compute "
                 "start + i * step where the value is needed");
  const std::vector<const value*> got = bind_arguments(ft, c, {"start", "stop", "step", "dtype"}, 1);
  std::vector<const value*> bounds;
  bool any_float = false, any_u64 = false;
  for (std::size_t i = 0; i < 3; ++i) {
    const value* v = got[i];
    if (v == nullptr || v->ty->kind == type_kind::none) {
      bounds.push_back(nullptr);
      continue;
    }
    if (!v->runtime() || !(v->ty->is_int() || v->ty->is_float() || v->ty->kind == type_kind::boolean))
      ft.no_impl(c, v->ty->is_complex() ? "complex bounds are not supported"
                                        : "its bounds are numbers, not " + v->ty->str());
    any_float = any_float || v->ty->is_float();
    any_u64 = any_u64 || (v->ty->is_int() && !v->ty->is_signed && v->ty->bits == 64 && !v->weak);
    bounds.push_back(v);
  }
  const type* arith = any_float ? ft.tc_.float64() : any_u64 ? ft.tc_.uint64() : ft.tc_.int64();
  const type* dtype = arith;
  if (const value* d = got[3]; d != nullptr && d->ty->kind != type_kind::none) {
    if (d->ty->kind != type_kind::dtype || d->ty->dtype == nullptr || !d->ty->dtype->is_scalar())
      ft.no_impl(c, "the dtype is a scalar type such as numpy.float32, not " + d->ty->str());
    dtype = d->ty->dtype;
  }
  auto number = [&](std::int64_t n) {
    value v = ft.int_constant(n, ft.tc_.int64(), loc);
    return ft.cast(v, arith, loc);
  };
  // arange(stop): from 0
  value start = bounds[1] == nullptr ? number(0) : ft.cast(*bounds[0], arith, loc);
  value stop = ft.cast(bounds[1] == nullptr ? *bounds[0] : *bounds[1], arith, loc);
  value step = bounds[2] == nullptr ? number(1) : ft.cast(*bounds[2], arith, loc);
  std::vector<std::int64_t> attrs(arange_attrs - 1);
  attrs[at_negative - 1] = site(ft, "ValueError", "negative dimensions are not allowed", loc);
  attrs[at_too_big - 1] = site(ft, "ValueError", "Maximum allowed size exceeded", loc);
  attrs[at_no_memory - 1] = site(ft, "MemoryError", "cannot allocate array memory", loc);
  attrs[at_zero_step - 1] = site(ft, "ValueError", "Maximum allowed size exceeded", loc);
  attrs[at_no_length - 1] = site(ft, "ValueError", "arange: cannot compute length", loc);
  const type* t = ft.tc_.array(dtype, 1, array_layout::c, false, address_space::global);
  return ft.intrinsic_op(self, t, {start, stop, step}, loc, std::move(attrs), true);
}

llvm::Value* lower_arange_host(function_lowering& fl, const intrinsic&, const expr& e) {
  auto& b = fl.b;
  if (!e.ty->is_array() || e.attrs.size() != arange_attrs || e.operands.size() != 3)
    fl.fail_at("malformed numpy.arange", e.loc);
  const type* at = fl.type_of(e.operands[0]);
  const bool is_float = at->is_float();
  llvm::Value* start = fl.expr(e.operands[0]);
  llvm::Value* stop = fl.expr(e.operands[1]);
  llvm::Value* step = fl.expr(e.operands[2]);
  llvm::Type* f64 = b.getDoubleTy();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* zero_step = is_float ? b.CreateFCmpOEQ(step, llvm::ConstantFP::get(f64, 0.0))
                                    : b.CreateICmpEQ(step, llvm::ConstantInt::get(step->getType(), 0));
  raise_if(fl, e, zero_step, at_zero_step, "zero_step");
  auto to_f64 = [&](llvm::Value* v) {
    if (is_float) return v;
    return at->is_signed ? b.CreateSIToFP(v, f64) : b.CreateUIToFP(v, f64);
  };
  llvm::Value* diff = is_float ? b.CreateFSub(stop, start) : b.CreateSub(stop, start);
  llvm::Value* q = b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, b.CreateFDiv(to_f64(diff), to_f64(step)));
  // nan (inf - inf, a nan bound): no length; past int64: too big
  raise_if(fl, e, b.CreateFCmpUNO(q, q), at_no_length, "no_length");
  raise_if(fl, e, b.CreateFCmpOGE(q, llvm::ConstantFP::get(f64, 9223372036854775808.0)), at_too_big, "huge");
  llvm::Value* n = b.CreateSelect(b.CreateFCmpOLT(q, llvm::ConstantFP::get(f64, 0.0)), b.getInt64(0),
                                  b.CreateFPToSI(q, i64), "arange.n");
  llvm::Value* count = nullptr;
  llvm::Value* data = allocate(fl, e, {n}, false, count);
  const type* dt = e.ty->dtype;
  llvm::Type* mt = fl.ms.memory_type(dt);
  // data[i] = start + i * step
  store_each(fl, "arange", data, mt, n, [&](llvm::Value* i) {
    llvm::Value* v = is_float ? b.CreateFAdd(start, b.CreateFMul(b.CreateSIToFP(i, f64), step))
                              : b.CreateAdd(start, b.CreateMul(b.CreateZExtOrTrunc(i, start->getType()), step));
    return fl.to_memory(fl.scalar_cast(v, scalar_of(at), scalar_of(dt)), dt);
  });
  return array_over(fl, e, data, {n});
}

// --- numpy.linspace ------------------------------------------------------------------------------------------
//
// numba's: linspace(start, stop, num=50), float64 (complex128 when a bound is complex); start and stop taken in
// that type, step = (stop - start) / (num - 1) as np.divide makes it (a complex step is NumPy's complex
// division by num - 1 + 0j: a multiplication by the reciprocal), element i start + i * step, the last element
// stop itself; num = 1 gives [start], num = 0 an empty array, a negative num ValueError.

value type_linspace(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  if (!ft.m_.opts.host_only)
    ft.fail(loc, "numpy.linspace makes a new array, and kernels cannot allocate arrays: pass the array in, or "
                 "compute start + i * (stop - start) / (num - 1) where the value is needed");
  const std::vector<const value*> got = bind_arguments(ft, c, {"start", "stop", "num"}, 2);
  bool any_complex = false;
  for (std::size_t i = 0; i < 2; ++i) {
    const value& v = *got[i];
    if (!v.runtime() || !(v.ty->is_int() || v.ty->is_float() || v.ty->is_complex()))
      ft.no_impl(c, "its bounds are numbers, not " + v.ty->str());
    any_complex = any_complex || v.ty->is_complex();
  }
  const type* dtype = any_complex ? ft.tc_.complex(128) : ft.tc_.float64();
  value num = ft.int_constant(50, ft.tc_.int64(), loc, true);
  if (const value* n = got[2]; n != nullptr) {
    if (!n->runtime() || !n->ty->is_int()) ft.no_impl(c, "The argument \"num\" must be an integer");
    num = ft.cast(*n, ft.tc_.int64(), loc);
  }
  const type* t = ft.tc_.array(dtype, 1, array_layout::c, false, address_space::global);
  return ft.intrinsic_op(self, t, {ft.cast(*got[0], dtype, loc), ft.cast(*got[1], dtype, loc), num}, loc,
                         allocation_sites(ft, loc), true);
}

llvm::Value* lower_linspace_host(function_lowering& fl, const intrinsic&, const expr& e) {
  auto& b = fl.b;
  if (!e.ty->is_array() || e.attrs.size() != alloc_attrs || e.operands.size() != 3)
    fl.fail_at("malformed numpy.linspace", e.loc);
  const type* dt = e.ty->dtype;
  const bool cplx = dt->is_complex();
  llvm::Value* start = fl.expr(e.operands[0]);
  llvm::Value* stop = fl.expr(e.operands[1]);
  llvm::Value* n = fl.expr(e.operands[2]);
  llvm::Type* f64 = b.getDoubleTy();
  llvm::Value* count = nullptr;
  llvm::Value* data = allocate(fl, e, {n}, false, count);
  llvm::Type* mt = fl.ms.memory_type(dt);
  auto re = [&](llvm::Value* z) { return cplx ? b.CreateExtractValue(z, 0) : z; };
  auto im = [&](llvm::Value* z) { return cplx ? b.CreateExtractValue(z, 1) : nullptr; };
  auto make = [&](llvm::Value* r, llvm::Value* i) {
    if (!cplx) return r;
    llvm::Value* z = llvm::PoisonValue::get(start->getType());
    return b.CreateInsertValue(b.CreateInsertValue(z, r, 0), i, 1);
  };
  llvm::Value* zero = llvm::ConstantFP::get(f64, 0.0);
  // div = num - 1 (used where num > 1); the step, as np.divide makes it
  llvm::Value* div = b.CreateSIToFP(b.CreateSub(n, b.getInt64(1)), f64);
  llvm::Value* dr = b.CreateFSub(re(stop), re(start));
  llvm::Value* sr = nullptr;
  llvm::Value* si = nullptr;
  if (cplx) {
    std::tie(sr, si) = numpy_divide_by_real(b, dr, b.CreateFSub(im(stop), im(start)), div);
  } else {
    sr = b.CreateFDiv(dr, div);
  }
  llvm::Value* many = b.CreateICmpSGT(n, b.getInt64(1));
  store_each(fl, "linspace", data, mt, n, [&](llvm::Value* i) {
    llvm::Value* x = b.CreateSIToFP(i, f64);
    // start + i * step (a complex product with i + 0j: numba's), start alone when num is 1
    llvm::Value* r = b.CreateFAdd(re(start), cplx ? b.CreateFSub(b.CreateFMul(x, sr), b.CreateFMul(zero, si))
                                                   : b.CreateFMul(x, sr));
    llvm::Value* v = nullptr;
    if (cplx) {
      llvm::Value* ip = b.CreateFAdd(im(start), b.CreateFAdd(b.CreateFMul(x, si), b.CreateFMul(zero, sr)));
      v = make(r, ip);
    } else {
      v = r;
    }
    return fl.to_memory(b.CreateSelect(many, v, start), dt);
  });
  // the last element is stop itself
  auto* last = llvm::BasicBlock::Create(b.getContext(), "linspace.last", fl.fn);
  auto* done = llvm::BasicBlock::Create(b.getContext(), "linspace.done", fl.fn);
  b.CreateCondBr(many, last, done);
  b.SetInsertPoint(last);
  b.CreateStore(fl.to_memory(stop, dt), b.CreateInBoundsGEP(mt, data, b.CreateSub(n, b.getInt64(1))));
  b.CreateBr(done);
  b.SetInsertPoint(done);
  return array_over(fl, e, data, {n});
}

// --- reductions: numpy.sum, prod, min/amin, max/amax, mean and the array methods ---------------------------
//
// numba's: one pass over the elements in the order numba's iterators take (C order of the indices, an F
// array's memory order), without reassociation, so float sums are the same; sum and prod accumulate integers
// in int64 (uint64 for unsigned ones, int64 for bools), floats and complex numbers in their own type, sum in
// dtype= where given; mean divides that sum (float64 for integers and bools) by the size (an empty array's
// mean is nan); min and max keep the first nan they meet (complex numbers compare real part, then imaginary,
// and keep the first of equals: numba's), and refuse an empty array with NumPy's ValueError.
// sum(axis=): an integer or a tuple of them, each checked against the dimensions at run time (NumPy's
// AxisError; a repeated axis ValueError); the result a new C array of the other dimensions, each element the
// sum of its elements in the same order, or a number when every dimension is reduced (axis=() copies).
enum reduce_kind : int {
  r_sum = 0, r_prod = 1, r_min = 2, r_max = 3, r_mean = 4, r_var = 5, r_std = 6, r_argmin = 7, r_argmax = 8,
  r_all = 9, r_any = 10, r_cumsum = 11, r_cumprod = 12, r_nansum = 13, r_nanprod = 14, r_nanmin = 15, r_nanmax = 16,
  r_nanmean = 17, r_nanvar = 18, r_nanstd = 19
};

// sum's attrs with axis=: the allocation's (alloc_attr), then the sites of an axis out of bounds and of one
// given twice.
enum sum_attr : std::size_t { at_axis = 4, at_duplicate = 5, sum_axis_attrs = 6 };
// argmin's and argmax's: the allocation's, the axis's, then the site of an empty array (or slice).
enum arg_attr : std::size_t { at_arg_empty = 5, arg_attrs = 6 };

value type_reduce(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  const std::string name(self.info.name);
  if (!ft.m_.opts.host_only)
    ft.fail(loc, name + " runs in host code only (cuforge.jit / njit); kernels reduce with loops, atomics or "
                        "cuda.reduce");
  const int kind = self.arg;
  // numba's sum and cumsum take axis= and dtype=, argmin and argmax axis= (None only here); the rest the array.
  const bool summing = kind == r_sum || kind == r_cumsum;
  const bool nan_spread = kind == r_nanvar || kind == r_nanstd;
  std::vector<const value*> got =
      summing                                ? bind_arguments(ft, c, {"a", "axis", "dtype"}, 1)
      : kind == r_argmin || kind == r_argmax ? bind_arguments(ft, c, {"a", "axis"}, 1)
      : nan_spread                           ? bind_arguments(ft, c, {"a", "axis", "dtype", "out", "ddof"}, 1)
                                             : bind_arguments(ft, c, {"a"}, 1);
  const value& a = *got[0];
  if (!a.runtime() || !a.ty->is_array() || !a.ty->dtype->is_scalar())
    ft.no_impl(c, "it reduces an array of numbers, not " + a.ty->str());
  const type* d = a.ty->dtype;
  const type* r = d;
  std::vector<value> operands{a};
  std::vector<std::int64_t> attrs;
  if (kind == r_sum || kind == r_prod || kind == r_cumsum || kind == r_cumprod || kind == r_nansum ||
      kind == r_nanprod) {  // (numba's accumulator; the nan forms leave nans out)
    if (d->kind == type_kind::boolean || (d->is_int() && d->is_signed)) r = ft.tc_.int64();
    else if (d->is_int()) r = ft.tc_.uint64();
  } else if (kind == r_mean) {
    if (d->kind == type_kind::boolean || d->is_int()) r = ft.tc_.float64();
  } else if (kind == r_var || kind == r_std) {
    r = ft.tc_.float64();  // (numba's sum of squares starts from the integer 0: float64 whatever the array)
  } else if (kind == r_argmin || kind == r_argmax) {
    if (d->is_complex()) ft.no_impl(c, "numba has no " + name.substr(6) + " of complex arrays");
    r = ft.tc_.int64();
    // numba's: the flattened array's index, or along axis= a new array of the other dimensions (a 1-d
    // array's axis 0: the index itself); an axis out of range ValueError("axis is out of bounds")
    attrs = allocation_sites(ft, loc);
    attrs.resize(arg_attrs - 1, -1);
    if (const value* ax = got[1]; ax != nullptr && ax->ty->kind != type_kind::none) {
      if (!ax->runtime() || !ax->ty->is_int()) ft.no_impl(c, "axis must be an integer, not " + ax->ty->str());
      operands.push_back(ft.cast(*ax, ft.tc_.int64(), loc));
      attrs[at_axis - 1] = site(ft, "ValueError", "axis is out of bounds", loc);
      if (a.ty->ndim > 1) r = ft.tc_.array(r, a.ty->ndim - 1, array_layout::c, false, address_space::global);
    }
    attrs[at_arg_empty - 1] = site(ft, "ValueError", kind == r_argmin ? "attempt to get argmin of an empty sequence"
                                                                      : "attempt to get argmax of an empty sequence",
                                   loc);
  } else if (kind == r_all || kind == r_any) {
    r = ft.tc_.boolean();
  } else if (kind == r_nanmean) {  // numba's sum starts from 0.0: float64, or complex128
    r = d->is_complex() ? ft.tc_.complex(128) : ft.tc_.float64();
  } else if (nan_spread) {
    r = ft.tc_.float64();
    const char* fn = kind == r_nanvar ? "nanvar" : "nanstd";
    for (std::size_t i = 1; i <= 3; ++i)
      if (got[i] != nullptr && got[i]->ty->kind != type_kind::none)
        ft.no_impl(c, std::string("Numba does not support ") + fn + " with " + (i == 1 ? "axis" : i == 2 ? "dtype" : "out") +
                          ".");
    if (const value* dd = got[4]; dd != nullptr) {
      if (!dd->runtime() || !dd->ty->is_int()) ft.no_impl(c, "ddof is an integer, not " + dd->ty->str());
      operands.push_back(ft.cast(*dd, ft.tc_.int64(), loc));
    } else {
      operands.push_back(ft.int_constant(0, ft.tc_.int64(), loc));
    }
  }
  if (kind == r_nanmean || nan_spread) {
    // (operands: the array, ddof, and a zero of the type the moments are computed in, for the lowering)
    if (kind == r_nanmean) operands.push_back(ft.int_constant(0, ft.tc_.int64(), loc));
    const type* wide = d->is_complex() ? ft.tc_.complex(128) : ft.tc_.float64();
    operands.push_back(ft.cast(ft.int_constant(0, ft.tc_.int64(), loc), wide, loc));
  }
  if (d->is_float() && d->bits == 16) ft.no_impl(c, "float16 arrays are not reduced yet");
  bool by_axis = false;
  if (kind == r_cumsum || kind == r_cumprod) {
    // A new array of the running sums (products) in C order: 1-d of a's size, or along axis= a's shape.
    r = dtype_argument(ft, c, kind == r_cumsum ? got[2] : nullptr, r);
    int ndim = 1;
    if (const value* ax = kind == r_cumsum ? got[1] : nullptr; ax != nullptr && ax->ty->kind != type_kind::none) {
      if (!ax->runtime() || !ax->ty->is_int()) ft.no_impl(c, "NumPy cumsum only suppports integer axis value");
      operands.push_back(ft.cast(*ax, ft.tc_.int64(), loc));
      if (a.ty->ndim > 1) ndim = a.ty->ndim;
    }
    attrs = allocation_sites(ft, loc);
    attrs.resize(sum_axis_attrs - 1, -1);
    // numba's cumsum says ValueError (not AxisError), in NumPy's words
    if (ft.final_ && operands.size() > 1)
      attrs[at_axis - 1] = ft.m_.add_site({kernel_error::axis, "ValueError", "", ft.src_.display_name(),
                                           ft.src_.filename, loc.line});
    r = ft.tc_.array(r, ndim, array_layout::c, false, address_space::global);
  } else if (kind == r_sum) {
    r = dtype_argument(ft, c, got[2], r);
    if (const value* ax = got[1]; ax != nullptr && ax->ty->kind != type_kind::none) {
      std::vector<value> axes;
      auto integer = [&](const value& v) { return v.runtime() && v.ty->is_int(); };
      if (integer(*ax)) axes.push_back(*ax);
      else if (ax->runtime() && ax->ty->is_tuple()) axes = ft.tuple_elements(*ax, loc);
      else ft.no_impl(c, "NumPy sum only supports integer axis value or tuple of integers, not " + ax->ty->str());
      for (const value& v : axes) {
        if (!integer(v))
          ft.no_impl(c, "NumPy sum only supports integer axis value or tuple of integers, not " + ax->ty->str());
        operands.push_back(ft.cast(v, ft.tc_.int64(), loc));
      }
      by_axis = true;
      attrs = allocation_sites(ft, loc);
      attrs.resize(sum_axis_attrs - 1);
      if (ft.final_) {
        attrs[at_axis - 1] = ft.m_.add_site({kernel_error::axis, std::string(python_exception_of(kernel_error::axis)),
                                             "", ft.src_.display_name(), ft.src_.filename, loc.line});
      } else {
        attrs[at_axis - 1] = -1;
      }
      attrs[at_duplicate - 1] = site(ft, "ValueError", "duplicate value in 'axis'", loc);
      // numba's: a new array of the dimensions left, or a number when none is (axis=() copies).
      const int left = a.ty->ndim - static_cast<int>(axes.size());
      if (axes.empty() || left > 0)
        r = ft.tc_.array(r, axes.empty() ? a.ty->ndim : left, array_layout::c, false, address_space::global);
    }
  }
  if ((kind == r_min || kind == r_max) && !by_axis)
    attrs.push_back(site(ft, "ValueError", kind == r_min ? "zero-size array to reduction operation minimum which "
                                                           "has no identity"
                                                         : "zero-size array to reduction operation maximum which "
                                                           "has no identity", loc));
  if (kind == r_nanmin || kind == r_nanmax)
    attrs.push_back(site(ft, "ValueError", "zero-size array to reduction operation not possible", loc));
  if (kind == r_var || kind == r_std)  // the sum of squares over the size: numba's error model decides an empty one
    attrs.push_back(ft.m_.opts.check_divisors ? site(ft, "ZeroDivisionError", "division by zero", loc) : -1);
  // Evaluated once where it stands (an operand of an array expression would otherwise be recomputed per element).
  return ft.intrinsic_op(self, r, std::move(operands), loc, std::move(attrs), true);
}

llvm::Value* lower_reduce_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  fl.fail_at(std::string(self.info.name) + " runs in host code only (cuforge.jit / njit)", e.loc);
}

// acc op x for sum (prod): bools or, complex numbers numba's way ((a*c - b*d) + (a*d + b*c)i for a product).
llvm::Value* accumulate(function_lowering& fl, int kind, const type* acc_t, llvm::Value* cur, llvm::Value* x) {
  auto& b = fl.b;
  if (acc_t->is_complex()) {
    llvm::Value* ar = b.CreateExtractValue(cur, 0);
    llvm::Value* ai = b.CreateExtractValue(cur, 1);
    llvm::Value* xr = b.CreateExtractValue(x, 0);
    llvm::Value* xi = b.CreateExtractValue(x, 1);
    llvm::Value* re = nullptr;
    llvm::Value* im = nullptr;
    if (kind == r_prod) {
      re = b.CreateFSub(b.CreateFMul(ar, xr), b.CreateFMul(ai, xi));
      im = b.CreateFAdd(b.CreateFMul(ar, xi), b.CreateFMul(ai, xr));
    } else {
      re = b.CreateFAdd(ar, xr);
      im = b.CreateFAdd(ai, xi);
    }
    return b.CreateInsertValue(b.CreateInsertValue(cur, re, 0), im, 1);
  }
  if (acc_t->kind == type_kind::boolean) return kind == r_prod ? b.CreateAnd(cur, x) : b.CreateOr(cur, x);
  if (acc_t->is_float()) return kind == r_prod ? b.CreateFMul(cur, x) : b.CreateFAdd(cur, x);
  return kind == r_prod ? b.CreateMul(cur, x) : b.CreateAdd(cur, x);
}

// Axis value `ax` of e checked against the nd dimensions (e's at_axis site raises NumPy's words for one out of
// range), counted from the front.
llvm::Value* checked_axis(function_lowering& fl, const expr& e, llvm::Value* ax, std::size_t nd) {
  auto& b = fl.b;
  llvm::Value* ndim = b.getInt64(static_cast<std::int64_t>(nd));
  auto* bad = llvm::BasicBlock::Create(b.getContext(), "axis.bad", fl.fn);
  auto* ok = llvm::BasicBlock::Create(b.getContext(), "axis.ok", fl.fn);
  b.CreateCondBr(b.CreateOr(b.CreateICmpSLT(ax, b.CreateNeg(ndim)), b.CreateICmpSGE(ax, ndim)), bad, ok);
  b.SetInsertPoint(bad);
  const function_lowering::index_error detail{0, ax, ndim};
  fl.raise_site_at(static_cast<std::int32_t>(e.attrs[at_axis]), e.loc, &detail);
  b.SetInsertPoint(ok);
  return b.CreateSelect(b.CreateICmpSLT(ax, b.getInt64(0)), b.CreateAdd(ax, ndim), ax);
}

// An array with the dimensions `axes` (run-time values, counted from the front) taken out: its extents (the
// other dimensions' in order; res_ndim of them) and, per dimension of the source, the C stride of the result
// element its index moves (0 for a dimension taken out).
struct projection {
  std::vector<llvm::Value*> shape, strides;
};

projection project(function_lowering& fl, const function_lowering::array_parts& p,
                   const std::vector<llvm::Value*>& axes, std::size_t res_ndim) {
  auto& b = fl.b;
  const std::size_t nd = p.shape.size();
  projection r{std::vector<llvm::Value*>(res_ndim, b.getInt64(1)), std::vector<llvm::Value*>(nd)};
  std::vector<llvm::Value*> kept(nd);
  llvm::Value* before = b.getInt64(0);
  for (std::size_t d = 0; d < nd; ++d) {
    kept[d] = b.getTrue();
    for (llvm::Value* ax : axes)
      kept[d] = b.CreateAnd(kept[d], b.CreateICmpNE(ax, b.getInt64(static_cast<std::int64_t>(d))));
    for (std::size_t j = 0; j < res_ndim; ++j)
      r.shape[j] = b.CreateSelect(b.CreateAnd(kept[d], b.CreateICmpEQ(before, b.getInt64(static_cast<std::int64_t>(j)))),
                                  p.shape[d], r.shape[j]);
    before = b.CreateAdd(before, b.CreateZExt(kept[d], b.getInt64Ty()));
  }
  llvm::Value* running = b.getInt64(1);
  for (std::size_t d = nd; d-- > 0;) {
    r.strides[d] = b.CreateSelect(kept[d], running, b.getInt64(0));
    running = b.CreateSelect(kept[d], b.CreateMul(running, p.shape[d]), running);
  }
  return r;
}

// sum(axis=...): the axes checked (each in bounds, none twice: numba's order of checks), then, for an array
// result, each element added into the result element of its other indices.
llvm::Value* lower_sum_axes(function_lowering& fl, const expr& e, llvm::Value* a,
                            const function_lowering::array_parts& p) {
  auto& b = fl.b;
  const type* at = fl.type_of(e.operands[0]);
  const auto nd = static_cast<std::size_t>(at->ndim);
  std::vector<llvm::Value*> axes;
  for (std::size_t i = 1; i < e.operands.size(); ++i) axes.push_back(checked_axis(fl, e, fl.expr(e.operands[i]), nd));
  for (std::size_t i = 1; i < axes.size(); ++i) {
    llvm::Value* twice = b.getFalse();
    for (std::size_t j = 0; j < i; ++j) twice = b.CreateOr(twice, b.CreateICmpEQ(axes[i], axes[j]));
    raise_if(fl, e, twice, at_duplicate, "duplicate_axis");
  }
  if (!e.ty->is_array()) return nullptr;  // every dimension reduced: the whole array's sum
  const projection pr = project(fl, p, axes, static_cast<std::size_t>(e.ty->ndim));
  const std::vector<llvm::Value*>& res_shape = pr.shape;
  const std::vector<llvm::Value*>& rs = pr.strides;
  llvm::Value* count = nullptr;
  llvm::Value* data = allocate(fl, e, res_shape, true, count);
  const type* d = at->dtype;
  const type* rt = e.ty->dtype;
  llvm::Type* mt = fl.ms.memory_type(d);
  llvm::Type* rmt = fl.ms.memory_type(rt);
  std::vector<llvm::Value*> idx(nd);
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* flat = b.getInt64(0);
    for (std::size_t k = 0; k < nd; ++k) flat = b.CreateAdd(flat, b.CreateMul(idx[k], rs[k]));
    llvm::Value* to = b.CreateInBoundsGEP(rmt, data, flat);
    llvm::Value* x = fl.scalar_cast(fl.from_memory(b.CreateLoad(mt, ptr), d), scalar_of(d), scalar_of(rt));
    llvm::Value* cur = fl.from_memory(b.CreateLoad(rmt, to), rt);
    b.CreateStore(fl.to_memory(accumulate(fl, r_sum, rt, cur, x), rt), to);
  }, at->layout == array_layout::f);
  return array_over(fl, e, data, res_shape);
}

// The whole array reduced by sum, prod, min, max or mean (kind) into acc_t (mean: the sum's type; its
// result is numba's `dtype.type(c / a.size)`); empty_site: min's and max's raise site for an empty array.
// Whether v (of type d) is a nan (a complex number: either part); false for other types.
llvm::Value* is_nan(function_lowering& fl, const type* d, llvm::Value* v) {
  auto& b = fl.b;
  if (d->is_complex()) {
    llvm::Value* re = b.CreateExtractValue(v, 0);
    llvm::Value* im = b.CreateExtractValue(v, 1);
    return b.CreateOr(b.CreateFCmpUNO(re, re), b.CreateFCmpUNO(im, im));
  }
  return d->is_float() ? b.CreateFCmpUNO(v, v) : b.getFalse();
}

llvm::Value* reduce_whole(function_lowering& fl, int kind, const type* at, llvm::Value* a,
                          const function_lowering::array_parts& p, const type* acc_t, std::int64_t empty_site,
                          location loc, bool skip_nans = false) {
  auto& b = fl.b;
  const type* d = at->dtype;
  llvm::Type* vt = fl.ms.value_type(acc_t);
  llvm::AllocaInst* acc = fl.entry_alloca(vt, "reduce.acc");
  // the starting value: 0, 1, or the type's largest/smallest (+-inf for floats; true/false for bools; a
  // complex number's is its first element)
  constant_value start;
  start.k = constant_value::kind::integer;
  start.i = kind == r_prod ? 1 : 0;
  llvm::Value* init = fl.constant(acc_t, start);
  llvm::AllocaInst* seen = nullptr;
  llvm::AllocaInst* nan_met = nullptr;
  llvm::AllocaInst* first_nan = nullptr;
  if (kind == r_min || kind == r_max) {
    const bool lo = kind == r_min;
    if (d->is_complex()) {
      seen = fl.entry_alloca(b.getInt1Ty(), "reduce.seen");
      b.CreateStore(b.getFalse(), seen);
    } else if (d->is_float()) {
      init = llvm::ConstantFP::getInfinity(vt, !lo);
      nan_met = fl.entry_alloca(b.getInt1Ty(), "reduce.nan_met");
      first_nan = fl.entry_alloca(vt, "reduce.first_nan");
      b.CreateStore(b.getFalse(), nan_met);
      b.CreateStore(init, first_nan);
    } else if (d->kind == type_kind::boolean) {
      init = b.getInt1(lo);
    } else {
      const unsigned bits = static_cast<unsigned>(d->bits);
      init = b.getInt(d->is_signed ? (lo ? llvm::APInt::getSignedMaxValue(bits) : llvm::APInt::getSignedMinValue(bits))
                                   : (lo ? llvm::APInt::getMaxValue(bits) : llvm::APInt::getMinValue(bits)));
    }
  }
  b.CreateStore(init, acc);
  llvm::Type* mt = fl.ms.memory_type(d);
  std::vector<llvm::Value*> idx(static_cast<std::size_t>(at->ndim));
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* v = fl.from_memory(b.CreateLoad(mt, ptr), d);
    llvm::Value* cur = b.CreateLoad(vt, acc);
    llvm::Value* next = nullptr;
    if (kind == r_min || kind == r_max) {
      llvm::Value* better = nullptr;
      if (d->is_complex()) {
        // numba's: the real parts, then the imaginary ones (a nan compares false: the first one met stays
        // only when it came first)
        llvm::Value* vr = b.CreateExtractValue(v, 0);
        llvm::Value* cr = b.CreateExtractValue(cur, 0);
        llvm::Value* vi = b.CreateExtractValue(v, 1);
        llvm::Value* ci = b.CreateExtractValue(cur, 1);
        llvm::Value* real = kind == r_min ? b.CreateFCmpOLT(vr, cr) : b.CreateFCmpOGT(vr, cr);
        llvm::Value* imag = kind == r_min ? b.CreateFCmpOLT(vi, ci) : b.CreateFCmpOGT(vi, ci);
        better = b.CreateOr(b.CreateNot(b.CreateLoad(b.getInt1Ty(), seen)),
                            b.CreateOr(real, b.CreateAnd(b.CreateFCmpOEQ(vr, cr), imag)));
        b.CreateStore(b.getTrue(), seen);
      } else if (d->is_float()) {
        // the smaller (larger) of the numbers (a nan compares false), and apart the first nan met, which
        // is the answer when there is one: two short chains, not one through both
        // (both rare: branches expected not taken, which LLVM keeps as branches and which make no chain
        // from one element to the next, where selects wait on the last one)
        auto expected_not = [&](llvm::Value* c) {
          return b.CreateIntrinsic(llvm::Intrinsic::expect, {b.getInt1Ty()}, {c, b.getFalse()});
        };
        auto* nan_bb = llvm::BasicBlock::Create(b.getContext(), "reduce.nan", fl.fn);
        auto* number_bb = llvm::BasicBlock::Create(b.getContext(), "reduce.number", fl.fn);
        llvm::Value* first = b.CreateAnd(b.CreateFCmpUNO(v, v), b.CreateNot(b.CreateLoad(b.getInt1Ty(), nan_met)));
        b.CreateCondBr(expected_not(first), nan_bb, number_bb);
        b.SetInsertPoint(nan_bb);
        b.CreateStore(v, first_nan);
        b.CreateStore(b.getTrue(), nan_met);
        b.CreateBr(number_bb);
        b.SetInsertPoint(number_bb);
        better = kind == r_min ? b.CreateFCmpOLT(v, cur) : b.CreateFCmpOGT(v, cur);
      } else {
        better = int_beats(b, d, kind == r_min, v, cur);
      }
      if (nan_met != nullptr) {
        // A new extreme is rare past the first elements.
        auto* take = llvm::BasicBlock::Create(b.getContext(), "reduce.take", fl.fn);
        auto* next_bb = llvm::BasicBlock::Create(b.getContext(), "reduce.next", fl.fn);
        b.CreateCondBr(b.CreateIntrinsic(llvm::Intrinsic::expect, {b.getInt1Ty()}, {better, b.getFalse()}), take,
                       next_bb);  // (see above)
        b.SetInsertPoint(take);
        b.CreateStore(v, acc);
        b.CreateBr(next_bb);
        b.SetInsertPoint(next_bb);
        return;
      }
      next = b.CreateSelect(better, v, cur);
    } else {
      next = accumulate(fl, kind == r_mean ? r_sum : kind, acc_t, cur, fl.scalar_cast(v, scalar_of(d), scalar_of(acc_t)));
      if (skip_nans) next = b.CreateSelect(is_nan(fl, d, v), cur, next);
    }
    b.CreateStore(next, acc);
  }, at->layout == array_layout::f);
  llvm::Value* size = element_count(b, p);
  if (kind == r_min || kind == r_max) {
    auto* empty = llvm::BasicBlock::Create(b.getContext(), "reduce.empty", fl.fn);
    auto* ok = llvm::BasicBlock::Create(b.getContext(), "reduce.ok", fl.fn);
    b.CreateCondBr(b.CreateICmpEQ(size, b.getInt64(0)), empty, ok);
    b.SetInsertPoint(empty);
    fl.raise_site_at(static_cast<std::int32_t>(empty_site), loc);
    b.SetInsertPoint(ok);
  }
  llvm::Value* r = b.CreateLoad(vt, acc);
  if (nan_met != nullptr) r = b.CreateSelect(b.CreateLoad(b.getInt1Ty(), nan_met), b.CreateLoad(vt, first_nan), r);
  if (kind == r_mean) {
    // numba's c / a.size in float64 (complex128: CPython's division by n + 0j), then the mean's own type
    llvm::Type* f64 = b.getDoubleTy();
    llvm::Value* n = b.CreateSIToFP(size, f64);
    if (acc_t->is_complex()) {
      llvm::Type* part = b.CreateExtractValue(r, 0)->getType();
      llvm::Value* cr = b.CreateFPExt(b.CreateExtractValue(r, 0), f64);
      llvm::Value* ci = b.CreateFPExt(b.CreateExtractValue(r, 1), f64);
      llvm::Value* ratio = b.CreateFDiv(llvm::ConstantFP::get(f64, 0.0), n);
      llvm::Value* denom = b.CreateFAdd(n, b.CreateFMul(llvm::ConstantFP::get(f64, 0.0), ratio));
      llvm::Value* re = b.CreateFDiv(b.CreateFAdd(cr, b.CreateFMul(ci, ratio)), denom);
      llvm::Value* im = b.CreateFDiv(b.CreateFSub(ci, b.CreateFMul(cr, ratio)), denom);
      r = b.CreateInsertValue(b.CreateInsertValue(r, b.CreateFPTrunc(re, part), 0), b.CreateFPTrunc(im, part), 1);
    } else {
      r = b.CreateFPTrunc(b.CreateFDiv(b.CreateFPExt(r, f64), n), vt);
    }
  }
  return r;
}

// argmin / argmax: numba's, over the flattened array in C order: the first nan's index, else the first
// smallest (largest) element's; along axis= the same for each slice along it, into a new array of the other
// dimensions (the state of each slice kept in scratch arrays, the elements visited in C order).
llvm::Value* lower_arg_extreme(function_lowering& fl, const expr& e, int kind, llvm::Value* a,
                               const function_lowering::array_parts& p) {
  auto& b = fl.b;
  const type* at = fl.type_of(e.operands[0]);
  const type* d = at->dtype;
  const auto nd = static_cast<std::size_t>(at->ndim);
  llvm::Type* mt = fl.ms.memory_type(d);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* i8 = b.getInt8Ty();
  llvm::Value* ax = nullptr;
  if (e.operands.size() > 1) {
    ax = fl.expr(e.operands[1]);
    llvm::Value* ndim = b.getInt64(static_cast<std::int64_t>(nd));
    ax = b.CreateSelect(b.CreateICmpSLT(ax, b.getInt64(0)), b.CreateAdd(ax, ndim), ax);
    raise_if(fl, e, b.CreateOr(b.CreateICmpSLT(ax, b.getInt64(0)), b.CreateICmpSGE(ax, ndim)), at_axis, "arg_axis");
  }
  const bool along = e.ty->is_array();
  // Where each slice's state lives: its best value, its index (the result), whether it met a nan.
  llvm::Value *best = nullptr, *index = nullptr, *nan_met = nullptr, *data = nullptr;
  projection pr;
  llvm::Value* slices = b.getInt64(1);
  llvm::Value* length = element_count(b, p);
  if (along) {
    pr = project(fl, p, {ax}, nd - 1);
    for (llvm::Value* x : pr.shape) slices = b.CreateMul(slices, x);
    length = b.getInt64(1);
    for (std::size_t k = 0; k < nd; ++k)
      length = b.CreateSelect(b.CreateICmpEQ(ax, b.getInt64(static_cast<std::int64_t>(k))), p.shape[k], length);
    llvm::Value* unused = nullptr;
    data = allocate(fl, e, pr.shape, true, unused);
    index = data;
    best = allocate(fl, e, {slices}, true, unused);  // (int64 slots: room for any element of a real type)
    nan_met = allocate(fl, e, {slices}, true, unused);
  } else {
    best = fl.entry_alloca(mt, "arg.best");
    index = fl.entry_alloca(i64, "arg.index");
    nan_met = fl.entry_alloca(i8, "arg.nan");
    b.CreateStore(llvm::Constant::getNullValue(mt), best);
    b.CreateStore(b.getInt64(0), index);
    b.CreateStore(b.getInt8(0), nan_met);
  }
  // an empty slice has no answer (an array of no slices needs none)
  raise_if(fl, e, b.CreateAnd(b.CreateICmpEQ(length, b.getInt64(0)), b.CreateICmpNE(slices, b.getInt64(0))),
           at_arg_empty, "arg_empty");
  llvm::AllocaInst* k = fl.entry_alloca(i64, "arg.k");
  b.CreateStore(b.getInt64(0), k);
  std::vector<llvm::Value*> idx(nd);
  const bool lo = kind == r_argmin;
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* v = fl.from_memory(b.CreateLoad(mt, ptr), d);
    llvm::Value* kk = b.CreateLoad(i64, k);
    llvm::Value* pos = kk;
    llvm::Value *best_at = best, *index_at = index, *nan_at = nan_met;
    if (along) {
      llvm::Value* j = b.getInt64(0);
      for (std::size_t q = 0; q < nd; ++q) j = b.CreateAdd(j, b.CreateMul(idx[q], pr.strides[q]));
      pos = b.getInt64(0);
      for (std::size_t q = 0; q < nd; ++q)
        pos = b.CreateSelect(b.CreateICmpEQ(ax, b.getInt64(static_cast<std::int64_t>(q))), idx[q], pos);
      best_at = b.CreateInBoundsGEP(i64, best, j);
      index_at = b.CreateInBoundsGEP(i64, index, j);
      nan_at = b.CreateInBoundsGEP(i8, nan_met, j);
    }
    llvm::Value* cur = fl.from_memory(b.CreateLoad(mt, best_at), d);
    llvm::Value* first = b.CreateICmpEQ(pos, b.getInt64(0));
    llvm::Value* take = nullptr;
    if (d->is_float()) {
      llvm::Value* met = b.CreateICmpNE(b.CreateLoad(i8, nan_at), b.getInt8(0));
      llvm::Value* is_nan = b.CreateFCmpUNO(v, v);
      llvm::Value* cmp = lo ? b.CreateFCmpOLT(v, cur) : b.CreateFCmpOGT(v, cur);
      take = b.CreateAnd(b.CreateNot(b.CreateAnd(met, b.CreateNot(first))), b.CreateOr(is_nan, b.CreateOr(first, cmp)));
      b.CreateStore(b.CreateZExt(b.CreateOr(b.CreateAnd(met, b.CreateNot(first)), is_nan), i8), nan_at);
    } else {
      take = b.CreateOr(first, int_beats(b, d, lo, v, cur));
    }
    b.CreateStore(fl.to_memory(b.CreateSelect(take, v, cur), d), best_at);
    b.CreateStore(b.CreateSelect(take, pos, b.CreateLoad(i64, index_at)), index_at);
    b.CreateStore(b.CreateNUWAdd(kk, b.getInt64(1)), k);
  });
  return along ? array_over(fl, e, data, pr.shape) : b.CreateLoad(i64, index);
}

// all / any: whether every (some) element is true (nonzero; a nan is true).
llvm::Value* lower_truth(function_lowering& fl, const expr& e, int kind, llvm::Value* a,
                         const function_lowering::array_parts& p) {
  auto& b = fl.b;
  const type* at = fl.type_of(e.operands[0]);
  const type* d = at->dtype;
  llvm::AllocaInst* acc = fl.entry_alloca(b.getInt1Ty(), "truth.acc");
  b.CreateStore(b.getInt1(kind == r_all), acc);
  llvm::Type* mt = fl.ms.memory_type(d);
  std::vector<llvm::Value*> idx(static_cast<std::size_t>(at->ndim));
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* v = fl.from_memory(b.CreateLoad(mt, ptr), d);
    llvm::Value* t = nullptr;
    if (d->kind == type_kind::boolean) {
      t = v;
    } else if (d->is_complex()) {
      llvm::Value* re = b.CreateExtractValue(v, 0);
      llvm::Value* zero = llvm::ConstantFP::get(re->getType(), 0.0);
      t = b.CreateOr(b.CreateFCmpUNE(re, zero), b.CreateFCmpUNE(b.CreateExtractValue(v, 1), zero));
    } else if (d->is_float()) {
      t = b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    } else {
      t = b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    }
    llvm::Value* cur = b.CreateLoad(b.getInt1Ty(), acc);
    b.CreateStore(kind == r_all ? b.CreateAnd(cur, t) : b.CreateOr(cur, t), acc);
  }, at->layout == array_layout::f);
  return b.CreateLoad(b.getInt1Ty(), acc);
}

// var / std: numba's, m = a.mean(), then the sum over the elements (its iterator's order) of
// real((v - m) * conj(v - m)) computed in the element's type, added in float64, over the size (an empty
// array: ZeroDivisionError under the python error model, nan under numpy's); std that ** 0.5.
llvm::Value* lower_var(function_lowering& fl, const expr& e, int kind, llvm::Value* a,
                       const function_lowering::array_parts& p) {
  auto& b = fl.b;
  const type* at = fl.type_of(e.operands[0]);
  const type* d = at->dtype;
  const bool exact = d->is_float() || d->is_complex();
  const type* mean_t = exact ? d : e.ty;  // (float64 for integers and bools: e.ty is float64)
  llvm::Value* m = reduce_whole(fl, r_mean, at, a, p, mean_t, -1, e.loc);
  llvm::Type* f64 = b.getDoubleTy();
  llvm::AllocaInst* ssd = fl.entry_alloca(f64, "var.ssd");
  b.CreateStore(llvm::ConstantFP::get(f64, 0.0), ssd);
  llvm::Type* mt = fl.ms.memory_type(d);
  std::vector<llvm::Value*> idx(static_cast<std::size_t>(at->ndim));
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* v = fl.from_memory(b.CreateLoad(mt, ptr), d);
    llvm::Value* x = exact ? v : fl.scalar_cast(v, scalar_of(d), scalar_of(e.ty));
    llvm::Value* sq = squared_deviation(b, x, m, d->is_complex());
    b.CreateStore(b.CreateFAdd(b.CreateLoad(f64, ssd), b.CreateFPExt(sq, f64)), ssd);
  }, at->layout == array_layout::f);
  llvm::Value* size = element_count(b, p);
  if (e.attrs.at(1) >= 0) raise_if(fl, e, b.CreateICmpEQ(size, b.getInt64(0)), 1, "var_empty");
  llvm::Value* r = b.CreateFDiv(b.CreateLoad(f64, ssd), b.CreateSIToFP(size, f64));
  if (kind == r_std) r = b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, r, llvm::ConstantFP::get(f64, 0.5));
  return r;
}

// cumsum / cumprod: the running sums (products) in C order, into a new 1-d array of a's size, or with
// axis= (cumsum of an array of 2 or more dimensions) into one of a's shape, each running along that axis.
llvm::Value* lower_scan(function_lowering& fl, const expr& e, int kind, llvm::Value* a,
                        const function_lowering::array_parts& p) {
  auto& b = fl.b;
  const type* at = fl.type_of(e.operands[0]);
  const type* d = at->dtype;
  const type* rt = e.ty->dtype;
  const int op = kind == r_cumsum ? r_sum : r_prod;
  const auto nd = static_cast<std::size_t>(at->ndim);
  // numba's check: -ndim <= axis < ndim
  llvm::Value* ax = e.operands.size() > 1 ? checked_axis(fl, e, fl.expr(e.operands[1]), nd) : nullptr;
  llvm::Value* size = element_count(b, p);
  const bool along = e.ty->ndim > 1;
  std::vector<llvm::Value*> extents = along ? p.shape : std::vector<llvm::Value*>{size};
  llvm::Value* count = nullptr;
  llvm::Value* data = allocate(fl, e, extents, false, count);
  llvm::Type* mt = fl.ms.memory_type(d);
  llvm::Type* rmt = fl.ms.memory_type(rt);
  llvm::Type* rvt = fl.ms.value_type(rt);
  // The running values: one (whole array), or one per position of the other dimensions (along an axis),
  // indexed through rs.
  std::vector<llvm::Value*> rs(nd, b.getInt64(0));
  llvm::Value* running = nullptr;
  llvm::AllocaInst* acc = nullptr;
  if (along) {
    const projection pr = project(fl, p, {ax}, nd - 1);
    rs = pr.strides;
    llvm::Value* n = b.getInt64(1);
    for (llvm::Value* x : pr.shape) n = b.CreateMul(n, x);
    llvm::Value* unused = nullptr;
    running = allocate(fl, e, {n}, true, unused);
  } else {
    acc = fl.entry_alloca(rvt, "scan.acc");
    constant_value start;
    start.k = constant_value::kind::integer;
    start.i = op == r_prod ? 1 : 0;
    b.CreateStore(fl.constant(rt, start), acc);
  }
  llvm::AllocaInst* k = fl.entry_alloca(b.getInt64Ty(), "scan.k");
  b.CreateStore(b.getInt64(0), k);
  std::vector<llvm::Value*> idx(nd);
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* x = fl.scalar_cast(fl.from_memory(b.CreateLoad(mt, ptr), d), scalar_of(d), scalar_of(rt));
    llvm::Value* next = nullptr;
    if (along) {
      llvm::Value* flat = b.getInt64(0);
      for (std::size_t j = 0; j < nd; ++j) flat = b.CreateAdd(flat, b.CreateMul(idx[j], rs[j]));
      llvm::Value* slot = b.CreateInBoundsGEP(rmt, running, flat);
      next = accumulate(fl, op, rt, fl.from_memory(b.CreateLoad(rmt, slot), rt), x);
      b.CreateStore(fl.to_memory(next, rt), slot);
    } else {
      next = accumulate(fl, op, rt, b.CreateLoad(rvt, acc), x);
      b.CreateStore(next, acc);
    }
    llvm::Value* kk = b.CreateLoad(b.getInt64Ty(), k);
    b.CreateStore(fl.to_memory(next, rt), b.CreateInBoundsGEP(rmt, data, kk));
    b.CreateStore(b.CreateNUWAdd(kk, b.getInt64(1)), k);
  });
  return array_over(fl, e, data, extents);
}

// nanmin / nanmax: numba's, from the first element in its iterator's order, each later number taken
// unless the kept one is smaller (larger): so the last of equals, and a leading nan gives way to the
// first number; a complex number's real parts, then imaginary ones. An empty array is a ValueError.
llvm::Value* lower_nan_extreme(function_lowering& fl, const expr& e, int kind, llvm::Value* a,
                               const function_lowering::array_parts& p) {
  auto& b = fl.b;
  const type* at = fl.type_of(e.operands[0]);
  const type* d = at->dtype;
  llvm::Type* vt = fl.ms.value_type(d);
  llvm::Type* mt = fl.ms.memory_type(d);
  raise_if(fl, e, b.CreateICmpEQ(element_count(b, p), b.getInt64(0)), 1, "nan_extreme_empty");
  llvm::AllocaInst* kept = fl.entry_alloca(vt, "nanext.kept");
  llvm::AllocaInst* k = fl.entry_alloca(b.getInt64Ty(), "nanext.k");
  b.CreateStore(llvm::Constant::getNullValue(vt), kept);
  b.CreateStore(b.getInt64(0), k);
  const bool lo = kind == r_nanmin;
  auto beats = [&](llvm::Value* x, llvm::Value* y) { return lo ? b.CreateFCmpOLT(x, y) : b.CreateFCmpOGT(x, y); };
  std::vector<llvm::Value*> idx(static_cast<std::size_t>(at->ndim));
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* v = fl.from_memory(b.CreateLoad(mt, ptr), d);
    llvm::Value* r = b.CreateLoad(vt, kept);
    llvm::Value* kk = b.CreateLoad(b.getInt64Ty(), k);
    llvm::Value* take = nullptr;
    if (d->is_complex()) {
      llvm::Value* vr = b.CreateExtractValue(v, 0);
      llvm::Value* rr = b.CreateExtractValue(r, 0);
      llvm::Value* r_nan = b.CreateFCmpUNO(rr, rr);
      llvm::Value* v_num = b.CreateFCmpORD(vr, vr);
      llvm::Value* by_parts = b.CreateOr(beats(vr, rr), b.CreateAnd(b.CreateFCmpOEQ(vr, rr),
                                                                     beats(b.CreateExtractValue(v, 1),
                                                                           b.CreateExtractValue(r, 1))));
      take = b.CreateSelect(b.CreateAnd(r_nan, v_num), b.getTrue(), by_parts);
    } else if (d->is_float()) {
      take = b.CreateAnd(b.CreateFCmpORD(v, v), b.CreateNot(beats(r, v)));
    } else {
      take = b.CreateNot(int_beats(b, d, lo, r, v));
    }
    take = b.CreateOr(b.CreateICmpEQ(kk, b.getInt64(0)), take);
    b.CreateStore(b.CreateSelect(take, v, r), kept);
    b.CreateStore(b.CreateNUWAdd(kk, b.getInt64(1)), k);
  }, at->layout == array_layout::f);
  return b.CreateLoad(vt, kept);
}

// nanmean / nanvar / nanstd: numba's, over the numbers only (in the iterator's order): the mean a float64
// (complex128) sum over their count by np.divide (no count: nan); nanvar the float64 sum of
// real((v - m) * conj(v - m)) with v - m in float64 (complex128), over count - ddof (nan when count <= ddof);
// nanstd that ** 0.5.
llvm::Value* lower_nan_moments(function_lowering& fl, const expr& e, int kind, llvm::Value* a,
                               const function_lowering::array_parts& p) {
  auto& b = fl.b;
  const type* at = fl.type_of(e.operands[0]);
  const type* d = at->dtype;
  const bool cplx = d->is_complex();
  const type* wide = fl.type_of(e.operands.at(2));  // float64, or complex128 (the typer's zero)
  llvm::Type* f64 = b.getDoubleTy();
  llvm::Type* wt = fl.ms.value_type(wide);
  llvm::Type* mt = fl.ms.memory_type(d);
  std::vector<llvm::Value*> idx(static_cast<std::size_t>(at->ndim));
  // the mean: sum and count of the numbers
  llvm::AllocaInst* sum = fl.entry_alloca(wt, "nanmean.sum");
  llvm::AllocaInst* count = fl.entry_alloca(b.getInt64Ty(), "nanmean.count");
  b.CreateStore(llvm::Constant::getNullValue(wt), sum);
  b.CreateStore(b.getInt64(0), count);
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* v = fl.from_memory(b.CreateLoad(mt, ptr), d);
    llvm::Value* number = b.CreateNot(is_nan(fl, d, v));
    llvm::Value* cur = b.CreateLoad(wt, sum);
    llvm::Value* next = accumulate(fl, r_sum, wide, cur, fl.scalar_cast(v, scalar_of(d), scalar_of(wide)));
    b.CreateStore(b.CreateSelect(number, next, cur), sum);
    llvm::Value* n = b.CreateLoad(b.getInt64Ty(), count);
    b.CreateStore(b.CreateAdd(n, b.CreateZExt(number, b.getInt64Ty())), count);
  }, at->layout == array_layout::f);
  llvm::Value* n = b.CreateSIToFP(b.CreateLoad(b.getInt64Ty(), count), f64);
  llvm::Value* c = b.CreateLoad(wt, sum);
  llvm::Value* m = nullptr;
  if (cplx) {  // np.divide(complex, n)
    auto [re, im] = numpy_divide_by_real(b, b.CreateExtractValue(c, 0), b.CreateExtractValue(c, 1), n);
    m = b.CreateInsertValue(b.CreateInsertValue(llvm::PoisonValue::get(wt), re, 0), im, 1);
  } else {
    m = b.CreateFDiv(c, n);
  }
  if (kind == r_nanmean) return m;
  llvm::Value* ddof = fl.expr(e.operands[1]);
  llvm::AllocaInst* ssd = fl.entry_alloca(f64, "nanvar.ssd");
  b.CreateStore(llvm::ConstantFP::get(f64, 0.0), ssd);
  each_element(fl, at, a, p, idx, 0, [&](llvm::Value* ptr) {
    llvm::Value* v = fl.scalar_cast(fl.from_memory(b.CreateLoad(mt, ptr), d), scalar_of(d), scalar_of(wide));
    llvm::Value* number = b.CreateNot(is_nan(fl, wide, v));
    llvm::Value* sq = squared_deviation(b, v, m, cplx);
    llvm::Value* cur = b.CreateLoad(f64, ssd);
    b.CreateStore(b.CreateSelect(number, b.CreateFAdd(cur, sq), cur), ssd);
  }, at->layout == array_layout::f);
  llvm::Value* cnt = b.CreateLoad(b.getInt64Ty(), count);
  llvm::Value* r = b.CreateFDiv(b.CreateLoad(f64, ssd), b.CreateSIToFP(b.CreateSub(cnt, ddof), f64));
  r = b.CreateSelect(b.CreateICmpSLE(cnt, ddof), llvm::ConstantFP::getNaN(f64), r);
  if (kind == r_nanstd) r = b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, r, llvm::ConstantFP::get(f64, 0.5));
  return r;
}

llvm::Value* lower_reduce_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  const int kind = self.arg;
  const type* at = fl.type_of(e.operands[0]);
  llvm::Value* a = fl.expr(e.operands[0]);
  function_lowering::array_parts p = fl.unpack(a, at);
  switch (kind) {
    case r_cumsum:
    case r_cumprod:
      return lower_scan(fl, e, kind, a, p);
    case r_argmin:
    case r_argmax:
      return lower_arg_extreme(fl, e, kind, a, p);
    case r_all:
    case r_any:
      return lower_truth(fl, e, kind, a, p);
    case r_var:
    case r_std:
      return lower_var(fl, e, kind, a, p);
    case r_nanmin:
    case r_nanmax:
      return lower_nan_extreme(fl, e, kind, a, p);
    case r_nanmean:
    case r_nanvar:
    case r_nanstd:
      return lower_nan_moments(fl, e, kind, a, p);
    case r_nansum:
    case r_nanprod:
      return reduce_whole(fl, kind == r_nansum ? r_sum : r_prod, at, a, p, e.ty, -1, e.loc, true);
    default:
      break;
  }
  if (kind == r_sum && e.attrs.size() == sum_axis_attrs)
    if (llvm::Value* r = lower_sum_axes(fl, e, a, p)) return r;
  const bool extreme = kind == r_min || kind == r_max;
  return reduce_whole(fl, kind, at, a, p, e.ty, extreme ? e.attrs.at(1) : -1, e.loc);
}

// cuforge.array_address(a): its data pointer as a uint64 (the host jit's entry hands it to Python).
value type_array_address(function_typer& ft, const intrinsic& self, call_args& c) {
  if (!ft.m_.opts.host_only) ft.no_impl(c, "it is the host jit's, in host code only");
  expect_args(ft, c, 1, 1);
  if (!c.args[0].runtime() || !c.args[0].ty->is_array()) ft.no_impl(c, "it takes an array");
  return ft.intrinsic_op(self, ft.tc_.uint64(), {c.args[0]}, c.loc);
}

llvm::Value* lower_array_address(function_lowering& fl, const intrinsic&, const expr& e) {
  function_lowering::array_parts p = fl.unpack(fl.expr(e.operands[0]), fl.type_of(e.operands[0]));
  return fl.b.CreatePtrToInt(p.data, fl.b.getInt64Ty());
}

constexpr intrinsic allocating(std::string_view name, std::string_view params, std::string_view doc, int arg) {
  return lowered_by(taking_compile_time_args(function_entry(name, params, doc, type_np_alloc, op_id::none, arg)),
                    lower_np_alloc_nvptx, lower_np_alloc_host);
}

constexpr intrinsic reducing(std::string_view name, std::string_view params, std::string_view doc, int kind) {
  return lowered_by(taking_compile_time_args(function_entry(name, params, doc, type_reduce, op_id::none, kind)),
                    lower_reduce_nvptx, lower_reduce_host);
}

const intrinsic table[] = {
    allocating("numpy.empty", "(shape, dtype=float)", "A new array, its contents undefined. Host code only.",
               fill_none),
    allocating("numpy.zeros", "(shape, dtype=float)", "A new array of zeros. Host code only.", fill_zero),
    allocating("numpy.ones", "(shape, dtype=float)", "A new array of ones. Host code only.", fill_one),
    allocating("numpy.full", "(shape, fill_value, dtype=None)",
               "A new array of fill_value (of its type without a dtype). Host code only.", fill_value),
    allocating("numpy.empty_like", "(prototype, dtype=None)",
               "A new array of the prototype's shape (and dtype), its contents undefined. Host code only.",
               like_base + fill_none),
    allocating("numpy.zeros_like", "(a, dtype=None)", "A new array of zeros shaped as a. Host code only.",
               like_base + fill_zero),
    allocating("numpy.ones_like", "(a, dtype=None)", "A new array of ones shaped as a. Host code only.",
               like_base + fill_one),
    allocating("numpy.full_like", "(a, fill_value, dtype=None)", "A new array of fill_value shaped as a. Host code "
               "only.", like_base + fill_value),
    allocating("numpy.copy", "(a)", "A new C-contiguous array holding a's elements (a.copy() too). Host code only.",
               like_base + fill_copy),
    lowered_by(taking_compile_time_args(function_entry(
                   "numpy.array", "(object, dtype=None)",
                   "A new array of a (nested) tuple's numbers, or of a list written in the call (np.array([1, 2, n])); "
                   "of an array, a copy. Host code only.",
                   type_np_array)),
               lower_np_alloc_nvptx, lower_np_array_host),
    lowered_by(taking_compile_time_args(function_entry(
                   "numpy.arange", "(start, stop=None, step=None, dtype=None)",
                   "A new 1-d array of start, start + step, ... below stop (from 0 with one bound). Host code only.",
                   type_arange)),
               lower_np_alloc_nvptx, lower_arange_host),
    lowered_by(function_entry("numpy.linspace", "(start, stop, num=50)",
                              "A new 1-d array of num numbers evenly spaced from start to stop, both included (float64, "
                              "complex128 for complex bounds). Host code only.",
                              type_linspace),
               lower_np_alloc_nvptx, lower_linspace_host),
    reducing("numpy.sum", "(a, axis=None, dtype=None)",
             "The sum of a's elements (int64 for integers and bools, uint64 for unsigned ones; dtype= its type), "
             "or along axis= (an integer or a tuple of them) a new array. Host code only.", r_sum),
    reducing("numpy.prod", "(a)", "The product of a's elements (typed as sum). Host code only.", r_prod),
    reducing("numpy.min", "(a)", "a's smallest element (nan if it holds one). Host code only.", r_min),
    reducing("numpy.amin", "(a)", "a's smallest element (nan if it holds one). Host code only.", r_min),
    reducing("numpy.max", "(a)", "a's largest element (nan if it holds one). Host code only.", r_max),
    reducing("numpy.amax", "(a)", "a's largest element (nan if it holds one). Host code only.", r_max),
    reducing("numpy.mean", "(a)", "The mean of a's elements (float64 for integers and bools). Host code only.",
             r_mean),
    reducing("numpy.var", "(a)", "The variance of a's elements (float64). Host code only.", r_var),
    reducing("numpy.std", "(a)", "The standard deviation of a's elements (float64). Host code only.", r_std),
    reducing("numpy.argmin", "(a, axis=None)",
             "The index of a's smallest element (of its first nan) in the flattened array. Host code only.", r_argmin),
    reducing("numpy.argmax", "(a, axis=None)",
             "The index of a's largest element (of its first nan) in the flattened array. Host code only.", r_argmax),
    reducing("numpy.all", "(a)", "Whether every element of a is true (nonzero). Host code only.", r_all),
    reducing("numpy.any", "(a)", "Whether some element of a is true (nonzero). Host code only.", r_any),
    reducing("numpy.cumsum", "(a, axis=None, dtype=None)",
             "A new array of the running sums of a's elements in C order (1-d; along axis= a's shape), typed as sum. "
             "Host code only.", r_cumsum),
    reducing("numpy.nansum", "(a)", "The sum of a's elements that are not nan (typed as sum). Host code only.",
             r_nansum),
    reducing("numpy.nanprod", "(a)", "The product of a's elements that are not nan (typed as prod). Host code only.",
             r_nanprod),
    reducing("numpy.nanmin", "(a)", "a's smallest element that is not nan (nan when all are). Host code only.",
             r_nanmin),
    reducing("numpy.nanmax", "(a)", "a's largest element that is not nan (nan when all are). Host code only.",
             r_nanmax),
    reducing("numpy.nanmean", "(a)", "The mean of a's elements that are not nan (float64 or complex128). Host code "
             "only.", r_nanmean),
    reducing("numpy.nanvar", "(a, axis=None, dtype=None, out=None, ddof=0)",
             "The variance of a's elements that are not nan (float64; ddof as NumPy's). Host code only.", r_nanvar),
    reducing("numpy.nanstd", "(a, axis=None, dtype=None, out=None, ddof=0)",
             "The standard deviation of a's elements that are not nan (float64). Host code only.", r_nanstd),
    reducing("numpy.cumprod", "(a)", "A new 1-d array of the running products of a's elements in C order, typed as "
             "prod. Host code only.", r_cumprod),
    module_entry("cuforge", "cuforge's own names for host code."),
    lowered_by(function_entry("cuforge.array_address", "(a)",
                              "The address of a's data (uint64): how the host jit hands a returned array to Python. "
                              "Host code only.",
                              type_array_address),
               lower_array_address),
};

}  // namespace

std::span<const intrinsic> host_array_intrinsics() { return table; }

value new_array(function_typer& ft, std::vector<value> extents, const type* dtype, array_layout layout, location loc) {
  const intrinsic* empty = find_entry("numpy.empty");
  if (empty == nullptr || empty->call != type_np_alloc) ft.fail(loc, "internal: numpy.empty is not in the registry");
  for (value& e : extents) e = ft.cast(e, ft.tc_.int64(), loc);
  const int ndim = static_cast<int>(extents.size());
  return allocation(ft, *empty, ft.tc_.array(dtype, ndim, layout, false, address_space::global), std::move(extents),
                    loc);
}

bool is_reduction_method(std::string_view name) noexcept {
  for (std::string_view r : {"sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "all", "any",
                             "cumsum", "cumprod", "copy"})
    if (name == r) return true;
  return false;
}

bool makes_array(const intrinsic& e) noexcept {
  return e.call == type_np_alloc || e.call == type_reduce || e.call == type_arange || e.call == type_linspace ||
         e.call == type_np_array;
}

}  // namespace cuforge::frontend::detail

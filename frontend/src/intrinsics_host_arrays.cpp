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

// Calls body(element pointer) for each element of `a` (of array type t), its indices in C order.
template <class Body>
void each_element(function_lowering& fl, const type* t, llvm::Value* a, const function_lowering::array_parts& p,
                  std::vector<llvm::Value*>& idx, std::size_t d, Body&& body) {
  auto& b = fl.b;
  if (d == idx.size()) {
    body(fl.element_pointer(t, a, idx, false));
    return;
  }
  llvm::BasicBlock* before = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(b.getContext(), "each", fl.fn);
  auto* after = llvm::BasicBlock::Create(b.getContext(), "each.done", fl.fn);
  b.CreateCondBr(b.CreateICmpSGT(p.shape[d], b.getInt64(0)), loop, after);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, "each.i");
  i->addIncoming(b.getInt64(0), before);
  idx[d] = i;
  each_element(fl, t, a, p, idx, d + 1, body);
  llvm::Value* next = b.CreateNUWAdd(i, b.getInt64(1));
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, p.shape[d]), loop, after);
  b.SetInsertPoint(after);
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
  const type* t = ft.tc_.array(dtype, ndim, layout, false, address_space::global);
  std::vector<std::int64_t> attrs(alloc_attrs - 1);
  attrs[at_negative - 1] = site(ft, "ValueError", "negative dimensions are not allowed", loc);
  attrs[at_too_big - 1] = site(ft, "ValueError", "array is too big; `arr.size * arr.dtype.itemsize` is larger than "
                                                 "the maximum possible size.", loc);
  attrs[at_no_memory - 1] = site(ft, "MemoryError", "cannot allocate array memory", loc);
  value r = ft.intrinsic_op(self, t, std::move(operands), loc, std::move(attrs), true);
  return r;
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

// --- reductions: numpy.sum, prod, min/amin, max/amax, mean and the array methods ---------------------------
//
// numba's: one pass over the elements in C order of their indices (no reassociation: the same float sums);
// sum and prod accumulate integers in int64 (uint64 for unsigned ones, int64 for bools), floats and complex
// numbers in their own type; mean divides that sum (float64 for integers and bools) by the size (an empty
// array's mean is nan); min and max keep the first nan they meet and refuse an empty array with NumPy's
// ValueError.
enum reduce_kind : int { r_sum = 0, r_prod = 1, r_min = 2, r_max = 3, r_mean = 4 };

value type_reduce(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  const std::string name(self.info.name);
  if (!ft.m_.opts.host_only)
    ft.fail(loc, name + " runs in host code only (cuforge.jit / njit); kernels reduce with loops, atomics or "
                        "cuda.reduce");
  std::vector<const value*> got = bind_arguments(ft, c, {"a"}, 1);
  const value& a = *got[0];
  if (!a.runtime() || !a.ty->is_array() || !a.ty->dtype->is_scalar())
    ft.no_impl(c, "it reduces an array of numbers, not " + a.ty->str() + " (axis= is not supported)");
  const type* d = a.ty->dtype;
  const int kind = self.arg;
  const type* r = d;
  if (kind == r_sum || kind == r_prod) {
    if (d->kind == type_kind::boolean || (d->is_int() && d->is_signed)) r = ft.tc_.int64();
    else if (d->is_int()) r = ft.tc_.uint64();
  } else if (kind == r_mean) {
    if (d->kind == type_kind::boolean || d->is_int()) r = ft.tc_.float64();
  } else if (d->is_complex()) {
    ft.no_impl(c, "min and max of complex arrays are not supported yet");
  }
  if (d->is_float() && d->bits == 16) ft.no_impl(c, "float16 arrays are not reduced yet");
  std::vector<std::int64_t> attrs;
  if (kind == r_min || kind == r_max)
    attrs.push_back(site(ft, "ValueError", kind == r_min ? "zero-size array to reduction operation minimum which "
                                                           "has no identity"
                                                         : "zero-size array to reduction operation maximum which "
                                                           "has no identity", loc));
  // Evaluated once where it stands (an operand of an array expression would otherwise be recomputed per element).
  return ft.intrinsic_op(self, r, {a}, loc, std::move(attrs), true);
}

llvm::Value* lower_reduce_nvptx(function_lowering& fl, const intrinsic& self, const expr& e) {
  fl.fail_at(std::string(self.info.name) + " runs in host code only (cuforge.jit / njit)", e.loc);
}

llvm::Value* lower_reduce_host(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  const int kind = self.arg;
  const type* at = fl.type_of(e.operands[0]);
  const type* d = at->dtype;
  const type* acc_t = e.ty;  // (mean: the sum's type, float64 for integers and bools)
  llvm::Value* a = fl.expr(e.operands[0]);
  function_lowering::array_parts p = fl.unpack(a, at);
  llvm::Type* vt = fl.ms.value_type(acc_t);
  llvm::AllocaInst* acc = fl.entry_alloca(vt, "reduce.acc");
  // the starting value: 0, 1, or the type's largest/smallest (+-inf for floats; true/false for bools)
  constant_value start;
  start.k = constant_value::kind::integer;
  start.i = kind == r_prod ? 1 : 0;
  llvm::Value* init = fl.constant(acc_t, start);
  if (kind == r_min || kind == r_max) {
    const bool lo = kind == r_min;
    if (d->is_float()) {
      init = llvm::ConstantFP::getInfinity(vt, !lo);
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
      if (d->is_float()) {
        // a nan met stays; a nan element is taken; else the smaller (larger)
        llvm::Value* cur_nan = b.CreateFCmpUNO(cur, cur);
        llvm::Value* v_nan = b.CreateFCmpUNO(v, v);
        llvm::Value* cmp = kind == r_min ? b.CreateFCmpOLT(v, cur) : b.CreateFCmpOGT(v, cur);
        better = b.CreateAnd(b.CreateNot(cur_nan), b.CreateOr(v_nan, cmp));
      } else if (d->kind == type_kind::boolean) {
        better = kind == r_min ? b.CreateICmpULT(v, cur) : b.CreateICmpUGT(v, cur);
      } else {
        better = kind == r_min ? (d->is_signed ? b.CreateICmpSLT(v, cur) : b.CreateICmpULT(v, cur))
                               : (d->is_signed ? b.CreateICmpSGT(v, cur) : b.CreateICmpUGT(v, cur));
      }
      next = b.CreateSelect(better, v, cur);
    } else {
      llvm::Value* x = fl.scalar_cast(v, scalar_of(d), scalar_of(acc_t));
      if (acc_t->is_complex()) {
        llvm::Value* ar = b.CreateExtractValue(cur, 0);
        llvm::Value* ai = b.CreateExtractValue(cur, 1);
        llvm::Value* xr = b.CreateExtractValue(x, 0);
        llvm::Value* xi = b.CreateExtractValue(x, 1);
        llvm::Value* re = nullptr;
        llvm::Value* im = nullptr;
        if (kind == r_prod) {  // numba's: (a*c - b*d) + (a*d + b*c)i
          re = b.CreateFSub(b.CreateFMul(ar, xr), b.CreateFMul(ai, xi));
          im = b.CreateFAdd(b.CreateFMul(ar, xi), b.CreateFMul(ai, xr));
        } else {
          re = b.CreateFAdd(ar, xr);
          im = b.CreateFAdd(ai, xi);
        }
        next = b.CreateInsertValue(b.CreateInsertValue(cur, re, 0), im, 1);
      } else if (acc_t->is_float()) {
        next = kind == r_prod ? b.CreateFMul(cur, x) : b.CreateFAdd(cur, x);
      } else {
        next = kind == r_prod ? b.CreateMul(cur, x) : b.CreateAdd(cur, x);
      }
    }
    b.CreateStore(next, acc);
  });
  llvm::Value* size = b.getInt64(1);
  for (llvm::Value* s : p.shape) size = b.CreateMul(size, s);
  if (kind == r_min || kind == r_max) {
    auto* empty = llvm::BasicBlock::Create(b.getContext(), "reduce.empty", fl.fn);
    auto* ok = llvm::BasicBlock::Create(b.getContext(), "reduce.ok", fl.fn);
    b.CreateCondBr(b.CreateICmpEQ(size, b.getInt64(0)), empty, ok);
    b.SetInsertPoint(empty);
    fl.raise_site_at(static_cast<std::int32_t>(e.attrs.at(1)), e.loc);
    b.SetInsertPoint(ok);
  }
  llvm::Value* r = b.CreateLoad(vt, acc);
  if (kind == r_mean) {
    if (acc_t->is_complex()) {
      llvm::Type* part = b.CreateExtractValue(r, 0)->getType();
      llvm::Value* n = b.CreateSIToFP(size, part);
      r = b.CreateInsertValue(b.CreateInsertValue(r, b.CreateFDiv(b.CreateExtractValue(r, 0), n), 0),
                              b.CreateFDiv(b.CreateExtractValue(r, 1), n), 1);
    } else {
      r = b.CreateFDiv(r, b.CreateSIToFP(size, vt));
    }
  }
  return r;
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

constexpr intrinsic reducing(std::string_view name, std::string_view doc, int kind) {
  return lowered_by(function_entry(name, "(a)", doc, type_reduce, op_id::none, kind), lower_reduce_nvptx,
                    lower_reduce_host);
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
                   "numpy.arange", "(start, stop=None, step=None, dtype=None)",
                   "A new 1-d array of start, start + step, ... below stop (from 0 with one bound). Host code only.",
                   type_arange)),
               lower_np_alloc_nvptx, lower_arange_host),
    reducing("numpy.sum", "The sum of a's elements (int64 for integers and bools, uint64 for unsigned ones). Host "
             "code only.", r_sum),
    reducing("numpy.prod", "The product of a's elements (typed as sum). Host code only.", r_prod),
    reducing("numpy.min", "a's smallest element (nan if it holds one). Host code only.", r_min),
    reducing("numpy.amin", "a's smallest element (nan if it holds one). Host code only.", r_min),
    reducing("numpy.max", "a's largest element (nan if it holds one). Host code only.", r_max),
    reducing("numpy.amax", "a's largest element (nan if it holds one). Host code only.", r_max),
    reducing("numpy.mean", "The mean of a's elements (float64 for integers and bools). Host code only.", r_mean),
    module_entry("cuforge", "cuforge's own names for host code."),
    lowered_by(function_entry("cuforge.array_address", "(a)",
                              "The address of a's data (uint64): how the host jit hands a returned array to Python. "
                              "Host code only.",
                              type_array_address),
               lower_array_address),
};

}  // namespace

std::span<const intrinsic> host_array_intrinsics() { return table; }

bool makes_array(const intrinsic& e) noexcept {
  return e.call == type_np_alloc || e.call == type_reduce || e.call == type_arange;
}

}  // namespace cuforge::frontend::detail

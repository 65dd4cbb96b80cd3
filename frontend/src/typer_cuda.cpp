// cuda.*: thread coordinates, grid helpers, barriers and fences, shared,
// local and constant arrays, atomics, integer intrinsics.
#include "typer_impl.hpp"

namespace cuforge::frontend::detail {

namespace {

const char* const cuda_functions[] = {
    "cuda.grid",          "cuda.gridsize",          "cuda.syncthreads",      "cuda.syncthreads_count",
    "cuda.syncthreads_and", "cuda.syncthreads_or",  "cuda.syncwarp",         "cuda.threadfence",
    "cuda.threadfence_block", "cuda.threadfence_system", "cuda.popc",        "cuda.brev",
    "cuda.clz",           "cuda.ffs",               "cuda.fma",              "cuda.cbrt",
    "cuda.shared.array",  "cuda.local.array",       "cuda.const.array_like", "cuda.atomic.add",
    "cuda.atomic.sub",    "cuda.atomic.max",        "cuda.atomic.min",       "cuda.atomic.exch",
    "cuda.atomic.cas",    "cuda.atomic.compare_and_swap", "cuda.atomic.inc", "cuda.atomic.dec",
    "cuda.atomic.and_",   "cuda.atomic.or_",        "cuda.atomic.xor"};

const char* const cuda_submodules[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "shared", "local", "const", "atomic"};

op_id coordinate_op(const std::string& module) {
  if (module == "cuda.threadIdx") return op_id::thread_idx;
  if (module == "cuda.blockIdx") return op_id::block_idx;
  if (module == "cuda.blockDim") return op_id::block_dim;
  if (module == "cuda.gridDim") return op_id::grid_dim;
  return op_id::none;
}

}  // namespace

bool function_typer::known_cuda_function(const std::string& name) {
  for (const char* f : cuda_functions)
    if (name == f) return true;
  return false;
}

std::optional<value> function_typer::cuda_attribute(const std::string& module, const std::string& name, location loc) {
  if (module == "cuda") {
    for (const char* m : cuda_submodules)
      if (name == m) {
        value v;
        v.ty = tc_.module("cuda." + name);
        return v;
      }
    if (name == "laneid") {
      value v = op(op_id::laneid, tc_.int32(), {}, loc);
      v.nonneg = true;
      return v;
    }
    if (name == "warpsize") return int_constant(32, tc_.int64(), loc, true);
  }
  if (op_id o = coordinate_op(module); o != op_id::none) {
    if (name != "x" && name != "y" && name != "z") return std::nullopt;
    value v = op(o, tc_.int32(), {}, loc, {name[0] - 'x'});
    v.nonneg = true;
    return v;
  }
  std::string full = module + "." + name;
  if (known_cuda_function(full)) {
    value v;
    v.ty = tc_.function(full);
    return v;
  }
  return std::nullopt;
}

std::optional<value> function_typer::call_cuda(const std::string& name, call_args& c) {
  if (name.rfind("cuda.", 0) != 0 || !known_cuda_function(name)) return std::nullopt;
  const location loc = c.loc;
  const std::string f = name.substr(5);
  auto expect = [&](std::size_t lo, std::size_t hi) {
    if (c.args.size() < lo || c.args.size() > hi || !c.kwargs.empty()) {
      std::string n = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
      no_impl(c, "it takes " + n + " positional argument" + (hi == 1 ? "" : "s"));
    }
    for (const auto& a : c.args)
      if (!a.runtime()) no_impl(c);
  };
  auto int_arg = [&](std::size_t i) -> const value& {
    const value& x = c.args[i];
    if (!x.ty->is_int()) no_impl(c, "it takes an integer");
    return x;
  };
  if (f == "grid" || f == "gridsize") return grid(f == "gridsize", c);
  if (f == "syncthreads") {
    expect(0, 0);
    uses_barrier_ = true;
    return op(op_id::syncthreads, tc_.none(), {}, loc, {}, true);
  }
  if (f == "syncthreads_count" || f == "syncthreads_and" || f == "syncthreads_or") {
    expect(1, 1);
    if (!c.args[0].ty->is_scalar()) no_impl(c);
    uses_barrier_ = true;
    value pred = cast(truth(c.args[0], loc), tc_.int32(), loc);
    op_id o = f == "syncthreads_count" ? op_id::syncthreads_count
              : f == "syncthreads_and" ? op_id::syncthreads_and
                                       : op_id::syncthreads_or;
    return op(o, tc_.int32(), {pred}, loc, {}, true);
  }
  if (f == "syncwarp") {
    expect(0, 1);
    // A warp barrier also needs the lanes to run in step on the cpu
    // backend, so it counts as a barrier there.
    uses_barrier_ = true;
    value mask = c.args.empty() ? int_constant(0xFFFFFFFF, tc_.uint32(), loc) : cast(int_arg(0), tc_.uint32(), loc);
    return op(op_id::syncwarp, tc_.none(), {mask}, loc, {}, true);
  }
  if (f == "threadfence" || f == "threadfence_block" || f == "threadfence_system") {
    expect(0, 0);
    op_id o = f == "threadfence" ? op_id::threadfence : f == "threadfence_block" ? op_id::threadfence_block : op_id::threadfence_system;
    return op(o, tc_.none(), {}, loc, {}, true);
  }
  if (f == "popc" || f == "brev" || f == "clz" || f == "ffs") {
    expect(1, 1);
    const value& x = int_arg(0);
    op_id o = f == "popc" ? op_id::popc : f == "brev" ? op_id::brev : f == "clz" ? op_id::clz : op_id::ffs;
    value r = op(o, o == op_id::brev ? x.ty : tc_.int32(), {x}, loc);
    r.nonneg = o != op_id::brev;
    return r;
  }
  if (f == "fma") {
    expect(3, 3);
    const type* t = nullptr;
    bool weak = true;
    for (const auto& a : c.args) {
      if (!a.ty->is_scalar() || a.ty->is_complex()) no_impl(c);
      t = t ? promote(tc_, t, weak, a.ty, a.weak) : a.ty;
      weak = weak && a.weak;
    }
    if (!t->is_float()) t = tc_.float64();
    t = arith(t);
    value r = op(op_id::fma, t, {cast(c.args[0], t, loc), cast(c.args[1], t, loc), cast(c.args[2], t, loc)}, loc);
    r.weak = weak;
    return r;
  }
  if (f == "cbrt") {
    expect(1, 1);
    return float_math(op_id::cbrt, c.args[0], c);
  }
  if (f == "shared.array" || f == "local.array") return array_alloc(f == "shared.array", c);
  if (f == "const.array_like") {
    expect(1, 1);
    const value& a = c.args[0];
    if (!a.ty->is_array() || a.ty->space != address_space::constant)
      no_impl(c, "it takes a global NumPy array (captured as constant memory)");
    return a;
  }
  if (f.rfind("atomic.", 0) == 0) return atomic(f.substr(7), c);
  return std::nullopt;
}

value function_typer::grid(bool size, call_args& c) {
  const location loc = c.loc;
  if (c.args.size() != 1 || !c.kwargs.empty()) no_impl(c, "it takes the number of dimensions, 1, 2 or 3");
  auto n = c.args[0].ty && c.args[0].ty->is_int() ? const_int(c.args[0]) : std::nullopt;
  if (!n || *n < 1 || *n > 3) no_impl(c, "the number of dimensions must be a constant 1, 2 or 3");
  const type* i64 = tc_.int64();
  auto coord = [&](op_id o, int d) { return cast(op(o, tc_.int32(), {}, loc, {d}), i64, loc); };
  std::vector<value> dims;
  for (int d = 0; d < *n; ++d) {
    value v = size ? op(op_id::mul, i64, {coord(op_id::block_dim, d), coord(op_id::grid_dim, d)}, loc)
                   : op(op_id::add, i64,
                        {op(op_id::mul, i64, {coord(op_id::block_idx, d), coord(op_id::block_dim, d)}, loc),
                         coord(op_id::thread_idx, d)},
                        loc);
    v.nonneg = true;
    dims.push_back(v);
  }
  if (*n == 1) return dims[0];
  return make_tuple(std::move(dims), loc);
}

value function_typer::array_alloc(bool shared, call_args& c) {
  const location loc = c.loc;
  const char* what = shared ? "cuda.shared.array" : "cuda.local.array";
  const value* shape = nullptr;
  const value* dtype = nullptr;
  if (c.args.size() > 2) no_impl(c, "it takes (shape, dtype)");
  if (!c.args.empty()) shape = &c.args[0];
  if (c.args.size() > 1) dtype = &c.args[1];
  for (const auto& k : c.kwargs) {
    const value** slot = k.name == "shape" ? &shape : k.name == "dtype" ? &dtype : nullptr;
    if (!slot) no_impl(c, "unexpected keyword argument '" + k.name + "'");
    if (*slot) no_impl(c, "'" + k.name + "' given twice");
    *slot = &k.v;
  }
  if (!shape || !dtype) no_impl(c, "it takes (shape, dtype)");
  if (dtype->ty->kind != type_kind::dtype)
    no_impl(c, std::string("the dtype of ") + what + " must be a scalar type such as numpy.float32");
  std::vector<std::int64_t> dims;
  const std::string shape_rule = std::string("the shape of ") + what + " must be a constant integer or a tuple of them";
  if (shape->ty->is_int()) {
    auto k = const_int(*shape);
    if (!k) no_impl(c, shape_rule);
    dims.push_back(*k);
  } else if (shape->ty->is_tuple() && shape->literal) {
    for (const auto& e : shape->elems) {
      auto k = e.ty->is_int() ? const_int(e) : std::nullopt;
      if (!k) no_impl(c, shape_rule);
      dims.push_back(*k);
    }
  } else {
    no_impl(c, shape_rule);
  }
  if (dims.empty()) no_impl(c, std::string("a ") + what + " needs at least one dimension");
  for (auto d : dims) {
    if (d < 0) no_impl(c, "an extent cannot be negative");
    if (d == 0 && !(shared && dims.size() == 1))
      no_impl(c, shared ? "only a 1-d shared array may have extent 0 (the launch's dynamic shared memory)"
                        : "a local array's extents must be positive");
  }
  const type* t = tc_.array(dtype->ty->dtype, static_cast<int>(dims.size()), array_layout::c, false,
                            shared ? address_space::shared : address_space::local);
  // Each call site is its own array: never evaluated twice or dropped.
  return op(shared ? op_id::shared_array : op_id::local_array, t, {}, loc, dims, true);
}

value function_typer::atomic(const std::string& which, call_args& c) {
  const location loc = c.loc;
  struct entry {
    const char* name;
    op_id op;
    bool floats;  // float32/float64 too
    bool only_unsigned;
  };
  static const entry table[] = {
      {"add", op_id::atomic_add, true, false},   {"sub", op_id::atomic_sub, true, false},
      {"max", op_id::atomic_max, true, false},   {"min", op_id::atomic_min, true, false},
      {"exch", op_id::atomic_exch, true, false}, {"and_", op_id::atomic_and, false, false},
      {"or_", op_id::atomic_or, false, false},   {"xor", op_id::atomic_xor, false, false},
      {"inc", op_id::atomic_inc, false, true},   {"dec", op_id::atomic_dec, false, true},
      {"cas", op_id::atomic_cas, false, false},  {"compare_and_swap", op_id::atomic_cas, false, false}};
  const entry* e = nullptr;
  for (const auto& t : table)
    if (which == t.name) e = &t;
  if (!e) fail(loc, "Unsupported function: cuda.atomic." + which);
  const bool cas = e->op == op_id::atomic_cas;
  const bool legacy_cas = which == "compare_and_swap";  // (ary, old, val) on ary[0]
  const std::size_t nargs = legacy_cas ? 3 : cas ? 4 : 3;
  if (c.args.size() != nargs || !c.kwargs.empty())
    no_impl(c, legacy_cas ? "it takes (ary, old, val)" : cas ? "it takes (ary, idx, old, val)" : "it takes (ary, idx, val)");
  for (const auto& a : c.args)
    if (!a.runtime()) no_impl(c);
  if (!c.args[0].ty->is_array()) no_impl(c, "the first argument must be an array");
  const value a = pure(c.args[0], loc);  // used again to count negative indices from the end
  if (a.ty->space != address_space::global && a.ty->space != address_space::shared)
    no_impl(c, "atomics work on global and shared arrays");
  if (a.ty->readonly) no_impl(c, "the array is read-only");
  const type* dt = a.ty->dtype;
  bool ok = dt->is_int() && dt->bits >= 32 && (!e->only_unsigned || !dt->is_signed);
  ok = ok || (e->floats && dt->is_float() && dt->bits >= 32);
  if (!ok)
    no_impl(c, std::string("cuda.atomic.") + which + " supports " +
                   (e->only_unsigned ? "uint32 and uint64"
                    : e->floats      ? "int32, uint32, int64, uint64, float32 and float64"
                                     : "int32, uint32, int64 and uint64") +
                   " arrays");
  std::vector<value> idx;
  if (legacy_cas) {
    if (a.ty->ndim != 1) no_impl(c, "compare_and_swap works on 1-d arrays");
    idx.push_back(int_constant(0, tc_.int64(), loc));
  } else {
    bool neg = false;
    idx = element_indices(a, c.args[1], loc, neg, std::string("cuda.atomic.") + which);
    // Atomics take non-negative indices: count negative ones from the end here.
    for (std::size_t d = 0; d < idx.size(); ++d) idx[d] = wrap_index(a, static_cast<int>(d), idx[d], loc);
  }
  std::vector<value> operands{a};
  for (std::size_t i = legacy_cas ? 1 : 2; i < c.args.size(); ++i) {
    const value& v = c.args[i];
    if (!v.ty->is_scalar() || v.ty->is_complex()) no_impl(c);
    operands.push_back(cast(v, dt, loc));
  }
  operands.insert(operands.end(), idx.begin(), idx.end());
  mark_written(a);
  return op(e->op, dt, std::move(operands), loc, {}, true);
}

}  // namespace cuforge::frontend::detail

// Calls: of the registry's intrinsics (their rows type them:
// intrinsics_*.cpp), of dtypes as conversions, of methods of scalars, and of
// device functions (specialised per argument types); and the helpers rows
// share (min/max, round, the float type of math).
#include "intrinsic_registry.hpp"
#include "numba_typing.hpp"
#include "typer_impl.hpp"

#include <cuforge/frontend/extending.hpp>

namespace cuforge::frontend::detail {

value function_typer::call_function(const std::string& name, call_args& c) {
  const intrinsic* e = find_entry(name);
  if (e == nullptr || e->info.kind != intrinsic_kind::function || e->call == nullptr)
    fail(c.loc, "Unsupported function: " + name);
  if (name.starts_with("numpy.") && !makes_array(*e)) {
    bool arrays = false;
    for (const auto& a : c.args) arrays = arrays || (a.runtime() && a.ty->is_array());
    for (const auto& k : c.kwargs) arrays = arrays || k.name == "out";
    if (arrays) return ufunc_call(*e, c);
  }
  if (!e->compile_time_args)
    for (const auto& a : c.args)
      if (!a.runtime()) no_impl(c);
  return e->call(*this, *e, c);
}

value function_typer::intrinsic_op(const intrinsic& e, const type* t, std::vector<value> operands, location loc,
                                   std::vector<std::int64_t> attrs, bool side_effects) {
  // The cpu backend runs kernels whose threads never meet as plain loops;
  // these need its fibers.
  if (e.info.cpu != cpu_needs::nothing) uses_barrier_ = true;
  if (e.info.cpu == cpu_needs::grid_sync) cooperative_ = true;
  attrs.insert(attrs.begin(), index_of(e));
  return op(op_id::intrinsic, t, std::move(operands), loc, std::move(attrs), side_effects);
}

// --- helpers rows share --------------------------------------------------------------

value function_typer::min_max(bool is_min, std::vector<value> xs, call_args& c) {
  const location loc = c.loc;
  if (xs.size() == 1 && xs[0].runtime() && xs[0].ty->is_tuple()) xs = tuple_elements(xs[0], loc);
  if (xs.size() < 2) no_impl(c, "it takes two or more numbers, or a tuple of them");
  for (const auto& x : xs)
    if (!x.runtime() || !x.ty->is_scalar() || x.ty->is_complex()) no_impl(c);
  value acc = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const value& x = xs[i];
    const type* t = acc.ty == x.ty ? acc.ty : promote(tc_, acc.ty, x.ty);
    if (t->kind == type_kind::boolean) t = tc_.int64();
    value r = op(is_min ? op_id::min : op_id::max, t, {cast(acc, t, loc), cast(x, t, loc)}, loc);
    r.weak = acc.weak && x.weak;
    r.nonneg = is_min ? (acc.nonneg && x.nonneg) : (acc.nonneg || x.nonneg);
    acc = cast(r, t, loc);
  }
  return acc;
}

value function_typer::round(call_args& c) {
  const location loc = c.loc;
  if (c.args.size() == 2 && const_of(c.args[1]) && c.args[1].ty->kind == type_kind::none) c.args.pop_back();
  expect_args(*this, c, 1, 2);
  const value& x = c.args[0];
  if (!x.runtime() || !x.ty->is_scalar() || x.ty->is_complex()) no_impl(c);
  // Numba's candidates: round(x) rounds in float32 or float64 (an integer
  // converts to the float it fits), halves to even, and gives an int64;
  // round(x, n) gives that float.
  std::vector<const type*> tys;
  for (const auto& a : c.args) tys.push_back(a.ty);
  resolved_op sig = numba_call(tc_, "builtins.round", tys);
  if (!sig) no_impl(c);
  if (c.args.size() == 1) {
    const type* t = sig.params[0];
    value r = cast(op(op_id::rint, t, {cast(x, t, loc)}, loc), tc_.int64(), loc);
    r.weak = x.weak;
    return r;
  }
  const value& n = c.args[1];
  if (!n.runtime() || !(n.ty->is_int() || n.ty->kind == type_kind::boolean)) no_impl(c, "ndigits must be an integer");
  // rint(x * 10**n) / 10**n in the float type.
  const type* t = sig.result;
  value ten = int_constant(10, t, loc);
  value p = pure(op(op_id::powi, t, {ten, cast(n, tc_.int64(), loc)}, loc), loc);
  value scaled = op(op_id::mul, t, {cast(x, t, loc), p}, loc);
  value r = op(op_id::div, t, {op(op_id::rint, t, {scaled}, loc), p}, loc);
  r.weak = x.weak && n.weak;
  return r;
}

value function_typer::call_dtype(const type* scalar, call_args& c) {
  const location loc = c.loc;
  if (scalar->is_record()) no_impl(c, "a record cannot be made in a kernel: index an array of records");
  if (scalar->is_complex() && c.args.size() == 2 && c.kwargs.empty()) {
    // complex(re, im): Python's complex is the dtype complex128.
    for (const auto& a : c.args)
      if (!a.runtime() || !a.ty->is_scalar() || a.ty->is_complex()) no_impl(c, "the parts must be real numbers");
    const type* f = tc_.floating(scalar->bits / 2);
    return op(op_id::complex_make, scalar, {cast(c.args[0], f, loc), cast(c.args[1], f, loc)}, loc);
  }
  if (!c.kwargs.empty() || c.args.size() > 1) no_impl(c, "it takes one number");
  if (c.args.empty()) return int_constant(0, scalar, loc);
  const value& x = c.args[0];
  if (!x.runtime() || !(x.ty->is_scalar() || x.ty->is_bfloat16())) no_impl(c);
  if (x.ty->is_bfloat16() && scalar->is_complex()) no_impl(c, "cannot convert a bfloat16 to " + scalar->str());
  if (scalar->kind == type_kind::boolean) {  // a complex number's truth too: nonzero
    value r = truth(x, loc);
    r.weak = false;
    return r;
  }
  if (x.ty->is_complex() && !scalar->is_complex()) no_impl(c, "cannot convert a complex number to " + scalar->str());
  value r = cast(x, scalar, loc);
  r.weak = false;
  return r;
}

value function_typer::call_method(const std::string& name, const value& self, call_args& c) {
  if (name.rfind("usermethod:", 0) == 0) {  // a struct type's method (cuda.extending.overload_method)
    c.name = name.substr(11);
    return call_user_method("method:" + c.name, self, c);
  }
  if (name == "method.conjugate") {
    c.name = self.ty->str() + ".conjugate";
    expect_args(*this, c, 0, 0);
    if (!self.ty->is_complex()) return self;
    value r = op(op_id::conj, self.ty, {self}, c.loc);
    r.weak = self.weak;
    return r;
  }
  if (name == "method.reshape") return reshape(self, c);
  if (m_.opts.host_only && self.runtime() && self.ty->is_array())
    if (name.starts_with("method.") && is_reduction_method(name.substr(7))) {
      // a.sum(): numpy.sum(a), in host code (a.copy(): numpy.copy)
      c.name = "numpy." + name.substr(7);
      c.args.insert(c.args.begin(), self);
      return call_function(c.name, c);
    }
  if (name == "method.bit_count") {  // numba-cuda's: cuda.popc of the integer
    c.name = "cuda.popc";
    c.args.insert(c.args.begin(), self);
    return call_function("cuda.popc", c);
  }
  fail(c.loc, "Unsupported method " + name);
}

// --- math ---------------------------------------------------------------------------

value function_typer::float_math(op_id o, const value& x, call_args& c) {
  if (x.runtime() && x.ty->is_bfloat16()) {
    // numba-cuda overloads a few math functions on bfloat16 with cuda.bf16's; the rest take float32.
    if (const intrinsic* row = bfloat16_math_row(c.name)) return intrinsic_op(*row, tc_.bfloat16(), {x}, c.loc);
    return float_math(o, cast(x, tc_.float32(), c.loc), c);
  }
  if (!x.runtime() || !x.ty->is_scalar() || x.ty->is_complex()) no_impl(c);
  if (numba_call_known(c.name)) {
    // math.*: Numba's candidates (float32 stays float32, integers compute
    // in float64, float16 where numba-cuda has the function for it).
    resolved_op sig = numba_call(tc_, c.name, {x.ty});
    if (!sig) no_impl(c);
    const type* t = sig.result;
    return op(o, t, {cast(cast(x, sig.params[0], c.loc), t, c.loc)}, c.loc);
  }
  const type* t = real_float(tc_, x.ty);
  value r = op(o, t, {cast(x, t, c.loc)}, c.loc);
  r.weak = x.weak;
  return r;
}

// --- device functions -----------------------------------------------------------------

value function_typer::call_device(const function& callee, call_args& c) {
  const std::string& fname = c.name;
  const std::size_t n = callee.params.size();
  if (callee.varargs && n > 0) {
    // def f(a, *rest): the extra positional arguments become rest's tuple.
    std::vector<value> rest;
    if (c.args.size() >= n) {
      rest.assign(c.args.begin() + static_cast<std::ptrdiff_t>(n - 1), c.args.end());
      c.args.resize(n - 1);
    }
    for (const auto& r : rest)
      if (!r.runtime()) fail(c.loc, "cannot pass " + r.ty->str() + " to " + fname + "() among its *arguments");
    c.args.push_back(make_tuple(std::move(rest), c.loc));
  }
  if (c.args.size() > n)
    fail(c.loc, fname + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " but " +
                    std::to_string(c.args.size()) + " were given");
  std::vector<std::optional<value>> bound(n);
  for (std::size_t i = 0; i < c.args.size(); ++i) bound[i] = c.args[i];
  for (const auto& k : c.kwargs) {
    std::size_t j = n;
    for (std::size_t i = 0; i < n; ++i) {
      var_id p = callee.params[i];
      if (p >= 0 && static_cast<std::size_t>(p) < callee.vars.size() && callee.vars[static_cast<std::size_t>(p)].name == k.name) j = i;
    }
    if (j == n) fail(c.loc, fname + "() got an unexpected keyword argument '" + k.name + "'");
    if (bound[j]) fail(c.loc, fname + "() got multiple values for argument '" + k.name + "'");
    bound[j] = k.v;
  }
  std::vector<value> args;
  std::vector<const type*> types;
  for (std::size_t i = 0; i < n; ++i) {
    if (!bound[i]) {
      var_id p = callee.params[i];
      std::string pname = p >= 0 && static_cast<std::size_t>(p) < callee.vars.size() ? callee.vars[static_cast<std::size_t>(p)].name : "?";
      fail(c.loc, fname + "() missing argument '" + pname + "'");
    }
    const value& v = *bound[i];
    // Compile-time values (functions, dtypes, modules, device functions)
    // pass by specialisation: the callee is typed for this one.
    if (!v.runtime() && !freeze(v))
      fail(c.loc, "cannot pass " + v.ty->str() + " to " + fname + "(): it is neither a run-time value nor a "
                  "compile-time value a function can be specialised for");
    args.push_back(v);
    types.push_back(v.ty);
  }
  std::vector<value> operands;
  for (const auto& a : args)
    if (a.runtime()) operands.push_back(a);
  // What the call needs of the callee: its id, return type, the arguments it
  // writes, whether it meets barriers, the arguments its result may alias.
  int sid = -1;
  const type* rt = nullptr;
  const std::vector<bool>* writes = nullptr;
  bool barrier = false;
  bool cooperative = false;
  const std::vector<int>* roots = nullptr;
  if (const module_typer::frame* fr = m_.find_frame(callee, types)) {
    // A recursive call of a function still being typed: it returns its
    // declared type, else what its other paths return so far (inference
    // runs to a fixpoint, so the final pass sees the settled type).
    function_typer& ft = *fr->ft;
    if (ft.is_kernel_) fail(c.loc, "a kernel cannot call itself: " + fname + " is a kernel");
    rt = ft.declared_return_ ? ft.declared_return_ : ft.ret_.ty;
    if (!rt) {
      if (!final_) throw unknown_type{};
      fail(c.loc, "cannot infer the return type of recursive function " + fname +
                      ": every path that returns calls it again (runaway recursion); give it an explicit signature");
    }
    if (&ft != this && !ft.declared_return_) ft.handed_out_ = rt;
    sid = fr->sid;
    writes = &ft.writes_;
    barrier = ft.uses_barrier_;
    cooperative = ft.cooperative_;
    roots = &ft.ret_.roots;
  } else {
    try {
      sid = m_.specialize(callee, types, src_, c.loc);
    } catch (const typing_error& e) {
      // A device function of cuforge's own (cuda.random's generators) refusing what it was given:
      // the user's call is the place to show, with where inside the library it failed.
      if (e.filename().find("cuforge/cuda/") == std::string::npos || e.filename() == src_.filename) throw;
      std::string inner = e.source_line();
      inner.erase(0, inner.find_first_not_of(' '));
      fail(c.loc, "cannot call " + fname + " with " + types_text(c) + ": " + e.message() + " (" + e.filename() +
                      ", line " + std::to_string(e.line()) + ": " + inner + ")");
    }
    const specialization& sp = m_.at(sid);
    rt = sp.tf.return_type;
    writes = &sp.tf.writes_arg;
    barrier = sp.tf.uses_barrier;
    cooperative = sp.tf.cooperative;
    roots = &sp.return_roots;
  }
  for (std::size_t i = 0; i < n && i < writes->size(); ++i)
    if ((*writes)[i]) mark_written(args[i]);
  uses_barrier_ = uses_barrier_ || barrier;
  cooperative_ = cooperative_ || cooperative;
  value r = op(op_id::call_device, rt, operands, c.loc, {sid}, true);
  for (int j : *roots)
    if (j >= 0 && static_cast<std::size_t>(j) < args.size()) add_roots(r.roots, args[static_cast<std::size_t>(j)].roots);
  return r;
}

std::shared_ptr<const function> function_typer::resolve_with(overload_resolver& r, const std::string& key,
                                                             const std::vector<const type*>& types, location loc,
                                                             const std::string& what) {
  std::shared_ptr<const function> f;
  try {
    f = r.resolve(types);
  } catch (const typing_error&) {
    throw;
  } catch (const std::exception& e) {
    std::string args;
    for (const type* t : types) args += (args.empty() ? "" : ", ") + t->str();
    fail(loc, "the overload registered for " + (what.empty() ? key : what) + " failed for (" + args + "): " +
                  e.what());
  }
  if (f) m_.keep_alive(f);
  return f;
}

std::shared_ptr<const function> function_typer::resolve_overload(const std::string& key,
                                                                 const std::vector<const type*>& types,
                                                                 location loc, const std::string& what) {
  for (const auto& r : overloads_of(key))
    if (auto f = resolve_with(*r, key, types, loc, what)) return f;
  return nullptr;
}

value function_typer::call_user_method(const std::string& key, const value& self, call_args& c) {
  // The call's arguments as the overloads number them: the struct, the positional ones, the keywords.
  std::vector<value> given{self};
  given.insert(given.end(), c.args.begin(), c.args.end());
  std::vector<std::string> names;
  for (const auto& k : c.kwargs) {
    names.push_back(k.name);
    given.push_back(k.v);
  }
  std::string refused;  // the first overload's reason for not taking the call, in Python's words
  for (const auto& r : overloads_of(key)) {
    std::vector<bound_argument> how;
    try {
      how = r->bind(1 + c.args.size(), names);
    } catch (const std::exception& e) {
      if (refused.empty()) refused = e.what();
      continue;
    }
    std::vector<value> args;
    std::vector<const type*> types;
    for (const bound_argument& b : how) {
      if (b.index >= static_cast<int>(given.size())) fail(c.loc, c.name + "(): an overload bound an argument the call does not have");
      value v = b.index >= 0 ? given[static_cast<std::size_t>(b.index)]
                             : constant(b.value, literal_type(tc_, b.value), c.loc,
                                        b.value.weak && b.value.k != constant_value::kind::none);
      if (!v.runtime()) fail(c.loc, "cannot pass " + v.ty->str() + " to the method " + c.name + "()");
      types.push_back(v.ty);
      args.push_back(std::move(v));
    }
    if (auto f = resolve_with(*r, key, types, c.loc, "")) {
      call_args call;
      call.name = key;
      call.loc = c.loc;
      call.args = std::move(args);
      return call_device(*f, call);
    }
  }
  if (!refused.empty()) fail(c.loc, c.name + "(): " + refused);
  no_impl(c, "no registered overload of the method takes these arguments");
}

std::optional<value> function_typer::user_overload(const std::string& key, std::vector<value> args, location loc) {
  std::vector<const type*> types;
  for (const auto& a : args) {
    if (!a.runtime()) return std::nullopt;
    types.push_back(a.ty);
  }
  std::shared_ptr<const function> f = resolve_overload(key, types, loc);
  if (!f) return std::nullopt;
  call_args c;
  c.name = key;
  c.loc = loc;
  c.args = std::move(args);
  return call_device(*f, c);
}

value function_typer::call_overloaded(const std::string& key, call_args& c) {
  if (!c.kwargs.empty())
    fail(c.loc, c.name + "(): keyword arguments to overloaded functions are not supported");
  std::vector<const type*> types;
  for (const auto& a : c.args) {
    if (!a.runtime()) fail(c.loc, "cannot pass " + a.ty->str() + " to " + c.name + "() (an overloaded function)");
    types.push_back(a.ty);
  }
  std::shared_ptr<const function> f = resolve_overload(key, types, c.loc, c.name);
  if (!f) no_impl(c, "no registered overload takes these arguments");
  return call_device(*f, c);
}

value function_typer::call_external(const type& f, call_args& c) {
  const std::string& fname = f.name;
  if (!c.kwargs.empty())
    fail(c.loc, fname + "() takes no keyword arguments (a function declared with cuda.declare_device)");
  const std::size_t n = f.elements.size();
  if (c.args.size() != n)
    fail(c.loc, fname + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " but " +
                    std::to_string(c.args.size()) + " were given (declared as " + f.str() + ")");
  std::vector<value> operands;
  for (std::size_t i = 0; i < n; ++i) {
    const type* p = f.elements[i];
    value v = unwrap(c.args[i], c.loc);
    const std::string which = "argument " + std::to_string(i + 1) + " of " + fname + "()";
    if (p->kind == type_kind::pointer) {
      // An array passes its data pointer (where Numba needs ffi.from_buffer(array)); the function
      // may write through it.
      if (!v.ty->is_array())
        fail(c.loc, which + " is declared " + p->str() + ": pass an array (its data pointer is passed), not " +
                        v.ty->str());
      if (p->dtype->kind != type_kind::none && v.ty->dtype != p->dtype)
        fail(c.loc, which + " is declared " + p->str() + ": pass an array of " + p->dtype->str() + ", not " +
                        v.ty->str());
      mark_written(v);
      operands.push_back(v);
    } else {
      if (!v.runtime() || !(v.ty->is_scalar() || v.ty->is_bfloat16()))
        fail(c.loc, which + " is declared " + p->str() + ": cannot pass " + v.ty->str());
      operands.push_back(convert(v, p, c.loc, "for " + which));
    }
  }
  // declare_device(use_cooperative=True): the kernel is launched cooperatively, as for grid sync.
  cooperative_ = cooperative_ || f.cooperative;
  std::int64_t index = m_.add_external(&f);
  if (index < 0)
    fail(c.loc, "two declarations of the function " + fname + " in one kernel: " + m_.external_named(fname)->str() +
                    " and " + f.str() + " (each symbol has one signature, ABI and set of files)");
  std::int64_t host = -1;
  if (f.bits >= 2 && f.callee != nullptr) {
    // An intrinsic's host implementation, typed for the declared parameters: what the host target calls.
    int sid = m_.specialize(*f.callee, f.elements, src_, c.loc);
    const specialization& sp = m_.at(sid);
    // Its result converts to the declared type (a float64 power of a float32 is the float32 declared).
    const type* got = sp.tf.return_type;
    const bool none_declared = f.dtype->kind == type_kind::none;
    const bool none_given = got == nullptr || got->kind == type_kind::none;
    if (none_declared != none_given || (!none_given && !got->is_scalar()))
      fail(c.loc, "the host implementation of the intrinsic " + fname + " returns " +
                      (got ? got->str() : std::string("none")) + ", not the declared " + f.dtype->str());
    uses_barrier_ = uses_barrier_ || sp.tf.uses_barrier;
    host = sid;
  }
  return op(op_id::call_external, f.dtype, operands, c.loc, {index, host}, true);
}

}  // namespace cuforge::frontend::detail

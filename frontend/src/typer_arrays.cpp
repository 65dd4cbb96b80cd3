// Subscripts: array elements, views (partial indexing and slices), tuple
// elements; array attributes; stores to array elements.
#include "intrinsic_registry.hpp"
#include "typer_impl.hpp"

#include <cuforge/frontend/abi.hpp>

#include <functional>
#include <limits>

namespace cuforge::frontend::detail {

std::vector<index_item> function_typer::index_items(expr_id index, location loc) {
  const expr& ix = sx(index, loc);
  std::vector<expr_id> comps = ix.kind == expr_kind::tuple ? ix.operands : std::vector<expr_id>{index};
  std::vector<index_item> items;
  for (expr_id comp : comps) {
    const expr& cx = sx(comp, loc);
    index_item it;
    it.loc = cx.loc;
    if (cx.kind == expr_kind::slice) {
      if (cx.operands.size() != 3) fail(cx.loc, "malformed IR: a slice needs start, stop and step");
      value* parts[] = {&it.start, &it.stop, &it.step};
      bool any = false;
      for (int p = 0; p < 3; ++p) {
        expr_id o = cx.operands[static_cast<std::size_t>(p)];
        if (o == no_id) continue;
        value v = unwrap(lower(o), loc);
        if (v.ty->kind == type_kind::none) continue;
        if (!v.ty->is_int()) fail(sx(o, cx.loc).loc, "slice indices must be integers, got " + v.ty->str());
        *parts[p] = cast(v, tc_.int64(), cx.loc);
        any = true;
      }
      if (it.step.ty) {
        if (auto k = const_int(it.step); k && *k == 0) fail(cx.loc, "slice step cannot be zero");
      }
      bool unit_step = !it.step.ty || (const_int(it.step) && *const_int(it.step) == 1 && it.step.pure);
      it.k = (!any || (!it.start.ty && !it.stop.ty && unit_step)) ? index_item::kind::full : index_item::kind::slice;
      items.push_back(std::move(it));
      continue;
    }
    value v = unwrap(lower(comp), loc);
    auto integer = [&](const value& x, location l) {
      if (x.ty->kind == type_kind::boolean) fail(l, "Unsupported: a boolean array index");
      if (x.ty->kind == type_kind::none) fail(l, "Unsupported: None (numpy.newaxis) in an array index");
      if (x.ty->is_array()) fail(l, "Unsupported: indexing an array with an array");
      if (!x.ty->is_int()) fail(l, "array indices must be integers, got " + x.ty->str());
      index_item t;
      t.loc = l;
      t.i = cast(x, tc_.int64(), l);
      return t;
    };
    if (v.ty->is_tuple() && ix.kind != expr_kind::tuple) {
      for (const value& e : tuple_elements(v, cx.loc)) items.push_back(integer(e, cx.loc));
      continue;
    }
    items.push_back(integer(v, cx.loc));
  }
  return items;
}

value function_typer::wrap_index(const value& a, int dim, const value& i, location loc) {
  if (i.nonneg) return i;
  value shape = op(op_id::array_shape, tc_.int64(), {a}, loc, {dim});
  if (auto k = const_int(i)) {
    value r = op(op_id::add, tc_.int64(), {i, shape}, loc);
    r.nonneg = true;
    return r;
  }
  value p = pure(i, loc);
  value neg = op(op_id::lt, tc_.boolean(), {p, int_constant(0, tc_.int64(), loc)}, loc);
  value r = conditional(neg, op(op_id::add, tc_.int64(), {p, shape}, loc), p, tc_.int64(), loc);
  r.nonneg = true;
  return r;
}

std::int64_t function_typer::bounds_site(expr_id array_expr, location loc) {
  if (!m_.opts.boundscheck) return -1;
  if (!final_) return 0;  // a scratch pass's site is never lowered
  std::string label;
  if (array_expr != no_id) {
    const expr& x = sx(array_expr, loc);
    if (x.kind == expr_kind::variable && x.var >= 0 && static_cast<std::size_t>(x.var) < src_.vars.size() &&
        !src_.vars[static_cast<std::size_t>(x.var)].name.empty())
      label = "array '" + src_.vars[static_cast<std::size_t>(x.var)].name + "'";
    else if (x.kind == expr_kind::global && x.global >= 0 && static_cast<std::size_t>(x.global) < src_.globals.size() &&
             !src_.globals[static_cast<std::size_t>(x.global)].name.empty())
      label = "array '" + src_.globals[static_cast<std::size_t>(x.global)].name + "'";
  }
  return m_.add_site({kernel_error::index, std::string(python_exception_of(kernel_error::index)), std::move(label),
                      src_.display_name(), src_.filename, loc.line});
}

value function_typer::index_array(const value& a0, const std::vector<index_item>& items, location loc, expr_id array_expr) {
  const type* at = a0.ty;
  if (items.size() > static_cast<std::size_t>(at->ndim))
    fail(loc, "too many indices for array: array is " + std::to_string(at->ndim) + "-dimensional, but " +
                  std::to_string(items.size()) + " were indexed");
  bool all_int = items.size() == static_cast<std::size_t>(at->ndim);
  for (const auto& it : items) all_int = all_int && it.k == index_item::kind::integer;
  if (all_int) {
    std::vector<value> operands{a0};
    bool neg = false;
    for (const auto& it : items) {
      operands.push_back(it.i);
      neg = neg || !it.i.nonneg;
    }
    std::vector<std::int64_t> attrs{neg ? 1 : 0};
    if (std::int64_t site = bounds_site(array_expr, loc); site >= 0) attrs.push_back(site);
    value r = op(op_id::array_load, element_type(at), std::move(operands), loc, std::move(attrs));
    r.nonneg = at->dtype->kind == type_kind::boolean || (at->dtype->is_int() && !at->dtype->is_signed);
    if (at->dtype->is_record()) r.roots = a0.roots;  // a reference into the array
    return r;
  }
  // A view: one attr per source dimension (0 integer, 1 ':', 2 a slice), then the bounds check's
  // raise site when its integer indices are checked (the lowering wraps and checks them).
  value a = pure(a0, loc);
  std::int64_t bounds = -1;
  for (const auto& it : items)
    if (it.k == index_item::kind::integer) bounds = bounds_site(array_expr, loc);
  std::vector<value> operands{a};
  std::vector<std::int64_t> attrs;
  std::vector<index_item::kind> kinds;
  std::vector<bool> unit;  // a slice of step 1 (contiguous along its dimension)
  int kept = 0;
  for (int d = 0; d < at->ndim; ++d) {
    index_item::kind k = static_cast<std::size_t>(d) < items.size() ? items[static_cast<std::size_t>(d)].k : index_item::kind::full;
    kinds.push_back(k);
    unit.push_back(k == index_item::kind::full);
    if (k == index_item::kind::integer) {
      const value& i = items[static_cast<std::size_t>(d)].i;
      operands.push_back(bounds >= 0 ? i : wrap_index(a, d, i, loc));
      attrs.push_back(0);
      continue;
    }
    ++kept;
    if (k == index_item::kind::full) {
      attrs.push_back(1);
      continue;
    }
    const index_item& it = items[static_cast<std::size_t>(d)];
    auto part = [&](const value& v) {
      return v.ty ? v : int_constant(std::numeric_limits<std::int64_t>::min(), tc_.int64(), it.loc);
    };
    operands.push_back(part(it.start));
    operands.push_back(part(it.stop));
    operands.push_back(part(it.step));
    attrs.push_back(2);
    unit.back() = !it.step.ty || (const_int(it.step) && *const_int(it.step) == 1);
  }
  // Contiguity kept: integers in front (C) or behind (F), then at most one
  // step-1 slice, the rest whole dimensions.
  auto contiguous = [&](bool c_order) {
    int n = at->ndim;
    auto kind_at = [&](int j) { return kinds[static_cast<std::size_t>(c_order ? j : n - 1 - j)]; };
    auto unit_at = [&](int j) { return unit[static_cast<std::size_t>(c_order ? j : n - 1 - j)]; };
    int j = 0;
    while (j < n && kind_at(j) == index_item::kind::integer) ++j;
    if (j < n && unit_at(j)) ++j;
    while (j < n && kind_at(j) == index_item::kind::full) ++j;
    return j == n;
  };
  array_layout layout = array_layout::any;
  if (at->layout == array_layout::c && contiguous(true)) layout = array_layout::c;
  if (at->layout == array_layout::f && contiguous(false)) layout = array_layout::f;
  const type* t = tc_.array(at->dtype, kept, layout, at->readonly, at->space);
  if (bounds >= 0) attrs.push_back(bounds);
  value r = op(op_id::array_view, t, std::move(operands), loc, std::move(attrs));
  r.roots = a.roots;
  return r;
}

value function_typer::subscript(const value& obj, expr_id index, location loc, expr_id array_expr) {
  if (obj.runtime() && obj.ty->is_record()) return record_get(obj, field_index(obj, index, "", loc), loc);
  if (obj.runtime() && obj.ty->is_array()) {
    value a = obj;
    std::vector<index_item> items = index_items(index, loc);
    return index_array(a, items, loc, array_expr);
  }
  if (obj.runtime() && obj.ty->is_tuple()) {
    const expr& ix = sx(index, loc);
    if (ix.kind == expr_kind::slice) {
      // t[a:b:c] with constant bounds: a new tuple.
      if (ix.operands.size() != 3) fail(ix.loc, "malformed IR: a slice needs start, stop and step");
      std::optional<std::int64_t> part[3];
      for (int p = 0; p < 3; ++p) {
        expr_id o = ix.operands[static_cast<std::size_t>(p)];
        if (o == no_id) continue;
        value v = unwrap(lower(o), loc);
        if (v.ty->kind == type_kind::none) continue;
        part[p] = v.ty->is_int() ? const_int(v) : std::nullopt;
        if (!part[p]) fail(ix.loc, "a tuple can only be sliced with constant integers");
      }
      const std::int64_t n = static_cast<std::int64_t>(obj.ty->elements.size());
      std::int64_t step = part[2].value_or(1);
      if (step == 0) fail(ix.loc, "slice step cannot be zero");
      auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
        if (!v) return dflt;
        std::int64_t x = *v < 0 ? *v + n : *v;
        if (step > 0) return std::min(std::max<std::int64_t>(x, 0), n);
        return std::min(std::max<std::int64_t>(x, -1), n - 1);
      };
      std::int64_t start = clamp(part[0], step > 0 ? 0 : n - 1), stop = clamp(part[1], step > 0 ? n : -1);
      value t = obj.pure ? obj : hoist(obj, loc);
      std::vector<value> all = tuple_elements(t, loc), picked;
      for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) picked.push_back(all[static_cast<std::size_t>(i)]);
      return make_tuple(std::move(picked), loc);
    }
    return tuple_index(obj, lower(index), loc);
  }
  fail(loc, "a value of type " + obj.ty->str() + " cannot be subscripted");
}

value function_typer::tuple_index(const value& t, const value& idx, location loc) {
  if (!idx.runtime() || !(idx.ty->is_int() || idx.ty->kind == type_kind::boolean))
    fail(loc, "tuple indices must be integers, not " + idx.ty->str());
  const auto& es = t.ty->elements;
  const std::int64_t n = static_cast<std::int64_t>(es.size());
  if (auto k = const_int(idx)) {
    std::int64_t i = *k < 0 ? *k + n : *k;
    if (i < 0 || i >= n) fail(loc, "tuple index " + std::to_string(*k) + " out of range for " + t.ty->str());
    if (t.literal) {
      bool others_pure = true;
      for (std::int64_t j = 0; j < n; ++j) others_pure = others_pure && (j == i || t.elems[static_cast<std::size_t>(j)].pure);
      if (others_pure) return t.elems[static_cast<std::size_t>(i)];
    }
    value r = op(op_id::tuple_get, es[static_cast<std::size_t>(i)], {t}, loc, {i});
    r.roots = t.roots;
    r.nonneg = r.ty->is_int() && !r.ty->is_signed;
    return r;
  }
  // A run-time index into a tuple of one type: a chain of conditionals.
  if (n == 0) fail(loc, "tuple index out of range for an empty tuple");
  for (auto* e : es)
    if (e != es[0]) fail(loc, "a tuple of different types (" + t.ty->str() + ") can only be indexed with a constant");
  value tp = pure(t, loc);
  value i = pure(cast(idx, tc_.int64(), loc), loc);
  if (!i.nonneg) {
    value neg = op(op_id::lt, tc_.boolean(), {i, int_constant(0, tc_.int64(), loc)}, loc);
    i = hoist(conditional(neg, op(op_id::add, tc_.int64(), {i, int_constant(n, tc_.int64(), loc)}, loc), i, tc_.int64(), loc), loc);
  }
  std::vector<value> elems = tuple_elements(tp, loc);
  value r = elems.back();
  for (std::int64_t k = n - 2; k >= 0; --k) {
    value hit = op(op_id::eq, tc_.boolean(), {i, int_constant(k, tc_.int64(), loc)}, loc);
    r = conditional(hit, elems[static_cast<std::size_t>(k)], r, es[0], loc);
  }
  r.weak = false;
  return r;
}

value function_typer::array_attribute(const value& a0, const std::string& name, location loc) {
  const type* at = a0.ty;
  if (name == "ndim" || name == "itemsize") {
    if (!a0.pure) hoist(a0, loc);
    return int_constant(name == "ndim" ? at->ndim : at->dtype->itemsize(), tc_.int64(), loc, true);
  }
  if (name == "dtype") {
    value v;
    v.ty = tc_.dtype_value(at->dtype);
    return v;
  }
  if (name == "size") {
    value r = op(op_id::array_size, tc_.int64(), {a0}, loc);
    r.weak = r.nonneg = true;  // a Python int, as NumPy's
    return r;
  }
  if (name == "shape" || name == "strides") {
    value a = pure(a0, loc);
    std::vector<value> es;
    for (int d = 0; d < at->ndim; ++d) {
      value e = op(name == "shape" ? op_id::array_shape : op_id::array_stride, tc_.int64(), {a}, loc, {d});
      e.weak = true;  // Python ints, as NumPy's
      e.nonneg = name == "shape";
      es.push_back(e);
    }
    return make_tuple(std::move(es), loc);
  }
  const bool reduction = is_reduction_method(name);
  if (name == "reshape" || (reduction && m_.opts.host_only)) {  // (a.sum(): host code's numpy.sum)
    value m;
    m.ty = tc_.function("method." + name);
    m.self = std::make_shared<value>(a0);
    return m;
  }
  fail(loc, "Unknown attribute '" + name + "' of " + at->str());
}

void function_typer::raise_unless(const value& ok, const std::string& exception, const std::string& message,
                                  location loc) {
  if (prefix_ == nullptr) fail(loc, "internal: no statement to check " + message + " before");
  stmt t;
  t.kind = stmt_kind::assert_;
  t.loc = loc;
  t.value = use(truth(ok, loc).id);
  t.message = message;
  if (final_) t.site = m_.add_site({kernel_error::raised, exception, message, src_.display_name(), src_.filename, loc.line});
  prefix_->push_back(add_stmt(std::move(t)));
}

value function_typer::reshape(const value& self, call_args& c) {
  const location loc = c.loc;
  c.name = self.ty->str() + ".reshape";
  std::vector<value> dims;
  if (c.args.size() == 1 && c.args[0].runtime() && c.args[0].ty->is_tuple())
    dims = tuple_elements(c.args[0], loc);
  else
    dims = c.args;
  if (!c.kwargs.empty()) no_impl(c, "reshape takes the shape only (order= is not supported)");
  if (dims.empty()) no_impl(c, "reshape needs a shape");
  // Numba's rule: only a contiguous array reshapes (a view of the same elements).
  if (self.ty->layout != array_layout::c)
    no_impl(c, "reshape needs a C-contiguous array (this one's layout is " + std::string(1, static_cast<char>(self.ty->layout)) + ")");
  value a = pure(self, loc);
  int unknown = -1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].runtime() || !(dims[i].ty->is_int() || dims[i].ty->kind == type_kind::boolean)) no_impl(c, "the shape must be integers");
    dims[i] = pure(cast(dims[i], tc_.int64(), loc), loc);
    if (auto k = const_int(dims[i]); k && *k == -1) {
      if (unknown >= 0) no_impl(c, "only one extent may be -1");
      unknown = static_cast<int>(i);
    }
  }
  const type* i64 = tc_.int64();
  value size = pure(op(op_id::array_size, i64, {a}, loc), loc);
  value known = int_constant(1, i64, loc);
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (static_cast<int>(i) != unknown) known = pure(op(op_id::mul, i64, {known, dims[i]}, loc), loc);
  if (unknown >= 0) {
    // The -1 extent: what the others leave (0 when they hold nothing).
    value zero = int_constant(0, i64, loc);
    value nz = pure(compare(cmpop::ne, known, zero, loc), loc);
    value one = int_constant(1, i64, loc);
    value q = op(op_id::floordiv, i64, {size, conditional(nz, known, one, i64, loc)}, loc);
    dims[static_cast<std::size_t>(unknown)] = pure(conditional(nz, q, zero, i64, loc), loc);
  }
  // The extents must be non-negative and hold exactly the array's elements:
  // else NotImplementedError("incompatible shape for array"), as Numba raises.
  value ok = compare(cmpop::eq, unknown >= 0 ? pure(op(op_id::mul, i64, {known, dims[static_cast<std::size_t>(unknown)]}, loc), loc) : known, size, loc);
  for (const auto& d : dims) ok = logical(true, ok, compare(cmpop::ge, d, int_constant(0, i64, loc), loc), loc);
  raise_unless(ok, "NotImplementedError", "incompatible shape for array", loc);
  std::vector<value> operands{a};
  for (const auto& d : dims) operands.push_back(d);
  value r = op(op_id::array_reshape, tc_.array(self.ty->dtype, static_cast<int>(dims.size()), array_layout::c,
                                                self.ty->readonly, self.ty->space),
               operands, loc);
  r.roots = a.roots;
  return r;
}

value function_typer::ufunc_call(const intrinsic& e, call_args& c) {
  const location loc = c.loc;
  const std::string name = "np." + std::string(e.info.name.substr(6));
  std::string_view params = e.info.params;
  std::size_t nin = params == "()" ? 0 : 1;
  for (char ch : params) nin += ch == ',' ? 1 : 0;
  std::vector<value> ins = c.args;
  value out;
  bool have_out = false;
  for (const auto& k : c.kwargs) {
    if (k.name != "out") no_impl(c, "on arrays it takes its inputs and out= only");
    out = k.v;
    have_out = true;
  }
  if (!have_out && ins.size() == nin + 1) {
    out = ins.back();
    ins.pop_back();
    have_out = true;
  }
  // Host code (the host jit) may allocate: without out, the result is a new array of the inputs'
  // broadcast shape and the element's type, as NumPy (and numba's nopython mode) give.
  const bool allocate = !have_out && m_.opts.host_only;
  if (!have_out && !allocate)
    fail(loc, name + " of an array needs an array to write into, as in " + name + "(x, out): kernels cannot "
                     "allocate arrays");
  if (ins.size() != nin) no_impl(c, "it takes " + std::to_string(nin) + " input(s)" + (allocate ? "" : " and out"));
  if (have_out) {
    if (!out.runtime() || !out.ty->is_array() || out.ty->dtype->is_record())
      fail(loc, name + ": out must be an array of numbers, not " + out.ty->str());
    if (out.ty->readonly || out.ty->space == address_space::constant)
      fail(loc, name + ": out is a read-only array (" + out.ty->str() + ")");
    out = pure(out, loc);
  }
  // The inputs: arrays (each read at the loop's element), numbers, and, in a call making a new array, the
  // new arrays of the operators it takes right away (`np.sqrt(a * a + 1.0)`): fused, their elements
  // computed here as their own loops would (the same operations on the same values: the same numbers,
  // numba's fused array expression) without the array in between. A call writing into an array it was
  // given fuses nothing (its out may overlap their inputs).
  std::vector<value> arrays, elements, used;
  std::vector<array_layout> layouts;
  int ndim = 0;
  // (the recipes' nodes stay where they are: nothing is added to the map until this call's end)
  auto recipe_of = [&](const value& x) -> const ufunc_recipe* {
    if (!allocate || !x.runtime() || !x.ty->is_array()) return nullptr;
    auto it = ufunc_recipes_.find(x.id);
    return it == ufunc_recipes_.end() ? nullptr : &it->second;
  };
  std::function<value(const value&, std::size_t)> element_of = [&](const value& x, std::size_t i) -> value {
    if (x.runtime() && x.ty->is_array()) {
      if (const ufunc_recipe* rc = recipe_of(x)) {
        std::vector<value> sub;
        for (const value& in : rc->ins) sub.push_back(element_of(in, i));
        call_args ic{rc->name, sub, {}, loc};
        return rc->row->call(*this, *rc->row, ic);
      }
      if (have_out && x.ty->ndim > out.ty->ndim)
        fail(loc, name + ": input " + std::to_string(i + 1) + " (" + x.ty->str() + ") has more dimensions than out (" +
                      out.ty->str() + ")");
      if (x.ty->dtype->is_record()) fail(loc, name + ": input " + std::to_string(i + 1) + " is an array of records");
      arrays.push_back(pure(x, loc));
      ndim = std::max(ndim, x.ty->ndim);
      return op(op_id::ufunc_element, x.ty->dtype, {}, loc, {static_cast<std::int64_t>(arrays.size() - 1)});
    }
    if (x.runtime() && x.ty->is_scalar()) return pure(x, loc);
    no_impl(c, "input " + std::to_string(i + 1) + " is " + x.ty->str() + ", not an array or a number");
  };
  for (std::size_t i = 0; i < ins.size(); ++i) {
    const value& x = ins[i];
    const ufunc_recipe* fused = recipe_of(x);
    if (x.runtime() && x.ty->is_array()) layouts.push_back(fused != nullptr ? fused->layout : x.ty->layout);
    const std::size_t before = arrays.size();
    elements.push_back(element_of(x, i));
    // what a fusing caller needs of this input again: the recipe's own value, else what was evaluated here
    used.push_back(fused != nullptr ? x : arrays.size() > before ? arrays.back() : elements.back());
  }
  call_args ec{c.name, elements, {}, loc};
  value r = e.call(*this, e, ec);
  if (!r.runtime() || !r.ty->is_scalar())
    fail(loc, name + " on arrays gives " + r.ty->str() + " per element: only ufuncs with one output take out");
  const type* i64 = tc_.int64();
  std::vector<value> extents;
  array_layout layout = array_layout::c;
  if (allocate) {
    // Each extent of the result: the inputs' that is not 1 (the broadcast checks below refuse the rest).
    for (int d = 0; d < ndim; ++d) {
      value ext = int_constant(1, i64, loc);
      for (const value& a : arrays) {
        const int k = d - (ndim - a.ty->ndim);
        if (k < 0) continue;
        value s = pure(op(op_id::array_shape, i64, {a}, loc, {k}), loc);
        ext = pure(conditional(compare(cmpop::ne, s, int_constant(1, i64, loc), loc), s, ext, i64, loc), loc);
      }
      extents.push_back(ext);
    }
    // numba's layout: C if an input is C, else F if one is F, else C.
    bool any_c = false, any_f = false;
    for (array_layout l : layouts) {
      any_c = any_c || l == array_layout::c;
      any_f = any_f || l == array_layout::f;
    }
    layout = !any_c && any_f ? array_layout::f : array_layout::c;
    // (made where the loop runs: a result fused into another operator's loop is never made)
    out = new_array(*this, extents, r.ty, layout, loc);
  }
  // NumPy's broadcasting: each input's extents, aligned to out's last ones, equal out's or are 1;
  // else ValueError, as NumPy raises.
  value ok;
  bool checks = false;
  for (const value& a : arrays) {
    const int off = (allocate ? ndim : out.ty->ndim) - a.ty->ndim;
    for (int d = 0; d < a.ty->ndim; ++d) {
      value s_in = pure(op(op_id::array_shape, i64, {a}, loc, {d}), loc);
      value s_out = allocate ? extents[static_cast<std::size_t>(d + off)]
                             : op(op_id::array_shape, i64, {out}, loc, {d + off});
      value cond = logical(false, compare(cmpop::eq, s_in, s_out, loc), compare(cmpop::eq, s_in, int_constant(1, i64, loc), loc), loc);
      ok = checks ? logical(true, ok, cond, loc) : cond;
      checks = true;
    }
  }
  if (checks)
    raise_unless(ok, "ValueError", allocate ? "operands could not be broadcast together"
                                            : "operands could not be broadcast together with the shape of out", loc);
  // NumPy's same_kind casting into out: no float into integers, no complex into reals.
  auto rank = [](const type* t) { return t->kind == type_kind::boolean ? 0 : t->is_int() ? 1 : t->is_complex() ? 3 : 2; };
  if (rank(r.ty) > rank(out.ty->dtype))
    fail(loc, name + ": cannot write its " + r.ty->str() + " results into out's " + out.ty->dtype->str() +
                  " (NumPy's same_kind casting)");
  std::vector<value> operands{out};
  for (const value& a : arrays) operands.push_back(a);
  operands.push_back(cast(r, out.ty->dtype, loc));
  mark_written(out);
  value res = op(op_id::ufunc_loop, out.ty, std::move(operands), loc, {}, true);
  res.roots = out.roots;
  if (allocate && ndim == 0) return index_array(pure(res, loc), {}, loc);  // 0-d inputs: a number, as numba gives
  if (allocate) ufunc_recipes_[res.id] = ufunc_recipe{&e, c.name, std::move(used), layout};
  return res;
}

value function_typer::array_operator(const char* ufunc, std::vector<value> operands, bool inplace, location loc) {
  const intrinsic& e = entry(ufunc);
  call_args c;
  c.name = ufunc;
  c.loc = loc;
  if (inplace && operands[0].runtime() && operands[0].ty->is_array()) c.kwargs.push_back({"out", operands[0]});
  c.args = std::move(operands);
  return ufunc_call(e, c);
}

std::vector<value> function_typer::element_indices(const value& a, const value& idx, location loc,
                                                   bool& may_be_negative, const std::string& what) {
  std::vector<value> parts;
  if (idx.ty->is_tuple())
    parts = tuple_elements(idx, loc);
  else
    parts.push_back(idx);
  if (parts.size() != static_cast<std::size_t>(a.ty->ndim))
    fail(loc, what + " needs " + std::to_string(a.ty->ndim) + " indices for " + a.ty->str() + ", got " +
                  std::to_string(parts.size()));
  std::vector<value> out;
  for (const auto& p : parts) {
    if (!p.ty->is_int()) fail(loc, what + ": array indices must be integers, got " + p.ty->str());
    value i = cast(p, tc_.int64(), loc);
    may_be_negative = may_be_negative || !i.nonneg;
    out.push_back(i);
  }
  return out;
}

void function_typer::store(const value& a, expr_id index, const value& v, location loc, std::vector<stmt_id>& out,
                           expr_id array_expr) {
  if ((a.ty && a.ty->is_optional()) || (v.ty && v.ty->is_optional()))
    return store(unwrap(a, loc), index, unwrap(v, loc), loc, out, array_expr);
  if (a.runtime() && a.ty->is_tuple()) fail(loc, "tuples are immutable: cannot assign to an element of " + a.ty->str());
  if (a.runtime() && a.ty->is_record()) {
    record_set(a, field_index(a, index, "", loc), v, loc, out);
    return;
  }
  if (!a.runtime() || !a.ty->is_array()) fail(loc, "a value of type " + a.ty->str() + " does not support item assignment");
  if (a.ty->space == address_space::constant) fail(loc, "cannot assign to an element of a constant array (" + a.ty->str() + ")");
  if (a.ty->readonly) fail(loc, "cannot assign to an element of a read-only array (" + a.ty->str() + ")");
  std::vector<index_item> items = index_items(index, loc);
  if (items.size() > static_cast<std::size_t>(a.ty->ndim))
    fail(loc, "too many indices for array: array is " + std::to_string(a.ty->ndim) + "-dimensional, but " +
                  std::to_string(items.size()) + " were indexed");
  bool element = items.size() == static_cast<std::size_t>(a.ty->ndim);
  for (const auto& it : items) element = element && it.k == index_item::kind::integer;
  if (!element)
    fail(loc, "Unsupported: assignment to a slice or a sub-array of " + a.ty->str() + " (assign its elements in a loop)");
  value stored;
  if (a.ty->dtype->is_record()) {
    // A whole record, copied: it must have the array's record layout.
    if (!v.runtime() || !v.ty->is_record() || tc_.in_space(v.ty, address_space::global) != a.ty->dtype)
      fail(loc, "cannot store " + v.ty->str() + " in an element of " + a.ty->str() +
                    (v.ty->is_record() ? ": the records' layouts differ" : ""));
    stored = v;
  } else {
    if (!v.runtime() || !(v.ty->is_scalar() || (v.ty->is_bfloat16() && !a.ty->dtype->is_complex()) ||
                          (v.ty->is_time() && a.ty->dtype->kind == v.ty->kind)))
      fail(loc, "cannot store " + v.ty->str() + " in an element of " + a.ty->str());
    stored = cast(v, a.ty->dtype, loc);
  }
  std::vector<value> operands{a, stored};
  bool neg = false;
  for (const auto& it : items) {
    operands.push_back(it.i);
    neg = neg || !it.i.nonneg;
  }
  std::vector<std::int64_t> attrs{neg ? 1 : 0};
  if (std::int64_t site = bounds_site(array_expr, loc); site >= 0) attrs.push_back(site);
  value s = op(op_id::array_store, tc_.none(), std::move(operands), loc, std::move(attrs), true);
  mark_written(a);
  emit_effect(s, loc, out);
}

}  // namespace cuforge::frontend::detail

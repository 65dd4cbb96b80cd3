// Records (structured dtypes): fields read as r.f, r['f'] and r[k] (k a
// constant), written the same ways; elements of arrays of records; whole
// records stored into arrays. A record value is a reference to its bytes,
// as in Numba: reading a field reads memory, writing one writes it.
#include "typer_impl.hpp"

namespace cuforge::frontend::detail {

const type* function_typer::element_type(const type* array) {
  return tc_.in_space(array->dtype, array->space);
}

std::size_t function_typer::field_index(const value& r, expr_id key, const std::string& name, location loc) {
  const type* rt = r.ty;
  auto names = [&] {
    std::string s;
    for (std::size_t i = 0; i < rt->fields.size(); ++i) s += (i ? ", " : "") + rt->fields[i].name;
    return s;
  };
  if (key == no_id) {
    for (std::size_t i = 0; i < rt->fields.size(); ++i)
      if (rt->fields[i].name == name) return i;
    fail(loc, "the record has no field '" + name + "' (its fields: " + names() + ")");
  }
  value k = lower(key);
  auto i = k.ty && k.ty->is_int() ? const_int(k) : std::nullopt;
  if (!i)
    fail(loc, "a record is indexed by a field name or a constant integer, not " +
                  (k.ty ? k.ty->str() : std::string("?")) + " (its fields: " + names() + ")");
  const auto n = static_cast<std::int64_t>(rt->fields.size());
  const std::int64_t at = *i < 0 ? *i + n : *i;
  if (at < 0 || at >= n)
    fail(loc, "record index " + std::to_string(*i) + " is out of range: the record has " + std::to_string(n) +
                  " fields (" + names() + ")");
  return static_cast<std::size_t>(at);
}

value function_typer::record_get(const value& r, std::size_t field, location loc) {
  const field_info& f = r.ty->fields[field];
  const type* t = nullptr;
  if (!f.shape.empty())
    t = tc_.array(f.ty, static_cast<int>(f.shape.size()), array_layout::c, false, r.ty->space);
  else
    t = tc_.in_space(f.ty, r.ty->space);
  value v = op(op_id::record_get, t, {r}, loc, {static_cast<std::int64_t>(field)});
  if (t->is_array() || t->is_record()) v.roots = r.roots;
  v.nonneg = t->kind == type_kind::boolean || (t->is_int() && !t->is_signed);
  return v;
}

void function_typer::record_set(const value& r, std::size_t field, const value& v, location loc,
                                std::vector<stmt_id>& out) {
  if (v.ty && v.ty->is_optional()) return record_set(r, field, unwrap(v, loc), loc, out);
  const field_info& f = r.ty->fields[field];
  if (r.ty->space == address_space::constant)
    fail(loc, "cannot assign to field '" + f.name + "' of a record in constant memory");
  if (!v.runtime()) fail(loc, "cannot store " + v.ty->str() + " in field '" + f.name + "' of a record");
  value stored;
  if (!f.shape.empty()) {
    // A whole nested array, from an array of its dtype and rank (copied element by element).
    if (!v.ty->is_array() || v.ty->dtype != f.ty || v.ty->ndim != static_cast<int>(f.shape.size()))
      fail(loc, "field '" + f.name + "' is an array of " + f.ty->str() + " with " + std::to_string(f.shape.size()) +
                    " dimension(s): it takes an array of that dtype and rank, not " + v.ty->str());
    stored = v;
  } else if (f.ty->is_record()) {
    if (!v.ty->is_record() || tc_.in_space(v.ty, address_space::global) != f.ty)
      fail(loc, "field '" + f.name + "' is a record of another layout than " + v.ty->str() + " (it is " +
                    f.ty->str() + ")");
    stored = v;
  } else {
    if (!v.ty->is_scalar()) fail(loc, "cannot store " + v.ty->str() + " in field '" + f.name + "' (" + f.ty->str() + ")");
    stored = cast(v, f.ty, loc);
  }
  value s = op(op_id::record_set, tc_.none(), {r, stored}, loc, {static_cast<std::int64_t>(field)}, true);
  mark_written(r);
  emit_effect(s, loc, out);
}

}  // namespace cuforge::frontend::detail

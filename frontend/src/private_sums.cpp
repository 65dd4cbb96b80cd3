// Which array parameters of a kernel are private sums for the cpu backend: arrays the kernel
// only adds into with atomics whose results it ignores (runtime/src/cpu/private_sums.hpp).

#include "intrinsic_registry.hpp"

#include <cuforge/frontend/abi.hpp>
#include <cuforge/frontend/codegen.hpp>

#include <functional>
#include <utility>

namespace cuforge::frontend {

namespace {

using use = cpu::array_param::use;

// The typed body's expressions as a graph: who uses each, reached from the statements (the arena
// also holds the untyped expressions the typer replaced).
struct uses_of {
  std::vector<std::vector<std::pair<expr_id, std::size_t>>> parents;  // (user, operand position)
  std::vector<int> by_statements;       // statements naming it (a value, target, bound...)
  std::vector<int> as_effect;           // of those, expression statements (its value unused)
  std::vector<bool> loop_variable;      // variables a for loop assigns

  explicit uses_of(const function& f)
      : parents(f.exprs.size()), by_statements(f.exprs.size()), as_effect(f.exprs.size()), loop_variable(f.vars.size()) {
    std::vector<bool> seen(f.exprs.size());
    std::function<void(expr_id)> reach = [&](expr_id e) {
      if (e < 0 || static_cast<std::size_t>(e) >= f.exprs.size() || seen[static_cast<std::size_t>(e)]) return;
      seen[static_cast<std::size_t>(e)] = true;
      const expr& x = f.at(e);
      for (std::size_t j = 0; j < x.operands.size(); ++j) {
        const expr_id o = x.operands[j];
        if (o < 0 || static_cast<std::size_t>(o) >= f.exprs.size()) continue;
        parents[static_cast<std::size_t>(o)].emplace_back(e, j);
        reach(o);
      }
    };
    std::function<void(const std::vector<stmt_id>&)> walk = [&](const std::vector<stmt_id>& block) {
      for (stmt_id id : block) {
        if (id < 0 || static_cast<std::size_t>(id) >= f.stmts.size()) continue;
        const stmt& s = f.at_stmt(id);
        for (expr_id e : {s.target, s.value, s.start, s.stop, s.step}) {
          if (e < 0 || static_cast<std::size_t>(e) >= f.exprs.size()) continue;
          ++by_statements[static_cast<std::size_t>(e)];
          if (s.kind == stmt_kind::expression && e == s.value) ++as_effect[static_cast<std::size_t>(e)];
          reach(e);
        }
        if (s.kind == stmt_kind::for_range && s.var >= 0 && static_cast<std::size_t>(s.var) < loop_variable.size())
          loop_variable[static_cast<std::size_t>(s.var)] = true;
        walk(s.body);
        walk(s.orelse);
      }
    };
    walk(f.body);
  }
};

// How the body uses parameter variable `v`, an array of `dtype`: a sum when every use is the
// array of an adding atomic whose result is unused, or reads only its shape.
use use_of(const function& f, const uses_of& u, var_id v, const type* dtype) {
  const int bytes = dtype->itemsize();
  const bool number = (dtype->is_int() || dtype->is_float()) && (bytes == 4 || bytes == 8);
  if (!number || v < 0 || static_cast<std::size_t>(v) >= u.loop_variable.size() ||
      u.loop_variable[static_cast<std::size_t>(v)])
    return use::other;
  int adds = 0;
  for (std::size_t e = 0; e < f.exprs.size(); ++e) {
    const expr& x = f.exprs[e];
    if (x.kind != expr_kind::variable || x.var != v) continue;
    if (u.by_statements[e] != 0) return use::other;  // assigned, returned, passed on as a whole...
    for (const auto& [p, at] : u.parents[e]) {
      const expr& user = f.at(p);
      if (user.kind != expr_kind::op) return use::other;
      if (user.op == op_id::array_shape || user.op == op_id::array_size) continue;  // no element read
      if (user.op != op_id::intrinsic || at != 0 || !detail::entry_of(user).adds_into) return use::other;
      const auto q = static_cast<std::size_t>(p);
      if (!u.parents[q].empty() || u.by_statements[q] != u.as_effect[q]) return use::other;  // the old value is used
      ++adds;
    }
  }
  if (adds == 0) return use::other;
  return dtype->is_float() ? use::float_sum : use::int_sum;
}

void list_arrays(const type* t, const std::vector<use>* how, std::size_t arg, std::size_t& slot,
                 std::vector<cpu::array_param>& out) {
  if (t->is_array()) {
    cpu::array_param a;
    a.slot = static_cast<std::uint32_t>(slot);
    a.arg = static_cast<std::uint32_t>(arg);
    a.ndim = static_cast<std::uint8_t>(t->ndim);
    a.how = how != nullptr ? (*how)[arg] : use::other;
    a.itemsize = static_cast<std::uint32_t>(t->dtype->itemsize());
    out.push_back(a);
  } else if (t->is_tuple()) {
    for (const type* e : t->elements) list_arrays(e, nullptr, arg, slot, out);
    return;
  }
  slot += slot_count(t);
}

}  // namespace

std::vector<cpu::array_param> array_params_of(const typed_module& m) {
  if (m.functions.empty() || !m.functions.front().is_kernel || !m.functions.front().ir) return {};
  const typed_function& k = m.functions.front();
  const function& f = *k.ir;
  if (f.params.size() != k.arg_types.size()) return {};
  const uses_of u(f);
  std::vector<use> how(k.arg_types.size(), use::other);
  bool any = false;
  for (std::size_t i = 0; i < k.arg_types.size(); ++i) {
    if (!k.arg_types[i]->is_array() || k.arg_types[i]->ndim > 32) continue;
    how[i] = use_of(f, u, f.params[i], k.arg_types[i]->dtype);
    any = any || how[i] != use::other;
  }
  if (!any) return {};
  std::vector<cpu::array_param> out;
  std::size_t slot = 0;
  for (std::size_t i = 0; i < k.arg_types.size(); ++i) list_arrays(k.arg_types[i], &how, i, slot, out);
  return out;
}

}  // namespace cuforge::frontend

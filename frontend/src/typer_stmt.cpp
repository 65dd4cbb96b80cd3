// Statements: assignments (to variables, tuples of targets, array
// elements), conditions, loops, returns, raise and assert.
#include "numba_typing.hpp"
#include "typer_impl.hpp"

namespace cuforge::frontend::detail {

void function_typer::block(const std::vector<stmt_id>& ids, std::vector<stmt_id>& out) {
  for (auto id : ids) statement(id, out);
}

void function_typer::statement(stmt_id id, std::vector<stmt_id>& out) {
  nesting guard(*this, ss(id).loc);
  // What a statement's expressions hoist goes just before it.
  std::vector<stmt_id> pre, mine;
  auto* saved = prefix_;
  prefix_ = &pre;
  try {
    statement_impl(id, mine);
  } catch (...) {
    prefix_ = saved;
    throw;
  }
  prefix_ = saved;
  out.insert(out.end(), pre.begin(), pre.end());
  out.insert(out.end(), mine.begin(), mine.end());
}

void function_typer::statement_impl(stmt_id id, std::vector<stmt_id>& out) {
  const stmt& s = ss(id);
  auto copy = [&](stmt_kind k) {
    stmt t;
    t.kind = k;
    t.loc = s.loc;
    out.push_back(add_stmt(std::move(t)));
  };
  switch (s.kind) {
    case stmt_kind::assign: guarded([&] { assign(s, out); }); return;
    case stmt_kind::expression:
      guarded([&] {
        value v = lower(s.value);
        // Only effects matter: a pure expression (a docstring, `a[i]`, a
        // module named for nothing) is dropped.
        if (v.pure || v.id == no_id) return;
        stmt t;
        t.kind = stmt_kind::expression;
        t.loc = s.loc;
        t.value = use(v.id);
        out.push_back(add_stmt(std::move(t)));
      });
      return;
    case stmt_kind::if_: {
      value c;
      bool ok = guarded([&] { c = truth(lower(s.value), sx(s.value, s.loc).loc); });
      if (ok) {
        if (auto k = const_int(c)) {
          // A constant condition (a global flag): only the branch taken is
          // typed, as Numba prunes dead branches.
          block(*k ? s.body : s.orelse, out);
          return;
        }
      }
      std::vector<stmt_id> body, orelse;
      block(s.body, body);
      block(s.orelse, orelse);
      if (!ok) return;
      stmt t;
      t.kind = stmt_kind::if_;
      t.loc = s.loc;
      t.value = use(c.id);
      t.body = std::move(body);
      t.orelse = std::move(orelse);
      out.push_back(add_stmt(std::move(t)));
      return;
    }
    case stmt_kind::while_: while_(s, out); return;
    case stmt_kind::for_range: for_range(s, out); return;
    case stmt_kind::break_:
    case stmt_kind::continue_:
      if (loop_depth_ == 0)
        guarded([&] { fail(s.loc, std::string("'") + (s.kind == stmt_kind::break_ ? "break" : "continue") + "' outside a loop"); });
      copy(s.kind);
      return;
    case stmt_kind::pass: return;
    case stmt_kind::return_: guarded([&] { return_(s, out); }); return;
    case stmt_kind::raise_:
      guarded([&] {
        // The walker resolved what is raised to an exception global: its class and message.
        const global_value* g = nullptr;
        if (s.value != no_id) {
          const expr& x = sx(s.value, s.loc);
          if (x.kind == expr_kind::global && x.global >= 0 && static_cast<std::size_t>(x.global) < src_.globals.size() &&
              src_.globals[static_cast<std::size_t>(x.global)].k == global_value::kind::exception)
            g = &src_.globals[static_cast<std::size_t>(x.global)];
        }
        if (g == nullptr) fail(s.loc, "malformed IR: a raise without its exception");
        stmt t;
        t.kind = stmt_kind::raise_;
        t.loc = s.loc;
        t.message = g->message;
        // Numba's model: a kernel's raise is reported under debug=True (and in host code, as
        // Python does); otherwise it ends the raising thread, unreported (site stays no_id).
        if (final_ && (m_.opts.debug || m_.opts.host_only))
          t.site = m_.add_site({kernel_error::raised, g->cls, g->message, src_.display_name(), src_.filename, s.loc.line});
        out.push_back(add_stmt(std::move(t)));
      });
      return;
    case stmt_kind::assert_:
      // Without debug an assert is dropped unchecked, as `python -O` does.
      if (!m_.opts.debug) return;
      guarded([&] {
        value c = truth(lower(s.value), s.loc);
        stmt t;
        t.kind = stmt_kind::assert_;
        t.loc = s.loc;
        t.value = use(c.id);
        t.message = s.message;
        // Its raise site, once: the passes before the final one are scratch.
        if (final_)
          t.site = m_.add_site({kernel_error::assertion, std::string(python_exception_of(kernel_error::assertion)),
                                s.message, src_.display_name(), src_.filename, s.loc.line});
        out.push_back(add_stmt(std::move(t)));
      });
      return;
  }
  guarded([&] { fail(s.loc, "malformed IR: unknown statement kind"); });
}

void function_typer::assign(const stmt& s, std::vector<stmt_id>& out) {
  const expr& t = sx(s.target, s.loc);
  if (s.value == no_id) fail(s.loc, "malformed IR: an assignment without a value");
  if (t.kind == expr_kind::subscript) {
    // Python evaluates the value, then the array, then the index.
    if (t.operands.size() != 2) fail(t.loc, "malformed IR: a subscript needs an object and an index");
    value v = lower(s.value);
    value a = lower(t.operands[0]);
    store(a, t.operands[1], v, t.loc, out, t.operands[0]);
    return;
  }
  value v = lower(s.value);
  assign_target(s.target, v, t.loc, out);
}

void function_typer::assign_target(expr_id target, const value& v, location loc, std::vector<stmt_id>& out) {
  const expr& t = sx(target, loc);
  switch (t.kind) {
    case expr_kind::variable: assign_var(t.var, v, t.loc, out); return;
    case expr_kind::tuple: {
      if (v.ty->is_optional()) return assign_target(target, unwrap(v, loc), loc, out);
      if (!v.ty->is_tuple()) fail(t.loc, "cannot unpack a value of type " + v.ty->str());
      if (v.ty->elements.size() != t.operands.size())
        fail(t.loc, "cannot unpack " + v.ty->str() + " (" + std::to_string(v.ty->elements.size()) + " values) into " +
                        std::to_string(t.operands.size()) + " targets");
      // The whole value into a temporary first, so `a, b = b, a` reads
      // before it writes; then each target from its element.
      var_id tmp = new_temp(v.ty);
      expr te;
      te.kind = expr_kind::variable;
      te.loc = t.loc;
      te.var = tmp;
      te.ty = v.ty;
      stmt st;
      st.kind = stmt_kind::assign;
      st.loc = t.loc;
      st.target = add(te);
      st.value = use(v.id);
      out.push_back(add_stmt(std::move(st)));
      for (std::size_t i = 0; i < t.operands.size(); ++i) {
        value whole;
        whole.ty = v.ty;
        whole.id = add(te);
        whole.roots = v.roots;
        value e = op(op_id::tuple_get, v.ty->elements[i], {whole}, t.loc, {static_cast<std::int64_t>(i)});
        e.roots = v.roots;
        if (v.literal) {
          // A literal's elements keep what is known of them (weak, >= 0).
          e.weak = v.elems[i].weak;
          e.nonneg = v.elems[i].nonneg;
          e.roots = v.elems[i].roots;
        }
        const expr& ti = sx(t.operands[i], t.loc);
        if (ti.kind == expr_kind::subscript) {
          if (ti.operands.size() != 2) fail(ti.loc, "malformed IR: a subscript needs an object and an index");
          value a = lower(ti.operands[0]);
          store(a, ti.operands[1], e, ti.loc, out);
        } else {
          assign_target(t.operands[i], e, ti.loc, out);
        }
      }
      return;
    }
    case expr_kind::subscript: {
      if (t.operands.size() != 2) fail(t.loc, "malformed IR: a subscript needs an object and an index");
      value a = lower(t.operands[0]);
      store(a, t.operands[1], v, t.loc, out, t.operands[0]);
      return;
    }
    case expr_kind::attribute: {
      if (t.operands.size() != 1) fail(t.loc, "malformed IR: an attribute needs an object");
      value obj = unwrap(lower(t.operands[0]), t.loc);
      if (obj.runtime() && obj.ty->is_vector())
        fail(t.loc, "a vector type's members are read-only ('." + t.name + "' of " + obj.ty->str() +
                        "), as in numba-cuda: make a new " + obj.ty->str());
      if (!obj.runtime() || !obj.ty->is_record())
        fail(t.loc, "Unsupported: assigning to an attribute ('." + t.name + "') of " + obj.ty->str() +
                        " (only a record's fields can be assigned)");
      record_set(obj, field_index(obj, no_id, t.name, t.loc), v, t.loc, out);
      return;
    }
    default: fail(t.loc, "cannot assign to this expression");
  }
}

const type* function_typer::range_type(const value* const (&parts)[3], const location (&where)[3], location loc,
                                        bool& weak) {
  for (int i = 0; i < 3; ++i)
    if (!parts[i]->ty->is_int() && parts[i]->ty->kind != type_kind::boolean)
      fail(where[i], "range() arguments must be integers, got " + parts[i]->ty->str());
  if (auto k = const_int(*parts[2]); k && *k == 0) fail(where[2], "range() arg 3 must not be zero");
  const value &start = *parts[0], &stop = *parts[1], &step = *parts[2];
  weak = false;
  // Numba's range(): candidates in int32, int64 and uint64, resolved on
  // the arguments given (a literal 0 start and 1 step count as absent, so
  // range(n) of an int32 counts in int32).
  std::vector<const type*> given;
  auto literal = [&](const value& v, std::int64_t k) { return v.weak && const_int(v) == k; };
  if (!literal(start, 0) || !literal(step, 1)) given.push_back(start.ty);
  given.push_back(stop.ty);
  if (!literal(step, 1)) given.push_back(step.ty);
  // A signed argument (a negative step, say) makes it int64 or int32:
  // the uint64 range is chosen only when every argument is unsigned.
  const type* t = numba_call(tc_, "builtins.range", given).result;
  if (!t)
    fail(loc, "range() arguments " + start.ty->str() + ", " + stop.ty->str() + " and " + step.ty->str() +
                  " have no common integer type");
  return t;
}

void function_typer::for_range(const stmt& s, std::vector<stmt_id>& out) {
  value start, stop, step;
  bool ok = guarded([&] {
    if (s.var < 0 || static_cast<std::size_t>(s.var) >= vars_.size())
      fail(s.loc, "malformed IR: the loop variable does not exist");
    if (s.stop == no_id) fail(s.loc, "malformed IR: range() without a stop");
    start = s.start == no_id ? int_constant(0, tc_.int64(), s.loc, true) : lower(s.start);
    stop = lower(s.stop);
    step = s.step == no_id ? int_constant(1, tc_.int64(), s.loc, true) : lower(s.step);
    const value* parts[] = {&start, &stop, &step};
    location where[3];
    expr_id ids[] = {s.start, s.stop, s.step};
    for (int i = 0; i < 3; ++i) where[i] = ids[i] == no_id ? s.loc : sx(ids[i], s.loc).loc;
    bool w2 = false;
    const type* t = range_type(parts, where, s.loc, w2);
    value contribution;
    contribution.ty = t;
    contribution.weak = w2;
    contribution.nonneg = start.nonneg && step.nonneg;
    var_state& st = vars_[static_cast<std::size_t>(s.var)];
    const std::string& name = src_.vars[static_cast<std::size_t>(s.var)].name;
    if (!final_) {
      if (!st.ty) {
        st.ty = t;
        st.weak = w2;
        st.nonneg = st.nonneg && contribution.nonneg;
        changed_ = true;
      } else {
        bool weak3 = false;
        const type* j = join(st.ty, st.weak, t, w2, weak3);
        if (!j)
          fail(s.loc, "loop variable '" + name + "' is also assigned " + st.ty->str() + ", which has no common type with " +
                          t->str());
        bool nonneg = st.nonneg && contribution.nonneg;
        if (j != st.ty || weak3 != st.weak || nonneg != st.nonneg) changed_ = true;
        st.ty = j;
        st.weak = weak3;
        st.nonneg = nonneg;
      }
    }
    if (!st.ty->is_int())
      fail(s.loc, "loop variable '" + name + "' must be an integer, but it is also assigned " + st.ty->str());
    start = cast(start, st.ty, s.loc);
    stop = cast(stop, st.ty, s.loc);
    step = cast(step, st.ty, s.loc);
  });
  // A loop whose bounds are constants and which runs no iteration (a loop
  // over an empty tuple, `*args` called with none) is its `else` alone: its
  // body is never typed, since its element has no type to take.
  if (ok) {
    auto a = const_int(start), z = const_int(stop), d = const_int(step);
    if (a && z && d && *d != 0 && (*d > 0 ? *a >= *z : *a <= *z)) {
      block(s.orelse, out);
      return;
    }
  }
  ++loop_depth_;
  std::vector<stmt_id> body, orelse;
  block(s.body, body);
  --loop_depth_;
  block(s.orelse, orelse);
  if (!ok) return;
  stmt t;
  t.kind = stmt_kind::for_range;
  t.loc = s.loc;
  t.var = s.var;
  t.start = use(start.id);
  t.stop = use(stop.id);
  t.step = use(step.id);
  t.body = std::move(body);
  t.orelse = std::move(orelse);
  out.push_back(add_stmt(std::move(t)));
}

void function_typer::while_(const stmt& s, std::vector<stmt_id>& out) {
  value c;
  std::vector<stmt_id> cond_pre;
  auto* saved = prefix_;
  prefix_ = &cond_pre;  // evaluated before every test, so inside the loop
  bool ok = guarded([&] { c = truth(lower(s.value), sx(s.value, s.loc).loc); });
  prefix_ = saved;
  ++loop_depth_;
  std::vector<stmt_id> body, orelse;
  block(s.body, body);
  --loop_depth_;
  block(s.orelse, orelse);
  if (!ok) return;
  auto make = [&](stmt_kind k) {
    stmt t;
    t.kind = k;
    t.loc = s.loc;
    return t;
  };
  if (cond_pre.empty()) {
    stmt t = make(stmt_kind::while_);
    t.value = use(c.id);
    t.body = std::move(body);
    t.orelse = std::move(orelse);
    out.push_back(add_stmt(std::move(t)));
    return;
  }
  // The condition needs statements of its own (rare: a hoisted temporary):
  //   $done = False
  //   while True: <pre>; if not c: $done = True; break
  //               <body>
  //   if $done: <orelse>      (the else runs only when the test ends the loop)
  var_id done = new_temp(tc_.boolean());
  auto set_done = [&](bool b) {
    constant_value cv;
    cv.k = constant_value::kind::boolean;
    cv.b = b;
    expr target;
    target.kind = expr_kind::variable;
    target.loc = s.loc;
    target.var = done;
    target.ty = tc_.boolean();
    stmt a = make(stmt_kind::assign);
    a.target = add(std::move(target));
    a.value = use(constant(cv, tc_.boolean(), s.loc).id);
    return add_stmt(std::move(a));
  };
  out.push_back(set_done(false));
  stmt exit_if = make(stmt_kind::if_);
  exit_if.value = use(op(op_id::not_, tc_.boolean(), {c}, s.loc).id);
  exit_if.body = {set_done(true), add_stmt(make(stmt_kind::break_))};
  stmt loop = make(stmt_kind::while_);
  constant_value yes;
  yes.k = constant_value::kind::boolean;
  yes.b = true;
  loop.value = use(constant(yes, tc_.boolean(), s.loc).id);
  loop.body = cond_pre;
  loop.body.push_back(add_stmt(std::move(exit_if)));
  loop.body.insert(loop.body.end(), body.begin(), body.end());
  out.push_back(add_stmt(std::move(loop)));
  if (!orelse.empty()) {
    stmt after = make(stmt_kind::if_);
    expr de;
    de.kind = expr_kind::variable;
    de.loc = s.loc;
    de.var = done;
    de.ty = tc_.boolean();
    after.value = add(std::move(de));
    after.body = std::move(orelse);
    out.push_back(add_stmt(std::move(after)));
  }
}

void function_typer::return_(const stmt& s, std::vector<stmt_id>& out) {
  stmt t;
  t.kind = stmt_kind::return_;
  t.loc = s.loc;
  if (is_kernel_) {
    if (s.value != no_id) {
      value v = lower(s.value);
      if (v.ty->kind != type_kind::none) fail(s.loc, "kernels cannot return a value (this returns " + v.ty->str() + ")");
    }
    out.push_back(add_stmt(std::move(t)));
    return;
  }
  value v;
  if (s.value == no_id) {
    v = constant(constant_value{}, tc_.none(), s.loc, false);
  } else {
    v = lower(s.value);
  }
  if (!v.runtime()) fail(s.loc, "cannot return " + v.ty->str() + ": it is not a run-time value");
  if (v.ty->is_array() && v.ty->space == address_space::local)
    fail(s.loc, "cannot return a local array from a device function: its memory ends with the call");
  const std::string fname = src_.display_name();
  if (declared_return_) {
    v = convert(v, declared_return_, s.loc, "(the declared return type of " + fname + ")");
  } else if (!final_) {
    if (!ret_.ty) {
      ret_.ty = v.ty;
      ret_.weak = v.weak;
      ret_.roots = v.roots;
      ret_loc_ = s.loc;
      changed_ = true;
    } else {
      bool weak = false;
      // A function that returns a value on one path and None on another returns an optional.
      const type* j = join(ret_.ty, ret_.weak, v.ty, v.weak, weak);
      if (!j)
        fail(s.loc, fname + " returns " + v.ty->str() + " here and " + ret_.ty->str() + " at line " +
                        std::to_string(ret_loc_.line) + ", which have no common type");
      std::size_t roots = ret_.roots.size();
      add_roots(ret_.roots, v.roots);
      if (j != ret_.ty || weak != ret_.weak || roots != ret_.roots.size()) changed_ = true;
      ret_.ty = j;
      ret_.weak = weak;
    }
  } else {
    bool weak = false;
    if (ret_.ty && !join(ret_.ty, false, v.ty, false, weak))
      fail(s.loc, fname + " returns " + v.ty->str() + " here and " + ret_.ty->str() + " at line " +
                      std::to_string(ret_loc_.line) + ", which have no common type");
    v = convert(v, ret_.ty, s.loc, "(the return type of " + fname + ")");
  }
  if (v.ty->kind != type_kind::none) t.value = use(v.id);
  out.push_back(add_stmt(std::move(t)));
}

namespace {

bool breaks_out(const function& f, const std::vector<stmt_id>& block) {
  for (auto id : block) {
    const stmt& s = f.at_stmt(id);
    if (s.kind == stmt_kind::break_) return true;
    if (s.kind == stmt_kind::if_ && (breaks_out(f, s.body) || breaks_out(f, s.orelse))) return true;
    // A nested loop's breaks are its own; its else belongs to this level.
    if ((s.kind == stmt_kind::while_ || s.kind == stmt_kind::for_range) && breaks_out(f, s.orelse)) return true;
  }
  return false;
}

}  // namespace

bool function_typer::terminates(const std::vector<stmt_id>& typed_block) const {
  for (auto id : typed_block) {
    const stmt& s = out_->at_stmt(id);
    switch (s.kind) {
      case stmt_kind::return_:
      case stmt_kind::raise_: return true;
      case stmt_kind::if_:
        if (terminates(s.body) && terminates(s.orelse)) return true;
        break;
      case stmt_kind::while_: {
        const expr& c = out_->at(s.value);
        bool forever = c.kind == expr_kind::constant && c.value.k == constant_value::kind::boolean && c.value.b;
        if (forever && !breaks_out(*out_, s.body)) return true;
        break;
      }
      default: break;
    }
  }
  return false;
}

}  // namespace cuforge::frontend::detail

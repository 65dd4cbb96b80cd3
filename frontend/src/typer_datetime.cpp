// datetime64 and timedelta64 in kernels, typed and computed as Numba does (numba-cuda's
// typing/npdatetime.py and np/npdatetime.py give the rules; NumPy's semantics): values are int64
// counts of their unit, INT64_MIN is NaT. Every operation is written here with the IR's integer
// ops on those counts (the casts between a datetime type and int64 are the same bits in codegen),
// so codegen needs nothing of its own:
//   - timedelta +/- timedelta in the finer unit (the coarser must convert to it exactly: months and
//     years do not mix with days), NaT in, NaT out; unary +, -, abs;
//   - timedelta * or / a number (integers as int64, truncating; floats through float64, nan to NaT;
//     a zero or nan divisor gives NaT), timedelta / timedelta a float64 (NaT: nan), // an int64
//     (NaT or a zero divisor: 0), comparisons (NaT: only != is true);
//   - datetime +/- timedelta a datetime, datetime - datetime a timedelta, datetime comparisons in
//     the finer unit, years and months converted to days by the calendar (NumPy's algorithm).
#include "typer_impl.hpp"

#include <cuforge/runtime/scalar_types.hpp>

#include <climits>
#include <optional>

namespace cuforge::frontend::detail {

namespace {

constexpr int Y = 0, M = 1, W = 2, D = 4, GENERIC = generic_datetime_unit;

int unit_of(const type* t) { return datetime_unit_code(t->name); }

// The integer that converts a count of unit `big` into one of `small` (finer), or none (months and
// years against the others, or a coarser `small`). Numba's _get_conversion_multiplier.
std::optional<std::int64_t> factor(int big, int small) {
  if (big == GENERIC) return 1;
  static const std::pair<int, std::int64_t> next[] = {{M, 12}, {-1, 0}, {D, 7}, {-1, 0}, {5, 24}, {6, 60}, {7, 60},
                                                      {8, 1000}, {9, 1000}, {10, 1000}, {11, 1000}, {12, 1000},
                                                      {13, 1000}};
  std::int64_t f = 1;
  int c = big;
  while (c < small) {
    if (c >= 13 || next[c].first < 0) return std::nullopt;
    f *= next[c].second;
    c = next[c].first;
  }
  if (c != small) return std::nullopt;
  return f;
}

// Numba's can_cast_timedelta_units: src converts to dest exactly.
bool can_cast(int src, int dest) {
  if (src == dest || src == GENERIC) return true;
  if (src > dest || dest == GENERIC) return false;
  if (src <= M && dest > M) return false;
  return true;
}

}  // namespace

// The helpers below build IR on int64 counts; `nat` is INT64_MIN.
struct time_ops {
  function_typer& ft;
  location loc;

  const type* i64() { return ft.tc_.int64(); }
  value k(std::int64_t v) { return ft.int_constant(v, i64(), loc); }
  value nat() { return k(INT64_MIN); }
  value count(const value& v) { return ft.pure(ft.cast_node(v, i64(), loc), loc); }  // its int64 bits
  value as(const value& c, const type* t) { return ft.cast_node(c, t, loc); }
  value is_nat(const value& c) { return ft.op(op_id::eq, ft.tc_.boolean(), {c, nat()}, loc); }
  value either_nat(const value& a, const value& b) { return ft.op(op_id::bit_or, ft.tc_.boolean(), {is_nat(a), is_nat(b)}, loc); }
  value bin(op_id o, const value& a, const value& b) { return ft.op(o, i64(), {a, b}, loc); }
  value pick(const value& c, const value& a, const value& b, const type* t) { return ft.conditional(c, a, b, t, loc); }
  value scale(const value& c, std::int64_t f) { return f == 1 ? c : bin(op_id::mul, c, k(f)); }
  // Truncating division (LLVM's sdiv, which Numba's code uses) from the IR's floor division.
  value trunc_div(const value& a0, const value& b0) {
    value a = ft.pure(a0, loc), b = ft.pure(b0, loc);
    value q = ft.pure(bin(op_id::floordiv, a, b), loc);
    value r = bin(op_id::mod, a, b);
    value inexact = ft.op(op_id::ne, ft.tc_.boolean(), {r, k(0)}, loc);
    value signs_differ = ft.op(op_id::ne, ft.tc_.boolean(),
                               {ft.op(op_id::lt, ft.tc_.boolean(), {a, k(0)}, loc), ft.op(op_id::lt, ft.tc_.boolean(), {b, k(0)}, loc)},
                               loc);
    value up = ft.op(op_id::bit_and, ft.tc_.boolean(), {inexact, signs_differ}, loc);
    return pick(up, bin(op_id::add, q, k(1)), q, i64());
  }

  // Days since 1970 of the year `y` counted from 1970 (NumPy's get_datetimestruct_days).
  value year_to_days(const value& y0) {
    value y = ft.pure(y0, loc);
    value days = ft.pure(scale(y, 365), loc);
    value from_1968 = ft.pure(bin(op_id::add, y, k(1)), loc);
    value from_1900 = ft.pure(bin(op_id::add, from_1968, k(68)), loc);
    value from_1600 = bin(op_id::add, from_1900, k(300));
    value after = bin(op_id::add, bin(op_id::sub, bin(op_id::add, days, trunc_div(from_1968, k(4))),
                                      trunc_div(from_1900, k(100))),
                      trunc_div(from_1600, k(400)));
    value from_1972 = ft.pure(bin(op_id::add, y, k(-2)), loc);
    value from_2000 = ft.pure(bin(op_id::add, from_1972, k(-28)), loc);
    value before = bin(op_id::add, bin(op_id::sub, bin(op_id::add, days, trunc_div(from_1972, k(4))),
                                       trunc_div(from_2000, k(100))),
                       trunc_div(from_2000, k(400)));
    return pick(ft.op(op_id::lt, ft.tc_.boolean(), {y, k(0)}, loc), before, after, i64());
  }

  value is_leap(const value& y) {  // y counted from 1970
    value year = ft.pure(bin(op_id::add, y, k(1970)), loc);
    auto zero = [&](const value& v) { return ft.op(op_id::eq, ft.tc_.boolean(), {v, k(0)}, loc); };
    value by4 = zero(bin(op_id::bit_and, year, k(3)));
    value by100 = zero(bin(op_id::mod, year, k(100)));
    value by400 = zero(bin(op_id::mod, year, k(400)));
    value not100 = ft.op(op_id::not_, ft.tc_.boolean(), {by100}, loc);
    return ft.op(op_id::bit_and, ft.tc_.boolean(), {by4, ft.op(op_id::bit_or, ft.tc_.boolean(), {not100, by400}, loc)}, loc);
  }

  // The days before month m (0-11) of a (leap or not) year.
  value days_before_month(const value& m, const value& leap) {
    static const std::int64_t normal[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    value r = k(normal[11]);
    for (int i = 10; i >= 0; --i) r = pick(ft.op(op_id::eq, ft.tc_.boolean(), {m, k(i)}, loc), k(normal[i]), r, i64());
    // A leap year adds its 29 February from March on.
    value extra = ft.op(op_id::bit_and, ft.tc_.boolean(), {leap, ft.op(op_id::ge, ft.tc_.boolean(), {m, k(2)}, loc)}, loc);
    return bin(op_id::add, r, ft.cast(extra, i64(), loc));
  }

  // A datetime count of unit `src` in unit `dest` (finer or equal), as Numba's
  // convert_datetime_for_arith: years and months through the calendar's days (or weeks).
  value datetime_in(const value& c0, int src, int dest) {
    value c = ft.pure(c0, loc);
    if (dest >= W && src < W) {
      value days;
      if (src == Y) {
        days = year_to_days(c);
      } else {
        value year = ft.pure(bin(op_id::floordiv, c, k(12)), loc);
        value month = ft.pure(bin(op_id::mod, c, k(12)), loc);
        days = bin(op_id::add, year_to_days(year), days_before_month(month, is_leap(year)));
      }
      if (dest == W) {
        c = bin(op_id::floordiv, days, k(7));
        src = W;
      } else {
        c = days;
        src = D;
      }
    }
    auto f = factor(src, dest);
    if (!f) ft.fail(loc, "cannot convert datetime64[" + std::string(datetime_units[src]) + "] to unit '" +
                         std::string(datetime_units[dest]) + "'");
    return scale(c, *f);
  }
};

value function_typer::time_binary(binop o, const value& a0, const value& b0, location loc) {
  time_ops t{*this, loc};
  const value a = unwrap(a0, loc), b = unwrap(b0, loc);
  auto unsupported = [&]() -> value {
    fail(loc, std::string("unsupported operand types for ") + to_string(o) + ": " + a.ty->str() + " and " + b.ty->str());
  };
  const bool ta = a.ty->kind == type_kind::timedelta, tb = b.ty->kind == type_kind::timedelta;
  const bool da = a.ty->kind == type_kind::datetime, db = b.ty->kind == type_kind::datetime;
  auto number = [&](const value& v) { return v.runtime() && (v.ty->is_int() || v.ty->is_float()) && !v.ty->is_time(); };

  if (ta && tb) {
    const int ua = unit_of(a.ty), ub = unit_of(b.ty);
    if (!can_cast(ua, ub) && !can_cast(ub, ua))
      fail(loc, "cannot combine " + a.ty->str() + " and " + b.ty->str() + ": their units do not convert exactly");
    const int unit = can_cast(ua, ub) ? ub : ua;  // Numba: the right's unit when the left converts to it
    value x = t.count(a), y = t.count(b);
    value bad = t.either_nat(x, y);
    value xs = t.scale(x, *factor(ua, unit)), ys = t.scale(y, *factor(ub, unit));
    switch (o) {
      case binop::add:
      case binop::sub: {
        value r = t.bin(o == binop::add ? op_id::add : op_id::sub, xs, ys);
        return t.as(t.pick(bad, t.nat(), r, t.i64()), tc_.timedelta(unit));
      }
      case binop::truediv: {
        value q = op(op_id::div, tc_.float64(), {cast(xs, tc_.float64(), loc), cast(ys, tc_.float64(), loc)}, loc);
        constant_value nan;
        nan.k = constant_value::kind::floating;
        nan.f = std::numeric_limits<double>::quiet_NaN();
        return t.pick(bad, constant(nan, tc_.float64(), loc), q, tc_.float64());
      }
      case binop::floordiv: {
        // Numba's: 0 for NaT or a zero divisor; a negative operand rounds as its (a -/+ 1) / b.
        value xp = pure(xs, loc), yp = pure(ys, loc);
        value xneg = pure(op(op_id::lt, tc_.boolean(), {xp, t.k(0)}, loc), loc);
        value neg = op(op_id::bit_or, tc_.boolean(), {xneg, op(op_id::lt, tc_.boolean(), {yp, t.k(0)}, loc)}, loc);
        value zero_div = op(op_id::eq, tc_.boolean(), {yp, t.k(0)}, loc);
        value safe_y = t.pick(zero_div, t.k(1), yp, t.i64());
        value adjusted = t.pick(xneg, t.bin(op_id::sub, xp, t.k(1)), t.bin(op_id::add, xp, t.k(1)), t.i64());
        value q = t.pick(neg, t.trunc_div(adjusted, safe_y), t.trunc_div(xp, safe_y), t.i64());
        value out = op(op_id::bit_or, tc_.boolean(), {bad, zero_div}, loc);
        return t.pick(out, t.k(0), q, t.i64());
      }
      default: return unsupported();
    }
  }
  if ((ta && number(b)) || (tb && number(a) && o == binop::mul)) {
    const value& td = ta ? a : b;
    const value& n = ta ? b : a;
    const type* tdt = td.ty;
    value x = t.count(td);
    if (o != binop::mul && o != binop::truediv && o != binop::floordiv) return unsupported();
    if (n.ty->is_float()) {
      value nf = pure(cast(n, tc_.float64(), loc), loc);
      value xf = cast(x, tc_.float64(), loc);
      value r = pure(op(o == binop::mul ? op_id::mul : op_id::div, tc_.float64(), {xf, nf}, loc), loc);
      value r_nan = op(op_id::ne, tc_.boolean(), {r, r}, loc);
      value as_int = t.pick(r_nan, t.nat(), cast(r, t.i64(), loc), t.i64());
      value bad = t.is_nat(x);
      if (o != binop::mul) {  // a zero or nan divisor gives NaT
        value zero_or_nan = op(op_id::bit_or, tc_.boolean(),
                               {op(op_id::eq, tc_.boolean(), {nf, cast(t.k(0), tc_.float64(), loc)}, loc),
                                op(op_id::ne, tc_.boolean(), {nf, nf}, loc)},
                               loc);
        bad = op(op_id::bit_or, tc_.boolean(), {bad, zero_or_nan}, loc);
      }
      return t.as(t.pick(bad, t.nat(), as_int, t.i64()), tdt);
    }
    value ni = pure(cast(n, t.i64(), loc), loc);
    value bad = t.is_nat(x);
    value r;
    if (o == binop::mul) {
      r = t.bin(op_id::mul, x, ni);
    } else {
      value zero = op(op_id::eq, tc_.boolean(), {ni, t.k(0)}, loc);
      bad = op(op_id::bit_or, tc_.boolean(), {bad, zero}, loc);
      r = t.trunc_div(x, t.pick(zero, t.k(1), ni, t.i64()));
    }
    return t.as(t.pick(bad, t.nat(), r, t.i64()), tdt);
  }
  if ((da && tb && (o == binop::add || o == binop::sub)) || (ta && db && o == binop::add)) {
    const value& dt = da ? a : b;
    const value& td = da ? b : a;
    const int ud = unit_of(dt.ty), ut = unit_of(td.ty);
    // Numba's combine_datetime_timedelta_units.
    int unit;
    if (ud == GENERIC) {
      unit = ut;
    } else if (ut == GENERIC) {
      unit = ud;
    } else if (ut < W && ud >= W) {
      fail(loc, "cannot combine " + dt.ty->str() + " and " + td.ty->str() + ": months and years do not convert to days");
    } else {
      unit = ud > ut ? ud : ut;
    }
    auto tf = factor(ut, unit);
    if (!tf) fail(loc, "cannot combine " + dt.ty->str() + " and " + td.ty->str());
    value x = t.count(dt), y = t.count(td);
    value bad = t.either_nat(x, y);
    value r = t.bin(o == binop::add ? op_id::add : op_id::sub, t.datetime_in(x, ud, unit), t.scale(y, *tf));
    return t.as(t.pick(bad, t.nat(), r, t.i64()), tc_.datetime(unit));
  }
  if (da && db && o == binop::sub) {
    const int ua = unit_of(a.ty), ub = unit_of(b.ty);
    const int unit = ua == GENERIC ? ub : ub == GENERIC ? ua : (ua > ub ? ua : ub);  // the finer
    value x = t.count(a), y = t.count(b);
    value bad = t.either_nat(x, y);
    value r = t.bin(op_id::sub, t.datetime_in(x, ua, unit), t.datetime_in(y, ub, unit));
    return t.as(t.pick(bad, t.nat(), r, t.i64()), tc_.timedelta(unit));
  }
  return unsupported();
}

value function_typer::time_compare(cmpop o, const value& a0, const value& b0, location loc) {
  time_ops t{*this, loc};
  const value a = unwrap(a0, loc), b = unwrap(b0, loc);
  if (a.ty->kind != b.ty->kind || !a.ty->is_time())
    fail(loc, std::string("'") + to_string(o) + "' is not supported between " + a.ty->str() + " and " + b.ty->str());
  const int ua = unit_of(a.ty), ub = unit_of(b.ty);
  op_id id = op_id::eq;
  switch (o) {
    case cmpop::eq: id = op_id::eq; break;
    case cmpop::ne: id = op_id::ne; break;
    case cmpop::lt: id = op_id::lt; break;
    case cmpop::le: id = op_id::le; break;
    case cmpop::gt: id = op_id::gt; break;
    case cmpop::ge: id = op_id::ge; break;
    default: fail(loc, std::string("'") + to_string(o) + "' is not supported between " + a.ty->str() + " and " + b.ty->str());
  }
  value x = t.count(a), y = t.count(b);
  value bad = t.either_nat(x, y);
  value xs, ys;
  if (a.ty->kind == type_kind::datetime) {
    const int unit = ua == GENERIC ? ub : ub == GENERIC ? ua : (ua > ub ? ua : ub);
    xs = t.datetime_in(x, ua, unit);
    ys = t.datetime_in(y, ub, unit);
  } else {
    if (!can_cast(ua, ub) && !can_cast(ub, ua))
      fail(loc, "cannot compare " + a.ty->str() + " and " + b.ty->str() + ": their units do not convert exactly");
    const int unit = can_cast(ua, ub) ? ub : ua;
    xs = t.scale(x, *factor(ua, unit));
    ys = t.scale(y, *factor(ub, unit));
  }
  value r = op(id, tc_.boolean(), {xs, ys}, loc);
  constant_value nat_answer;  // NaT compares false, except !=
  nat_answer.k = constant_value::kind::boolean;
  nat_answer.b = o == cmpop::ne;
  return t.pick(bad, constant(nat_answer, tc_.boolean(), loc), r, tc_.boolean());
}

value function_typer::time_unary(unop o, const value& a, location loc) {
  time_ops t{*this, loc};
  if (a.ty->kind != type_kind::timedelta || (o != unop::neg && o != unop::pos))
    fail(loc, std::string("bad operand type for unary ") + to_string(o) + ": " + a.ty->str());
  if (o == unop::pos) return a;
  value x = t.count(a);
  // NaT negates to itself (INT64_MIN), as LLVM's neg (and Numba's) gives.
  return t.as(op(op_id::neg, t.i64(), {x}, loc), a.ty);
}

value function_typer::time_abs(const value& a, location loc) {
  time_ops t{*this, loc};
  value x = t.count(a);
  value neg = op(op_id::lt, tc_.boolean(), {x, t.k(0)}, loc);  // NaT is negative and stays NaT
  return t.as(t.pick(neg, op(op_id::neg, t.i64(), {x}, loc), x, t.i64()), a.ty);
}

value function_typer::time_isnat(const value& a, location loc) {
  time_ops t{*this, loc};
  return t.is_nat(t.count(a));
}

value function_typer::time_cast(const value& v, const type* to, location loc) {
  time_ops t{*this, loc};
  if ((to->is_int() && to->bits == 64) || (v.ty->is_int() && v.ty->bits == 64 && to->is_time()))
    return cast_node(v, to, loc);  // the count itself (Numba's cast to int64)
  if (!v.ty->is_time() || !to->is_time() || v.ty->kind != to->kind)
    fail(loc, "cannot convert " + v.ty->str() + " to " + to->str());
  const int from = unit_of(v.ty), dest = unit_of(to);
  value x = t.count(v);
  value r;
  if (v.ty->kind == type_kind::datetime) {
    if (dest < from && from != GENERIC) fail(loc, "cannot convert " + v.ty->str() + " to " + to->str() + " exactly");
    r = t.datetime_in(x, from, dest);
  } else {
    if (!can_cast(from, dest)) fail(loc, "cannot convert " + v.ty->str() + " to " + to->str() + " exactly");
    r = t.scale(x, *factor(from, dest));
  }
  return t.as(t.pick(t.is_nat(x), t.nat(), r, t.i64()), to);
}

}  // namespace cuforge::frontend::detail

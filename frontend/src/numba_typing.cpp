// Numba's typing of scalar operations (numba_typing.hpp): its casting rules,
// its overload resolution and the candidate signatures of its templates
// (numba-cuda's typing/builtins.py, cudamath.py and the fp16 operators),
// written down as data. tests/python/compiler/test_numba_typing.py checks
// every operator on every pair of scalar types against numba-cuda itself.
#include "numba_typing.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <map>
#include <string>
#include <tuple>

namespace cuforge::frontend::detail {

namespace {

// The scalar types in the scalar table's order (scalar_id).
enum nt : std::uint8_t { b, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16, n_types, none = 255 };

int index_of(const type* t) {
  const scalar_type_info* s = t ? t->scalar() : nullptr;
  return s ? static_cast<int>(s->id) : -1;
}

const type* type_of(type_context& tc, int i) { return tc.scalar(static_cast<scalar_id>(i)); }

// Numba's casting rules (typeconv/rules.py): each a conversion one way and,
// where given, the other way; everything else follows by composition (a
// path's kind is its loosest step; the strictest path counts).
struct cast_rule {
  nt from, to;
  conversion forward, backward;
};
constexpr conversion P = conversion::promote, S = conversion::safe, U = conversion::unsafe, N = conversion::none;
constexpr cast_rule cast_rules[] = {
    {b, i1, S, U},   {b, u1, S, U},   {i1, i2, P, U},  {u1, u2, P, U},  {i2, i4, P, U},  {u2, u4, P, U},
    {i4, i8, P, U},  {u4, u8, P, U},  {u1, i2, S, U},  {u2, i4, S, U},  {u4, i8, S, U},  {i1, f2, S, U},
    {i2, f4, S, U},  {i4, f8, S, U},  {i2, f2, U, U},  {i4, f4, U, U},  {i8, f8, S, U},  {u8, f8, S, U},
    {f2, f4, P, U},  {f4, f8, P, U},  {f4, c8, S, N},  {f8, c16, S, N}, {c8, c16, P, U},
};

using conversion_table = std::array<std::array<conversion, n_types>, n_types>;

conversion_table close_rules() {
  conversion_table t;
  for (auto& row : t) row.fill(N);
  for (int i = 0; i < n_types; ++i) t[i][i] = conversion::exact;
  for (const cast_rule& r : cast_rules) {
    t[r.from][r.to] = std::min(t[r.from][r.to], r.forward);
    if (r.backward != N) t[r.to][r.from] = std::min(t[r.to][r.from], r.backward);
  }
  for (int k = 0; k < n_types; ++k)
    for (int i = 0; i < n_types; ++i)
      for (int j = 0; j < n_types; ++j) t[i][j] = std::min(t[i][j], std::max(t[i][k], t[k][j]));
  return t;
}

const conversion_table& conversions() {
  static const conversion_table t = close_rules();
  return t;
}

// A candidate signature: result, then up to three parameters.
struct sig {
  nt result;
  std::array<nt, 3> params;
  int arity;
};
constexpr sig s1(nt r, nt a) { return {r, {a, none, none}, 1}; }
constexpr sig s2(nt r, nt a, nt c) { return {r, {a, c, none}, 2}; }
constexpr sig s3(nt r, nt a, nt c, nt d) { return {r, {a, c, d}, 3}; }

using cases = std::vector<sig>;

cases operator+(cases a, const cases& c) {
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

// Numba's machine-integer cases: int64 when either operand is signed.
const cases& integer_binop() {
  static const cases c = {s2(i8, i8, i8), s2(i8, i8, u8), s2(i8, u8, i8), s2(u8, u8, u8)};
  return c;
}
const cases& real_same() {
  static const cases c = {s2(f4, f4, f4), s2(f8, f8, f8)};
  return c;
}
const cases& complex_same() {
  static const cases c = {s2(c8, c8, c8), s2(c16, c16, c16)};
  return c;
}

struct rating {
  int unsafe = 0, safe = 0, promote = 0;
  bool operator<(const rating& o) const {
    return std::tie(unsafe, safe, promote) < std::tie(o.unsafe, o.safe, o.promote);
  }
};

// Numba's resolve_overload: the best-rated candidate, the first on a tie.
const sig* resolve(const cases& cs, const std::vector<int>& args, bool unsafe_casting = true) {
  const sig* best = nullptr;
  rating best_rating;
  for (const sig& s : cs) {
    if (s.arity != static_cast<int>(args.size())) continue;
    rating r;
    bool ok = true;
    for (int k = 0; k < s.arity && ok; ++k) {
      conversion c = conversions()[args[k]][s.params[k]];
      switch (c) {
        case conversion::exact: break;
        case conversion::promote: ++r.promote; break;
        case conversion::safe: ++r.safe; break;
        case conversion::unsafe:
          if (!unsafe_casting) ok = false;
          ++r.unsafe;
          break;
        case conversion::none: ok = false; break;
      }
    }
    if (ok && (!best || r < best_rating)) {
      best = &s;
      best_rating = r;
    }
  }
  return best;
}

resolved_op make(type_context& tc, const sig* s) {
  resolved_op r;
  if (!s) return r;
  r.result = type_of(tc, s->result);
  for (int k = 0; k < s->arity; ++k) r.params.push_back(type_of(tc, s->params[k]));
  return r;
}

std::vector<int> indices(std::initializer_list<const type*> ts) {
  std::vector<int> out;
  for (const type* t : ts) out.push_back(index_of(t));
  return out;
}

bool all_scalar(const std::vector<int>& ix) {
  return std::all_of(ix.begin(), ix.end(), [](int i) { return i >= 0; });
}

// numba-cuda's float16 operators (+ - * / and comparisons): float16 with
// float16, or with a type that converts to float16 at most safely (bool,
// int8), computes in float16. They are tried before the generic templates.
bool fp16_operator(const std::vector<int>& ix) {
  if (ix[0] != f2 && ix[1] != f2) return false;
  int other = ix[0] == f2 ? ix[1] : ix[0];
  return conversions()[other][f2] <= conversion::safe;
}

}  // namespace

conversion can_convert(const type* from, const type* to) {
  int a = index_of(from), c = index_of(to);
  if (a < 0 || c < 0) return conversion::none;
  return conversions()[a][c];
}

resolved_op numba_binary(type_context& tc, binop op, const type* a, const type* bt) {
  const std::vector<int> ix = indices({a, bt});
  if (!all_scalar(ix)) return {};
  if ((op == binop::add || op == binop::sub || op == binop::mul || op == binop::truediv) && fp16_operator(ix))
    return {tc.float16(), {tc.float16(), tc.float16()}};
  static const std::map<binop, cases> table = [] {
    std::map<binop, cases> m;
    const cases arith = integer_binop() + real_same() + complex_same();
    m[binop::add] = m[binop::sub] = m[binop::mul] = arith;
    m[binop::truediv] = cases{s2(f8, i8, i8), s2(f8, i8, u8), s2(f8, u8, i8), s2(f8, u8, u8)} + real_same() +
                        complex_same();
    m[binop::floordiv] = m[binop::mod] = integer_binop() + real_same();
    m[binop::pow] = integer_binop() +
                    cases{s2(f4, f4, i4), s2(f4, f4, i8), s2(f4, f4, u8), s2(f8, f8, i4), s2(f8, f8, i8),
                          s2(f8, f8, u8)} +
                    real_same() + complex_same();
    m[binop::bitand_] = m[binop::bitor_] = m[binop::bitxor] = cases{s2(b, b, b)} + integer_binop();
    return m;
  }();
  if (op == binop::lshift || op == binop::rshift) {
    // Only the left operand's signedness matters; the result is at least
    // 64 bits; no unsafe conversion.
    static const cases shifts = [] {
      cases c;
      for (nt t : {i1, i2, i4, i8})
        for (nt r : {u8, i8}) c.push_back(s2(i8, t, r));
      for (nt t : {u1, u2, u4, u8})
        for (nt r : {u8, i8}) c.push_back(s2(u8, t, r));
      return c;
    }();
    return make(tc, resolve(shifts, ix, false));
  }
  auto it = table.find(op);
  if (it == table.end()) return {};
  // & | ^ take no unsafe conversion (a float is refused, not truncated).
  const bool bitwise = op == binop::bitand_ || op == binop::bitor_ || op == binop::bitxor;
  return make(tc, resolve(it->second, ix, !bitwise));
}

resolved_op numba_compare(type_context& tc, cmpop op, const type* a, const type* bt) {
  const std::vector<int> ix = indices({a, bt});
  if (!all_scalar(ix)) return {};
  if (fp16_operator(ix)) return {tc.boolean(), {tc.float16(), tc.float16()}};
  static const cases ordered = [] {
    cases c = {s2(b, b, b)};
    for (nt t : {i1, i2, i4, i8, u1, u2, u4, u8, f4, f8}) c.push_back(s2(b, t, t));
    return c;
  }();
  static const cases unordered = ordered + cases{s2(b, c8, c8), s2(b, c16, c16)};
  const bool eq = op == cmpop::eq || op == cmpop::ne;
  return make(tc, resolve(eq ? unordered : ordered, ix));
}

resolved_op numba_unary(type_context& tc, unop op, const type* a) {
  const std::vector<int> ix = indices({a});
  if (!all_scalar(ix)) return {};
  if (op == unop::neg || op == unop::pos) {
    if (ix[0] == f2) return {tc.float16(), {tc.float16()}};
    static const cases c = {s1(i8, i1), s1(i8, i2), s1(i8, i4), s1(i8, i8), s1(u8, u1), s1(u8, u2),
                            s1(u8, u4), s1(u8, u8), s1(f4, f4), s1(f8, f8), s1(c8, c8),  s1(c16, c16),
                            s1(i8, b)};
    return make(tc, resolve(c, ix));
  }
  if (op == unop::invert) {
    static const cases c = {s1(b, b),  s1(i8, i1), s1(i8, i2), s1(i8, i4), s1(i8, i8),
                            s1(u8, u1), s1(u8, u2), s1(u8, u4), s1(u8, u8)};
    return make(tc, resolve(c, ix, false));  // no unsafe conversion: ~ of a float is refused
  }
  return {};
}

namespace {

const std::map<std::string, cases, std::less<>>& call_table() {
  static const std::map<std::string, cases, std::less<>> m = [] {
    std::map<std::string, cases, std::less<>> t;
    const cases unary = {s1(f8, i8), s1(f8, u8), s1(f4, f4), s1(f8, f8)};
    const cases unary_fp16 = unary + cases{s1(f2, f2)};
    for (const char* n : {"math.acos", "math.acosh", "math.asin", "math.asinh", "math.atan", "math.atanh",
                          "math.cosh", "math.degrees", "math.erf", "math.erfc", "math.expm1", "math.gamma",
                          "math.lgamma", "math.log1p", "math.radians", "math.sinh", "math.tanh", "math.tan"})
      t[n] = unary;
    for (const char* n : {"math.sin", "math.cos", "math.ceil", "math.floor", "math.sqrt", "math.log", "math.log2",
                          "math.log10", "math.exp", "math.fabs", "math.trunc", "math.exp2"})
      t[n] = unary_fp16;
    const cases two_mixed = {s2(f8, i8, i8), s2(f8, u8, u8), s2(f4, f4, f4), s2(f8, f8, f8)};
    t["math.atan2"] = t["math.hypot"] = two_mixed;
    t["math.copysign"] = t["math.fmod"] = t["math.nextafter"] = t["math.remainder"] = real_same();
    t["math.pow"] = real_same() + cases{s2(f4, f4, i4), s2(f8, f8, i4)};
    t["math.ldexp"] = cases{s2(f4, f4, i4), s2(f8, f8, i4)};
    // frexp and modf: the result is a tuple; `result` names its float.
    t["math.frexp"] = cases{s1(f4, f4), s1(f8, f8)};
    t["math.modf"] = cases{s1(f8, f8), s1(f4, f4)};
    t["math.isnan"] = t["math.isinf"] = t["math.isfinite"] = cases{s1(b, i8), s1(b, u8), s1(b, f4), s1(b, f8)};
    t["builtins.abs"] = cases{s1(i1, i1), s1(i2, i2), s1(i4, i4), s1(i8, i8), s1(u1, u1), s1(u2, u2), s1(u4, u4),
                     s1(u8, u8), s1(f4, f4),  s1(f8, f8), s1(f4, c8),  s1(f8, c16)};
    t["builtins.range"] = cases{s1(i4, i4), s2(i4, i4, i4), s3(i4, i4, i4, i4), s1(i8, i8), s2(i8, i8, i8),
                                s3(i8, i8, i8, i8), s1(u8, u8), s2(u8, u8, u8), s3(u8, u8, u8, u8)};
    t["builtins.round"] = cases{s1(i8, f4), s1(i8, f8), s2(f4, f4, i8), s2(f8, f8, i8)};
    // numba-cuda's cuda.* functions on floats.
    t["cuda.cbrt"] = cases{s1(f4, f4), s1(f8, f8)};
    for (nt i : {i1, i2, i4, i8, u1, u2, u4, u8}) {
      t["cuda.popc"].push_back(s1(i, i));
      t["cuda.clz"].push_back(s1(i, i));
      t["cuda.ffs"].push_back(s1(u4, i));
    }
    t["cuda.brev"] = cases{s1(u4, u4), s1(u8, u8)};
    t["cuda.fma"] = cases{s3(f4, f4, f4, f4), s3(f8, f8, f8, f8)};
    // cuda.fp16: cuda_fp16.h's functions on __half (float16); anything that
    // converts to float16, unsafely too, is taken. The __-prefixed names
    // are the same functions.
    for (const char* n : {"hadd", "hsub", "hmul", "hdiv", "hmax", "hmin"})
      t[std::string("cuda.fp16.") + n] = t[std::string("cuda.fp16.__") + n] = cases{s2(f2, f2, f2)};
    for (const char* n : {"heq", "hne", "hgt", "hge", "hlt", "hle"})
      t[std::string("cuda.fp16.") + n] = t[std::string("cuda.fp16.__") + n] = cases{s2(b, f2, f2)};
    t["cuda.fp16.hfma"] = t["cuda.fp16.__hfma"] = cases{s3(f2, f2, f2, f2)};
    for (const char* n : {"habs", "hneg"}) t[std::string("cuda.fp16.") + n] = t[std::string("cuda.fp16.__") + n] = cases{s1(f2, f2)};
    for (const char* n : {"hsin", "hcos", "hexp", "hexp2", "hexp10", "hlog", "hlog2", "hlog10", "hsqrt", "hrsqrt",
                          "hrcp", "hceil", "hfloor", "htrunc", "hrint"})
      t[std::string("cuda.fp16.") + n] = cases{s1(f2, f2)};
    return t;
  }();
  return m;
}

}  // namespace

bool numba_call_known(std::string_view name) { return call_table().count(name) != 0; }

resolved_op numba_call(type_context& tc, std::string_view name, const std::vector<const type*>& args) {
  auto it = call_table().find(name);
  if (it == call_table().end()) return {};
  std::vector<int> ix;
  for (const type* t : args) ix.push_back(index_of(t));
  if (!all_scalar(ix)) return {};
  if (name == "builtins.abs" && ix.size() == 1 && ix[0] == f2) return {tc.float16(), {tc.float16()}};
  return make(tc, resolve(it->second, ix));
}

}  // namespace cuforge::frontend::detail

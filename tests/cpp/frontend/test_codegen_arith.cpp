// Code generation of arithmetic with Python's and NumPy's semantics: floor
// division and modulo (integers and floats, zero divisors, the most negative
// integer), powers, comparisons, bit operations, complex numbers and math
// functions. Each kernel is elementwise over columns, assembled by ptxas and
// run on the active backend against results computed here.
#include "test_codegen_support.hpp"

#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

using namespace cuforge::testing::cg;

namespace {

template <class T>
bool same_float(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

template <class T>
bool close(T got, T want, double rel) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(static_cast<double>(got) - static_cast<double>(want)) <= rel * std::max(1.0, std::abs(static_cast<double>(want)));
}

template <class T>
T py_floordiv(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return static_cast<T>(std::uint64_t{0} - static_cast<std::uint64_t>(a));
    T q = static_cast<T>(a / b);
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}

template <class T>
T py_mod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}

// NumPy's npy_divmod (CPython's float floor division, x // 0.0 = x / 0.0).
template <class F>
std::pair<F, F> py_divmod(F a, F b) {
  F mod = std::fmod(a, b);
  if (b == 0) return {a / b, mod};
  F div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1;
    }
  } else {
    mod = std::copysign(F(0), b);
  }
  F floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > F(0.5)) floordiv += 1;
  } else {
    floordiv = std::copysign(F(0), a / b);
  }
  return {floordiv, mod};
}

template <class T>
T py_ipow(T base, T e) {
  if constexpr (std::is_signed_v<T>) {
    if (e < 0) return base == 1 ? T(1) : base == -1 ? ((e & 1) ? T(-1) : T(1)) : T(0);
  }
  std::uint64_t r = 1, b = static_cast<std::uint64_t>(base), m = static_cast<std::uint64_t>(e);
  if constexpr (sizeof(T) < 8) m &= (std::uint64_t{1} << (8 * sizeof(T))) - 1;
  while (m != 0) {
    if (m & 1) r *= b;
    b *= b;
    m >>= 1;
  }
  return static_cast<T>(r);
}

template <class F>
F powi_ref(F a, std::int64_t n) {
  bool recip = n < 0;
  std::uint64_t m = recip ? std::uint64_t{0} - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  F r = 1;
  while (m != 0) {
    if (m & 1) r *= a;
    a *= a;
    m >>= 1;
  }
  return recip ? F(1) / r : r;
}

// All pairs of `values` as two columns.
template <class T>
std::pair<std::vector<T>, std::vector<T>> pairs(const std::vector<T>& values) {
  std::vector<T> a, b;
  for (T x : values)
    for (T y : values) {
      a.push_back(x);
      b.push_back(y);
    }
  return {a, b};
}

template <class T>
void int_divmod_case(type_context& tc, const type* t, const std::vector<T>& values) {
  SCOPED_TRACE(t->str());
  typed_module m = elementwise(tc, "idivmod_" + t->str(), {t, t}, {t, t, t}, [](typed_builder& k, std::vector<expr_id> in) {
    return std::vector<expr_id>{k.bin(op_id::floordiv, in[0], in[1]), k.bin(op_id::mod, in[0], in[1]),
                                k.bin(op_id::pow, in[0], in[1])};
  });
  expect_compiles(m);
  auto [a, b] = pairs(values);
  std::vector<column> cols{column::of(t, a), column::of(t, b), column::zeros<T>(t, a.size()), column::zeros<T>(t, a.size()),
                           column::zeros<T>(t, a.size())};
  run_columns(m, cols, a.size());
  auto q = cols[2].as<T>(), r = cols[3].as<T>(), p = cols[4].as<T>();
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(q[i], py_floordiv(a[i], b[i])) << +a[i] << " // " << +b[i];
    EXPECT_EQ(r[i], py_mod(a[i], b[i])) << +a[i] << " % " << +b[i];
    EXPECT_EQ(p[i], py_ipow(a[i], b[i])) << +a[i] << " ** " << +b[i];
  }
}

}  // namespace

TEST(CodegenArith, IntegerFloorDivModAndPowerAsPython) {
  type_context tc;
  const std::int64_t mn = std::numeric_limits<std::int64_t>::min(), mx = std::numeric_limits<std::int64_t>::max();
  int_divmod_case<std::int64_t>(tc, tc.int64(), {-7, -3, -2, -1, 0, 1, 2, 3, 7, 10, 63, mn, mx});
  int_divmod_case<std::int32_t>(tc, tc.int32(), {-7, -3, -1, 0, 1, 2, 3, 31, std::numeric_limits<std::int32_t>::min()});
  int_divmod_case<std::int8_t>(tc, tc.int8(), {-128, -7, -1, 0, 1, 3, 7, 127});
  int_divmod_case<std::uint32_t>(tc, tc.uint32(), {0, 1, 2, 3, 7, 31, 4000000000u});
  int_divmod_case<std::uint64_t>(tc, tc.uint64(), {0, 1, 3, 7, 64, 18446744073709551615ull});
}

TEST(CodegenArith, FloatFloorDivAndModAsPython) {
  type_context tc;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto run_case = [&](auto zero, const type* t, std::vector<decltype(zero)> values) {
    using F = decltype(zero);
    SCOPED_TRACE(t->str());
    typed_module m = elementwise(tc, "fdivmod_" + t->str(), {t, t}, {t, t}, [](typed_builder& k, std::vector<expr_id> in) {
      return std::vector<expr_id>{k.bin(op_id::floordiv, in[0], in[1]), k.bin(op_id::mod, in[0], in[1])};
    });
    expect_compiles(m);
    auto [a, b] = pairs(values);
    std::vector<column> cols{column::of(t, a), column::of(t, b), column::zeros<F>(t, a.size()), column::zeros<F>(t, a.size())};
    run_columns(m, cols, a.size());
    auto q = cols[2].as<F>(), r = cols[3].as<F>();
    for (std::size_t i = 0; i < a.size(); ++i) {
      auto [wq, wr] = py_divmod(a[i], b[i]);
      EXPECT_TRUE(same_float(q[i], wq)) << a[i] << " // " << b[i] << " = " << q[i] << ", want " << wq;
      EXPECT_TRUE(same_float(r[i], wr)) << a[i] << " % " << b[i] << " = " << r[i] << ", want " << wr;
    }
    // Python's answers, independently of the reference above.
    auto at = [&](F x, F y) {
      for (std::size_t i = 0; i < a.size(); ++i)
        if (same_float(a[i], x) && same_float(b[i], y)) return std::pair<F, F>{q[i], r[i]};
      ADD_FAILURE() << "no pair " << x << ", " << y;
      return std::pair<F, F>{};
    };
    EXPECT_EQ(at(F(-7.5), F(2)), (std::pair<F, F>{F(-4), F(0.5)}));
    EXPECT_EQ(at(F(7.5), F(-2)), (std::pair<F, F>{F(-4), F(-0.5)}));
    EXPECT_EQ(at(F(-7.5), F(-2)), (std::pair<F, F>{F(3), F(-1.5)}));
    EXPECT_EQ(at(F(2), F(inf)), (std::pair<F, F>{F(0), F(2)}));
    EXPECT_EQ(at(F(-2), F(inf)), (std::pair<F, F>{F(-1), F(inf)}));
    EXPECT_EQ(at(F(3), F(0)).first, F(inf));
    EXPECT_EQ(at(F(-2), F(0)).first, F(-inf));
    EXPECT_TRUE(std::isnan(at(F(0), F(0)).first));
    EXPECT_TRUE(std::isnan(at(F(3), F(0)).second));
    EXPECT_TRUE(std::isnan(at(F(inf), F(2)).first));
    EXPECT_TRUE(std::signbit(at(F(0), F(-2)).first));   // 0.0 // -2 == -0.0
    EXPECT_TRUE(std::signbit(at(F(2), F(-2)).second));  // 2.0 % -2 == -0.0
  };
  run_case(0.0, tc.float64(), {-7.5, 7.5, 2.0, -2.0, 0.0, -0.0, 3.0, 0.1, -0.3, 1e300, 1e-300, inf, -inf, nan});
  run_case(0.0f, tc.float32(), {-7.5f, 7.5f, 2.0f, -2.0f, 0.0f, -0.0f, 3.0f, 0.1f, -0.3f, 1e30f, 1e-30f,
                                static_cast<float>(inf), static_cast<float>(-inf), static_cast<float>(nan)});
}

TEST(CodegenArith, FloatToIntegerPowerByPowi) {
  type_context tc;
  auto run_case = [&](auto zero, const type* t) {
    using F = decltype(zero);
    SCOPED_TRACE(t->str());
    typed_module m = elementwise(tc, "powi_" + t->str(), {t, tc.int64()}, {t}, [&](typed_builder& k, std::vector<expr_id> in) {
      return std::vector<expr_id>{k.op(op_id::powi, t, {in[0], in[1]})};
    });
    expect_compiles(m);
    std::vector<F> a{2, 2, -3, 1.5, 0, 0, -1, 1.0001F, 10, 2};
    std::vector<std::int64_t> n{10, -2, 3, 0, -1, 0, std::numeric_limits<std::int64_t>::min(), 1000, -3, 62};
    std::vector<column> cols{column::of(t, a), column::of(tc.int64(), n), column::zeros<F>(t, a.size())};
    run_columns(m, cols, a.size());
    auto r = cols[2].as<F>();
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(same_float(r[i], powi_ref(a[i], n[i]))) << a[i] << " ** " << n[i] << " = " << r[i];
    EXPECT_EQ(r[0], F(1024));
    EXPECT_EQ(r[1], F(0.25));
    EXPECT_EQ(r[2], F(-27));
    EXPECT_EQ(r[4], std::numeric_limits<F>::infinity());
    EXPECT_EQ(r[5], F(1));  // 0 ** 0
  };
  run_case(0.0, tc.float64());
  run_case(0.0f, tc.float32());
}

TEST(CodegenArith, ComparisonsSignedUnsignedAndNan) {
  type_context tc;
  auto cmp6 = [](typed_builder& k, std::vector<expr_id> in) {
    return std::vector<expr_id>{k.cmp(op_id::eq, in[0], in[1]), k.cmp(op_id::ne, in[0], in[1]), k.cmp(op_id::lt, in[0], in[1]),
                                k.cmp(op_id::le, in[0], in[1]), k.cmp(op_id::gt, in[0], in[1]), k.cmp(op_id::ge, in[0], in[1])};
  };
  auto check = [&](auto zero, const type* t, std::vector<decltype(zero)> values) {
    SCOPED_TRACE(t->str());
    const type* b = tc.boolean();
    typed_module m = elementwise(tc, "cmp_" + t->str(), {t, t}, {b, b, b, b, b, b}, cmp6);
    expect_compiles(m);
    auto [x, y] = pairs(values);
    std::vector<column> cols{column::of(t, x), column::of(t, y)};
    for (int j = 0; j < 6; ++j) cols.push_back(column::zeros<std::uint8_t>(b, x.size()));
    run_columns(m, cols, x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      bool want[6] = {x[i] == y[i], x[i] != y[i], x[i] < y[i], x[i] <= y[i], x[i] > y[i], x[i] >= y[i]};
      for (int j = 0; j < 6; ++j) EXPECT_EQ(cols[2 + j].as<std::uint8_t>()[i], want[j] ? 1 : 0) << +x[i] << " op" << j << " " << +y[i];
    }
  };
  check(std::int64_t{}, tc.int64(), {-5, -1, 0, 3, std::numeric_limits<std::int64_t>::min()});
  check(std::uint64_t{}, tc.uint64(), {0, 1, 18446744073709551615ull, 9223372036854775808ull});
  check(std::int8_t{}, tc.int8(), {-128, -1, 0, 127});
  check(0.0, tc.float64(), {-1.0, 0.0, -0.0, 2.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()});
}

TEST(CodegenArith, BitOperationsShiftsMinMaxAbs) {
  type_context tc;
  const type* u32 = tc.uint32();
  const type* i64 = tc.int64();
  const type* i32 = tc.int32();
  // uint32: popc, brev, clz, ffs, ~a, a & b, a | b, a ^ b, a << b, a >> b, min, max
  typed_module mu = elementwise(tc, "bits_u32", {u32, u32}, {i32, u32, i32, i32, u32, u32, u32, u32, u32, u32, u32, u32},
                                [&](typed_builder& k, std::vector<expr_id> in) {
                                  return std::vector<expr_id>{
                                      k.intrinsic("cuda.popc", i32, {in[0]}), k.intrinsic("cuda.brev", u32, {in[0]}),
                                      k.intrinsic("cuda.clz", i32, {in[0]}),  k.intrinsic("cuda.ffs", i32, {in[0]}),
                                      k.un(op_id::invert, in[0]),      k.bin(op_id::bit_and, in[0], in[1]),
                                      k.bin(op_id::bit_or, in[0], in[1]), k.bin(op_id::bit_xor, in[0], in[1]),
                                      k.bin(op_id::shl, in[0], in[1]), k.bin(op_id::shr, in[0], in[1]),
                                      k.bin(op_id::min, in[0], in[1]), k.bin(op_id::max, in[0], in[1])};
                                });
  expect_compiles(mu);
  std::vector<std::uint32_t> a{0, 1, 0x80000000u, 0xF0F0u, 0xFFFFFFFFu, 12345678u};
  std::vector<std::uint32_t> b{3, 31, 32, 4, 40, 0};
  std::vector<column> cols{column::of(u32, a), column::of(u32, b)};
  for (const type* t : {i32, u32, i32, i32}) cols.push_back(column::zeros<std::uint32_t>(t, a.size()));
  for (int j = 0; j < 8; ++j) cols.push_back(column::zeros<std::uint32_t>(u32, a.size()));
  run_columns(mu, cols, a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::uint32_t x = a[i], y = b[i];
    std::uint32_t rev = 0;
    for (int bit = 0; bit < 32; ++bit)
      if (x & (1u << bit)) rev |= 1u << (31 - bit);
    EXPECT_EQ(cols[2].as<std::int32_t>()[i], std::popcount(x)) << x;
    EXPECT_EQ(cols[3].as<std::uint32_t>()[i], rev) << x;
    EXPECT_EQ(cols[4].as<std::int32_t>()[i], std::countl_zero(x)) << x;
    EXPECT_EQ(cols[5].as<std::int32_t>()[i], x == 0 ? 0 : std::countr_zero(x) + 1) << x;
    EXPECT_EQ(cols[6].as<std::uint32_t>()[i], ~x);
    EXPECT_EQ(cols[7].as<std::uint32_t>()[i], x & y);
    EXPECT_EQ(cols[8].as<std::uint32_t>()[i], x | y);
    EXPECT_EQ(cols[9].as<std::uint32_t>()[i], x ^ y);
    EXPECT_EQ(cols[10].as<std::uint32_t>()[i], y < 32 ? x << y : 0u) << x << " << " << y;
    EXPECT_EQ(cols[11].as<std::uint32_t>()[i], y < 32 ? x >> y : 0u) << x << " >> " << y;
    EXPECT_EQ(cols[12].as<std::uint32_t>()[i], std::min(x, y));
    EXPECT_EQ(cols[13].as<std::uint32_t>()[i], std::max(x, y));
  }

  // int64: arithmetic right shift (negative and too-large counts), abs, neg, min/max.
  typed_module ms = elementwise(tc, "bits_i64", {i64, i64}, {i64, i64, i64, i64, i64, i64, i32, i64},
                                [&](typed_builder& k, std::vector<expr_id> in) {
                                  return std::vector<expr_id>{k.bin(op_id::shr, in[0], in[1]), k.bin(op_id::shl, in[0], in[1]),
                                                              k.op(op_id::abs, i64, {in[0]}), k.un(op_id::neg, in[0]),
                                                              k.bin(op_id::min, in[0], in[1]), k.bin(op_id::max, in[0], in[1]),
                                                              k.intrinsic("cuda.clz", i32, {in[0]}), k.intrinsic("cuda.brev", i64, {in[0]})};
                                });
  expect_compiles(ms);
  const std::int64_t mn = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> x{-16, -16, 16, 5, mn, -1};
  std::vector<std::int64_t> y{2, 64, 70, -1, 63, 1};
  std::vector<column> c2{column::of(i64, x), column::of(i64, y)};
  for (const type* t : {i64, i64, i64, i64, i64, i64, i32, i64}) c2.push_back(column::zeros<std::int64_t>(t, x.size()));
  run_columns(ms, c2, x.size());
  auto shr = c2[2].as<std::int64_t>(), shl = c2[3].as<std::int64_t>(), ab = c2[4].as<std::int64_t>();
  EXPECT_EQ(shr, (std::vector<std::int64_t>{-4, -1, 0, 0, -1, -1}));
  EXPECT_EQ(shl, (std::vector<std::int64_t>{-64, 0, 0, 0, 0, -2}));
  EXPECT_EQ(ab, (std::vector<std::int64_t>{16, 16, 16, 5, mn, 1}));
  EXPECT_EQ(c2[5].as<std::int64_t>(), (std::vector<std::int64_t>{16, 16, -16, -5, mn, 1}));
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(c2[6].as<std::int64_t>()[i], std::min(x[i], y[i]));
    EXPECT_EQ(c2[7].as<std::int64_t>()[i], std::max(x[i], y[i]));
    EXPECT_EQ(c2[8].as<std::int32_t>()[i], std::countl_zero(static_cast<std::uint64_t>(x[i])));
  }
  EXPECT_EQ(c2[9].as<std::int64_t>()[4], 1);  // brev(MIN) == 1

  // Python's min/max on floats (b if b < a else a: a nan first operand stays), abs.
  const type* f64 = tc.float64();
  typed_module mf = elementwise(tc, "minmax_f64", {f64, f64}, {f64, f64, f64}, [&](typed_builder& k, std::vector<expr_id> in) {
    return std::vector<expr_id>{k.bin(op_id::min, in[0], in[1]), k.bin(op_id::max, in[0], in[1]), k.op(op_id::abs, f64, {in[0]})};
  });
  expect_compiles(mf);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> fa{1.0, nan, 2.0, -0.0, -3.5};
  std::vector<double> fb{nan, 1.0, -2.0, 0.0, 7.0};
  std::vector<column> c3{column::of(f64, fa), column::of(f64, fb), column::zeros<double>(f64, 5), column::zeros<double>(f64, 5),
                         column::zeros<double>(f64, 5)};
  run_columns(mf, c3, 5);
  auto mnv = c3[2].as<double>(), mxv = c3[3].as<double>(), av = c3[4].as<double>();
  for (std::size_t i = 0; i < fa.size(); ++i) {
    EXPECT_TRUE(same_float(mnv[i], fb[i] < fa[i] ? fb[i] : fa[i])) << i;
    EXPECT_TRUE(same_float(mxv[i], fb[i] > fa[i] ? fb[i] : fa[i])) << i;
    EXPECT_TRUE(same_float(av[i], std::fabs(fa[i]))) << i;
  }
}

TEST(CodegenArith, ComplexArithmeticAndFunctions) {
  type_context tc;
  auto run_case = [&](auto zero, const type* ct, double tol) {
    using F = decltype(zero);
    using C = std::complex<F>;
    SCOPED_TRACE(ct->str());
    const type* ft = tc.floating(ct->bits / 2);
    const type* b = tc.boolean();
    std::vector<const type*> outs{ct, ct, ct, ct, ct, b, b, ft, ct, ct, ct, ct, ct, ct, ct, ct, ct, ct, ft, ft, ft, ct, b};
    typed_module m = elementwise(tc, "complex_" + ct->str(), {ct, ct}, outs, [&](typed_builder& k, std::vector<expr_id> in) {
      expr_id a = in[0], z = in[1];
      return std::vector<expr_id>{
          k.bin(op_id::add, a, z), k.bin(op_id::sub, a, z), k.bin(op_id::mul, a, z), k.bin(op_id::div, a, z),
          k.bin(op_id::pow, a, z), k.cmp(op_id::eq, a, z), k.cmp(op_id::ne, a, z), k.op(op_id::abs, ft, {a}),
          k.un(op_id::conj, a), k.un(op_id::cexp, a), k.un(op_id::clog, a), k.un(op_id::csqrt, a),
          k.un(op_id::csin, a), k.un(op_id::ccos, a), k.un(op_id::ctan, a), k.un(op_id::csinh, a),
          k.un(op_id::ccosh, a), k.un(op_id::ctanh, a), k.op(op_id::phase, ft, {a}), k.op(op_id::real, ft, {a}),
          k.op(op_id::imag, ft, {a}), k.op(op_id::complex_make, ct, {k.op(op_id::imag, ft, {a}), k.op(op_id::real, ft, {z})}),
          k.cmp(op_id::eq, a, a)};
    });
    expect_compiles(m);
    std::vector<C> a{{1, 2}, {-3, 0.5}, {0.25, -4}, {2, 0}, {1.5, 1.5}, {-0.5, -0.75}, {3, -1}, {0.1F, 0.2F}};
    std::vector<C> z{{0.5, -1}, {2, 0}, {-1, 3}, {3, 0}, {1.5, 1.5}, {0, 2}, {-2, 0}, {0.3F, 0}};
    std::vector<column> cols{column::of(ct, a), column::of(ct, z)};
    for (auto* t : outs) cols.push_back(column::zeros<unsigned char>(t, a.size() * static_cast<std::size_t>(t->itemsize())));
    run_columns(m, cols, a.size());
    auto cc = [&](int j) { return cols[static_cast<std::size_t>(2 + j)].as<C>(); };
    auto fc = [&](int j) { return cols[static_cast<std::size_t>(2 + j)].as<F>(); };
    auto bc = [&](int j) { return cols[static_cast<std::size_t>(2 + j)].as<std::uint8_t>(); };
    auto near = [&](C got, C want) { return close(got.real(), want.real(), tol) && close(got.imag(), want.imag(), tol); };
    for (std::size_t i = 0; i < a.size(); ++i) {
      C x = a[i], y = z[i];
      EXPECT_EQ(cc(0)[i], x + y);
      EXPECT_EQ(cc(1)[i], x - y);
      EXPECT_TRUE(near(cc(2)[i], x * y)) << x << " * " << y << " = " << cc(2)[i];
      EXPECT_TRUE(near(cc(3)[i], x / y)) << x << " / " << y << " = " << cc(3)[i];
      EXPECT_TRUE(near(cc(4)[i], std::pow(x, y))) << x << " ** " << y << " = " << cc(4)[i];
      EXPECT_EQ(bc(5)[i], x == y ? 1 : 0);
      EXPECT_EQ(bc(6)[i], x != y ? 1 : 0);
      EXPECT_TRUE(close(fc(7)[i], std::abs(x), tol));
      EXPECT_EQ(cc(8)[i], std::conj(x));
      EXPECT_TRUE(near(cc(9)[i], std::exp(x))) << "exp " << x << " = " << cc(9)[i];
      EXPECT_TRUE(near(cc(10)[i], std::log(x))) << "log " << x << " = " << cc(10)[i];
      EXPECT_TRUE(near(cc(11)[i], std::sqrt(x))) << "sqrt " << x << " = " << cc(11)[i];
      EXPECT_TRUE(near(cc(12)[i], std::sin(x))) << "sin " << x << " = " << cc(12)[i];
      EXPECT_TRUE(near(cc(13)[i], std::cos(x))) << "cos " << x << " = " << cc(13)[i];
      EXPECT_TRUE(near(cc(14)[i], std::tan(x))) << "tan " << x << " = " << cc(14)[i];
      EXPECT_TRUE(near(cc(15)[i], std::sinh(x))) << "sinh " << x << " = " << cc(15)[i];
      EXPECT_TRUE(near(cc(16)[i], std::cosh(x))) << "cosh " << x << " = " << cc(16)[i];
      EXPECT_TRUE(near(cc(17)[i], std::tanh(x))) << "tanh " << x << " = " << cc(17)[i];
      EXPECT_TRUE(close(fc(18)[i], std::arg(x), tol));
      EXPECT_EQ(fc(19)[i], x.real());
      EXPECT_EQ(fc(20)[i], x.imag());
      EXPECT_EQ(cc(21)[i], C(x.imag(), y.real()));
      EXPECT_EQ(bc(22)[i], 1);
    }
    // Small integer powers multiply exactly, as NumPy's do.
    EXPECT_EQ(cc(4)[1], C(F(8.75), F(-3)));
    EXPECT_EQ(cc(4)[3], C(F(8), F(0)));
    EXPECT_TRUE(near(cc(4)[6], C(F(0.08), F(0.06))));
  };
  run_case(0.0, tc.complex128(), 1e-13);
  run_case(0.0f, tc.complex64(), 2e-5);
}

TEST(CodegenArith, MathFunctions) {
  type_context tc;
  auto run_case = [&](auto zero, const type* t, double tol, compile_config opts) {
    using F = decltype(zero);
    SCOPED_TRACE(t->str() + (opts.fastmath ? " fastmath" : ""));
    const F inf = std::numeric_limits<F>::infinity(), nan = std::numeric_limits<F>::quiet_NaN();
    struct unary {
      op_id op;
      F (*ref)(F);
    };
    const std::vector<unary> ones = {
        {op_id::sqrt, [](F x) { return std::sqrt(x); }},   {op_id::cbrt, [](F x) { return std::cbrt(x); }},
        {op_id::exp, [](F x) { return std::exp(x); }},     {op_id::exp2, [](F x) { return std::exp2(x); }},
        {op_id::expm1, [](F x) { return std::expm1(x); }}, {op_id::log, [](F x) { return std::log(x); }},
        {op_id::log2, [](F x) { return std::log2(x); }},   {op_id::log10, [](F x) { return std::log10(x); }},
        {op_id::log1p, [](F x) { return std::log1p(x); }}, {op_id::sin, [](F x) { return std::sin(x); }},
        {op_id::cos, [](F x) { return std::cos(x); }},     {op_id::tan, [](F x) { return std::tan(x); }},
        {op_id::asin, [](F x) { return std::asin(x); }},   {op_id::acos, [](F x) { return std::acos(x); }},
        {op_id::atan, [](F x) { return std::atan(x); }},   {op_id::sinh, [](F x) { return std::sinh(x); }},
        {op_id::cosh, [](F x) { return std::cosh(x); }},   {op_id::tanh, [](F x) { return std::tanh(x); }},
        {op_id::asinh, [](F x) { return std::asinh(x); }}, {op_id::acosh, [](F x) { return std::acosh(x); }},
        {op_id::atanh, [](F x) { return std::atanh(x); }}, {op_id::erf, [](F x) { return std::erf(x); }},
        {op_id::erfc, [](F x) { return std::erfc(x); }},   {op_id::lgamma, [](F x) { return std::lgamma(x); }},
        {op_id::tgamma, [](F x) { return std::tgamma(x); }}, {op_id::floor, [](F x) { return std::floor(x); }},
        {op_id::ceil, [](F x) { return std::ceil(x); }},   {op_id::trunc, [](F x) { return std::trunc(x); }},
        {op_id::rint, [](F x) { return std::rint(x); }},   {op_id::fabs, [](F x) { return std::fabs(x); }}};
    std::vector<F> x{F(0.3), F(0.7), F(1.5), F(2.5), F(-0.4), F(10), F(-3.7), F(0), -inf, nan, F(0.5), F(-2.5)};
    {
      std::vector<const type*> outs(ones.size(), t);
      typed_module m = elementwise(tc, "math1_" + t->str(), {t}, outs, [&](typed_builder& k, std::vector<expr_id> in) {
        std::vector<expr_id> r;
        for (const auto& u : ones) r.push_back(k.un(u.op, in[0]));
        return r;
      });
      expect_compiles(m, opts);
      std::vector<column> cols{column::of(t, x)};
      for (std::size_t j = 0; j < ones.size(); ++j) cols.push_back(column::zeros<F>(t, x.size()));
      run_columns(m, cols, x.size(), opts);
      for (std::size_t j = 0; j < ones.size(); ++j) {
        auto got = cols[1 + j].as<F>();
        for (std::size_t i = 0; i < x.size(); ++i)
          EXPECT_TRUE(close(got[i], ones[j].ref(x[i]), tol)) << to_string(ones[j].op) << "(" << x[i] << ") = " << got[i]
                                                             << ", want " << ones[j].ref(x[i]);
      }
    }
    // Two operands, ldexp, fma, the predicates, frexp and modf.
    struct binary {
      op_id op;
      F (*ref)(F, F);
    };
    const std::vector<binary> twos = {
        {op_id::atan2, [](F a, F b) { return std::atan2(a, b); }},       {op_id::hypot, [](F a, F b) { return std::hypot(a, b); }},
        {op_id::copysign, [](F a, F b) { return std::copysign(a, b); }}, {op_id::fmod, [](F a, F b) { return std::fmod(a, b); }},
        {op_id::fpow, [](F a, F b) { return std::pow(a, b); }},          {op_id::fmin, [](F a, F b) { return std::fmin(a, b); }},
        {op_id::fmax, [](F a, F b) { return std::fmax(a, b); }},         {op_id::nextafter, [](F a, F b) { return std::nextafter(a, b); }},
        {op_id::pow, [](F a, F b) { return std::pow(a, b); }},           {op_id::remainder, [](F a, F b) { return std::remainder(a, b); }}};
    std::vector<F> y{F(2), F(-1.5), F(0.5), F(3), F(0.25), F(-2), F(1), F(0), F(2), F(1), nan, F(-0.0)};
    std::vector<std::int32_t> n{1, -2, 3, 0, 10, -10, 5, 7, 1, 2, 100, -1};
    const type* i32 = tc.int32();
    const type* b = tc.boolean();
    std::vector<const type*> outs(twos.size(), t);
    for (const type* o : {t, t, b, b, b, t, i32, t, t}) outs.push_back(o);
    typed_module m = elementwise(tc, "math2_" + t->str(), {t, t, i32}, outs, [&](typed_builder& k, std::vector<expr_id> in) {
      std::vector<expr_id> r;
      for (const auto& u : twos) r.push_back(u.op == op_id::pow ? k.bin(op_id::pow, in[0], in[1]) : k.op(u.op, t, {in[0], in[1]}));
      r.push_back(k.op(op_id::ldexp, t, {in[0], in[2]}));
      r.push_back(k.op(op_id::fma, t, {in[0], in[1], in[0]}));
      r.push_back(k.op(op_id::isnan, b, {in[1]}));
      r.push_back(k.op(op_id::isinf, b, {in[0]}));
      r.push_back(k.op(op_id::isfinite, b, {in[0]}));
      expr_id fr = k.op(op_id::frexp, tc.tuple({t, i32}), {in[0]});
      r.push_back(k.op(op_id::tuple_get, t, {fr}, {0}));
      r.push_back(k.op(op_id::tuple_get, i32, {fr}, {1}));
      expr_id mf = k.op(op_id::modf, tc.tuple({t, t}), {in[0]});
      r.push_back(k.op(op_id::tuple_get, t, {mf}, {0}));
      r.push_back(k.op(op_id::tuple_get, t, {mf}, {1}));
      return r;
    });
    expect_compiles(m, opts);
    std::vector<column> cols{column::of(t, x), column::of(t, y), column::of(i32, n)};
    for (const type* o : outs) cols.push_back(column::zeros<unsigned char>(o, x.size() * static_cast<std::size_t>(o->itemsize())));
    run_columns(m, cols, x.size(), opts);
    for (std::size_t j = 0; j < twos.size(); ++j) {
      auto got = cols[3 + j].as<F>();
      for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_TRUE(close(got[i], twos[j].ref(x[i], y[i]), tol))
            << to_string(twos[j].op) << "(" << x[i] << ", " << y[i] << ") = " << got[i] << ", want " << twos[j].ref(x[i], y[i]);
    }
    std::size_t c = 3 + twos.size();
    auto ldexp_v = cols[c].as<F>();
    auto fma_v = cols[c + 1].as<F>();
    auto isnan_v = cols[c + 2].as<std::uint8_t>();
    auto isinf_v = cols[c + 3].as<std::uint8_t>();
    auto isfinite_v = cols[c + 4].as<std::uint8_t>();
    auto mant = cols[c + 5].as<F>();
    auto expo = cols[c + 6].as<std::int32_t>();
    auto frac = cols[c + 7].as<F>();
    auto whole = cols[c + 8].as<F>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(close(ldexp_v[i], std::ldexp(x[i], n[i]), tol)) << x[i];
      EXPECT_TRUE(close(fma_v[i], std::fma(x[i], y[i], x[i]), tol)) << x[i];
      EXPECT_EQ(isnan_v[i], std::isnan(y[i]) ? 1 : 0) << y[i];
      EXPECT_EQ(isinf_v[i], std::isinf(x[i]) ? 1 : 0) << x[i];
      EXPECT_EQ(isfinite_v[i], std::isfinite(x[i]) ? 1 : 0) << x[i];
      // Python's frexp and modf, special values included.
      int e = 0;
      F m = std::isfinite(x[i]) ? std::frexp(x[i], &e) : x[i];
      EXPECT_TRUE(same_float(mant[i], m)) << "frexp " << x[i];
      EXPECT_EQ(expo[i], e) << "frexp " << x[i];
      F ip = 0;
      F fp = std::modf(x[i], &ip);
      EXPECT_TRUE(same_float(frac[i], fp)) << "modf " << x[i];
      EXPECT_TRUE(same_float(whole[i], ip)) << "modf " << x[i];
    }
  };
  run_case(0.0, tc.float64(), 1e-13, {});
  run_case(0.0f, tc.float32(), 2e-6, {});
  compile_config fast;
  fast.fastmath = true;
  run_case(0.0f, tc.float32(), 2e-3, fast);
}

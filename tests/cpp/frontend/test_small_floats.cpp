// small_floats.hpp: rounding into the 16-bit float formats in each mode, which the cpu backend's
// conversions into half (__int2half_rd, ...) and LLVM's float-to-half/bfloat16 library calls use.
// Checked against the formats' neighbours: every finite half and bfloat16 is exact in a float, so
// the two candidates around a value are found by stepping the 16-bit pattern.
#include <cuforge/runtime/small_floats.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

using namespace cuforge;

namespace {

// The value of a finite 16-bit pattern in format f, as a double (exact).
double value_of(std::uint16_t bits, small_float_format f) {
  if (f.fraction == bfloat16_format.fraction)
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
  const int e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
  const double mag = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (bits & 0x8000) ? -mag : mag;
}

// The reference: the two neighbours of a positive finite d (below the largest finite), chosen by mode.
std::uint16_t reference(double d, rounding m, small_float_format f) {
  const bool neg = std::signbit(d);
  const double mag = std::fabs(d);
  std::uint16_t lo = 0;
  while (lo < f.max_finite() && value_of(static_cast<std::uint16_t>(lo + 1), f) <= mag) ++lo;  // slow, small formats
  std::uint16_t pick = lo;
  const double lv = value_of(lo, f);
  if (lv != mag) {
    const std::uint16_t hi = static_cast<std::uint16_t>(lo + 1);  // may be inf
    const double hv = hi == f.inf() ? std::ldexp(1.0, f.bias() + 1) : value_of(hi, f);
    switch (m) {
      case rounding::rn: pick = (mag - lv < hv - mag || (mag - lv == hv - mag && !(lo & 1))) ? lo : hi; break;
      case rounding::rz: pick = lo; break;
      case rounding::ru: pick = neg ? lo : hi; break;
      case rounding::rd: pick = neg ? hi : lo; break;
    }
  }
  return static_cast<std::uint16_t>(pick | (neg ? 0x8000 : 0));
}

}  // namespace

TEST(SmallFloats, HalfMatchesItsNeighboursInEveryMode) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> exp(-27, 16);
  std::uniform_real_distribution<double> frac(1.0, 2.0);
  for (int i = 0; i < 3000; ++i) {
    double d = std::ldexp(frac(rng), exp(rng)) * (i % 2 ? -1 : 1);
    if (std::fabs(d) >= 65504) continue;
    for (rounding m : {rounding::rn, rounding::rz, rounding::rd, rounding::ru})
      ASSERT_EQ(small_float_from_double(d, m, ieee_half), reference(d, m, ieee_half)) << d << " mode " << int(m);
  }
}

TEST(SmallFloats, BfloatMatchesItsNeighboursInEveryMode) {
  std::mt19937_64 rng(6);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < 300; ++i) {
    // A positive float32 (a third of them halfway cases: the low 16 bits 0x8000).
    std::uint32_t b = bits(rng) & 0x7f7fffffu;
    if (i % 3 == 0) b = (b & 0xffff0000u) | 0x8000u;
    const double d = std::bit_cast<float>(b);
    if (!(std::fabs(d) < 3.38e38)) continue;
    // bfloat16 is float32's top half: the reference reads the rounding off the low half.
    for (rounding m : {rounding::rn, rounding::rz, rounding::rd, rounding::ru}) {
      const std::uint16_t got = small_float_from_double(d, m, bfloat16_format);
      const std::uint16_t top = static_cast<std::uint16_t>(b >> 16);
      const bool inexact = (b & 0xffffu) != 0;
      std::uint16_t want = top;
      const std::uint32_t rest = b & 0xffffu;
      if (inexact && (m == rounding::ru || (m == rounding::rn && (rest > 0x8000u || (rest == 0x8000u && (top & 1))))))
        ++want;
      ASSERT_EQ(got, want) << d << " mode " << int(m);
    }
  }
}

TEST(SmallFloats, OverflowInfinitiesNanAndIntegers) {
  EXPECT_EQ(small_float_from_double(65519.99, rounding::rn, ieee_half), 0x7bff);
  EXPECT_EQ(small_float_from_double(65520.0, rounding::rn, ieee_half), 0x7c00);  // the tie goes to inf
  EXPECT_EQ(small_float_from_double(1e10, rounding::rz, ieee_half), 0x7bff);
  EXPECT_EQ(small_float_from_double(-1e10, rounding::ru, ieee_half), 0xfbff);
  EXPECT_EQ(small_float_from_double(-1e10, rounding::rd, ieee_half), 0xfc00);
  EXPECT_EQ(small_float_from_double(-0.0, rounding::rn, ieee_half), 0x8000);
  EXPECT_EQ(small_float_from_double(std::ldexp(1.0, -25), rounding::rn, ieee_half), 0x0000);  // a tie: even
  EXPECT_EQ(small_float_from_double(std::ldexp(1.5, -25), rounding::rn, ieee_half), 0x0001);
  EXPECT_EQ(small_float_from_double(std::ldexp(1.0, -40), rounding::ru, ieee_half), 0x0001);
  EXPECT_EQ(small_float_from_double(NAN, rounding::rz, ieee_half), canonical_small_nan);
  EXPECT_EQ(small_float_from_double(-INFINITY, rounding::rz, bfloat16_format), 0xff80);
  EXPECT_EQ(small_float_from_double(3.4e38, rounding::rn, bfloat16_format), 0x7f80);
  EXPECT_EQ(small_float_from_double(3.4e38, rounding::rz, bfloat16_format), 0x7f7f);
  EXPECT_EQ(small_float_from_int(2049, rounding::rn, ieee_half), 0x6800);  // 2048: the tie to even
  EXPECT_EQ(small_float_from_int(2051, rounding::rn, ieee_half), 0x6802);
  EXPECT_EQ(small_float_from_int(-2049, rounding::rd, ieee_half), static_cast<std::uint16_t>(0xe801));
  EXPECT_EQ(small_float_from_uint(~std::uint64_t{0}, rounding::rz, ieee_half), 0x7bff);
  EXPECT_EQ(small_float_from_uint(~std::uint64_t{0}, rounding::rn, bfloat16_format), 0x5f80);  // 2^64
  EXPECT_EQ(small_float_from_int(789, rounding::rn, bfloat16_format), 0x4445);
  EXPECT_EQ(small_float_from_int(INT64_MIN, rounding::rz, bfloat16_format), 0xdf00);
  static_assert(small_float_from_double(1.0, rounding::rn, bfloat16_format) == 0x3f80);  // constexpr
}

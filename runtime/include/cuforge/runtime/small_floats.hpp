#pragma once

/// @file
/// The 16-bit float formats (IEEE half, bfloat16) and the GPU's conversions into them in each
/// rounding mode (cvt.rn/rz/rm/rp.f16...), computed exactly from the value converted. One home for
/// every layer that rounds into them: the cpu backend's __float2half_rz, __int2half_rd, ...
/// (frontend/src/target_host.cpp binds them), LLVM's float-to-half and -bfloat16 library calls there,
/// and the launcher packing a float16 argument (jit::half_bits).

#include <bit>
#include <cstdint>

namespace cuforge {

/// A binary floating-point format of 16 bits: `fraction` stored significand bits after the leading
/// one, the rest (less the sign) exponent.
struct small_float_format {
  int fraction;
  constexpr int exponent_bits() const noexcept { return 15 - fraction; }
  constexpr int bias() const noexcept { return (1 << (exponent_bits() - 1)) - 1; }
  constexpr std::uint16_t inf() const noexcept {
    return static_cast<std::uint16_t>(((1u << exponent_bits()) - 1) << fraction);
  }
  constexpr std::uint16_t max_finite() const noexcept { return static_cast<std::uint16_t>(inf() - 1); }
};
inline constexpr small_float_format ieee_half{10};
inline constexpr small_float_format bfloat16_format{7};

/// The GPU's nan in either format (cvt gives it for every nan input).
inline constexpr std::uint16_t canonical_small_nan = 0x7fff;

/// The rounding modes, in cuda_fp16.h's order of suffixes: _rn, _rz, _rd (toward -inf), _ru.
enum class rounding : int { rn = 0, rz = 1, rd = 2, ru = 3 };

/// The bits of (-1)^neg * mag * 2^exp2, rounded once to `f` in mode `m` (overflow: inf, or the
/// largest finite value where the mode rounds toward it).
constexpr std::uint16_t round_to_small_float(bool neg, std::uint64_t mag, int exp2, rounding m,
                                             small_float_format f) noexcept {
  const auto sign = static_cast<std::uint16_t>(neg ? 0x8000 : 0);
  if (mag == 0) return sign;
  const int p = f.fraction + 1;  // significand bits
  const int emin = 1 - f.bias(), emax = f.bias();
  const int top = 63 - std::countl_zero(mag);  // the value is in [2^(exp2+top), 2^(exp2+top+1))
  const int e = exp2 + top;
  // Where the format keeps `p` bits below 2^e (fewer among the subnormals): the last kept bit's weight.
  const int q = (e < emin ? emin : e) - (p - 1);
  const bool up_when_inexact = (m == rounding::ru && !neg) || (m == rounding::rd && neg);
  std::uint64_t sig = 0;
  const int shift = q - exp2;  // bits of mag below the last kept one
  if (shift <= 0) {
    sig = mag << -shift;  // exact: fewer than p bits
  } else {
    const std::uint64_t kept = shift >= 64 ? 0 : mag >> shift;
    const std::uint64_t rest = shift >= 64 ? mag : mag & ((std::uint64_t{1} << shift) - 1);
    sig = kept;
    if (rest != 0) {
      if (m == rounding::rn) {
        // Against half the last kept bit's weight (past 64 bits of shift, mag is below it).
        if (shift <= 64) {
          const std::uint64_t half = std::uint64_t{1} << (shift - 1);
          if (rest > half || (rest == half && (kept & 1))) ++sig;
        }
      } else if (up_when_inexact) {
        ++sig;
      }
    }
  }
  int qe = q;
  if (sig == (std::uint64_t{1} << p)) {  // rounded up into the next binade
    sig >>= 1;
    ++qe;
  }
  const bool normal = sig >= (std::uint64_t{1} << (p - 1));
  const int biased = normal ? qe + (p - 1) + f.bias() : 0;
  if (biased > emax + f.bias()) {  // overflow
    const bool to_inf = m == rounding::rn || up_when_inexact;
    return static_cast<std::uint16_t>(sign | (to_inf ? f.inf() : f.max_finite()));
  }
  const std::uint64_t fraction = normal ? sig - (std::uint64_t{1} << (p - 1)) : sig;
  return static_cast<std::uint16_t>(sign | (static_cast<unsigned>(biased) << f.fraction) | fraction);
}

/// A double rounded to `f` in mode `m`; every nan gives the GPU's canonical one.
constexpr std::uint16_t small_float_from_double(double d, rounding m, small_float_format f) noexcept {
  const auto x = std::bit_cast<std::uint64_t>(d);
  const bool neg = (x >> 63) != 0;
  const int biased = static_cast<int>((x >> 52) & 0x7ff);
  const std::uint64_t mant = x & ((std::uint64_t{1} << 52) - 1);
  if (biased == 0x7ff) return mant ? canonical_small_nan : static_cast<std::uint16_t>((neg ? 0x8000 : 0) | f.inf());
  if (biased == 0) return round_to_small_float(neg, mant, -1074, m, f);
  return round_to_small_float(neg, mant | (std::uint64_t{1} << 52), biased - 1075, m, f);
}

constexpr std::uint16_t small_float_from_int(std::int64_t v, rounding m, small_float_format f) noexcept {
  const bool neg = v < 0;
  return round_to_small_float(neg, neg ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v), 0, m, f);
}

constexpr std::uint16_t small_float_from_uint(std::uint64_t v, rounding m, small_float_format f) noexcept {
  return round_to_small_float(false, v, 0, m, f);
}

}  // namespace cuforge

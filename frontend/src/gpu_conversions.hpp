#pragma once

// The GPU's float-to-integer conversion (cvt.rzi and its rounding variants) where C++ and LLVM leave
// it undefined, as an H200 computes it: one home for the host's conversions of run-time values
// (targets.cpp), the typer's of constants (typer_function.cpp) and the cpu backend's libdevice
// (libdevice_host.cpp), so that all three give the GPU's values.

#include <cstdint>

namespace cuforge::frontend::detail {

/// Whether a nan converts to the sign bit alone (INT_MIN's bits, for unsigned results too) rather
/// than to 0: at 64 bits, and at 32 bits from a float64. `bits` is the conversion's register, 16 at
/// least (an 8-bit result is the 16-bit one truncated).
constexpr bool nan_converts_to_sign_bit(int bits, bool from_double) noexcept {
  return bits == 64 || (bits == 32 && from_double);
}

/// The bits a nan converts to at `bits` (16, 32 or 64) from a float64 or a float32.
constexpr std::uint64_t nan_int_bits(int bits, bool from_double) noexcept {
  return nan_converts_to_sign_bit(bits, from_double) ? std::uint64_t{1} << (bits - 1) : 0;
}

}  // namespace cuforge::frontend::detail

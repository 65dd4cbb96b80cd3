#pragma once

/// @file
/// Element types of device arrays: NumPy's numeric dtypes, named by their
/// array-interface type strings ("<f4", "|b1").

#include <cuforge/runtime/export.hpp>

#include <complex>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuforge {

struct CUFORGE_API dtype {
  enum class kind : char { boolean = 'b', signed_int = 'i', unsigned_int = 'u', floating = 'f', complex = 'c' };

  kind k = kind::floating;
  std::uint8_t itemsize = 8;

  /// @throws type_error naming the string for anything but a little-endian
  ///         (or byte-sized) bool, integer, float or complex type.
  static dtype from_typestr(std::string_view typestr);
  /// "<f4", "|b1", "|u1", ...
  std::string typestr() const;
  /// NumPy's name: "float32", "bool", "complex128", ...
  std::string name() const;

  friend bool operator==(dtype, dtype) = default;
};

namespace dtypes {
inline constexpr dtype bool_{dtype::kind::boolean, 1};
inline constexpr dtype int8{dtype::kind::signed_int, 1};
inline constexpr dtype int16{dtype::kind::signed_int, 2};
inline constexpr dtype int32{dtype::kind::signed_int, 4};
inline constexpr dtype int64{dtype::kind::signed_int, 8};
inline constexpr dtype uint8{dtype::kind::unsigned_int, 1};
inline constexpr dtype uint16{dtype::kind::unsigned_int, 2};
inline constexpr dtype uint32{dtype::kind::unsigned_int, 4};
inline constexpr dtype uint64{dtype::kind::unsigned_int, 8};
inline constexpr dtype float16{dtype::kind::floating, 2};
inline constexpr dtype float32{dtype::kind::floating, 4};
inline constexpr dtype float64{dtype::kind::floating, 8};
inline constexpr dtype complex64{dtype::kind::complex, 8};
inline constexpr dtype complex128{dtype::kind::complex, 16};
}  // namespace dtypes

template <class T> constexpr dtype dtype_of();
template <> constexpr dtype dtype_of<bool>() { return dtypes::bool_; }
template <> constexpr dtype dtype_of<std::int8_t>() { return dtypes::int8; }
template <> constexpr dtype dtype_of<std::int16_t>() { return dtypes::int16; }
template <> constexpr dtype dtype_of<std::int32_t>() { return dtypes::int32; }
template <> constexpr dtype dtype_of<std::int64_t>() { return dtypes::int64; }
template <> constexpr dtype dtype_of<std::uint8_t>() { return dtypes::uint8; }
template <> constexpr dtype dtype_of<std::uint16_t>() { return dtypes::uint16; }
template <> constexpr dtype dtype_of<std::uint32_t>() { return dtypes::uint32; }
template <> constexpr dtype dtype_of<std::uint64_t>() { return dtypes::uint64; }
template <> constexpr dtype dtype_of<float>() { return dtypes::float32; }
template <> constexpr dtype dtype_of<double>() { return dtypes::float64; }
template <> constexpr dtype dtype_of<std::complex<float>>() { return dtypes::complex64; }
template <> constexpr dtype dtype_of<std::complex<double>>() { return dtypes::complex128; }

}  // namespace cuforge

#pragma once

/// @file
/// Element types of device arrays: NumPy's numeric dtypes, named by their
/// array-interface type strings ("<f4", "|b1"). The types themselves are
/// the rows of the scalar-type table (cuforge/runtime/scalar_types.hpp).

#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/scalar_types.hpp>

#include <complex>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuforge {

struct CUFORGE_API dtype {
  using kind = scalar_kind;

  kind k = kind::floating;
  std::uint8_t itemsize = 8;

  constexpr dtype() = default;
  constexpr dtype(kind k_, std::uint8_t size) : k(k_), itemsize(size) {}
  constexpr explicit dtype(scalar_id id) : k(info(id).kind), itemsize(static_cast<std::uint8_t>(info(id).bytes)) {}

  /// @throws type_error naming the string for anything but a little-endian
  ///         (or byte-sized) type of the scalar-type table.
  static dtype from_typestr(std::string_view typestr);
  /// "<f4", "|b1", "|u1", ...
  std::string typestr() const;
  /// NumPy's name: "float32", "bool", "complex128", ...
  std::string name() const;
  /// Its row of the scalar-type table. @throws type_error when it has none.
  const scalar_type_info& scalar() const;

  friend bool operator==(dtype, dtype) = default;
};

namespace dtypes {
#define CUFORGE_DTYPE_CONSTANT(id, ...) inline constexpr dtype id{scalar_id::id};
CUFORGE_SCALAR_TYPES(CUFORGE_DTYPE_CONSTANT)
#undef CUFORGE_DTYPE_CONSTANT
}  // namespace dtypes

/// The dtype of arrays of C++ type T (float16's storage is float16_bits).
template <class T>
constexpr dtype dtype_of();
#define CUFORGE_DTYPE_OF(id, name, kind, bytes, ctype, ...) \
  template <>                                               \
  constexpr dtype dtype_of<ctype>() {                       \
    return dtypes::id;                                      \
  }
CUFORGE_SCALAR_TYPES(CUFORGE_DTYPE_OF)
#undef CUFORGE_DTYPE_OF

}  // namespace cuforge

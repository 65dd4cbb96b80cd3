#pragma once

/// @file
/// Element types of device arrays: NumPy's numeric dtypes, named by their
/// array-interface type strings ("<f4", "|b1"), and structured dtypes
/// (records). The scalar types themselves are the rows of the scalar-type
/// table (cuforge/runtime/scalar_types.hpp); a record is a layout of fields
/// built from them (record_layout, interned for the process).

#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/scalar_types.hpp>

#include <complex>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuforge {

struct record_layout;

struct CUFORGE_API dtype {
  using kind = scalar_kind;

  kind k = kind::floating;   ///< meaningless for a record
  std::uint32_t itemsize = 8;
  /// A structured dtype's fields (interned: records compare by pointer); null for a scalar type.
  const record_layout* record = nullptr;
  /// datetime64 ('M') or timedelta64 ('m'), stored as int64 (k and itemsize say so), with `unit`
  /// (a datetime_units code); 0 for the other types.
  char time = 0;
  std::uint8_t unit = 0;

  constexpr dtype() = default;
  constexpr dtype(kind k_, std::uint32_t size) : k(k_), itemsize(size) {}
  constexpr explicit dtype(scalar_id id) : k(info(id).kind), itemsize(static_cast<std::uint32_t>(info(id).bytes)) {}
  /// The dtype of a record layout (from intern_record).
  static dtype of_record(const record_layout* r);

  bool is_record() const noexcept { return record != nullptr; }
  /// datetime64[unit] ('M') or timedelta64[unit] ('m') of a datetime_units code.
  static dtype of_time(char kind, int unit);
  bool is_time() const noexcept { return time != 0; }

  /// @throws type_error naming the string for anything but a little-endian
  ///         (or byte-sized) type of the scalar-type table.
  static dtype from_typestr(std::string_view typestr);
  /// "<f4", "|b1", "|u1", ...; a record's is "|V" and its size ("|V16"), as NumPy's; "<M8[D]".
  std::string typestr() const;
  /// NumPy's name: "float32", "bool", "complex128", ...; a record's is "void" and its bits ("void128");
  /// "datetime64[D]", "timedelta64[s]".
  std::string name() const;
  /// Its row of the scalar-type table (int64, a datetime's storage). @throws type_error when it has
  /// none (a record).
  const scalar_type_info& scalar() const;

  friend bool operator==(dtype, dtype) = default;
};

/// One field of a record: a scalar or a nested record, or a fixed-size
/// C-ordered array of one (`shape` not empty), at `offset` bytes.
struct record_field {
  std::string name;
  std::int64_t offset = 0;
  dtype type;
  std::vector<std::int64_t> shape;

  /// Bytes the field spans: the element size times the element count.
  std::int64_t size() const noexcept;
  friend bool operator==(const record_field&, const record_field&) = default;
};

/// A structured dtype: fields in their order, the item size (padding
/// included), and whether NumPy laid it out aligned (`align=True`, as a C
/// struct; its alignment is then its fields' largest) or packed.
struct CUFORGE_API record_layout {
  std::vector<record_field> fields;
  std::int64_t itemsize = 0;
  bool aligned = false;

  /// The field named `name`, or null.
  const record_field* find(std::string_view name) const noexcept;
  /// Numba's spelling, which the compiler's types print and read:
  /// "Record(a[type=float64;offset=0],d[type=nestedarray(uint8, (5,));offset=8];16;True)".
  std::string str() const;
  friend bool operator==(const record_layout&, const record_layout&) = default;
};

/// The process's one copy of `r` (thread-safe; never freed).
/// @throws logic_error when a field lies outside the item, is unnamed, or is named twice.
CUFORGE_API const record_layout* intern_record(record_layout r);

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

#pragma once

/// @file
/// The scalar types every layer names, in one table: device arrays' dtypes
/// (devicearray), the compiler's scalar types and their spellings
/// (frontend), NumPy's module attributes a kernel may name (the typer), the
/// kernel argument packer, DLPack's codes (interop) and Python's
/// `cuforge.types` (through `_core.scalar_types()`) all read it, so a new
/// element type (bfloat16, say) is a row here, not an edit in six lists.
/// Compound element types (records, vector types) are built from these rows
/// by the layers that have them.

#include <complex>
#include <cstdint>
#include <string_view>

namespace cuforge {

/// The kind of a scalar type, as NumPy's `dtype.kind` spells it.
enum class scalar_kind : char { boolean = 'b', signed_int = 'i', unsigned_int = 'u', floating = 'f', complex = 'c' };

/// float16's storage: the bits of an IEEE half. C++20 has no arithmetic
/// half type; arrays of float16 are moved and copied as these.
struct float16_bits {
  std::uint16_t bits = 0;
};

// The table. Columns:
//   id     the C++ enumerator (scalar_id::float32)
//   name   the one spelling every layer prints: NumPy's dtype name, Numba's
//          type name and the compiler's type spec ("float32", "bool")
//   kind   scalar_kind
//   bytes  the item size
//   ctype  the C++ type of a value (float16: its storage)
//   dl     the DLPack type code (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4,
//          kDLComplex 5, kDLBool 6)
//   numpy  other names of the type in the numpy module (np.single, np.intc...)
//   numba  other names of the type in numba.types / cuforge.types (f4, intc...)
//   python the Python type that means this dtype when used as one (int, float...)
// The numpy and numba aliases are space-separated lists.
#define CUFORGE_SCALAR_TYPES(X)                                                                                   \
  /* id        name          kind          bytes ctype                 dl  numpy aliases        numba aliases       python   */ \
  X(bool_,     "bool",       boolean,      1,    bool,                 6,  "bool_",             "bool_ boolean b1", "bool")    \
  X(int8,      "int8",       signed_int,   1,    std::int8_t,          0,  "byte",              "i1 char",          "")        \
  X(int16,     "int16",      signed_int,   2,    std::int16_t,         0,  "short",             "i2 short",         "")        \
  X(int32,     "int32",      signed_int,   4,    std::int32_t,         0,  "intc",              "i4 intc",          "")        \
  X(int64,     "int64",      signed_int,   8,    std::int64_t,         0,  "intp int_ longlong", "i8 intp int_ long_ longlong ssize_t", "int") \
  X(uint8,     "uint8",      unsigned_int, 1,    std::uint8_t,         1,  "ubyte",             "u1 byte uchar",    "")        \
  X(uint16,    "uint16",     unsigned_int, 2,    std::uint16_t,        1,  "ushort",            "u2 ushort",        "")        \
  X(uint32,    "uint32",     unsigned_int, 4,    std::uint32_t,        1,  "uintc",             "u4 uintc uint",    "")        \
  X(uint64,    "uint64",     unsigned_int, 8,    std::uint64_t,        1,  "uintp ulonglong",   "u8 uintp ulong ulonglong size_t", "") \
  X(float16,   "float16",    floating,     2,    ::cuforge::float16_bits, 2, "half",             "f2 half",          "")        \
  X(float32,   "float32",    floating,     4,    float,                2,  "single",            "f4 float_",        "")        \
  X(float64,   "float64",    floating,     8,    double,               2,  "double",            "f8 double",        "float")   \
  X(complex64, "complex64",  complex,      8,    std::complex<float>, 5, "csingle",       "c8",               "")        \
  X(complex128, "complex128", complex,     16,   std::complex<double>, 5, "cdouble",      "c16",              "complex")

enum class scalar_id : std::uint8_t {
#define CUFORGE_SCALAR_ID(id, ...) id,
  CUFORGE_SCALAR_TYPES(CUFORGE_SCALAR_ID)
#undef CUFORGE_SCALAR_ID
};

/// One row of the table.
struct scalar_type_info {
  scalar_id id;
  std::string_view name;
  scalar_kind kind;
  int bytes;
  int dlpack_code;
  std::string_view numpy_aliases;
  std::string_view numba_aliases;
  std::string_view python_type;

  int bits() const noexcept { return bytes * 8; }
  bool is_signed() const noexcept { return kind == scalar_kind::signed_int; }
  /// NumPy's type string: "<f4", "|b1" (byte-sized types have no byte order).
  std::string_view typestr() const noexcept { return typestr_; }

  char typestr_[5];
};

namespace detail {
constexpr scalar_type_info make_scalar_info(scalar_id id, std::string_view name, scalar_kind kind, int bytes,
                                            int dl, std::string_view numpy, std::string_view numba,
                                            std::string_view python) {
  scalar_type_info r{id, name, kind, bytes, dl, numpy, numba, python, {}};
  int n = 0;
  r.typestr_[n++] = bytes == 1 ? '|' : '<';
  r.typestr_[n++] = static_cast<char>(kind);
  if (bytes >= 10) r.typestr_[n++] = static_cast<char>('0' + bytes / 10);
  r.typestr_[n++] = static_cast<char>('0' + bytes % 10);
  r.typestr_[n] = '\0';
  return r;
}
}  // namespace detail

/// Every scalar type, in the table's order (indexed by scalar_id).
inline constexpr scalar_type_info scalar_types[] = {
#define CUFORGE_SCALAR_ROW(id, name, kind, bytes, ctype, dl, numpy, numba, python) \
  detail::make_scalar_info(scalar_id::id, name, scalar_kind::kind, bytes, dl, numpy, numba, python),
    CUFORGE_SCALAR_TYPES(CUFORGE_SCALAR_ROW)
#undef CUFORGE_SCALAR_ROW
};

constexpr const scalar_type_info& info(scalar_id id) noexcept { return scalar_types[static_cast<int>(id)]; }

/// The row named `name` ("float32"), or null.
constexpr const scalar_type_info* find_scalar(std::string_view name) noexcept {
  for (const auto& s : scalar_types)
    if (s.name == name) return &s;
  return nullptr;
}

/// The row of this kind and size, or null.
constexpr const scalar_type_info* find_scalar(scalar_kind kind, int bytes) noexcept {
  for (const auto& s : scalar_types)
    if (s.kind == kind && s.bytes == bytes) return &s;
  return nullptr;
}

/// The row a NumPy type string names ("<f4", "=i8", "|b1", "<i1"), or null.
/// Big-endian strings of multi-byte types name nothing: devices are
/// little-endian.
constexpr const scalar_type_info* find_scalar_typestr(std::string_view s) noexcept {
  if (s.size() < 3) return nullptr;
  const char order = s[0];
  if (order != '<' && order != '|' && order != '=' && order != '>') return nullptr;
  int bytes = 0;
  for (char c : s.substr(2)) {
    if (c < '0' || c > '9' || bytes > 64) return nullptr;
    bytes = bytes * 10 + (c - '0');
  }
  if (order == '>' && bytes > 1) return nullptr;
  for (const auto& t : scalar_types)
    if (static_cast<char>(t.kind) == s[1] && t.bytes == bytes) return &t;
  return nullptr;
}

/// Whether `name` is one of the space-separated `aliases`.
constexpr bool alias_listed(std::string_view aliases, std::string_view name) noexcept {
  while (!aliases.empty()) {
    auto space = aliases.find(' ');
    std::string_view word = aliases.substr(0, space);
    if (word == name) return true;
    if (space == std::string_view::npos) break;
    aliases.remove_prefix(space + 1);
  }
  return false;
}

/// NumPy's datetime64/timedelta64 units, by Numba's unit code (the index: Y 0, M 1, W 2, D 4, ...,
/// as 13; 3 is unused; 14 is the generic unit, written ""). Values of both kinds are int64
/// counts of their unit, INT64_MIN being NaT.
inline constexpr std::string_view datetime_units[] = {"Y",  "M",  "W",  "?",  "D",  "h",  "m", "s",
                                                       "ms", "us", "ns", "ps", "fs", "as", ""};
inline constexpr int generic_datetime_unit = 14;

/// The code of the unit NumPy spells `name` ("D", "ms", "" for generic), or -1.
constexpr int datetime_unit_code(std::string_view name) noexcept {
  for (int i = 0; i < 15; ++i)
    if (i != 3 && datetime_units[i] == name) return i;
  return -1;
}

/// The row the numpy module's attribute `name` names (np.float32, np.single,
/// np.intc, np.bool_), or null.
constexpr const scalar_type_info* find_numpy_scalar(std::string_view name) noexcept {
  for (const auto& s : scalar_types)
    if (s.name == name || alias_listed(s.numpy_aliases, name)) return &s;
  return nullptr;
}

}  // namespace cuforge

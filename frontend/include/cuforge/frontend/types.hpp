#pragma once

/// @file
/// The compiler's types. Every type is interned in a type_context, so types
/// compare by pointer. Runtime types (scalars, arrays, tuples) have values in
/// generated code; compile-time types (modules, functions, dtypes, device
/// functions) exist only while typing: they type the names a kernel uses to
/// reach math functions, cuda intrinsics, dtype constructors and other jitted
/// functions.

#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/scalar_types.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cuforge::frontend {

struct function;  // ir.hpp

enum class type_kind : std::uint8_t {
  none,       ///< Python None; the return type of kernels
  boolean,
  integer,    ///< `bits` 8/16/32/64, `is_signed`
  floating,   ///< `bits` 16/32/64
  complex,    ///< `bits` 64 (two float32) or 128 (two float64)
  array,      ///< `dtype` (a scalar type), `ndim`, `layout`, `readonly`, `space`
  tuple,      ///< `elements`; a named tuple (a collections.namedtuple class's instance) has `name`
              ///< (the class's) and `names` (its fields')
  vector,     ///< a CUDA vector type (cuda.float32x3): `elements` (its count of one scalar), `name`
              ///< ("float32x3"); read-only members .x .y .z .w
  optional,   ///< a value or None (Numba's OptionalType): `dtype` is the value's type, a run-time type other
              ///< than none or optional. What a device function returns when some paths return None.
  bfloat16,   ///< numba-cuda's cuda.bf16.bfloat16 (CUDA's __nv_bfloat16): 16 bits, not a Number in Numba's
              ///< typing: its operators and functions are cuda.bf16's rows (intrinsics_fp16.cpp), other
              ///< uses convert it to float32, which holds it exactly
  datetime,   ///< NumPy's datetime64 (Numba's NPDatetime): an int64 count of `name`'s unit ("D", "ms";
              ///< "" generic), INT64_MIN being NaT
  timedelta,  ///< NumPy's timedelta64 (Numba's NPTimedelta), the same
  record,     ///< a structured dtype's element: `fields`, `size`, `align`, `aligned`, and the `space` its
              ///< bytes are in. Its value is a reference to them (their address), as in Numba: `a[i]` of
              ///< an array of records, written through, writes the array.
  // Compile-time only:
  module,     ///< `name`: "math", "cmath", "numpy", "cuda", "cuda.shared", "cuda.threadIdx", ...
  function,   ///< `name`: a callable known to the typer ("math.sin", "builtins.range", "cuda.grid", ...)
  dtype,      ///< a scalar type as a value (np.float32, float, int): `dtype` is the scalar it names
  device_function,  ///< a jitted device function: `callee` is its (untyped) IR
  tuple_class,      ///< a collections.namedtuple class, which makes named tuples: `name`, `names`
  string_literal,   ///< a constant string (Numba's StringLiteral): `name` is its text; print() takes it
  /// A function declared with cuda.declare_device and defined in CUDA C/C++ (or PTX...) linked in:
  /// `name` its symbol, `elements` its parameter types (scalars, or `pointer`s), `dtype` its return
  /// type, `bits` its ABI (0 Numba's `int f(T* ret, args...)`, 1 C's `T f(args...)`), `names` the
  /// files that define it (linked into every kernel that calls it).
  /// An intrinsic of cuda.extending is one too, with `bits` 2 (its body inline PTX, `names[0]`)
  /// or 3 (an LLVM IR module defining `name`, `names[0]`), and `callee` its host implementation
  /// (a device function's IR, called on the host target), or null.
  external_function,
  /// A C pointer to `dtype` (CPointer(float32)): the type of an external function's parameter
  /// only; an array passes its data pointer there.
  pointer,
};

enum class array_layout : char { any = 'A', c = 'C', f = 'F' };

/// Where an array's elements live. Kernel arguments are global; the rest
/// come from cuda.shared.array, cuda.local.array and cuda.const.array_like.
enum class address_space : std::uint8_t { global, shared, local, constant };

class type;

/// A record's field: a scalar or a nested record (`ty`, a record in the
/// global space), or a fixed-size C-ordered array of one (`shape` not
/// empty), at `offset` bytes.
struct field_info {
  std::string name;
  const type* ty = nullptr;
  std::int64_t offset = 0;
  std::vector<std::int64_t> shape;
};

class CUFORGE_API type {
 public:
  type_kind kind = type_kind::none;
  int bits = 0;             ///< integer, floating, complex
  bool is_signed = false;   ///< integer
  const type* dtype = nullptr;  ///< array element type; the scalar a dtype value names
  int ndim = 0;             ///< array
  array_layout layout = array_layout::any;
  bool readonly = false;
  address_space space = address_space::global;
  std::vector<const type*> elements;  ///< tuple
  std::vector<field_info> fields;     ///< record
  std::int64_t size = 0;    ///< record: bytes, padding included
  int align = 1;            ///< record: the alignment its fields need (1 when packed)
  bool aligned = false;     ///< record: laid out as a C struct (NumPy's align=True) rather than packed
  std::string name;         ///< module, function; a named tuple's class
  std::vector<std::string> names;  ///< a named tuple's (or tuple class's) field names
  const function* callee = nullptr;   ///< device_function
  bool cooperative = false;  ///< external_function: its code needs a cooperative launch (grid sync)

  bool is_scalar() const noexcept {
    return kind == type_kind::boolean || kind == type_kind::integer || kind == type_kind::floating ||
           kind == type_kind::complex;
  }
  bool is_numeric() const noexcept { return is_scalar(); }
  bool is_int() const noexcept { return kind == type_kind::integer; }
  bool is_float() const noexcept { return kind == type_kind::floating; }
  bool is_complex() const noexcept { return kind == type_kind::complex; }
  bool is_array() const noexcept { return kind == type_kind::array; }
  bool is_tuple() const noexcept { return kind == type_kind::tuple; }
  bool is_record() const noexcept { return kind == type_kind::record; }
  bool is_vector() const noexcept { return kind == type_kind::vector; }
  bool is_optional() const noexcept { return kind == type_kind::optional; }
  bool is_bfloat16() const noexcept { return kind == type_kind::bfloat16; }
  /// datetime64 or timedelta64 (of unit `name`).
  bool is_time() const noexcept { return kind == type_kind::datetime || kind == type_kind::timedelta; }
  /// A record's field named `n`, or null.
  const field_info* field(const std::string& n) const noexcept {
    for (const auto& f : fields)
      if (f.name == n) return &f;
    return nullptr;
  }
  /// A value that exists at run time (and so can be a variable or argument).
  bool is_runtime() const noexcept {
    return kind == type_kind::none || is_scalar() || is_array() || is_record() || is_vector() || is_optional() ||
           is_bfloat16() || is_time() ||
           (is_tuple() && [this] {
             for (auto* e : elements)
               if (!e->is_runtime()) return false;
             return true;
           }());
  }
  /// Size in bytes of a scalar (bool is 1) or a record.
  int itemsize() const noexcept {
    return kind == type_kind::record ? static_cast<int>(size) : kind == type_kind::boolean ? 1
           : kind == type_kind::bfloat16                       ? 2
                                                               : bits / 8;
  }
  /// The alignment a scalar or record needs in memory (a complex number its parts').
  int natural_align() const noexcept {
    return kind == type_kind::record ? align : kind == type_kind::complex ? bits / 16 : itemsize();
  }
  /// A scalar's row of the scalar-type table (its name, type string...), or
  /// null for other types.
  const scalar_type_info* scalar() const noexcept;

  /// Numba's spelling: "float32", "array(float32, 1d, C)",
  /// "UniTuple(int64 x 2)", "Tuple(int64, float32)", "Module(math)",
  /// "Function(math.sin)", "dtype(float32)", "none", "Point(x: float64, y: int64)" (a named
  /// tuple: Numba writes "Point(float64, int64)"; the field names make it readable back),
  /// "Record(a[type=float64;offset=0],h[type=nestedarray(float32, (2,));offset=8];16;True)"
  /// (a record outside global memory adds its space: "...;16;True;shared)").
  std::string str() const;
};

/// Interns types: equal types are the same object. Not thread-safe: one
/// context per compilation (or a lock around it).
class CUFORGE_API type_context {
 public:
  type_context();
  type_context(const type_context&) = delete;
  type_context& operator=(const type_context&) = delete;

  const type* none();
  const type* boolean();
  const type* integer(int bits, bool is_signed);
  const type* floating(int bits);
  const type* complex(int bits);
  const type* array(const type* dtype, int ndim, array_layout layout = array_layout::any, bool readonly = false,
                    address_space space = address_space::global);
  const type* tuple(std::vector<const type*> elements);
  /// A named tuple of class `cls` with fields `names` (one per element).
  const type* named_tuple(std::vector<const type*> elements, const std::string& cls, std::vector<std::string> names);
  /// The namedtuple class `cls` (fields `names`) as a value: calling it makes a named tuple.
  const type* tuple_class(const std::string& cls, std::vector<std::string> names);
  /// A struct type's class (cuda.extending.struct_type): its fields converted to `elements` when it is called.
  const type* tuple_class(const std::string& cls, std::vector<std::string> names, std::vector<const type*> elements);
  /// A record of `fields` (their types scalars or global records) in `size`
  /// bytes; its alignment is its fields' largest when `aligned`, else 1.
  /// @throws logic_error for a field outside the record or named twice.
  const type* record(std::vector<field_info> fields, std::int64_t size, bool aligned,
                     address_space space = address_space::global);
  /// The CUDA vector type of `count` (1 to 4) elements of scalar `base` ("float32x3").
  const type* vector(const type* base, int count);
  /// A `value` or None (OptionalType(value)); none gives none and an optional itself.
  /// @throws logic_error for a value that is not a run-time type.
  const type* optional(const type* value);
  /// Record `r` with its bytes in `space` (other types: themselves).
  const type* in_space(const type* r, address_space space);
  const type* module(const std::string& name);
  const type* function(const std::string& name);
  /// The type of the constant string `text` (compile-time only).
  const type* string_literal(const std::string& text);
  const type* dtype_value(const type* scalar);
  const type* bfloat16();
  /// datetime64 / timedelta64 of a unit code (cuforge::datetime_units: 4 is "D", 14 generic).
  const type* datetime(int unit);
  const type* timedelta(int unit);
  const type* device_function(const frontend::function* callee);
  /// An external function (type_kind::external_function): `abi` 0 Numba's, 1 C's (2 and 3: an
  /// intrinsic's PTX or LLVM IR, `host` its host implementation); `cooperative` when its code needs a
  /// cooperative launch (a kernel calling it is launched as one).
  const type* external_function(const std::string& symbol, std::vector<const type*> params, const type* ret, int abi,
                                std::vector<std::string> link, const frontend::function* host = nullptr,
                                bool cooperative = false);
  const type* pointer(const type* pointee);

  /// The scalar type of a row of the scalar-type table.
  const type* scalar(scalar_id id);
  const type* scalar(const scalar_type_info& row) { return scalar(row.id); }
  // tc.int8(), tc.float32(), ...: one per row of the table.
#define CUFORGE_TYPE_CONTEXT_SCALAR(id, ...) \
  const type* id() { return scalar(scalar_id::id); }
  CUFORGE_SCALAR_TYPES(CUFORGE_TYPE_CONTEXT_SCALAR)
#undef CUFORGE_TYPE_CONTEXT_SCALAR

  /// The scalar type of a NumPy type string ("<f4", "|b1", "<c16"), or null.
  const type* from_typestr(const std::string& typestr);

 private:
  const type* intern(type t);
  std::deque<type> storage_;
  std::map<std::string, const type*> by_key_;
};

/// The common type of two scalar types, NumPy's promote_types, which is
/// how Numba unifies values that meet (a variable's assignments, the
/// branches of a conditional, and/or, min/max): bool with a number gives the
/// number, int64 with uint64 gives float64, int16 with float16 gives
/// float32, float32 with complex128 gives complex128. Operators type by
/// Numba's overload resolution instead (frontend/src/numba_typing.hpp).
/// Returns null when there is no common numeric type.
CUFORGE_API const type* promote(type_context& tc, const type* a, const type* b);

/// The runtime type `spec` names, in type::str()'s spelling: "float32",
/// "bool", "none", "array(float32, 2d, C)" (", readonly" may follow the
/// layout), "UniTuple(int64 x 2)", "Tuple(int64, float32)", "Record(...)",
/// "CPointer(float32)" (a pointer, for external functions' parameters). Python's type
/// objects (cuforge.types) name types this way.
/// @throws logic_error naming the text it cannot read.
CUFORGE_API const type* parse_type(type_context& tc, const std::string& spec);

/// The float type that holds every value of an integer type (NumPy's
/// rule): int8/uint8 -> float16, int16/uint16 -> float32, wider -> float64;
/// floats and complex types are their own.
CUFORGE_API const type* float_for(type_context& tc, const type* t);

}  // namespace cuforge::frontend

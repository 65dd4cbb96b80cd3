#pragma once

// The intrinsic registry's entries with their hooks (intrinsics.hpp is the
// public listing). An entry is a row of one area's table:
//   intrinsics_cuda.cpp      cuda.*: thread coordinates, the grid, barriers, fences, warps, bits,
//                            shared/local/constant arrays
//   intrinsics_fp16.cpp      cuda.fp16.*: numba-cuda's half-precision functions
//   intrinsics_bf16.cpp      cuda.bf16.*: numba-cuda's bfloat16, and the typer's rules for it
//   intrinsics_vector.cpp    cuda.float32x3, cuda.float3, ...: CUDA's vector types and their C names
//   intrinsics_atomic.cpp    cuda.atomic.*
//   intrinsics_math.cpp      math.*, cmath.*, numpy.* (scalar functions and constants)
//   intrinsics_libdevice.cpp cuda.libdevice.*: libdevice's functions by their C prototypes
//                            (libdevice_functions.def lists them)
//   intrinsics_builtins.cpp  builtins.*, operator.*
// and intrinsic_registry.cpp puts the tables together. Adding an intrinsic
// is a row in one of them, with its typing and lowering functions beside it
// (docs/compiler.md, "How to add an intrinsic").
//
// Typing: a function entry's `call` types a call from its arguments (through
// the function_typer, which emits typed ops); a value entry's `read` types a
// read. Either may emit ordinary ops (math.sin becomes op `sin`) or the op
// `intrinsic` naming the entry (intrinsic_op()), which codegen lowers with
// the entry's `lower` (one function for every target, through the target
// hooks), else with `lower_on[target]` (one function per target, for what
// has no common form).

#include <cuforge/frontend/compile_config.hpp>
#include <cuforge/frontend/intrinsics.hpp>
#include <cuforge/frontend/ops.hpp>

#include "numba_typing.hpp"
#include "typer_impl.hpp"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace llvm {
class Value;
}

namespace cuforge::frontend::detail {

class function_lowering;
struct intrinsic;

/// Types a call of a function entry.
using call_typing = value (*)(function_typer& ft, const intrinsic& self, call_args& c);
/// Types a read of a value entry.
using read_typing = value (*)(function_typer& ft, const intrinsic& self, location loc);
/// Lowers an `intrinsic` op of this entry (its operands as the typing made them).
using intrinsic_lowering = llvm::Value* (*)(function_lowering& fl, const intrinsic& self, const expr& e);

inline constexpr std::size_t target_count = 2;  // target_kind's values

struct intrinsic {
  intrinsic_info info;
  call_typing call = nullptr;
  read_typing read = nullptr;
  intrinsic_lowering lower = nullptr;
  intrinsic_lowering lower_on[target_count] = {};  ///< indexed by target_kind
  /// What the shared typing and lowering functions read: an op (math.sin -> sin), and an integer of
  /// the entry's own (a dimension, which atomic, which fence).
  op_id op = op_id::none;
  int arg = 0;
  /// It takes compile-time values (dtypes, constant arrays) among its arguments; other entries are
  /// refused such arguments before their typing runs.
  bool compile_time_args = false;
  /// A C prototype a family of rows types and lowers from (cuda.libdevice's: "f:f,*i").
  std::string_view proto;
  /// An atomic that adds its value into the element of its array operand (operand 0): a kernel
  /// whose only use of an array parameter is such calls, their results unused, may have the cpu
  /// backend's workers add into private copies of it (private_sums.cpp, docs/cpu_execution.md).
  bool adds_into = false;
};

// Row makers for the tables: a module, a function typed by `call`, a value read by `read`.
constexpr intrinsic module_entry(std::string_view name, std::string_view doc) {
  return intrinsic{intrinsic_info{name, intrinsic_kind::module, cpu_needs::nothing, "", doc}};
}
constexpr intrinsic function_entry(std::string_view name, std::string_view params, std::string_view doc, call_typing call,
                                   op_id op = op_id::none, int arg = 0, cpu_needs cpu = cpu_needs::nothing) {
  intrinsic e{intrinsic_info{name, intrinsic_kind::function, cpu, params, doc}};
  e.call = call;
  e.op = op;
  e.arg = arg;
  return e;
}
constexpr intrinsic value_entry(std::string_view name, std::string_view doc, read_typing read, op_id op = op_id::none,
                                int arg = 0) {
  intrinsic e{intrinsic_info{name, intrinsic_kind::value, cpu_needs::nothing, "", doc}};
  e.read = read;
  e.op = op;
  e.arg = arg;
  return e;
}
/// `e` taking compile-time values among its arguments.
constexpr intrinsic taking_compile_time_args(intrinsic e) {
  e.compile_time_args = true;
  return e;
}
/// `e` lowered by one function on every target.
constexpr intrinsic lowered_by(intrinsic e, intrinsic_lowering lower) {
  e.lower = lower;
  return e;
}
/// `e` lowered by a function per target.
constexpr intrinsic lowered_by(intrinsic e, intrinsic_lowering nvptx, intrinsic_lowering host) {
  e.lower_on[static_cast<std::size_t>(target_kind::nvptx)] = nvptx;
  e.lower_on[static_cast<std::size_t>(target_kind::host)] = host;
  return e;
}

// Each area's table.
std::span<const intrinsic> cuda_intrinsics();
std::span<const intrinsic> fp16_intrinsics();
std::span<const intrinsic> bf16_intrinsics();
/// The cuda.bf16 row numba-cuda's overload of a math function on bfloat16 is (math.sin: hsin), or null.
const intrinsic* bfloat16_math_row(std::string_view math_name);
std::span<const intrinsic> vector_intrinsics();
std::span<const intrinsic> atomic_intrinsics();
std::span<const intrinsic> math_intrinsics();
std::span<const intrinsic> libdevice_intrinsics();
std::span<const intrinsic> builtin_intrinsics();
std::span<const intrinsic> host_array_intrinsics();
/// Whether `e` is one of numpy's rows that take arrays as themselves (numpy.empty_like's prototype,
/// numpy.sum's array), not as a ufunc's inputs.
bool makes_array(const intrinsic& e) noexcept;
/// Whether `a.name(...)` is host code's numpy.name(a, ...): the reductions (sum, mean, argmin, cumsum, ...)
/// and copy.
bool is_reduction_method(std::string_view name) noexcept;
/// A new array (host code only) of `extents` (int64 values) and `dtype` with `layout` (C or F), its
/// contents undefined: numpy.empty's row, as a ufunc's result uses it.
value new_array(function_typer& ft, std::vector<value> extents, const type* dtype, array_layout layout, location loc);

/// The whole registry, in index order.
std::span<const intrinsic* const> registry();
/// The entry named `name`, or null.
const intrinsic* find_entry(std::string_view name) noexcept;
/// The entry `name`, which must exist (for the typer's own uses: cuda.grid's threadIdx.x).
const intrinsic& entry(std::string_view name);
/// An entry's index (what an `intrinsic` op's attrs[0] holds).
std::int64_t index_of(const intrinsic& e);
/// The entry an `intrinsic` op names. @throws logic_error (codegen) for an index out of range.
const intrinsic& entry_of(const expr& e);

// --- typing functions rows of several areas share ---------------------------------------

/// (x) -> the row's op on floats: a float32 argument computes in float32, integers in float64
/// (math.sin, numpy.sin, cuda.cbrt). intrinsics_math.cpp.
value type_unary(function_typer& ft, const intrinsic& self, call_args& c);
/// abs(x) (builtins.abs, operator.abs, numpy.abs). intrinsics_builtins.cpp.
value type_abs(function_typer& ft, const intrinsic& self, call_args& c);
/// pow(x, y) (builtins.pow, numpy.power). intrinsics_builtins.cpp.
value type_pow(function_typer& ft, const intrinsic& self, call_args& c);

// --- helpers the typing functions share -------------------------------------------------

/// Refuses a call without lo..hi positional arguments (or with keywords).
void expect_args(const function_typer& ft, const call_args& c, std::size_t lo, std::size_t hi);
/// Argument i, which must be a run-time number or boolean (not complex with `real`).
const value& scalar_arg(const function_typer& ft, const call_args& c, std::size_t i);
const value& real_arg(const function_typer& ft, const call_args& c, std::size_t i);
const value& int_arg(const function_typer& ft, const call_args& c, std::size_t i);
/// A call of a row Numba types by candidate signatures (numba_typing.cpp's table, by the row's name):
/// the signature that wins and the (scalar) arguments converted to its parameters; a TypingError
/// saying `why` when no candidate fits.
struct numba_resolved {
  resolved_op sig;
  std::vector<value> args;
};
numba_resolved numba_resolve(function_typer& ft, const intrinsic& self, call_args& c, const std::string& why = "");
/// A row typed by its C prototype (`proto`: the result's letter, ':', the parameters' letters,
/// "f:f,*i"; a '*' marks a result written through a pointer, which comes back after the return
/// value, the results a tuple when more than one). The letters are Python's struct format
/// characters: ? bool, b B int8 uint8, h H int16 uint16, i I int32 uint32, l L int64 uint64,
/// e float16, f float32, d float64, E bfloat16 (ours: struct has none), v (a result) nothing. Each argument, a real number, converts to
/// its parameter's type (unsafely too), as numba-cuda's single-signature bindings take it.
struct proto_param {
  char ty;
  bool out;
};
struct parsed_proto {
  char ret;
  std::vector<proto_param> params;
};
parsed_proto parse_proto(std::string_view p);
const type* proto_letter_type(type_context& tc, char c);
value type_by_prototype(function_typer& ft, const intrinsic& self, call_args& c);
/// The float type real math computes `t` in: integers and bools in float64, float16 in float32.
const type* real_float(type_context& tc, const type* t);
/// The complex type holding `t`.
const type* complex_for(type_context& tc, const type* t);

}  // namespace cuforge::frontend::detail

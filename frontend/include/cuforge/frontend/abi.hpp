#pragma once

/// @file
/// The kernel parameter ABI: how a kernel's arguments reach it. Codegen reads
/// the parameters this way (codegen_expr.cpp, from_slots) and the launcher
/// packs them this way (jit/kernel_abi.hpp): the one description both use.
///
/// Every argument is flattened into 8-byte slots, in order:
/// - a scalar: one slot holding its bytes in the low-order bytes (bool as 0
///   or 1; float16 and float32 as their bit patterns; complex64 as two
///   float32s, the real part low); complex128 takes two slots (real, imag);
/// - an array of n dimensions: 1 + 2n slots: the data pointer, the n
///   extents, the n strides in bytes;
/// - a record: one slot, the address of its bytes in device memory;
/// - a tuple: its elements' slots in order; None: no slot.
/// A kernel that may raise (kernel_layout::error_record) takes one hidden
/// slot after its arguments' slots: the address of its launch's error record
/// (jit/error_record.hpp).
/// On the GPU each slot is a `.param .u64` of the kernel (so one packed
/// buffer of uint64 is the whole parameter block); on the cpu backend the
/// kernel is `void k(cuforge::cpu::thread_context*, void** params)` with
/// params[i] pointing at slot i.

#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuforge::frontend {

/// The number of 8-byte slots a value of type `t` takes.
CUFORGE_API std::size_t slot_count(const type* t);

/// A kernel's parameter block as a whole.
struct kernel_layout {
  std::size_t argument_slots = 0;  ///< the arguments' slots, in order
  bool error_record = false;       ///< one hidden slot after them: the error record's address

  std::size_t total_slots() const noexcept { return argument_slots + (error_record ? 1 : 0); }
  /// The hidden slot's position (meaningful when error_record is set).
  std::size_t error_record_slot() const noexcept { return argument_slots; }
};

/// The layout for arguments of `arg_types`, with or without the error record.
CUFORGE_API kernel_layout layout_of(const std::vector<const type*>& arg_types, bool error_record);

/// The most bytes of parameters a kernel may take (PTX ISA 7.8's limit).
inline constexpr std::size_t max_parameter_bytes = 4352;

// --- the error record ------------------------------------------------------------------

/// What a kernel reports through its error record, with the Python
/// exception the launcher raises for it: X(code, value, Python class).
#define CUFORGE_KERNEL_ERRORS(X)                                                   \
  X(none, 0, "")                                                                   \
  X(assertion, 1, "AssertionError")     /* a failed assert (debug=True) */         \
  X(raised, 2, "Exception")             /* a raise statement: the site names it */ \
  X(zero_division, 3, "ZeroDivisionError")                                         \
  X(index, 4, "IndexError")             /* an index out of bounds */             \
  X(axis, 5, "numpy.exceptions.AxisError") /* an axis= out of bounds (host code) */

enum class kernel_error : std::int32_t {
#define CUFORGE_KERNEL_ERROR_ENUM(name, value, python) name = value,
  CUFORGE_KERNEL_ERRORS(CUFORGE_KERNEL_ERROR_ENUM)
#undef CUFORGE_KERNEL_ERROR_ENUM
};

/// The Python exception class of a code ("AssertionError"); "" for none or an unknown code.
CUFORGE_API std::string_view python_exception_of(kernel_error e) noexcept;

/// The record a kernel that may raise writes when a thread raises: the
/// launch's first raising thread claims it (an atomic compare-and-swap of
/// `code` from 0), fills the rest, and exits; the launcher reads it after
/// the launch has completed. Laid out as codegen writes it: ten 32-bit
/// words, then two 64-bit ones (56 bytes).
struct kernel_error_record {
  std::int32_t code = 0;     ///< a kernel_error; 0 while nothing was raised
  std::int32_t site = 0;     ///< the raising site: an index into the module's raise_sites (its message)
  std::int32_t line = 0;     ///< the site's source line
  std::uint32_t block[3] = {0, 0, 0};   ///< blockIdx x, y, z of the raising thread
  std::uint32_t thread[3] = {0, 0, 0};  ///< threadIdx x, y, z
  std::int32_t axis = 0;     ///< an index error: the dimension indexed
  std::int64_t index = 0;    ///< an index error: the index as written (before a negative one wraps); an axis error: the axis
  std::int64_t extent = 0;   ///< an index error: the dimension's size; an axis error: the array's dimensions
};
static_assert(sizeof(kernel_error_record) == 56);
static_assert(offsetof(kernel_error_record, index) == 40);

/// One place in a kernel that may raise: what it raises and where.
struct raise_site {
  kernel_error code = kernel_error::none;
  std::string exception;  ///< the Python exception class raised ("AssertionError")
  std::string message;    ///< its message ("" when none)
  std::string function;   ///< the Python function it is in
  std::string filename;
  std::int32_t line = 0;
};

}  // namespace cuforge::frontend

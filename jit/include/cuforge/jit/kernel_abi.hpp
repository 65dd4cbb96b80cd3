#pragma once

/// @file
/// The launcher's half of the kernel parameter ABI (frontend/abi.hpp): a
/// kernel's arguments as the launcher holds them, and their packing into
/// 8-byte slots.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/frontend/abi.hpp>
#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace cuforge::jit {

/// A scalar argument's value, already of its type `ty` (the caller converts
/// a value given as another type, by NumPy's rules, before packing).
struct scalar_value {
  const frontend::type* ty = nullptr;
  std::int64_t i = 0;   ///< bool (0 or 1) and integers (uint64 as its bits)
  double f = 0;         ///< floats: float16 and float32 are rounded (to nearest, ties even) when packed
  double re = 0, im = 0;  ///< complex numbers
};

/// One kernel argument as the launcher holds it.
struct kernel_argument {
  enum class kind : std::uint8_t {
    device_array,  ///< an array in device memory: `borrowed`, or `owned` (a foreign array imported for the launch)
    host_array,    ///< host memory (`host`): copied to `owned` before the launch, back after it when written
    scalar,        ///< `scalar`
    tuple,         ///< `elements`
  };
  /// Which way a host array goes (cuda.In, cuda.Out, cuda.InOut): to the device before the launch,
  /// back after it, or both (the default, back only when the kernel may write it).
  enum class transfer : std::uint8_t { both, to_device, from_device };
  kind k = kind::scalar;
  transfer xfer = transfer::both;
  const frontend::type* ty = nullptr;  ///< the argument's own type (what specialisations are found by)
  const device_ndarray* borrowed = nullptr;
  device_ndarray owned;
  host_view host;
  scalar_value scalar;
  std::vector<kernel_argument> elements;
  /// The caller's own tag (the Python binding: the object a scalar came from, until it is converted).
  std::uintptr_t source = 0;

  const device_ndarray& array() const noexcept { return borrowed != nullptr ? *borrowed : owned; }
};

/// The compiler's type of an array element of dtype `d`: its scalar type,
/// or a record (in the global space) with its fields' types.
CUFORGE_API const frontend::type* element_type(frontend::type_context& tc, const dtype& d);

/// Appends `a`'s slots, packed as the parameter type `as` says: arrays as
/// their data pointer, extents and byte strides, scalars encoded in their
/// type (which must be `as`), tuples element by element.
/// @throws type_error when `a` does not have the shape `as` has.
CUFORGE_API void pack(const kernel_argument& a, const frontend::type* as, std::vector<std::uint64_t>& slots);

/// Writes `a`'s slots, packed as `pack` does, at the front of `out` and
/// returns how many it wrote (slot_count(as)): the launch path's form, with
/// no allocation. @throws type_error as `pack`, or when `out` is too short.
CUFORGE_API std::size_t pack_into(const kernel_argument& a, const frontend::type* as, std::span<std::uint64_t> out);

/// A scalar's slot(s) (complex128 takes two).
CUFORGE_API void pack_scalar(const scalar_value& v, std::vector<std::uint64_t>& slots);

/// IEEE half bits of `d`, rounded to nearest with ties to even (as NumPy's
/// float16(d)); overflow gives an infinity, nan stays nan.
CUFORGE_API std::uint16_t half_bits(double d) noexcept;

}  // namespace cuforge::jit

#pragma once

/// @file
/// `__cuda_array_interface__` (version 3), usable from C++ alone: the
/// fields of the interface as a struct, exported from a device array, and
/// validated and wrapped on import. The language binding turns the struct
/// into and out of its dictionary.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace cuforge::interop {

struct array_interface {
  std::uintptr_t data = 0;
  bool read_only = false;
  extents shape;
  std::optional<extents> strides;  ///< bytes; nullopt: C-contiguous
  std::string typestr;
  int version = 3;
  /// The stream consumers synchronise with: nullopt for none needed, 1 the
  /// legacy default stream, 2 the per-thread one, else a stream handle.
  std::optional<std::uintptr_t> stream;
  bool has_mask = false;
};

/// @brief The interface of `a`, with `stream` as the stream to
/// synchronise with (the array's bound stream, in the binding's hands).
/// @throws logic_error on the cpu backend: its device memory is host
///         memory, which CUDA consumers must not be handed.
CUFORGE_API array_interface export_interface(const device_ndarray& a, std::optional<std::uintptr_t> stream);

/// @brief A view over the memory an interface describes, without a copy.
/// Validates every field: version (0 to 3), mask (unsupported), typestr,
/// shape and strides (non-negative extents, strides in whole items), a null
/// pointer with elements, memory the device cannot address, and an extent
/// (negative strides included) that runs out of its allocation when the
/// backend knows the allocation. `release` runs once, when the last view
/// goes (it keeps the producer alive until then), or at once when the
/// import fails. The release waits for the work queued by then, unless
/// `prompt_release` (allocation::adopt's `prompt`).
/// @throws logic_error / type_error naming the field at fault. `release`
///         has run by then.
///
/// `producer_device`, when given: the caller read the interface from a
/// producer it knows (the binding's readers of CuPy and PyTorch arrays for
/// a kernel launch), whose memory is device memory of that device and whose
/// extent lies inside its own allocation. The driver is then not asked what
/// the pointer is (one driver call fewer per argument); every other field
/// is still validated.
CUFORGE_API device_ndarray import_interface(const array_interface& ai, std::function<void()> release,
                                            bool prompt_release = false,
                                            std::optional<int> producer_device = std::nullopt);

}  // namespace cuforge::interop

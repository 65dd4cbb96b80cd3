#pragma once

/// @file
/// DLPack export and import of device arrays, usable from C++ alone.
///
/// Export shares the array's memory: the managed tensor holds a reference
/// to the array's allocation until its deleter runs. Import takes ownership
/// of a managed tensor: its deleter runs exactly once, when the last view
/// of the imported array goes (or at once, when the import fails).

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/interop/dlpack_abi.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstdint>

namespace cuforge::interop {

/// @brief DLPack's device of an array: kDLCPU on the cpu backend; on the
/// cuda backend kDLCUDA (device memory), kDLCUDAHost (pinned, mapped,
/// registered host memory) or kDLCUDAManaged.
CUFORGE_API dlpack::DLDevice dlpack_device_of(const device_ndarray& a);

/// @brief Our dtype as DLPack's, and back.
/// @throws type_error for what device arrays cannot hold (bfloat16 and the
///         sub-byte and 8-bit float formats, vector lanes, opaque handles),
///         naming it.
CUFORGE_API dlpack::DLDataType to_dlpack_dtype(dtype t);
CUFORGE_API dtype from_dlpack_dtype(dlpack::DLDataType t);

/// @brief A new versioned managed tensor over `a`'s memory. `flags` adds to
/// the read-only flag, which follows `a.read_only()`.
/// @throws logic_error when a stride is not a whole number of items.
CUFORGE_API dlpack::DLManagedTensorVersioned* export_versioned(const device_ndarray& a, std::uint64_t flags = 0);

/// @brief A new legacy managed tensor over `a`'s memory.
/// @throws logic_error for a read-only array: the legacy struct cannot say
///         so, and a consumer could write to it.
CUFORGE_API dlpack::DLManagedTensor* export_legacy(const device_ndarray& a);

/// @brief An array over a managed tensor's memory, owning the tensor.
/// @param allow_host accept kDLCPU tensors on the cuda backend too, as an
///        array over pageable host memory (for a kernel argument, which is
///        then transferred like a NumPy array); on the cpu backend host
///        memory is device memory and they are always accepted.
/// @throws logic_error for a tensor the active backend cannot address (an
///         unknown major version, a device type or ordinal it does not
///         have, an extent outside the memory it lies in), type_error for
///         an unsupported dtype. The deleter has run by then.
CUFORGE_API device_ndarray import_versioned(dlpack::DLManagedTensorVersioned* t, bool allow_host = false);
CUFORGE_API device_ndarray import_legacy(dlpack::DLManagedTensor* t, bool allow_host = false);

}  // namespace cuforge::interop

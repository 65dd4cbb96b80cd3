#pragma once

/// @file
/// The DLPack ABI (version 1.1), written from the specification. The
/// structs are laid out exactly as the C header's, but live in our
/// namespace so that a program may also include another dlpack.h: convert
/// with reinterpret_cast at the boundary.

#include <cstddef>
#include <cstdint>

namespace cuforge::dlpack {

inline constexpr std::uint32_t major_version = 1;
inline constexpr std::uint32_t minor_version = 1;

struct DLPackVersion {
  std::uint32_t major;
  std::uint32_t minor;
};

enum DLDeviceType : std::int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
};

struct DLDevice {
  DLDeviceType device_type;
  std::int32_t device_id;
};

enum DLDataTypeCode : std::uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
  // 7 and up: the 8-, 6- and 4-bit float formats.
};

struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  ///< in elements; null means compact row-major
  std::uint64_t byte_offset;
};

/// The legacy (unversioned) exchange struct: capsule name "dltensor".
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

inline constexpr std::uint64_t flag_read_only = std::uint64_t{1} << 0;
inline constexpr std::uint64_t flag_is_copied = std::uint64_t{1} << 1;
inline constexpr std::uint64_t flag_is_subbyte_type_padded = std::uint64_t{1} << 2;

/// The versioned exchange struct (DLPack 1.x): capsule name
/// "dltensor_versioned". Everything up to `flags` stays put across major
/// versions, so the deleter of a tensor of an unknown major version can
/// still be called.
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  std::uint64_t flags;
  DLTensor dl_tensor;
};

// The ABI is the contract: pin the layout on the platforms we build for.
static_assert(sizeof(DLDevice) == 8);
static_assert(sizeof(DLDataType) == 4);
static_assert(sizeof(DLTensor) == 48);
static_assert(sizeof(DLManagedTensor) == 64);
static_assert(sizeof(DLManagedTensorVersioned) == 80);
static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32);

}  // namespace cuforge::dlpack

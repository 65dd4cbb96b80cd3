// DLPack export and import.
#include "extent.hpp"

#include <cuforge/interop/dlpack.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <atomic>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace cuforge::interop {

using namespace dlpack;

namespace {

// What an exported tensor owns: a reference to the memory, and the shape and
// strides arrays its DLTensor points at.
struct export_ctx {
  std::shared_ptr<memory::allocation> keep;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};

DLTensor describe(const device_ndarray& a, export_ctx& ctx) {
  auto item = static_cast<std::int64_t>(a.itemsize());
  ctx.keep = a.allocation();
  ctx.shape = a.shape();
  ctx.strides.resize(a.ndim());
  for (std::size_t i = 0; i < a.ndim(); ++i) {
    if (a.strides()[i] % item != 0)
      throw logic_error("DLPack export: stride " + std::to_string(a.strides()[i]) + " of axis " + std::to_string(i) +
                        " is not a whole number of " + std::to_string(item) + "-byte items");
    ctx.strides[i] = a.strides()[i] / item;
  }
  DLTensor t{};
  t.data = a.data();
  t.device = dlpack_device_of(a);
  t.ndim = static_cast<std::int32_t>(a.ndim());
  t.dtype = to_dlpack_dtype(a.type());
  t.shape = ctx.shape.data();
  t.strides = a.ndim() ? ctx.strides.data() : nullptr;
  t.byte_offset = 0;
  return t;
}

void delete_versioned(DLManagedTensorVersioned* t) noexcept {
  delete static_cast<export_ctx*>(t->manager_ctx);
  delete t;
}

void delete_legacy(DLManagedTensor* t) noexcept {
  delete static_cast<export_ctx*>(t->manager_ctx);
  delete t;
}

std::string device_name(DLDevice d) {
  switch (d.device_type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLCUDAManaged: return "kDLCUDAManaged";
    case kDLROCM: return "kDLROCM";
    case kDLROCMHost: return "kDLROCMHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLOneAPI: return "kDLOneAPI";
    default: return "device type " + std::to_string(static_cast<int>(d.device_type));
  }
}

// Runs a producer's deleter once, whichever of the owner or a failed import
// gets there first.
class deleter_once {
 public:
  explicit deleter_once(std::function<void()> fn) : fn_(std::move(fn)) {}
  void operator()() {
    if (!done_.exchange(true) && fn_) fn_();
  }

 private:
  std::atomic<bool> done_{false};
  std::function<void()> fn_;
};

device_ndarray import_tensor(const DLTensor& t, std::uint64_t flags, const std::shared_ptr<deleter_once>& release,
                             bool allow_host) {
  const bool cpu = active_traits().device_memory_is_host;
  memory_kind kind;
  int dev = 0;
  switch (t.device.device_type) {
    case kDLCPU:
      if (!cpu && !allow_host)
        throw logic_error("DLPack import: the tensor is in host memory (kDLCPU), which is not device memory on the "
                          "cuda backend; copy it with cuda.to_device()");
      kind = memory_kind::pageable;
      break;
    case kDLCUDA:
    case kDLCUDAManaged:
    case kDLCUDAHost:
      if (cpu)
        throw logic_error("DLPack import: the tensor is CUDA memory (" + device_name(t.device) +
                          "), but this process runs on the cpu backend (no GPU)");
      kind = t.device.device_type == kDLCUDA          ? memory_kind::device
             : t.device.device_type == kDLCUDAManaged ? memory_kind::managed
                                                      : memory_kind::pinned;
      dev = t.device.device_type == kDLCUDAHost ? device::current().ordinal() : t.device.device_id;
      if (dev < 0 || dev >= device::count())
        throw logic_error("DLPack import: the tensor is on CUDA device " + std::to_string(dev) + ", but there " +
                          (device::count() == 1 ? "is 1 device" : "are " + std::to_string(device::count()) + " devices"));
      break;
    default:
      throw logic_error("DLPack import: tensors on " + device_name(t.device) + " cannot be used here");
  }
  dtype type = from_dlpack_dtype(t.dtype);
  if (t.ndim < 0 || static_cast<std::size_t>(t.ndim) > max_ndim)
    throw logic_error("DLPack import: " + std::to_string(t.ndim) + " dimensions (at most 64 are supported)");
  if (t.ndim > 0 && !t.shape) throw logic_error("DLPack import: the tensor has dimensions but no shape");
  extents shape(t.shape, t.shape + t.ndim);
  std::int64_t n = element_count(shape);  // throws for negative extents
  extents strides;
  if (t.strides) {
    strides.resize(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (__builtin_mul_overflow(t.strides[i], static_cast<std::int64_t>(type.itemsize), &strides[i]))
        throw logic_error("DLPack import: stride " + std::to_string(t.strides[i]) + " overflows");
    }
  } else {
    strides = contiguous_strides(shape, type.itemsize, 'C');
  }
  if (n > 0 && !t.data) throw logic_error("DLPack import: the tensor has elements but a null data pointer");
  // The address as an integer: a byte_offset past the address space is refused below as memory
  // this process has not mapped, never formed as a pointer (that would be undefined behaviour).
  std::uintptr_t address = 0;
  if (__builtin_add_overflow(reinterpret_cast<std::uintptr_t>(t.data), t.byte_offset, &address))
    throw logic_error("DLPack import: the data pointer " + detail::hex(reinterpret_cast<std::uintptr_t>(t.data)) +
                      " plus byte_offset " + std::to_string(t.byte_offset) + " passes the end of the address space");
  auto* data = reinterpret_cast<char*>(address);
  auto [lo, hi] = detail::element_span("DLPack import", shape, strides, type.itemsize);
  std::optional<mem::allocation_info> range;
  if (hi > lo) range = mem::allocation_of(data);  // one look-up (one driver call on a GPU)
  const bool host = kind == memory_kind::pageable;
  if (host && !cpu && range && range->kind == memory_kind::device)
    throw logic_error("DLPack import: the tensor says it is in host memory (kDLCPU), but its data pointer " +
                      detail::hex(reinterpret_cast<std::uintptr_t>(data)) + " is device memory (of device " +
                      std::to_string(range->device) + ")");
  detail::check_inside_allocation("DLPack import", reinterpret_cast<std::uintptr_t>(data), lo, hi, range, host);
  auto alloc = memory::allocation::adopt(data + lo, static_cast<std::size_t>(hi - lo), kind, dev,
                                         [release] { (*release)(); }, kind == memory_kind::device ? nullptr : data + lo);
  device_ndarray a(std::move(alloc), -lo, std::move(shape), std::move(strides), type);
  return (flags & flag_read_only) ? a.as_read_only() : a;
}

template <class Managed>
device_ndarray import_managed(Managed* t, std::uint64_t flags, bool allow_host) {
  auto release = std::make_shared<deleter_once>([t] {
    if (t->deleter) t->deleter(t);
  });
  try {
    return import_tensor(t->dl_tensor, flags, release, allow_host);
  } catch (...) {
    (*release)();
    throw;
  }
}

}  // namespace

DLDevice dlpack_device_of(const device_ndarray& a) {
  if (active_traits().device_memory_is_host) return {kDLCPU, 0};
  memory_kind k = a.allocation() ? a.allocation()->kind() : memory_kind::device;
  switch (k) {
    case memory_kind::managed: return {kDLCUDAManaged, a.device()};
    case memory_kind::pinned:
    case memory_kind::mapped:
    case memory_kind::registered: return {kDLCUDAHost, 0};
    case memory_kind::pageable: return {kDLCPU, 0};
    case memory_kind::device: break;
  }
  return {kDLCUDA, a.device()};
}

// The scalar-type table's DLPack codes are DLPack's.
static_assert(info(scalar_id::bool_).dlpack_code == kDLBool && info(scalar_id::int8).dlpack_code == kDLInt &&
              info(scalar_id::uint8).dlpack_code == kDLUInt && info(scalar_id::float32).dlpack_code == kDLFloat &&
              info(scalar_id::complex64).dlpack_code == kDLComplex);

DLDataType to_dlpack_dtype(dtype t) {
  if (t.is_time())  // DLPack has no datetime: exporting the int64 counts would lose the type silently
    throw type_error("a " + t.name() + " array has no DLPack type (DLPack has no datetime64/timedelta64): "
                     "export a view of it as int64");
  const scalar_type_info& s = t.scalar();  // the table has each type's DLPack code
  return {static_cast<std::uint8_t>(s.dlpack_code), static_cast<std::uint8_t>(s.bits()), 1};
}

dtype from_dlpack_dtype(DLDataType t) {
  auto what = [&] {
    return "DLPack dtype (code " + std::to_string(t.code) + ", " + std::to_string(t.bits) + " bits, " +
           std::to_string(t.lanes) + " lanes)";
  };
  if (t.lanes != 1) throw type_error(what() + ": vector types are not supported in device arrays");
  // The scalar-type table says which (code, width) pairs are ours.
  bool known_code = false;
  for (const auto& s : scalar_types) {
    if (s.dlpack_code != t.code) continue;
    known_code = true;
    if (s.bits() == t.bits) return dtype(s.id);
  }
  if (known_code)
    throw type_error(what() + (t.code == kDLBool ? std::string(": booleans must be 8 bits") : ": that width is not supported"));
  switch (t.code) {
    case kDLBfloat:
      throw type_error(what() + ": bfloat16 is not supported in device arrays yet (NumPy has no bfloat16 dtype); "
                                "view the data as uint16 on the producer's side to move it");
    case kDLOpaqueHandle: throw type_error(what() + ": opaque handles are not array data");
    default:
      // Codes 7 to 17 are the 8-, 6- and 4-bit float formats of DLPack 1.1.
      if (t.code <= 17) throw type_error(what() + ": 8-, 6- and 4-bit float formats are not supported in device arrays");
      throw type_error(what() + ": an unknown DLPack type code");
  }
}

DLManagedTensorVersioned* export_versioned(const device_ndarray& a, std::uint64_t flags) {
  auto ctx = std::make_unique<export_ctx>();
  DLTensor t = describe(a, *ctx);
  auto* m = new DLManagedTensorVersioned{};
  m->version = {major_version, minor_version};
  m->flags = flags | (a.read_only() ? flag_read_only : 0);
  m->dl_tensor = t;
  m->deleter = &delete_versioned;
  m->manager_ctx = ctx.release();
  return m;
}

DLManagedTensor* export_legacy(const device_ndarray& a) {
  if (a.read_only())
    throw logic_error("DLPack export: a read-only array cannot go out as a legacy (unversioned) tensor, which "
                      "cannot say it is read-only; ask for max_version >= (1, 0)");
  auto ctx = std::make_unique<export_ctx>();
  DLTensor t = describe(a, *ctx);
  auto* m = new DLManagedTensor{};
  m->dl_tensor = t;
  m->deleter = &delete_legacy;
  m->manager_ctx = ctx.release();
  return m;
}

device_ndarray import_versioned(DLManagedTensorVersioned* t, bool allow_host) {
  CUFORGE_EXPECTS(t != nullptr, "DLPack import of a null tensor");
  if (t->version.major != major_version) {
    // Only the fields up to `flags` may be read: the deleter is one of them.
    auto major = t->version.major;
    if (t->deleter) t->deleter(t);
    throw logic_error("DLPack import: the tensor is of DLPack major version " + std::to_string(major) +
                      "; cuforge reads major version " + std::to_string(major_version));
  }
  return import_managed(t, t->flags, allow_host);
}

device_ndarray import_legacy(DLManagedTensor* t, bool allow_host) {
  CUFORGE_EXPECTS(t != nullptr, "DLPack import of a null tensor");
  return import_managed(t, 0, allow_host);
}

}  // namespace cuforge::interop

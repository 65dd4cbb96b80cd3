// __cuda_array_interface__ export and import.
#include <cuforge/interop/cuda_array_interface.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <utility>

namespace cuforge::interop {

namespace {
std::string hex(std::uintptr_t p) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%zx", static_cast<std::size_t>(p));
  return buf;
}
}  // namespace

array_interface export_interface(const device_ndarray& a, std::optional<std::uintptr_t> stream) {
  if (active_backend() == backend_kind::cpu)
    throw logic_error("__cuda_array_interface__ is not offered on the cpu backend: its device memory is host memory, "
                      "which CUDA consumers must not be handed (use __dlpack__, which says kDLCPU, or copy_to_host())");
  array_interface ai;
  ai.data = reinterpret_cast<std::uintptr_t>(a.data());
  ai.read_only = a.read_only();
  ai.shape = a.shape();
  if (!a.is_c_contiguous()) ai.strides = a.strides();
  ai.typestr = a.type().typestr();
  ai.version = 3;
  ai.stream = stream;
  return ai;
}

device_ndarray import_interface(const array_interface& ai, std::function<void()> release) {
  // A failed import lets go of the producer at once, as a failed DLPack import
  // runs its deleter: the binding's release drops the reference it took.
  struct release_unless_adopted {
    std::function<void()>& fn;
    ~release_unless_adopted() {
      if (!fn) return;
      try {
        fn();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "cuforge: releasing a refused __cuda_array_interface__ producer failed: %s\n", e.what());
      }
    }
  } on_failure{release};
  const char* who = "__cuda_array_interface__";
  if (ai.version < 0 || ai.version > 3)
    throw logic_error(std::string(who) + ": version " + std::to_string(ai.version) +
                      " is not supported (cuforge reads versions 0 to 3)");
  if (ai.has_mask) throw logic_error(std::string(who) + ": masked arrays (a 'mask' entry) are not supported");
  dtype type;
  try {
    type = dtype::from_typestr(ai.typestr);
  } catch (const type_error& e) {
    throw type_error(std::string(who) + ": 'typestr' " + e.what());  // name the field, not only the value
  }
  if (ai.shape.size() > max_ndim)
    throw logic_error(std::string(who) + ": " + std::to_string(ai.shape.size()) + " dimensions (at most 64)");
  std::int64_t n = element_count(ai.shape);  // throws for negative extents
  extents strides;
  if (ai.strides) {
    if (ai.strides->size() != ai.shape.size())
      throw logic_error(std::string(who) + ": 'strides' has " + std::to_string(ai.strides->size()) +
                        " entries but 'shape' has " + std::to_string(ai.shape.size()));
    for (auto s : *ai.strides)
      if (s % static_cast<std::int64_t>(type.itemsize) != 0)
        throw logic_error(std::string(who) + ": stride " + std::to_string(s) + " is not a whole number of " +
                          std::to_string(type.itemsize) + "-byte items");
    strides = *ai.strides;
  } else {
    strides = contiguous_strides(ai.shape, type.itemsize, 'C');
  }
  if (n > 0 && ai.data == 0)
    throw logic_error(std::string(who) + ": the data pointer is null but the array has " + std::to_string(n) +
                      " elements");
  std::int64_t lo = 0, hi = n ? type.itemsize : 0;
  for (std::size_t i = 0; n && i < ai.shape.size(); ++i) {
    std::int64_t reach = 0;
    if (__builtin_mul_overflow(ai.shape[i] - 1, strides[i], &reach) ||
        __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))
      throw logic_error(std::string(who) + ": the array's extent overflows 64 bits");
  }
  memory_kind kind = memory_kind::device;
  if (n > 0) {
    auto* p = reinterpret_cast<const void*>(ai.data);
    kind = mem::kind_of(p);
    if (kind == memory_kind::pageable && active_backend() == backend_kind::cuda)
      throw logic_error(std::string(who) + ": the data pointer " + hex(ai.data) +
                        " is not memory the device can address (a host pointer?)");
    if (auto range = mem::range_of(p)) {
      auto start = reinterpret_cast<std::uintptr_t>(range->first), end = start + range->second;
      auto first = static_cast<std::int64_t>(ai.data - start) + lo;
      if (first < 0 || ai.data + static_cast<std::uintptr_t>(hi) > end)
        throw logic_error(std::string(who) + ": the array's elements reach outside its allocation (bytes [" +
                          std::to_string(lo) + ", " + std::to_string(hi) + ") around " + hex(ai.data) +
                          ", in an allocation of " + std::to_string(range->second) + " bytes at " + hex(start) + ")");
    }
  }
  auto* base = reinterpret_cast<char*>(ai.data) + lo;
  auto alloc = memory::allocation::adopt(base, static_cast<std::size_t>(hi - lo), kind, device::current().ordinal(),
                                         std::exchange(release, nullptr), kind == memory_kind::device ? nullptr : base);
  device_ndarray a(std::move(alloc), -lo, ai.shape, std::move(strides), type);
  return ai.read_only ? a.as_read_only() : a;
}

}  // namespace cuforge::interop

// __cuda_array_interface__ export and import.
#include "extent.hpp"

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


array_interface export_interface(const device_ndarray& a, std::optional<std::uintptr_t> stream) {
  if (active_traits().device_memory_is_host)
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

device_ndarray import_interface(const array_interface& ai, std::function<void()> release, bool prompt_release,
                                std::optional<int> producer_device) {
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
  auto [lo, hi] = detail::element_span(who, ai.shape, strides, type.itemsize);
  memory_kind kind = memory_kind::device;
  // The array lives on the device its memory belongs to; host memory any
  // device reaches (and memory the runtime does not know) goes with the
  // current one, as Numba takes it.
  int dev = producer_device ? *producer_device : device::current().ordinal();
  if (n > 0 && !producer_device) {
    auto* p = reinterpret_cast<const void*>(ai.data);
    // One look-up (one driver call on a GPU) for the kind, the range and
    // the owner; memory it does not know asks kind_of, as before.
    auto range = mem::allocation_of(p);
    kind = range ? range->kind : mem::kind_of(p);
    if (kind == memory_kind::pageable && !active_traits().device_memory_is_host)
      throw logic_error(std::string(who) + ": the data pointer " + detail::hex(ai.data) +
                        " is not memory the device can address (a host pointer?)");
    if (int owner = detail::check_inside_allocation(who, ai.data, lo, hi, range); owner >= 0) dev = owner;
  }
  auto* base = reinterpret_cast<char*>(ai.data) + lo;
  auto alloc = memory::allocation::adopt(base, static_cast<std::size_t>(hi - lo), kind, dev,
                                         std::exchange(release, nullptr), kind == memory_kind::device ? nullptr : base,
                                         prompt_release);
  device_ndarray a(std::move(alloc), -lo, ai.shape, std::move(strides), type);
  return ai.read_only ? a.as_read_only() : a;
}

}  // namespace cuforge::interop

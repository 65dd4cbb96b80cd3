#include <cuforge/memory/managed_memory_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

namespace cuforge::memory {

managed_memory_resource::managed_memory_resource(int device)
    : device_(device < 0 ? cuforge::device::current().ordinal() : cuforge::device::get(device).ordinal()) {}

void* managed_memory_resource::do_allocate(std::size_t bytes, stream_view) {
  return mem::alloc_managed(bytes, device_);
}

void managed_memory_resource::do_deallocate(void* p, std::size_t, stream_view) noexcept { mem::free_managed(p); }

}  // namespace cuforge::memory

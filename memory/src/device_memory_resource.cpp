#include <cuforge/memory/device_memory_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

namespace cuforge::memory {

device_memory_resource::device_memory_resource(int device) : device_(cuforge::device::get(device < 0 ? cuforge::device::current().ordinal() : device).ordinal()) {}

void* device_memory_resource::do_allocate(std::size_t bytes, stream_view) {
  return mem::alloc_device(bytes, device_);
}

void device_memory_resource::do_deallocate(void* p, std::size_t, stream_view) noexcept {
  mem::free_device(p, device_);
}

}  // namespace cuforge::memory

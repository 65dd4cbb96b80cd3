#include <cuforge/memory/pinned_memory_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

namespace cuforge::memory {

pinned_memory_resource::pinned_memory_resource(bool mapped)
    : mapped_(mapped), device_(cuforge::device::current().ordinal()) {}

void* pinned_memory_resource::do_allocate(std::size_t bytes, stream_view) {
  return mem::alloc_pinned(bytes, mapped_);
}

void pinned_memory_resource::do_deallocate(void* p, std::size_t, stream_view) noexcept { mem::free_pinned(p); }

}  // namespace cuforge::memory

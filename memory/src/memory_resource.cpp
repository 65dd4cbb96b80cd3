#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

namespace cuforge::memory {

void* memory_resource::allocate(std::size_t bytes, stream_view stream) {
  if (bytes == 0) return nullptr;
  return do_allocate(bytes, stream);
}

void memory_resource::deallocate(void* p, std::size_t bytes, stream_view stream) noexcept {
  if (p) do_deallocate(p, bytes, stream);
}

}  // namespace cuforge::memory

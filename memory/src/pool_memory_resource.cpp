#include <cuforge/memory/pool_memory_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <cstdio>
#include <limits>

namespace cuforge::memory {

pool_memory_resource::pool_memory_resource(int device)
    : device_(device < 0 ? cuforge::device::current().ordinal() : cuforge::device::get(device).ordinal()) {
  if (!mem::pools_supported(device_))
    throw logic_error("device " + std::to_string(device_) + " does not support stream-ordered memory pools");
  // Keep freed memory cached across synchronisations: handing it back to the
  // system at every sync would make small allocations cost a driver call.
  mem::pool_set_release_threshold(device_, std::numeric_limits<std::uint64_t>::max());
}

namespace {
// A default stream names no device: the resource's own device's is meant.
stream_view on_device(stream_view s, int device) {
  if (s.is_legacy_default()) return stream_view::legacy_default(device);
  if (s.is_per_thread_default()) return stream_view::per_thread_default(device);
  return s;
}
}  // namespace

void* pool_memory_resource::do_allocate(std::size_t bytes, stream_view stream) {
  stream = on_device(stream, device_);
  if (stream.device() != device_)
    throw logic_error("the pool of device " + std::to_string(device_) + " cannot allocate on a stream of device " +
                      std::to_string(stream.device()));
  return mem::alloc_async(bytes, stream);
}

void pool_memory_resource::do_deallocate(void* p, std::size_t, stream_view stream) noexcept {
  try {
    mem::free_async(p, on_device(stream, device_));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuforge: freeing pool memory failed: %s\n", e.what());
  }
}

void pool_memory_resource::trim(std::size_t keep) { mem::pool_trim(device_, keep); }

}  // namespace cuforge::memory

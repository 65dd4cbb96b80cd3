#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace cuforge::memory {

void* memory_resource::allocate(std::size_t bytes, stream_view stream) {
  if (bytes == 0) return nullptr;
  return do_allocate(bytes, stream);
}

void memory_resource::deallocate(void* p, std::size_t bytes, stream_view stream) noexcept {
  if (p) do_deallocate(p, bytes, stream);
}

// --- device ----------------------------------------------------------------

device_memory_resource::device_memory_resource(int device) : device_(cuforge::device::get(device < 0 ? cuforge::device::current().ordinal() : device).ordinal()) {}

void* device_memory_resource::do_allocate(std::size_t bytes, stream_view) {
  return mem::alloc_device(bytes, device_);
}

void device_memory_resource::do_deallocate(void* p, std::size_t, stream_view) noexcept {
  mem::free_device(p, device_);
}

// --- pool ------------------------------------------------------------------

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

// --- pinned / mapped ---------------------------------------------------------

pinned_memory_resource::pinned_memory_resource(bool mapped)
    : mapped_(mapped), device_(cuforge::device::current().ordinal()) {}

void* pinned_memory_resource::do_allocate(std::size_t bytes, stream_view) {
  return mem::alloc_pinned(bytes, mapped_);
}

void pinned_memory_resource::do_deallocate(void* p, std::size_t, stream_view) noexcept { mem::free_pinned(p); }

// --- managed -----------------------------------------------------------------

managed_memory_resource::managed_memory_resource(int device)
    : device_(device < 0 ? cuforge::device::current().ordinal() : cuforge::device::get(device).ordinal()) {}

void* managed_memory_resource::do_allocate(std::size_t bytes, stream_view) {
  return mem::alloc_managed(bytes, device_);
}

void managed_memory_resource::do_deallocate(void* p, std::size_t, stream_view) noexcept { mem::free_managed(p); }

// --- statistics ----------------------------------------------------------------

statistics_resource_adaptor::statistics_resource_adaptor(std::shared_ptr<memory_resource> upstream)
    : upstream_(std::move(upstream)) {
  CUFORGE_EXPECTS(upstream_ != nullptr, "statistics_resource_adaptor needs an upstream resource");
}

statistics_resource_adaptor::counters statistics_resource_adaptor::stats() const {
  std::lock_guard lock(m_);
  return c_;
}

void* statistics_resource_adaptor::do_allocate(std::size_t bytes, stream_view stream) {
  void* p = upstream_->allocate(bytes, stream);
  std::lock_guard lock(m_);
  c_.current_bytes += bytes;
  c_.total_bytes += bytes;
  c_.peak_bytes = std::max(c_.peak_bytes, c_.current_bytes);
  ++c_.current_count;
  ++c_.total_count;
  c_.peak_count = std::max(c_.peak_count, c_.current_count);
  return p;
}

void statistics_resource_adaptor::do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept {
  upstream_->deallocate(p, bytes, stream);
  std::lock_guard lock(m_);
  c_.current_bytes -= bytes;
  --c_.current_count;
}

// --- the current resources ------------------------------------------------------

namespace {

struct registry {
  std::mutex m;
  std::vector<std::shared_ptr<memory_resource>> device;  // by ordinal; null = default
  std::vector<std::shared_ptr<memory_resource>> managed;
  std::shared_ptr<memory_resource> pinned, mapped;
};

registry& reg() {
  static registry* r = new registry;  // outlives every static owner of memory
  return *r;
}

std::shared_ptr<memory_resource> make_default(int dev) {
  const char* env = std::getenv("CUFORGE_MEMORY_RESOURCE");
  std::string want = env && *env ? env : "";
  if (want == "device") return std::make_shared<device_memory_resource>(dev);
  if (want == "pool") return std::make_shared<pool_memory_resource>(dev);
  if (!want.empty()) throw logic_error("CUFORGE_MEMORY_RESOURCE='" + want + "' is not one of device, pool");
  if (mem::pools_supported(dev)) return std::make_shared<pool_memory_resource>(dev);
  return std::make_shared<device_memory_resource>(dev);
}

int ordinal(int device) {
  return device < 0 ? cuforge::device::current().ordinal() : cuforge::device::get(device).ordinal();
}

}  // namespace

std::shared_ptr<memory_resource> current_resource(int device) {
  int dev = ordinal(device);
  auto& r = reg();
  std::lock_guard lock(r.m);
  if (r.device.size() <= static_cast<std::size_t>(dev)) r.device.resize(dev + 1);
  auto& slot = r.device[dev];
  if (!slot) slot = make_default(dev);
  return slot;
}

void set_current_resource(std::shared_ptr<memory_resource> mr, int device) {
  int dev = ordinal(device);
  if (mr && mr->device() != dev && mr->kind() == memory_kind::device)
    throw logic_error("a resource for device " + std::to_string(mr->device()) + " cannot serve device " +
                      std::to_string(dev));
  auto& r = reg();
  std::lock_guard lock(r.m);
  if (r.device.size() <= static_cast<std::size_t>(dev)) r.device.resize(dev + 1);
  r.device[dev] = std::move(mr);
}

std::shared_ptr<memory_resource> pinned_resource() {
  auto& r = reg();
  std::lock_guard lock(r.m);
  if (!r.pinned) r.pinned = std::make_shared<pinned_memory_resource>(false);
  return r.pinned;
}

std::shared_ptr<memory_resource> mapped_resource() {
  auto& r = reg();
  std::lock_guard lock(r.m);
  if (!r.mapped) r.mapped = std::make_shared<pinned_memory_resource>(true);
  return r.mapped;
}

std::shared_ptr<memory_resource> managed_resource(int device) {
  int dev = ordinal(device);
  auto& r = reg();
  std::lock_guard lock(r.m);
  if (r.managed.size() <= static_cast<std::size_t>(dev)) r.managed.resize(dev + 1);
  auto& slot = r.managed[dev];
  if (!slot) slot = std::make_shared<managed_memory_resource>(dev);
  return slot;
}

}  // namespace cuforge::memory

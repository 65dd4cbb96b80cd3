#include <cuforge/memory/current_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/memory/device_memory_resource.hpp>
#include <cuforge/memory/managed_memory_resource.hpp>
#include <cuforge/memory/pinned_memory_resource.hpp>
#include <cuforge/memory/pool_memory_resource.hpp>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace cuforge::memory {

namespace {

struct registry {
  std::mutex m;
  std::vector<std::shared_ptr<memory_resource>> device;  // by ordinal; null = default
  std::vector<std::shared_ptr<memory_resource>> defaults;  // the default of each, made once
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

// Device `dev`'s default resource, made once. Called with r.m held.
const std::shared_ptr<memory_resource>& default_of(registry& r, int dev) {
  if (r.defaults.size() <= static_cast<std::size_t>(dev)) r.defaults.resize(dev + 1);
  auto& slot = r.defaults[dev];
  if (!slot) slot = make_default(dev);
  return slot;
}

}  // namespace

std::shared_ptr<memory_resource> current_resource(int device) {
  int dev = ordinal(device);
  auto& r = reg();
  std::lock_guard lock(r.m);
  if (r.device.size() <= static_cast<std::size_t>(dev)) r.device.resize(dev + 1);
  auto& slot = r.device[dev];
  if (!slot) slot = default_of(r, dev);
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

namespace {
// One of the shared host slots, replaced by a resource of its kind (or reset).
void set_host_slot(std::shared_ptr<memory_resource> registry::*slot, memory_kind kind,
                   std::shared_ptr<memory_resource> mr) {
  if (mr && mr->kind() != kind)
    throw logic_error(std::string("the ") + to_string(kind) + " resource must allocate " + to_string(kind) +
                      " memory, not " + to_string(mr->kind()));
  auto& r = reg();
  std::lock_guard lock(r.m);
  r.*slot = std::move(mr);
}
}  // namespace

void set_pinned_resource(std::shared_ptr<memory_resource> mr) {
  set_host_slot(&registry::pinned, memory_kind::pinned, std::move(mr));
}

void set_mapped_resource(std::shared_ptr<memory_resource> mr) {
  set_host_slot(&registry::mapped, memory_kind::mapped, std::move(mr));
}

std::shared_ptr<memory_resource> default_resource(int device) {
  int dev = ordinal(device);
  auto& r = reg();
  std::lock_guard lock(r.m);
  return default_of(r, dev);
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

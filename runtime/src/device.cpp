// Devices, the per-thread current device, close() and its generation.
#include "status.hpp"

#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>

#include <atomic>
#include <string>

namespace cuforge {
namespace {
thread_local int current_ordinal = -1;  // -1: not chosen yet, means device 0
thread_local bool in_callback = false;
std::atomic<std::uint64_t> generation{1};
}  // namespace

namespace detail {
callback_scope::callback_scope() noexcept : previous_(in_callback) { in_callback = true; }
callback_scope::~callback_scope() { in_callback = previous_; }

int resolve_device(int dev) {
  if (dev < 0) dev = current_ordinal < 0 ? 0 : current_ordinal;
  int n = active().device_count();
  if (dev >= n)
    raise(CUDA_ERROR_INVALID_DEVICE,
          "device " + std::to_string(dev) + " does not exist (" + std::to_string(n) +
              " device(s) on the " + std::string(to_string(active().kind())) + " backend)",
          "device lookup");
  return dev;
}
}  // namespace detail

int device::count() { return detail::active().device_count(); }

device device::get(int ordinal) {
  int n = count();
  if (ordinal < 0 || ordinal >= n)
    throw logic_error("device ordinal " + std::to_string(ordinal) + " is out of range: there " +
                      (n == 1 ? "is 1 device" : "are " + std::to_string(n) + " devices"));
  return device(ordinal);
}

device device::current() { return device(detail::resolve_device(-1)); }

std::vector<device> device::all() {
  std::vector<device> out;
  for (int i = 0, n = count(); i < n; ++i) out.push_back(device(i));
  return out;
}

std::string device::name() const { return detail::active().properties(ordinal_).name; }
compute_capability device::cc() const { return detail::active().properties(ordinal_).cc; }
int device::attribute(device_attribute attr) const { return attribute(static_cast<int>(attr)); }
int device::attribute(int cu_attr) const { return detail::active().attribute(ordinal_, cu_attr); }
std::size_t device::total_memory() const { return detail::active().properties(ordinal_).total_memory; }
memory_info device::memory() const { return detail::active().mem_info(ordinal_); }
std::string device::uuid() const { return detail::active().properties(ordinal_).uuid; }
std::string device::pci_bus_id() const { return detail::active().properties(ordinal_).pci_bus_id; }

void device::make_current() const {
  detail::active().activate(ordinal_);
  current_ordinal = ordinal_;
}

void device::synchronize() const {
  detail::refuse_wait_in_callback("device synchronize");
  detail::active().device_synchronize(ordinal_);
}

std::optional<bool> device::idle() const { return detail::active().device_idle(ordinal_); }

void synchronize() { device::current().synchronize(); }

void close() {
  generation.fetch_add(1, std::memory_order_acq_rel);
  detail::active().close_all();
}

bool close_releases_memory() { return detail::active().close_frees_memory(); }

std::uint64_t context_generation() noexcept { return generation.load(std::memory_order_acquire); }

void check_generation(std::uint64_t gen, const char* what) {
  if (gen != generation.load(std::memory_order_acquire)) [[unlikely]]
    detail::raise(CUDA_ERROR_CONTEXT_IS_DESTROYED,
                  std::string("this ") + what +
                      " belongs to a context that was closed (cuforge close() / cuda.close()); "
                      "make a new one",
                  what);
}

bool on_callback_thread() noexcept { return in_callback; }

void detail::refuse_wait_in_callback(const char* what) {
  if (!in_callback) return;
  detail::raise(CUDA_ERROR_NOT_PERMITTED,
                std::string(what) + " inside a stream callback would wait for the callback itself; a callback "
                "may not synchronize, wait for an event or copy synchronously: queue that work from the thread "
                "that added the callback",
                what);
}

void profiler_start() { detail::active().profiler_start(); }
void profiler_stop() { detail::active().profiler_stop(); }

}  // namespace cuforge

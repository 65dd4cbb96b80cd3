#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/memory/pool_memory_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <array>
#include <atomic>
#include <cstdio>

namespace cuforge::memory {

namespace {
std::array<std::atomic<std::size_t>, 6>& live_counts() {
  static auto* counts = new std::array<std::atomic<std::size_t>, 6>{};  // outlives static owners
  return *counts;
}
}  // namespace

std::size_t allocation::live(memory_kind kind) noexcept {
  return live_counts()[static_cast<std::size_t>(kind)].load(std::memory_order_relaxed);
}

std::shared_ptr<allocation> allocation::make(std::shared_ptr<memory_resource> mr, std::size_t bytes,
                                             stream_view stream) {
  CUFORGE_EXPECTS(mr != nullptr, "allocation needs a memory resource");
  std::shared_ptr<allocation> a(new allocation);
  a->bytes_ = bytes;
  a->kind_ = mr->kind();
  a->device_ = mr->device();
  a->stream_ = stream;
  a->generation_ = context_generation();
  try {
    a->data_ = mr->allocate(bytes, stream);
  } catch (const out_of_memory&) {
    // Memory that is only waiting to be freed, or cached by the pool, may be
    // what stands between us and success: let it go, then try once more.
    deallocation_queue::instance().flush_forced();
    if (auto* pool = dynamic_cast<pool_memory_resource*>(mr.get())) pool->trim(0);
    a->data_ = mr->allocate(bytes, stream);
  }
  if (a->data_) {
    a->counted_ = true;
    live_counts()[static_cast<std::size_t>(a->kind_)].fetch_add(1, std::memory_order_relaxed);
  }
  switch (a->kind_) {
    case memory_kind::mapped:
      a->host_data_ = a->data_;
      a->data_ = a->data_ ? mem::device_pointer_of_mapped(a->data_) : nullptr;
      break;
    case memory_kind::pinned:
    case memory_kind::managed:
      a->host_data_ = a->data_;
      break;
    default:
      break;
  }
  a->mr_ = std::move(mr);
  return a;
}

std::shared_ptr<allocation> allocation::device(std::size_t bytes, stream_view stream) {
  return make(current_resource(stream.device()), bytes, stream);
}

std::shared_ptr<allocation> allocation::adopt(void* data, std::size_t bytes, memory_kind kind, int device,
                                              std::function<void()> release, void* host_data, bool prompt) {
  std::shared_ptr<allocation> a(new allocation);
  a->data_ = data;
  a->host_data_ = host_data;
  a->bytes_ = bytes;
  a->kind_ = kind;
  a->device_ = device;
  a->generation_ = context_generation();
  a->release_ = std::move(release);
  a->prompt_release_ = prompt;
  return a;
}

std::shared_ptr<allocation> allocation::register_host(void* host, std::size_t bytes, bool mapped) {
  mem::host_register(host, bytes, mapped);
  void* data = host;
  try {
    if (mapped) data = mem::device_pointer_of_mapped(host);
  } catch (...) {
    mem::host_unregister(host);
    throw;
  }
  auto gen = context_generation();
  return adopt(data, bytes, memory_kind::registered, device::current().ordinal(),
               [host, gen] {
                 if (gen == context_generation() || !close_releases_memory())
                   mem::host_unregister(host);
               },
               host);
}

allocation::~allocation() {
  if (counted_) live_counts()[static_cast<std::size_t>(kind_)].fetch_sub(1, std::memory_order_relaxed);
  if (release_) {
    // Registered host memory is the caller's: unregistering at once lets it
    // be registered again right away (cuda.pinned() scopes in a loop). A
    // prompt release's owner orders reuse after our work itself.
    if (kind_ == memory_kind::registered || prompt_release_) {
      try {
        release_();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "cuforge: releasing %s memory failed: %s\n",
                     kind_ == memory_kind::registered ? "registered" : "foreign", e.what());
      }
      return;
    }
    // Foreign memory may still be in use by queued work: it waits its turn.
    deallocation_queue::instance().push(std::move(release_), bytes_, device_);
    return;
  }
  // After close() on a backend whose contexts took their memory with them,
  // the address may already belong to a new allocation: never free it.
  if (!mr_ || !data_ || (generation_ != context_generation() && close_releases_memory())) return;
  void* p = kind_ == memory_kind::mapped ? host_data_ : data_;
  deallocation_queue::instance().push(
      [mr = std::move(mr_), p, bytes = bytes_, gen = generation_] {
        if (gen != context_generation() && close_releases_memory()) return;
        // The queue waited for the device first, so no stream order is
        // needed: the legacy default stream is always alive.
        mr->deallocate(p, bytes, stream_view{});
      },
      bytes_, device_);
}

}  // namespace cuforge::memory

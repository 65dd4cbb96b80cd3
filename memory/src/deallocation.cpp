#include <cuforge/memory/deallocation.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cuforge::memory {

namespace {
std::size_t env_count() {
  const char* v = std::getenv("CUFORGE_DEALLOCS_COUNT");
  if (!v || !*v) return 10;
  long n = std::atol(v);
  return n < 0 ? 0 : static_cast<std::size_t>(n);
}
double env_ratio() {
  const char* v = std::getenv("CUFORGE_DEALLOCS_RATIO");
  if (!v || !*v) return 0.2;
  double r = std::atof(v);
  return r < 0 ? 0 : r;
}
}  // namespace

deallocation_queue& deallocation_queue::instance() {
  // Leaked: owners released during static destruction still find it.
  static deallocation_queue* q = new deallocation_queue;
  return *q;
}

// The size threshold needs the device's memory, so it is read at the first
// free: making the queue (a binding installing its hook at import, say) must
// not select the backend.
deallocation_queue::deallocation_queue() : max_count_(env_count()), max_bytes_(0) {}

std::size_t deallocation_queue::byte_threshold() {
  // Called with m_ held.
  if (max_bytes_ == 0)
    max_bytes_ = std::max<std::size_t>(
        1, static_cast<std::size_t>(env_ratio() * static_cast<double>(device::get(0).total_memory())));
  return max_bytes_;
}

std::vector<deallocation_queue::entry> deallocation_queue::take_if(bool force) {
  // Called with m_ held.
  std::vector<entry> batch;
  if (on_callback_thread()) return batch;  // cannot wait for the device here
  if (!force && defer_depth_ > 0) return batch;
  batch.swap(pending_);
  bytes_ = 0;
  return batch;
}

void deallocation_queue::push(std::function<void()> release, std::size_t bytes, int device) {
  std::vector<entry> batch;
  {
    std::lock_guard lock(m_);
    pending_.push_back({std::move(release), device});
    bytes_ += bytes;
    if (pending_.size() < max_count_ && bytes_ < byte_threshold()) return;
    batch = take_if(false);
  }
  run(std::move(batch));
}

// A release may queue more (a foreign tensor's deleter dropping the last
// owner of memory we exported): a flush goes on until nothing is left.
void deallocation_queue::drain(bool force) {
  for (;;) {
    std::vector<entry> batch;
    {
      std::lock_guard lock(m_);
      batch = take_if(force);
    }
    if (batch.empty()) return;
    run(std::move(batch));
  }
}

void deallocation_queue::flush() { drain(false); }
void deallocation_queue::flush_forced() { drain(true); }

void deallocation_queue::run(std::vector<entry> batch) noexcept {
  if (batch.empty()) return;
  // One wait per device the batch touches, then every free at once.
  std::vector<int> devices;
  for (auto& e : batch)
    if (e.device >= 0 && std::find(devices.begin(), devices.end(), e.device) == devices.end())
      devices.push_back(e.device);
  auto wait = [&] {
    for (int d : devices) {
      try {
        device::get(d).synchronize();
      } catch (const std::exception& e) {
        // The work failed, but it is over: the memory is free to go.
        std::fprintf(stderr, "cuforge: while freeing memory, device %d reported: %s\n", d, e.what());
      }
    }
  };
  std::function<void(const std::function<void()>&)> hook;
  {
    std::lock_guard lock(m_);
    hook = wait_hook_;
  }
  if (devices.empty()) {
  } else if (hook) {
    try {
      hook(wait);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuforge: the deallocation wait hook failed: %s\n", e.what());
      wait();
    }
  } else {
    wait();
  }
  for (auto& e : batch) {
    try {
      e.release();
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "cuforge: a deferred deallocation failed: %s\n", ex.what());
    }
  }
}

std::size_t deallocation_queue::pending_count() const {
  std::lock_guard lock(m_);
  return pending_.size();
}

std::size_t deallocation_queue::pending_bytes() const {
  std::lock_guard lock(m_);
  return bytes_;
}

bool deallocation_queue::deferring() const {
  std::lock_guard lock(m_);
  return defer_depth_ > 0;
}

void deallocation_queue::set_wait_hook(std::function<void(const std::function<void()>&)> hook) {
  std::lock_guard lock(m_);
  wait_hook_ = std::move(hook);
}

void deallocation_queue::begin_defer() {
  std::lock_guard lock(m_);
  ++defer_depth_;
}

void deallocation_queue::end_defer() {
  std::vector<entry> batch;
  {
    std::lock_guard lock(m_);
    if (defer_depth_ > 0) --defer_depth_;
    if (defer_depth_ == 0 && (pending_.size() >= max_count_ || bytes_ >= byte_threshold())) batch = take_if(false);
  }
  run(std::move(batch));
}

void synchronize(int device) {
  cuforge::device::get(device < 0 ? cuforge::device::current().ordinal() : device).synchronize();
  deallocation_queue::instance().flush();
}

}  // namespace cuforge::memory

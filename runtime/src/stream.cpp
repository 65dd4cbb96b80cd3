// Streams: views forward to the backend; owners create and destroy.
#include "status.hpp"

#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/event.hpp>
#include <cuforge/runtime/stream.hpp>

#include <algorithm>

namespace cuforge {

using detail::active;
using detail::resolve_device;

stream_view stream_view::from_handle(std::uintptr_t handle, int device) {
  if (handle == 0 || handle == legacy_handle) return legacy_default(device);
  if (handle == per_thread_handle) return per_thread_default(device);
  int owner = active().stream_device(handle);
  if (device >= 0 && device != owner)
    throw logic_error("stream " + std::to_string(handle) + " belongs to device " +
                      std::to_string(owner) + ", not device " + std::to_string(device));
  return stream_view(handle, owner);
}

int stream_view::device() const {
  if (device_ >= 0) return device_;
  return is_default() ? resolve_device(-1) : active().stream_device(handle_);
}

void stream_view::synchronize() const {
  detail::refuse_wait_in_callback("stream synchronize");
  active().stream_synchronize(handle_, device());
}
bool stream_view::is_idle() const { return active().stream_query(handle_, device()); }

void stream_view::wait(const event& e) const {
  check_generation(e.generation(), "event");  // its handle died with the context
  active().stream_wait_event(handle_, e.handle(), device());
}

void stream_view::add_callback(std::function<void()> fn) const {
  CUFORGE_EXPECTS(static_cast<bool>(fn), "add_callback needs a callable");
  active().stream_add_callback(handle_, std::move(fn), device());
}

int stream_view::priority() const { return active().stream_priority(handle_, device()); }
bool stream_view::is_non_blocking() const { return active().stream_non_blocking(handle_, device()); }

stream::stream(options opts, int device) {
  int dev = resolve_device(device);
  auto [least, greatest] = active().priority_range(dev);
  // As the driver does: a priority outside the device's range is clamped.
  int priority = std::clamp(opts.priority, greatest, least);
  generation_ = context_generation();
  view_ = stream_view(active().stream_create(dev, priority, opts.non_blocking), dev);
}

stream::~stream() { reset(); }

void stream::synchronize() const {
  check_generation(generation_, "stream");
  view_.synchronize();
}
bool stream::is_idle() const {
  check_generation(generation_, "stream");
  return view_.is_idle();
}
void stream::wait(const event& e) const {
  check_generation(generation_, "stream");
  view_.wait(e);
}
void stream::add_callback(std::function<void()> fn) const {
  check_generation(generation_, "stream");
  view_.add_callback(std::move(fn));
}

stream::stream(stream&& other) noexcept : view_(other.view_), generation_(other.generation_) {
  other.view_ = stream_view();
}

stream& stream::operator=(stream&& other) noexcept {
  if (this != &other) {
    reset();
    view_ = other.view_;
    generation_ = other.generation_;
    other.view_ = stream_view();
  }
  return *this;
}

void stream::reset() noexcept {
  // A stream of a closed context went with it.
  if (!view_.is_default() && generation_ == context_generation())
    active().stream_destroy(view_.handle(), view_.device_);
  view_ = stream_view();
}

std::pair<int, int> stream::priority_range(int device) {
  return active().priority_range(resolve_device(device));
}

}  // namespace cuforge

// Events: owners of a backend event handle.
#include "status.hpp"

#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/event.hpp>

namespace cuforge {

using detail::active;

event::event(options opts, int device) : device_(detail::resolve_device(device)), opts_(opts) {
  generation_ = context_generation();
  handle_ = active().event_create(device_, opts.timing, opts.blocking_sync);
}

event::~event() { reset(); }

event::event(event&& o) noexcept
    : handle_(o.handle_), device_(o.device_), opts_(o.opts_), generation_(o.generation_) {
  o.handle_ = 0;
}

event& event::operator=(event&& o) noexcept {
  if (this != &o) {
    reset();
    handle_ = o.handle_;
    device_ = o.device_;
    opts_ = o.opts_;
    generation_ = o.generation_;
    o.handle_ = 0;
  }
  return *this;
}

void event::reset() noexcept {
  if (handle_ && generation_ == context_generation()) active().event_destroy(handle_, device_);
  handle_ = 0;
}

void event::record(stream_view s) {
  check_generation(generation_, "event");
  active().event_record(handle_, s.handle(), device_);
}

bool event::query() const {
  check_generation(generation_, "event");
  return active().event_query(handle_, device_);
}

void event::synchronize() const {
  check_generation(generation_, "event");
  detail::refuse_wait_in_callback("event synchronize");
  active().event_synchronize(handle_, device_);
}

void event::wait(stream_view s) const {
  check_generation(generation_, "event");
  // The stream's device, not the event's: it names which default stream
  // waits (and the event may belong to another device).
  active().stream_wait_event(s.handle(), handle_, s.device());
}

float event::elapsed_ms(const event& end) const {
  check_generation(generation_, "event");
  check_generation(end.generation_, "event");
  if (!opts_.timing || !end.opts_.timing)
    detail::raise(CUDA_ERROR_INVALID_HANDLE, "elapsed time needs two events created with timing enabled",
                  "event elapsed time");
  return active().event_elapsed_ms(handle_, end.handle_, device_);
}

float elapsed_ms(const event& start, const event& end) { return start.elapsed_ms(end); }

}  // namespace cuforge

#include <cuforge/memory/statistics_resource_adaptor.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <algorithm>

namespace cuforge::memory {

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

}  // namespace cuforge::memory

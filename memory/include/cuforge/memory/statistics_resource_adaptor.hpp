#pragma once

/// @file
/// An adaptor counting what passes through its upstream resource.

#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace cuforge::memory {

/// @brief Counts what passes through an upstream resource: the adaptor tests
/// and users read to see that memory really went back.
class CUFORGE_API statistics_resource_adaptor final : public memory_resource {
 public:
  struct counters {
    std::size_t current_bytes = 0, peak_bytes = 0, total_bytes = 0;
    std::size_t current_count = 0, peak_count = 0, total_count = 0;
  };
  explicit statistics_resource_adaptor(std::shared_ptr<memory_resource> upstream);
  counters stats() const;
  memory_kind kind() const noexcept override { return upstream_->kind(); }
  int device() const noexcept override { return upstream_->device(); }
  std::string name() const override { return "statistics(" + upstream_->name() + ")"; }
  const std::shared_ptr<memory_resource>& upstream() const noexcept { return upstream_; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept override;
  std::shared_ptr<memory_resource> upstream_;
  mutable std::mutex m_;
  counters c_;
};

}  // namespace cuforge::memory

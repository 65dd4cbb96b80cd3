// Launch: check the configuration against the device, then hand it over.
#include "status.hpp"

#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/launch.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace cuforge {
namespace {

struct limits {
  unsigned threads_per_block;
  dim3 block;
  dim3 grid;
  std::size_t shared_optin;
};

// Device limits never change for a process, so read them once.
const limits& limits_of(int dev) {
  static const std::vector<limits> all = [] {
    std::vector<limits> v;
    auto& b = detail::active();
    for (int d = 0, n = b.device_count(); d < n; ++d) {
      auto a = [&](device_attribute x) { return static_cast<unsigned>(b.attribute(d, static_cast<int>(x))); };
      std::size_t optin = a(device_attribute::max_shared_memory_per_block_optin);
      if (optin == 0) optin = a(device_attribute::max_shared_memory_per_block);
      v.push_back({a(device_attribute::max_threads_per_block),
                   dim3(a(device_attribute::max_block_dim_x), a(device_attribute::max_block_dim_y),
                        a(device_attribute::max_block_dim_z)),
                   dim3(a(device_attribute::max_grid_dim_x), a(device_attribute::max_grid_dim_y),
                        a(device_attribute::max_grid_dim_z)),
                   optin});
    }
    return v;
  }();
  return all[dev];
}

std::string str(dim3 d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

void check(const kernel& k, const launch_config& c, int dev) {
  if (c.grid.count() == 0 || c.block.count() == 0) [[unlikely]]
    throw logic_error("kernel '" + k.name() + "': grid " + str(c.grid) + " and block " + str(c.block) +
                      " must have every dimension >= 1");
  const limits& l = limits_of(dev);
  if (c.block.count() > l.threads_per_block) [[unlikely]]
    throw logic_error("kernel '" + k.name() + "': block " + str(c.block) + " has " +
                      std::to_string(c.block.count()) + " threads; the device allows at most " +
                      std::to_string(l.threads_per_block) + " per block");
  if (c.block.x > l.block.x || c.block.y > l.block.y || c.block.z > l.block.z) [[unlikely]]
    throw logic_error("kernel '" + k.name() + "': block " + str(c.block) + " exceeds the device's limits " +
                      str(l.block));
  if (c.grid.x > l.grid.x || c.grid.y > l.grid.y || c.grid.z > l.grid.z) [[unlikely]]
    throw logic_error("kernel '" + k.name() + "': grid " + str(c.grid) + " exceeds the device's limits " +
                      str(l.grid));
  if (c.shared_bytes > l.shared_optin) [[unlikely]]
    throw logic_error("kernel '" + k.name() + "': " + std::to_string(c.shared_bytes) +
                      " bytes of dynamic shared memory requested; the device has at most " +
                      std::to_string(l.shared_optin) + " per block");
}

}  // namespace

unsigned long long max_cooperative_blocks(const kernel& k, dim3 block, std::size_t shared_bytes) {
  check_generation(k.generation(), "kernel");
  return detail::active().max_cooperative_blocks(k.handle(), block, shared_bytes, k.device());
}

unsigned max_potential_block_size(const kernel& k, std::size_t shared_bytes) {
  check_generation(k.generation(), "kernel");
  const int limit = std::max(k.attributes().max_threads_per_block, 1);
  if (limit < 32) return static_cast<unsigned>(limit);
  unsigned best = 0;
  unsigned long long best_threads = 0;
  // From the largest down, as the driver's search: a smaller block wins only with strictly more threads.
  for (int b = limit - limit % 32; b >= 32; b -= 32) {
    const unsigned long long blocks =
        detail::active().max_cooperative_blocks(k.handle(), dim3{static_cast<unsigned>(b), 1, 1}, shared_bytes, k.device());
    const unsigned long long threads = blocks * static_cast<unsigned long long>(b);
    if (threads > best_threads) {
      best_threads = threads;
      best = static_cast<unsigned>(b);
    }
  }
  if (best == 0) throw logic_error("kernel '" + k.name() + "': no block size fits with " +
                                   std::to_string(shared_bytes) + " bytes of dynamic shared memory");
  return best;
}

void launch(const kernel& k, const launch_config& cfg, void** params) {
  int dev = k.device();
  check_generation(k.generation(), "kernel");
  check(k, cfg, dev);
  if (cfg.cooperative) {
    auto most = detail::active().max_cooperative_blocks(k.handle(), cfg.block, cfg.shared_bytes, dev);
    if (cfg.grid.count() > most)
      throw logic_error("kernel '" + k.name() + "': a cooperative launch of " +
                        std::to_string(cfg.grid.count()) + " blocks of " + str(cfg.block) +
                        " cannot be co-resident; at most " + std::to_string(most) + " blocks fit");
  }
  detail::active().launch(k.handle(), cfg, params, dev);
}

}  // namespace cuforge

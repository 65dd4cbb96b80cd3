#pragma once
// Helpers shared by the devicearray tests.
#include <cuforge/devicearray/device_ndarray.hpp>

#include <functional>

namespace cuforge::testing {

/// Calls f(index) for every index of `shape`, in C order.
inline void for_each_index(const extents& shape, const std::function<void(const extents&)>& f) {
  if (element_count(shape) == 0) return;
  extents idx(shape.size(), 0);
  for (;;) {
    f(idx);
    std::size_t d = shape.size();
    for (;;) {
      if (d == 0) return;
      --d;
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace cuforge::testing

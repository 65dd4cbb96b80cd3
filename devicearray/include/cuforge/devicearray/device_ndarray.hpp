#pragma once

/// @file
/// DeviceNDArray: an n-dimensional view over a shared allocation, with the
/// dtype, shape, byte strides and byte offset that locate it, the device,
/// and the stream it is bound to. Views (indexing, slicing, transpose,
/// reshape where possible) share the allocation; copies move data between
/// host and device or device and device in stream order, contiguous or not.

#include <cuforge/devicearray/dtype.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cuforge {

using extents = std::vector<std::int64_t>;

/// Arrays have at most this many dimensions (NumPy 2's limit).
inline constexpr std::size_t max_ndim = 64;

/// @brief Host memory described like an array: where the other side of a
/// host<->device copy lives.
struct host_view {
  void* data = nullptr;
  extents shape;
  extents strides;  ///< bytes
  dtype type;
};

/// One item of a basic index: an integer, a slice, `...` or a new axis.
struct index_item {
  enum class kind { integer, slice, ellipsis, newaxis };
  kind k = kind::integer;
  std::int64_t value = 0;                        ///< integer
  std::optional<std::int64_t> start, stop, step;  ///< slice
};

/// @brief C- (row-major) or F- (column-major) order strides for a shape.
CUFORGE_API extents contiguous_strides(const extents& shape, std::size_t itemsize, char order = 'C');

class CUFORGE_API device_ndarray {
 public:
  device_ndarray() = default;

  /// @brief An uninitialised array from the device's current resource.
  /// @throws logic_error for negative extents or an unknown order,
  ///         out_of_memory naming the size.
  static device_ndarray empty(const extents& shape, dtype type, char order = 'C', stream_view stream = {});
  /// @brief As empty(), with explicit byte strides (validated: non-negative,
  /// multiples of the itemsize, no overlapping elements is not required).
  static device_ndarray empty_strided(const extents& shape, const extents& strides, dtype type,
                                      stream_view stream = {});
  /// @brief An array over memory someone else allocated.
  /// @throws logic_error when the extent does not fit the allocation.
  device_ndarray(std::shared_ptr<memory::allocation> alloc, std::int64_t offset, extents shape, extents strides,
                 dtype type, stream_view stream = {});

  void* data() const noexcept;
  const extents& shape() const noexcept { return shape_; }
  const extents& strides() const noexcept { return strides_; }
  std::size_t ndim() const noexcept { return shape_.size(); }
  std::int64_t size() const noexcept { return size_; }
  std::int64_t nbytes() const noexcept { return size_ * type_.itemsize; }
  std::size_t itemsize() const noexcept { return type_.itemsize; }
  dtype type() const noexcept { return type_; }
  std::int64_t offset() const noexcept { return offset_; }
  const std::shared_ptr<memory::allocation>& allocation() const noexcept { return alloc_; }
  int device() const noexcept;
  stream_view stream() const noexcept { return stream_; }
  bool valid() const noexcept { return alloc_ != nullptr || size_ == 0; }
  /// A read-only array (a producer exported it so) refuses to be written:
  /// copies into it and fills throw logic_error. Views inherit the flag.
  bool read_only() const noexcept { return read_only_; }
  device_ndarray as_read_only(bool read_only = true) const;

  bool is_c_contiguous() const noexcept;
  bool is_f_contiguous() const noexcept;
  bool is_contiguous() const noexcept { return is_c_contiguous() || is_f_contiguous(); }
  /// The byte range [lo, hi) of the allocation the elements touch, relative
  /// to data(); {0, 0} for an empty array.
  std::pair<std::int64_t, std::int64_t> extent_bytes() const noexcept;

  /// @brief Basic indexing: integers (negative from the end), slices with
  /// any step, `...`, new axes. A view.
  /// @throws index_error out of range, logic_error for a malformed index.
  device_ndarray view(std::span<const index_item> index) const;
  /// @brief A view with a new shape (one extent may be -1), else a copy.
  device_ndarray reshape(extents shape, char order = 'C') const;
  /// @brief Axes permuted (reversed when `axes` is empty). A view.
  device_ndarray transpose(const std::vector<std::int64_t>& axes = {}) const;
  /// @brief One dimension: a view when contiguous in `order`, else a copy.
  device_ndarray ravel(char order = 'C') const;
  /// @brief Consecutive 1-D pieces of `section` elements (the last may be
  /// shorter). Views.
  std::vector<device_ndarray> split(std::int64_t section) const;
  /// @brief The same array bound to `s`: its default stream from now on.
  device_ndarray bind(stream_view s) const;
  /// @brief A contiguous copy in `order` ('C' or 'F'; 'A'/'K' keep F for
  /// F-contiguous arrays).
  device_ndarray copy(char order = 'C', std::optional<stream_view> stream = std::nullopt) const;

  /// @brief Copies a host array of the same shape and dtype in. Returns once
  /// the host buffer is no longer needed when it is pageable memory;
  /// asynchronous in `s`'s order otherwise.
  /// `wait`: done when this returns (mem::copy_host_sync: on the legacy
  /// default stream the driver's synchronous copy).
  /// @throws logic_error / type_error on a shape or dtype mismatch.
  void copy_from_host(const host_view& src, stream_view s, bool wait = false);
  /// @brief Copies out to a host array of the same shape and dtype (`wait`:
  /// done when this returns).
  void copy_to_host(const host_view& dst, stream_view s, bool wait = false) const;
  /// @brief Copies `src` in, broadcasting it to this array's shape.
  /// @throws logic_error when shapes do not broadcast, type_error on dtypes.
  void copy_from(const device_ndarray& src, stream_view s);
  /// @brief Sets every element to the scalar whose bytes are `value`
  /// (itemsize() of them).
  void fill(const void* value, stream_view s);

 private:
  std::shared_ptr<memory::allocation> alloc_;
  std::int64_t offset_ = 0;  // bytes from alloc_->data()
  extents shape_;
  extents strides_;
  std::int64_t size_ = 0;
  dtype type_;
  stream_view stream_;
  bool read_only_ = false;

  void check_writable(const char* what) const;
};

/// @brief The element count of a shape; throws logic_error for negative
/// extents or an overflowing product.
CUFORGE_API std::int64_t element_count(const extents& shape);

/// @brief Broadcasts `strides` of `shape` to `target` (NumPy rules); throws
/// logic_error naming both shapes when they do not broadcast.
CUFORGE_API extents broadcast_strides(const extents& shape, const extents& strides, const extents& target);

}  // namespace cuforge

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

namespace cuforge {
namespace {

std::string str(const extents& e) {
  std::string s = "(";
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(e[i]);
  }
  if (e.size() == 1) s += ",";
  return s + ")";
}

void check_alive(const std::shared_ptr<memory::allocation>& a) {
  if (a) check_generation(a->generation(), "device array");
}

}  // namespace

std::int64_t element_count(const extents& shape) {
  CUFORGE_EXPECTS(shape.size() <= max_ndim, "arrays have at most 64 dimensions, not " + std::to_string(shape.size()));
  std::int64_t n = 1;
  for (auto e : shape) {
    if (e < 0) throw logic_error("negative dimensions are not allowed: shape " + str(shape));
    if (e != 0 && n > std::numeric_limits<std::int64_t>::max() / e)
      throw logic_error("array is too big: shape " + str(shape) + " overflows the element count");
    n *= e;
  }
  return n;
}

extents contiguous_strides(const extents& shape, std::size_t itemsize, char order) {
  CUFORGE_EXPECTS(order == 'C' || order == 'F', std::string("order must be 'C' or 'F', not '") + order + "'");
  extents strides(shape.size());
  std::int64_t s = static_cast<std::int64_t>(itemsize);
  // The product past the outermost dimension is never a stride, and it may pass int64 for an
  // array the size checks then refuse: it saturates instead of overflowing (undefined in C++;
  // UBSan's find). When the array's byte count fits in int64, so does every stride.
  auto step = [&s](std::int64_t extent) {
    if (__builtin_mul_overflow(s, std::max<std::int64_t>(extent, 1), &s)) s = std::numeric_limits<std::int64_t>::max();
  };
  if (order == 'C') {
    for (std::size_t i = shape.size(); i-- > 0;) {
      strides[i] = s;
      step(shape[i]);
    }
  } else {
    for (std::size_t i = 0; i < shape.size(); ++i) {
      strides[i] = s;
      step(shape[i]);
    }
  }
  return strides;
}

extents broadcast_strides(const extents& shape, const extents& strides, const extents& target) {
  if (shape.size() > target.size())
    throw logic_error("could not broadcast input array from shape " + str(shape) + " into shape " + str(target));
  extents out(target.size(), 0);
  std::size_t lead = target.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    std::int64_t n = shape[i], t = target[lead + i];
    if (n == t)
      out[lead + i] = strides[i];
    else if (n == 1)
      out[lead + i] = 0;
    else
      throw logic_error("could not broadcast input array from shape " + str(shape) + " into shape " + str(target));
  }
  return out;
}

// --- construction --------------------------------------------------------------

device_ndarray device_ndarray::empty(const extents& shape, dtype type, char order, stream_view stream) {
  if (order != 'C' && order != 'F')
    throw logic_error(std::string("order must be 'C' or 'F', not '") + order + "'");
  return empty_strided(shape, contiguous_strides(shape, type.itemsize, order), type, stream);
}

device_ndarray device_ndarray::empty_strided(const extents& shape, const extents& strides, dtype type,
                                             stream_view stream) {
  std::int64_t n = element_count(shape);
  if (strides.size() != shape.size())
    throw logic_error("strides " + str(strides) + " do not match shape " + str(shape));
  std::int64_t span = n ? type.itemsize : 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (strides[i] < 0) throw logic_error("a new array cannot have negative strides: " + str(strides));
    // As the header promises: the copy and fill kernels move whole items,
    // which a GPU cannot do at addresses that are not aligned to their size.
    if (strides[i] % type.itemsize != 0)
      throw logic_error("strides " + str(strides) + " must be multiples of the itemsize (" +
                        std::to_string(type.itemsize) + ")");
    if (n && shape[i] > 1) {
      if (strides[i] > std::numeric_limits<std::int64_t>::max() / (shape[i] - 1) ||
          span > std::numeric_limits<std::int64_t>::max() - (shape[i] - 1) * strides[i])
        throw logic_error("array is too big: strides " + str(strides) + " over shape " + str(shape));
      span += (shape[i] - 1) * strides[i];
    }
  }
  auto alloc = memory::allocation::device(static_cast<std::size_t>(span), stream);
  return device_ndarray(std::move(alloc), 0, shape, strides, type, stream);
}

device_ndarray::device_ndarray(std::shared_ptr<memory::allocation> alloc, std::int64_t offset, extents shape,
                               extents strides, dtype type, stream_view stream)
    : alloc_(std::move(alloc)),
      offset_(offset),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      type_(type),
      stream_(stream) {
  size_ = element_count(shape_);
  if (strides_.size() != shape_.size())
    throw logic_error("strides " + str(strides_) + " do not match shape " + str(shape_));
  if (size_ == 0) return;
  if (!alloc_) throw logic_error("a non-empty device array needs memory");
  auto [lo, hi] = extent_bytes();
  if (offset_ + lo < 0 || offset_ + hi > static_cast<std::int64_t>(alloc_->size()))
    throw logic_error("array of shape " + str(shape_) + " and strides " + str(strides_) + " at offset " +
                      std::to_string(offset_) + " does not fit its " + std::to_string(alloc_->size()) +
                      "-byte allocation");
}

void* device_ndarray::data() const noexcept {
  return alloc_ && alloc_->data() ? static_cast<char*>(alloc_->data()) + offset_ : nullptr;
}

int device_ndarray::device() const noexcept {
  return alloc_ ? alloc_->device() : (stream_.is_default() ? 0 : stream_.device());
}

bool device_ndarray::is_c_contiguous() const noexcept {
  if (size_ <= 1) return true;
  std::int64_t expect = type_.itemsize;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expect) return false;
    expect *= shape_[i];
  }
  return true;
}

bool device_ndarray::is_f_contiguous() const noexcept {
  if (size_ <= 1) return true;
  std::int64_t expect = type_.itemsize;
  for (std::size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expect) return false;
    expect *= shape_[i];
  }
  return true;
}

std::pair<std::int64_t, std::int64_t> device_ndarray::extent_bytes() const noexcept {
  if (size_ == 0) return {0, 0};
  std::int64_t lo = 0, hi = type_.itemsize;
  for (std::size_t i = 0; i < shape_.size(); ++i) {
    std::int64_t reach = (shape_[i] - 1) * strides_[i];
    if (reach < 0)
      lo += reach;
    else
      hi += reach;
  }
  return {lo, hi};
}

// --- views ---------------------------------------------------------------------

device_ndarray device_ndarray::view(std::span<const index_item> index) const {
  check_alive(alloc_);
  std::size_t consumed = 0, ellipses = 0;
  for (auto& it : index) {
    if (it.k == index_item::kind::integer || it.k == index_item::kind::slice) ++consumed;
    if (it.k == index_item::kind::ellipsis) ++ellipses;
  }
  if (ellipses > 1) throw index_error("an index can only have a single ellipsis ('...')");
  if (consumed > ndim())
    throw index_error("too many indices for array: array is " + std::to_string(ndim()) + "-dimensional, but " +
                      std::to_string(consumed) + " were indexed");
  extents shape, strides;
  std::int64_t offset = offset_;
  std::size_t axis = 0;
  for (auto& it : index) {
    switch (it.k) {
      case index_item::kind::newaxis:
        shape.push_back(1);
        strides.push_back(0);
        break;
      case index_item::kind::ellipsis:
        for (std::size_t k = 0, n = ndim() - consumed; k < n; ++k, ++axis) {
          shape.push_back(shape_[axis]);
          strides.push_back(strides_[axis]);
        }
        break;
      case index_item::kind::integer: {
        std::int64_t n = shape_[axis], i = it.value;
        if (i < -n || i >= n)
          throw index_error("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                            " with size " + std::to_string(n));
        if (i < 0) i += n;
        offset += i * strides_[axis];
        ++axis;
        break;
      }
      case index_item::kind::slice: {
        std::int64_t n = shape_[axis];
        std::int64_t step = it.step.value_or(1);
        if (step == 0) throw logic_error("slice step cannot be zero");
        // As CPython does, so that -step below cannot overflow.
        step = std::max(step, -std::numeric_limits<std::int64_t>::max());
        std::int64_t start, stop, len;
        auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
          if (!v) return dflt;
          std::int64_t x = *v;
          if (x < 0) x += n;
          return std::clamp(x, lo, hi);
        };
        if (step > 0) {
          start = clamp(it.start, 0, 0, n);
          stop = clamp(it.stop, n, 0, n);
          len = stop > start ? (stop - start - 1) / step + 1 : 0;  // no overflow for huge steps
        } else {
          start = clamp(it.start, n - 1, -1, n - 1);
          stop = clamp(it.stop, -1, -1, n - 1);
          len = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
        }
        if (len > 0) offset += start * strides_[axis];
        shape.push_back(len);
        // A step past the axis leaves at most one element, whose stride is moot.
        std::int64_t stride;
        if (__builtin_mul_overflow(strides_[axis], step, &stride)) stride = strides_[axis];
        strides.push_back(stride);
        ++axis;
        break;
      }
    }
  }
  for (; axis < ndim(); ++axis) {  // trailing axes not indexed
    shape.push_back(shape_[axis]);
    strides.push_back(strides_[axis]);
  }
  device_ndarray v = *this;
  v.offset_ = offset;
  v.shape_ = std::move(shape);
  v.strides_ = std::move(strides);
  v.size_ = element_count(v.shape_);
  return v;
}

device_ndarray device_ndarray::reshape(extents shape, char order) const {
  if (order != 'C' && order != 'F' && order != 'A')
    throw logic_error(std::string("reshape order must be 'C', 'F' or 'A', not '") + order + "'");
  if (order == 'A') order = is_f_contiguous() && !is_c_contiguous() ? 'F' : 'C';
  std::int64_t known = 1;
  int unknown = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0) throw logic_error("can only specify one unknown dimension in a reshape");
      unknown = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw logic_error("negative dimensions are not allowed: shape " + str(shape));
    } else {
      known *= shape[i];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || size_ % known != 0)
      throw logic_error("cannot reshape array of size " + std::to_string(size_) + " into shape " + str(shape));
    shape[unknown] = size_ / known;
  }
  if (element_count(shape) != size_)
    throw logic_error("cannot reshape array of size " + std::to_string(size_) + " into shape " + str(shape));
  bool in_place = order == 'C' ? is_c_contiguous() : is_f_contiguous();
  if (!in_place) return copy(order).reshape(std::move(shape), order);
  device_ndarray v = *this;
  v.strides_ = contiguous_strides(shape, type_.itemsize, order);
  v.shape_ = std::move(shape);
  return v;
}

device_ndarray device_ndarray::transpose(const std::vector<std::int64_t>& axes) const {
  std::vector<std::int64_t> perm(axes);
  if (perm.empty()) {
    perm.resize(ndim());
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  if (perm.size() != ndim()) throw logic_error("axes don't match array: " + str(perm) + " for " + std::to_string(ndim()) + " dimensions");
  std::vector<bool> seen(ndim(), false);
  device_ndarray v = *this;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    std::int64_t a = perm[i] < 0 ? perm[i] + static_cast<std::int64_t>(ndim()) : perm[i];
    if (a < 0 || a >= static_cast<std::int64_t>(ndim()) || seen[a])
      throw logic_error("axes " + str(perm) + " are not a permutation of the array's dimensions");
    seen[a] = true;
    v.shape_[i] = shape_[a];
    v.strides_[i] = strides_[a];
  }
  return v;
}

device_ndarray device_ndarray::ravel(char order) const { return reshape({size_}, order); }

std::vector<device_ndarray> device_ndarray::split(std::int64_t section) const {
  if (ndim() != 1) throw logic_error("split only works on 1-dimensional arrays, not " + std::to_string(ndim()) + "-dimensional");
  if (section <= 0) throw logic_error("split section must be positive, not " + std::to_string(section));
  std::vector<device_ndarray> parts;
  for (std::int64_t begin = 0; begin < size_; begin += section) {
    index_item s;
    s.k = index_item::kind::slice;
    s.start = begin;
    s.stop = std::min(begin + section, size_);
    parts.push_back(view(std::span<const index_item>(&s, 1)));
  }
  return parts;
}

device_ndarray device_ndarray::as_read_only(bool read_only) const {
  device_ndarray v = *this;
  v.read_only_ = read_only;
  return v;
}

void device_ndarray::check_writable(const char* what) const {
  if (read_only_) throw logic_error(std::string(what) + ": assignment destination is read-only");
}

device_ndarray device_ndarray::bind(stream_view s) const {
  device_ndarray v = *this;
  v.stream_ = s;
  return v;
}

device_ndarray device_ndarray::copy(char order, std::optional<stream_view> stream) const {
  check_alive(alloc_);
  stream_view s = stream.value_or(stream_);
  if (order == 'A' || order == 'K') order = is_f_contiguous() && !is_c_contiguous() ? 'F' : 'C';
  auto out = empty(shape_, type_, order, s);
  out.stream_ = stream_;
  out.copy_from(*this, s);
  return out;
}

}  // namespace cuforge

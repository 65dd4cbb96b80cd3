#pragma once
// Helpers shared by the interop tests: every dtype, element addresses and
// byte-level reads and writes through the runtime's copies (device memory is
// not host-readable on a GPU), a check that two arrays are views of the same
// elements, exact exception checks (the binding maps logic_error and
// type_error to different Python exceptions), and a fixture that starts with
// an empty deferred-deallocation queue.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/stream.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <string>
#include <typeinfo>
#include <vector>

#include "devicearray/array_support.hpp"

namespace cuforge::testing {

using bytes = std::vector<unsigned char>;

/// Every dtype a device array holds.
inline const std::vector<dtype>& all_dtypes() {
  static const std::vector<dtype> v = {
      dtypes::bool_,  dtypes::int8,    dtypes::int16,   dtypes::int32,     dtypes::int64,
      dtypes::uint8,  dtypes::uint16,  dtypes::uint32,  dtypes::uint64,    dtypes::float16,
      dtypes::float32, dtypes::float64, dtypes::complex64, dtypes::complex128,
  };
  return v;
}

/// The address of element `idx` of `a`.
inline char* element_ptr(const device_ndarray& a, const extents& idx) {
  auto* p = static_cast<char*>(a.data());
  for (std::size_t i = 0; i < idx.size(); ++i) p += idx[i] * a.strides()[i];
  return p;
}

inline bytes read_bytes(const void* p, std::size_t n) {
  bytes b(n);
  mem::copy_sync(b.data(), p, n, stream_view{});
  return b;
}

inline void write_bytes(void* p, const bytes& b) { mem::copy_sync(p, b.data(), b.size(), stream_view{}); }

/// `itemsize` bytes that differ from element to element and from seed to seed.
inline bytes pattern(std::size_t itemsize, std::size_t element, unsigned seed) {
  bytes b(itemsize);
  for (std::size_t i = 0; i < itemsize; ++i)
    b[i] = static_cast<unsigned char>(element * 31 + i * 7 + seed * 101 + 1);
  return b;
}

/// Expects `a` and `b` to be the same elements of the same memory: what is
/// written through one, element by element, is read through the other, both
/// ways round.
inline void expect_same_elements(const device_ndarray& a, const device_ndarray& b) {
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.itemsize(), b.itemsize());
  std::size_t k = 0;
  for_each_index(a.shape(), [&](const extents& idx) {
    EXPECT_EQ(element_ptr(a, idx), element_ptr(b, idx)) << "element " << k;
    auto w = pattern(a.itemsize(), k, 1);
    write_bytes(element_ptr(a, idx), w);
    EXPECT_EQ(read_bytes(element_ptr(b, idx), b.itemsize()), w) << "element " << k << ", written through the first";
    w = pattern(a.itemsize(), k, 2);
    write_bytes(element_ptr(b, idx), w);
    EXPECT_EQ(read_bytes(element_ptr(a, idx), a.itemsize()), w) << "element " << k << ", written through the second";
    ++k;
  });
}

/// Expects `f` to throw exactly `E` (not a subclass: logic_error becomes
/// ValueError in Python, type_error TypeError) with `text` in its message.
template <class E, class F>
void expect_throw_exact(F&& f, const std::string& text, const char* what = "") {
  try {
    f();
    ADD_FAILURE() << what << ": did not throw " << typeid(E).name();
  } catch (const std::exception& e) {
    EXPECT_EQ(typeid(e), typeid(E)) << what << ": threw " << typeid(e).name() << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << what << ": the message lacks '" << text << "': " << e.what();
  }
}

/// Starts and ends with no deallocation pending, so that a test sees exactly
/// when the frees it causes run.
class pending_frees : public ::testing::Test {
 protected:
  void SetUp() override {
    q_.flush_forced();
    ASSERT_EQ(q_.pending_count(), 0u);
    ASSERT_FALSE(q_.deferring());
    if (q_.max_pending_count() < 4) GTEST_SKIP() << "CUFORGE_DEALLOCS_COUNT is set below 4";
  }
  void TearDown() override { q_.flush_forced(); }
  /// The queue's flush, as a synchronisation point runs it.
  void flush() { memory::synchronize(); }

  memory::deallocation_queue& q_ = memory::deallocation_queue::instance();
};

}  // namespace cuforge::testing

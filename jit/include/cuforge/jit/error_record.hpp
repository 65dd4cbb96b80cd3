#pragma once

/// @file
/// The error record of a kernel launch turned into an exception: a kernel
/// that may raise (frontend/abi.hpp: kernel_error_record) has its launches
/// waited for and their record read; a thread that raised makes the launch
/// throw kernel_exception, which the Python binding raises as the Python
/// exception the record names, in Numba's words.

#include <cuforge/frontend/abi.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/export.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace cuforge::jit {

class CUFORGE_API kernel_exception : public cuforge::logic_error {
 public:
  /// From a launch's record and the raise site it names; `thread_prefix`
  /// false for host code called from Python (the host jit), whose message is
  /// the exception's own, as Python's.
  kernel_exception(const frontend::kernel_error_record& record, const frontend::raise_site& site,
                   bool thread_prefix = true);

  /// The Python exception to raise ("AssertionError").
  const std::string& python_exception() const noexcept { return python_exception_; }
  /// The exception's own message, without the thread's position ("" when it has none).
  const std::string& message() const noexcept { return message_; }
  frontend::kernel_error code() const noexcept { return code_; }
  const std::string& function() const noexcept { return function_; }
  const std::string& filename() const noexcept { return filename_; }
  std::int32_t line() const noexcept { return line_; }
  /// The raising thread's blockIdx and threadIdx (x, y, z).
  const std::array<std::uint32_t, 3>& block() const noexcept { return block_; }
  const std::array<std::uint32_t, 3>& thread() const noexcept { return thread_; }

 private:
  std::string python_exception_, message_, function_, filename_;
  frontend::kernel_error code_;
  std::int32_t line_;
  std::array<std::uint32_t, 3> block_, thread_;
};

/// Numba's text for a raise in a kernel: "In function 'k', file f.py, line
/// 12, tid=[z, y, x] ctaid=[z, y, x]", then ": message" when there is one.
CUFORGE_API std::string describe(const frontend::kernel_error_record& record, const frontend::raise_site& site,
                                 bool thread_prefix = true);

/// The exception's own message: the site's, or for an index error NumPy's
/// words ("index 4 is out of bounds for axis 0 with size 4") and the array
/// the site names.
CUFORGE_API std::string message_of(const frontend::kernel_error_record& record, const frontend::raise_site& site);

}  // namespace cuforge::jit

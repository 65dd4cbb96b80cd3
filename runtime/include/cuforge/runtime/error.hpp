#pragma once

/// @file
/// The one exception hierarchy of cuforge. Python maps each type once
/// (python/src/errors.cpp): cuda_error -> CudaAPIError, out_of_memory ->
/// CudaOutOfMemoryError (a CudaAPIError and a MemoryError), logic_error ->
/// ValueError, type_error -> TypeError, index_error -> IndexError.

#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <new>
#include <source_location>
#include <stdexcept>
#include <string>

namespace cuforge {

/// @brief A failed driver call, or a backend failure reported as one.
///
/// Carries the CUresult's value and name, the driver's message and the call
/// that failed. The cpu backend raises the same type with the CUresult the
/// driver would have returned, so callers handle one error on both backends.
class CUFORGE_API cuda_error : public std::runtime_error {
 public:
  cuda_error(int status, std::string name, std::string message, std::string call,
             std::source_location where = std::source_location::current());

  int status() const noexcept { return status_; }
  const std::string& name() const noexcept { return name_; }
  const std::string& message() const noexcept { return message_; }
  const std::string& call() const noexcept { return call_; }
  const std::source_location& where() const noexcept { return where_; }

 private:
  int status_;
  std::string name_;
  std::string message_;
  std::string call_;
  std::source_location where_;
};

/// @brief An allocation the device (or host) could not satisfy.
///
/// Derives from std::bad_alloc so generic C++ code handles it, and carries
/// the size asked for and the memory kind so the message says what failed.
class CUFORGE_API out_of_memory : public std::bad_alloc {
 public:
  out_of_memory(std::size_t bytes, std::string what_kind, std::string detail);
  const char* what() const noexcept override { return what_.c_str(); }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
  std::string what_;
};

/// @brief A broken precondition: bad arguments from the caller.
class CUFORGE_API logic_error : public std::logic_error {
 public:
  explicit logic_error(const std::string& what) : std::logic_error(what) {}
};

/// @brief An argument of the wrong type (dtype, kind of object).
class CUFORGE_API type_error : public logic_error {
 public:
  using logic_error::logic_error;
};

/// @brief An index out of range.
class CUFORGE_API index_error : public logic_error {
 public:
  using logic_error::logic_error;
};

namespace detail {
[[noreturn]] CUFORGE_API void throw_expects(const char* condition, const std::string& message,
                                            std::source_location where);
}  // namespace detail

}  // namespace cuforge

/// Checks a precondition; on failure throws cuforge::logic_error naming the
/// condition, the message and where it was checked.
#define CUFORGE_EXPECTS(cond, message)                                                    \
  do {                                                                                    \
    if (!(cond)) [[unlikely]]                                                             \
      ::cuforge::detail::throw_expects(#cond, (message), std::source_location::current()); \
  } while (0)

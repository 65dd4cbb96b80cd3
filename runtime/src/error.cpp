#include "status.hpp"

#include <cstdio>

namespace cuforge {

namespace {
std::string describe(const std::string& name, const std::string& message, const std::string& call) {
  std::string s = "[" + name + "] ";
  s += call.empty() ? std::string("CUDA call") : "Call to " + call;
  s += " failed";
  if (!message.empty()) s += ": " + message;
  return s;
}
}  // namespace

cuda_error::cuda_error(int status, std::string name, std::string message, std::string call,
                       std::source_location where)
    : std::runtime_error(describe(name, message, call)),
      status_(status),
      name_(std::move(name)),
      message_(std::move(message)),
      call_(std::move(call)),
      where_(where) {}

out_of_memory::out_of_memory(std::size_t bytes, std::string what_kind, std::string detail)
    : bytes_(bytes) {
  what_ = "out of memory: could not allocate " + std::to_string(bytes) + " bytes of " +
          std::move(what_kind);
  if (!detail.empty()) what_ += " (" + detail + ")";
}

namespace detail {

void throw_expects(const char* condition, const std::string& message, std::source_location where) {
  (void)condition;
  (void)where;
  throw logic_error(message);
}

const char* status_name(int status) noexcept {
  switch (status) {
#define CUFORGE_STATUS(x) \
  case x:                 \
    return #x;
    CUFORGE_STATUS(CUDA_SUCCESS)
    CUFORGE_STATUS(CUDA_ERROR_INVALID_VALUE)
    CUFORGE_STATUS(CUDA_ERROR_OUT_OF_MEMORY)
    CUFORGE_STATUS(CUDA_ERROR_NOT_INITIALIZED)
    CUFORGE_STATUS(CUDA_ERROR_DEINITIALIZED)
    CUFORGE_STATUS(CUDA_ERROR_PROFILER_DISABLED)
    CUFORGE_STATUS(CUDA_ERROR_STUB_LIBRARY)
    CUFORGE_STATUS(CUDA_ERROR_NO_DEVICE)
    CUFORGE_STATUS(CUDA_ERROR_INVALID_DEVICE)
    CUFORGE_STATUS(CUDA_ERROR_INVALID_IMAGE)
    CUFORGE_STATUS(CUDA_ERROR_INVALID_CONTEXT)
    CUFORGE_STATUS(CUDA_ERROR_NO_BINARY_FOR_GPU)
    CUFORGE_STATUS(CUDA_ERROR_INVALID_PTX)
    CUFORGE_STATUS(CUDA_ERROR_INVALID_SOURCE)
    CUFORGE_STATUS(CUDA_ERROR_FILE_NOT_FOUND)
    CUFORGE_STATUS(CUDA_ERROR_INVALID_HANDLE)
    CUFORGE_STATUS(CUDA_ERROR_NOT_FOUND)
    CUFORGE_STATUS(CUDA_ERROR_NOT_READY)
    CUFORGE_STATUS(CUDA_ERROR_ILLEGAL_ADDRESS)
    CUFORGE_STATUS(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    CUFORGE_STATUS(CUDA_ERROR_LAUNCH_TIMEOUT)
    CUFORGE_STATUS(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    CUFORGE_STATUS(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    CUFORGE_STATUS(CUDA_ERROR_CONTEXT_IS_DESTROYED)
    CUFORGE_STATUS(CUDA_ERROR_LAUNCH_FAILED)
    CUFORGE_STATUS(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    CUFORGE_STATUS(CUDA_ERROR_NOT_PERMITTED)
    CUFORGE_STATUS(CUDA_ERROR_NOT_SUPPORTED)
    CUFORGE_STATUS(CUDA_ERROR_UNKNOWN)
#undef CUFORGE_STATUS
    default:
      return "CUDA_ERROR_UNKNOWN";
  }
}

void raise(int status, std::string message, std::string call, std::source_location where) {
  throw cuda_error(status, status_name(status), std::move(message), std::move(call), where);
}

}  // namespace detail
}  // namespace cuforge

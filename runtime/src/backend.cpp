// Backend selection: once per process, on first use.
#include "backends.hpp"
#include "status.hpp"

#include <cuforge/runtime/backend.hpp>

#include <cstdlib>
#include <mutex>
#include <string>

namespace cuforge {
namespace detail {
namespace {

struct selection {
  std::unique_ptr<backend> impl;
  std::string reason;
};

selection select() {
  const char* env = std::getenv("CUFORGE_BACKEND");
  std::string want = env && *env ? env : "auto";
  if (want != "auto" && want != "cuda" && want != "cpu")
    throw logic_error("CUFORGE_BACKEND='" + want + "' is not one of auto, cuda, cpu");
  if (want == "cpu")
    return {make_cpu_backend(), "cpu backend (CUFORGE_BACKEND=cpu)"};
  const cuda_probe& probe = probe_cuda();
  if (probe.usable) return {make_cuda_backend(), "cuda backend: " + probe.reason};
  if (want == "cuda")
    raise(CUDA_ERROR_NO_DEVICE, "CUFORGE_BACKEND=cuda but no usable CUDA driver: " + probe.reason,
          "backend selection");
  return {make_cpu_backend(), "cpu backend (no usable CUDA driver: " + probe.reason + ")"};
}

selection& chosen() {
  // Leaked on purpose: streams and allocations may be released by static
  // destructors of other libraries after ours have run.
  static selection* s = new selection(select());
  return *s;
}

}  // namespace

backend& active() {
  static backend& b = *chosen().impl;
  return b;
}

}  // namespace detail

std::string_view to_string(backend_kind kind) noexcept {
  return kind == backend_kind::cuda ? "cuda" : "cpu";
}

backend_kind active_backend() { return detail::active().kind(); }

const backend_traits& active_traits() { return detail::active().traits(); }

std::string backend_reason() {
  detail::active();
  return detail::chosen().reason;
}

bool cuda_driver_usable() { return detail::probe_cuda().usable; }

int driver_version() { return detail::active().driver_version(); }

}  // namespace cuforge

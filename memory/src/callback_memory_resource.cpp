#include <cuforge/memory/callback_memory_resource.hpp>
#include <cuforge/runtime/error.hpp>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <utility>

namespace cuforge::memory {

callback_memory_resource::callback_memory_resource(allocate_fn allocate, deallocate_fn deallocate, memory_kind kind,
                                                   int device, std::string name)
    : allocate_(std::move(allocate)),
      deallocate_(std::move(deallocate)),
      kind_(kind),
      device_(device),
      name_(std::move(name)) {
  CUFORGE_EXPECTS(allocate_ && deallocate_, "callback_memory_resource needs an allocate and a deallocate function");
}

void* callback_memory_resource::do_allocate(std::size_t bytes, stream_view stream) {
  void* p = allocate_(bytes, stream);
  auto refuse = [&](const std::string& why) {
    if (p) do_deallocate(p, bytes, stream);
    std::ostringstream msg;
    msg << name_ << ": an allocation of " << bytes << " bytes " << why;
    throw logic_error(msg.str());
  };
  if (!p && bytes != 0) refuse("returned a null pointer");
  if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) {
    std::ostringstream at;
    at << "returned " << p << ", which is not 16-byte aligned (device memory must be)";
    refuse(at.str());
  }
  return p;
}

void callback_memory_resource::do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept {
  try {
    deallocate_(p, bytes, stream);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuforge: %s failed to free %zu bytes at %p: %s\n", name_.c_str(), bytes, p, e.what());
  } catch (...) {
    std::fprintf(stderr, "cuforge: %s failed to free %zu bytes at %p\n", name_.c_str(), bytes, p);
  }
}

}  // namespace cuforge::memory

// Module images, loaded modules and their kernels.
#include "status.hpp"

#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/module.hpp>

#include <cstring>
#include <fstream>
#include <iterator>

namespace cuforge {

namespace detail {
struct module_state {
  handle h = 0;
  int device = 0;
  std::uint64_t generation = 0;
  std::string info_log;
  ~module_state() {
    if (h && generation == context_generation()) active().module_unload(h, device);
  }
};
}  // namespace detail

module_image module_image::from_ptx(std::string ptx) {
  CUFORGE_EXPECTS(!ptx.empty(), "PTX text is empty");
  module_image m;
  m.ptx_ = std::move(ptx);
  return m;
}

module_image module_image::from_cubin(std::vector<std::byte> cubin) {
  CUFORGE_EXPECTS(!cubin.empty(), "cubin is empty");
  module_image m;
  m.cubin_ = std::move(cubin);
  return m;
}

module_image module_image::from_fatbin(std::vector<std::byte> fatbin) {
  CUFORGE_EXPECTS(!fatbin.empty(), "fatbin is empty");
  module_image m;
  m.fatbin_ = std::move(fatbin);
  return m;
}

module_image module_image::from_host(std::vector<cpu_kernel_symbol> kernels) {
  CUFORGE_EXPECTS(!kernels.empty(), "a host image needs at least one kernel");
  for (const auto& k : kernels) {
    CUFORGE_EXPECTS(!k.name.empty(), "a host kernel needs a name");
    CUFORGE_EXPECTS(k.fn != nullptr, "host kernel '" + k.name + "' has no function");
  }
  module_image m;
  m.host_ = std::move(kernels);
  return m;
}

module_image module_image::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw logic_error("cannot read module image '" + path + "'");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto ends_with = [&](std::string_view ext) {
    return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  auto as_bytes = [&] {
    std::vector<std::byte> b(bytes.size());
    std::memcpy(b.data(), bytes.data(), bytes.size());
    return b;
  };
  if (ends_with(".ptx")) return from_ptx(std::move(bytes));
  if (ends_with(".cubin")) return from_cubin(as_bytes());
  if (ends_with(".fatbin") || ends_with(".fatbinary")) return from_fatbin(as_bytes());
  throw logic_error("module image '" + path + "': unknown kind (expected .ptx, .cubin or .fatbin)");
}

module_image& module_image::add(module_image other) {
  if (!other.ptx_.empty()) ptx_ = std::move(other.ptx_);
  if (!other.cubin_.empty()) cubin_ = std::move(other.cubin_);
  if (!other.fatbin_.empty()) fatbin_ = std::move(other.fatbin_);
  for (auto& k : other.host_) host_.push_back(std::move(k));
  return *this;
}

bool module_image::has(format f) const noexcept {
  switch (f) {
    case format::ptx: return !ptx_.empty();
    case format::cubin: return !cubin_.empty();
    case format::fatbin: return !fatbin_.empty();
    case format::host: return !host_.empty();
  }
  return false;
}

const std::vector<std::byte>& module_image::binary(format f) const noexcept {
  return f == format::fatbin ? fatbin_ : cubin_;
}

module module::load(const module_image& image, const options& opts, int device) {
  int dev = detail::resolve_device(device);
  auto state = std::make_shared<detail::module_state>();
  state->device = dev;
  state->generation = context_generation();
  state->h = detail::active().module_load(image, opts, dev, state->info_log);
  return module(std::move(state));
}

kernel module::get_kernel(std::string_view name) const {
  check_generation(state_->generation, "module");
  auto h = detail::active().module_get_kernel(state_->h, name, state_->device);
  return kernel(state_, std::string(name), h);
}

const std::string& module::info_log() const noexcept { return state_->info_log; }
std::uintptr_t module::handle() const noexcept { return state_->h; }
int module::device() const noexcept { return state_->device; }

int kernel::device() const noexcept { return module_->device; }
std::uint64_t kernel::generation() const noexcept { return module_->generation; }

kernel_attributes kernel::attributes() const {
  check_generation(module_->generation, "kernel");
  return detail::active().kernel_attrs(handle_, module_->device);
}

void kernel::set_max_dynamic_shared_bytes(int bytes) const {
  check_generation(module_->generation, "kernel");
  CUFORGE_EXPECTS(bytes >= 0, "dynamic shared memory size must not be negative");
  detail::active().kernel_set_max_dynamic_shared(handle_, bytes, module_->device);
}

}  // namespace cuforge

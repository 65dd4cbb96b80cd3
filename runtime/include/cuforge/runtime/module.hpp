#pragma once

/// @file
/// Kernel images and the modules loaded from them. A frontend (the Python
/// kernel compiler, nvcc at build time, NVRTC) produces a module_image; the
/// runtime does not know which one made it. An image may carry code for
/// several targets at once (PTX or a cubin for the cuda backend, a table of
/// host functions for the cpu backend): module::load picks the part the
/// active backend runs, so the same host code launches on either.

#include <cuforge/runtime/cpu_kernel.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuforge {

/// @brief A kernel for the cpu backend: its entry point and what the
/// scheduler must provide.
struct cpu_kernel_symbol {
  std::string name;
  cpu::kernel_fn fn = nullptr;
  /// Optional: runs every thread of the context's block in one call
  /// (`ctx->thread_idx` is not read), meeting the kernel's barriers itself if
  /// it has any (frontend's regions); the scheduler then calls it once per
  /// block instead of `fn` once per thread, and needs no fibers for it. A
  /// thread of it must not throw (it would end the rest of its block).
  cpu::kernel_fn block_fn = nullptr;
  /// True where block_fn runs `ctx->block_run` blocks along x in one call (block_idx.x first;
  /// it sets ctx->block_idx.x to each as it goes): the scheduler then gives it a row of blocks
  /// at a time when the launch has no shared memory, so a 16x16-block kernel walks each row of
  /// its arrays contiguously. The compiler's block entries of barrier-free kernels do.
  bool block_runs = false;
  std::size_t static_shared_bytes = 0;
  /// False lets the scheduler run the block's threads as a loop, without
  /// fibers: only for kernels that never call a barrier (with a block_fn,
  /// blocks run through it either way; `fn` alone needs the fibers).
  bool uses_barrier = true;
  int max_threads_per_block = 1024;
  /// The size of each parameter, so an asynchronous launch can copy their
  /// values as the driver does. Unknown (nullopt): the launch waits for the
  /// kernel to finish before returning, since the values may not outlive it.
  std::optional<std::vector<std::size_t>> param_sizes;
  /// The kernel's array parameters where some are private sums (cpu::array_param), else empty.
  /// Used only with param_sizes (the slot count).
  std::vector<cpu::array_param> arrays;
};

/// @brief Device code for one or more targets.
class CUFORGE_API module_image {
 public:
  enum class format { ptx, cubin, fatbin, host };

  static module_image from_ptx(std::string ptx);
  static module_image from_cubin(std::vector<std::byte> cubin);
  static module_image from_fatbin(std::vector<std::byte> fatbin);
  static module_image from_host(std::vector<cpu_kernel_symbol> kernels);
  /// @brief Reads a .ptx, .cubin or .fatbin file (chosen by extension).
  /// @throws logic_error for an unknown extension or unreadable file.
  static module_image from_file(const std::string& path);

  /// @brief Adds another target's code to this image.
  module_image& add(module_image other);

  bool has(format f) const noexcept;
  const std::string& ptx() const noexcept { return ptx_; }
  const std::vector<std::byte>& binary(format f) const noexcept;
  const std::vector<cpu_kernel_symbol>& host_kernels() const noexcept { return host_; }

 private:
  std::string ptx_;
  std::vector<std::byte> cubin_;
  std::vector<std::byte> fatbin_;
  std::vector<cpu_kernel_symbol> host_;
};

struct kernel_attributes {
  int max_threads_per_block = 0;
  int num_registers = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t local_bytes = 0;
  std::size_t const_bytes = 0;
  int ptx_version = 0;
  int binary_version = 0;
  int max_dynamic_shared_bytes = 0;
};

namespace detail {
struct module_state;
}

class kernel;

struct module_options {
  int max_registers = 0;  ///< 0: the JIT's choice
  bool generate_line_info = false;
  int optimization_level = 4;  ///< the PTX JIT's -O level
  /// Full debug information (-g): PTX compiled with debug=True carries DWARF
  /// sections (`.target sm_XY, debug`), which the PTX JIT compiles only with
  /// this set and at optimization level 0 ("Optimized debugging not
  /// supported" otherwise); set, it implies level 0 whatever
  /// optimization_level says.
  bool generate_debug_info = false;
};

/// @brief A loaded module. Kernels taken from it keep it loaded.
class CUFORGE_API module {
 public:
  using options = module_options;

  /// @brief Loads `image` on `device` (-1: current) for the active backend.
  /// @throws cuda_error with the JIT's error log when the code does not load,
  ///         or CUDA_ERROR_NOT_SUPPORTED when the image holds nothing the
  ///         active backend runs (PTX on the cpu backend, say).
  static module load(const module_image& image, const options& opts, int device = -1);
  static module load(const module_image& image, int device = -1) { return load(image, options{}, device); }

  /// @throws cuda_error CUDA_ERROR_NOT_FOUND naming the kernel.
  kernel get_kernel(std::string_view name) const;
  /// @brief What the PTX JIT said while loading (warnings, register use).
  const std::string& info_log() const noexcept;
  std::uintptr_t handle() const noexcept;
  int device() const noexcept;

 private:
  explicit module(std::shared_ptr<detail::module_state> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::module_state> state_;
};

/// @brief A kernel of a loaded module; keeps the module alive.
class CUFORGE_API kernel {
 public:
  const std::string& name() const noexcept { return name_; }
  std::uintptr_t handle() const noexcept { return handle_; }
  int device() const noexcept;
  /// The context generation the module was loaded in (see close()).
  std::uint64_t generation() const noexcept;
  kernel_attributes attributes() const;
  /// @brief Allows launches with more dynamic shared memory than the
  /// default 48 KiB, up to the device's opt-in limit.
  void set_max_dynamic_shared_bytes(int bytes) const;
  const std::shared_ptr<detail::module_state>& module_state() const noexcept { return module_; }

 private:
  friend class module;
  kernel(std::shared_ptr<detail::module_state> m, std::string name, std::uintptr_t h)
      : module_(std::move(m)), name_(std::move(name)), handle_(h) {}
  std::shared_ptr<detail::module_state> module_;
  std::string name_;
  std::uintptr_t handle_ = 0;
};

}  // namespace cuforge

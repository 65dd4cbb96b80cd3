#pragma once

/// @file
/// One specialisation of a jitted function: its typed module (or, when it
/// came from the disk cache, its code and the facts the launcher needs), the
/// code made from it on demand (PTX, LLVM IR, host code), and the kernel
/// loaded per device. It holds no Python objects; a cached specialisation
/// that must be compiled again (its PTX asked for on the cpu backend, say)
/// calls the `rebuild` function its owner gave it.

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/compile_config.hpp>
#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/typer.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/module.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cuforge::jit {

/// What the launcher needs of a compiled entry point, and what the disk
/// cache stores of it.
struct entry_facts {
  std::string symbol;             ///< the entry's symbol in the code
  std::vector<bool> writes_arg;   ///< per argument: the kernel may write through it
  bool uses_barrier = false;      ///< the cpu backend must run its threads as fibers
  bool cooperative = false;       ///< it syncs the whole grid: launched cooperatively
  const frontend::type* return_type = nullptr;
  /// The places it may raise (its error record's `site` indexes them);
  /// none: its launches take no error record and are not waited for.
  std::vector<frontend::raise_site> raise_sites;

  bool may_raise() const noexcept { return !raise_sites.empty(); }
};

/// What the disk cache stores for one specialisation, and loads back.
struct cache_entry {
  enum class kind : std::uint8_t { ptx, host_object } k = kind::ptx;
  entry_facts facts;
  std::string types_dump;          ///< inspect_types()'s text
  std::string host_name;           ///< host_object: the kernel's symbol in the object
  std::string host_block_name;     ///< host_object: its block entry's symbol, or empty
  std::size_t static_shared_bytes = 0;
  std::size_t slots = 0;           ///< host_object: parameter slots
  std::vector<cpu::array_param> arrays;  ///< host_object: its array parameters (frontend::array_params_of)
  std::string code;                ///< PTX text, or the object file's bytes
};

/// A kernel loaded on one device for the active backend, with the shared
/// memory facts its launches are checked against.
struct loaded_kernel {
  std::optional<kernel> k;  ///< (its generation() is the context it was loaded in)
  std::size_t static_shared = 0;  ///< bytes of its static shared arrays
  /// Dynamic shared bytes a launch may ask for without opting in (raised by launches that opt in,
  /// one at a time: opt_in_lock).
  std::atomic<std::size_t> dynamic_allowed{0};
  std::mutex opt_in_lock;
  /// A kernel that may raise: its launches' error record (mapped host memory, so the kernel writes
  /// it and the host reads it without a copy), and the lock that gives it to one launch at a time.
  std::shared_ptr<memory::allocation> error_record;
  std::mutex error_record_lock;
};

class CUFORGE_API compiled_kernel {
 public:
  using rebuild_fn = std::function<std::shared_ptr<compiled_kernel>()>;

  /// Types `fn` for `arg_types` (and `return_type` when given: an eager
  /// device signature) for `config`. Codegen runs on demand.
  /// @throws frontend::typing_error pointing at the user's source.
  static std::shared_ptr<compiled_kernel> compile(std::shared_ptr<const frontend::function> fn,
                                                  std::vector<const frontend::type*> arg_types,
                                                  const frontend::type* return_type, const frontend::compile_config& config,
                                                  bool device, std::vector<std::string> link = {},
                                                  bool lto = false);

  /// A specialisation from what cache_entry() gave, checked as far as it can
  /// be without running it. @throws logic_error for anything malformed (the
  /// disk cache counts that as a miss).
  static std::shared_ptr<compiled_kernel> from_cache(cache_entry entry, std::vector<const frontend::type*> arg_types,
                                                     const frontend::compile_config& config);

  const frontend::compile_config& config() const noexcept { return config_; }
  bool is_device() const noexcept { return device_; }
  const std::vector<const frontend::type*>& arg_types() const noexcept { return arg_types_; }
  const entry_facts& facts() const noexcept { return facts_; }
  /// The parameter block its kernels take (frontend/abi.hpp).
  const frontend::kernel_layout& layout() const noexcept { return layout_; }
  /// Whether it came from the disk cache (its typed module is remade on demand).
  bool from_disk_cache() const noexcept { return module_.functions.empty(); }

  /// The function remaking a cached specialisation's typed module (see the file comment).
  void set_rebuild(rebuild_fn f) { rebuild_ = std::move(f); }

  /// PTX, whatever the active backend (inspect_asm() shows it on the cpu backend too).
  const std::string& ptx();
  /// Its LTO-IR (frontend::compile_ltoir), made on each call; `forceinline` marks the entry alwaysinline.
  std::string ltoir(bool forceinline);
  /// The NVVM IR text ltoir() compiles.
  std::string nvvm_ir(bool forceinline);
  /// The files its code links (cuda.declare_device's and cuda.jit(link=...)'s), each once.
  const std::vector<std::string>& link_inputs() const noexcept { return module_.link; }
  /// Whether its code came in part from overloads libraries registered (cuda.extending).
  bool uses_overloads() const noexcept { return module_.uses_overloads; }
  /// Its PTX linked with link_inputs() by nvJitLink for the configuration's compute capability:
  /// what a GPU loads when there are any (frontend/cuda_c.hpp). @throws logic_error with the
  /// linker's or NVRTC's log.
  const std::string& linked_cubin();
  /// The optimised LLVM IR for target `t`.
  const std::string& llvm_ir(frontend::target_kind t);
  /// inspect_types()'s text: the typed module.
  const std::string& types_dump();

  /// Its kernel loaded for the active backend on device `dev`, once per
  /// context (compiling host code on first use on the cpu backend).
  /// Thread-safe; once loaded, without taking a lock (the launch path).
  loaded_kernel& load(int dev);

  /// Its host code, compiled on first use, for a specialisation whose
  /// configuration targets the host: what jit/host_call.hpp runs on the host
  /// itself, whatever the active backend (the CPU targets of vectorize and
  /// guvectorize). Thread-safe. @throws logic_error for another target or a
  /// device function.
  const frontend::host_kernel& host_code();

  /// What the disk cache stores for the active backend's target: PTX on a
  /// GPU, an object file on the cpu backend (which this process then runs
  /// too: linking it is cheaper than a second codegen).
  /// @throws type_error for a device function (never stored on its own).
  cache_entry to_cache_entry();

 private:
  compiled_kernel() = default;
  void ensure_module();
  void set_entry_facts();
  /// The host code, linked (from the object when there is one or the code has debug information,
  /// else through the JIT); under compile_lock().
  frontend::host_kernel load_host();

  frontend::typed_module module_;  // empty for one loaded from the disk cache (until rebuilt)
  frontend::compile_config config_;
  bool device_ = false;
  std::vector<const frontend::type*> arg_types_;
  entry_facts facts_;
  frontend::kernel_layout layout_;
  rebuild_fn rebuild_;
  // Made on demand, under compile_lock().
  std::optional<std::string> ptx_, llvm_gpu_, llvm_host_, types_dump_, cubin_;
  bool lto_ = false;
  std::optional<frontend::host_object> host_obj_;
  std::optional<frontend::host_kernel> host_;
  // The kernel loaded on each device (by ordinal), published for load() to read without a lock;
  // made and replaced under load_lock_. Every one made is kept (owned_): one of an earlier context
  // is replaced, not freed, so a reader never holds a dangling pointer.
  std::mutex load_lock_;
  std::unique_ptr<std::atomic<loaded_kernel*>[]> published_;
  std::atomic<std::size_t> published_size_{0};
  std::vector<std::unique_ptr<loaded_kernel>> owned_;
};

}  // namespace cuforge::jit

#pragma once

/// @file
/// Code generation: a typed module to PTX (the GPU) or to host code (the cpu
/// backend), from one lowering with target hooks (docs/compiler.md). The
/// kernel's parameters follow the ABI of abi.hpp.

#include <cuforge/frontend/abi.hpp>
#include <cuforge/frontend/compile_config.hpp>
#include <cuforge/frontend/typer.hpp>
#include <cuforge/runtime/cpu_kernel.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace cuforge::frontend {

/// The LLVM IR of the module for the config's target, optimised as its code
/// would be, as text (inspect_llvm()).
CUFORGE_API std::string emit_llvm_ir(const typed_module& m, const compile_config& cfg);

struct ptx_result {
  std::string ptx;
  std::string entry;  ///< the entry's symbol in the PTX
};

/// PTX for `m` (a kernel: a .entry; a device function: a .func with
/// Numba's device ABI: `int name(T* ret, args...)` returning 0).
/// `cfg.target` must be nvptx.
CUFORGE_API ptx_result compile_ptx(const typed_module& m, const compile_config& cfg);

struct ltoir_result {
  std::string ltoir;  ///< libNVVM's LTO-IR, for nvJitLink's -lto
  std::string entry;  ///< the entry's symbol
};

/// LTO-IR for `m` (a kernel, or a device function with its ABI as
/// compile_ptx makes it): the module lowered for NVPTX, written as NVVM IR
/// (LLVM 7's dialect: nvvm_ir.cpp) and compiled by libNVVM with -gen-lto
/// for cfg.cc, libdevice linked there. `forceinline` marks the entry
/// alwaysinline (numba-cuda's cuda.compile(forceinline=True)). No debug
/// information. `cfg.target` must be nvptx.
/// @throws logic_error when libNVVM is not found or a construct has no NVVM
/// IR form; internal_compiler_error with libNVVM's log when it refuses.
CUFORGE_API ltoir_result compile_ltoir(const typed_module& m, const compile_config& cfg, bool forceinline = false);

/// The NVVM IR text compile_ltoir gives libNVVM (inspection, tests).
CUFORGE_API std::string emit_nvvm_ir(const typed_module& m, const compile_config& cfg, bool forceinline = false);

/// A kernel compiled to host code for the cpu backend. Holds the JIT
/// session the code lives in: keep it alive as long as `fn` may run.
struct host_kernel {
  std::string name;
  cpu::kernel_fn fn = nullptr;
  /// Runs every thread of the context's block in one call (cpu_kernel_symbol::block_fn), or
  /// nullptr: kernels that synchronise, or whose threads may end by unwinding, have none.
  cpu::kernel_fn block_fn = nullptr;
  std::size_t static_shared_bytes = 0;
  bool uses_barrier = true;
  std::vector<std::size_t> param_sizes;  ///< all 8: one per slot
  std::vector<cpu::array_param> arrays;  ///< array_params_of the kernel (cpu_kernel_symbol::arrays)
  std::shared_ptr<void> session;
};

/// The array parameters of kernel `m` (functions[0]) in its parameter slots, each marked as a
/// private sum where the kernel only adds into it with atomics whose results it ignores (every
/// use of the parameter the array of a registry row with `adds_into`, or a read of its shape),
/// for the cpu backend's private sums (runtime/src/cpu/private_sums.hpp); empty when none is.
CUFORGE_API std::vector<cpu::array_param> array_params_of(const typed_module& m);

/// `cfg.target` must be host.
CUFORGE_API host_kernel compile_host(const typed_module& m, const compile_config& cfg);

/// A kernel's host code as a relocatable object file for this machine
/// (host_target_id()), with what loading it needs: what the disk cache
/// stores (host_object.cpp).
struct host_object {
  std::string name;    ///< the kernel's symbol in `object`
  std::string block_name;  ///< its block entry's symbol (host_kernel::block_fn), or empty
  std::string object;  ///< the object file's bytes (ELF on Linux)
  std::size_t static_shared_bytes = 0;
  bool uses_barrier = true;
  std::size_t slots = 0;  ///< parameter slots (host_kernel::param_sizes)
  std::vector<cpu::array_param> arrays;  ///< host_kernel::arrays
  /// Shared libraries the object's undefined symbols are looked up in first: the C/C++ its
  /// kernel links (cuda_c.hpp's host_library).
  std::vector<std::string> libraries;
};

/// Checks an intrinsic's LLVM IR (cuda.extending.intrinsic(llvm=...)) where it is declared: it
/// parses, and defines `symbol` with the LLVM types of `params` and `ret` (bool as i8, none as void).
/// @throws logic_error with the parser's message, or naming what differs.
CUFORGE_API void check_intrinsic_ir(const std::string& ir, const std::string& symbol,
                                    const std::vector<const type*>& params, const type* ret);

/// The code compile_host makes, as an object file instead of in a JIT.
/// `cfg.target` must be host.
/// @throws logic_error for a device function or a codegen failure.
CUFORGE_API host_object compile_host_object(const typed_module& m, const compile_config& cfg);

/// Links `obj` into this process (JITLink, in a library of its own that the
/// returned kernel's `session` releases), binding the names compile_host
/// binds (the scheduler's barriers, the raise helper, libm), then the
/// process's; unwind tables are registered as compile_host's are. The
/// object must come from compile_host_object on a machine with the same
/// host_target_id(). Thread-safe.
/// @throws logic_error when the bytes are not a loadable object or a name
/// is unresolved (nothing is left loaded).
CUFORGE_API host_kernel load_host_object(const host_object& obj);

/// What host code is compiled for, computed once: the process's triple and
/// a hash of the CPUID leaves the host CPU's name and features come from
/// ("x86_64-pc-linux-gnu cpuid:1f2e..."; elsewhere LLVM's CPU name and
/// feature string). Equal ids mean compile_host_object makes the same code.
CUFORGE_API const std::string& host_target_id();

}  // namespace cuforge::frontend

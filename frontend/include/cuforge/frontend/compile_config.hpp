#pragma once

/// @file
/// What one compilation is for: the target and the options that change the
/// code. A value: equal configurations compile a typed module to the same
/// code, so it is hashable, its key() is the options part of the disk
/// cache's key, and codegen picks the target object from it
/// (docs/compiler.md, "Targets").

#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string>
#include <string_view>

namespace cuforge::frontend {

/// The code generators codegen has: one file frontend/src/target_<name>.cpp each.
enum class target_kind : std::uint8_t {
  nvptx,  ///< PTX for NVIDIA GPUs (the cuda backend loads it; the driver compiles it)
  host,   ///< machine code for this process (the cpu backend runs it)
};

/// "nvptx", "host".
CUFORGE_API std::string_view to_string(target_kind t) noexcept;

struct CUFORGE_API compile_config {
  target_kind target = target_kind::nvptx;
  /// The GPU compiled for (sm_XY); nvptx only: host code does not depend on it.
  compute_capability cc{9, 0};
  /// Numba's fastmath: flush denormals, approximate division, sqrt and some
  /// functions, contract into fma, reassociate.
  bool fastmath = false;
  /// 0: none. 1: debug=True: full debug information, and the run-time checks
  /// debug kernels make (assert statements).
  int debug_level = 0;
  /// Line tables without the rest of the debug information.
  bool lineinfo = false;
  /// Array indices checked against their dimensions (an IndexError naming
  /// the index, axis and array); debug=True checks them too.
  bool boundscheck = false;
  /// O3 (false: O0).
  bool opt = true;
  /// The most registers a thread of a kernel may use (`.maxnreg`; nvptx
  /// only); 0 leaves it to ptxas.
  int max_registers = 0;
  /// A kernel's launch bounds (numba-cuda's `launch_bounds`; nvptx only, 0
  /// for none): the most threads a block may have (`.maxntid`, and the
  /// launch refuses more on every backend), the fewest blocks per
  /// multiprocessor to plan registers for (`.minnctapersm`), and the most
  /// blocks of a cluster (`.maxclusterrank`, compute capability 9.0 and up).
  int max_threads_per_block = 0;
  int min_blocks_per_sm = 0;
  int max_blocks_per_cluster = 0;
  /// Code that runs on the host only, called from Python (the host jit,
  /// vectorize's CPU loops, the cpu engine of cuda.reduce): host-only
  /// functions such as random.random type there, and nowhere else (a kernel
  /// of the cpu backend is GPU code run on the host). Host target only.
  bool host_only = false;
  /// Numba's "python" error model outside debug mode (the host jit's default, njit(error_model=
  /// "python")): a zero divisor of /, // and % raises ZeroDivisionError. Kernels and vectorize's
  /// loops keep the "numpy" model (inf, nan, 0) unless debug=True, which checks divisors too.
  bool python_error_model = false;
  /// A device function's entry point (compile_ptx(device=True), cuda.compile): Numba's ABI
  /// (`int name(T* ret, args...)`) or C's (`T name(args...)`, `c_abi`), named `abi_name` when it
  /// is not empty (numba-cuda's abi_info={"abi_name": ...}), else the generated symbol.
  bool c_abi = false;
  std::string abi_name;

  /// The configuration for `t` with `cc` (nvptx) and default options.
  static compile_config for_target(target_kind t, compute_capability cc = {9, 0});

  bool debug() const noexcept { return debug_level > 0; }
  /// Line tables are emitted: asked for, or implied by full debug info.
  bool line_tables() const noexcept { return lineinfo || debug(); }
  /// Array indices are checked: asked for, or implied by debug.
  bool checks_bounds() const noexcept { return boundscheck || debug(); }
  /// Zero divisors raise: the python error model, or debug.
  bool checks_divisors() const noexcept { return python_error_model || debug(); }

  /// This configuration for another target (the same options).
  compile_config with_target(target_kind t) const;

  /// These options for the active backend's kernels: the target its kernel
  /// format names (backend_traits), and on a GPU the current device's
  /// compute capability. Selects the backend on first call.
  compile_config for_active_backend() const;

  /// @throws logic_error naming the field that is out of range.
  void validate() const;

  /// Canonical text naming everything that changes the code, the target's
  /// identity included ("nvptx sm_90 ..." or "host <host_target_id()> ..."):
  /// what the disk cache keys on. Equal keys mean equal configurations.
  std::string key() const;
  std::size_t hash() const noexcept;

  friend bool operator==(const compile_config&, const compile_config&) = default;
};

}  // namespace cuforge::frontend

template <>
struct std::hash<cuforge::frontend::compile_config> {
  std::size_t operator()(const cuforge::frontend::compile_config& c) const noexcept { return c.hash(); }
};

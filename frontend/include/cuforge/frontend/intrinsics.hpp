#pragma once

/// @file
/// The intrinsic registry: every name a kernel reaches that is not its own
/// (cuda.grid, cuda.atomic.add, math.sin, numpy.isnan, builtins.min,
/// operator.add, math.pi...) is one entry, with how it is typed, how it is
/// lowered on each target, what the cpu backend must give its threads, and
/// a line of documentation. The typer and codegen look entries up; the
/// Python stubs of `cuforge.cuda`, its `__all__`, its `.pyi` and
/// docs/intrinsics.md are made from this list (`_core.intrinsics()`), and
/// tests check that they agree. docs/compiler.md, "How to add an
/// intrinsic", walks through adding one.
///
/// This header is the registry's public face: what each entry is, for
/// listing. The typing and lowering hooks are internal
/// (frontend/src/intrinsic_registry.hpp).

#include <cuforge/runtime/export.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace cuforge::frontend {

/// What the cpu backend must give the threads that call an intrinsic: its
/// threads otherwise run as plain loop iterations, one after another
/// (docs/cpu_execution.md).
enum class cpu_needs : std::uint8_t {
  nothing,     ///< runs anywhere, thread by thread
  warp_sync,   ///< the threads of a warp run in step (warp barriers, shuffles, votes)
  block_sync,  ///< the threads of a block meet (block barriers)
  grid_sync,   ///< every thread of the grid meets: the launch is cooperative (all its blocks co-resident)
};

enum class intrinsic_kind : std::uint8_t {
  module,    ///< a namespace of other entries: cuda, cuda.atomic, math
  function,  ///< called: cuda.syncthreads(), math.sin(x)
  value,     ///< read: cuda.laneid, cuda.threadIdx.x, math.pi
};

/// "nothing", "warp_sync", "block_sync".
CUFORGE_API std::string_view to_string(cpu_needs c) noexcept;
/// "module", "function", "value".
CUFORGE_API std::string_view to_string(intrinsic_kind k) noexcept;

struct intrinsic_info {
  /// The full dotted name: "cuda.atomic.add", "math.sin", "builtins.abs".
  std::string_view name;
  intrinsic_kind kind = intrinsic_kind::function;
  cpu_needs cpu = cpu_needs::nothing;
  /// A function's parameters as Python writes them: "(ary, idx, val)"; empty
  /// for values and modules.
  std::string_view params;
  /// One line: what it is, or does.
  std::string_view doc;
  /// The entry this one is another name of ("cuda.float32x2" for "cuda.float2"); empty for most.
  /// Python's cuforge.cuda gives both names the same object, as numba.cuda does.
  std::string_view alias_of;
};

/// Every entry of the registry, in a fixed order (an entry's position is
/// its index, what an `intrinsic` op's attrs[0] holds).
CUFORGE_API const std::vector<intrinsic_info>& intrinsics();

/// The entry named `name`, or null.
CUFORGE_API const intrinsic_info* find_intrinsic(std::string_view name) noexcept;

/// The entry at `index` (an `intrinsic` op's attrs[0]), or null when there is none.
CUFORGE_API const intrinsic_info* intrinsic_at(std::int64_t index) noexcept;

/// The index of the entry named `name` (what an `intrinsic` op of it holds
/// in attrs[0]), or -1.
CUFORGE_API std::int64_t intrinsic_index(std::string_view name) noexcept;

}  // namespace cuforge::frontend

#pragma once

/// @file
/// Type inference: an untyped function and the types of its arguments in, a
/// typed module out (the function and every device function it calls,
/// specialised). See docs/compiler.md for the rules.

#include <cuforge/frontend/abi.hpp>
#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/export.hpp>

#include <memory>
#include <string>
#include <vector>

namespace cuforge::frontend {

struct signature {
  std::vector<const type*> args;
  const type* ret = nullptr;  ///< null: inferred (device functions); kernels return none
};

struct typed_function {
  std::shared_ptr<function> ir;  ///< a typed copy of the untyped IR (expr_kind/op rewritten, types set)
  std::vector<const type*> arg_types;
  const type* return_type = nullptr;
  /// A C identifier, unique per (function, argument types): what PTX and
  /// the host JIT name it.
  std::string symbol;
  bool is_kernel = false;
  /// Per argument: whether the function (or a callee it passes it to) may
  /// write through it (array arguments): NumPy arguments are copied back
  /// only then.
  std::vector<bool> writes_arg;
  /// Whether it (or a callee) uses a block barrier (syncthreads*): the cpu
  /// backend runs barrier-free kernels as loops.
  bool uses_barrier = false;
  /// Whether it (or a callee) meets the whole grid (cuda.cg's grid sync): its
  /// launches are cooperative, every block co-resident.
  bool cooperative = false;
};

struct typed_module {
  /// functions[0] is the entry; the rest are the device functions it
  /// reaches, each once per argument types. op_id::call_device refers to
  /// them by index.
  std::vector<typed_function> functions;
  /// Every place in these functions that may raise (asserts kept by
  /// debug=True), in the order typed: a typed raise_ or assert_ statement's
  /// `site` indexes it, and so does the error record a raising thread
  /// writes. A module with any takes the error record's hidden parameter
  /// slot (abi.hpp).
  std::vector<raise_site> raise_sites;
  /// Constant strings the code uses, which ops name by index (print's formats).
  std::vector<std::string> strings;
  /// The external functions the code calls (cuda.declare_device), once each: call_external's
  /// attrs[0] indexes them. Their types are type_kind::external_function.
  std::vector<const type*> externals;
  /// What the module's code must be linked with: the external functions' files, then those the
  /// kernel named (cuda.jit(link=...)), each once, in that order (docs/interop_c.md).
  std::vector<std::string> link;
  /// Code from overloads libraries registered (cuda.extending) was used: what it compiles to
  /// depends on more than the kernel's source, so the disk cache does not keep it.
  bool uses_overloads = false;

  bool may_raise() const noexcept { return !raise_sites.empty(); }
};

struct typer_options {
  bool debug = false;  ///< keep assert statements (checked at run time)
  /// The code runs on the host only (the host jit, vectorize's CPU loops): host-only functions
  /// (random.random) type; for GPU code (or code that may run on either) they are refused.
  bool host_only = false;
  /// Array indices are checked: one outside its dimension raises IndexError (boundscheck=True,
  /// and debug=True).
  bool boundscheck = false;
  /// A zero divisor raises ZeroDivisionError (debug=True, or the python error model).
  bool check_divisors = false;
};

/// @throws typing_error pointing at the offending source.
CUFORGE_API typed_module infer(type_context& tc, std::shared_ptr<const function> entry, const signature& sig,
                               bool is_kernel, const typer_options& opts = {});

}  // namespace cuforge::frontend

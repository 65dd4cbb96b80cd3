#pragma once

// Numba's typing of scalar operations, as numba-cuda does it, so that a
// program ported from numba.cuda computes in the same types
// (docs/compiler.md, "Type rules"). Two mechanisms, as in Numba:
//
// - Overload resolution, for operators, abs, round and the math module:
//   each operation has a list of candidate signatures (Numba's templates);
//   every argument's conversion to a candidate's parameter is rated
//   (exact < promote < safe < unsafe, from Numba's casting rules closed
//   transitively), and the candidate with the fewest unsafe, then safe, then
//   promoting conversions wins, the earlier on a tie.
// - Unification, for values that meet (a variable's assignments, the
//   branches of a conditional, and/or, min/max): NumPy's promote_types,
//   which is types.hpp's promote().
//
// Python literals have no weak typing here: an int literal is int64, a
// float literal float64, a complex literal complex128, as in Numba.
#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/types.hpp>

#include <string_view>
#include <vector>

namespace cuforge::frontend::detail {

enum class conversion : std::uint8_t { exact = 1, promote = 2, safe = 3, unsafe = 4, none = 99 };

/// Numba's conversion kind from one scalar type to another (none for
/// non-scalars and where Numba has no conversion: complex to real).
conversion can_convert(const type* from, const type* to);

/// A resolved operation: the result type and the types the arguments are
/// converted to before it computes. Null `result`: no candidate matches.
struct resolved_op {
  const type* result = nullptr;
  std::vector<const type*> params;
  explicit operator bool() const noexcept { return result != nullptr; }
};

resolved_op numba_binary(type_context& tc, binop op, const type* a, const type* b);
/// Comparisons: the result is bool; params are the types compared in.
resolved_op numba_compare(type_context& tc, cmpop op, const type* a, const type* b);
/// -x, +x, ~x (not is always bool, by truth).
resolved_op numba_unary(type_context& tc, unop op, const type* a);
/// Builtins and math functions by their registry name ("abs", "round",
/// "math.sin", "math.atan2", ...): the candidates of Numba's template for
/// it. Names Numba types otherwise give an empty result.
resolved_op numba_call(type_context& tc, std::string_view name, const std::vector<const type*>& args);
/// Whether numba_call knows `name`.
bool numba_call_known(std::string_view name);

}  // namespace cuforge::frontend::detail

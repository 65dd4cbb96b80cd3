#pragma once

/// @file
/// Implementations that libraries add to the compiler (cuforge.cuda.extending):
/// overloads written in the kernel language, found by key when the typer
/// meets a call, an operator, a method or an attribute it has no rule for.
/// The typer asks a key's resolvers in registration order for the untyped IR
/// of an implementation for the argument types; the first that gives one is
/// specialised and called like a device function (docs/extending.md).

#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace cuforge::frontend {

/// One argument of a call as an overload takes it: the call's argument at
/// `index` (its positional arguments first, then its keywords in the order
/// given), or, where `index` is -1, the default value `value`.
struct bound_argument {
  int index = -1;
  constant_value value;
};

/// One registered overload.
class CUFORGE_API overload_resolver {
 public:
  virtual ~overload_resolver() = default;
  /// The arguments, in the order its implementation takes them, of a call
  /// with `positional` positional arguments and the keyword arguments
  /// `keywords` (in the call's order), bound as Python binds a call of its
  /// typing function (defaults filled in).
  /// @throws logic_error with Python's words when the call does not fit.
  /// The default: the positional arguments as given, keywords refused.
  virtual std::vector<bound_argument> bind(std::size_t positional, const std::vector<std::string>& keywords);
  /// The implementation for arguments of types `args` (its untyped IR), or
  /// null when this overload has none for them. The same arguments must give
  /// the same IR object (the typer specialises it once).
  /// @throws logic_error with the reason when the overload itself fails.
  virtual std::shared_ptr<const function> resolve(const std::vector<const type*>& args) = 0;
};

/// Registers `r` under `key`:
///   "fn:<id>"               a Python function (the global the walker resolves to `overloaded`)
///   "operator.add", ...     an operator (Python's operator module's names: add, sub, mul, truediv,
///                           floordiv, mod, pow, lshift, rshift, and_, or_, xor, eq, ne, lt, le,
///                           gt, ge, neg, pos, invert)
///   "method:<Class>.<name>" a method of the named tuples (struct types) of class `Class`
///   "attribute:<Class>.<name>" an attribute of them
CUFORGE_API void register_overload(const std::string& key, std::shared_ptr<overload_resolver> r);

/// The resolvers of `key`, in registration order (a copy: registering during typing is safe).
CUFORGE_API std::vector<std::shared_ptr<overload_resolver>> overloads_of(const std::string& key);

}  // namespace cuforge::frontend

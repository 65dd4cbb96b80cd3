#pragma once

/// @file
/// What compilations in one process share: the type context (types are
/// interned for good, so type pointers key caches across compilations and
/// launches) and the lock that makes compiling safe from several threads
/// (the typer and LLVM are not re-entrant on shared state).

#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/export.hpp>

#include <mutex>
#include <string>

namespace cuforge::jit {

/// The process's type context. Interning a type (type_context's methods)
/// must hold compile_lock(), or be the only thread doing it (the Python
/// binding's classification runs under the GIL and takes it around the
/// calls that intern).
CUFORGE_API frontend::type_context& types();

/// Held while typing, generating code or interning types.
CUFORGE_API std::mutex& compile_lock();

/// The type a spec names ("array(float32, 1d, C)"), in types(); takes
/// compile_lock(). @throws logic_error naming what it cannot read.
CUFORGE_API const frontend::type* parse_type(const std::string& spec);

}  // namespace cuforge::jit

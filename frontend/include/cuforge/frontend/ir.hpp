#pragma once

/// @file
/// The compiler's IR: one function's body as structured statements over
/// expression trees, in two stages of one data structure.
///
/// 1. Untyped, as the Python walker builds it through `builder`: close to
///    Python (binary ops, calls, attribute access, subscripts), with the
///    sugar already taken out (augmented assignment, chained comparisons,
///    for over enumerate/zip/arrays, elif) and globals resolved to
///    `global_value`s.
/// 2. Typed, after the typer (typer.hpp) has run: every expression has a
///    runtime type and is one of the kinds codegen knows (`constant`,
///    `variable`, `cast`, `op`, `tuple`, `conditional`, `logical`), every
///    Python-level operation has become an `op` (ops.hpp) on operands
///    already converted to the types that op takes, and every variable has
///    its one type. Codegen is a mechanical translation of this stage.
///    The typed stage also guarantees:
///    - assignment targets are variables (array stores are `expression`
///      statements of an `array_store` op; tuple targets are unpacked by the
///      typer into a temporary and `tuple_get` assignments, so `a, b = b, a`
///      reads before it writes);
///    - conditions (if, while, a conditional's first operand) are bool;
///      `logical` operands are converted to its type (its truth test is
///      `!= 0` of the converted value, which promotion never changes);
///    - for_range's start, stop and step have the loop variable's type (an
///      integer); the loop runs while `v < stop` for a positive step and
///      `v > stop` for a negative one (the step's sign decided at run time
///      when it is not constant; a zero step is a TypingError when constant,
///      and the loop body does not run when it is zero at run time);
///    - returns: bare in kernels; in device functions the value is cast to
///      the return type;
///    - globals are gone: constants became `constant` expressions, modules
///      and functions were resolved into ops or casts, const arrays into
///      `const_array` ops.
///
/// Nodes live in vectors of the function and refer to each other by index.

#include <cuforge/frontend/ops.hpp>
#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/export.hpp>

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cuforge::frontend {

using expr_id = std::int32_t;
using stmt_id = std::int32_t;
using var_id = std::int32_t;
inline constexpr std::int32_t no_id = -1;

/// A position in the function's source file (1-based line, 0-based column,
/// as Python's ast gives them).
struct location {
  std::int32_t line = 0;
  std::int32_t col = 0;
};

/// A compile-time constant. `weak` marks a Python literal (typed int64,
/// float64 or complex128, as Numba types them; the typer checks that Python
/// int arithmetic on literals stays within int64).
struct constant_value {
  enum class kind : std::uint8_t { none, boolean, integer, floating, complex } k = kind::none;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::complex<double> c;
  bool weak = true;
  /// A NumPy scalar's type string ("<f4"): the untyped IR's typed constant;
  /// empty for a Python literal (weak) until the typer decides.
  std::string typestr;
};

enum class binop : std::uint8_t { add, sub, mul, truediv, floordiv, mod, pow, lshift, rshift, bitor_, bitxor, bitand_, matmul };
enum class unop : std::uint8_t { neg, pos, invert, not_ };
enum class cmpop : std::uint8_t { eq, ne, lt, le, gt, ge, is, is_not, in, not_in };

CUFORGE_API const char* to_string(binop op) noexcept;  ///< "+", "//", ...
CUFORGE_API const char* to_string(unop op) noexcept;
CUFORGE_API const char* to_string(cmpop op) noexcept;

enum class expr_kind : std::uint8_t {
  // Both stages.
  constant,     ///< `value`
  variable,     ///< `var`
  tuple,        ///< operands: the elements
  conditional,  ///< operands: condition, then, else (Python's `a if c else b`)
  logical,      ///< operands: left, right; `is_and`: short-circuit `and`/`or` returning an operand
  // Untyped only: the typer rewrites these into the typed kinds.
  global,       ///< `global` (an index into function::globals)
  unary,        ///< `unary_op`, operands: the operand
  binary,       ///< `binary_op`, operands: left, right
  compare,      ///< `compare_op`, operands: left, right (chains are desugared)
  call,         ///< operands: callee, then the positional and keyword arguments; `keywords`
                ///< names the last keywords.size() of them
  attribute,    ///< operands: the object; `name`
  subscript,    ///< operands: the object, the index (a `tuple` for a[i, j])
  slice,        ///< operands: start, stop, step (each no_id when absent)
  // Typed only: made by the typer.
  cast,         ///< operands: the value; converted to `ty` (numeric conversions, Python semantics)
  op,           ///< `op`: an operation of ops.hpp; operands as it defines
};

struct CUFORGE_API expr {
  expr_kind kind = expr_kind::constant;
  location loc;
  std::vector<expr_id> operands;
  const type* ty = nullptr;  ///< set by the typer
  constant_value value;      ///< constant
  var_id var = no_id;        ///< variable
  std::int32_t global = no_id;
  binop binary_op = binop::add;
  unop unary_op = unop::neg;
  cmpop compare_op = cmpop::eq;
  bool is_and = false;       ///< logical
  std::string name;          ///< attribute
  std::vector<std::string> keywords;  ///< call
  op_id op = op_id::none;    ///< op
  /// Compile-time integer arguments of an op (a dimension, a tuple index,
  /// an atomic's memory order, a shared array's shape...), as ops.hpp says.
  std::vector<std::int64_t> attrs;
};

enum class stmt_kind : std::uint8_t {
  assign,     ///< target = value. `target`: a variable, a tuple of targets, or a subscript
              ///< (a store: a[i] = v)
  expression, ///< value, for its effect (a call)
  if_,        ///< value (the condition), body, orelse
  while_,     ///< value (the condition), body, orelse (run when the loop ends without break)
  for_range,  ///< `var` takes start, start+step, ... while < stop (> stop for a negative
              ///< step); operands start, stop, step; body, orelse
  break_,
  continue_,
  return_,    ///< value (no_id: return None)
  pass,
  raise_,     ///< value: a global_ref to an exception global (no_id: a bare raise, refused by the typer)
  assert_,    ///< value: the condition; `message` (kept for debug kernels)
};

struct CUFORGE_API stmt {
  stmt_kind kind = stmt_kind::pass;
  location loc;
  expr_id target = no_id;
  expr_id value = no_id;
  var_id var = no_id;
  expr_id start = no_id, stop = no_id, step = no_id;
  std::vector<stmt_id> body;
  std::vector<stmt_id> orelse;
  std::string message;
  /// Typed raise_ and assert_: the module's raise site (typed_module::raise_sites) it reports as.
  std::int32_t site = no_id;
};

struct CUFORGE_API variable {
  std::string name;     ///< the Python name ("" for temporaries the walker makes)
  location first;       ///< where it is first assigned (or the def line for arguments)
  const type* ty = nullptr;  ///< set by the typer: the one type every assignment converts to
};

/// What a global or closure name of the kernel resolved to in Python.
struct CUFORGE_API global_value {
  enum class kind : std::uint8_t {
    constant,        ///< `value` (numbers, NumPy scalars, booleans, None)
    tuple,           ///< `elements`: constants (nested tuples allowed); a named tuple's `cls` and `fields`
    const_array,     ///< a NumPy array captured as constant memory: `dtype`, `shape`, `bytes`
    module,          ///< `name`: "math", "cmath", "numpy", "cuda", "operator"
    function,        ///< `name`: a known callable ("builtins.abs", "numpy.isnan", "math.sin", ...)
    dtype,           ///< `dtype`: a scalar type named as a value (np.float32, float, int, bool, complex)
    device_function, ///< `callee`: a jitted device function's IR; none for one being compiled further up
                     ///< (recursion): the function `name` (its qualname) of source `file` the typer is typing
    unsupported,     ///< `name` says what it was: an error if the kernel uses it
    tuple_class,     ///< a collections.namedtuple class: `cls`, `fields`
    device_array,    ///< a device array captured by reference: `address`, `dtype`, `shape`, `strides` (bytes)
    string,          ///< a constant string where the typer takes one (print's arguments): `message`
    exception,       ///< what a raise statement raises: the class `cls` (a builtin's name, "ValueError", or
                     ///< "module.qualname"), its `message` (the first argument as str(); "" for none)
    overloaded,      ///< a Python function with implementations registered (cuda.extending.overload):
                     ///< `name` its key in frontend/extending.hpp's registry, `message` its name for messages
    external_function,  ///< cuda.declare_device's function: its symbol `name`, parameter type specs
                        ///< `fields`, return type spec `dtype`, ABI `cls` ("numba" or "c"), and the
                        ///< files defining it, `link`; `cooperative` when it needs a cooperative launch
  } k = kind::unsupported;
  std::string name;
  constant_value value;
  std::vector<global_value> elements;
  std::string dtype;                 ///< NumPy type string ("<f4")
  std::vector<std::int64_t> shape;   ///< const_array
  std::vector<unsigned char> bytes;  ///< const_array: C-contiguous data
  std::shared_ptr<const function> callee;
  std::string file;                  ///< device_function without callee
  std::string cls;                   ///< tuple_class, a named tuple: the class's name
  std::vector<std::string> fields;   ///< tuple_class, a named tuple: the field names
  std::vector<std::string> field_types;  ///< tuple_class of a struct type (cuda.extending): its fields' type specs
  std::uint64_t address = 0;         ///< device_array: its data's device address
  std::vector<std::int64_t> strides; ///< device_array
  std::string message;               ///< exception, string
  std::vector<std::string> link;     ///< external_function: files to link (paths)
  bool cooperative = false;          ///< external_function: its code needs a cooperative launch
};

/// One Python function's IR.
struct CUFORGE_API function {
  std::string name;       ///< __name__
  std::string qualname;   ///< __qualname__
  std::string filename;
  std::int32_t first_line = 0;
  /// The name messages give it: the qualname, else the name.
  const std::string& display_name() const noexcept { return qualname.empty() ? name : qualname; }
  std::vector<std::string> source_lines;  ///< the file's lines (for diagnostics), or empty
  std::vector<var_id> params;             ///< the arguments, in order
  /// `def f(a, *rest)`: the last parameter takes the extra positional
  /// arguments, as a tuple.
  bool varargs = false;
  std::vector<variable> vars;
  std::vector<expr> exprs;
  std::vector<stmt> stmts;
  std::vector<stmt_id> body;
  std::vector<global_value> globals;
  /// Text that identifies the source for caches (the function's source and
  /// the values its globals resolved to).
  std::string fingerprint;

  const expr& at(expr_id e) const { return exprs.at(static_cast<std::size_t>(e)); }
  expr& at(expr_id e) { return exprs.at(static_cast<std::size_t>(e)); }
  const stmt& at_stmt(stmt_id s) const { return stmts.at(static_cast<std::size_t>(s)); }
  stmt& at_stmt(stmt_id s) { return stmts.at(static_cast<std::size_t>(s)); }

  /// A readable listing (one statement a line, expressions with their types
  /// once typed): what inspect_types() shows and what tests compare.
  std::string dump() const;
};

/// Builds a function's IR; the Python walker drives it. Every method
/// returns the new node's id. Blocks are built bottom-up: make the
/// statements, then pass their ids to the statement that holds them.
class CUFORGE_API builder {
 public:
  builder(std::string name, std::string qualname, std::string filename, std::int32_t first_line);

  var_id param(const std::string& name, location loc);
  /// The variable for a Python name (made on first use), or a fresh
  /// temporary when `name` is empty.
  var_id variable(const std::string& name, location loc);
  std::int32_t global(global_value g);

  expr_id constant(constant_value v, location loc);
  expr_id name(var_id v, location loc);
  expr_id global_ref(std::int32_t g, location loc);
  expr_id unary(unop op, expr_id a, location loc);
  /// `inplace`: an augmented assignment's (`a += b`; attrs {1}), which updates an array in place.
  expr_id binary(binop op, expr_id a, expr_id b, location loc, bool inplace = false);
  expr_id compare(cmpop op, expr_id a, expr_id b, location loc);
  expr_id logical(bool is_and, expr_id a, expr_id b, location loc);
  expr_id conditional(expr_id cond, expr_id then, expr_id otherwise, location loc);
  expr_id call(expr_id callee, std::vector<expr_id> args, std::vector<std::string> keywords, location loc);
  expr_id attribute(expr_id object, const std::string& name, location loc);
  expr_id subscript(expr_id object, expr_id index, location loc);
  expr_id tuple(std::vector<expr_id> elements, location loc);
  expr_id slice(expr_id start, expr_id stop, expr_id step, location loc);

  stmt_id assign(expr_id target, expr_id value, location loc);
  stmt_id expression(expr_id value, location loc);
  stmt_id if_(expr_id cond, std::vector<stmt_id> body, std::vector<stmt_id> orelse, location loc);
  stmt_id while_(expr_id cond, std::vector<stmt_id> body, std::vector<stmt_id> orelse, location loc);
  stmt_id for_range(var_id v, expr_id start, expr_id stop, expr_id step, std::vector<stmt_id> body,
                    std::vector<stmt_id> orelse, location loc);
  stmt_id break_(location loc);
  stmt_id continue_(location loc);
  stmt_id return_(expr_id value, location loc);
  stmt_id pass(location loc);
  stmt_id raise_(expr_id value, location loc);
  stmt_id assert_(expr_id cond, std::string message, location loc);

  void set_body(std::vector<stmt_id> body);
  void set_source(std::vector<std::string> lines);
  void set_fingerprint(std::string text);
  /// The last parameter made collects extra positional arguments (`*rest`).
  void set_varargs();

  /// The finished function; the builder is empty afterwards.
  std::shared_ptr<function> finish();

 private:
  std::shared_ptr<function> f_;
};

}  // namespace cuforge::frontend

#pragma once

// Internals of the typer (typer.hpp; the rules are docs/compiler.md's "Type
// rules"). A module_typer owns the device-function specialisations; a
// function_typer types one function for one tuple of argument types. The
// work is split by area:
//   typer.cpp           infer(), specialisation, symbols, module assembly
//   typer_function.cpp  the passes to a fixpoint, variables, conversions, emitting
//   typer_stmt.cpp      statements
//   typer_expr.cpp      expressions, operators, attributes, call dispatch
//   typer_calls.cpp     calls: of intrinsics (the registry's rows type them: intrinsics_*.cpp),
//                       dtypes, methods and device functions; helpers rows share (min/max, round)
//   typer_arrays.cpp    subscripts (arrays and tuples), array attributes, stores
//   typer_records.cpp   records: fields read and written, array elements that are records
//
// How a function is typed: the body is lowered to typed IR repeatedly into a
// scratch function while the variables' types grow (each assignment joins
// its value's type into its variable's, NumPy promotion); a statement that
// reads a variable with no type yet, or that fails to type, contributes
// nothing to that pass. When a pass changes nothing, a final pass lowers the
// body into the real output with every type fixed, and now errors are
// reported.
//
// Weak values are Python ints and floats: literals, values computed only
// from them (`2 * 3`, `-1`), Python's builtins that return Python ints (len,
// the extents of .shape, .size), and variables every assignment of which is
// weak (`for i in range(10)`, `i = 0`). They type as int64/float64 like any
// other (Numba's typing, numba_typing.hpp); weakness only says where Python's
// unbounded integers must be checked to fit in int64, and which range()
// arguments were literals.

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/extending.hpp>
#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/typer.hpp>

#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cuforge::frontend::detail {

/// A typed expression while it is being built: its node in the output
/// function (no_id for compile-time values: modules, functions, dtypes,
/// device functions) and what typing needs to know about it.
struct value {
  expr_id id = no_id;
  const type* ty = nullptr;
  bool weak = false;    ///< a Python scalar (see "Weak values" above)
  bool nonneg = false;  ///< provably >= 0 (indices need no wraparound)
  bool pure = true;     ///< no side effects: may be evaluated twice or not at all
  /// The parameters an array (or a tuple holding arrays) may alias: stores
  /// through it write those arguments.
  std::vector<int> roots;
  /// A tuple built here (a literal, .shape, cuda.grid(2)): its elements, so
  /// indexing with a constant takes the element itself, weakness and all.
  bool literal = false;
  std::vector<value> elems;
  /// A bound method (`z.conjugate`): its receiver.
  std::shared_ptr<value> self;
  /// A compile-time value: the name the kernel reaches it by ("np.float32",
  /// "int"), for messages.
  std::string name;

  bool runtime() const noexcept { return ty && ty->is_runtime(); }
};

struct kwarg {
  std::string name;
  value v;
};

/// A call's arguments once typed, and what is called (for messages).
struct call_args {
  std::string name;
  std::vector<value> args;
  std::vector<kwarg> kwargs;
  location loc;
  /// The source expression of each of `args`, where the call came from source (no_id for the
  /// elements of a `*t` argument, and empty for calls made by the typer itself).
  std::vector<expr_id> arg_exprs;

  expr_id arg_expr(std::size_t i) const { return i < arg_exprs.size() ? arg_exprs[i] : no_id; }
};

/// One component of an array index: an integer, a full slice `:`, or a
/// slice with some of start, stop, step (absent ones have id no_id).
struct index_item {
  enum class kind : std::uint8_t { integer, full, slice } k = kind::integer;
  value i;                  ///< integer
  value start, stop, step;  ///< slice
  location loc;
};

/// A value known while typing, kept across passes without its node: a
/// compile-time value (a function, a dtype, a module, a device function) or
/// a constant scalar, or a tuple of those.
struct fixed_value {
  const type* ty = nullptr;
  std::string name;    ///< a compile-time value's (value::name)
  constant_value cv;   ///< a runtime scalar's
  bool weak = false;
  std::vector<fixed_value> elems;  ///< a tuple's
};

/// What the passes learn about a variable of the source function.
struct var_state {
  const type* ty = nullptr;  ///< null: no assignment typed yet
  bool weak = false;
  bool nonneg = true;  ///< every value assigned so far is >= 0 (a greatest fixpoint)
  std::vector<int> roots;
  /// What the variable always holds, where that is known: a compile-time
  /// value (a parameter given one, `f = math.sin`), or the constant of a
  /// variable assigned once (`N = 100`, read as the constant, so it may size
  /// a shared array as a literal would).
  std::optional<fixed_value> fixed;
};

/// One device function typed for one tuple of argument types.
struct specialization {
  const function* callee = nullptr;
  std::vector<const type*> args;
  typed_function tf;
  std::vector<int> return_roots;  ///< the callee's parameters its return value may alias
  std::exception_ptr error;       ///< typing it failed: the error, rethrown at each use
};

/// Thrown while inferring when an expression reads a variable that has no
/// type yet: the statement contributes nothing to this pass.
struct unknown_type {};

struct intrinsic;  // intrinsic_registry.hpp
class function_typer;

class module_typer {
 public:
  module_typer(type_context& tc, const typer_options& opts) : tc(tc), opts(opts) {}

  /// The id of `callee`'s specialisation for `args`, typing it on first
  /// request. @throws typing_error (the callee's, or recursion at `loc`).
  int specialize(const function& callee, const std::vector<const type*>& args, const function& caller, location loc);
  const specialization& at(int id) const { return specs_[static_cast<std::size_t>(id)]; }

  /// The module: the entry, then the specialisations it reaches, with
  /// call_device's attrs[0] renumbered from specialisation ids to indices.
  typed_module assemble(typed_function entry);

  /// Registers a place that may raise; returns its index in the module's raise_sites.
  std::int32_t add_site(raise_site site) {
    sites_.push_back(std::move(site));
    return static_cast<std::int32_t>(sites_.size() - 1);
  }
  /// The index of constant string `text` in the module's strings (added once).
  std::int64_t add_string(const std::string& text) {
    for (std::size_t i = 0; i < strings_.size(); ++i)
      if (strings_[i] == text) return static_cast<std::int64_t>(i);
    strings_.push_back(text);
    return static_cast<std::int64_t>(strings_.size() - 1);
  }
  /// The index of external function `f` in the module's externals (added once); -1 when another
  /// declaration of its symbol (a different signature, ABI or files) is there already.
  std::int64_t add_external(const type* f) {
    for (std::size_t i = 0; i < externals_.size(); ++i) {
      if (externals_[i] == f) return static_cast<std::int64_t>(i);
      if (externals_[i]->name == f->name) return -1;
    }
    externals_.push_back(f);
    return static_cast<std::int64_t>(externals_.size() - 1);
  }
  /// Keeps an overload's implementation alive as long as the module's typing (specialisations point at it).
  void keep_alive(std::shared_ptr<const function> f) { kept_.push_back(std::move(f)); }
  /// The declaration of `symbol` the module has, or null.
  const type* external_named(const std::string& symbol) const {
    for (const type* e : externals_)
      if (e->name == symbol) return e;
    return nullptr;
  }

  type_context& tc;
  const typer_options& opts;
  /// A function being typed: its specialisation's id (-1 for the module's entry).
  struct frame {
    const function* f = nullptr;
    const std::vector<const type*>* args = nullptr;
    function_typer* ft = nullptr;
    int sid = -1;
  };
  std::vector<frame> frames;  ///< the functions being typed, outermost first
  /// The frame typing `callee` for `args` (a recursive call), or null.
  const frame* find_frame(const function& callee, const std::vector<const type*>& args) const;

 private:
  std::deque<specialization> specs_;
  std::vector<raise_site> sites_;
  std::vector<std::string> strings_;
  std::vector<const type*> externals_;
  std::vector<std::shared_ptr<const function>> kept_;
};

/// @throws typing_error when a thread's local arrays exceed CUDA's 512 KiB.
void check_local_memory(const typed_module& m);

/// "cuforge_<qualname>_<16 hex digits>": unique per function and argument types.
std::string make_symbol(const function& f, const std::vector<const type*>& args);

class function_typer {
 public:
  function_typer(module_typer& m, const function& src, std::vector<const type*> args, bool is_kernel,
                 const type* declared_return, int sid = -1);
  typed_function run();
  std::vector<int> return_roots() const { return ret_.roots; }

  // --- errors ------------------------------------------------------------------
  [[noreturn]] void fail(location loc, const std::string& message) const;
  /// "No implementation of math.sin for (array(float32, 1d, C),)" (+ why).
  [[noreturn]] void no_impl(const call_args& c, const std::string& why = "") const;
  static std::string types_text(const call_args& c);

  // --- the source, checked (malformed IR is a typing_error, never a crash) --
  const expr& sx(expr_id id, location where) const;
  const stmt& ss(stmt_id id) const;

  /// The code runs on the host only (the host jit, vectorize's CPU loops).
  bool host_only() const noexcept { return m_.opts.host_only; }
  /// It uses the whole grid as a group (cuda.cg.this_grid()): its launches are cooperative.
  void mark_cooperative() {
    cooperative_ = true;
    uses_barrier_ = true;
  }
  /// The index of constant string `text` in the module's strings (typed_module::strings).
  std::int64_t add_string(const std::string& text);

  // --- emitting typed nodes into out_ ---------------------------------------------
  expr_id add(expr e);
  /// `id` as an operand (or a statement's expression): the typed IR is a
  /// tree, so a node used a second time is cloned (only pure nodes are:
  /// impure values are hoisted into temporaries before they are reused).
  expr_id use(expr_id id);
  expr_id clone(expr_id id);
  stmt_id add_stmt(stmt s);
  value constant(const constant_value& cv, const type* t, location loc, bool weak = false);
  value int_constant(std::int64_t v, const type* t, location loc, bool weak = false);
  value op(op_id id, const type* t, std::vector<value> operands, location loc, std::vector<std::int64_t> attrs = {},
           bool side_effects = false);
  /// A scalar converted to scalar type `t` (constants fold).
  value cast(const value& v, const type* t, location loc);
  /// The cast node of `v` to `t` (codegen converts), without checks or folding.
  value cast_node(const value& v, const type* t, location loc);
  /// An optional's value where a value is needed (Numba's OptionalType to its value): None raises
  /// TypeError("expected int64, got None") in the kernel. Other values are themselves.
  value unwrap(const value& v, location loc);
  /// Any runtime value converted to runtime type `t`: scalars cast, tuples
  /// element by element, arrays to a wider layout (a view), none to none.
  value convert(const value& v, const type* t, location loc, const std::string& what);
  value var_ref(var_id v, location loc);
  /// `v` as a fixed_value when it is a compile-time value or a constant (a tuple of them), else nullopt.
  std::optional<fixed_value> freeze(const value& v) const;
  value thaw(const fixed_value& f, location loc);
  value make_tuple(std::vector<value> elems, location loc);
  /// A named tuple of class `cls` (a tuple_class type) from its elements.
  value make_named_tuple(std::vector<value> elems, const type* cls, location loc);
  value conditional(const value& cond, const value& a, const value& b, const type* t, location loc);
  /// `v` (an op run for its effect: a store) as an expression statement appended to `out`.
  void emit_effect(const value& v, location loc, std::vector<stmt_id>& out);
  /// Evaluates `v` into a temporary before the current statement.
  value hoist(const value& v, location loc);
  value pure(const value& v, location loc) { return v.pure ? v : hoist(v, loc); }
  /// Elements of a tuple value (its literal elements, or tuple_gets).
  std::vector<value> tuple_elements(const value& t, location loc);
  std::optional<std::int64_t> const_int(const value& v) const;
  const constant_value* const_of(const value& v) const;
  var_id new_temp(const type* t);

  // --- variables ---------------------------------------------------------------
  /// The type a variable holding both gets (promotion; arrays widen their
  /// layout), or null. `weak` is set to whether the join is weak.
  const type* join(const type* a, bool a_weak, const type* b, bool b_weak, bool& weak);
  void assign_var(var_id v, const value& val, location loc, std::vector<stmt_id>& out);

  // --- statements (typer_stmt.cpp) -------------------------------------------------
  void block(const std::vector<stmt_id>& ids, std::vector<stmt_id>& out);
  void statement(stmt_id id, std::vector<stmt_id>& out);
  void statement_impl(stmt_id id, std::vector<stmt_id>& out);
  void assign(const stmt& s, std::vector<stmt_id>& out);
  void assign_target(expr_id target, const value& v, location loc, std::vector<stmt_id>& out);
  void for_range(const stmt& s, std::vector<stmt_id>& out);
  /// The integer type a range(start, stop, step) counts in (what for_range
  /// gives its variable); `where` locates each argument's errors. `weak` is
  /// set when all three were weak (Python int constants).
  const type* range_type(const value* const (&parts)[3], const location (&where)[3], location loc, bool& weak);
  void while_(const stmt& s, std::vector<stmt_id>& out);
  void return_(const stmt& s, std::vector<stmt_id>& out);
  /// Runs `f` (a statement's header) reporting whether it typed; while
  /// inferring, failures are recorded instead of thrown.
  template <class F>
  bool guarded(F&& f);
  bool terminates(const std::vector<stmt_id>& typed_block) const;

  // --- expressions (typer_expr.cpp) ------------------------------------------------
  value lower(expr_id id);
  value lower_global(std::int32_t g, location loc);
  value global_constant(const global_value& g, location loc);
  value truth(const value& v, location loc);
  value unary(unop o, const value& a, location loc);
  /// Divisor `y` of `o` (/, //, %), checked for zero under debug=True (a nonzero op).
  value checked_divisor(binop o, const value& y, location loc);
  value binary(binop o, const value& a, const value& b, location loc);
  value compare(cmpop o, const value& a, const value& b, location loc);
  /// An operator with a bfloat16 operand, as numba-cuda types it (intrinsics_bf16.cpp): its cuda.bf16
  /// function on two bfloat16s (or one and an 8-bit integer, which converts safely), else the
  /// operator on the bfloat16 widened to float32. `o` is a binop, cmpop or unop.
  value bfloat16_binary(binop o, const value& a, const value& b, location loc);
  value bfloat16_compare(cmpop o, const value& a, const value& b, location loc);
  value bfloat16_unary(unop o, const value& a, location loc);
  /// datetime64/timedelta64 operands, as Numba types and computes them (typer_datetime.cpp).
  value time_binary(binop o, const value& a, const value& b, location loc);
  value time_compare(cmpop o, const value& a, const value& b, location loc);
  value time_unary(unop o, const value& a, location loc);
  value time_abs(const value& a, location loc);
  /// np.isnat: whether a datetime or timedelta is NaT.
  value time_isnat(const value& a, location loc);
  /// A datetime or timedelta to another unit (exactly), or to or from its int64 count.
  value time_cast(const value& v, const type* t, location loc);
  value logical(bool is_and, const value& a, const value& b, location loc);
  value attribute(const value& obj, const std::string& name, location loc);
  value call(const value& callee, call_args& c);
  /// Whether the untyped argument `arg` is a star argument (`f(*t)`).
  bool is_star(expr_id arg) const;
  value module_attribute(const std::string& module, const std::string& name, location loc);

  // --- calls (typer_calls.cpp) -----------------------------------------------------
  /// A call of the registry's entry `name` (its typing function), or a TypingError.
  value call_function(const std::string& name, call_args& c);
  /// A numpy.* row called on arrays with an out array (`np.sin(x, out)`, `np.arctan2(x, y, out=r)`): the
  /// row's scalar typing applied to every element, as one ufunc_loop (typer_arrays.cpp).
  value ufunc_call(const intrinsic& e, call_args& c);
  /// An operator on arrays in host code: the ufunc row `ufunc` (numpy.add...) on `operands`, its result
  /// a new array, or the first operand itself updated when `inplace` (numba's `a += b`).
  value array_operator(const char* ufunc, std::vector<value> operands, bool inplace, location loc);
  value call_dtype(const type* scalar, call_args& c);
  value call_device(const function& callee, call_args& c);
  /// A call of a function declared with cuda.declare_device (type_kind::external_function).
  value call_external(const type& f, call_args& c);
  /// A call of a function with registered overloads (cuda.extending.overload), by its registry key.
  value call_overloaded(const std::string& key, call_args& c);
  /// The implementation the overloads registered under `key` give for `types` (kept alive by the
  /// module), or null when none does. @throws typing_error when an overload fails.
  std::shared_ptr<const function> resolve_overload(const std::string& key, const std::vector<const type*>& types,
                                                   location loc, const std::string& what = "");
  /// One overload's implementation for `types` (resolve_overload's step).
  std::shared_ptr<const function> resolve_with(overload_resolver& r, const std::string& key,
                                               const std::vector<const type*>& types, location loc,
                                               const std::string& what);
  /// A call of a struct type's method registered by cuda.extending.overload_method (`key` is
  /// "method:<Class>.<name>"): each overload binds the call (keywords, defaults) by its typing
  /// function's signature; the first whose implementation takes the arguments is called.
  value call_user_method(const std::string& key, const value& self, call_args& c);
  /// `key`'s implementation for `args` called (an operator, attribute or method of a struct type),
  /// or nullopt when no overload applies.
  std::optional<value> user_overload(const std::string& key, std::vector<value> args, location loc);
  value call_method(const std::string& name, const value& self, call_args& c);
  value min_max(bool is_min, std::vector<value> xs, call_args& c);
  value round(call_args& c);
  /// Refuses `x o y` of two Python ints when Python's value leaves int64.
  void python_int(binop o, std::int64_t x, std::int64_t y, location loc);
  value pow(const value& a, const value& b, location loc);
  value float_math(op_id o, const value& x, call_args& c);
  /// The `intrinsic` op of registry entry `e` (attrs[0] its index, then `attrs`); a kernel that
  /// emits one whose cpu_needs is not `nothing` needs the cpu backend's fibers (uses_barrier).
  value intrinsic_op(const intrinsic& e, const type* t, std::vector<value> operands, location loc,
                     std::vector<std::int64_t> attrs = {}, bool side_effects = false);

  // --- arrays and tuples (typer_arrays.cpp) ---------------------------------------
  /// `array_expr`: the source expression of obj (names an array in a bounds check's message).
  value subscript(const value& obj, expr_id index, location loc, expr_id array_expr = no_id);
  std::vector<index_item> index_items(expr_id index, location loc);
  value index_array(const value& a, const std::vector<index_item>& items, location loc, expr_id array_expr = no_id);
  /// The raise site of a bounds check on the array `array_expr` names, at `loc`; -1 where indices
  /// are not checked (boundscheck off).
  std::int64_t bounds_site(expr_id array_expr, location loc);
  value tuple_index(const value& t, const value& idx, location loc);
  value array_attribute(const value& a, const std::string& name, location loc);
  /// A run-time check before the statement being typed: raises `exception(message)` at `loc` in the
  /// kernel where `ok` is false (an assert statement with its raise site).
  void raise_unless(const value& ok, const std::string& exception, const std::string& message, location loc);
  /// `a.reshape(shape)` / `a.reshape(d0, d1, ...)` of a C-contiguous array (one extent may be -1).
  value reshape(const value& self, call_args& c);
  /// `a[index] = v` as an array_store statement.
  void store(const value& a, expr_id index, const value& v, location loc, std::vector<stmt_id>& out,
             expr_id array_expr = no_id);
  /// The operands (int64 indices) for an element of `a` at `idx` (an int or
  /// a tuple of ints), `may_be_negative` set when one may be negative.
  std::vector<value> element_indices(const value& a, const value& idx, location loc, bool& may_be_negative,
                                     const std::string& what);
  /// An index counted from the end when negative, made non-negative here
  /// (for the ops that do not wrap indices themselves).
  value wrap_index(const value& a, int dim, const value& i, location loc);
  void mark_written(const value& a);

  // --- records (typer_records.cpp) ----------------------------------------------------
  /// An element's type for `array`: its dtype, a record in the array's space.
  const type* element_type(const type* array);
  /// The field of record `r` that `name` (key == no_id) or the constant `key` (a field's position) names.
  std::size_t field_index(const value& r, expr_id key, const std::string& name, location loc);
  value record_get(const value& r, std::size_t field, location loc);
  /// `r.f = v` as a record_set statement (v cast to a scalar field's type).
  void record_set(const value& r, std::size_t field, const value& v, location loc, std::vector<stmt_id>& out);

  // --- state ---------------------------------------------------------------------
  module_typer& m_;
  type_context& tc_;
  const function& src_;
  std::vector<const type*> args_;
  bool is_kernel_;
  const type* declared_return_;
  int sid_ = -1;  ///< this specialisation's id in the module typer (-1: the entry)
  /// The return type a recursive call from another function was given while
  /// this one was still being typed (it must not change afterwards).
  const type* handed_out_ = nullptr;
  std::shared_ptr<function> out_;
  std::vector<bool> used_;  ///< per node of out_: already an operand somewhere
  /// How a new array a ufunc (an array operator) made in host code is computed, element by element:
  /// the row and the inputs it was given (leaf arrays and numbers evaluated once; other such results).
  /// An array operator taking the result right away fuses it (one loop, no array in between).
  struct ufunc_recipe {
    const intrinsic* row;
    std::string name;
    std::vector<value> ins;
    array_layout layout;
  };
  std::unordered_map<expr_id, ufunc_recipe> ufunc_recipes_;  ///< by the ufunc_loop making the array
  bool final_ = false;
  bool changed_ = false;
  bool incomplete_ = false;  ///< a statement of this inferring pass failed to type (guarded)
  std::exception_ptr first_error_;  ///< the first failure of the latest inferring pass
  std::vector<var_state> vars_;
  std::vector<bool> assigned_somewhere_;
  std::vector<int> assignments_;  ///< per variable: the statements that assign it (parameters count one)
  var_state ret_;  ///< the return type so far (ty null: no return seen)
  location ret_loc_;
  std::vector<bool> writes_;
  bool uses_barrier_ = false;
  bool cooperative_ = false;  ///< it meets the whole grid (cuda.cg's grid sync): a cooperative launch
  std::vector<stmt_id>* prefix_ = nullptr;  ///< where hoisted evaluations go
  int loop_depth_ = 0;
  int depth_ = 0;  ///< nesting of lower()/statement(): a cycle in malformed IR ends here

  /// Counts nesting; malformed IR with a cycle becomes a typing_error.
  struct nesting {
    function_typer& ft;
    nesting(function_typer& ft, location loc);
    ~nesting() { --ft.depth_; }
    nesting(const nesting&) = delete;
    nesting& operator=(const nesting&) = delete;
  };
};

template <class F>
bool function_typer::guarded(F&& f) {
  if (final_) {
    f();
    return true;
  }
  try {
    f();
    return true;
  } catch (const unknown_type&) {
    incomplete_ = true;
    return false;
  } catch (const typing_error&) {
    if (!first_error_) first_error_ = std::current_exception();
    incomplete_ = true;
    return false;
  }
}

/// Joins sorted sets of parameter indices.
void add_roots(std::vector<int>& into, const std::vector<int>& from);

/// `cv` converted to scalar type `to` (the value kind follows the type
/// kind; integers wrap to the width, uint64 keeps its bits in `i`).
constant_value convert_constant(const constant_value& cv, const type* from, const type* to);

/// The default type of a Python literal (int64, float64, complex128, bool, none).
const type* literal_type(type_context& tc, const constant_value& cv);

/// The canonical name of a module or function as the walker may spell it
/// ("cuforge.cuda.grid" -> "cuda.grid", "np.sqrt" -> "numpy.sqrt", "abs" ->
/// "builtins.abs").
std::string canonical_name(const std::string& name, bool is_module);

}  // namespace cuforge::frontend::detail

#pragma once

// The lowering of a typed module to LLVM IR, shared by codegen_*.cpp and the
// targets. module_state holds what the functions of one compilation share;
// function_lowering translates one typed function, statement by statement.
//
// Values: bool is i1 in registers and i8 in memory; float16 is `half` (its
// arithmetic computes in float); complex is {float, float} / {double,
// double}; an array is {ptr data, [n x i64] shape, [n x i64] strides} by
// value (the pointer in the address space of the array's memory); a tuple
// is a literal struct of its elements; None is the empty struct.

#include "codegen_target.hpp"
#include <cuforge/runtime/small_floats.hpp>

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/ir.hpp>

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cuforge::frontend::detail {

/// @throws internal_compiler_error "codegen: <what>" (an inconsistency in the typed IR or in codegen),
/// naming `function` when given.
[[noreturn]] void fail(const std::string& what, const std::string& function = {});

/// The scalar kinds codegen converts between; `bits` is the width of one value
/// (a complex's component width for complex).
struct scalar_info {
  enum class kind : std::uint8_t { boolean, integer, floating, complex } k = kind::integer;
  int bits = 64;
  bool is_signed = true;
};
scalar_info scalar_of(const type* t);

struct module_state {
  module_state(const typed_module& m, target& t, llvm::Module& mod);
  module_state(const module_state&) = delete;
  module_state& operator=(const module_state&) = delete;

  const typed_module& tm;
  const compile_config& opts;  ///< the target's configuration
  target& tgt;
  llvm::Module& mod;
  llvm::LLVMContext& ctx;

  /// Per typed function: the function its body is lowered into (internal for device functions).
  std::vector<llvm::Function*> fns;

  /// The static shared memory of the kernel, laid out once for every op site of every function
  /// (the GPU uses its own globals but the same sites).
  std::map<std::pair<std::size_t, expr_id>, std::uint64_t> shared_offsets;
  std::uint64_t static_shared_bytes = 0;
  /// Scratch areas in the block's shared memory that lowering asked for by name (block_scratch).
  std::map<std::string, std::uint64_t> scratch_offsets;
  /// Shared and constant arrays already made, per op site.
  std::map<std::pair<std::size_t, expr_id>, llvm::Value*> site_globals;
  /// Helper functions (integer power, complex power...), made once per module.
  std::map<std::string, llvm::Function*> helpers;

  std::unique_ptr<llvm::DIBuilder> dib;
  llvm::DICompileUnit* cu = nullptr;

  llvm::Type* value_type(const type* t);
  /// The in-memory type: array elements, the device ABI's return slot (bool as i8, recursively).
  llvm::Type* memory_type(const type* t);
  /// A function's return type (None: void).
  llvm::Type* return_type(const type* t);
  llvm::StructType* array_struct(const type* t);
  llvm::Type* float_type(int bits);
  llvm::StructType* empty_struct();
  llvm::Value* none_value();
  /// The function `name` when already made, else null.
  llvm::Function* helper(const std::string& name) const;
  /// The offset in the block's shared memory of the scratch area `name` of `bytes` bytes (16-byte
  /// aligned, after the kernel's shared arrays, zeroed when the block starts), made on first request.
  /// For lowerings that need memory a block's threads share (the host's barrier reductions).
  std::uint64_t block_scratch(const std::string& name, std::uint64_t bytes);
  const llvm::DataLayout& layout() const { return mod.getDataLayout(); }
};

class function_lowering {
 public:
  function_lowering(module_state& ms, std::size_t index, llvm::Function* fn);

  /// Lowers the body into `fn`; `params` are the argument values in order (the kernel's reconstructed
  /// from its slots, a device function's its LLVM arguments).
  void emit(const std::vector<llvm::Value*>& params);

  module_state& ms;
  std::size_t index;
  const typed_function& tf;
  const function& f;
  llvm::Function* fn;
  llvm::IRBuilder<> b;
  llvm::Value* ctx = nullptr;  ///< host: the thread_context*
  /// The launch's error record (kernel_error_record*, in global memory) in a module that may raise;
  /// null in one that may not, or when the caller has none (Numba's device ABI).
  llvm::Value* error_record = nullptr;
  llvm::LLVMContext& c_() { return ms.ctx; }

  [[noreturn]] void fail_at(const std::string& what, location loc) const;

  // --- values (codegen_expr.cpp) ---
  llvm::Value* expr(expr_id id);
  const type* type_of(expr_id id) const;
  llvm::Value* constant(const type* t, const constant_value& v);
  llvm::Value* cast(llvm::Value* v, const type* from, const type* to);
  /// Python truth (!= 0) of a scalar, as i1.
  llvm::Value* truth(llvm::Value* v, const type* t);
  /// Branch to `yes` or `no` on a condition's truth, and/or/not as branches of their own.
  void branch_on(expr_id id, llvm::BasicBlock* yes, llvm::BasicBlock* no);
  llvm::Value* scalar_cast(llvm::Value* v, scalar_info from, scalar_info to);
  llvm::Value* float_resize(llvm::Value* v, int to_bits);
  llvm::Value* float_to_int(llvm::Value* v, int bits, bool is_signed);
  llvm::Value* int_to_float(llvm::Value* v, bool is_signed, int to_bits);
  /// A typed value from the kernel's 8-byte slots, starting at `pos` (advanced).
  llvm::Value* from_slots(const type* t, const std::vector<llvm::Value*>& slots, std::size_t& pos);
  /// Register value <-> memory value (bool i1 <-> i8, recursively through tuples).
  llvm::Value* to_memory(llvm::Value* v, const type* t);
  llvm::Value* from_memory(llvm::Value* v, const type* t);
  llvm::AllocaInst* entry_alloca(llvm::Type* t, const llvm::Twine& name = "");
  /// Pointer `p` in address space `as` (through the generic space; itself when it is there already).
  llvm::Value* in_address_space(llvm::Value* p, unsigned as);
  void set_location(location loc);

  // --- statements (codegen_stmt.cpp) ---
  void block(const std::vector<stmt_id>& ids);
  void statement(stmt_id id);
  bool terminated() const;
  /// After a terminator: the code that follows is unreachable; emit it into a fresh block.
  void continue_in_dead_block();

  // --- operations (codegen_ops.cpp) ---
  llvm::Value* op(const frontend::expr& e);
  llvm::Value* arith(op_id op, llvm::Value* a, llvm::Value* b, scalar_info s);
  llvm::Value* compare(op_id op, llvm::Value* a, llvm::Value* b, const type* t);
  llvm::Value* math(op_id op, const std::vector<llvm::Value*>& args, int bits);
  llvm::Value* call_math(const std::string& symbol, llvm::Type* ret, const std::vector<llvm::Value*>& args,
                         bool pure);
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Type*> types,
                         llvm::ArrayRef<llvm::Value*> args);
  /// A complex_fn op (codegen_complex.cpp) of `args` (complex numbers; crect's two floats) as
  /// numba-cuda computes it, its result of complex type `result`.
  llvm::Value* complex_op(op_id op, const std::vector<llvm::Value*>& args, const type* result);
  llvm::Value* cmake(llvm::Value* re, llvm::Value* im);
  llvm::Value* re(llvm::Value* z) { return b.CreateExtractValue(z, 0); }
  llvm::Value* im(llvm::Value* z) { return b.CreateExtractValue(z, 1); }
  llvm::Value* cmul(llvm::Value* x, llvm::Value* y);
  llvm::Value* cdiv(llvm::Value* x, llvm::Value* y);
  llvm::Value* call_device(const frontend::expr& e);
  /// A call of a function declared with cuda.declare_device, by its ABI (Numba's: `int f(T* ret,
  /// args...)`; C's: `T f(args...)`); pointer parameters take an array's data pointer.
  llvm::Value* call_external(const frontend::expr& e);
  /// An intrinsic's call (cuda.extending.intrinsic): its host implementation, inline PTX or LLVM IR.
  llvm::Value* call_intrinsic_body(const frontend::expr& e, const type& f);
  /// a ** n for a float and an integer exponent (powi).
  llvm::Value* powi(llvm::Value* a, llvm::Value* n);

  // --- float16 (codegen_half.cpp) ---
  /// a op b on halves, as cuda_fp16.h computes them (op: add, sub, mul, div, min, max).
  llvm::Value* half_arith(op_id op, llvm::Value* a, llvm::Value* b);
  /// math on halves: the op's half form where cuda_fp16.h has one (sqrt, exp, log, sin, fabs, fma,
  /// ...), else null (the caller computes in float32 and rounds).
  llvm::Value* half_math(op_id op, const std::vector<llvm::Value*>& args);
  /// cuda_fp16.h's half functions that are no op of the IR.
  enum class half_fn : std::uint8_t { rcp, rsqrt, exp10 };
  llvm::Value* half_function(half_fn fn, llvm::Value* x);
  /// p + c (float64s) rounded to odd: the nearest, its last bit set when inexact, so that rounding it
  /// again to a narrower format rounds once.
  llvm::Value* sum_rounded_to_odd(llvm::Value* p, llvm::Value* c);

  // --- 16-bit floats' conversions and bfloat16 (codegen_half.cpp) ---
  /// `v`, of scalar type `from` (bool, an integer, float16/32/64), rounded to a half (`bf16` false)
  /// or a bfloat16 in mode `m`, as cvt.<m>.f16/bf16 converts: every nan to 0x7fff.
  llvm::Value* to_small_float(llvm::Value* v, const type* from, rounding m, bool bf16);
  /// A half or bfloat16 `x` as the integer type `to`, rounded in mode `m` as cvt.<m>i converts:
  /// saturating at the integer's range (an 8-bit one too), nan as gpu_conversions.hpp says.
  llvm::Value* small_float_to_int(llvm::Value* x, rounding m, const type* to);
  /// A bfloat16 as a float32 (exact).
  llvm::Value* bf16_to_f32(llvm::Value* v);
  /// A float32 rounded to bfloat16 in mode `m` (by its bits: bfloat16 is float32's top half).
  llvm::Value* f32_to_bf16(llvm::Value* f, rounding m);
  /// `v` of scalar type `from` as a float32 rounded to odd (exact when it fits): rounding that to
  /// bfloat16 in any mode rounds `v` once.
  llvm::Value* odd_f32(llvm::Value* v, const type* from);
  llvm::Value* odd_f32_of_f64(llvm::Value* v);

  // --- arrays (codegen_arrays.cpp) ---
  struct array_parts {
    llvm::Value* data = nullptr;
    std::vector<llvm::Value*> shape, strides;
  };
  array_parts unpack(llvm::Value* a, const type* t);
  llvm::Value* pack(const type* t, const array_parts& p);
  /// The strides addresses are computed from: the extents' for C and F layouts, the array's own for A.
  std::vector<llvm::Value*> effective_strides(const type* t, const array_parts& p);
  llvm::Value* element_pointer(const type* t, llvm::Value* a, std::vector<llvm::Value*> idx, bool wrap);
  /// Raises raise site `site` (an IndexError) when an index of `idx` (wrapped first when `wrap`)
  /// lies outside its dimension of array `a`.
  void check_bounds(const type* t, llvm::Value* a, const std::vector<llvm::Value*>& idx, bool wrap, std::int32_t site,
                    location loc);
  llvm::Value* load_element(const type* t, llvm::Value* ptr);
  void store_element(const type* t, llvm::Value* ptr, llvm::Value* v);
  llvm::Value* array_op(const frontend::expr& e);
  llvm::Value* array_view(const frontend::expr& e);
  /// ufunc_loop and the ufunc_element ops inside its element.
  llvm::Value* ufunc_op(const frontend::expr& e);
  /// The array elements of the ufunc loops being lowered, innermost last.
  std::vector<std::vector<llvm::Value*>> ufunc_elements;
  llvm::Value* make_array(const type* t, llvm::Value* data, const std::vector<std::int64_t>& shape);
  llvm::Value* to_index(llvm::Value* v, const type* t);

  // --- records (codegen_records.cpp) ---
  llvm::Value* record_op(const frontend::expr& e);
  /// The alignment field `f` of `record` has (1 in a packed record).
  llvm::Align field_alignment(const type* record, const field_info& f);
  void copy_record(llvm::Value* dst, llvm::Value* src, const type* record);
  void copy_nested_array(llvm::Value* dst, const field_info& f, llvm::Value* src, const type* src_type);

  /// What an index error records besides its site: the axis, the index as written and the extent
  /// (int64 values).
  struct index_error {
    std::int32_t axis;
    llvm::Value* index;
    llvm::Value* extent;
  };
  // --- a kernel's block in regions, without fibers (codegen_regions.cpp) ---
  struct region_state;
  /// The body as the whole block in one call: segments between barriers as loops over the threads
  /// (the host target's block_regions()). `zeroed`: the variables that start at zero.
  void emit_block_regions(const std::vector<bool>& zeroed, const target::region_context_layout& layout);
  /// Whether emit() lowers the kernel as its block in regions (the target's region_body).
  bool as_block_regions = false;
  /// Whether a block's regions are being lowered (a barrier there is a segment's end, never a call).
  bool in_block_regions() const { return regions_ != nullptr; }
  /// The address a variable's value is in: the current thread's element of its per-thread array
  /// in a block's regions, else its alloca.
  llvm::Value* var_address(var_id v);

  /// Raises the exception of raise site `site` (the module's raise_sites) at `loc`: records it (with
  /// `detail` for an index error) and ends the thread; the insert block is terminated after. Site
  /// no_id: an unreported raise, which only ends the thread.
  void raise_site_at(std::int32_t site, location loc, const index_error* detail = nullptr);

 private:
  struct loop_targets {
    llvm::BasicBlock* brk;
    llvm::BasicBlock* cont;
  };
  std::vector<loop_targets> loops_;
  std::vector<llvm::AllocaInst*> vars_;
  llvm::DISubprogram* sp_ = nullptr;
  // Regions (codegen_regions.cpp): null outside them.
  region_state* regions_ = nullptr;
  std::vector<llvm::Value*> thread_vars_;  // per variable: the current thread's element, or null
  llvm::Value* current_thread_ = nullptr;  // the thread a segment's loop runs (i64)
  /// `x_limit` (i32, or null): only threads whose threadIdx.x is below it run `body`.
  void for_each_thread(bool set_coordinates, const std::function<void(llvm::Value*)>& body,
                       llvm::Value* x_limit = nullptr);
  llvm::Value* segment_x_limit(const std::vector<stmt_id>& seg);
  /// A thread's index in its block from its coordinates (i64 each), and back (codegen_regions.cpp).
  llvm::Value* thread_in_block(llvm::Value* x, llvm::Value* y, llvm::Value* z);
  std::array<llvm::Value*, 3> thread_coordinates(llvm::Value* t);
  bool is_thread_x(expr_id e, int depth = 0) const;
  void select_thread(llvm::Value* t);
  llvm::Value* uniform_truth(expr_id cond);
  std::vector<llvm::Value*> uniform_values(const std::vector<expr_id>& exprs,
                                           const std::function<llvm::Value*(const std::vector<llvm::Value*>&)>& finish);
  void region_block(const std::vector<stmt_id>& ids);
  void grid_stride_loop(const stmt& s);
  /// In a segment's thread loop: a return ends the thread (it is skipped from then on). False elsewhere.
  bool end_thread_in_region();
  /// range(start, stop, step)'s trip count, in unsigned arithmetic of the variable's width.
  llvm::Value* trip_count(llvm::Value* start, llvm::Value* stop, llvm::Value* step, bool is_signed);

  void ret_default();
  /// A raising site (an assert that failed...): the first thread to raise claims the error record
  /// and fills it in, then the thread exits.
  void raise_at(const stmt& s) { raise_site_at(s.site, s.loc); }
  void if_stmt(const stmt& s);
  void while_stmt(const stmt& s);
  void for_range(const stmt& s);
  void return_stmt(const stmt& s);
  llvm::Value* conditional(const frontend::expr& e);
  llvm::Value* logical(const frontend::expr& e);
  llvm::Value* int_divmod(op_id op, llvm::Value* a, llvm::Value* b, bool is_signed);
  llvm::Value* float_divmod(op_id op, llvm::Value* a, llvm::Value* b, int bits);
  llvm::Value* shift(op_id op, llvm::Value* a, llvm::Value* b, bool is_signed);
  llvm::Value* ipow(llvm::Value* a, llvm::Value* b, bool is_signed);
  llvm::Value* cpow(llvm::Value* a, llvm::Value* b, int bits);
};

/// Whether the host target can run kernel `m.functions[0]` as its block in regions
/// (codegen_regions.cpp: every barrier a syncthreads() statement of the kernel's own body, ...).
bool block_regions_fit(const typed_module& m, const compile_config& cfg);
/// Whether every read of threadIdx.x and blockIdx.x in the module is part of
/// `blockIdx.x * blockDim.x + threadIdx.x` (cuda.grid's x; either order, through integer casts of 32
/// bits or more) and nothing reads the lane: then a row of blocks along x may run as one block of
/// all their threads (target_host.cpp's block entry), the sum being the same.
bool x_only_through_grid(const typed_module& m);

/// Lowers `m` into `mod` for target `t`: every function, the kernel's slot ABI or the device ABI of an
/// entry that is not a kernel, debug info when asked. Verifies the result.
void lower_module(module_state& ms);

// The pipeline, one file per stage (docs/compiler.md, "Pipeline"):
//   1. lower     codegen_module.cpp, with codegen_{stmt,expr,ops,arrays}.cpp: typed IR -> LLVM IR for the
//                target the configuration names (the target's check_module first)
//   2. finish    the target's finish_module (target_<name>.cpp): what the module links (NVPTX: libdevice)
//   3. optimize  the target's optimize (optimize.cpp has the pass pipeline)
//   4. emit      emit.cpp: PTX text, an object file, or code in the host JIT
// codegen.cpp runs 1-3 (run_pipeline) and hands the result to the emitter its entry point needs.
struct lowered {
  std::unique_ptr<llvm::LLVMContext> ctx;  // first: outlives the module
  std::unique_ptr<llvm::Module> mod;
  std::unique_ptr<target> tgt;
  std::uint64_t static_shared_bytes = 0;
  std::string entry;  ///< the entry's symbol
};

/// Stages 1 to 3 for `cfg`'s target.
lowered run_pipeline(const typed_module& m, const compile_config& cfg);

/// The symbol of the host target's block entry for kernel `entry` in `m`
/// (target_host.cpp), or empty where it made none.
std::string block_entry_of(const llvm::Module& m, const std::string& entry);

}  // namespace cuforge::frontend::detail

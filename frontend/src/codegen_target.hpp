#pragma once

// What differs between the targets codegen emits for (NVPTX, the host):
// a target is a value made from the compile configuration, with a few
// hooks; everything else in codegen*.cpp is shared. Adding a target means
// one target_<name>.cpp implementing this interface and a row in
// make_target's table (targets.cpp; docs/compiler.md, "How to add a target").

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/compile_config.hpp>
#include <cuforge/frontend/ops.hpp>
#include <cuforge/frontend/types.hpp>

#include "llvm_support.hpp"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Value.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class TargetLibraryInfoImpl;
}

namespace cuforge::frontend::detail {

class function_lowering;
struct module_state;

/// The thread coordinates: threadIdx, blockIdx, blockDim, gridDim.
enum class sreg : std::uint8_t { thread_idx, block_idx, block_dim, grid_dim };

/// Approximate float32 operations a GPU has instructions for.
enum class approx_fn : std::uint8_t { ex2, lg2, rcp, rsqrt, sqrt };

class target {
 public:
  explicit target(const compile_config& cfg) : cfg_(cfg) {}
  virtual ~target() = default;
  target(const target&) = delete;
  target& operator=(const target&) = delete;

  const compile_config& config() const noexcept { return cfg_; }

  /// The triple, data layout and cost model the module is built and optimised for.
  virtual llvm::TargetMachine& machine() = 0;

  // --- the pipeline's target stages (codegen.cpp runs them in order) ---
  /// What the target refuses before anything is lowered (the host: local arrays its fiber stacks
  /// cannot hold). Default: nothing.
  virtual void check_module(const typed_module& m) const;
  /// After lowering, before optimisation: what the module needs from outside itself (NVPTX links the
  /// libdevice functions it calls). Default: nothing.
  virtual void finish_module(llvm::Module& m);
  /// The optimisation pipeline. Default: O3 (O0 with opt=false) through the new pass manager with
  /// machine()'s cost model.
  virtual void optimize(llvm::Module& m);

  // --- what lowering asks of the target ---
  /// How much debug information line tables get: NVPTX takes line directives only (as clang's
  /// -gline-directives-only), the host real line tables; and the DWARF version its tools read.
  virtual llvm::DICompileUnit::DebugEmissionKind line_table_kind() const = 0;
  virtual unsigned dwarf_version() const = 0;
  /// Arrays in shared, local and constant memory live in address spaces of their own on the GPU.
  virtual unsigned address_space(frontend::address_space s) const = 0;
  /// Host code reaches the thread coordinates and shared memory through the thread context, so every
  /// function there takes it as a hidden first parameter.
  virtual bool takes_context() const noexcept = 0;
  /// Kernel signatures differ: one i64 per slot on the GPU, (thread_context*, void** params) on the host.
  virtual llvm::Function* declare_kernel(module_state& ms, const std::string& name, std::size_t slots) = 0;
  /// The kernel's parameter slots as i64 values (the host also picks up the context here).
  virtual std::vector<llvm::Value*> load_slots(function_lowering& fl, std::size_t slots) = 0;
  /// threadIdx and friends: special registers on the GPU, fields of the thread context on the host.
  virtual llvm::Value* special_register(function_lowering& fl, sreg r, int dim) = 0;
  /// A block barrier: an instruction on the GPU, a call into the fiber scheduler on the host.
  /// (What else differs between targets in the execution model, the intrinsic registry's rows lower
  /// per target: intrinsics_cuda.cpp.)
  virtual void barrier(function_lowering& fl) = 0;
  /// A second body for the kernel, lowered as its whole block in one call, its barriers cutting it
  /// into loops over the threads (the host target, codegen_regions.cpp), or null. Called once the
  /// kernel is declared.
  virtual llvm::Function* region_body() { return nullptr; }
  /// Where region_body's lowering finds the thread context's fields, and its size.
  struct region_context_layout {
    unsigned thread_idx = 0;  ///< threadIdx (three u32)
    unsigned block_idx = 0;   ///< blockIdx (three u32)
    unsigned block_run = 0;   ///< the blocks along x one call runs (u32; cpu::thread_context::block_run)
    std::size_t bytes = 0;
  };
  virtual region_context_layout block_regions_context() const { return {}; }
  /// The sync scope of an atomic on memory of space `s` (on the host a block's shared memory is only
  /// ever touched by one OS thread).
  virtual llvm::SyncScope::ID atomic_scope(llvm::LLVMContext& ctx, frontend::address_space s) const = 0;
  /// For an atomic adding into `array` (a registry row with adds_into): an i1 that is true where
  /// the array is the running worker's private copy (the cpu backend's private sums), so a plain
  /// add does; null where it never is (the GPU, arrays other than the kernel's parameters).
  virtual llvm::Value* private_copy(function_lowering&, const expr& array) { (void)array; return nullptr; }
  /// A static shared array: one global per op site on the GPU, `offset` into the block's buffer on the
  /// host (laid out by codegen for both; the GPU ignores it). Returns its data pointer.
  virtual llvm::Value* static_shared(function_lowering& fl, const std::string& name, llvm::Type* elem,
                                     std::uint64_t count, std::uint64_t offset) = 0;
  /// The launch's dynamic shared memory: its pointer and its size in bytes (i64).
  virtual std::pair<llvm::Value*, llvm::Value*> dynamic_shared(function_lowering& fl) = 0;
  /// The math library: libdevice on the GPU, libm on the host. The symbol for `op` on floats of `bits`
  /// (for sqrt with fastmath: an approximation, or "" to keep LLVM's sqrt).
  virtual std::string math_symbol(op_id op, int bits, bool fastmath) const = 0;
  /// The GPU's approximate float32 instructions (ex2.approx.ftz.f32, ...), which cuda_fp16.h's half
  /// functions are built on, and its half fma. Where the target has none (the host), codegen_half.cpp
  /// computes those functions correctly rounded instead. Default: none (approx_f32 fails).
  virtual bool has_approx_f32() const noexcept;
  /// A float converted to an integer of `bits` (16, 32 or 64) as the GPU's cvt.rzi converts: toward
  /// zero, saturating at the integer's range, nan as gpu_conversions.hpp says. NVPTX emits that
  /// instruction (as inline assembly: LLVM folds a constant out-of-range fptosi to poison); the
  /// default spells it out with LLVM's saturating conversion.
  virtual llvm::Value* float_to_int(function_lowering& fl, llvm::Value* v, unsigned bits, bool is_signed) const;
  virtual llvm::Value* approx_f32(function_lowering& fl, approx_fn fn, llvm::Value* x) const;
  /// One PTX instruction (`instruction` up to its operands, "add.sat.f16"), its result of type
  /// `result` and its operands `args`, as inline assembly, where the GPU compiled for has it
  /// (compute capability `min_sm` (53 for 5.3) or newer); else null, and the caller computes the same
  /// another way. What cuda_fp16.h writes as one instruction (saturating and non-contracting
  /// arithmetic, conversions in a rounding mode) is this. Default: null (the host has no PTX).
  virtual llvm::Value* ptx_instruction(function_lowering& fl, const std::string& instruction, int min_sm,
                                       llvm::Type* result, const std::vector<llvm::Value*>& args) const;
  /// Ends the calling thread after it raised (its error record written): `exit` on the GPU (the rest of
  /// the grid runs on), a throw on the host that the scheduler takes as the thread's end. Leaves the
  /// builder after a terminator.
  virtual void exit_thread(function_lowering& fl) = 0;
  /// Attributes the target's code generator reads per function (denormal mode, unwind tables).
  virtual void set_attributes(llvm::Function& fn) const = 0;

 protected:
  compile_config cfg_;
};

/// The target object the configuration names (targets.cpp holds the table).
std::unique_ptr<target> make_target(const compile_config& cfg);
std::unique_ptr<target> make_nvptx_target(const compile_config& cfg);
std::unique_ptr<target> make_host_target(const compile_config& cfg);
/// The addresses the host JIT binds before looking in the process (target_host.cpp).
std::vector<host_symbol> host_symbols();
/// The cpu backend's __nv_* functions, cuda.libdevice's on the host (libdevice_host.cpp).
std::vector<host_symbol> libdevice_host_symbols();
/// The host's vector math library (host_vector_math.cpp): its functions as
/// the vectoriser's replacements for the scalar libm calls, and their
/// addresses for the JIT. Both empty where there is none.
void add_host_vector_math(llvm::TargetLibraryInfoImpl& tlii);
std::vector<host_symbol> host_vector_math_symbols();
/// float16 bits: a double rounded to the nearest half (ties to even), and back (target_host.cpp).
std::uint16_t half_bits_of(double d);
float float_of_half_bits(std::uint16_t b);

}  // namespace cuforge::frontend::detail

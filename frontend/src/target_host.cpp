// The host target (the cpu backend): kernels are
// `void k(thread_context*, void** params)`; thread coordinates and shared
// memory come from the thread context; barriers call into the fiber
// scheduler; math is libm; the module is compiled by the ORC JIT.
#include "codegen_lower.hpp"
#include "codegen_target.hpp"
#include <cuforge/runtime/small_floats.hpp>
#include "llvm_support.hpp"

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/host_arrays.hpp>
#include <cuforge/runtime/cpu_kernel.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/IR/Constants.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace cuforge::frontend::detail {

namespace {

// The thread_context fields the generated code reads, by offset.
using cpu::thread_context;
static_assert(std::is_standard_layout_v<thread_context>);
constexpr unsigned off_thread_idx = offsetof(thread_context, thread_idx);
constexpr unsigned off_block_idx = offsetof(thread_context, block_idx);
constexpr unsigned off_block_dim = offsetof(thread_context, block_dim);
constexpr unsigned off_grid_dim = offsetof(thread_context, grid_dim);
constexpr unsigned off_shared = offsetof(thread_context, shared);
constexpr unsigned off_static_shared = offsetof(thread_context, static_shared_bytes);
constexpr unsigned off_dynamic_shared = offsetof(thread_context, dynamic_shared_bytes);
constexpr unsigned off_block_run = offsetof(thread_context, block_run);
constexpr unsigned off_private_sums = offsetof(thread_context, private_sums);
static_assert(off_thread_idx == 0 && off_block_idx == 12 && off_block_dim == 24 && off_grid_dim == 36);
static_assert(off_shared == 48 && off_static_shared == 56 && off_dynamic_shared == 64);
static_assert(sizeof(cpu::uint3) == 12 && sizeof(unsigned) == 4 && sizeof(std::size_t) == 8 && sizeof(void*) == 8);

}  // namespace
}  // namespace cuforge::frontend::detail

// What a kernel thread that raised calls once its error record is written:
// the throw unwinds through the JIT's frames (their unwind tables are
// registered) into the scheduler, which ends the thread there.
extern "C" [[noreturn]] void cuforge_codegen_exit_thread() { throw cuforge::cpu::thread_exit{}; }

// random.random() and random.seed() for host code (host_random.cpp).
extern "C" double cuforge_host_random();
extern "C" void cuforge_host_seed(std::int64_t n);
extern "C" void cuforge_host_nanosleep(std::uint32_t ns);
extern "C" void cuforge_host_print(const char* fmt, ...);  // host_print.cpp

namespace cuforge::frontend::detail {

namespace {

// The cpu backend runs the threads of a kernel with barriers as fibers, on
// stacks of CUFORGE_CPU_STACK_KB KiB (256 by default: runtime/src/cpu/exec.cpp);
// local arrays bigger than what such a stack holds (less room for the
// kernel's own frames) would overflow it, so they are refused here rather
// than crash the process. Kernels without barriers run on the workers' stacks.
void check_fiber_stack(const typed_module& m) {
  if (!m.functions[0].uses_barrier) return;
  std::uint64_t kib = 256;
  if (const char* env = std::getenv("CUFORGE_CPU_STACK_KB"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && v != 0) kib = std::clamp<std::uint64_t>(v, 16, std::uint64_t{1} << 20);
  }
  const std::uint64_t budget = kib * 1024 > 64 * 1024 ? kib * 1024 - 64 * 1024 : 0;
  std::uint64_t total = 0;
  for (const auto& tf : m.functions)
    for (const expr& e : tf.ir->exprs) {
      if (e.kind != expr_kind::op || e.op != op_id::local_array || !e.ty || !e.ty->is_array()) continue;
      std::uint64_t bytes = static_cast<std::uint64_t>(e.ty->dtype->itemsize());
      for (auto d : e.attrs) bytes *= static_cast<std::uint64_t>(std::max<std::int64_t>(d, 0));
      total += bytes;
      if (total > budget)
        throw compile_error("local arrays of " + std::to_string(total) + " bytes per thread do not fit the cpu backend's " +
                                std::to_string(kib) + " KiB fiber stacks of a kernel with barriers (set CUFORGE_CPU_STACK_KB "
                                "to at least " + std::to_string((total + 64 * 1024 + 1023) / 1024) + ")",
                            *tf.ir, e.loc);
    }
}

class host_target final : public target {
 public:
  explicit host_target(const compile_config& c) : target(c), tm_(host_machine(c.opt)) {}

  llvm::TargetMachine& machine() override { return tm_; }

  void check_module(const typed_module& m) const override {
    if (m.functions[0].is_kernel) check_fiber_stack(m);
  }

  llvm::DICompileUnit::DebugEmissionKind line_table_kind() const override { return llvm::DICompileUnit::LineTablesOnly; }
  unsigned dwarf_version() const override { return 4; }
  unsigned address_space(frontend::address_space) const override { return 0; }
  bool takes_context() const noexcept override { return true; }

  // A kernel is lowered as its body, `void name.body(thread_context*, i64 slot...)`: the
  // parameter slots arrive as values. finish_module wraps it: `name(ctx, params)` runs one thread
  // (the scheduler's fibers and loops call it), and, for a kernel that never synchronises or ends
  // a thread by unwinding, `name_block(ctx, params)` runs every thread of ctx's block in one loop,
  // with the slots loaded once, so that LLVM vectorises across threads; both then call one loop
  // over a box of threads (cpu_execution.md, "One call per block").
  llvm::Function* declare_kernel(module_state& ms, const std::string& name, std::size_t slots) override {
    auto* ptr = llvm::PointerType::get(ms.ctx, 0);
    std::vector<llvm::Type*> params{ptr};
    params.insert(params.end(), slots, llvm::Type::getInt64Ty(ms.ctx));
    auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(ms.ctx), params, false);
    body_ = llvm::Function::Create(fty, llvm::Function::InternalLinkage, name + ".body", ms.mod);
    body_->addParamAttr(0, llvm::Attribute::NoAlias);
    entry_name_ = name;
    slots_ = slots;
    const typed_function& k = ms.tm.functions[0];
    block_entry_ = !k.uses_barrier && !k.cooperative;
    one_row_ = block_entry_ && x_only_through_grid(ms.tm);
    regions_ = !k.cooperative && block_regions_fit(ms.tm, cfg_);
    if (regions_) {
      region_body_ = llvm::Function::Create(fty, llvm::Function::InternalLinkage, name + ".regions", ms.mod);
      region_body_->addParamAttr(0, llvm::Attribute::NoAlias);
      set_attributes(*region_body_);
    }
    return body_;
  }

  std::vector<llvm::Value*> load_slots(function_lowering& fl, std::size_t slots) override {
    fl.ctx = fl.fn->getArg(0);
    std::vector<llvm::Value*> v;
    for (std::size_t i = 0; i < slots; ++i) v.push_back(fl.fn->getArg(static_cast<unsigned>(i + 1)));
    return v;
  }

  void finish_module(llvm::Module& m) override {
    if (body_ == nullptr) return;
    // With debug info the body stays a function of its own (inlined into wrappers without a
    // subprogram it would lose its lines), and there is no block entry.
    const bool debug_info = body_->getSubprogram() != nullptr;
    if (debug_info) {
      body_->addFnAttr(llvm::Attribute::NoInline);
    } else {
      body_->addFnAttr(llvm::Attribute::AlwaysInline);
    }
    if (regions_ && !debug_info) {
      region_body_->addFnAttr(llvm::Attribute::AlwaysInline);
      emit_region_entries(m);
      has_block_entry_ = true;  // its thread loops get the block entry's preparation (IRCE)
    } else if (block_entry_ && !debug_info && !may_unwind(m)) {
      emit_thread_range_entries(m);
      has_block_entry_ = true;
    } else {
      emit_thread_entry(m);
    }
  }

  void optimize(llvm::Module& m) override {
    // A block entry's thread loop, with the body inlined, is first given to IRCE: a range
    // check on the thread's index (`if i < n`) splits the loop so that its main part runs
    // without it, and vectorises without masked loads and stores (slow on AMD's cores). Lower
    // bounds (`0 < j`) are first put in IRCE's form; no simplifycfg before it, which would fold
    // `if i < n and j < m`'s two branches into one on a select, a check IRCE cannot split.
    static const std::string prelude =
        "always-inline,function(sroa,early-cse,instcombine<no-verify-fixpoint>,adce,loop-simplify,lcssa,indvars,"
        "cuforge-lower-bound-checks,irce)";
    detail::optimize(m, machine(), cfg_.opt, has_block_entry_ ? prelude : std::string(), &add_host_vector_math);
  }
  llvm::Value* special_register(function_lowering& fl, sreg r, int dim) override {
    static constexpr unsigned base[4] = {off_thread_idx, off_block_idx, off_block_dim, off_grid_dim};
    const unsigned offset = base[static_cast<int>(r)] + 4 * static_cast<unsigned>(dim);
    // threadIdx is not marked invariant: the block entry's loop stores it into its context.
    return field(fl, fl.b.getInt32Ty(), offset, r != sreg::thread_idx);
  }

  llvm::Function* region_body() override { return region_body_; }
  region_context_layout block_regions_context() const override {
    return {off_thread_idx, off_block_idx, off_block_run, sizeof(thread_context)};
  }

  void barrier(function_lowering& fl) override {
    // In regions a barrier is where a segment ends, never a call (block_regions_fit admits only
    // syncthreads() statements, which region lowering consumes).
    if (fl.in_block_regions()) fail("a barrier the block's regions do not take (block_regions_fit let it through)");
    auto& b = fl.b;
    // May throw (a kernel declared without barriers): not nounwind.
    llvm::FunctionCallee sync =
        fl.ms.mod.getOrInsertFunction("cuforge_cpu_syncthreads", b.getVoidTy(), b.getPtrTy());
    b.CreateCall(sync, {context(fl)});
  }

  llvm::SyncScope::ID atomic_scope(llvm::LLVMContext&, frontend::address_space s) const override {
    return s == frontend::address_space::shared ? llvm::SyncScope::SingleThread : llvm::SyncScope::System;
  }

  llvm::Value* private_copy(function_lowering& fl, const expr& array) override {
    // Only the kernel's own parameters are ever private copies (array_params_of): bit i of the
    // context's mask says whether argument i is.
    if (fl.index != 0 || !fl.tf.is_kernel || array.kind != expr_kind::variable) return nullptr;
    const auto at = std::find(fl.f.params.begin(), fl.f.params.end(), array.var);
    const auto arg = static_cast<std::uint64_t>(at - fl.f.params.begin());
    if (at == fl.f.params.end() || arg >= 64) return nullptr;
    auto& b = fl.b;
    llvm::Value* mask = field(fl, b.getInt64Ty(), off_private_sums);
    return b.CreateICmpNE(b.CreateAnd(mask, b.getInt64(std::uint64_t{1} << arg)), b.getInt64(0));
  }

  llvm::Value* static_shared(function_lowering& fl, const std::string&, llvm::Type*, std::uint64_t,
                             std::uint64_t offset) override {
    return fl.b.CreateConstInBoundsGEP1_64(fl.b.getInt8Ty(), shared_base(fl), offset);
  }

  std::pair<llvm::Value*, llvm::Value*> dynamic_shared(function_lowering& fl) override {
    auto& b = fl.b;
    // thread_context::dynamic_shared(): after the static part, 16-byte aligned.
    llvm::Value* stat = field(fl, b.getInt64Ty(), off_static_shared);
    llvm::Value* start = b.CreateAnd(b.CreateAdd(stat, b.getInt64(15)), b.getInt64(~std::uint64_t{15}));
    llvm::Value* ptr = b.CreateInBoundsGEP(b.getInt8Ty(), shared_base(fl), start);
    return {ptr, field(fl, b.getInt64Ty(), off_dynamic_shared)};
  }

  std::string math_symbol(op_id op, int bits, bool) const override {
    if (op == op_id::sqrt) return "";  // the instruction LLVM's sqrt becomes
    std::string base;
    switch (op) {
      case op_id::fpow: base = "pow"; break;
      default: base = to_string(op);
    }
    return base + (bits == 32 ? "f" : "");
  }

  void exit_thread(function_lowering& fl) override {
    auto& b = fl.b;
    llvm::FunctionCallee f = fl.ms.mod.getOrInsertFunction("cuforge_codegen_exit_thread", b.getVoidTy());
    auto* call = b.CreateCall(f, {});
    call->setDoesNotReturn();
    b.CreateUnreachable();
  }

  void set_attributes(llvm::Function& fn) const override {
    // Barriers and exiting threads unwind through kernels: keep their unwind tables.
    fn.setUWTableKind(llvm::UWTableKind::Async);
  }

 private:
  static llvm::Value* context(function_lowering& fl) {
    if (fl.ctx == nullptr) fail("host code without its thread context");
    return fl.ctx;
  }

  // A field of the thread context. It does not change while the thread
  // runs (every fiber has its own context), so loads may move across barriers.
  static llvm::Value* field(function_lowering& fl, llvm::Type* ty, unsigned offset, bool invariant = true) {
    auto& b = fl.b;
    llvm::Value* p = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), context(fl), offset);
    auto* load = b.CreateAlignedLoad(ty, p, fl.ms.layout().getABITypeAlign(ty));
    if (invariant) load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(fl.c_(), {}));
    return load;
  }

  // The body's slot values, loaded from `params` (the launcher's copies, 8 bytes each, not
  // necessarily 8-byte aligned) by `b`.
  std::vector<llvm::Value*> load_params(llvm::IRBuilder<>& b, llvm::Value* params) const {
    std::vector<llvm::Value*> v;
    for (std::size_t i = 0; i < slots_; ++i) {
      llvm::Value* p = b.CreateAlignedLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), params, i), llvm::Align(8));
      v.push_back(b.CreateAlignedLoad(b.getInt64Ty(), p, llvm::Align(1), "slot" + std::to_string(i)));
    }
    return v;
  }

  llvm::Function* declare_entry(llvm::Module& m, const std::string& name) const {
    auto* ptr = llvm::PointerType::get(m.getContext(), 0);
    auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(m.getContext()), {ptr, ptr}, false);
    auto* fn = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, m);
    set_attributes(*fn);
    return fn;
  }

  // A kernel in regions: `name_block(ctx, params)` runs ctx's whole block through the region body
  // (the scheduler calls it once per block, as a barrier-free kernel's block entry), and
  // `name(ctx, params)` one thread through the per-thread body, whose barriers call the fiber
  // scheduler (what a caller without the block entry runs).
  // The region body of a barrier-free kernel (one with grid-stride loops) runs ctx->block_run
  // blocks along x in its thread loops itself (cpu_kernel_symbol::block_runs).
  void emit_region_entries(llvm::Module& m) const {
    for (llvm::Function* body : {region_body_, body_}) {
      llvm::Function* fn = declare_entry(m, body == region_body_ ? entry_name_ + "_block" : entry_name_);
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", fn));
      std::vector<llvm::Value*> args{fn->getArg(0)};
      for (llvm::Value* v : load_params(b, fn->getArg(1))) args.push_back(v);
      b.CreateCall(body, args);
      b.CreateRetVoid();
    }
  }

  // `name(ctx, params)`: one thread.
  void emit_thread_entry(llvm::Module& m) const {
    llvm::Function* fn = declare_entry(m, entry_name_);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", fn));
    std::vector<llvm::Value*> args{fn->getArg(0)};
    for (llvm::Value* v : load_params(b, fn->getArg(1))) args.push_back(v);
    b.CreateCall(body_, args);
    b.CreateRetVoid();
  }

  // Whether a call in the module may unwind into the kernel (a raise's thread exit, the
  // scheduler's barriers and warp meetings): then each thread needs a call of its own, whose
  // end the scheduler catches.
  static bool may_unwind(const llvm::Module& m) {
    for (const llvm::Function& f : m)
      if (f.isDeclaration() && !f.isIntrinsic() &&
          (f.getName() == "cuforge_codegen_exit_thread" || f.getName().starts_with("cuforge_cpu_")))
        return true;
    return false;
  }

  // `name.threads(ctx, params, x0, nx, y0, ny, z0, nz, blocks)`: the threads of ctx's block in
  // that box, x fastest, each seeing its own threadIdx in a copy of ctx local to the call
  // (ctx->thread_idx is not read); and so for `blocks` blocks along x from ctx's, the block loop
  // inside the y loop, so a row of a 2-D grid's arrays is walked contiguously across blocks (a
  // barrier-free kernel's threads meet nowhere, so any order is one a GPU could give; the
  // scheduler gives rows only to launches without shared memory). The copy does not escape once
  // the body is inlined, so its fields become values and the x loop vectorises. Two entries call
  // it, so the body is compiled once: `name_block(ctx, params)` with the whole block and
  // ctx->block_run blocks, `name(ctx, params)` with ctx's thread alone.
  void emit_thread_range_entries(llvm::Module& m) const {
    llvm::LLVMContext& c = m.getContext();
    auto* ptr = llvm::PointerType::get(c, 0);
    auto* i32 = llvm::Type::getInt32Ty(c);
    auto* range_ty =
        llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, ptr, i32, i32, i32, i32, i32, i32, i32}, false);
    auto* range = llvm::Function::Create(range_ty, llvm::Function::InternalLinkage, entry_name_ + ".threads", m);
    set_attributes(*range);
    range->addFnAttr(llvm::Attribute::NoInline);
    range->addParamAttr(0, llvm::Attribute::NoAlias);
    auto* entry = llvm::BasicBlock::Create(c, "entry", range);
    llvm::IRBuilder<> b(entry);
    llvm::Value* ctx = range->getArg(0);
    auto* local = b.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), sizeof(thread_context)), nullptr, "thread");
    local->setAlignment(llvm::Align(16));
    b.CreateMemCpy(local, llvm::Align(16), ctx, llvm::Align(8), sizeof(thread_context));
    llvm::Value* first_block = b.CreateAlignedLoad(i32, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctx, off_block_idx),
                                                   llvm::Align(4), "bx0");
    std::vector<llvm::Value*> args{local};
    for (llvm::Value* v : load_params(b, range->getArg(1))) args.push_back(v);
    // Four counted loops, z outermost, then y, the block along x, x (never empty); each header
    // stores its coordinate. The block's is also stored in ctx, where a fault reads it.
    struct level {
      const char* name;
      unsigned first_arg, count_arg;  // the box's first coordinate and extent
    };
    static constexpr level levels[4] = {{"x", 2, 3}, {"bx", 0, 8}, {"y", 4, 5}, {"z", 6, 7}};
    llvm::PHINode* iv[4] = {};
    llvm::BasicBlock* header[4] = {};
    llvm::BasicBlock* pre = entry;
    for (int d = 3; d >= 0; --d) {
      const std::string axis = levels[d].name;
      header[d] = llvm::BasicBlock::Create(c, "thread." + axis, range);
      b.CreateBr(header[d]);
      b.SetInsertPoint(header[d]);
      // Counted from 0 (IRCE needs a loop from a known start), the coordinate is first + count.
      iv[d] = b.CreatePHI(i32, 2, "k" + axis);
      iv[d]->addIncoming(b.getInt32(0), pre);
      llvm::Value* start = d == 1 ? first_block : range->getArg(levels[d].first_arg);
      // The block's coordinate without no-wrap flags: scalar evolution then does not fold its
      // sign extension into the block loop's recurrence, so a thread index built from it
      // (blockIdx.x * blockDim.x + threadIdx.x) keeps the bounded range of a product of 32-bit
      // values, which the lower-bound checks' rewriting needs (an exact `j - 1` for `0 < j`).
      llvm::Value* coordinate = b.CreateAdd(start, iv[d], "t" + axis, /*HasNUW=*/d != 1, /*HasNSW=*/d != 1);
      if (d == 1) coordinate = b.CreateFreeze(coordinate, "tbx.fr");
      if (d == 1) {
        b.CreateAlignedStore(coordinate, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), local, off_block_idx), llvm::Align(4));
        // Volatile: a fault in the body reads it, which the optimiser cannot see (it would sink
        // the store past the loop).
        b.CreateAlignedStore(coordinate, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctx, off_block_idx), llvm::Align(4),
                             /*isVolatile=*/true);
      } else {
        const unsigned dim = d == 0 ? 0 : static_cast<unsigned>(d) - 1;
        b.CreateAlignedStore(coordinate, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), local, off_thread_idx + 4 * dim),
                             llvm::Align(4));
      }
      pre = header[d];
    }
    // CUDA orders no two threads of a block that do not meet at a barrier: the x loop's
    // iterations are declared independent (llvm.loop.parallel_accesses over one access group,
    // which the inliner gives every memory access of the body from its call), so the vectoriser
    // needs no run-time alias checks between the kernel's arrays. A race between threads gets
    // one of the orders a GPU could give it.
    llvm::MDNode* group = llvm::MDNode::getDistinct(c, {});
    auto* call = b.CreateCall(body_, args);
    call->setMetadata(llvm::LLVMContext::MD_access_group, group);
    // The latches, x first: count up, go round while below the box's extent, else on to the next
    // outer latch (the last one to the exit).
    auto* exit = llvm::BasicBlock::Create(c, "done", range);
    for (int d = 0; d < 4; ++d) {
      const std::string axis = levels[d].name;
      llvm::Value* next = b.CreateAdd(iv[d], b.getInt32(1), "n" + axis, /*HasNUW=*/true, /*HasNSW=*/true);
      iv[d]->addIncoming(next, b.GetInsertBlock());
      auto* after = d < 3 ? llvm::BasicBlock::Create(c, std::string("next.") + levels[d + 1].name, range) : exit;
      auto* latch = b.CreateCondBr(b.CreateICmpULT(next, range->getArg(levels[d].count_arg)), header[d], after);
      if (d == 0) {
        llvm::TempMDTuple self = llvm::MDNode::getTemporary(c, {});
        llvm::MDNode* parallel = llvm::MDNode::get(c, {llvm::MDString::get(c, "llvm.loop.parallel_accesses"), group});
        llvm::MDNode* id = llvm::MDNode::getDistinct(c, {self.get(), parallel});
        id->replaceOperandWith(0, id);
        latch->setMetadata(llvm::LLVMContext::MD_loop, id);
      }
      b.SetInsertPoint(after);
    }
    b.CreateRetVoid();

    // The entries: each box's first coordinate and extent, from ctx.
    auto wrapper = [&](const std::string& name, bool one_thread) {
      llvm::Function* fn = declare_entry(m, name);
      llvm::IRBuilder<> w(llvm::BasicBlock::Create(c, "entry", fn));
      std::vector<llvm::Value*> call{fn->getArg(0), fn->getArg(1)};
      auto load = [&](unsigned offset) {
        return w.CreateAlignedLoad(i32, w.CreateConstInBoundsGEP1_64(w.getInt8Ty(), fn->getArg(0), offset), llvm::Align(4));
      };
      llvm::Value* blocks = one_thread ? static_cast<llvm::Value*>(w.getInt32(1)) : load(off_block_run);
      for (unsigned d = 0; d < 3; ++d) {
        if (one_thread) {
          call.push_back(load(off_thread_idx + 4 * d));
          call.push_back(w.getInt32(1));
        } else {
          call.push_back(w.getInt32(0));
          call.push_back(load(off_block_dim + 4 * d));
        }
      }
      if (!one_thread && one_row_) {
        // The row's blocks as one block of all their threads along x: a kernel that reads threadIdx.x
        // and blockIdx.x only as blockIdx.x * blockDim.x + threadIdx.x sees the same sums, and the x
        // loop runs the whole row instead of blockDim.x threads at a time (a 16x16 stencil spent a
        // third of its time between blocks). A fault then names the row's first block.
        llvm::Value* all = w.CreateMul(w.CreateZExt(call[3], w.getInt64Ty()), w.CreateZExt(blocks, w.getInt64Ty()));
        llvm::Value* fits = w.CreateICmpULT(all, w.getInt64(std::uint64_t{1} << 31));
        llvm::Value* several = w.CreateAnd(fits, w.CreateICmpUGT(all, w.getInt64(1)));
        call[3] = w.CreateSelect(fits, w.CreateTrunc(all, i32), call[3]);
        blocks = w.CreateSelect(fits, w.getInt32(1), blocks);
        for (unsigned d = 0; d < 3; ++d) {  // (a fault reads it: volatile)
          llvm::Value* at = w.CreateConstInBoundsGEP1_64(w.getInt8Ty(), fn->getArg(0), off_thread_idx + 4 * d);
          llvm::Value* was = w.CreateAlignedLoad(i32, at, llvm::Align(4));
          w.CreateAlignedStore(w.CreateSelect(several, w.getInt32(cpu::row_of_blocks_thread), was), at, llvm::Align(4),
                               /*isVolatile=*/true);
        }
      }
      call.push_back(blocks);
      w.CreateCall(range, call);
      w.CreateRetVoid();
    };
    wrapper(entry_name_, true);
    wrapper(entry_name_ + "_block", false);
  }

  static llvm::Value* shared_base(function_lowering& fl) { return field(fl, fl.b.getPtrTy(), off_shared); }

  llvm::TargetMachine& tm_;  // this thread's (host_machine)
  llvm::Function* body_ = nullptr;  ///< the kernel's body, when the module is a kernel
  std::string entry_name_;
  std::size_t slots_ = 0;
  bool block_entry_ = false;  ///< the kernel may get a block entry (no barriers, not cooperative)
  bool has_block_entry_ = false;
  bool one_row_ = false;  ///< a row of blocks runs as one block along x (x_only_through_grid)
  bool regions_ = false;  ///< the kernel also runs as its block in regions (codegen_regions.cpp)
  llvm::Function* region_body_ = nullptr;  ///< `name.regions`, the body lowered so
};

}  // namespace

std::unique_ptr<target> make_host_target(const compile_config& cfg) { return std::make_unique<host_target>(cfg); }

// float16 conversions LLVM leaves to the runtime library (compiler-rt's
// names) where the CPU has no instruction for them: double to half always,
// float to and from half without F16C. Ours, so the process needs no
// compiler-rt: round to nearest even, once, from the exact value.
// A float64 nan (its bits `x`) as a 16-bit float of `fraction` fraction bits, as the GPU's cvt from
// f64 makes it: the sign and the top of the payload, quieted (codegen_half.cpp's with_f64_nan is the
// same rule in IR).
std::uint16_t nan_from_f64(std::uint64_t x, int fraction) {
  const std::uint64_t exponent = fraction == 10 ? 0x7c00 : 0x7f80;
  const std::uint64_t payload = (x >> (52 - fraction)) & ((std::uint64_t{1} << fraction) - 1);
  return static_cast<std::uint16_t>(((x >> 48) & 0x8000) | exponent | (std::uint64_t{1} << (fraction - 1)) | payload);
}

std::uint16_t half_bits_of(double d) {
  std::uint64_t x = 0;
  std::memcpy(&x, &d, sizeof x);
  if (std::isnan(d)) return nan_from_f64(x, 10);
  if (std::isinf(d)) return static_cast<std::uint16_t>(((x >> 48) & 0x8000) | 0x7c00);
  return small_float_from_double(d, rounding::rn, ieee_half);
}

float float_of_half_bits(std::uint16_t b) {
  const std::uint32_t sign = static_cast<std::uint32_t>(b & 0x8000) << 16;
  std::uint32_t e = (b >> 10) & 0x1f, m = b & 0x3ff, bits = 0;
  if (e == 0x1f) {
    bits = sign | 0x7f800000 | (m << 13);
  } else if (e != 0) {
    bits = sign | ((e + 112) << 23) | (m << 13);
  } else if (m != 0) {  // subnormal: normalise
    int k = 0;
    while (!(m & 0x400)) {
      m <<= 1;
      ++k;
    }
    bits = sign | (static_cast<std::uint32_t>(113 - k) << 23) | ((m & 0x3ff) << 13);
  } else {
    bits = sign;
  }
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

namespace {

_Float16 from_bits(std::uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, sizeof h);
  return h;
}

extern "C" _Float16 cuforge_truncdfhf2(double d) { return from_bits(half_bits_of(d)); }
extern "C" _Float16 cuforge_truncsfhf2(float f) { return from_bits(half_bits_of(f)); }
extern "C" float cuforge_extendhfsf2(_Float16 h) {
  std::uint16_t b = 0;
  std::memcpy(&b, &h, sizeof b);
  return float_of_half_bits(b);
}

// The GPU's conversions into a 16-bit float in a rounding mode (cuda_fp16.h's __float2half_rz,
// __ll2half_rd, ...; intrinsics_fp16.cpp calls them where the target has no cvt): `mode` a
// `rounding`, `fraction` the format's fraction bits (10 half, 7 bfloat16).
extern "C" std::uint16_t cuforge_small_float_from_f64(double d, int mode, int fraction) {
  return small_float_from_double(d, static_cast<rounding>(mode), small_float_format{fraction});
}
extern "C" std::uint16_t cuforge_small_float_from_i64(std::int64_t v, int mode, int fraction) {
  return small_float_from_int(v, static_cast<rounding>(mode), small_float_format{fraction});
}
extern "C" std::uint16_t cuforge_small_float_from_u64(std::uint64_t v, int mode, int fraction) {
  return small_float_from_uint(v, static_cast<rounding>(mode), small_float_format{fraction});
}

// float and double to bfloat16, which LLVM calls where a bfloat16 crosses a host call (x86 passes
// it as a float): to the nearest, a nan keeping its bits (its top half), as a GPU's b16 register
// passes it unchanged. A bfloat16 comes back where a _Float16 does (xmm0's low 16 bits); this
// compiler has no __bf16 type to say so.
extern "C" _Float16 cuforge_truncsfbf2(float f) {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, sizeof x);
  return from_bits(std::isnan(f) ? static_cast<std::uint16_t>(x >> 16)
                                 : small_float_from_double(f, rounding::rn, bfloat16_format));
}
extern "C" _Float16 cuforge_truncdfbf2(double d) {
  std::uint64_t x = 0;
  std::memcpy(&x, &d, sizeof x);
  if (std::isnan(d)) return from_bits(nan_from_f64(x, 7));  // cvt.rn.bf16.f64's nan
  return from_bits(small_float_from_double(d, rounding::rn, bfloat16_format));
}

}  // namespace

// The addresses the JIT binds first: the scheduler's entry points (libcuforge
// exports them, but a test executable linking the objects need not), the
// thread-exit helper, and the math library, so that the kernel's libm is the
// process's whatever the dynamic symbol table holds.
std::vector<host_symbol> host_symbols() {
  using f1 = float (*)(float);
  using d1 = double (*)(double);
  using f2 = float (*)(float, float);
  using d2 = double (*)(double, double);
  std::vector<host_symbol> s = {
      {"cuforge_cpu_syncthreads", reinterpret_cast<void*>(&cuforge_cpu_syncthreads)},
      {"cuforge_cpu_grid_sync", reinterpret_cast<void*>(&cuforge_cpu_grid_sync)},
      {"cuforge_cpu_syncwarp", reinterpret_cast<void*>(&cuforge_cpu_syncwarp)},
      {"cuforge_cpu_warp_shuffle", reinterpret_cast<void*>(&cuforge_cpu_warp_shuffle)},
      {"cuforge_cpu_warp_vote", reinterpret_cast<void*>(&cuforge_cpu_warp_vote)},
      {"cuforge_cpu_warp_match", reinterpret_cast<void*>(&cuforge_cpu_warp_match)},
      {"cuforge_cpu_warp_active", reinterpret_cast<void*>(&cuforge_cpu_warp_active)},
      {"cuforge_codegen_exit_thread", reinterpret_cast<void*>(&cuforge_codegen_exit_thread)},
      {"cuforge_host_random", reinterpret_cast<void*>(&cuforge_host_random)},
      {"cuforge_host_seed", reinterpret_cast<void*>(&cuforge_host_seed)},
      {"cuforge_host_nanosleep", reinterpret_cast<void*>(&cuforge_host_nanosleep)},
      {"cuforge_host_print", reinterpret_cast<void*>(&cuforge_host_print)},
      {"cuforge_host_alloc", reinterpret_cast<void*>(&cuforge_host_alloc)},  // host_arrays.cpp
      {"memcpy", reinterpret_cast<void*>(&std::memcpy)},
      {"memmove", reinterpret_cast<void*>(&std::memmove)},
      {"memset", reinterpret_cast<void*>(&std::memset)},
      {"__truncdfhf2", reinterpret_cast<void*>(&cuforge_truncdfhf2)},
      {"__truncsfhf2", reinterpret_cast<void*>(&cuforge_truncsfhf2)},
      {"__extendhfsf2", reinterpret_cast<void*>(&cuforge_extendhfsf2)},
      {"__gnu_h2f_ieee", reinterpret_cast<void*>(&cuforge_extendhfsf2)},
      {"__gnu_f2h_ieee", reinterpret_cast<void*>(&cuforge_truncsfhf2)},
      {"__truncsfbf2", reinterpret_cast<void*>(&cuforge_truncsfbf2)},
      {"__truncdfbf2", reinterpret_cast<void*>(&cuforge_truncdfbf2)},
      {"cuforge_small_float_from_f64", reinterpret_cast<void*>(&cuforge_small_float_from_f64)},
      {"cuforge_small_float_from_i64", reinterpret_cast<void*>(&cuforge_small_float_from_i64)},
      {"cuforge_small_float_from_u64", reinterpret_cast<void*>(&cuforge_small_float_from_u64)},
  };
#define CUFORGE_MATH1(name) \
  s.push_back({#name "f", reinterpret_cast<void*>(static_cast<f1>(&::name##f))}); \
  s.push_back({#name, reinterpret_cast<void*>(static_cast<d1>(&::name))});
#define CUFORGE_MATH2(name) \
  s.push_back({#name "f", reinterpret_cast<void*>(static_cast<f2>(&::name##f))}); \
  s.push_back({#name, reinterpret_cast<void*>(static_cast<d2>(&::name))});
  CUFORGE_MATH1(sqrt) CUFORGE_MATH1(cbrt) CUFORGE_MATH1(exp) CUFORGE_MATH1(exp2) CUFORGE_MATH1(expm1)
  CUFORGE_MATH1(log) CUFORGE_MATH1(log2) CUFORGE_MATH1(log10) CUFORGE_MATH1(log1p) CUFORGE_MATH1(sin)
  CUFORGE_MATH1(cos) CUFORGE_MATH1(tan) CUFORGE_MATH1(asin) CUFORGE_MATH1(acos) CUFORGE_MATH1(atan)
  CUFORGE_MATH1(sinh) CUFORGE_MATH1(cosh) CUFORGE_MATH1(tanh) CUFORGE_MATH1(asinh) CUFORGE_MATH1(acosh)
  CUFORGE_MATH1(atanh) CUFORGE_MATH1(erf) CUFORGE_MATH1(erfc) CUFORGE_MATH1(lgamma) CUFORGE_MATH1(tgamma)
  CUFORGE_MATH1(floor) CUFORGE_MATH1(ceil) CUFORGE_MATH1(trunc) CUFORGE_MATH1(rint) CUFORGE_MATH1(fabs)
  CUFORGE_MATH1(round) CUFORGE_MATH1(nearbyint)
  CUFORGE_MATH2(atan2) CUFORGE_MATH2(hypot) CUFORGE_MATH2(copysign) CUFORGE_MATH2(fmod) CUFORGE_MATH2(pow)
  CUFORGE_MATH2(fmin) CUFORGE_MATH2(fmax) CUFORGE_MATH2(nextafter) CUFORGE_MATH2(remainder)
#undef CUFORGE_MATH1
#undef CUFORGE_MATH2
  s.push_back({"ldexpf", reinterpret_cast<void*>(static_cast<float (*)(float, int)>(&::ldexpf))});
  s.push_back({"ldexp", reinterpret_cast<void*>(static_cast<double (*)(double, int)>(&::ldexp))});
  s.push_back({"frexpf", reinterpret_cast<void*>(static_cast<float (*)(float, int*)>(&::frexpf))});
  s.push_back({"frexp", reinterpret_cast<void*>(static_cast<double (*)(double, int*)>(&::frexp))});
  s.push_back({"modff", reinterpret_cast<void*>(static_cast<float (*)(float, float*)>(&::modff))});
  s.push_back({"modf", reinterpret_cast<void*>(static_cast<double (*)(double, double*)>(&::modf))});
  for (host_symbol& l : libdevice_host_symbols()) s.push_back(l);
  for (host_symbol& v : host_vector_math_symbols()) s.push_back(v);
  return s;
}

}  // namespace cuforge::frontend::detail

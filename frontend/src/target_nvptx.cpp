// The NVPTX target: kernels take one i64 per slot and are annotated as
// kernels; thread coordinates, barriers and fences are NVVM intrinsics;
// shared memory is addrspace(3) globals, constant memory addrspace(4); math
// is libdevice.
#include "codegen_lower.hpp"
#include "codegen_target.hpp"
#include "llvm_support.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Metadata.h>

namespace cuforge::frontend::detail {

namespace {

// libdevice asks NVVMReflect for __CUDA_PREC_SQRT, which LLVM 19's NVVMReflect does not know (it
// answers 0: sqrt.approx inside hypotf, normf, rnormf, ...). NVVM answers 1 unless fastmath
// (numba-cuda's prec_sqrt), so the answer is given here, before the pipeline's NVVMReflect runs.
void answer_prec_sqrt(llvm::Module& m, bool fastmath) {
  llvm::Function* reflect = m.getFunction("__nvvm_reflect");
  if (reflect == nullptr) return;
  std::vector<llvm::CallInst*> answered;
  for (llvm::User* u : reflect->users()) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(u);
    if (call == nullptr || call->arg_size() != 1) continue;
    auto* g = llvm::dyn_cast<llvm::GlobalVariable>(call->getArgOperand(0)->stripPointerCasts());
    if (g == nullptr || !g->hasInitializer()) continue;
    auto* text = llvm::dyn_cast<llvm::ConstantDataSequential>(g->getInitializer());
    if (text == nullptr || !text->isCString() || text->getAsCString() != "__CUDA_PREC_SQRT") continue;
    call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), fastmath ? 0 : 1));
    answered.push_back(call);
  }
  for (llvm::CallInst* c : answered) c->eraseFromParent();
}

// The PTX register constraint of a value of type `t`: h, r, l for 16-, 32-, 64-bit integers, f and d
// for float and double (16-bit floats travel as 16-bit integers: see inline_ptx).
const char* constraint_of(llvm::Type* t) {
  if (t->isFloatTy()) return "f";
  if (t->isDoubleTy()) return "d";
  switch (t->getPrimitiveSizeInBits()) {
    case 8: return "c";
    case 16: return "h";
    case 32: return "r";
    default: return "l";
  }
}

// `instruction` (up to its operands) of `args`, its result of type `to`, as inline assembly: what it
// computes is the instruction's, which LLVM neither rewrites nor folds. Halves and bfloat16s pass
// through 16-bit integer registers, as cuda_fp16.h passes them.
llvm::Value* inline_ptx(llvm::IRBuilder<>& b, const std::string& instruction, llvm::Type* to,
                        const std::vector<llvm::Value*>& args) {
  auto as_register = [&](llvm::Type* t) -> llvm::Type* { return t->is16bitFPTy() ? b.getInt16Ty() : t; };
  std::vector<llvm::Type*> types;
  std::vector<llvm::Value*> operands;
  std::string text = instruction + " $0", constraints = std::string("=") + constraint_of(to);
  for (std::size_t i = 0; i < args.size(); ++i) {
    llvm::Value* a = args[i];
    if (a->getType()->is16bitFPTy()) a = b.CreateBitCast(a, b.getInt16Ty());
    types.push_back(a->getType());
    operands.push_back(a);
    text += ", $" + std::to_string(i + 1);
    constraints += std::string(",") + constraint_of(a->getType());
  }
  auto* ty = llvm::FunctionType::get(as_register(to), types, false);
  auto* fn = llvm::InlineAsm::get(ty, text + ";", constraints, /*hasSideEffects=*/false);
  llvm::CallInst* r = b.CreateCall(ty, fn, operands);
  r->setDoesNotAccessMemory();
  r->setDoesNotThrow();
  return to->is16bitFPTy() ? b.CreateBitCast(r, to) : static_cast<llvm::Value*>(r);
}

llvm::Value* cvt(llvm::IRBuilder<>& b, const std::string& instruction, llvm::Type* to, llvm::Value* x) {
  return inline_ptx(b, instruction, to, {x});
}

// The NVVM conversion intrinsics libdevice calls (llvm.nvvm.d2i.rz, i2f.rz, ll2d.rm, ...) as the
// cvt instruction each names, in inline assembly. LLVM 19 would otherwise rewrite the .rz ones into
// plain fptosi/sitofp (int-to-float then rounds to nearest, not toward zero: int2float_rz(305419896)
// came out 305419904 on an H200) and fold constant out-of-range or nan inputs to poison, where
// the GPU's cvt saturates; NVVM (numba-cuda) keeps the instruction.
void keep_conversions_as_cvt(llvm::Module& m) {
  struct kind {
    const char* name;
    const char* ptx;
    bool is_float;
  };
  static constexpr kind kinds[] = {{"f", "f32", true},   {"d", "f64", true},  {"i", "s32", false},
                                   {"ui", "u32", false}, {"ll", "s64", false}, {"ull", "u64", false}};
  auto find = [](llvm::StringRef n) -> const kind* {
    for (const kind& k : kinds)
      if (n == k.name) return &k;
    return nullptr;
  };
  std::vector<llvm::Function*> done;
  for (llvm::Function& f : m) {
    llvm::StringRef name = f.getName();
    if (!f.isDeclaration() || !name.consume_front("llvm.nvvm.")) continue;
    // <src>2<dst>.<rn|rz|rm|rp>[.ftz]
    auto [pair, rest] = name.split('.');
    auto [src_name, dst_name] = pair.split('2');
    auto [mode, tail] = rest.split('.');
    const kind* src = find(src_name);
    const kind* dst = find(dst_name);
    bool ftz = tail == "ftz";
    if (src == nullptr || dst == nullptr || src == dst || !(tail.empty() || ftz) ||
        !(mode == "rn" || mode == "rz" || mode == "rm" || mode == "rp"))
      continue;
    // Float to integer rounds to an integer (rni, rzi, ...); the others round the value.
    std::string rnd = "." + mode.str() + (src->is_float && !dst->is_float ? "i" : "");
    std::string instruction = "cvt" + rnd + (ftz ? ".ftz" : "") + "." + dst->ptx + "." + src->ptx;
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* u : f.users())
      if (auto* c = llvm::dyn_cast<llvm::CallInst>(u); c != nullptr && c->getCalledFunction() == &f) calls.push_back(c);
    for (llvm::CallInst* c : calls) {
      llvm::IRBuilder<> b(c);
      c->replaceAllUsesWith(cvt(b, instruction, f.getReturnType(), c->getArgOperand(0)));
      c->eraseFromParent();
    }
    if (f.use_empty()) done.push_back(&f);
  }
  for (llvm::Function* f : done) f->eraseFromParent();
}

class nvptx_target final : public target {
 public:
  explicit nvptx_target(const compile_config& c) : target(c), tm_(nvptx_machine(c.cc, c.fastmath, c.opt)) {}

  llvm::TargetMachine& machine() override { return tm_; }

  void finish_module(llvm::Module& m) override {
    // libdevice asks NVVMReflect whether denormals flush (__CUDA_FTZ).
    m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", cfg_.fastmath ? 1 : 0);
    link_libdevice(m);
    answer_prec_sqrt(m, cfg_.fastmath);
    keep_conversions_as_cvt(m);
    // The inliner ANDs "unsafe-fp-math" across callee and caller: libdevice's
    // own attributes would switch fastmath off in every kernel that uses it.
    for (llvm::Function& f : m)
      if (!f.isDeclaration()) set_attributes(f);
  }

  // NVPTX: line directives only, as clang's -gline-directives-only does; ptxas reads DWARF 2.
  llvm::DICompileUnit::DebugEmissionKind line_table_kind() const override {
    return llvm::DICompileUnit::DebugDirectivesOnly;
  }
  unsigned dwarf_version() const override { return 2; }

  unsigned address_space(frontend::address_space s) const override {
    switch (s) {
      case frontend::address_space::global: return 1;
      case frontend::address_space::shared: return 3;
      case frontend::address_space::constant: return 4;
      case frontend::address_space::local: return 0;  // allocas: NVPTX moves them to local memory itself
    }
    return 0;
  }

  bool takes_context() const noexcept override { return false; }

  llvm::Function* declare_kernel(module_state& ms, const std::string& name, std::size_t slots) override {
    std::vector<llvm::Type*> params(slots, llvm::Type::getInt64Ty(ms.ctx));
    auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(ms.ctx), params, false);
    auto* fn = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, ms.mod);
    fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
    annotate(ms, fn, "kernel", 1);
    // max_registers: the NVPTX printer writes `.maxnreg N` on the entry, so
    // the limit holds for ptxas and for the driver's JIT alike.
    if (cfg_.max_registers > 0) annotate(ms, fn, "maxnreg", cfg_.max_registers);
    // launch_bounds: .maxntid (x alone, as numba-cuda: the bound is on the block's threads),
    // .minnctapersm and .maxclusterrank.
    if (cfg_.max_threads_per_block > 0) annotate(ms, fn, "maxntidx", cfg_.max_threads_per_block);
    if (cfg_.min_blocks_per_sm > 0) annotate(ms, fn, "minctasm", cfg_.min_blocks_per_sm);
    if (cfg_.max_blocks_per_cluster > 0) annotate(ms, fn, "maxclusterrank", cfg_.max_blocks_per_cluster);
    return fn;
  }

  std::vector<llvm::Value*> load_slots(function_lowering& fl, std::size_t slots) override {
    std::vector<llvm::Value*> v;
    for (std::size_t i = 0; i < slots; ++i) v.push_back(fl.fn->getArg(static_cast<unsigned>(i)));
    return v;
  }

  llvm::Value* special_register(function_lowering& fl, sreg r, int dim) override {
    using I = llvm::Intrinsic::ID;
    static constexpr I table[4][3] = {
        {llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
         llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},
        {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
         llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
        {llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_y,
         llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_z},
        {llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
         llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z}};
    return fl.intrinsic(table[static_cast<int>(r)][dim], {}, {});
  }

  void barrier(function_lowering& fl) override { fl.intrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); }

  // LLVM 19's NVPTX selects atom.* without a scope (the GPU scope, CUDA's
  // atomicAdd) whatever the sync scope says.
  llvm::SyncScope::ID atomic_scope(llvm::LLVMContext&, frontend::address_space) const override {
    return llvm::SyncScope::System;
  }

  llvm::Value* static_shared(function_lowering& fl, const std::string& name, llvm::Type* elem, std::uint64_t count,
                             std::uint64_t) override {
    if (auto* g = fl.ms.mod.getNamedGlobal(name)) return g;
    auto* ty = llvm::ArrayType::get(elem, count);
    auto* g = new llvm::GlobalVariable(fl.ms.mod, ty, false, llvm::GlobalValue::InternalLinkage,
                                       llvm::UndefValue::get(ty), name, nullptr, llvm::GlobalValue::NotThreadLocal, 3);
    g->setAlignment(llvm::Align(16));
    return g;
  }

  std::pair<llvm::Value*, llvm::Value*> dynamic_shared(function_lowering& fl) override {
    const char* name = "cuforge_dynamic_shared";
    llvm::GlobalVariable* g = fl.ms.mod.getNamedGlobal(name);
    if (g == nullptr) {
      auto* ty = llvm::ArrayType::get(llvm::Type::getInt8Ty(fl.c_()), 0);
      g = new llvm::GlobalVariable(fl.ms.mod, ty, false, llvm::GlobalValue::ExternalLinkage, nullptr, name, nullptr,
                                   llvm::GlobalValue::NotThreadLocal, 3);
      g->setAlignment(llvm::Align(16));
    }
    // The launch's dynamic shared size: a special register LLVM has no intrinsic for.
    auto* asm_ty = llvm::FunctionType::get(fl.b.getInt32Ty(), false);
    auto* read = llvm::InlineAsm::get(asm_ty, "mov.u32 $0, %dynamic_smem_size;", "=r", false);
    llvm::Value* bytes = fl.b.CreateZExt(fl.b.CreateCall(asm_ty, read), fl.b.getInt64Ty());
    return {g, bytes};
  }

  bool has_approx_f32() const noexcept override { return true; }
  llvm::Value* ptx_instruction(function_lowering& fl, const std::string& instruction, int min_sm, llvm::Type* result,
                               const std::vector<llvm::Value*>& args) const override {
    if (cfg_.cc.major * 10 + cfg_.cc.minor < min_sm) return nullptr;
    return inline_ptx(fl.b, instruction, result, args);
  }
  llvm::Value* float_to_int(function_lowering& fl, llvm::Value* v, unsigned bits, bool is_signed) const override {
    std::string instruction = "cvt.rzi." + std::string(is_signed ? "s" : "u") + std::to_string(bits) +
                              (v->getType()->isFloatTy() ? ".f32" : ".f64");
    return cvt(fl.b, instruction, fl.b.getIntNTy(bits), v);
  }

  llvm::Value* approx_f32(function_lowering& fl, approx_fn fn, llvm::Value* x) const override {
    static constexpr llvm::Intrinsic::ID ids[] = {
        llvm::Intrinsic::nvvm_ex2_approx_ftz_f, llvm::Intrinsic::nvvm_lg2_approx_ftz_f,
        llvm::Intrinsic::nvvm_rcp_approx_ftz_f, llvm::Intrinsic::nvvm_rsqrt_approx_ftz_f,
        llvm::Intrinsic::nvvm_sqrt_approx_ftz_f};  // indexed by approx_fn
    return fl.intrinsic(ids[static_cast<std::size_t>(fn)], {}, {x});
  }

  std::string math_symbol(op_id op, int bits, bool fastmath) const override {
    const bool f32 = bits == 32;
    if (op == op_id::sqrt) {
      // LLVM 19 keeps sqrt.rn even with unsafe-fp-math: ask for the approximation by name.
      if (fastmath && f32) return "llvm.nvvm.sqrt.approx.ftz.f";
      return fastmath ? std::string() : "__nv_sqrt" + std::string(f32 ? "f" : "");
    }
    if (fastmath && f32) {
      switch (op) {  // Numba's fastmath functions
        case op_id::sin: return "__nv_fast_sinf";
        case op_id::cos: return "__nv_fast_cosf";
        case op_id::tan: return "__nv_fast_tanf";
        case op_id::exp: return "__nv_fast_expf";
        case op_id::log: return "__nv_fast_logf";
        case op_id::log2: return "__nv_fast_log2f";
        case op_id::log10: return "__nv_fast_log10f";
        case op_id::fpow: return "__nv_fast_powf";
        default: break;
      }
    }
    std::string base;
    switch (op) {
      case op_id::fpow: base = "pow"; break;
      case op_id::lgamma: base = "lgamma"; break;
      case op_id::tgamma: base = "tgamma"; break;
      default: base = to_string(op);
    }
    return "__nv_" + base + (f32 ? "f" : "");
  }

  // PTX's `exit` ends the thread alone (a trap would end the context: every later launch would fail).
  void exit_thread(function_lowering& fl) override {
    auto* ty = llvm::FunctionType::get(fl.b.getVoidTy(), false);
    fl.b.CreateCall(ty, llvm::InlineAsm::get(ty, "exit;", "", /*hasSideEffects=*/true));
    fl.b.CreateUnreachable();
  }

  void set_attributes(llvm::Function& fn) const override {
    fn.addFnAttr(llvm::Attribute::NoUnwind);
    if (cfg_.fastmath) {
      fn.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
      fn.addFnAttr("unsafe-fp-math", "true");
    }
  }

 private:
  // One entry of nvvm.annotations: (function, key, i32 value).
  static void annotate(module_state& ms, llvm::Function* fn, const char* key, int value) {
    llvm::Metadata* md[] = {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ms.ctx, key),
                            llvm::ValueAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ms.ctx), value))};
    ms.mod.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ms.ctx, md));
  }

  llvm::TargetMachine& tm_;  // this thread's (nvptx_machine)
};

}  // namespace

std::unique_ptr<target> make_nvptx_target(const compile_config& cfg) { return std::make_unique<nvptx_target>(cfg); }

}  // namespace cuforge::frontend::detail

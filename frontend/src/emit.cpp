// Stage 4 of the pipeline (codegen_lower.hpp): an optimised module out of
// LLVM as PTX text, as an object file, or as code in the host JIT.
#include "llvm_support.hpp"

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <map>
#include <mutex>

namespace cuforge::frontend::detail {

namespace {

// Loop strength reduction runs in every target's code generator. On NVPTX it
// gives each access of a runtime-unrolled loop its own pointer: a grid-stride
// copy took 56 registers (numba-cuda's, through NVVM: 28), half the occupancy,
// and 0.51x the copy bandwidth on an H200; without it 32 registers and 0.73x
// (numba-cuda 0.70; bench/README.md). Its switch is one of LLVM's global
// options (-disable-lsr), read while a code generation pipeline is built
// (TargetPassConfig::addIRPasses), so building or running a fresh pipeline holds this
// lock and sets it for its target: on for the host (as CUFORGE_LLVM_OPTIONS left it),
// off for NVPTX. A kept pipeline (kept_ptx_codegen) holds it only while it is built.
class lsr_setting {
 public:
  explicit lsr_setting(bool disable) : lock_(mutex()) {
    const bool host = configured();  // read once, before the first change
    if (option() != nullptr) *option() = disable || host;
  }
  ~lsr_setting() {
    if (option() != nullptr) *option() = configured();
  }
  lsr_setting(const lsr_setting&) = delete;
  lsr_setting& operator=(const lsr_setting&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static llvm::cl::opt<bool>* option() {
    static llvm::cl::opt<bool>* o = [] {
      initialize_llvm();  // CUFORGE_LLVM_OPTIONS parsed first
      auto& all = llvm::cl::getRegisteredOptions();
      auto it = all.find("disable-lsr");
      return it == all.end() ? nullptr : static_cast<llvm::cl::opt<bool>*>(it->second);
    }();
    return o;
  }
  static bool configured() {
    static const bool v = option() != nullptr && option()->getValue();
    return v;
  }
  std::lock_guard<std::mutex> lock_;
};

// The module through the target's code generator, as a file of `type`.
std::string emit_file(llvm::Module& m, llvm::TargetMachine& tm, llvm::CodeGenFileType type, const char* what) {
  lsr_setting lsr(tm.getTargetTriple().isNVPTX());
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) throw internal_compiler_error(std::string("codegen: ") + what);
  pm.run(m);
  return std::string(bytes.begin(), bytes.end());
}

// NVPTX's code generator, built once per thread and target machine and run on module after
// module: building its legacy pass pipeline is a third of generating a small kernel's PTX
// (bench/README.md). Each run begins and ends the module (doInitialization/doFinalization),
// and all but one piece of the pipeline's state is per module. The exception is the PTX
// printer's list of shared variables it declares inside a function ("demoted"), which it
// keys by the function's address and never clears: a later module's function at a freed
// function's address would be printed with the earlier one's variables. So a module that
// has such variables (local shared globals) is kept alive, with its context, while the
// pipeline that saw it lives, and the pipeline is made anew once it has kept `keep_at_most`.
class kept_ptx_codegen {
 public:
  static constexpr std::size_t keep_at_most = 32;

  // The pipeline for `tm` on this thread. Made after the thread's target machines
  // (nvptx_machine), so destroyed before them at the thread's end.
  static kept_ptx_codegen& of(llvm::TargetMachine& tm) {
    thread_local std::map<const llvm::TargetMachine*, std::unique_ptr<kept_ptx_codegen>> all;
    auto& slot = all[&tm];
    if (!slot || slot->kept_.size() >= keep_at_most) {
      slot.reset();  // the old pipeline and its modules go before the new one is built
      slot = std::make_unique<kept_ptx_codegen>(tm);
    }
    return *slot;
  }

  explicit kept_ptx_codegen(llvm::TargetMachine& tm) : os_(bytes_) {
    lsr_setting lsr(true);  // read while the pipeline is built (TargetPassConfig::addIRPasses)
    if (tm.addPassesToEmitFile(*pm_, os_, nullptr, llvm::CodeGenFileType::AssemblyFile))
      throw internal_compiler_error("codegen: the NVPTX target cannot emit PTX");
  }
  kept_ptx_codegen(const kept_ptx_codegen&) = delete;
  kept_ptx_codegen& operator=(const kept_ptx_codegen&) = delete;

  std::string run(std::unique_ptr<llvm::Module>& m, std::unique_ptr<llvm::LLVMContext>& ctx) {
    bytes_.clear();
    pm_->run(*m);  // (no lsr_setting: the option was read when the pipeline was built)
    std::string ptx(bytes_.begin(), bytes_.end());
    if (has_local_shared(*m)) kept_.push_back({std::move(ctx), std::move(m)});
    return ptx;
  }

 private:
  // Shared variables the printer may demote: local linkage in NVPTX's shared address space.
  static bool has_local_shared(const llvm::Module& m) {
    for (const llvm::GlobalVariable& g : m.globals())
      if (g.hasLocalLinkage() && g.getAddressSpace() == 3) return true;
    return false;
  }

  struct kept_module {
    std::unique_ptr<llvm::LLVMContext> ctx;  // first: outlives the module
    std::unique_ptr<llvm::Module> mod;
  };

  // Declared before the pipeline, so destroyed after it: the printer may point into them.
  std::vector<kept_module> kept_;
  llvm::SmallString<0> bytes_;
  llvm::raw_svector_ostream os_;
  std::unique_ptr<llvm::legacy::PassManager> pm_ = std::make_unique<llvm::legacy::PassManager>();
};

}  // namespace

std::string emit_ptx(std::unique_ptr<llvm::Module>& m, std::unique_ptr<llvm::LLVMContext>& ctx,
                     llvm::TargetMachine& tm) {
  // A module with debug information gets a pipeline of its own: the printer's DWARF state
  // is made per module, and lineinfo compiles are rare enough not to need the saving.
  if (m->debug_compile_units().empty()) return kept_ptx_codegen::of(tm).run(m, ctx);
  return emit_file(*m, tm, llvm::CodeGenFileType::AssemblyFile, "the NVPTX target cannot emit PTX");
}

std::string emit_object(llvm::Module& m, llvm::TargetMachine& tm) {
  return emit_file(m, tm, llvm::CodeGenFileType::ObjectFile, "the host target cannot emit object files");
}

jit_result jit_compile(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                       const std::string& symbol, const std::vector<host_symbol>& symbols, bool opt,
                       const std::string& also) {
  initialize_llvm();
  const host_description& h = host_cpu();
  lsr_setting lsr(false);  // the host's code is generated in this call (the entry's lookup)
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(h.triple)};
  jtmb.setCPU(h.cpu);
  jtmb.setFeatures(h.features);
  jtmb.setCodeGenOptLevel(opt ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::None);
  // No platform: kernels have no static initialisers, and the generic
  // platform's bookkeeping would cost every compile.
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(jtmb))
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 .create();
  if (!jit) throw logic_error("codegen: cannot create the host JIT: " + llvm::toString(jit.takeError()));
  auto errors = std::make_shared<std::string>();
  (*jit)->getExecutionSession().setErrorReporter([errors](llvm::Error e) {
    *errors += (errors->empty() ? "" : "; ") + llvm::toString(std::move(e));
  });
  llvm::orc::SymbolMap map;
  for (const auto& s : symbols)
    map[(*jit)->mangleAndIntern(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                                            llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto e = (*jit)->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(map))))
    throw logic_error("codegen: host JIT: " + llvm::toString(std::move(e)));
  if (auto e = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    throw logic_error("codegen: host JIT: " + llvm::toString(std::move(e)));
  auto address = (*jit)->lookup(symbol);
  if (!address) {
    std::string why = llvm::toString(address.takeError());
    throw internal_compiler_error(
        "codegen: host JIT cannot compile " + symbol + ": " + why + (errors->empty() ? "" : " (" + *errors + ")"));
  }
  jit_result r;
  r.address = address->toPtr<void*>();
  if (!also.empty()) {
    auto second = (*jit)->lookup(also);
    if (!second) throw internal_compiler_error("codegen: host JIT cannot compile " + also + ": " + llvm::toString(second.takeError()));
    r.second = second->toPtr<void*>();
  }
  auto* owner = jit->release();
  r.session = std::shared_ptr<void>(owner, [](void* p) { delete static_cast<llvm::orc::LLJIT*>(p); });
  return r;
}

}  // namespace cuforge::frontend::detail

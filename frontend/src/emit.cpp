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
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

namespace cuforge::frontend::detail {

namespace {

// The module through the target's code generator, as a file of `type`.
std::string emit_file(llvm::Module& m, llvm::TargetMachine& tm, llvm::CodeGenFileType type, const char* what) {
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) throw internal_compiler_error(std::string("codegen: ") + what);
  pm.run(m);
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace

std::string emit_ptx(llvm::Module& m, llvm::TargetMachine& tm) {
  return emit_file(m, tm, llvm::CodeGenFileType::AssemblyFile, "the NVPTX target cannot emit PTX");
}

std::string emit_object(llvm::Module& m, llvm::TargetMachine& tm) {
  return emit_file(m, tm, llvm::CodeGenFileType::ObjectFile, "the host target cannot emit object files");
}

jit_result jit_compile(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                       const std::string& symbol, const std::vector<host_symbol>& symbols, bool opt) {
  initialize_llvm();
  const host_description& h = host_cpu();
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
  auto* owner = jit->release();
  r.session = std::shared_ptr<void>(owner, [](void* p) { delete static_cast<llvm::orc::LLJIT*>(p); });
  return r;
}

}  // namespace cuforge::frontend::detail

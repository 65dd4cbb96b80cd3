#include "llvm_support.hpp"

#include <cuforge/runtime/error.hpp>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <cstdlib>
#include <mutex>

#ifndef CUFORGE_LIBDEVICE_PATH
#define CUFORGE_LIBDEVICE_PATH "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

namespace cuforge::frontend::detail {

namespace {

std::string message_of(llvm::Error e) { return llvm::toString(std::move(e)); }

// LLVM's fatal errors would exit the process: raise them as ours instead.
// (Our LLVM is linked statically with hidden symbols, so this handler is
// ours alone, whatever else in the process uses LLVM.)
void on_fatal_error(void*, const char* reason, bool) {
  throw logic_error(std::string("codegen: LLVM error: ") + reason);
}

struct host_description {
  std::string triple, cpu, features;
};

const host_description& host() {
  static const host_description h = [] {
    host_description d;
    d.triple = llvm::sys::getProcessTriple();
    d.cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures features;
    for (const auto& f : llvm::sys::getHostCPUFeatures()) features.AddFeature(f.getKey(), f.getValue());
    d.features = features.getString();
    return d;
  }();
  return h;
}

const llvm::Target& lookup(const std::string& triple) {
  initialize_llvm();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (t == nullptr) throw logic_error("codegen: no LLVM target for " + triple + ": " + error);
  return *t;
}

}  // namespace

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::install_fatal_error_handler(on_fatal_error, nullptr);
  });
}

std::pair<std::string, std::string> nvptx_processor(compute_capability cc) {
  // What LLVM 19 knows, with the first PTX ISA that has each.
  struct sm {
    compute_capability cc;
    int ptx;
  };
  static constexpr sm known[] = {{{5, 0}, 40}, {{5, 2}, 40}, {{5, 3}, 42}, {{6, 0}, 50}, {{6, 1}, 50},
                                 {{6, 2}, 50}, {{7, 0}, 60}, {{7, 2}, 61}, {{7, 5}, 63}, {{8, 0}, 70},
                                 {{8, 6}, 71}, {{8, 7}, 74}, {{8, 9}, 78}, {{9, 0}, 78}};
  const sm* pick = nullptr;
  for (const auto& k : known)
    if (k.cc <= cc) pick = &k;
  if (pick == nullptr)
    throw logic_error("codegen: compute capability " + std::to_string(cc.major) + "." + std::to_string(cc.minor) +
                      " is not supported (5.0 or newer)");
  return {"sm_" + std::to_string(pick->cc.major) + std::to_string(pick->cc.minor), "ptx" + std::to_string(pick->ptx)};
}

std::unique_ptr<llvm::TargetMachine> make_nvptx_machine(compute_capability cc, bool fastmath, bool opt) {
  const std::string triple = "nvptx64-nvidia-cuda";
  const llvm::Target& t = lookup(triple);
  auto [cpu, ptx] = nvptx_processor(cc);
  llvm::TargetOptions o;
  // NVPTX picks div.approx / sqrt.approx and contracts into fma from these.
  o.UnsafeFPMath = fastmath;
  o.NoSignedZerosFPMath = fastmath;
  o.ApproxFuncFPMath = fastmath;
  o.AllowFPOpFusion = fastmath ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  std::unique_ptr<llvm::TargetMachine> tm(t.createTargetMachine(
      triple, cpu, "+" + ptx, o, std::nullopt, std::nullopt,
      opt ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::None));
  if (!tm) throw logic_error("codegen: cannot create the NVPTX target machine for " + cpu);
  return tm;
}

std::unique_ptr<llvm::TargetMachine> make_host_machine(bool opt) {
  const host_description& h = host();
  const llvm::Target& t = lookup(h.triple);
  llvm::TargetOptions o;
  std::unique_ptr<llvm::TargetMachine> tm(t.createTargetMachine(
      h.triple, h.cpu, h.features, o, llvm::Reloc::PIC_, llvm::CodeModel::Small,
      opt ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::None));
  if (!tm) throw logic_error("codegen: cannot create the host target machine for " + h.triple);
  return tm;
}

void verify(const llvm::Module& m, const char* stage) {
  std::string report;
  llvm::raw_string_ostream os(report);
  if (llvm::verifyModule(m, &os)) {
    os.flush();
    throw logic_error(std::string("codegen: invalid LLVM IR ") + stage + ":\n" + report);
  }
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm, bool opt) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = opt;
  pto.SLPVectorization = opt;
  pto.LoopUnrolling = opt;
  pto.LoopInterleaving = opt;
  // The target machine registers its own passes (NVPTX: NVVMReflect at the
  // start of every pipeline, O0 included).
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = opt ? pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
                                    : pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
  mpm.run(m, mam);
}

namespace {

const llvm::MemoryBuffer& libdevice() {
  static std::once_flag once;
  static std::unique_ptr<llvm::MemoryBuffer> buffer;
  static std::string error;
  std::call_once(once, [] {
    const char* env = std::getenv("CUFORGE_LIBDEVICE_PATH");
    std::string path = env != nullptr && *env != '\0' ? env : CUFORGE_LIBDEVICE_PATH;
    auto r = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!r)
      error = "codegen: cannot read libdevice at " + path + " (" + r.getError().message() +
              "); set CUFORGE_LIBDEVICE_PATH to the toolkit's nvvm/libdevice/libdevice.10.bc";
    else
      buffer = std::move(*r);
  });
  if (!buffer) throw logic_error(error);
  return *buffer;
}

}  // namespace

void link_libdevice(llvm::Module& m) {
  bool needed = false;
  for (const llvm::Function& f : m)
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) needed = true;
  if (!needed) return;
  auto lib = llvm::getLazyBitcodeModule(libdevice().getMemBufferRef(), m.getContext());
  if (!lib) throw logic_error("codegen: cannot parse libdevice: " + message_of(lib.takeError()));
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  bool failed = llvm::Linker::linkModules(
      m, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded, [](llvm::Module& dst, const llvm::StringSet<>& linked) {
        llvm::internalizeModule(dst, [&](const llvm::GlobalValue& gv) {
          return !gv.hasName() || linked.count(gv.getName()) == 0;
        });
      });
  if (failed) throw logic_error("codegen: linking libdevice failed");
}

std::string emit_ptx(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw logic_error("codegen: the NVPTX target cannot emit PTX");
  pm.run(m);
  return std::string(text.str());
}

std::string print(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  os.flush();
  return text;
}

jit_result jit_compile(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                       const std::string& symbol, const std::vector<host_symbol>& symbols, bool opt) {
  initialize_llvm();
  const host_description& h = host();
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
  if (!jit) throw logic_error("codegen: cannot create the host JIT: " + message_of(jit.takeError()));
  auto errors = std::make_shared<std::string>();
  (*jit)->getExecutionSession().setErrorReporter([errors](llvm::Error e) {
    *errors += (errors->empty() ? "" : "; ") + message_of(std::move(e));
  });
  llvm::orc::SymbolMap map;
  for (const auto& s : symbols)
    map[(*jit)->mangleAndIntern(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                                            llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto e = (*jit)->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(map))))
    throw logic_error("codegen: host JIT: " + message_of(std::move(e)));
  if (auto e = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    throw logic_error("codegen: host JIT: " + message_of(std::move(e)));
  auto address = (*jit)->lookup(symbol);
  if (!address) {
    std::string why = message_of(address.takeError());
    throw logic_error("codegen: host JIT cannot compile " + symbol + ": " + why +
                      (errors->empty() ? "" : " (" + *errors + ")"));
  }
  jit_result r;
  r.address = address->toPtr<void*>();
  auto* owner = jit->release();
  r.session = std::shared_ptr<void>(owner, [](void* p) { delete static_cast<llvm::orc::LLJIT*>(p); });
  return r;
}

}  // namespace cuforge::frontend::detail

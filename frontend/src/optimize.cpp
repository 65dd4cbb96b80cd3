// Stage 3 of the pipeline (codegen_lower.hpp): the optimisation pipeline
// a target's optimize hook runs.
#include "llvm_support.hpp"

#include <cuforge/frontend/diagnostics.hpp>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>

namespace cuforge::frontend::detail {

void optimize(llvm::Module& m, llvm::TargetMachine& tm, bool opt, const std::string& prelude,
              void (*libraries)(llvm::TargetLibraryInfoImpl&)) {
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
  if (libraries != nullptr) {
    // Registered before the defaults, so it is the one the passes get.
    llvm::TargetLibraryInfoImpl tlii(llvm::Triple(m.getTargetTriple()));
    libraries(tlii);
    fam.registerPass([tlii] { return llvm::TargetLibraryAnalysis(tlii); });
  }
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (opt && !prelude.empty()) {
    if (auto e = pb.parsePassPipeline(mpm, prelude))
      throw internal_compiler_error("codegen: the pass pipeline '" + prelude + "': " + llvm::toString(std::move(e)));
  }
  mpm.addPass(opt ? pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
                  : pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0));
  mpm.run(m, mam);
}

}  // namespace cuforge::frontend::detail

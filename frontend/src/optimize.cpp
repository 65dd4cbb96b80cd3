// Stage 3 of the pipeline (codegen_lower.hpp): the optimisation pipeline
// a target's optimize hook runs.
#include "llvm_support.hpp"

#include <llvm/Passes/PassBuilder.h>

namespace cuforge::frontend::detail {

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

}  // namespace cuforge::frontend::detail

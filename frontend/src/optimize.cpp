// Stage 3 of the pipeline (codegen_lower.hpp): the optimisation pipeline
// a target's optimize hook runs.
#include "llvm_support.hpp"

#include <cuforge/frontend/diagnostics.hpp>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/Error.h>

#include <cstdlib>
#include <optional>

namespace cuforge::frontend::detail {

namespace {

// IRCE splits a loop at range checks of the form 0 <= i < n, and leaves lower bounds other than
// zero: a stencil's `0 < j < m - 1` kept its `0 < j` in the vectorised thread loop, so its loads
// stayed masked. This pass (the cpu backend's block-entry prelude runs it just before IRCE)
// writes `c < i` and `c <= i`, for a constant c >= 0 and i an induction of the loop, as
// `i - (c + 1) >= 0` and `i - c >= 0`, where the values i can take (scalar evolution's signed
// range) make the subtraction exact; nothing else changes.
struct lower_bound_checks : llvm::PassInfoMixin<lower_bound_checks> {
  llvm::PreservedAnalyses run(llvm::Function& fn, llvm::FunctionAnalysisManager& am) {
    using namespace llvm::PatternMatch;
    auto& loops = am.getResult<llvm::LoopAnalysis>(fn);
    auto& se = am.getResult<llvm::ScalarEvolutionAnalysis>(fn);
    bool changed = false;
    for (llvm::BasicBlock& bb : fn) {
      llvm::Loop* loop = loops.getLoopFor(&bb);
      auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
      if (loop == nullptr || br == nullptr || !br->isConditional()) continue;
      auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(br->getCondition());
      if (cmp == nullptr || !cmp->hasOneUse() || !cmp->getType()->isIntegerTy(1)) continue;
      // As `index > bound` (sgt) or `index >= bound` (sge).
      llvm::Value* index = cmp->getOperand(0);
      const llvm::APInt* bound = nullptr;
      llvm::ICmpInst::Predicate pred = cmp->getPredicate();
      if (!match(cmp->getOperand(1), m_APInt(bound))) {
        if (!match(cmp->getOperand(0), m_APInt(bound))) continue;
        index = cmp->getOperand(1);
        pred = llvm::ICmpInst::getSwappedPredicate(pred);
      }
      if (pred != llvm::ICmpInst::ICMP_SGT && pred != llvm::ICmpInst::ICMP_SGE) continue;
      if (bound->isNegative()) continue;  // x > -1 is IRCE's own form already
      const unsigned bits = bound->getBitWidth();
      llvm::APInt offset = pred == llvm::ICmpInst::ICMP_SGT ? *bound + 1 : *bound;
      if (offset.isZero() || offset.isNegative()) continue;  // sge 0: IRCE's form; sgt INT_MAX: never
      auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(se.getSCEV(index));
      if (rec == nullptr || rec->getLoop() != loop || !rec->isAffine()) continue;
      bool overflow = false;
      (void)se.getSignedRangeMin(rec).ssub_ov(offset, overflow);
      if (overflow) continue;
      llvm::IRBuilder<> b(cmp);
      llvm::Value* shifted = b.CreateNSWSub(index, llvm::ConstantInt::get(index->getType(), offset), "lb.shift");
      llvm::Value* check = b.CreateICmpSGT(shifted, llvm::ConstantInt::get(index->getType(), llvm::APInt::getAllOnes(bits)), "lb.check");
      cmp->replaceAllUsesWith(check);
      cmp->eraseFromParent();
      changed = true;
    }
    return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
  }
};

}  // namespace

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
  // With CUFORGE_LLVM_OPTIONS set (a developer's experiment), LLVM's standard instrumentation
  // is on, so that -print-after=loop-vectorize, -print-changed and friends see the pipeline.
  static const bool instrument = [] {
    const char* env = std::getenv("CUFORGE_LLVM_OPTIONS");
    return env != nullptr && *env != '\0';
  }();
  llvm::PassInstrumentationCallbacks pic;
  std::optional<llvm::StandardInstrumentations> si;
  if (instrument) {
    si.emplace(m.getContext(), /*DebugLogging=*/false);
    si->registerCallbacks(pic, &mam);
  }
  llvm::PassBuilder pb(&tm, pto, std::nullopt, instrument ? &pic : nullptr);
  pb.registerPipelineParsingCallback(
      [](llvm::StringRef name, llvm::FunctionPassManager& fpm, llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (name != "cuforge-lower-bound-checks") return false;
        fpm.addPass(lower_bound_checks());
        return true;
      });
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

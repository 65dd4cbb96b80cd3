// LLVM set-up shared by the pipeline's stages: target initialisation and
// the target machines, the verifier, printing.
#include "llvm_support.hpp"

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace cuforge::frontend::detail {

namespace {

// LLVM's fatal errors would exit the process: raise them as ours instead.
// (Our LLVM is linked statically with hidden symbols, so this handler is
// ours alone, whatever else in the process uses LLVM.)
void on_fatal_error(void*, const char* reason, bool) {
  throw internal_compiler_error(std::string("codegen: LLVM error: ") + reason);
}

}  // namespace

// The hardware's float -> bfloat16 conversions (AVX512-BF16's vcvtneps2bf16, AVX-NE-CONVERT's) treat
// subnormals as zero, where CUDA's __float2bfloat16_rn rounds them like any other value. LLVM uses them
// for every bfloat16 result it computes in float, even a sign flip it has turned into an fneg, so on a
// CPU that has them (AMD Zen 4, Intel Sapphire Rapids) -x of a subnormal bfloat16 was -0: host code goes
// without them (LLVM then rounds with integer operations).
namespace {

const char* const kept_off[] = {"avx512bf16", "avxneconvert"};

bool without_feature(llvm::StringRef name) {
  for (const char* f : kept_off)
    if (name == f) return true;
  return false;
}

}  // namespace

const std::string& host_features_kept_off() {
  static const std::string s = [] {
    llvm::SubtargetFeatures features;
    for (const char* f : kept_off) features.AddFeature(f, false);
    return features.getString();
  }();
  return s;
}

const host_description& host_cpu() {
  static const host_description h = [] {
    host_description d;
    d.triple = llvm::sys::getProcessTriple();
    d.cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures features;
    for (const auto& f : llvm::sys::getHostCPUFeatures())
      if (!without_feature(f.getKey())) features.AddFeature(f.getKey(), f.getValue());
    for (const char* f : kept_off) features.AddFeature(f, false);
    d.features = features.getString();
    return d;
  }();
  return h;
}

namespace {

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
    // The host target's prelude runs IRCE on kernels' block entries (target_host.cpp), whose
    // range checks (`if i < n`) LLVM cannot know to be likely: skip its profile-based test.
    // Set once, before any pipeline runs; no other pipeline runs IRCE.
    auto& options = llvm::cl::getRegisteredOptions();
    if (auto it = options.find("irce-skip-profitability-checks"); it != options.end())
      static_cast<llvm::cl::opt<bool>*>(it->second)->setValue(true);
    // A developer's hook for experiments with LLVM's own options (docs/compiler.md):
    // CUFORGE_LLVM_OPTIONS="-disable-lsr -unroll-max-count=4". Global to the process,
    // every target alike, and outside the compile cache's key: not for users.
    if (const char* env = std::getenv("CUFORGE_LLVM_OPTIONS"); env != nullptr && *env != '\0') {
      std::istringstream words(env);
      std::vector<std::string> args{"cuforge"};
      for (std::string w; words >> w;) args.push_back(w);
      std::vector<const char*> argv;
      for (const auto& a : args) argv.push_back(a.c_str());
      std::string error;
      llvm::raw_string_ostream es(error);
      if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "", &es))
        throw logic_error("CUFORGE_LLVM_OPTIONS: " + es.str());
    }
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
  // Contraction of a multiply and an add into fma.rn, fastmath or not: NVVM's default (-fma=1),
  // so numba-cuda computes a * b + c as one fma (its PTX for that kernel is fma.rn.f32).
  o.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  // The code generator at its default level, not Aggressive: NVPTX's own IR passes then clean
  // up with EarlyCSE where Aggressive runs GVN twice: 2-9% of a later compile. Over the PTX
  // of the 5,899 kernels the compiler tests make, 167 changed, and ptxas made machine code of
  // the same size for 142 of them, smaller for 24, larger (by 0.7%) for one (docs/compiler.md).
  // The IR optimiser's level (O3, optimize.cpp) is unchanged.
  std::unique_ptr<llvm::TargetMachine> tm(t.createTargetMachine(
      triple, cpu, "+" + ptx, o, std::nullopt, std::nullopt,
      opt ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None));
  if (!tm) throw logic_error("codegen: cannot create the NVPTX target machine for " + cpu);
  return tm;
}

namespace {

template <class Make>
llvm::TargetMachine& per_thread(const std::string& key, Make&& make) {
  thread_local std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
  auto& slot = machines[key];
  if (!slot) slot = make();
  return *slot;
}

}  // namespace

llvm::TargetMachine& nvptx_machine(compute_capability cc, bool fastmath, bool opt) {
  const std::string key = std::to_string(cc.major) + "." + std::to_string(cc.minor) + (fastmath ? " fast" : "") +
                          (opt ? " opt" : "");
  return per_thread("nvptx " + key, [&] { return make_nvptx_machine(cc, fastmath, opt); });
}

llvm::TargetMachine& host_machine(bool opt) {
  return per_thread(opt ? "host opt" : "host", [&] { return make_host_machine(opt); });
}

std::unique_ptr<llvm::TargetMachine> make_host_machine(bool opt) {
  const host_description& h = host_cpu();
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
    throw internal_compiler_error(std::string("codegen: invalid LLVM IR ") + stage + ":\n" + report);
  }
}

std::string print(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  os.flush();
  return text;
}

}  // namespace cuforge::frontend::detail

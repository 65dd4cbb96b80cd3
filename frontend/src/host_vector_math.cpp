// The vector math library of the host target (glibc's libmvec): when a
// kernel's thread loop vectorises (target_host.cpp's block entry), a call to
// tanhf, expf, sin, ... becomes one call per 4 or 8 lanes, instead of one per
// thread. LLVM's own preset for libmvec names only sin, cos, tan, exp and log,
// so the table is ours: every function of libmvec that the math module's ops
// call by their libm names, in the SSE ('b') and, on a CPU with AVX2, the
// AVX2 ('d') variants, each only if this process's libmvec has it.
// Accuracy: libmvec's functions are within glibc's documented bounds for
// them (4 ulp at most), where the scalar libm is within 1 to 2.
#include "codegen_target.hpp"
#include "llvm_support.hpp"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/TargetParser/Host.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cuforge::frontend::detail {

namespace {

struct vector_function {
  std::string scalar;  ///< the libm name (or LLVM intrinsic) it replaces
  std::string vector;  ///< libmvec's name
  std::string abi;     ///< LLVM's vector-ABI prefix: _ZGV_LLVM_N<lanes><v per argument>
  unsigned lanes = 0;
  void* address = nullptr;
};

// libm's functions the math module calls by name (target_host.cpp math_symbol), with their
// arities, and the LLVM intrinsics that may stand for some of them after optimisation.
struct math_name {
  const char* libm;
  const char* intrinsic;  // nullptr: none
  int arity;
};
constexpr math_name math_names[] = {
    {"acos", nullptr, 1}, {"acosh", nullptr, 1}, {"asin", nullptr, 1}, {"asinh", nullptr, 1},
    {"atan", nullptr, 1}, {"atanh", nullptr, 1}, {"cbrt", nullptr, 1}, {"cos", "llvm.cos", 1},
    {"cosh", nullptr, 1}, {"erf", nullptr, 1},   {"erfc", nullptr, 1}, {"exp", "llvm.exp", 1},
    {"exp2", "llvm.exp2", 1}, {"expm1", nullptr, 1}, {"log", "llvm.log", 1}, {"log10", "llvm.log10", 1},
    {"log1p", nullptr, 1}, {"log2", "llvm.log2", 1}, {"sin", "llvm.sin", 1}, {"sinh", nullptr, 1},
    {"tan", nullptr, 1},   {"tanh", nullptr, 1},  {"atan2", nullptr, 2}, {"hypot", nullptr, 2},
    {"pow", "llvm.pow", 2},
};

std::vector<vector_function> find_vector_functions() {
  std::vector<vector_function> out;
#if defined(__x86_64__) && defined(__linux__)
  if (const char* env = std::getenv("CUFORGE_CPU_VECTOR_MATH"); env != nullptr && std::strcmp(env, "0") == 0) return out;
  // Loaded once for the process, never closed: kernels keep its addresses.
  void* lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return out;
  const bool avx2 = llvm::sys::getHostCPUFeatures().lookup("avx2");
  struct isa {
    char letter;
    unsigned bytes;  // of a vector register
  };
  std::vector<isa> isas{{'b', 16}};
  if (avx2) isas.push_back({'d', 32});
  for (const math_name& m : math_names) {
    for (const isa& i : isas) {
      for (int bits : {32, 64}) {
        const unsigned lanes = i.bytes * 8 / static_cast<unsigned>(bits);
        const std::string params(static_cast<std::size_t>(m.arity), 'v');
        const std::string libm = std::string(m.libm) + (bits == 32 ? "f" : "");
        std::string name = "_ZGV" + std::string(1, i.letter) + "N" + std::to_string(lanes) + params + "_" + libm;
        void* address = dlsym(lib, name.c_str());
        if (address == nullptr) continue;
        const std::string abi = "_ZGV_LLVM_N" + std::to_string(lanes) + params;
        out.push_back({libm, name, abi, lanes, address});
        if (m.intrinsic != nullptr)
          out.push_back({std::string(m.intrinsic) + (bits == 32 ? ".f32" : ".f64"), name, abi, lanes, address});
      }
    }
  }
#endif
  return out;
}

const std::vector<vector_function>& vector_functions() {
  static const std::vector<vector_function> table = find_vector_functions();
  return table;
}

}  // namespace

void add_host_vector_math(llvm::TargetLibraryInfoImpl& tlii) {
  std::vector<llvm::VecDesc> descs;
  for (const vector_function& f : vector_functions())
    descs.emplace_back(f.scalar, f.vector, llvm::ElementCount::getFixed(f.lanes), false, f.abi);
  if (!descs.empty()) tlii.addVectorizableFunctions(descs);
}

std::vector<host_symbol> host_vector_math_symbols() {
  std::vector<host_symbol> out;
  for (const vector_function& f : vector_functions())
    if (f.scalar.compare(0, 5, "llvm.") != 0) out.push_back({f.vector.c_str(), f.address});  // the table lives as long as the process
  return out;
}

}  // namespace cuforge::frontend::detail

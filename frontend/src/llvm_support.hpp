#pragma once

// The LLVM machinery codegen drives: target initialisation (once per
// process), target machines (llvm_support.cpp), the O3 pipeline
// (optimize.cpp), libdevice (libdevice.cpp), and emission: PTX, object
// files, the ORC JIT (emit.cpp). Nothing here knows the typed IR.

#include <cuforge/runtime/device.hpp>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace llvm {
class MemoryBuffer;
class TargetLibraryInfoImpl;
}

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cuforge::frontend::detail {

/// Registers the NVPTX and native targets, once per process.
void initialize_llvm();

/// This process's triple, CPU name and CPU features, as LLVM reads them (once).
struct host_description {
  std::string triple, cpu, features;
};
const host_description& host_cpu();
/// The CPU features host code goes without whether or not the CPU has them, as "-a,-b"
/// (llvm_support.cpp says why): the host object cache's key names them.
const std::string& host_features_kept_off();

/// The sm_XY LLVM 19 compiles for when asked for `cc` (the newest it knows that
/// the device runs: PTX for sm_90 is JIT-compiled by the driver on newer GPUs),
/// and the PTX ISA version used with it ("ptx78").
std::pair<std::string, std::string> nvptx_processor(compute_capability cc);

std::unique_ptr<llvm::TargetMachine> make_nvptx_machine(compute_capability cc, bool fastmath, bool opt);
/// The machine the JIT compiles for: this process's triple, CPU and features.
std::unique_ptr<llvm::TargetMachine> make_host_machine(bool opt);

/// The same machines, made once per OS thread and configuration and reused
/// by every compile on that thread (a target machine is not shared between
/// threads: codegen may run on several at once). Making one costs about as
/// much as compiling a small kernel.
llvm::TargetMachine& nvptx_machine(compute_capability cc, bool fastmath, bool opt);
llvm::TargetMachine& host_machine(bool opt);

/// @throws logic_error with the verifier's report when `m` is not valid IR.
void verify(const llvm::Module& m, const char* stage);

/// O3 through the new pass manager with the target's cost model (opt=false: O0).
/// `prelude`: passes in LLVM's textual pipeline syntax run first, when `opt`
/// (a target's own preparation; empty for none).
/// `libraries`: adds to the target's library info (the host's vector math).
void optimize(llvm::Module& m, llvm::TargetMachine& tm, bool opt, const std::string& prelude = {},
              void (*libraries)(llvm::TargetLibraryInfoImpl&) = nullptr);

/// Links the libdevice functions `m` calls (__nv_*), internalised so that the
/// unused ones disappear. libdevice is read once per process
/// (CUFORGE_LIBDEVICE_PATH, else the toolkit's); the functions a set of
/// names needs are cut out of it once per process and set, as bitcode, so
/// a later compile calling the same math parses only those.
void link_libdevice(llvm::Module& m);
/// libdevice's bitcode, read once per process (link_libdevice's, libNVVM's).
/// @throws logic_error naming the places searched when it is not found.
const llvm::MemoryBuffer& libdevice();

/// PTX for `m` (emit.cpp): NVPTX's code generator is kept per thread and machine, and
/// it may take `m` and `ctx` to keep them alive while it could confuse a later module's
/// functions with theirs (they are null after that).
std::string emit_ptx(std::unique_ptr<llvm::Module>& m, std::unique_ptr<llvm::LLVMContext>& ctx,
                     llvm::TargetMachine& tm);
/// A relocatable object file for `tm` (the host target), as bytes.
std::string emit_object(llvm::Module& m, llvm::TargetMachine& tm);
std::string print(const llvm::Module& m);

/// A symbol the JIT must resolve to an address of this process.
struct host_symbol {
  const char* name;
  void* address;
};

struct jit_result {
  void* address = nullptr;
  void* second = nullptr;  ///< `also`'s address, when asked for and defined
  std::shared_ptr<void> session;  ///< keeps the code alive
};

/// Compiles `m` to machine code for this process and returns the address of
/// `symbol` (and of `also`, when not empty). Unresolved names come from
/// `symbols`, then from the process.
jit_result jit_compile(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                       const std::string& symbol, const std::vector<host_symbol>& symbols, bool opt,
                       const std::string& also = {});

}  // namespace cuforge::frontend::detail

// Host code as bytes (codegen.hpp host_object): such a file (compile_host_object,
// codegen.cpp) linked into this process, and the identity of the CPU it is for.
// The disk cache (cache=True) stores the first and loads it with the second,
// so a cache hit links machine code instead of lowering and optimising.
#include "codegen_lower.hpp"
#include "codegen_target.hpp"
#include "llvm_support.hpp"

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/JITLink/EHFrameSupport.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/EPCEHFrameRegistrar.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/DebugObjectManagerPlugin.h>
#include <llvm/ExecutionEngine/Orc/EPCDebugObjectRegistrar.h>
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/Orc/TargetProcess/JITLoaderGDB.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace cuforge::frontend {

namespace {

// The process's linker for cached kernels, made on first use and never
// destroyed (kernels may be released during interpreter shutdown): LLJIT's
// JITLink set-up without its IR layers (no target machine to build), tasks
// run in place (no thread hand-off on a lookup), and one JITDylib holding
// the host symbols that every kernel's JITDylib links against. A cache hit
// pays for a JITDylib, the link, and nothing else.
struct object_linker {
  std::unique_ptr<llvm::orc::ExecutionSession> es;
  std::unique_ptr<llvm::orc::ObjectLinkingLayer> layer;
  llvm::orc::JITDylib* host = nullptr;
  std::atomic<std::uint64_t> next{0};

  object_linker() = default;
  object_linker(const object_linker&) = delete;
  object_linker& operator=(const object_linker&) = delete;
  ~object_linker() {  // only when making it failed
    if (es) llvm::consumeError(es->endSession());
  }
};

// The names compile_host binds (detail::host_symbols()), then the
// process's, defined as the link asks for them: a kernel needs a handful.
class host_symbol_generator final : public llvm::orc::DefinitionGenerator {
 public:
  host_symbol_generator()
      : table_(detail::host_symbols()), process_(llvm::sys::DynamicLibrary::getPermanentLibrary(nullptr)) {}

  llvm::Error tryToGenerate(llvm::orc::LookupState&, llvm::orc::LookupKind, llvm::orc::JITDylib& jd,
                            llvm::orc::JITDylibLookupFlags, const llvm::orc::SymbolLookupSet& names) override {
    llvm::orc::SymbolMap found;
    for (const auto& [name, flags] : names) {
      std::string n = (*name).str();
      void* address = nullptr;
      for (const auto& s : table_)
        if (n == s.name) address = s.address;
      if (address == nullptr) address = process_.getAddressOfSymbol(n.c_str());
      if (address != nullptr)
        found[name] = {llvm::orc::ExecutorAddr::fromPtr(address),
                       llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    }
    if (found.empty()) return llvm::Error::success();
    return jd.define(llvm::orc::absoluteSymbols(std::move(found)));
  }

 private:
  std::vector<detail::host_symbol> table_;
  llvm::sys::DynamicLibrary process_;
};

// What the session last reported on this thread (the symbols a link could not find, say): the
// lookup that failed only says that its symbols could not be made.
std::string& reported_error() {
  thread_local std::string e;
  return e;
}

object_linker* make_linker(bool debuggable) {
  auto l = std::make_unique<object_linker>();
  auto epc = llvm::orc::SelfExecutorProcessControl::Create(nullptr, std::make_unique<llvm::orc::InPlaceTaskDispatcher>());
  if (!epc) throw logic_error("codegen: host JIT: " + llvm::toString(epc.takeError()));
  l->es = std::make_unique<llvm::orc::ExecutionSession>(std::move(*epc));
  llvm::orc::ExecutionSession& es = *l->es;
  // Failures of a load reach its caller through the lookup; what else is
  // reported (a failed removal) has no caller to tell.
  es.setErrorReporter([](llvm::Error e) { reported_error() = llvm::toString(std::move(e)); });
  // As LLJIT sets up JITLink on x86-64 ELF: the unwind tables registered, so
  // that raise and barrier errors unwind through the kernel's frames.
  l->layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(es);
  auto registrar = llvm::orc::EPCEHFrameRegistrar::Create(es);
  if (!registrar) throw logic_error("codegen: host JIT: " + llvm::toString(registrar.takeError()));
  l->layer->addPlugin(std::make_unique<llvm::orc::EHFrameRegistrationPlugin>(es, std::move(*registrar)));
  // The linker of objects with debug information (debug=True, lineinfo=True) announces them to
  // debuggers through GDB's JIT interface (__jit_debug_register_code), so gdb and lldb see the
  // kernel's Python file, lines and variables. The other linker spares cache hits that work.
  if (debuggable)
    l->layer->addPlugin(std::make_unique<llvm::orc::DebugObjectManagerPlugin>(
      es,
      std::make_unique<llvm::orc::EPCDebugObjectRegistrar>(
          es, llvm::orc::ExecutorAddr::fromPtr(&llvm_orc_registerJITLoaderGDBWrapper)),
      /*RequireDebugSections=*/true, /*AutoRegisterCode=*/true));
  l->host = &es.createBareJITDylib("cuforge_host_symbols");
  l->host->addGenerator(std::make_unique<host_symbol_generator>());
  return l.release();
}

object_linker& linker(bool debuggable) {
  if (debuggable) {
    static object_linker* d = make_linker(true);  // a failure throws here and is retried next time
    return *d;
  }
  static object_linker* l = make_linker(false);
  return *l;
}

// Whether an object file holds DWARF (a .debug_info section's name in its string table).
bool has_debug_info(const std::string& object) {
  static constexpr std::string_view name = ".debug_info";
  return std::search(object.begin(), object.end(), name.begin(), name.end()) != object.end();
}

void remove_dylib(object_linker& l, llvm::orc::JITDylib& jd) noexcept {
  // Frees the code and deregisters its unwind tables; an error has nowhere
  // to go (this runs in destructors).
  if (auto e = l.es->removeJITDylib(jd)) llvm::consumeError(std::move(e));
}

}  // namespace

namespace {

// Objects made with CUFORGE_CPU_VECTOR_MATH=0 call no vector math library (host_vector_math.cpp):
// a variant of their own, so that turning it off or on never loads the other's objects. (Read from
// the environment, as the library's table is: cheaper than loading libmvec on a cache hit.)
std::string math_variant() {
  const char* env = std::getenv("CUFORGE_CPU_VECTOR_MATH");
  return env != nullptr && std::strcmp(env, "0") == 0 ? " scalar-math" : "";
}

}  // namespace

const std::string& host_target_id() {
  static const std::string id = [] {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // (LLVM's host triple as configured: on x86-64 the process's, without
    // the cost of parsing it.)
    const std::string triple = LLVM_HOST_TRIPLE;
    // The CPUID leaves (and XCR0) from which LLVM names the host CPU and
    // the features that change generated code, hashed: the same inputs give
    // the same code, and this costs a few instructions where LLVM's feature
    // map costs a hundred microseconds on the disk cache's hit path. (Left
    // out: leaves whose features only enable intrinsics kernels never use:
    // XSAVE variants 0xd, PTWRITE 0x14, Key Locker 0x19, CLZERO 0x80000008.)
    struct leaf {
      unsigned leaf, sub;
    };
    static constexpr leaf leaves[] = {{7, 0}, {7, 1}, {0x24, 0}, {0x80000001, 0}};
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    auto mix = [&](std::uint32_t v) {
      for (int i = 0; i < 4; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
    };
    unsigned max_basic = 0, max_extended = 0, a = 0, b = 0, c = 0, d = 0;
    __cpuid(0, max_basic, b, c, d);  // the vendor
    mix(max_basic), mix(b), mix(c), mix(d);
    __cpuid(0x80000000, max_extended, b, c, d);
    mix(max_extended);
    __cpuid(1, a, b, c, d);  // family, model, stepping; features
    // (not EBX: the brand index, CLFLUSH size, and the APIC id of whichever core runs this)
    mix(a), mix(c), mix(d);
    std::uint32_t xcr0_lo = 0, xcr0_hi = 0;
    if (c & (1u << 27)) __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));  // OSXSAVE: the enabled register state
    mix(xcr0_lo), mix(xcr0_hi);
    for (const auto& l : leaves) {
      if ((l.leaf >= 0x80000000u ? max_extended : max_basic) < l.leaf) {
        mix(0xffffffffu);
        continue;
      }
      __cpuid_count(l.leaf, l.sub, a, b, c, d);
      mix(a), mix(b), mix(c), mix(d);
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return triple + " cpuid:" + hex + " " + detail::host_features_kept_off() + math_variant();
#else
    const std::string triple = llvm::sys::getProcessTriple();
    llvm::SubtargetFeatures features;
    for (const auto& f : llvm::sys::getHostCPUFeatures()) features.AddFeature(f.getKey(), f.getValue());
    return triple + " " + llvm::sys::getHostCPUName().str() + " " + features.getString() + " " +
           detail::host_features_kept_off() + math_variant();
#endif
  }();
  return id;
}

host_kernel load_host_object(const host_object& obj) {
  if (obj.object.empty()) throw logic_error("codegen: an empty host object");
  // No initialize_llvm(): linking needs no target registry, and registering
  // the targets would double what a cache hit costs.
  object_linker& l = linker(has_debug_info(obj.object));
  llvm::orc::ExecutionSession& es = *l.es;
  llvm::orc::JITDylib& jd = es.createBareJITDylib("cuforge_cached_" + std::to_string(l.next++));
  for (const auto& path : obj.libraries) {
    // The C/C++ the kernel links: loaded once per process (never unloaded), searched first.
    std::string error;
    auto lib = llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
    if (!lib.isValid()) throw logic_error("codegen: cannot load " + path + " for " + obj.name + ": " + error);
    jd.addGenerator(std::make_unique<llvm::orc::DynamicLibrarySearchGenerator>(lib, '\0'));
  }
  jd.addToLinkOrder(*l.host);
  std::shared_ptr<void> session(&jd, [&l](void* p) { remove_dylib(l, *static_cast<llvm::orc::JITDylib*>(p)); });
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(obj.object, obj.name);
  if (auto e = l.layer->add(jd, std::move(buffer)))
    throw logic_error("codegen: host JIT cannot load the object of " + obj.name + ": " + llvm::toString(std::move(e)));
  reported_error().clear();
  auto address = es.lookup({&jd}, es.intern(obj.name));
  if (!address) {
    std::string why = llvm::toString(address.takeError());
    if (!reported_error().empty()) why = reported_error() + " (" + why + ")";
    throw logic_error("codegen: host JIT cannot link " + obj.name + ": " + why);
  }

  host_kernel k;
  k.name = obj.name;
  k.fn = address->getAddress().toPtr<cpu::kernel_fn>();
  if (!obj.block_name.empty()) {
    auto block = es.lookup({&jd}, es.intern(obj.block_name));
    if (!block)
      throw logic_error("codegen: host JIT cannot link " + obj.block_name + ": " + llvm::toString(block.takeError()));
    k.block_fn = block->getAddress().toPtr<cpu::kernel_fn>();
  }
  k.static_shared_bytes = obj.static_shared_bytes;
  k.uses_barrier = obj.uses_barrier;
  k.param_sizes.assign(obj.slots, 8);
  k.arrays = obj.arrays;
  k.session = std::move(session);
  return k;
}

}  // namespace cuforge::frontend

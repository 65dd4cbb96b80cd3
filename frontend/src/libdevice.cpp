// libdevice, the CUDA math library as LLVM bitcode: read once per process
// and linked into NVPTX modules by the NVPTX target's finish stage.
#include "llvm_support.hpp"

#include <cuforge/frontend/toolkit.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <mutex>

namespace cuforge::frontend::detail {

const llvm::MemoryBuffer& libdevice() {
  static std::once_flag once;
  static std::unique_ptr<llvm::MemoryBuffer> buffer;
  static std::string error;
  std::call_once(once, [] {
    try {
      toolkit_candidate c = libdevice_location();
      auto r = llvm::MemoryBuffer::getFile(c.path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (!r)
        error = "codegen: cannot read libdevice at " + c.path + " (found by " + c.found_by + "): " +
                r.getError().message();
      else
        buffer = std::move(*r);
    } catch (const logic_error& e) {
      error = e.what();
    }
  });
  if (!buffer) throw logic_error(error);
  return *buffer;
}

void link_libdevice(llvm::Module& m) {
  bool needed = false;
  for (const llvm::Function& f : m)
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) needed = true;
  if (!needed) return;
  auto lib = llvm::getLazyBitcodeModule(libdevice().getMemBufferRef(), m.getContext());
  if (!lib) throw logic_error("codegen: cannot parse libdevice: " + llvm::toString(lib.takeError()));
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

}  // namespace cuforge::frontend::detail

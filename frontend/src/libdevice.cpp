// libdevice, the CUDA math library as LLVM bitcode: read once per process
// and linked into NVPTX modules by the NVPTX target's finish stage.
#include "llvm_support.hpp"

#include <cuforge/frontend/toolkit.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

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

namespace {

/// The libdevice functions a set of __nv_* names needs (their definitions and
/// everything they call), as bitcode, cut out of libdevice once per process
/// and set of names. Reading libdevice lazily costs about 2 ms a module (its
/// symbol table and function index); parsing the cut-out is a few
/// microseconds, so a later compile calling the same math pays nothing for
/// libdevice. Keyed by the names, the triple and the data layout.
const std::string& libdevice_subset(const std::vector<std::string>& names, const llvm::Module& like) {
  static std::mutex mutex;
  static std::map<std::string, std::string> made;
  std::string key = like.getTargetTriple() + '\n' + like.getDataLayoutStr();
  for (const std::string& n : names) key += '\n' + n;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = made.find(key);
  if (found != made.end()) return found->second;

  llvm::LLVMContext ctx;
  auto lib = llvm::getLazyBitcodeModule(libdevice().getMemBufferRef(), ctx);
  if (!lib) throw logic_error("codegen: cannot parse libdevice: " + llvm::toString(lib.takeError()));
  (*lib)->setTargetTriple(like.getTargetTriple());
  (*lib)->setDataLayout(like.getDataLayout());
  llvm::Module subset("libdevice", ctx);
  subset.setTargetTriple(like.getTargetTriple());
  subset.setDataLayout(like.getDataLayout());
  for (const std::string& n : names) {
    // A name libdevice lacks stays a declaration: the final link reports it.
    if (llvm::Function* f = (*lib)->getFunction(n)) subset.getOrInsertFunction(n, f->getFunctionType(), f->getAttributes());
  }
  if (llvm::Linker::linkModules(subset, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded))
    throw logic_error("codegen: cutting the needed functions out of libdevice failed");
  std::string bits;
  llvm::raw_string_ostream os(bits);
  llvm::WriteBitcodeToFile(subset, os);
  os.flush();
  return made.emplace(std::move(key), std::move(bits)).first->second;
}

}  // namespace

void link_libdevice(llvm::Module& m) {
  std::vector<std::string> needed;
  for (const llvm::Function& f : m)
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) needed.push_back(f.getName().str());
  if (needed.empty()) return;
  std::sort(needed.begin(), needed.end());
  const std::string& bits = libdevice_subset(needed, m);
  auto lib = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bits, "libdevice"), m.getContext());
  if (!lib) throw logic_error("codegen: cannot parse libdevice's functions: " + llvm::toString(lib.takeError()));
  bool failed = llvm::Linker::linkModules(
      m, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded, [](llvm::Module& dst, const llvm::StringSet<>& linked) {
        llvm::internalizeModule(dst, [&](const llvm::GlobalValue& gv) {
          return !gv.hasName() || linked.count(gv.getName()) == 0;
        });
      });
  if (failed) throw logic_error("codegen: linking libdevice failed");
}

}  // namespace cuforge::frontend::detail

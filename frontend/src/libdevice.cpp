// libdevice, the CUDA math library as LLVM bitcode: read once per process
// and linked into NVPTX modules by the NVPTX target's finish stage.
#include "llvm_support.hpp"

#include <cuforge/frontend/toolkit.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <sys/stat.h>

#include <cstdlib>
#include <mutex>
#include <sstream>

#ifndef CUFORGE_LIBDEVICE_PATH
#define CUFORGE_LIBDEVICE_PATH "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

namespace cuforge::frontend {

namespace {

constexpr const char* file_name = "libdevice.10.bc";
constexpr const char* in_toolkit = "/nvvm/libdevice/libdevice.10.bc";

std::mutex& added_lock() {
  static std::mutex m;
  return m;
}

std::vector<toolkit_candidate>& added() {
  static std::vector<toolkit_candidate> v;
  return v;
}

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// The toolkit of the nvcc on PATH: <toolkit>/bin/nvcc.
std::string nvcc_toolkit() {
  std::string path = env("PATH");
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (!dir.empty() && is_file(dir + "/nvcc")) {
      std::size_t slash = dir.find_last_of('/');
      return slash == std::string::npos || slash == 0 ? std::string() : dir.substr(0, slash);
    }
    start = end + 1;
  }
  return "";
}

}  // namespace

std::vector<toolkit_candidate> libdevice_candidates() {
  std::vector<toolkit_candidate> c;
  if (std::string p = env("CUFORGE_LIBDEVICE_PATH"); !p.empty()) {
    c.push_back({is_dir(p) ? p + "/" + file_name : p, "CUFORGE_LIBDEVICE_PATH"});
    return c;  // the user's choice: only it
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (std::string p = env(var); !p.empty()) c.push_back({p + in_toolkit, var});
  if (std::string p = env("CONDA_PREFIX"); !p.empty()) c.push_back({p + in_toolkit, "the conda environment"});
  {
    std::lock_guard lock(added_lock());
    c.insert(c.end(), added().begin(), added().end());
  }
  if (std::string t = nvcc_toolkit(); !t.empty()) c.push_back({t + in_toolkit, "the nvcc on PATH"});
  c.push_back({CUFORGE_LIBDEVICE_PATH, "the toolkit cuforge was built with"});
  c.push_back({std::string("/usr/local/cuda") + in_toolkit, "/usr/local/cuda"});
  c.push_back({std::string("/usr/lib/nvidia-cuda-toolkit/libdevice/") + file_name, "Debian's nvidia-cuda-toolkit"});
  return c;
}

void add_libdevice_candidate(toolkit_candidate c) {
  std::lock_guard lock(added_lock());
  added().push_back(std::move(c));
}

toolkit_candidate libdevice_location() {
  auto candidates = libdevice_candidates();
  for (const auto& c : candidates)
    if (is_file(c.path)) return c;
  std::ostringstream msg;
  msg << "codegen: libdevice (the CUDA math library, " << file_name << ") was not found; searched:";
  for (const auto& c : candidates) msg << "\n  " << c.path << " (" << c.found_by << ")";
  msg << "\nInstall the CUDA toolkit (or NVIDIA's pip wheel nvidia-nvvm / conda's cuda-nvvm), or set "
         "CUFORGE_LIBDEVICE_PATH to its nvvm/libdevice/"
      << file_name << " (or CUDA_HOME to the toolkit)";
  throw logic_error(msg.str());
}

}  // namespace cuforge::frontend

namespace cuforge::frontend::detail {

namespace {

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

}  // namespace

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

// Where the CUDA toolkit's run-time parts are (toolkit.hpp): one search for
// libdevice, NVRTC, nvJitLink, ptxas and libNVVM, over the same toolkit folders.
#include <cuforge/frontend/toolkit.hpp>
#include <cuforge/runtime/error.hpp>

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>

#ifndef CUFORGE_LIBDEVICE_PATH
#define CUFORGE_LIBDEVICE_PATH "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

namespace cuforge::frontend {

namespace {

constexpr std::string_view libdevice_in_toolkit = "/nvvm/libdevice/libdevice.10.bc";

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

// The toolkit cuforge was built with: the folder its libdevice is in.
std::string built_with() {
  std::string_view p = CUFORGE_LIBDEVICE_PATH;
  if (p.size() <= libdevice_in_toolkit.size() || !p.ends_with(libdevice_in_toolkit)) return "";
  return std::string(p.substr(0, p.size() - libdevice_in_toolkit.size()));
}

// What the search knows of each part: its name, its file, the variable that overrides the search,
// where it is inside a toolkit folder, and where Debian's nvidia-cuda-toolkit puts it.
struct part_facts {
  toolkit_part part;
  const char* name;
  const char* file;
  const char* variable;
  std::vector<std::string> inside;
  std::string debian;
};

std::vector<std::string> in_library_folders(const char* file, std::vector<std::string> first = {}) {
  for (const char* lib : {"/lib64/", "/lib/", "/targets/x86_64-linux/lib/"}) first.push_back(lib + std::string(file));
  return first;
}

const std::vector<part_facts>& parts() {
  static const std::vector<part_facts> table = {
      {toolkit_part::libdevice, "libdevice", "libdevice.10.bc", "CUFORGE_LIBDEVICE_PATH",
       {std::string(libdevice_in_toolkit)}, "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"},
      {toolkit_part::nvrtc, "nvrtc", "libnvrtc.so.13", "CUFORGE_NVRTC_PATH", in_library_folders("libnvrtc.so.13"),
       "/usr/lib/x86_64-linux-gnu/libnvrtc.so.13"},
      {toolkit_part::nvjitlink, "nvjitlink", "libnvJitLink.so.13", "CUFORGE_NVJITLINK_PATH",
       in_library_folders("libnvJitLink.so.13"), "/usr/lib/x86_64-linux-gnu/libnvJitLink.so.13"},
      {toolkit_part::ptxas, "ptxas", "ptxas", "CUFORGE_PTXAS_PATH", {"/bin/ptxas"}, "/usr/bin/ptxas"},
      // libNVVM: nvvm/lib64 in a toolkit, lib/ in NVIDIA's pip wheel.
      {toolkit_part::nvvm, "nvvm", "libnvvm.so.4", "CUFORGE_NVVM_PATH",
       in_library_folders("libnvvm.so.4", {"/nvvm/lib64/libnvvm.so.4"}), "/usr/lib/x86_64-linux-gnu/libnvvm.so.4"},
  };
  return table;
}

const part_facts& facts(toolkit_part part) {
  for (const auto& f : parts())
    if (f.part == part) return f;
  return parts().front();  // unreachable: every part has a row
}

}  // namespace

const char* to_string(toolkit_part part) noexcept { return facts(part).name; }
const char* file_name(toolkit_part part) noexcept { return facts(part).file; }
const char* override_variable(toolkit_part part) noexcept { return facts(part).variable; }

std::vector<toolkit_part> toolkit_parts() {
  std::vector<toolkit_part> v;
  for (const auto& f : parts()) v.push_back(f.part);
  return v;
}

std::vector<toolkit_candidate> toolkit_roots() {
  std::vector<toolkit_candidate> roots;
  auto add = [&](std::string path, std::string found_by) {
    if (path.empty()) return;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    for (const auto& r : roots)
      if (r.path == path) return;
    roots.push_back({std::move(path), std::move(found_by)});
  };
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) add(env(var), var);
  add(env("CONDA_PREFIX"), "the conda environment");
  {
    std::lock_guard lock(added_lock());
    for (const auto& r : added()) add(r.path, r.found_by);
  }
  add(nvcc_toolkit(), "the nvcc on PATH");
  add(built_with(), "the toolkit cuforge was built with");
  add("/usr/local/cuda", "/usr/local/cuda");
  return roots;
}

void add_toolkit_root(toolkit_candidate root) {
  std::lock_guard lock(added_lock());
  added().push_back(std::move(root));
}

std::vector<toolkit_candidate> toolkit_candidates(toolkit_part part) {
  std::vector<toolkit_candidate> c;
  const char* var = override_variable(part);
  if (std::string p = env(var); !p.empty()) {
    c.push_back({is_dir(p) ? p + "/" + file_name(part) : p, var});
    return c;  // the user's choice: only it
  }
  for (const auto& root : toolkit_roots())
    for (const auto& tail : facts(part).inside) c.push_back({root.path + tail, root.found_by});
  // Kept for the built-with toolkit when its libdevice was not in a toolkit folder's place.
  if (part == toolkit_part::libdevice && built_with().empty())
    c.push_back({CUFORGE_LIBDEVICE_PATH, "the toolkit cuforge was built with"});
  c.push_back({facts(part).debian, "Debian's nvidia-cuda-toolkit"});
  return c;
}

toolkit_candidate toolkit_location(toolkit_part part) {
  auto candidates = toolkit_candidates(part);
  for (const auto& c : candidates)
    if (is_file(c.path)) return c;
  std::ostringstream msg;
  if (part == toolkit_part::libdevice)
    msg << "codegen: libdevice (the CUDA math library, " << file_name(part) << ") was not found; searched:";
  else
    msg << file_name(part) << " (the CUDA toolkit's " << to_string(part) << ") was not found; searched:";
  for (const auto& c : candidates) msg << "\n  " << c.path << " (" << c.found_by << ")";
  if (part == toolkit_part::libdevice)
    msg << "\nInstall the CUDA toolkit (or NVIDIA's pip wheel nvidia-nvvm / conda's cuda-nvvm), or set "
           "CUFORGE_LIBDEVICE_PATH to its nvvm/libdevice/"
        << file_name(part) << " (or CUDA_HOME to the toolkit)";
  else
    msg << "\nInstall the CUDA toolkit (or NVIDIA's pip wheels), or set " << override_variable(part)
        << " to the file (or CUDA_HOME to the toolkit)";
  throw logic_error(msg.str());
}

const toolkit_library& open_toolkit_library(toolkit_part part) {
  static std::mutex lock;
  static std::map<toolkit_part, toolkit_library> opened;
  std::lock_guard guard(lock);
  auto it = opened.find(part);
  if (it != opened.end()) return it->second;
  const std::string soname = file_name(part);
  toolkit_library lib;
  std::string tried;
  // The toolkit search, then the loader's own path (the name alone), unless the override
  // variable names the one place.
  std::vector<toolkit_candidate> candidates = toolkit_candidates(part);
  if (candidates.size() != 1 || candidates[0].found_by != override_variable(part))
    candidates.push_back({soname, "the loader's search path"});
  for (const auto& c : candidates) {
    const std::string& path = c.path;
    struct stat st {};
    if (path.find('/') != std::string::npos && ::stat(path.c_str(), &st) != 0) {
      tried += "\n  " + path + " (" + c.found_by + "): absent";
      continue;
    }
    lib.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle != nullptr) {
      if (std::size_t slash = path.find_last_of('/'); slash != std::string::npos && slash > 0) {
        std::string dir = path.substr(0, slash);
        std::size_t up = dir.find_last_of('/');
        lib.root = up == std::string::npos ? "." : (up == 0 ? "/" : dir.substr(0, up));
      }
      break;
    }
    const char* why = ::dlerror();
    tried += "\n  " + path + " (" + c.found_by + "): " + (why ? why : "cannot be opened");
  }
  if (lib.handle == nullptr)
    lib.error = soname + " (the CUDA toolkit's " + to_string(part) + ") was not found; searched:" + tried +
                "\nInstall the CUDA toolkit (or NVIDIA's pip wheels), or set CUDA_HOME to it, or " +
                override_variable(part) + " to the file";
  return opened.emplace(part, std::move(lib)).first->second;
}

std::vector<toolkit_candidate> libdevice_candidates() { return toolkit_candidates(toolkit_part::libdevice); }
toolkit_candidate libdevice_location() { return toolkit_location(toolkit_part::libdevice); }

}  // namespace cuforge::frontend

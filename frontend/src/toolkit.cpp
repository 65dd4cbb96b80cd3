// Where the CUDA toolkit's run-time parts are (toolkit.hpp): one search for
// libdevice, NVRTC, nvJitLink and ptxas, over the same toolkit folders.
#include <cuforge/frontend/toolkit.hpp>
#include <cuforge/runtime/error.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
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

// Where `part` is inside a toolkit folder.
std::vector<std::string> inside(toolkit_part part) {
  switch (part) {
    case toolkit_part::libdevice: return {std::string(libdevice_in_toolkit)};
    case toolkit_part::ptxas: return {"/bin/ptxas"};
    case toolkit_part::nvrtc:
    case toolkit_part::nvjitlink: {
      std::vector<std::string> v;
      for (const char* lib : {"/lib64/", "/lib/", "/targets/x86_64-linux/lib/"}) v.push_back(lib + std::string(file_name(part)));
      return v;
    }
  }
  return {};
}

// Debian's nvidia-cuda-toolkit, which is not laid out as a toolkit folder.
std::string debian_place(toolkit_part part) {
  switch (part) {
    case toolkit_part::libdevice: return "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc";
    case toolkit_part::ptxas: return "/usr/bin/ptxas";
    case toolkit_part::nvrtc:
    case toolkit_part::nvjitlink: return std::string("/usr/lib/x86_64-linux-gnu/") + file_name(part);
  }
  return "";
}

}  // namespace

const char* to_string(toolkit_part part) noexcept {
  switch (part) {
    case toolkit_part::libdevice: return "libdevice";
    case toolkit_part::nvrtc: return "nvrtc";
    case toolkit_part::nvjitlink: return "nvjitlink";
    case toolkit_part::ptxas: return "ptxas";
  }
  return "?";
}

const char* file_name(toolkit_part part) noexcept {
  switch (part) {
    case toolkit_part::libdevice: return "libdevice.10.bc";
    case toolkit_part::nvrtc: return "libnvrtc.so.13";
    case toolkit_part::nvjitlink: return "libnvJitLink.so.13";
    case toolkit_part::ptxas: return "ptxas";
  }
  return "?";
}

const char* override_variable(toolkit_part part) noexcept {
  switch (part) {
    case toolkit_part::libdevice: return "CUFORGE_LIBDEVICE_PATH";
    case toolkit_part::nvrtc: return "CUFORGE_NVRTC_PATH";
    case toolkit_part::nvjitlink: return "CUFORGE_NVJITLINK_PATH";
    case toolkit_part::ptxas: return "CUFORGE_PTXAS_PATH";
  }
  return "?";
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
    for (const auto& tail : inside(part)) c.push_back({root.path + tail, root.found_by});
  // Kept for the built-with toolkit when its libdevice was not in a toolkit folder's place.
  if (part == toolkit_part::libdevice && built_with().empty())
    c.push_back({CUFORGE_LIBDEVICE_PATH, "the toolkit cuforge was built with"});
  c.push_back({debian_place(part), "Debian's nvidia-cuda-toolkit"});
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

std::vector<toolkit_candidate> libdevice_candidates() { return toolkit_candidates(toolkit_part::libdevice); }
toolkit_candidate libdevice_location() { return toolkit_location(toolkit_part::libdevice); }

}  // namespace cuforge::frontend

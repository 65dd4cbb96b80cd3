// The CUDA C/C++ frontend (cuda_c.hpp): NVRTC and nvJitLink loaded at run
// time for the GPU, the host's C++ compiler for the cpu backend.
#include <cuforge/frontend/cuda_c.hpp>
#include <cuforge/frontend/toolkit.hpp>
#include <cuforge/runtime/error.hpp>

#include <dlfcn.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

extern char** environ;

namespace cuforge::frontend {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

std::string extension(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot + 1);
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

std::string dirname(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw logic_error(what + ": cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Colon-separated folders from the environment: cuforge's name, and numba-cuda's.
std::vector<std::string> extra_include_dirs() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUFORGE_CUDA_INCLUDE_PATH", "NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS"}) {
    std::string v = env(var);
    std::size_t start = 0;
    while (start <= v.size() && !v.empty()) {
      std::size_t end = v.find(':', start);
      if (end == std::string::npos) end = v.size();
      if (end > start) dirs.push_back(v.substr(start, end - start));
      start = end + 1;
    }
  }
  return dirs;
}

template <class F>
F symbol(const toolkit_library& lib, const char* name, const std::string& soname) {
  void* p = ::dlsym(lib.handle, name);
  if (p == nullptr) throw logic_error(soname + " has no " + name + " (an older toolkit than CUDA 12?)");
  return reinterpret_cast<F>(p);
}

// --- NVRTC ------------------------------------------------------------------------------------

constexpr const char* nvrtc_soname = "libnvrtc.so.13";

struct nvrtc_api {
  using program = void*;
  int (*create)(program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*destroy)(program*) = nullptr;
  int (*compile)(program, int, const char* const*) = nullptr;
  int (*ptx_size)(program, std::size_t*) = nullptr;
  int (*ptx)(program, char*) = nullptr;
  int (*ltoir_size)(program, std::size_t*) = nullptr;
  int (*ltoir)(program, char*) = nullptr;
  int (*log_size)(program, std::size_t*) = nullptr;
  int (*log)(program, char*) = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*version)(int*, int*) = nullptr;
  std::string root;
};

const nvrtc_api& nvrtc() {
  static std::once_flag once;
  static nvrtc_api api;
  static std::string error;
  std::call_once(once, [] {
    const toolkit_library& lib = open_toolkit_library(toolkit_part::nvrtc);
    if (lib.handle == nullptr) {
      error = lib.error;
      return;
    }
    try {
      api.create = symbol<decltype(api.create)>(lib, "nvrtcCreateProgram", nvrtc_soname);
      api.destroy = symbol<decltype(api.destroy)>(lib, "nvrtcDestroyProgram", nvrtc_soname);
      api.compile = symbol<decltype(api.compile)>(lib, "nvrtcCompileProgram", nvrtc_soname);
      api.ptx_size = symbol<decltype(api.ptx_size)>(lib, "nvrtcGetPTXSize", nvrtc_soname);
      api.ptx = symbol<decltype(api.ptx)>(lib, "nvrtcGetPTX", nvrtc_soname);
      api.ltoir_size = symbol<decltype(api.ltoir_size)>(lib, "nvrtcGetLTOIRSize", nvrtc_soname);
      api.ltoir = symbol<decltype(api.ltoir)>(lib, "nvrtcGetLTOIR", nvrtc_soname);
      api.log_size = symbol<decltype(api.log_size)>(lib, "nvrtcGetProgramLogSize", nvrtc_soname);
      api.log = symbol<decltype(api.log)>(lib, "nvrtcGetProgramLog", nvrtc_soname);
      api.error_string = symbol<decltype(api.error_string)>(lib, "nvrtcGetErrorString", nvrtc_soname);
      api.version = symbol<decltype(api.version)>(lib, "nvrtcVersion", nvrtc_soname);
      api.root = lib.root;
    } catch (const std::exception& e) {
      error = e.what();
      api = nvrtc_api{};
    }
  });
  if (api.create == nullptr) throw logic_error("cannot compile CUDA C/C++: " + error);
  return api;
}

// The toolkit's header folders: beside the NVRTC found, else in the toolkits searched.
std::vector<std::string> toolkit_include_dirs(const std::string& nvrtc_root) {
  std::vector<std::string> roots;
  if (!nvrtc_root.empty()) roots.push_back(nvrtc_root);
  for (const auto& r : toolkit_roots())
    if (std::find(roots.begin(), roots.end(), r.path) == roots.end()) roots.push_back(r.path);
  for (const auto& r : roots)
    if (exists(r + "/include/cuda_runtime.h") || exists(r + "/include/curand_kernel.h")) {
      std::vector<std::string> dirs{r + "/include"};
      if (exists(r + "/include/cccl")) dirs.push_back(r + "/include/cccl");
      return dirs;
    }
  return {};
}

// --- nvJitLink --------------------------------------------------------------------------------

constexpr const char* nvjitlink_soname = "libnvJitLink.so.13";

struct nvjitlink_api {
  using handle = void*;
  int (*create)(handle*, std::uint32_t, const char**) = nullptr;
  int (*destroy)(handle*) = nullptr;
  int (*add_data)(handle, int, const void*, std::size_t, const char*) = nullptr;
  int (*add_file)(handle, int, const char*) = nullptr;
  int (*complete)(handle) = nullptr;
  int (*cubin_size)(handle, std::size_t*) = nullptr;
  int (*cubin)(handle, void*) = nullptr;
  int (*error_log_size)(handle, std::size_t*) = nullptr;
  int (*error_log)(handle, char*) = nullptr;
  int (*info_log_size)(handle, std::size_t*) = nullptr;
  int (*info_log)(handle, char*) = nullptr;
};

// nvJitLinkInputType
enum : int { input_cubin = 1, input_ptx = 2, input_ltoir = 3, input_fatbin = 4, input_object = 5, input_library = 6 };

const nvjitlink_api& nvjitlink() {
  static std::once_flag once;
  static nvjitlink_api api;
  static std::string error;
  std::call_once(once, [] {
    const toolkit_library& lib = open_toolkit_library(toolkit_part::nvjitlink);
    if (lib.handle == nullptr) {
      error = lib.error;
      return;
    }
    try {
      api.create = symbol<decltype(api.create)>(lib, "nvJitLinkCreate", nvjitlink_soname);
      api.destroy = symbol<decltype(api.destroy)>(lib, "nvJitLinkDestroy", nvjitlink_soname);
      api.add_data = symbol<decltype(api.add_data)>(lib, "nvJitLinkAddData", nvjitlink_soname);
      api.add_file = symbol<decltype(api.add_file)>(lib, "nvJitLinkAddFile", nvjitlink_soname);
      api.complete = symbol<decltype(api.complete)>(lib, "nvJitLinkComplete", nvjitlink_soname);
      api.cubin_size = symbol<decltype(api.cubin_size)>(lib, "nvJitLinkGetLinkedCubinSize", nvjitlink_soname);
      api.cubin = symbol<decltype(api.cubin)>(lib, "nvJitLinkGetLinkedCubin", nvjitlink_soname);
      api.error_log_size = symbol<decltype(api.error_log_size)>(lib, "nvJitLinkGetErrorLogSize", nvjitlink_soname);
      api.error_log = symbol<decltype(api.error_log)>(lib, "nvJitLinkGetErrorLog", nvjitlink_soname);
      api.info_log_size = symbol<decltype(api.info_log_size)>(lib, "nvJitLinkGetInfoLogSize", nvjitlink_soname);
      api.info_log = symbol<decltype(api.info_log)>(lib, "nvJitLinkGetInfoLog", nvjitlink_soname);
    } catch (const std::exception& e) {
      error = e.what();
      api = nvjitlink_api{};
    }
  });
  if (api.create == nullptr) throw logic_error("cannot link for the GPU: " + error);
  return api;
}

std::string arch(compute_capability cc, const char* prefix) {
  return std::string(prefix) + std::to_string(cc.major) + std::to_string(cc.minor);
}

// --- the host compiler ------------------------------------------------------------------------

// What the cpu backend's sources see first: CUDA's qualifiers defined away, so portable device
// functions compile as host functions (C and C++).
constexpr const char* host_header = R"(/* cuforge: CUDA C/C++ device functions compiled for the cpu backend */
#ifndef CUFORGE_CPU_BACKEND
#define CUFORGE_CPU_BACKEND 1
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __global__ __cuforge_kernels_cannot_be_linked_on_the_cpu_backend
#define __shared__ __cuforge_shared_memory_is_cuda_only
#define __constant__ const
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#endif
)";

// Runs argv, its standard output and error together into `output`; the exit status (-1: not run).
int run(const std::vector<std::string>& argv, std::string& output) {
  int fds[2];
  if (::pipe(fds) != 0) {
    output = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    output = argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) output.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::uint64_t fnv(std::uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return (h ^ 0xff) * 1099511628211ull;
}

// A folder of this process's own (0700), removed with what it holds at exit.
const std::string& private_dir() {
  static std::string dir = [] {
    std::string base = env("TMPDIR");
    if (base.empty()) base = "/tmp";
    std::string tmpl = base + "/cuforge-cxx-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr)
      throw logic_error("cannot make a private folder in " + base + ": " + std::strerror(errno));
    std::string d(buf.data());
    static std::string removed = d;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(removed, ec);
    });
    return d;
  }();
  return dir;
}

// The checks of declared_function: C++ that both NVRTC and the host's compiler accept.
constexpr const char* check_prelude = R"(
template <class T> struct cuforge_kind_ { enum { v = 0 }; };
template <class T> struct cuforge_kind_<T*> { enum { v = 3 }; };
template <class T> struct cuforge_kind_<const T> : cuforge_kind_<T> {};
#define CUFORGE_KIND_(T, V) template <> struct cuforge_kind_<T> { enum { v = V }; };
CUFORGE_KIND_(bool, 4) CUFORGE_KIND_(float, 2) CUFORGE_KIND_(double, 2) CUFORGE_KIND_(void, 5)
CUFORGE_KIND_(char, 1) CUFORGE_KIND_(signed char, 1) CUFORGE_KIND_(unsigned char, 1)
CUFORGE_KIND_(short, 1) CUFORGE_KIND_(unsigned short, 1) CUFORGE_KIND_(int, 1) CUFORGE_KIND_(unsigned, 1)
CUFORGE_KIND_(long, 1) CUFORGE_KIND_(unsigned long, 1) CUFORGE_KIND_(long long, 1)
CUFORGE_KIND_(unsigned long long, 1)
#undef CUFORGE_KIND_
template <class T> struct cuforge_size_ { enum { v = sizeof(T) }; };
template <> struct cuforge_size_<void> { enum { v = 0 }; };
template <class T> __host__ __device__ constexpr int cuforge_code_() { return cuforge_kind_<T>::v * 100 + cuforge_size_<T>::v; }
template <class T> struct cuforge_pointee_ { enum { v = -1 }; };
template <class T> struct cuforge_pointee_<T*> { enum { v = cuforge_kind_<T>::v * 100 + cuforge_size_<T>::v }; };
template <class F> struct cuforge_fn_;
template <class R, class... A> struct cuforge_fn_<R (*)(A...)> {
  // want: the result's code and each parameter's; with `numba`, the result is int and the first
  // parameter a pointer to what want[1] says.
  __host__ __device__ static constexpr bool match(const int* want, int n, bool numba) {
    const int got[] = {cuforge_code_<R>(), cuforge_code_<A>()...};
    const int pointees[] = {0, cuforge_pointee_<A>::v...};
    if (n != static_cast<int>(sizeof...(A)) + 1) return false;
    for (int i = 0; i < n; ++i) {
      const int have = numba && i == 1 ? pointees[1] : got[i];
      if (have != want[i]) return false;
    }
    return true;
  }
};
)";

// Whether `text` has `name` followed by "(" (spaces between), as a whole word.
bool names_function(const std::string& text, const std::string& name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    if (at > 0 && word(text[at - 1])) continue;
    std::size_t end = at + name.size();
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    if (end < text.size() && text[end] == '(') return true;
  }
  return false;
}

// The checks of the declarations to make in source `path` (empty: none).
std::string checks_for(const std::string& path, const std::vector<declared_function>& declared) {
  std::string body;
  std::string text;
  for (const auto& d : declared) {
    if (d.file != path || d.codes.empty()) continue;
    // Only a function the source names (else the link reports it undefined, which says more).
    if (text.empty()) text = read_file(path, "link");
    if (!names_function(text, d.symbol)) continue;
    std::string want = "cuforge_want_" + d.symbol;
    body += "constexpr int " + want + "[] = {";
    for (std::size_t i = 0; i < d.codes.size(); ++i) body += (i ? ", " : "") + std::to_string(d.codes[i]);
    body += "};\nstatic_assert(cuforge_fn_<decltype(&" + d.symbol + ")>::match(" + want + ", " +
            std::to_string(d.codes.size()) + (d.numba_abi ? ", true" : ", false") +
            "), \"cuforge: the definition of " + d.symbol +
            " does not match its declaration " + d.declared + "\");\n";
  }
  if (body.empty()) return "";
  return std::string("\n#line 1 \"<cuforge: declarations checked>\"\n") + check_prelude + body;
}

const char* kind_name(link_kind k) {
  switch (k) {
    case link_kind::ptx: return "PTX";
    case link_kind::cubin: return "a cubin";
    case link_kind::fatbin: return "a fatbin";
    case link_kind::ltoir: return "LTO-IR";
    case link_kind::object: return "an object file of device code";
    case link_kind::library: return "an archive of device code";
    default: return "a source";
  }
}

}  // namespace

std::vector<declared_function> declarations_of(const std::vector<const type*>& externals) {
  std::vector<declared_function> out;
  for (const type* f : externals) {
    if (f->bits >= 2) continue;  // an intrinsic of cuda.extending: its body is inline, nothing to link
    declared_function d;
    d.symbol = f->name;
    const bool c_abi = f->bits == 1;
    d.declared = f->str() + (c_abi ? " (C ABI: its result returned)" : " (Numba ABI: int f(T* result, ...))");
    auto code = [](const type* t) -> int {
      switch (t->kind) {
        case type_kind::none: return 500;
        case type_kind::boolean: return 401;
        case type_kind::integer: return 100 + t->bits / 8;
        case type_kind::floating: return t->bits == 16 ? -1 : 200 + t->bits / 8;
        case type_kind::pointer: return 300 + static_cast<int>(sizeof(void*));
        default: return -1;  // complex: not checked
      }
    };
    std::vector<int> codes;
    if (c_abi) {
      codes.push_back(code(f->dtype));
    } else {  // int f(T* result, ...): the result's type is what the pointer points to
      codes = {104, f->dtype->kind == type_kind::none ? -1 : code(f->dtype)};
      d.numba_abi = true;
    }
    for (const type* p : f->elements) codes.push_back(code(p));
    bool checkable = std::none_of(codes.begin(), codes.end(), [](int c) { return c < 0; });
    // Only where the declaration names one C++ source: the function is there.
    if (checkable && f->names.size() == 1) {
      link_kind k = link_kind_of(f->names[0]);
      if (k == link_kind::cuda_source || k == link_kind::cpp_source) {
        d.file = f->names[0];
        d.codes = std::move(codes);
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

link_kind link_kind_of(const std::string& path) {
  const std::string e = extension(path);
  if (e == "cu" || e == "cuh") return link_kind::cuda_source;
  if (e == "cpp" || e == "cc" || e == "cxx") return link_kind::cpp_source;
  if (e == "c") return link_kind::c_source;
  if (e == "ptx") return link_kind::ptx;
  if (e == "cubin") return link_kind::cubin;
  if (e == "fatbin") return link_kind::fatbin;
  if (e == "ltoir") return link_kind::ltoir;
  if (e == "o") return link_kind::object;
  if (e == "a") return link_kind::library;
  throw logic_error("cannot link " + path + ": its extension ." + e +
                    " is none of .cu, .cpp, .c, .ptx, .cubin, .fatbin, .ltoir, .o, .a");
}

int nvrtc_version() noexcept {
  try {
    int major = 0, minor = 0;
    if (nvrtc().version(&major, &minor) != 0) return 0;
    return major * 1000 + minor * 10;
  } catch (...) {
    return 0;
  }
}

nvrtc_result compile_cuda_source(const std::string& source, const std::string& name, compute_capability cc,
                                 bool lto, const std::vector<std::string>& include_dirs) {
  const nvrtc_api& api = nvrtc();
  std::vector<std::string> opts{"-rdc=true", "--gpu-architecture=" + arch(cc, lto ? "sm_" : "compute_")};
  if (lto) opts.push_back("-dlto");
  std::vector<std::string> dirs{dirname(name)};
  dirs.insert(dirs.end(), include_dirs.begin(), include_dirs.end());
  for (auto& d : extra_include_dirs()) dirs.push_back(std::move(d));
  for (auto& d : toolkit_include_dirs(api.root)) dirs.push_back(std::move(d));
  for (const auto& d : dirs) opts.push_back("-I" + d);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());

  nvrtc_api::program prog = nullptr;
  if (int r = api.create(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr); r != 0)
    throw logic_error("NVRTC cannot take " + name + ": " + api.error_string(r));
  struct destroy {
    const nvrtc_api& api;
    nvrtc_api::program& p;
    ~destroy() { api.destroy(&p); }
  } guard{api, prog};
  int rc = api.compile(prog, static_cast<int>(argv.size()), argv.data());
  nvrtc_result out;
  std::size_t n = 0;
  if (api.log_size(prog, &n) == 0 && n > 1) {
    out.log.resize(n);
    api.log(prog, out.log.data());
    out.log.resize(n - 1);
  }
  if (rc != 0)
    throw logic_error("NVRTC failed to compile " + name + " (" + api.error_string(rc) + "):\n" + out.log);
  if (lto) {
    if (api.ltoir_size(prog, &n) != 0) throw logic_error("NVRTC gave no LTO-IR for " + name);
    out.code.resize(n);
    api.ltoir(prog, out.code.data());
  } else {
    if (api.ptx_size(prog, &n) != 0) throw logic_error("NVRTC gave no PTX for " + name);
    out.code.resize(n);
    api.ptx(prog, out.code.data());
    if (!out.code.empty() && out.code.back() == '\0') out.code.pop_back();
  }
  return out;
}

nvrtc_result compile_cuda_file(const std::string& path, compute_capability cc, bool lto,
                               const std::vector<declared_function>& declared) {
  const link_kind k = link_kind_of(path);
  if (k != link_kind::cuda_source && k != link_kind::cpp_source && k != link_kind::c_source)
    throw logic_error("NVRTC compiles sources (.cu, .cpp, .c), not " + path);
  std::string text = read_file(path, "link");
  // C has no name mangling; NVRTC compiles C++: C's functions keep their names.
  if (k == link_kind::c_source) text = "extern \"C\" {\n#line 1\n" + text + "\n}\n";
  return compile_cuda_source(text + checks_for(path, declared), path, cc, lto, {});
}

std::string link_for_gpu(const std::string& ptx, const std::string& ptx_name, const std::vector<std::string>& inputs,
                         compute_capability cc, bool lto, const std::vector<declared_function>& declared) {
  const nvjitlink_api& api = nvjitlink();
  std::vector<std::string> opts{"-arch=" + arch(cc, "sm_")};
  if (lto) opts.push_back("-lto");
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  nvjitlink_api::handle h = nullptr;
  if (int r = api.create(&h, static_cast<std::uint32_t>(argv.size()), argv.data()); r != 0)
    throw logic_error("nvJitLink cannot start a link (error " + std::to_string(r) + ")");
  struct destroy {
    const nvjitlink_api& api;
    nvjitlink_api::handle& h;
    ~destroy() { api.destroy(&h); }
  } guard{api, h};
  auto log = [&] {
    std::string s;
    std::size_t n = 0;
    if (api.error_log_size(h, &n) == 0 && n > 1) {
      s.resize(n);
      api.error_log(h, s.data());
      s.resize(n - 1);
    }
    return s;
  };
  auto check = [&](int r, const std::string& what) {
    if (r != 0) throw logic_error("nvJitLink failed " + what + " (error " + std::to_string(r) + "):\n" + log());
  };
  // Sources compiled here stay alive until the link completes (AddData copies, but be plain about it).
  std::vector<std::string> compiled;
  compiled.reserve(inputs.size());
  const bool kernel_ltoir = extension(ptx_name) == "ltoir";
  check(api.add_data(h, kernel_ltoir ? input_ltoir : input_ptx, ptx.data(), ptx.size(), ptx_name.c_str()),
        std::string("to read the ") + (kernel_ltoir ? "LTO-IR" : "PTX") + " of " + ptx_name);
  for (const auto& path : inputs) {
    link_kind k = link_kind_of(path);
    if (k == link_kind::cuda_source || k == link_kind::cpp_source || k == link_kind::c_source) {
      nvrtc_result r = compile_cuda_file(path, cc, lto, declared);
      compiled.push_back(std::move(r.code));
      check(api.add_data(h, lto ? input_ltoir : input_ptx, compiled.back().data(), compiled.back().size(),
                         path.c_str()),
            "to read " + path + " (compiled by NVRTC)");
      continue;
    }
    if (!exists(path)) throw logic_error("cannot link " + path + ": no such file");
    int type = k == link_kind::ptx      ? input_ptx
               : k == link_kind::cubin  ? input_cubin
               : k == link_kind::fatbin ? input_fatbin
               : k == link_kind::ltoir  ? input_ltoir
               : k == link_kind::object ? input_object
                                        : input_library;
    check(api.add_file(h, type, path.c_str()), "to read " + path);
  }
  std::string names = ptx_name;
  for (const auto& p : inputs) names += ", " + p;
  check(api.complete(h), "to link " + names);
  std::size_t n = 0;
  check(api.cubin_size(h, &n), "to give the cubin");
  std::string cubin(n, '\0');
  check(api.cubin(h, cubin.data()), "to give the cubin");
  return cubin;
}

std::string host_library(const std::vector<std::string>& inputs, const std::vector<declared_function>& declared) {
  std::vector<std::pair<std::string, link_kind>> sources;
  for (const auto& path : inputs) {
    link_kind k = link_kind_of(path);
    if (k != link_kind::cuda_source && k != link_kind::cpp_source && k != link_kind::c_source)
      throw logic_error("cannot link " + path + " on the cpu backend: it is " + kind_name(k) +
                        ", which only a GPU runs; the cpu backend links C/C++ sources (.cu, .cpp, .c) whose "
                        "functions are portable (extern \"C\" __device__, no CUDA intrinsics)");
    sources.emplace_back(path, k);
  }
  std::string cxx = env("CXX");
  if (cxx.empty()) cxx = "c++";
  std::uint64_t key = fnv(1469598103934665603ull, cxx);
  key = fnv(key, host_header);
  for (const auto& d : extra_include_dirs()) key = fnv(key, d);
  for (const auto& [path, k] : sources) key = fnv(fnv(key, path), read_file(path, "link") + checks_for(path, declared));

  static std::mutex lock;
  static std::map<std::uint64_t, std::string> built;
  std::lock_guard guard(lock);
  if (auto it = built.find(key); it != built.end()) return it->second;

  const std::string& dir = private_dir();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
  const std::string header = dir + "/cuforge_cpu_backend.h";
  if (!exists(header)) {
    std::ofstream h(header);
    h << host_header;
    if (!h) throw logic_error("cannot write " + header);
  }
  const std::string lib = dir + "/lib" + hex + ".so";
  std::vector<std::string> argv{cxx, "-shared", "-fPIC", "-O2", "-o", lib, "-include", header};
  for (const auto& d : extra_include_dirs()) argv.push_back("-I" + d);
  int wrapped = 0;
  for (const auto& [path, k] : sources) {
    argv.push_back("-I" + dirname(path));
    argv.push_back("-x");
    argv.push_back(k == link_kind::c_source ? "c" : "c++");
    std::string checks = k == link_kind::c_source ? "" : checks_for(path, declared);
    if (checks.empty()) {
      argv.push_back(path);
      continue;
    }
    // The source, then the checks of its declarations (a file of ours that includes it).
    std::string wrapper = dir + "/check" + std::to_string(wrapped++) + "_" + hex + ".cpp";
    std::ofstream w(wrapper);
    w << "#include \"" << path << "\"\n" << checks;
    if (!w) throw logic_error("cannot write " + wrapper);
    argv.push_back(wrapper);
  }
  std::string output;
  int rc = run(argv, output);
  if (rc != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    std::string names;
    for (const auto& [path, k] : sources) names += (names.empty() ? "" : ", ") + path;
    throw logic_error("the cpu backend cannot compile " + names + " with the host's C++ compiler (" + cxx +
                      (rc < 0 ? ", which could not be run: set CXX to one" : "") + "):\n" + output + "\n" + cmd +
                      "\n(On the cpu backend only portable C/C++ runs: CUDA-only code such as device intrinsics, "
                      "the cuRAND device API or __syncthreads needs a GPU. Each declared function is checked "
                      "against its definition in the one source its declaration links, if it names one.)");
  }
  built.emplace(key, lib);
  return lib;
}

}  // namespace cuforge::frontend

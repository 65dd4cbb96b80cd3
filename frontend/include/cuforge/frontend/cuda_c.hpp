#pragma once

/// @file
/// The CUDA C/C++ frontend: code written in CUDA C/C++ (or already compiled
/// by NVIDIA's tools) that kernels call through cuda.declare_device and
/// cuda.jit(link=...). On a GPU, `.cu` sources are compiled by NVRTC and
/// everything is linked with the kernel's PTX by nvJitLink into one cubin;
/// both libraries are the toolkit's, loaded at run time (dlopen) as the
/// driver is. On the cpu backend, portable C/C++ device functions are
/// compiled by the host's C++ compiler into a shared library the kernel's
/// JIT links against (docs/interop_c.md).

#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/export.hpp>

#include <string>
#include <vector>

namespace cuforge::frontend {

/// What a file given to link= is, by its name's extension.
enum class link_kind {
  cuda_source,  ///< .cu: CUDA C++ (NVRTC on a GPU; the host compiler on the cpu backend)
  cpp_source,   ///< .cpp, .cc, .cxx: C++ (the same)
  c_source,     ///< .c: C (NVRTC compiles it as C++; the host compiler as C)
  ptx,          ///< .ptx
  cubin,        ///< .cubin
  fatbin,       ///< .fatbin
  ltoir,        ///< .ltoir: NVVM's link-time-optimisation IR
  object,       ///< .o: a host object holding device code (nvcc -dc)
  library,      ///< .a: an archive of them
};

/// @throws logic_error naming the file when its extension is none of link_kind's.
CUFORGE_API link_kind link_kind_of(const std::string& path);

/// A function declared with cuda.declare_device, as the C/C++ that defines
/// it is checked against: when its declaration names one C++ or CUDA source,
/// that source is compiled with a static_assert that the definition's
/// parameters and result are what the declaration says (the same count, and
/// each the same kind and size: integer, floating point, bool, pointer), so
/// a mismatch is a compile error naming the function instead of wrong values.
struct declared_function {
  std::string symbol;
  std::string declared;    ///< the declaration as the user wrote it, for the message
  std::vector<int> codes;  ///< the result's then each parameter's kind*100 + size (ABI applied)
  std::string file;        ///< the one source to check it in, or empty (no check)
  bool numba_abi = false;  ///< codes[1] is what the result pointer (the first parameter) points to
};

/// The declarations of a typed module's externals (typed_module::externals).
CUFORGE_API std::vector<declared_function> declarations_of(const std::vector<const type*>& externals);

/// What NVRTC made of one source.
struct nvrtc_result {
  std::string code;  ///< PTX text, or LTO-IR when asked for
  std::string log;   ///< its warnings
};

/// @brief Compiles CUDA C++ `source` (named `name` in messages and for
/// #include "..." lookups beside it) with NVRTC for compute capability `cc`,
/// as relocatable device code: PTX, or LTO-IR when `lto`. The toolkit's
/// headers (curand_kernel.h, cuda_fp16.h) and `include_dirs` are on the
/// include path.
/// @throws logic_error with NVRTC's log and the file's name when it fails,
/// or naming every place searched when NVRTC is not found.
CUFORGE_API nvrtc_result compile_cuda_source(const std::string& source, const std::string& name,
                                             compute_capability cc, bool lto,
                                             const std::vector<std::string>& include_dirs);

/// @brief The source file `path` (.cu, .cpp or .c: C keeps its names) compiled by
/// compile_cuda_source, with the checks of the `declared` functions it defines appended.
CUFORGE_API nvrtc_result compile_cuda_file(const std::string& path, compute_capability cc, bool lto,
                                           const std::vector<declared_function>& declared = {});

/// @brief Links a kernel's PTX (`ptx`, called `ptx_name` in messages; LTO-IR
/// when `ptx_name` ends in ".ltoir", compile_ltoir's, for `lto`) with
/// the files `inputs` (link_kind_of each; .cu sources compiled by
/// compile_cuda_source first) into a cubin for `cc`, with nvJitLink (-lto
/// when `lto`: sources become LTO-IR and are optimised with each other).
/// @throws logic_error with nvJitLink's log naming the inputs when the link
/// fails (an undefined symbol, a malformed file).
CUFORGE_API std::string link_for_gpu(const std::string& ptx, const std::string& ptx_name,
                                     const std::vector<std::string>& inputs, compute_capability cc, bool lto,
                                     const std::vector<declared_function>& declared = {});

/// @brief The shared library (its path) made by the host's C++ compiler
/// (CXX, else c++) from the sources `inputs`, for the cpu backend: each
/// `extern "C" __device__` function becomes a host function (a small header
/// defines away CUDA's qualifiers). Built once per process and set of
/// inputs (by their contents).
/// @throws logic_error naming the file and the backend for what only a GPU
/// can link (PTX, cubin, fatbin, LTO-IR, objects, archives), and with the
/// compiler's output when it fails (CUDA-only code such as the cuRAND
/// device API, or __syncthreads).
CUFORGE_API std::string host_library(const std::vector<std::string>& inputs,
                                     const std::vector<declared_function>& declared = {});

/// NVRTC's version as major * 1000 + minor * 10, or 0 when it is not found.
CUFORGE_API int nvrtc_version() noexcept;

}  // namespace cuforge::frontend

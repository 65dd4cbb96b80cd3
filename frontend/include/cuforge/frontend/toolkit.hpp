#pragma once

/// @file
/// The parts of the CUDA toolkit cuforge reads or loads at run time:
/// libdevice (the CUDA math library as LLVM bitcode, which NVPTX modules
/// that call math functions link), NVRTC and nvJitLink (CUDA C/C++ linked
/// into kernels), and ptxas (the report, and tests). Found by one search,
/// wherever the toolkit came from: a system install, CUDA_HOME, conda, or
/// NVIDIA's pip wheels (the Python package adds those); see docs/install.md.

#include <cuforge/runtime/export.hpp>

#include <string>
#include <vector>

namespace cuforge::frontend {

/// One place a part may be, and what pointed there.
struct toolkit_candidate {
  std::string path;      ///< the file itself (libdevice.10.bc, libnvrtc.so.13, bin/ptxas)
  std::string found_by;  ///< "CUFORGE_LIBDEVICE_PATH", "CUDA_HOME", "pip wheels (nvidia/cu13)", ...
};

enum class toolkit_part { libdevice, nvrtc, nvjitlink, ptxas, nvvm };

/// Every part, in the order above.
CUFORGE_API std::vector<toolkit_part> toolkit_parts();

/// "libdevice", "nvrtc", "nvjitlink", "ptxas", "nvvm".
CUFORGE_API const char* to_string(toolkit_part part) noexcept;
/// The file looked for: "libdevice.10.bc", "libnvrtc.so.13", "libnvJitLink.so.13", "ptxas", "libnvvm.so.4".
CUFORGE_API const char* file_name(toolkit_part part) noexcept;
/// The variable that names the part's file (or a folder holding it), overriding the search:
/// CUFORGE_LIBDEVICE_PATH, CUFORGE_NVRTC_PATH, CUFORGE_NVJITLINK_PATH, CUFORGE_PTXAS_PATH,
/// CUFORGE_NVVM_PATH.
CUFORGE_API const char* override_variable(toolkit_part part) noexcept;

/// @brief The toolkits searched, in order, as folders laid out as a toolkit
/// (bin/, lib64/ or lib/, nvvm/libdevice/): CUDA_HOME, CUDA_PATH, the conda
/// environment (CONDA_PREFIX), the folders added by add_toolkit_root (pip
/// wheels), the toolkit of the nvcc on PATH, the toolkit cuforge was built
/// with, /usr/local/cuda.
CUFORGE_API std::vector<toolkit_candidate> toolkit_roots();

/// @brief Adds a toolkit folder to search, after the environment's and
/// before the system's (the Python package adds NVIDIA's pip wheels).
/// libdevice is read once per process, NVRTC and nvJitLink opened once:
/// only folders added before then count.
CUFORGE_API void add_toolkit_root(toolkit_candidate root);

/// @brief The places searched for `part`, in order: its override variable
/// (when set, the only place), then each of toolkit_roots() (libraries in
/// lib64/, lib/ and targets/x86_64-linux/lib/), then Debian's
/// nvidia-cuda-toolkit places.
CUFORGE_API std::vector<toolkit_candidate> toolkit_candidates(toolkit_part part);

/// @brief The first of toolkit_candidates(part) that is a file.
/// @throws logic_error naming every place searched when none is.
CUFORGE_API toolkit_candidate toolkit_location(toolkit_part part);

/// A toolkit library, opened once per process.
struct toolkit_library {
  void* handle = nullptr;  ///< dlopen's; null when not found
  std::string root;        ///< the toolkit folder it came from; empty when found on the loader's path
  std::string error;       ///< why it was not found, naming every place searched
};

/// @brief Opens the library `part` (nvrtc, nvjitlink, nvvm) from the first of
/// toolkit_candidates(part) that loads, else by name on the loader's path;
/// once per process (later calls return the same). Thread-safe.
CUFORGE_API const toolkit_library& open_toolkit_library(toolkit_part part);

/// libdevice's candidates and location (toolkit_candidates(toolkit_part::libdevice), ...).
CUFORGE_API std::vector<toolkit_candidate> libdevice_candidates();
CUFORGE_API toolkit_candidate libdevice_location();

}  // namespace cuforge::frontend

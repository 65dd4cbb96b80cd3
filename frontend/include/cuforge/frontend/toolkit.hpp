#pragma once

/// @file
/// The parts of the CUDA toolkit the compiler reads at run time: libdevice
/// (the CUDA math library as LLVM bitcode), which NVPTX modules that call
/// math functions link. Found where the toolkit is, wherever it came from:
/// a system install, CUDA_HOME, conda, or NVIDIA's pip wheels (the Python
/// package adds those); see docs/install.md.

#include <cuforge/runtime/export.hpp>

#include <string>
#include <vector>

namespace cuforge::frontend {

/// One place libdevice may be, and what pointed there.
struct toolkit_candidate {
  std::string path;      ///< libdevice.10.bc itself
  std::string found_by;  ///< "CUFORGE_LIBDEVICE_PATH", "CUDA_HOME", "pip wheel nvidia/cu13", ...
};

/// @brief The places searched for libdevice, in order: CUFORGE_LIBDEVICE_PATH
/// (a file, or a folder holding libdevice.10.bc; when set, the only place),
/// CUDA_HOME and CUDA_PATH, the conda environment (CONDA_PREFIX), the
/// places added by add_libdevice_candidate (pip wheels), the toolkit of the
/// nvcc on PATH, the toolkit cuforge was built with, /usr/local/cuda, and
/// Debian's nvidia-cuda-toolkit.
CUFORGE_API std::vector<toolkit_candidate> libdevice_candidates();

/// @brief Adds a place to search, after the environment's and before the
/// system's. Only places added before the first compile that needs
/// libdevice count (it is read once per process).
CUFORGE_API void add_libdevice_candidate(toolkit_candidate c);

/// @brief The libdevice that compiles use: the first candidate that exists.
/// @throws logic_error naming every place searched when none does.
CUFORGE_API toolkit_candidate libdevice_location();

}  // namespace cuforge::frontend

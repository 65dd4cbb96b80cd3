"""Where the CUDA toolkit's run-time parts are: libdevice (the CUDA math
library as LLVM bitcode, which kernels that call math functions link), NVRTC
and nvJitLink (CUDA C/C++ linked into kernels), ptxas, and libNVVM (LTO-IR). One search for all
of them (frontend/toolkit.hpp): the part's CUFORGE_* variable, then the
toolkit folders CUDA_HOME, CUDA_PATH, CONDA_PREFIX, NVIDIA's pip wheels, the
nvcc on PATH, the toolkit cuforge was built with, /usr/local/cuda, then
Debian's package. This module adds the pip wheels, which only Python can find
(docs/install.md)."""

import importlib.util
import os

from cuforge import _core

PARTS = ("libdevice", "nvrtc", "nvjitlink", "ptxas", "nvvm")

# Folders inside the `nvidia` namespace package of each site-packages folder
# that are laid out as a toolkit (bin/, lib/, nvvm/libdevice/).
_WHEEL_ROOTS = (
    ("cu13", "NVIDIA's pip wheels (nvidia/cu13: CUDA 13)"),
    ("cuda_nvcc", "NVIDIA's pip wheel nvidia-cuda-nvcc (CUDA 12)"),
)


def _add_wheel_roots():
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return
    if spec is None or not spec.submodule_search_locations:
        return
    for root in spec.submodule_search_locations:
        for sub, found_by in _WHEEL_ROOTS:
            if os.path.isdir(os.path.join(root, sub)):
                _core.add_toolkit_root(os.path.join(root, sub), found_by)


def find_toolkit(part):
    """Where a toolkit part is, as ``(path, found_by)``: ``part`` is
    "libdevice", "nvrtc", "nvjitlink", "ptxas" or "nvvm". Raises ``ValueError``
    listing every place searched when none has it (set the part's variable,
    ``CUFORGE_LIBDEVICE_PATH``, ``CUFORGE_NVRTC_PATH``,
    ``CUFORGE_NVJITLINK_PATH`` or ``CUFORGE_PTXAS_PATH``, or ``CUDA_HOME``)."""
    return _core.toolkit_location(part)


def toolkit_candidates(part):
    """Every place searched for a toolkit part, in order, as ``(path, found_by)``."""
    return [tuple(c) for c in _core.toolkit_candidates(part)]


def find_libdevice():
    """The libdevice kernels link, as ``(path, found_by)``: ``find_toolkit("libdevice")``."""
    return find_toolkit("libdevice")


def libdevice_candidates():
    """Every place searched for libdevice, in order, as ``(path, found_by)``."""
    return toolkit_candidates("libdevice")


_add_wheel_roots()

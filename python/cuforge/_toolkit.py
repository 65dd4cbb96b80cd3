"""Where the CUDA toolkit's run-time parts are: libdevice (the CUDA math
library as LLVM bitcode), which kernels that call math functions link. The
compiler searches the environment and the system (CUFORGE_LIBDEVICE_PATH,
CUDA_HOME, CUDA_PATH, CONDA_PREFIX, the nvcc on PATH, the toolkit cuforge
was built with, /usr/local/cuda, Debian's package); this module adds
NVIDIA's pip wheels, which only Python can find (docs/install.md)."""

import importlib.util
import os

from cuforge import _core

# Inside the `nvidia` namespace package of each site-packages folder.
_WHEEL_DIRS = (
    ("cu13/nvvm/libdevice", "pip wheel nvidia-nvvm (CUDA 13)"),
    ("cuda_nvcc/nvvm/libdevice", "pip wheel nvidia-cuda-nvcc (CUDA 12)"),
)


def _add_wheel_candidates():
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return
    if spec is None or not spec.submodule_search_locations:
        return
    for root in spec.submodule_search_locations:
        for sub, found_by in _WHEEL_DIRS:
            _core.add_libdevice_candidate(os.path.join(root, sub, "libdevice.10.bc"), found_by)


def find_libdevice():
    """The libdevice kernels link, as ``(path, found_by)``: the first of the
    places searched that exists. Raises ``ValueError`` listing every place
    searched when none does (no CUDA toolkit, or one the search misses: set
    ``CUFORGE_LIBDEVICE_PATH`` or ``CUDA_HOME``)."""
    return _core.libdevice_location()


def libdevice_candidates():
    """Every place searched for libdevice, in order, as ``(path, found_by)``."""
    return [tuple(c) for c in _core.libdevice_candidates()]


_add_wheel_candidates()

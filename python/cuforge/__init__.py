"""cuforge: a GPU runtime and device-array library.

``from cuforge import cuda`` is the drop-in face of ``numba.cuda``. Work
runs on the CUDA driver when a GPU is present, else on the cpu backend
(``CUFORGE_BACKEND=auto|cuda|cpu`` chooses; ``cuforge.backend()`` tells).
"""

from cuforge import _core, _log

__version__ = "0.1.0"


def backend() -> str:
    """The active backend: ``"cuda"`` or ``"cpu"``."""
    name = _core.backend()
    _log.backend_chosen()
    return name


def backend_reason() -> str:
    """One line saying why the active backend was chosen."""
    return _core.backend_reason()


# Where libdevice is (NVIDIA's pip wheels added to the compiler's search).
from cuforge._toolkit import find_libdevice, find_toolkit, libdevice_candidates, toolkit_candidates  # noqa: E402

# numba's top-level type names, so `from numba import cuda, float32` becomes
# `from cuforge import cuda, float32`.
from cuforge.types import *  # noqa: E402,F401,F403
from cuforge.types import __all__ as _type_names  # noqa: E402

# numba's vectorize and guvectorize (`from numba import cuda, vectorize`).
from cuforge._ufunc import guvectorize, vectorize  # noqa: E402
# numba's jit and njit for the host (`from numba import jit, njit, prange`).
from cuforge._host_jit import jit, njit, prange  # noqa: E402

__all__ = ["backend", "backend_reason", "cuda", "find_libdevice", "find_toolkit", "guvectorize", "libdevice_candidates", "toolkit_candidates", "jit", "njit", "prange", "vectorize", *_type_names]


def __getattr__(name):
    # `import cuforge; cuforge.cuda` works without importing cuda eagerly.
    if name == "cuda":
        import importlib

        return importlib.import_module("cuforge.cuda")
    raise AttributeError(f"module 'cuforge' has no attribute {name!r}")

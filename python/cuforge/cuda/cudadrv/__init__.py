"""numba.cuda.cudadrv's module paths, for code that imports from them:
``cudadrv.devicearray`` (the device array and its helpers) and
``cudadrv.driver`` (errors, pointers, the driver's version)."""

from cuforge.cuda.cudadrv import devicearray, driver  # noqa: F401

__all__ = ["devicearray", "driver"]

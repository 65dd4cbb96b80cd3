"""numba-cuda for the differential tests and the benchmarks' baselines, where
NumPy is newer than numba-cuda expects.

numba-cuda 0.30 registers an overload for ``np.row_stack``, which NumPy 2.5
removed (it was an alias of ``np.vstack``), so ``import numba.cuda`` fails
there with an AttributeError; the GPU image has NumPy 2.5.2. The alias is put
back before numba is imported; nothing of cuforge uses it."""


def patch_numpy():
    import numpy as np

    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack


def numba_cuda():
    """``numba.cuda``, imported after patch_numpy()."""
    patch_numpy()
    from numba import cuda

    return cuda


def numba_cuda_on_a_gpu_or_exit():
    """For a differential test's child process: ``numba.cuda`` where it imports and sees a GPU, else
    the reason printed and exit status 77 (the test skips, saying why)."""
    import sys

    try:
        cuda = numba_cuda()
        if not cuda.is_available():
            raise ImportError("numba-cuda sees no GPU")
    except Exception as e:  # noqa: BLE001 - any failure to import means "not here"
        print(f"numba-cuda is not usable here: {type(e).__name__}: {e}")
        sys.exit(77)
    return cuda

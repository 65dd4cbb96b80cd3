"""``python -m cuforge``: what cuforge finds on this machine, as ``numba -s``
reports numba's: the package, Python and NumPy, the backend and why, the
devices (cuda.detect()), the CUDA toolkit's pieces and where they were found,
the CUFORGE_* environment, and the array libraries it interoperates with.
Paste it into a bug report."""

import importlib.metadata
import os
import platform
import shutil
import sys


def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _toolkit_lines():
    import cuforge
    from cuforge import _core

    lines = [f"{'toolkit folders:':<20}" + ", ".join(f"{p} ({w})" for p, w in _core.toolkit_roots())]
    for part in cuforge._toolkit.PARTS:
        try:
            path, where = cuforge.find_toolkit(part)
            lines.append(f"{part + ':':<20}{path} (found through {where})")
        except Exception as e:  # noqa: BLE001 - the report says what went wrong instead of stopping
            lines.append(f"{part + ':':<20}not found ({str(e).splitlines()[0]})")
            seen = set()
            for path, where in cuforge.toolkit_candidates(part):
                if path not in seen:
                    seen.add(path)
                    lines.append(f"  searched:         {path} ({where})")
    version = _core.nvrtc_version()
    if version:
        lines.append(f"{'NVRTC version:':<20}{version // 1000}.{version % 1000 // 10}")
    roots = [p for p, _ in _core.toolkit_roots()]
    for tool in ("nvcc", "compute-sanitizer", "cuda-gdb"):
        found = shutil.which(tool) or next(
            (p for p in (os.path.join(r, sub, tool) for r in roots for sub in ("bin", tool)) if os.path.exists(p)),
            None)
        lines.append(f"{tool + ':':<20}{found or 'not found'}")
    return lines


def report(out=sys.stdout):
    """Writes the report to ``out``."""
    import numpy as np

    import cuforge
    from cuforge import cuda

    w = lambda text="": print(text, file=out)  # noqa: E731
    w(f"cuforge {cuforge.__version__} ({os.path.dirname(cuforge.__file__)})")
    w(f"Python {platform.python_version()} ({sys.executable}), {platform.platform()}, {platform.machine()}")
    w(f"NumPy {np.__version__}")
    w()
    w(f"Backend: {cuforge.backend_reason()}")
    env = {k: v for k, v in sorted(os.environ.items()) if k.startswith("CUFORGE_")}
    w("CUFORGE_* environment: " + (", ".join(f"{k}={v}" for k, v in env.items()) if env else "none set"))
    w()
    w("Devices:")
    try:
        cuda.detect()
    except Exception as e:  # noqa: BLE001
        w(f"  cannot list them: {type(e).__name__}: {e}")
    sys.stdout.flush()
    w()
    w("CUDA toolkit:")
    for line in _toolkit_lines():
        w("  " + line)
    w()
    w("Array and GPU libraries:")
    found = 0
    for dist in ("numba", "numba-cuda", "cupy", "cupy-cuda12x", "cupy-cuda13x", "torch", "jax", "rmm",
                 "cuda-python", "cuda-bindings"):
        version = _version(dist)
        if version is not None:
            w(f"  {dist} {version}")
            found += 1
    if not found:
        w("  none installed (numba-cuda, CuPy, PyTorch, JAX, RMM)")


if __name__ == "__main__":
    report()

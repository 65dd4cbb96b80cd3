"""Shared fixtures of the Python suite.

The suite runs unchanged on every backend: on the cpu backend (no GPU) the
tests marked ``@pytest.mark.gpu`` are skipped, with the reason; on a GPU
(the cuda backend) everything runs.
"""

import contextlib
import gc
import os
import pathlib
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

try:
    import cuforge
except ImportError:  # running from the source tree without PYTHONPATH=python
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
    import cuforge


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs the cuda backend (a GPU); skipped on the cpu backend")
    # The disk cache's secret key: one of the run's own (child processes inherit it), not the user's.
    if "CUFORGE_CONFIG_DIR" not in os.environ:
        import tempfile

        os.environ["CUFORGE_CONFIG_DIR"] = os.path.join(tempfile.mkdtemp(prefix="cuforge-test-config-"), "cuforge")


# Under scripts/sanitize.sh --python (the ASan runtime preloaded into every process of the run).
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
# `@pytest.mark.no_asan("tools")` skips a test there, for one of these reasons (the default: "faults").
NO_ASAN_REASONS = {
    "faults": "the cpu backend's fault handler leaves a faulting kernel by jumping off its signal stack, which "
              "ASan's stack bookkeeping cannot follow (false reports), as the C++ stack-overflow test",
    "tools": "a tool the test runs (nvcc, gdb) inherits the preloaded ASan runtime, which it was not built for: "
             "it crashes or hangs",
}


def pytest_collection_modifyitems(config, items):
    if UNDER_ASAN:
        for item in items:
            marker = item.get_closest_marker("no_asan")
            if marker is not None:
                why = NO_ASAN_REASONS[marker.args[0] if marker.args else "faults"]
                item.add_marker(pytest.mark.skip(reason=f"skipped under AddressSanitizer: {why}"))
    if cuforge.backend() == "cuda":
        return
    skip = pytest.mark.skip(reason=f"needs a GPU (the cuda backend); active backend: {cuforge.backend_reason()}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _random_array(rng, shape, dtype):
    """Random values spanning the dtype's range (no NaNs, so == compares)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 1000).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    raise AssertionError(f"no sampler for {dtype}")


@pytest.fixture
def rng(request):
    """A generator seeded by the test's id: reproducible, different per test
    (not hash(), which is salted per process)."""
    name = request.node.nodeid
    return np.random.default_rng(sum((i + 1) * ord(c) for i, c in enumerate(name)) % 2**32)


@pytest.fixture
def sample(rng):
    """sample(shape, dtype): random values over the dtype's range."""
    return lambda shape, dtype: _random_array(rng, shape, dtype)


@pytest.fixture
def held():
    """held(stream): a scope in which `stream` is held back by a host
    callback waiting on the yielded threading.Event (set when the scope ends,
    or after 30 s, so a failure cannot hang the run). Work queued on the
    stream inside does not run until the Event is set.

    Deferred frees are flushed first and the cyclic GC is paused inside: a
    free may flush the deferred ones, which waits for the device, held
    stream included."""
    from cuforge import cuda

    @contextlib.contextmanager
    def hold(stream):
        gc.collect()
        cuda.synchronize()
        gate = threading.Event()
        stream.add_callback(lambda s, status, arg: gate.wait(30))
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            yield gate
        finally:
            gate.set()
            if was_enabled:
                gc.enable()

    return hold


class PythonRun:
    """A finished subprocess: rc, stdout, stderr, and a readable summary."""

    def __init__(self, proc):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def __repr__(self):
        return f"<rc={self.rc}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}>"


@pytest.fixture
def run_python():
    """Runs Python code in a fresh interpreter (for crash-prone cases, and
    for state a test must not leave behind: cuda.close(), environment
    variables read once). Returns a PythonRun; a crash shows as rc < 0."""
    package_dir = str(pathlib.Path(cuforge.__file__).resolve().parents[1])

    def run(code, env=None, timeout=120):
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_dir, full_env.get("PYTHONPATH")]))
        full_env.update(env or {})
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            env=full_env,
            timeout=timeout,
        )
        return PythonRun(proc)

    return run

"""What a user sees of cuforge without reading its code (issue 14 items 3 and
5): logging.getLogger("cuforge") reports the backend chosen (INFO) and every
compilation (DEBUG: function, types, target, time, disk cache); launch
configurations have readable reprs; device arrays display in Jupyter
(_repr_html_); ``python -m cuforge`` reports what was found."""

import logging
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import cuforge
from cuforge import cuda


@cuda.jit
def fill(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v


@cuforge.njit
def twice(x):
    return 2 * x


@pytest.fixture
def debug_log(caplog):
    caplog.set_level(logging.DEBUG, logger="cuforge")
    return caplog


def _messages(caplog, level):
    return [r.getMessage() for r in caplog.records if r.name == "cuforge" and r.levelno == level]


def test_compiles_are_logged_with_function_types_target_time_and_cache(debug_log):
    fresh = cuda.jit(fill.py_func)
    fresh[1, 4](np.zeros(4, np.float32), 1.5)
    (line,) = [m for m in _messages(debug_log, logging.DEBUG) if "fill(" in m]
    target = "host" if cuda.backend() == "cpu" else "nvptx sm_"
    assert re.fullmatch(r"compiled kernel fill\(array\(float32, 1d, C\), float64\) for " + re.escape(target) +
                        r".* in [0-9.]+ ms \(disk cache: off\)", line), line
    debug_log.clear()
    fresh[1, 4](np.zeros(4, np.float32), 2.5)  # the same types: nothing compiles
    assert not [m for m in _messages(debug_log, logging.DEBUG) if "fill(" in m]


def test_ptx_and_host_functions_are_logged(debug_log):
    cuda.compile_ptx(fill.py_func, "void(float32[:], float32)", debug=True, opt=False, cc=(8, 0))
    cuforge.njit(twice.py_func)(3)
    messages = _messages(debug_log, logging.DEBUG)
    assert any(re.fullmatch(r"compiled PTX of a kernel fill\(array\(float32, 1d, A\), float32\) for nvptx sm_80 "
                            r"\(debug\) in [0-9.]+ ms \(disk cache: off\)", m) for m in messages), messages
    assert any(m.startswith("compiled host function twice(int64") and "host-only" in m for m in messages), messages


def test_a_disk_cache_hit_and_miss_are_logged(tmp_path):
    src = pathlib.Path(__file__).with_name("observability_kernels.py")
    env = {**os.environ, "CUFORGE_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, timeout=300, env=env)
    second = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, timeout=300, env=env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "(disk cache: miss, stored)" in first.stderr, first.stderr
    assert "(disk cache: hit)" in second.stderr, second.stderr


def test_the_backend_is_logged_once_at_info():
    r = subprocess.run([sys.executable, "-c", "import logging; logging.basicConfig(level=logging.INFO); "
                        "import cuforge; cuforge.backend(); cuforge.backend()"],
                       capture_output=True, text=True, timeout=120)
    lines = [line for line in r.stderr.splitlines() if "cuforge runs on the" in line]
    assert len(lines) == 1 and cuforge.backend_reason() in lines[0], r.stderr


def test_launch_configurations_have_readable_reprs():
    assert repr(fill[2, (4, 8)]) == ("<launch of 'fill': griddim=(2, 1, 1), blockdim=(4, 8, 1), stream=default, "
                                     "sharedmem=0>")
    s = cuda.stream()
    assert f"stream={s!r}" in repr(fill[1, 32, s, 64]) and "sharedmem=64" in repr(fill[1, 32, s, 64])
    assert repr(fill.forall(100, tpb=64)) == "<forall of 'fill': 100 tasks, threads per block 64, sharedmem=0>"


def test_device_arrays_display_in_jupyter():
    d = cuda.to_device(np.arange(6.0).reshape(2, 3))
    page = d._repr_html_()
    for text in ("(2, 3)", "float64", "C-contiguous, strides (24, 8)", "6 elements, 48 bytes", "device 0",
                 "[[0. 1. 2.]\n [3. 4. 5.]]"):
        assert text in page, (text, page)
    big = cuda.device_array(1000)._repr_html_()
    assert "1000 elements" in big and "<pre>" not in big  # large arrays are not copied for a preview
    strided = cuda.to_device(np.zeros((4, 4)))[:, 1]._repr_html_()
    assert "strided, strides (32,)" in strided, strided


def test_python_m_cuforge_reports_what_it_finds():
    r = subprocess.run([sys.executable, "-m", "cuforge"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith(f"cuforge {cuforge.__version__} (")
    assert f"Backend: {cuforge.backend_reason()}" in out
    assert "Devices:" in out and re.search(r"Found \d+ CUDA devices", out), out
    assert "CUDA toolkit:" in out and "libdevice:" in out and "ptxas:" in out
    assert "Array and GPU libraries:" in out

"""Fixtures of the compiler's tests (helpers: compiler_support.py)."""

import pytest

from compiler_support import build_recorded


@pytest.fixture
def record(monkeypatch):
    """record(pyfunc) builds ``pyfunc`` afresh (not memoised) through a
    builder that records every call (a compiler_support.Recording)."""
    return lambda pyfunc: build_recorded(pyfunc, monkeypatch)


# --- every kernel the tests compile goes through ptxas ------------------------------------------

import hashlib
import os
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

from cuforge import _core
from cuforge.cuda import _jit

PTXAS = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
_checked = set()  # digests of PTX texts ptxas already accepted


def ptxas_check(ptx: str, device: bool = False) -> None:
    """Assembles ``ptx`` with ptxas for the architecture its ``.target``
    names; raises AssertionError with ptxas's message if it refuses.
    Device functions (no entry) assemble as relocatable code (-c)."""
    digest = hashlib.sha256(ptx.encode()).hexdigest()
    if digest in _checked:
        return
    arch = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.M)
    assert arch, "PTX without a .target directive:\n" + ptx[:400]
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        cmd = [PTXAS, f"-arch={arch.group(1)}", src, "-o", os.path.join(d, "k.cubin")]
        if device or ".entry" not in ptx or ".extern .func" in ptx:  # (calls code linked later: relocatable)
            cmd.insert(1, "-c")
        r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, f"ptxas refused the PTX ({' '.join(cmd[:-2])}):\n{r.stderr}\n{ptx[:2000]}"
    _checked.add(digest)


@pytest.fixture(autouse=True)
def _every_compiled_kernel_passes_ptxas(monkeypatch, request):
    """Records each specialisation a test compiles (on any backend) and,
    after the test, feeds its PTX to ptxas: every test kernel's PTX is
    checked without a GPU. Tests that expect compilation to fail record
    nothing. `@pytest.mark.no_ptxas` opts out (a test of the checker)."""
    if not os.path.exists(PTXAS) or request.node.get_closest_marker("no_ptxas"):
        yield
        return
    compiled = []
    real = _jit._compile

    def recording(pyfunc, specs, options, device, ret_spec=None, link=(), lto=False):
        cf = real(pyfunc, specs, options, device, ret_spec, link, lto)
        compiled.append((cf, bool(device)))
        return cf

    monkeypatch.setattr(_jit, "_compile", recording)
    yield
    monkeypatch.setattr(_jit, "_compile", real)
    # Tests that stand in for _core.compile get what their stand-in returns.
    jobs = [(cf.ptx, dev) for cf, dev in compiled if isinstance(cf, _core.CompiledFunction)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for f in [pool.submit(ptxas_check, ptx, dev) for ptx, dev in jobs]:
            f.result()

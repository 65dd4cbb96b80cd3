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


def _ptxas_command(ptx: str, device: bool):
    """(arch, relocatable) for one PTX text."""
    arch = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.M)
    assert arch, "PTX without a .target directive:\n" + ptx[:400]
    relocatable = device or ".entry" not in ptx or ".extern .func" in ptx  # (calls code linked later)
    return arch.group(1), relocatable


def _run_ptxas(texts, arch, relocatable):
    """ptxas over one or more PTX texts (each its own file); (returncode, stderr)."""
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i, ptx in enumerate(texts):
            files.append(os.path.join(d, f"k{i}.ptx"))
            with open(files[-1], "w") as f:
                f.write(ptx)
        cmd = [PTXAS, *(["-c"] if relocatable else []), f"-arch={arch}", *files, "-o", os.path.join(d, "k.cubin")]
        r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stderr, cmd


def ptxas_check(ptx: str, device: bool = False) -> None:
    """Assembles ``ptx`` with ptxas for the architecture its ``.target``
    names; raises AssertionError with ptxas's message if it refuses.
    Device functions (no entry) assemble as relocatable code (-c)."""
    digest = hashlib.sha256(ptx.encode()).hexdigest()
    if digest in _checked:
        return
    arch, relocatable = _ptxas_command(ptx, device)
    code, err, cmd = _run_ptxas([ptx], arch, relocatable)
    assert code == 0, f"ptxas refused the PTX ({' '.join(cmd[:-2])}):\n{err}\n{ptx[:2000]}"
    _checked.add(digest)


# The names a PTX module defines at module scope (not those it declares .extern): ptxas links
# the files it is given into one unit, so modules assembled together get theirs made distinct.
_DEFINED = re.compile(
    r"^\s*(?:\.(?:visible|weak)\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)"  # functions and kernels
    r"|^\s*(?:\.(?:visible|weak)\s+)*\.(?:global|const|shared)\s[^;=\[]*?(\w+)\s*[\[;=]",  # variables
    re.M)


def _own_names(ptx: str, tag: str) -> str:
    """``ptx`` with every name it defines suffixed by ``tag`` (identifiers are whole tokens)."""
    for name in {a or b for a, b in _DEFINED.findall(ptx)}:
        ptx = re.sub(rf"\b{re.escape(name)}\b", name + tag, ptx)
    return ptx


def ptxas_check_many(jobs, batch=48):
    """ptxas_check over many (ptx, device) pairs, with one ptxas process for up to ``batch``
    modules of the same architecture and mode (their defined names made distinct): starting
    ptxas costs more than assembling a test kernel. A batch ptxas refuses is checked module
    by module as the modules are, so a failure names the module and its message alone."""
    groups = {}
    for ptx, device in jobs:
        digest = hashlib.sha256(ptx.encode()).hexdigest()
        if digest not in _checked:
            groups.setdefault(_ptxas_command(ptx, device), {}).setdefault(digest, ptx)
    batches = []
    for (arch, relocatable), texts in groups.items():
        items = list(texts.items())
        batches += [(arch, relocatable, items[i:i + batch]) for i in range(0, len(items), batch)]

    def check(arch, relocatable, members):
        code, _, _ = _run_ptxas([_own_names(ptx, f"__m{i}") for i, (_, ptx) in enumerate(members)], arch,
                                relocatable)
        if code != 0:
            for _, ptx in members:  # the precise message, module by module
                ptxas_check(ptx, relocatable)
        _checked.update(d for d, _ in members)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for f in [pool.submit(check, *b) for b in batches]:
            f.result()


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
    ptxas_check_many(jobs)

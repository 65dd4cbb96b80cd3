"""Helpers of the compiler's tests: IR dumps, a builder that records every
call the walker makes (to check locations and values the dump does not
show; the ``record`` fixture in conftest.py), and the detection of the C++
compiler's stages, so that tests that need the typer or code generation run
as soon as those land."""

import hashlib
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cuforge import _core
from cuforge.cuda._compiler import build_ir, walker

_BUILDER_METHODS = [
    "param", "variable", "constant", "typed_constant", "global_", "name", "global_ref", "unary", "binary",
    "compare", "logical", "conditional", "call", "attribute", "subscript", "tuple", "slice", "assign",
    "expression", "if_", "while_", "for_range", "break_", "continue_", "return_", "pass_", "raise_", "assert_",
    "set_body", "set_source", "set_fingerprint",
]


def dump(pyfunc):
    """The untyped IR's listing of a function (or dispatcher)."""
    return build_ir(pyfunc).dump()


def expected(text):
    """An expected dump written indented in a test."""
    return textwrap.dedent(text).lstrip("\n")


class Recording:
    """What one build asked of the builder: ``calls`` is a list of (method,
    args) in order; ``ir`` the finished function."""

    def __init__(self):
        self.calls = []
        self.init = None
        self.ir = None
        self.fingerprint = None

    def of(self, method):
        return [args for m, args in self.calls if m == method]

    def locations(self, method):
        """(line, col) of each call of ``method`` (its last two arguments)."""
        return [tuple(args[-2:]) for args in self.of(method)]


def build_recorded(pyfunc, monkeypatch):
    """Builds ``pyfunc`` afresh (not memoised) through a builder that
    records every call; returns the Recording."""
    rec = Recording()

    class RecordingBuilder(_core.IRBuilder):
        def __init__(self, *args):
            rec.init = args
            super().__init__(*args)

    def wrap(name):
        base = getattr(_core.IRBuilder, name)

        def method(self, *args):
            rec.calls.append((name, args))
            return base(self, *args)

        return method

    for name in _BUILDER_METHODS:
        setattr(RecordingBuilder, name, wrap(name))
    with monkeypatch.context() as m:
        m.setattr(walker._core, "IRBuilder", RecordingBuilder)
        rec.ir, rec.fingerprint = walker._Walker(getattr(pyfunc, "py_func", pyfunc), walker._callee_ir).build()
    return rec


# --- what the C++ compiler can do yet ---------------------------------------------


def _probe_kernel(a):
    a[0] = 1


def _stage_ready(stage):
    """Whether the C++ compiler's ``stage`` ("typer" or "codegen") is built:
    its placeholders fail with "not built yet"."""
    compile_fn = getattr(_core, "compile", None)
    if compile_fn is None:
        return False
    try:
        cf = compile_fn(build_ir(_probe_kernel), ["array(float64, 1d, C)"], _core.CompileConfig(), False)
        if stage == "codegen":
            cf.llvm  # noqa: B018
    except Exception as e:  # noqa: BLE001
        if "not built yet" in str(e):
            return False
        raise
    return True


TYPER_READY = _stage_ready("typer")
CODEGEN_READY = TYPER_READY and _stage_ready("codegen")

needs_typer = pytest.mark.skipif(not TYPER_READY, reason="the C++ typer is not built yet (frontend/src/typer.cpp)")
needs_codegen = pytest.mark.skipif(not CODEGEN_READY,
                                   reason="C++ code generation is not built yet (frontend/src/codegen.cpp)")


def numba_python(version):
    """A Python with numba-cuda ``version``: CUFORGE_NUMBA_PYTHON, or a cached
    venv made here (pip from PyPI). (python, None), or (None, the reason)
    where there is none: the differential tests skip, saying why."""
    explicit = os.environ.get("CUFORGE_NUMBA_PYTHON")
    if explicit:
        return explicit, None
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        if installed("numba-cuda") == version:  # this Python has it (the GPU image's does)
            return sys.executable, None
    except PackageNotFoundError:
        pass
    venv = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "cuforge" / \
        f"numba-cuda-{version}"
    py = venv / "bin" / "python"
    if (venv / "installed").exists():
        return str(py), None
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        f"numba-cuda=={version}", "numpy"],
                       check=True, capture_output=True, timeout=900)
    except (subprocess.SubprocessError, OSError) as e:
        return None, f"numba-cuda {version} could not be installed: {type(e).__name__}"
    (venv / "installed").touch()  # a venv whose install failed (no registry) is not taken for one
    return str(py), None


def numba_side_table(version, side, cases, tmp_path, what, args=()):
    """The table a differential test's ``side`` script (run as ``python side
    OUT.json *args``) writes under numba-cuda ``version``, cached beside that
    Python by the digest of ``side``, its ``cases`` module and ``args``. Skips
    the test, saying that ``what`` was not checked and why, where numba-cuda is
    not at hand or the script fails."""
    python, why = numba_python(version)
    if python is None:
        pytest.skip(f"{what} not checked against numba-cuda itself: {why}")
    side, cases = pathlib.Path(side), pathlib.Path(cases)
    digest = hashlib.sha256(cases.read_bytes() + side.read_bytes() + " ".join(args).encode()).hexdigest()[:16]
    out = pathlib.Path(python).parent.parent / f"{side.stem}_{digest}.json"  # beside the venv, not its base Python
    if not out.exists():
        r = subprocess.run([python, str(side), str(tmp_path / "t.json"), *args], capture_output=True, text=True,
                           timeout=1800)
        if r.returncode != 0:
            pytest.skip(f"{what} not checked: {side.name} failed:\n{r.stderr[-2000:]}")
        (tmp_path / "t.json").replace(out)
    return json.loads(out.read_text())


# --- numba-cuda on a GPU: the same kernels, the same inputs ------------------------------------------

NUMBA_GPU_SIDE = pathlib.Path(__file__).resolve().with_name("numba_gpu_side.py")


def run_gpu_comparison(script):
    """Runs a GPU comparison script (fp16_numba_side.py, ...) in a child process: the test passes
    when it exits 0, skips (with its reason) on 77, and fails with its output otherwise."""
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    if r.returncode == 77:
        pytest.skip(r.stdout.strip())
    assert r.returncode == 0, r.stdout + r.stderr


def load_module(source, folder, name):
    """The module `source` written to folder/name.py and imported (kernels compile from a file)."""
    import importlib.util

    path = pathlib.Path(folder) / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def typing_error_of(source, folder, name, **jit_options):
    """The TypingError that launching kernel `k` of `source` (written to
    folder/name.py, so that it compiles from a file) raises."""
    import numpy as np

    from cuforge import cuda

    mod = load_module(source, folder, name)
    try:
        cuda.jit(**jit_options)(mod.k)[1, 1](np.zeros(1))
    except cuda.TypingError as e:
        return e
    raise AssertionError(f"{name}: the kernel compiled and ran")


def launch_all(mod, calls, arrays):
    """cuforge's side of run_under_numba_cuda: the same launches, with copies of the same arrays;
    {key: array} after them."""
    from cuforge import cuda

    out = {}
    for call in calls:
        args = [np.array(arrays[k]) for k in call["args"]]
        getattr(mod, call["kernel"])[call["grid"], call["block"]](*args)
        cuda.synchronize()
        out.update(zip(call["args"], args))
    return out


def run_under_numba_cuda(source, calls, arrays, folder, meanwhile=None):
    """Runs `calls` ([{"kernel", "grid", "block", "args": [keys of `arrays`]}]) of the module `source`,
    written against cuforge, with its imports of cuforge made numba's, under numba-cuda on the GPU in a
    child process (numba_gpu_side.py), calling `meanwhile()` (cuforge's side) while it runs.
    Returns ({key: array after the launches}, {kernel: error}, what meanwhile returned). Skips the
    test, saying why, where numba-cuda or a GPU is not usable."""
    import re

    folder = pathlib.Path(folder)
    numba_source, n = re.subn(r"^(\s*)(from|import)\s+cuforge\b", r"\1\2 numba", source, flags=re.M)
    assert n, "the module imports nothing from cuforge"
    (folder / "numba_side_module.py").write_text(numba_source)
    (folder / "calls.json").write_text(json.dumps(calls))
    np.savez(folder / "in.npz", **arrays)
    child = subprocess.Popen([sys.executable, str(NUMBA_GPU_SIDE), str(folder / "numba_side_module.py"),
                              str(folder / "calls.json"), str(folder / "in.npz"), str(folder / "out.npz")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ours = meanwhile() if meanwhile else None
        out, err = child.communicate(timeout=1200)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    if child.returncode == 77:
        pytest.skip(out.strip())
    assert child.returncode == 0, out + err
    data = dict(np.load(folder / "out.npz"))
    return data, json.loads(str(data.pop("__errors__"))), ours


def bit_differences(got, want):
    """The indices where two arrays differ bit for bit (any nan equal to any nan)."""
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    g, w = _float_parts(g), _float_parts(w)
    if g.dtype.kind == "f":
        ints = np.dtype(f"u{g.dtype.itemsize}")
        same = (g.view(ints) == w.view(ints)) | (np.isnan(g) & np.isnan(w))
    else:
        same = g == w
    if same.ndim > np.asarray(got).ndim:
        same = same.all(axis=-1)
    return np.flatnonzero(~same.reshape(-1))


def _float_parts(a):
    a = np.asarray(a)
    return a.view(a.real.dtype).reshape(*a.shape, 2) if a.dtype.kind == "c" else a


def ulp_differences(got, want, ulps):
    """The indices where two float (or complex) arrays differ by more than `ulps` units in the last
    place of `want`; nan equals any nan, and infinities and zeros must be equal, sign included."""
    g, w = _float_parts(got), _float_parts(want)
    ints = np.dtype(f"u{g.dtype.itemsize}")
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(g.astype(np.float64) - w.astype(np.float64)) <= ulps * np.spacing(np.abs(w)).astype(np.float64)
    finite = np.isfinite(w) & (w != 0) & np.isfinite(g)
    same = (g.view(ints) == w.view(ints)) | (np.isnan(g) & np.isnan(w)) | (finite & close)
    if same.ndim > np.asarray(got).ndim:
        same = same.all(axis=-1)
    return np.flatnonzero(~same.reshape(-1))

"""The intrinsic registry (frontend/intrinsics.hpp) and what is made from it:
cuforge.cuda's stubs and __all__, its .pyi and docs/intrinsics.md agree with
the registry; the names the stubs and the typer once disagreed on
(atomic.nanmax/nanmin, cbrt) work; and the registry itself is consistent."""

import ast
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import cuforge
from cuforge import _core, cuda
from cuforge.cuda import _stubs
from cuforge.cuda._compiler import resolve

ROOT = pathlib.Path(__file__).resolve().parents[3]
ROWS = _core.intrinsics()
CUDA_ROWS = [r for r in ROWS if r["name"].startswith("cuda.")]


def _stub_at(path):
    obj = cuda
    for part in path:
        obj = getattr(obj, part)
    return obj


# --- the registry ------------------------------------------------------------------------------


def test_names_are_unique_and_every_prefix_is_a_module():
    names = [r["name"] for r in ROWS]
    assert len(names) == len(set(names))
    kinds = {r["name"]: r["kind"] for r in ROWS}
    for name in names:
        parts = name.split(".")
        for i in range(1, len(parts)):
            prefix = ".".join(parts[:i])
            assert kinds.get(prefix) == "module", f"{name}: {prefix} is not a module entry"


def test_rows_are_well_formed():
    for r in ROWS:
        assert r["kind"] in ("module", "function", "value"), r
        assert r["cpu"] in ("nothing", "warp_sync", "block_sync", "grid_sync"), r
        assert r["doc"] and "\n" not in r["doc"], f"{r['name']}: a one-line doc"
        if r["kind"] == "function":
            ast.parse(f"def f{r['params']}: pass")  # Python's parameter syntax
        else:
            assert r["params"] == "", r
        if r["cpu"] != "nothing":
            assert r["kind"] == "function" and r["name"].startswith("cuda."), r


def test_the_module_entries_are_what_kernels_may_name():
    modules = {r["name"] for r in ROWS if r["kind"] == "module"}
    assert {"cuda", "cuda.atomic", "cuda.threadIdx", "math", "cmath", "numpy", "operator", "builtins"} <= modules
    # Every module the resolver hands the compiler is an entry.
    for modname, _ in resolve._FUNCTION_MODULES:
        assert modname in modules


# --- the stubs and __all__ ---------------------------------------------------------------------


def test_every_cuda_row_has_a_stub_and_every_stub_a_row():
    rows = {tuple(r["name"].split(".")[1:]): r for r in CUDA_ROWS}
    for path, r in rows.items():
        stub = _stub_at(path)
        if r["alias_of"]:  # another name of a row: its stub is that row's (cuda.float2 is cuda.float32x2)
            assert stub is _stub_at(tuple(r["alias_of"].split(".")[1:])), path
            continue
        assert _stubs.cuda_path(stub) == path
        assert r["doc"] in stub.__doc__
        if r["kind"] == "function":
            with pytest.raises(TypeError, match="only be used inside a @cuda.jit kernel"):
                stub()
    seen, visited = [], set()

    def walk(stub):
        if id(stub) in visited:  # an alias among its module's names (cuda.bf16.float32_to_bfloat16_rz)
            return
        visited.add(id(stub))
        seen.append(_stubs.cuda_path(stub))
        for child in dir(stub):
            walk(getattr(stub, child))

    for stub in {id(s): s for s in _stubs.STUBS.values()}.values():  # an alias's stub once
        walk(stub)
    assert sorted(seen) == sorted(path for path, r in rows.items() if not r["alias_of"])


def test_all_is_the_host_api_and_the_registrys_top_level_names():
    top = sorted({r["name"].split(".")[1] for r in CUDA_ROWS})
    assert cuda.__all__ == [*cuda.HOST_NAMES, *top]
    assert len(set(cuda.__all__)) == len(cuda.__all__)
    for name in cuda.__all__:
        assert hasattr(cuda, name), name
    # The walker reads a stub as the cuda attribute it names.
    aliases = {r["name"]: r["alias_of"] for r in CUDA_ROWS if r["alias_of"]}
    for name in top:
        res = resolve.resolve(name, getattr(cuda, name), lambda d: None)
        assert res.cuda_path == (aliases.get("cuda." + name, "cuda." + name)[5:],)


def test_the_stub_file_declares_every_public_name():
    tree = ast.parse((ROOT / "python" / "cuforge" / "cuda" / "__init__.pyi").read_text())
    declared = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            declared.update(a.asname or a.name for a in node.names)
    missing = [name for name in cuda.__all__ if name not in declared]
    assert not missing, f"__init__.pyi lacks {missing}"


def test_generated_files_are_current():
    """scripts/gen_intrinsics.py --check: the .pyi's kernel-side part and
    docs/intrinsics.md are what the registry makes now."""
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_intrinsics.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_reference_page_lists_every_row():
    text = (ROOT / "docs" / "intrinsics.md").read_text()
    for r in ROWS:
        if r["kind"] != "module":
            assert f"`{r['name']}" in text, r["name"]


# --- the settled disagreements: atomic.nanmax/nanmin (stubs had them, the typer not), cbrt --------


@cuda.jit
def _minmax_kernel(a, vals, which):
    i = cuda.grid(1)
    if i < vals.size:
        if which == 0:
            cuda.atomic.max(a, 0, vals[i])
            cuda.atomic.min(a, 1, vals[i])
        else:
            cuda.atomic.nanmax(a, 0, vals[i])
            cuda.atomic.nanmin(a, 1, vals[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_atomic_max_min_and_nanmax_nanmin_treat_nan_as_numba_does(dtype):
    vals = np.array([3.0, np.nan, -2.0, 7.0], dtype=dtype)
    # A nan operand is ignored by all four.
    for which in (0, 1):
        a = np.array([0.0, 0.0], dtype=dtype)
        _minmax_kernel[1, 4](a, vals, which)
        assert a.tolist() == [7.0, -2.0]
    # A nan element stays for max/min and is replaced by nanmax/nanmin.
    a = np.array([np.nan, np.nan], dtype=dtype)
    _minmax_kernel[1, 4](a, vals, 0)
    assert np.isnan(a).all()
    a = np.array([np.nan, np.nan], dtype=dtype)
    _minmax_kernel[1, 4](a, vals, 1)
    assert a.tolist() == [7.0, -2.0]


@cuda.jit
def _nan_int_kernel(a, v):
    cuda.atomic.nanmax(a, 0, v)
    cuda.atomic.nanmin(a, 1, v)


def test_atomic_nanmax_on_integers_is_max():
    a = np.array([5, 5], dtype=np.int64)
    _nan_int_kernel[1, 1](a, 9)
    assert a.tolist() == [9, 5]


@cuda.jit
def _cbrt_kernel(out, x):
    out[0] = cuda.cbrt(x)


def test_cuda_cbrt_has_a_stub_and_compiles():
    assert _stubs.cuda_path(cuda.cbrt) == ("cbrt",)
    out = np.zeros(1, dtype=np.float32)
    _cbrt_kernel[1, 1](out, np.float32(27.0))
    assert out[0] == pytest.approx(3.0)
    ptx, _ = cuda.compile_ptx(_cbrt_kernel.py_func, "void(float64[:], float64)")
    assert "cbrt" in ptx or "ex2" in ptx or "lg2" in ptx  # libdevice's cbrt, inlined


def test_nanmax_ptx_assembles():
    ptx, _ = cuda.compile_ptx(_minmax_kernel.py_func, "void(float32[:], float32[:], int64)")
    assert "atom.global.cas.b32" in ptx


# --- cpu_needs decides the cpu backend's engine ---------------------------------------------------


@cuda.jit
def _plain(a):
    a[cuda.grid(1)] = cuda.laneid


@cuda.jit
def _warp(a):
    cuda.syncwarp()
    a[cuda.grid(1)] = 1


def test_cpu_needs_decides_whether_a_kernel_needs_fibers():
    a = np.zeros(64, dtype=np.int32)
    _plain[2, 32](a)
    assert a.tolist() == list(range(32)) * 2
    _warp[2, 32](a)
    (plain,) = _plain.definitions.values()
    (warp,) = _warp.definitions.values()
    assert not plain.uses_barrier, "laneid needs nothing of the cpu backend"
    assert warp.uses_barrier, "syncwarp needs the warp in step"
    assert math.isfinite(a.sum())

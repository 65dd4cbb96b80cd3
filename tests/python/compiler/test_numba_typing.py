"""Differential typing test: every scalar operation on every pair of scalar
types, in variable and literal forms (numba_typing_cases.py), typed and
computed by cuforge and compared with numba-cuda.

Two sources for numba-cuda's side:

- the table recorded from numba-cuda 0.30.4 (data/numba_typing.json.gz,
  written by ``numba_typing_side.py``), compared on every run;
- numba-cuda itself, installed from PyPI into a cached virtual environment
  (or the Python named by CUFORGE_NUMBA_PYTHON) and run afresh: skipped,
  with the number of cases, where it cannot be installed.

Where numba-cuda refuses an operation with a TypingError, cuforge must
refuse it too, unless it is one of the documented extensions (docs/compiler.md,
"Deliberate differences"). Other numba-cuda errors (a missing driver for
float16 math, an NVVM failure) say nothing about typing and are skipped.
"""

import gzip
import importlib.util
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from cuforge import cuda, types as cftypes

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import numba_typing_cases as C  # noqa: E402
from compiler_support import numba_python, numba_side_table  # noqa: E402

RECORDED = HERE / "data" / "numba_typing.json.gz"
NUMBA_CUDA_VERSION = "0.30.4"

# Operations cuforge accepts where numba-cuda 0.30 refuses them: extensions,
# listed in docs/compiler.md. (expression, argument type) pairs.
EXTENSIONS = {
    # Truth and min/max of booleans and float16, conversions numba-cuda
    # lacks: cuforge gives the obvious answer.
    ("min(a, b)", "bool"), ("max(a, b)", "bool"),
    ("bool(a)", "float16"), ("float(a)", "bool"), ("complex(a)", "bool"), ("complex(a)", "float16"),
    ("a or b", "float16"), ("a and b", "float16"), ("not a", "float16"),
    ("a if a > b else b", "float16"),
}


# Integer powers with an exponent over 65536: Numba computes them through
# math.pow and a float-to-int conversion (inf or a rounded float), cuforge
# exactly, wrapping (a deliberate difference, docs/compiler.md).
BIG_INT_POWERS = {"a ** 100000"}


def _undefined_shift(expr, inputs):
    """Whether ``expr`` shifts by a negative count or by 64 or more: LLVM's
    poison in Numba (x86 masks the count, PTX clamps it), so numba-cuda's
    CPU-computed value says nothing (cuforge gives 0, or -1 for a negative
    number shifted right)."""
    for op in ("<<", ">>"):
        if op in expr:
            count = expr.split(op)[1].strip()
            value = {"a": inputs[0], "b": inputs[-1]}.get(count)
            value = int(eval(count)) if value is None else int(value)  # a literal of the generated cases
            return not 0 <= value < 64
    return False


def _normal(t):
    """numba-cuda's spelling of a result type, without literal types."""
    if t.startswith("Literal[int]"):
        return "int64"
    if t.startswith("Literal[bool]"):
        return "bool"
    return t


def _load_generated(tmp_path_factory):
    d = tmp_path_factory.mktemp("numba_typing")
    path = d / "numba_typing_generated_cf.py"
    C.write_module(path)
    spec = importlib.util.spec_from_file_location("numba_typing_generated_cf", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


class CuforgeSide:
    """cuforge's types (compile_ptx, device=True) and values (a kernel on
    the active backend) of the generated functions."""

    def __init__(self, mod, path):
        self.mod = mod
        self.path = path
        self.devices = {}
        self.kernels = {}
        self.types = {}

    def device(self, fname):
        if fname not in self.devices:
            self.devices[fname] = cuda.jit(device=True)(getattr(self.mod, fname))
        return self.devices[fname]

    def type_of(self, fname, arg_types):
        key = (fname, arg_types)
        if key not in self.types:
            sig = tuple(getattr(cftypes, "boolean" if t == "bool" else t) for t in arg_types)
            try:
                self.types[key] = str(cuda.compile_ptx(getattr(self.mod, fname), sig, device=True)[1])
            except Exception as e:  # noqa: BLE001 - the kind of refusal is what we compare
                self.types[key] = "error: " + type(e).__name__ + ": " + str(e).splitlines()[0][:200]
        return self.types[key]

    def kernel(self, fname, nargs, nouts):
        key = (fname, nargs, nouts)
        if key not in self.kernels:
            # The kernel's source must be in a file: append it to the module.
            params = [f"x{i}" for i in range(nargs)]
            outs = [f"o{i}" for i in range(nouts)]
            call = f"{fname}_dev({', '.join(p + '[0]' for p in params)})"
            body = [f"    r = {call}"]
            if nouts == 1:
                body.append("    o0[0] = r")
            else:
                body += [f"    o{i}[0] = r[{i}]" for i in range(nouts)]
            src = f"\n\ndef k_{fname}({', '.join(params + outs)}):\n" + "\n".join(body) + "\n"
            with open(self.path, "a") as f:
                f.write(src)
            code = compile(open(self.path).read(), str(self.path), "exec")
            exec(code, self.mod.__dict__)
            setattr(self.mod, f"{fname}_dev", self.device(fname))
            self.kernels[key] = cuda.jit(getattr(self.mod, f"k_{fname}"))
        return self.kernels[key]

    def values(self, fname, arg_types, inputs, out_types):
        k = self.kernel(fname, len(arg_types), len(out_types))
        args = [np.array([v], dtype=np.bool_ if t == "bool" else t) for t, v in zip(arg_types, inputs)]
        outs = [np.zeros(1, dtype=np.bool_ if t == "bool" else t) for t in out_types]
        k[1, 1](*args, *outs)
        cuda.synchronize()
        return [o[0].item() for o in outs]


@pytest.fixture(scope="module")
def cuforge_side(tmp_path_factory):
    mod, path = _load_generated(tmp_path_factory)
    return CuforgeSide(mod, path)


def _rtol(t):
    return {"float16": 2e-3, "float32": 2e-6, "complex64": 2e-6}.get(t, 1e-12)


def _compare(table, side):
    """Every difference between numba-cuda's table and cuforge, as lines."""
    problems = []
    checked = values_checked = 0
    for case_id, fname, arg_types, fallbacks, inputs in C.cases():
        entry = table["cases"].get(case_id)
        if entry is None:
            continue
        exprs, templates = C.expressions(fname)
        whole = side.type_of(fname, arg_types)
        if whole.startswith("error"):
            mine = [side.type_of(f, arg_types) for f in fallbacks]
        else:
            mine = C.elements(whole) if len(fallbacks) > 1 else [whole]
        for expr, template, want, got in zip(exprs, templates, entry["types"], mine):
            where = f"{expr} with {', '.join(arg_types)} ({case_id})"
            if want.startswith("error"):
                if "TypingError" not in want or got.startswith("error"):
                    continue
                if any((template, t) in EXTENSIONS for t in arg_types):
                    continue
                problems.append(f"{where}: numba-cuda refuses it, cuforge types it {got}")
                continue
            checked += 1
            if got != _normal(want):
                problems.append(f"{where}: numba-cuda {_normal(want)}, cuforge {got}")
        if whole.startswith("error") or not entry["values"]:
            continue
        if [_normal(t) for t in entry["types"]] != mine:
            continue
        for set_name, encoded in entry["values"].items():
            want_values = [C.decode(e) for e in encoded]
            got_values = side.values(fname, arg_types, inputs[set_name], mine)
            for expr, t, w, g in zip(exprs, mine, want_values, got_values):
                if expr in BIG_INT_POWERS or _undefined_shift(expr, inputs[set_name]):
                    continue
                values_checked += 1
                if not C.close(g, w, _rtol(t)):
                    problems.append(f"{expr} with {', '.join(arg_types)} = {inputs[set_name]}: "
                                    f"numba {w!r}, cuforge {g!r} ({t})")
    return problems, checked, values_checked


def _report(problems, checked, values_checked):
    assert checked > 5000 and values_checked > 3000, (checked, values_checked)
    assert not problems, f"{len(problems)} differences from numba-cuda (of {checked} types, " \
                         f"{values_checked} values):\n" + "\n".join(problems[:80])


def test_types_and_values_match_the_recorded_numba_cuda(cuforge_side):
    with gzip.open(RECORDED, "rt") as f:
        table = json.load(f)
    assert table["numba_cuda"] == NUMBA_CUDA_VERSION
    _report(*_compare(table, cuforge_side))


@pytest.mark.timeout(900)  # numba-cuda compiles every case: over 120 s on a loaded 16-core GPU machine
def test_types_and_values_match_numba_cuda_itself(cuforge_side, tmp_path):
    with gzip.open(RECORDED, "rt") as f:
        target = json.load(f)["numba"]
    # Asked first, since computing numba-cuda's table takes minutes where it is not cached.
    python, _ = numba_python(NUMBA_CUDA_VERSION)
    if python is not None:
        r = subprocess.run([python, str(HERE / "numba_typing_side.py"), "--numba-version"], capture_output=True,
                           text=True, timeout=300)
        if r.returncode == 0 and r.stdout.strip() != target:
            _skip_other_numba(r.stdout.strip(), target)
    ncases = sum(1 for _ in C.cases())
    table = numba_side_table(NUMBA_CUDA_VERSION, HERE / "numba_typing_side.py", HERE / "numba_typing_cases.py",
                             tmp_path, f"{ncases} cases")
    if table["numba"] != target:
        _skip_other_numba(table["numba"], target)
    _report(*_compare(table, cuforge_side))


def _skip_other_numba(here, target):
    # The typing of builtins (min/max of booleans, math on float16) is numba's core's, and it
    # moves between releases: on the GPU image's numba, numba-cuda 0.30.4 types min(True, a)
    # and math.tanh(float16) otherwise than on numba 0.68.1, which cuforge follows.
    pytest.skip(f"numba {here} here; cuforge follows numba {target}'s typing "
                "(the recorded table's): compared where they are the same")

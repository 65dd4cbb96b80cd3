"""The bytecode frontend (python/cuforge/cuda/_compiler/bytecode.py;
docs/compiler.md, "Two fronts"): kernels whose source Python cannot find.

- The decompiler against a corpus of the kernel language's shapes
  (bytecode_corpus_check.py, in a process of its own: a wrong decompile
  may loop), on this CPython and on every other supported one found here.
- Both fronts agree: the compiler tests run with CUFORGE_FRONTEND=compare,
  each specialisation compiled again from the bytecode; its typed IR (else
  its optimised LLVM IR) must be the source's.
- Generated kernels (exec per dtype, a cuDF-style UDF kernel, closures and
  globals), ``python -c``, standard input, lambdas, the disk cache, and the
  errors: a construct outside the language, an unknown CPython.
"""

import glob
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import cuforge
from cuforge import cuda
from cuforge.cuda import TypingError
from cuforge.cuda._compiler import bytecode

HERE = pathlib.Path(__file__).parent
CHILD = HERE / "generated_kernels_child.py"


# --- the decompiler against the corpus ---------------------------------------------------------

def _interpreters():
    """{(major, minor): path} of the CPythons on this machine (PATH and pyenv)."""
    found = {}
    candidates = [shutil.which(f"python3.{m}") for m in range(10, 20)]
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates += sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin", "python3")))
    for path in candidates:
        if not path or not os.access(path, os.X_OK):
            continue
        try:
            out = subprocess.run([path, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
                                 capture_output=True, text=True, timeout=60).stdout.split()
        except (OSError, subprocess.SubprocessError):
            continue
        if len(out) == 2:
            found.setdefault((int(out[0]), int(out[1])), path)
    return found


@pytest.mark.parametrize("version", bytecode.SUPPORTED, ids=lambda v: f"py{v[0]}.{v[1]}")
def test_the_corpus_round_trips_on_each_supported_python(version, tmp_path):
    if version == sys.version_info[:2]:
        python = sys.executable
    else:
        python = _interpreters().get(version)
        if python is None:
            pytest.skip(f"no CPython {version[0]}.{version[1]} on this machine")
    report = tmp_path / "report.json"
    r = subprocess.run([python, str(HERE / "bytecode_corpus_check.py"), str(report)], capture_output=True,
                       text=True, timeout=600)
    assert report.exists(), r.stderr[-3000:]
    summary = json.loads(report.read_text())
    assert summary["python"].startswith(f"{version[0]}.{version[1]}.")
    assert len(summary["checked"]) >= 50
    assert summary["failures"] == [], json.dumps(summary["failures"], indent=1)
    assert r.returncode == 0


# --- both fronts agree on the compiler tests' kernels ------------------------------------------

@pytest.mark.skipif(cuforge.backend() != "cpu", reason="reruns the compiler suite (minutes): the fronts' agreement "
                    "is the frontend's, checked on the cpu backend (CI); the GPU runs the suite itself")
def test_both_fronts_compile_every_compiler_test_kernel_alike(tmp_path):
    """Every specialisation the compiler tests compile is compiled again from
    its bytecode: the typed IR must be the same, or the optimised LLVM IR,
    or, where CPython's bytecode cannot keep the source's shape (``if a: if
    b:`` is ``if a and b:``, code after a return is gone), the typed IR of
    both trees put in canonical.py's one spelling; and the bytecode front
    must not refuse what the source front takes, unless the source without
    the code CPython dropped is refused alike (or, for no more than 2% of the
    fuzzer's random programs, no reading of the bytecode compiled back to
    it: declined with a message, not compiled)."""
    # The test files in as many groups as there are cores (at most 4), the largest first into the
    # lightest group, each group a pytest process of its own run side by side (one process took 10
    # minutes on CI's two cores).
    files = sorted((f for f in HERE.glob("test_*.py") if f.name != pathlib.Path(__file__).name),
                   key=lambda f: f.stat().st_size, reverse=True)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    groups = [[] for _ in range(max(1, min(4, cores)))]
    for f in files:
        min(groups, key=lambda g: sum(x.stat().st_size for x in g)).append(f)
    runs = []
    for i, group in enumerate(groups):
        report = tmp_path / f"fronts{i}.jsonl"
        env = dict(os.environ, CUFORGE_FRONTEND="compare", CUFORGE_FRONTEND_REPORT=str(report))
        log = open(tmp_path / f"run{i}.log", "w+")
        # --assert=plain: pytest's rewritten asserts are not the bytecode CPython
        # makes of the test files' source. (The run's own pass/fail is not this
        # test's business: a test counting compiles sees the second front's.)
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--assert=plain",
                                 "--no-header", "--basetemp", str(tmp_path / f"base{i}"), *map(str, group),
                                 "-k", "not numba and not gdb and not toolkit_child"],
                                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(tmp_path))
        runs.append((proc, report, log))
    records, output = [], ""
    try:
        for proc, report, log in runs:
            proc.wait(timeout=3000)
            log.seek(0)
            output += log.read()[-3000:]
            if report.exists():
                records += [json.loads(line) for line in report.read_text().splitlines()]
    finally:
        for proc, _, log in runs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()
    assert len(records) > 500, output
    bad, declined, fuzzed = {}, {}, set()
    for rec in records:
        key = (rec["file"], rec["function"], rec["line"])
        generated = re.match(r"(gen|mut|edge)_\d+\.py$", os.path.basename(rec["file"])) is not None
        if generated:
            fuzzed.add(key)
        if rec["agree"] in ("typed", "llvm", "canonical"):
            continue
        if generated and rec["agree"] == "refused" and "could not read the bytecode" in rec.get("error", ""):
            # The fuzzer's random programs (dead code after returns, asserts
            # of constants, loops that never turn) hold a few layouts no
            # reading compiles back to: declined with the message, never
            # compiled wrong. Hand-written kernels get no such allowance.
            declined[key] = rec
            continue
        bad.setdefault(key, rec)
    assert len(fuzzed) > 200
    assert len(declined) <= 0.02 * len(fuzzed), f"{len(declined)} of {len(fuzzed)} fuzzed functions declined: " \
        + ", ".join(f"{os.path.basename(f)}:{fn}" for f, fn, _ in declined)
    detail = "\n\n".join(f"{f}:{line} {fn}: {rec['agree']} {rec.get('error', '')}\n"
                         f"--- source\n{rec.get('source', '')}\n--- bytecode\n{rec.get('bytecode', '')}"
                         for (f, fn, line), rec in list(bad.items())[:5])
    assert not bad, f"{len(bad)} functions compile differently from their bytecode:\n{detail}"


# --- generated kernels, python -c, standard input -------------------------------------------------

WANT = {
    "atomic_int32": [8, 8, 8, 8], "atomic_int64": [8, 8, 8, 8], "atomic_uint32": [8, 8, 8, 8],
    "atomic_float32": [8.0] * 4, "atomic_float64": [8.0] * 4,
    "udf": [12.0, 22.0, 36.0, 44.0],
    "closure": [100, 103, 106, 109],
    "reduce": 4950.0, "reduce_max": 9.0,
    "lambda_device": [0.0, 2.0, 4.0],
}


def _run_child(args, stdin=None):
    r = subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, timeout=600,
                       cwd=str(HERE))
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_generated_kernels_compile_from_their_bytecode():
    """exec per dtype, a cuDF-style UDF kernel, a closure made by generated
    code: none has source; lambdas here come from the file's source."""
    assert _run_child([str(CHILD)]) == WANT


def test_a_program_on_standard_input_compiles_every_kernel_from_bytecode():
    """`python - < file`: no function has source, lambdas included."""
    assert _run_child(["-"], stdin=CHILD.read_text()) == WANT


def test_a_kernel_defined_in_python_c():
    program = ("import json, numpy as np\n"
               "from cuforge import cuda\n"
               "@cuda.jit\n"
               "def k(x, n):\n"
               "    i = cuda.grid(1)\n"
               "    while i < x.size:\n"
               "        x[i] = i * n if i % 2 else -i\n"
               "        i += cuda.gridsize(1)\n"
               "x = np.zeros(10)\n"
               "k[2, 2](x, 3)\n"
               "print(json.dumps(x.tolist()))\n")
    r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    assert json.loads(r.stdout) == [0.0, 3.0, -2.0, 9.0, -4.0, 15.0, -6.0, 21.0, -8.0, 27.0]


def test_the_disk_cache_keys_a_generated_kernel_by_its_code_object(tmp_path):
    folder = str(tmp_path / "cache")
    first = _run_child([str(CHILD), "cache", folder])
    second = _run_child([str(CHILD), "cache", folder])
    want = [0.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0]
    assert (first["hits"], first["misses"], first["out"]) == (0, 1, want)
    assert (second["hits"], second["misses"], second["out"]) == (1, 0, want)


def test_a_changed_generated_kernel_is_not_served_from_the_cache(monkeypatch):
    from cuforge.cuda import _cache

    a, b = {"cuda": cuda}, {"cuda": cuda}
    exec("def f(x):\n    x[0] = 1\n", a)
    exec("def f(x):\n    x[0] = 2\n", b)
    ida, idb = _cache._source_identity(a["f"]), _cache._source_identity(b["f"])
    assert ida[2].startswith("code ") and idb[2].startswith("code ")
    assert ida != idb


# --- lambdas ------------------------------------------------------------------------------------

def test_several_lambdas_on_one_line_each_compile_their_own():
    add, mul = cuda.reduce(lambda a, b: a + b), cuda.reduce(lambda a, b: a * b)  # noqa: E731
    x = np.arange(1, 6, dtype=np.float64)
    assert add(x) == 15.0 and mul(x, init=1) == 120.0


def test_lambdas_alike_on_one_line_fall_back_to_their_bytecode(monkeypatch):
    """Where the source cannot tell two lambdas apart (no columns: Python
    3.10), the bytecode does; here the source path is made to fail."""
    from cuforge.cuda._compiler import walker

    monkeypatch.setattr(walker._Source, "_from_lambda", lambda self, f: False)
    walker._built.clear()
    lo, hi = cuda.reduce(lambda a, b: min(a, b)), cuda.reduce(lambda a, b: max(a, b))  # noqa: E731
    x = np.array([4.0, -1.0, 7.0])
    assert lo(x) == -1.0 and hi(x) == 7.0


# --- errors ------------------------------------------------------------------------------------

def _generated(body):
    ns = {"cuda": cuda}
    exec("def gen(x):\n    i = 0\n" + body + "\n", ns)
    return cuda.jit(ns["gen"])


@pytest.mark.parametrize("body, construct, line", [
    ("    try:\n        x[0] = 1\n    except Exception:\n        x[0] = 2", "try/except", None),
    ("    with x:\n        x[0] = 1", "with statements", 3),
    ("    global Z\n    Z = 1", "global statements", 4),
    ("    x[0] = [1, 2][0]", "lists", 3),
    ("    x[0] = {1: 2}[1]", "dicts", 3),
    ("    def g():\n        pass\n    x[0] = 1", "nested functions", 3),
    ("    x[0] = f'{i}'", "f-strings", 3),
    ("    x[0] = sum(v for v in x)", "generator expressions", 3),
    ("    yield 1", "yield", None),
])
def test_a_construct_outside_the_language_names_itself_and_the_line(body, construct, line):
    with pytest.raises(TypingError) as e:
        _generated(body)[1, 1](np.zeros(2))
    text = str(e.value)
    assert construct in text
    assert "gen" in text and '"<string>"' in text
    if line is not None:
        assert e.value.lineno == line
    assert e.value.source_line is None  # no source: no caret


def test_an_unknown_cpython_is_refused_by_name(monkeypatch):
    monkeypatch.setattr(bytecode, "_PY", (3, 99))
    ns = {"cuda": cuda}
    exec("def gen(x):\n    x[0] = 1\n", ns)
    with pytest.raises(bytecode.DecompileError) as e:
        bytecode.decompile(ns["gen"])
    assert "Python 3.99" in e.value.message
    assert all(f"{a}.{b}" in e.value.message for a, b in bytecode.SUPPORTED)
    with pytest.raises(TypingError, match=r"cannot read the bytecode of Python 3\.99"):
        cuda.jit(ns["gen"])[1, 1](np.zeros(1))


def test_source_stays_the_first_front():
    """A function with source is read from it (the walker's carets), not its bytecode."""
    from cuforge.cuda._compiler import walker

    def k(x):
        x[0] = 1

    assert walker._Source(k).frontend == "source"
    ns = {}
    exec("def k(x):\n    x[0] = 1\n", ns)
    assert walker._Source(ns["k"]).frontend == "bytecode"


def test_the_bytecode_front_gives_the_lines_of_the_code_object():
    ns = {"cuda": cuda}
    exec("\n\ndef gen(x):\n    i = cuda.grid(1)\n    x[i] = i\n    x[i] = 'text'\n", ns)
    with pytest.raises(TypingError) as e:
        cuda.jit(ns["gen"])[1, 1](np.zeros(2))
    assert e.value.lineno == 6
    assert re.search(r'File "<string>", line 6, in gen', str(e.value))


def test_a_reading_that_does_not_compile_back_is_refused(monkeypatch):
    """The check behind every reading: a tree that does not compile back to
    the function's own instructions never reaches the compiler."""
    import ast

    ns = {"cuda": cuda}
    exec("def gen(x):\n    if x[0] > 0:\n        x[1] = 1\n", ns)
    right = bytecode.decompile(ns["gen"])
    assert bytecode.verify(ns["gen"], right) is True
    wrong = ast.parse("def gen(x):\n    if x[0] < 0:\n        x[1] = 1\n").body[0]
    assert bytecode.verify(ns["gen"], wrong) is False
    monkeypatch.setattr(bytecode, "_read", lambda func, style: wrong)
    with pytest.raises(bytecode.DecompileError, match="could not read the bytecode of gen back exactly"):
        bytecode.decompile(ns["gen"])
    with pytest.raises(TypingError, match="define it in a file"):
        cuda.jit(ns["gen"])[1, 1](np.zeros(2))

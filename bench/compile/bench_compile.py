#!/usr/bin/env python3
"""bench/compile: how long compiling a kernel takes, ours against Numba's.

    python3 bench/compile/bench_compile.py [--numba-python PATH] [--runs 3]

Measures, each in fresh processes (median of --runs), with the imports
timed apart:

- ``cuda.compile_ptx`` of the course's hidden-layer ``activate`` kernel and
  of the tiled (shared-memory) matmul, for sm_90: the first compile after
  import ("cold") and a repeat in the same process ("warm"), ours against
  ``numba.cuda.compile_ptx`` of the same source. numba-cuda makes PTX
  without a GPU (it needs NVVM from the CUDA toolkit). Its interpreter is
  --numba-python, else this one if it imports numba.cuda, else
  /tmp/numbaenv/bin/python if present; without one its columns are left out.
- where our cold compile goes: the walker (Python AST -> IR), the typer,
  and codegen (LLVM optimisation, libdevice, NVPTX), from the same calls
  compile_ptx makes.
- the disk cache (``@cuda.jit(cache=True)``): the first launch of a kernel
  in a fresh process when an earlier process stored it (a hit) against the
  first launch with nothing stored, minus a warm launch. "not available"
  while the package has no disk cache (cuforge.cuda._cache).

Also where a later compile goes (lowering and O3 apart from NVPTX's code
generation), and the same for ``weigh``, one multiply: the floor any later
compile pays, whatever the kernel.

Goals: a compile at most 0.05x numba-cuda's, cold and later alike (issue 16);
a disk-cache hit under 2 ms.
Runs on any backend (compile_ptx needs no GPU; the cache rows launch on the
active one).
"""

import argparse
import importlib.util
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import uuid

# The kernels are the examples' own (examples/python), numba's copy being the
# same source with its imports of cuforge changed (bench/_examples.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import _examples  # noqa: E402

# weigh (one multiply) is the floor: what any later compile costs, whatever the kernel.
EXAMPLE_OF = {"activate": "kernel_hidden_layer", "fast_matmul": "kernel_matmul", "weigh": "kernel_hidden_layer"}
SIGNATURES = {
    "activate": "void(float32[::1], float32[::1])",
    "fast_matmul": "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
    "weigh": "void(float32[::1], float32[::1], float32[::1])",
}

GOAL = 0.05  # ours / numba-cuda's, cold and later alike

# argv: implementation, example module, kernel name, signature, mode ("time", "breakdown" or "later").
DRIVER = '''
import importlib, json, statistics, sys, time
impl, module, name, sig, mode = sys.argv[1:6]
t = time.perf_counter()
if impl == "ours":
    from cuforge import cuda
else:
    import numba_compat
    cuda = numba_compat.numba_cuda()
imported = time.perf_counter() - t
kernel = getattr(importlib.import_module(module), name)
fn = getattr(kernel, "py_func", kernel)  # compile_ptx takes the Python function
if mode == "time":
    t = time.perf_counter()
    ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0))
    first = time.perf_counter() - t
    assert ".entry" in ptx
    warm = []
    for _ in range(3):
        t = time.perf_counter()
        cuda.compile_ptx(fn, sig, cc=(9, 0))
        warm.append(time.perf_counter() - t)
    print(json.dumps({"import": imported, "first": first, "warm": statistics.median(warm)}))
else:
    # The stages compile_ptx goes through (private: update with _jit.compile_ptx).
    from cuforge import _core
    from cuforge.cuda._compiler import build_ir
    from cuforge.cuda._jit import CompileOptions
    from cuforge.types import normalize_signature
    args, _ = normalize_signature(sig)
    config = CompileOptions(cc=(9, 0)).config("nvptx")

    def typed():  # (the compiled kernel, seconds in the walker, in the typer)
        t0 = time.perf_counter()
        ir = build_ir(fn)
        t1 = time.perf_counter()
        cf = _core.compile(ir, [a.spec for a in args], config, False, None)
        return cf, t1 - t0, time.perf_counter() - t1

    def seconds(f):
        t = time.perf_counter()
        f()
        return time.perf_counter() - t

    if mode == "breakdown":
        cf, walker, typer = typed()
        print(json.dumps({"walker": walker, "typer": typer, "codegen": seconds(lambda: cf.ptx)}))
    else:
        # A later compile: the stages again after a first compile. llvm_gpu is the module lowered,
        # linked with libdevice and optimised, then printed; ptx the same, then NVPTX's code
        # generator instead of the printer: the code generator is their difference.
        cuda.compile_ptx(fn, sig, cc=(9, 0))
        rows = []
        for _ in range(5):
            cf, walker, typer = typed()
            lowered = seconds(lambda: cf.llvm_gpu)
            cf, _, _ = typed()
            emitted = seconds(lambda: cf.ptx)
            rows.append({"walker": walker, "typer": typer, "lower+O3": lowered, "NVPTX": max(emitted - lowered, 0.0)})
        print(json.dumps({k: statistics.median(r[k] for r in rows) for k in rows[0]}))
'''


def find_numba_python(given):
    if given:
        return given
    if importlib.util.find_spec("numba") is not None:
        try:
            _examples.numba_cuda()
            return sys.executable
        except Exception:  # noqa: BLE001 - any failure to import means "not here"
            pass
    default = pathlib.Path("/tmp/numbaenv/bin/python")
    return str(default) if default.exists() else None


def run_json(cmd, cwd, env=None):
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        tail = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"
        raise RuntimeError(tail)
    return json.loads(out.stdout.strip().splitlines()[-1])


def medians(rows):
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def compile_latency(folder, runs, numba_python):
    """{kernel: {impl: medians}}; numba's entry is an error string when it fails."""
    results = {}
    ours_env = dict(os.environ, PYTHONPATH=_examples.pythonpath())
    numba_env = dict(os.environ, PYTHONPATH=str(_examples.COMPAT))  # numba_compat; the staged copies are in cwd
    for name in EXAMPLE_OF:
        what = (EXAMPLE_OF[name], name, SIGNATURES[name])
        got = {"ours": [], "numba": []}
        for _ in range(runs):  # interleaved, so drift hits both alike
            got["ours"].append(run_json([sys.executable, "driver.py", "ours", *what, "time"], folder, ours_env))
            if numba_python and not isinstance(got["numba"], str):
                try:
                    got["numba"].append(
                        run_json([numba_python, "driver.py", "numba", f"{what[0]}_numba", *what[1:], "time"], folder,
                                 numba_env))
                except RuntimeError as e:
                    got["numba"] = f"could not run ({e})"
        results[name] = {k: (medians(v) if isinstance(v, list) and v else v or None) for k, v in got.items()}
        for key, mode in (("stages", "breakdown"), ("later_stages", "later")):
            try:
                results[name][key] = medians(
                    [run_json([sys.executable, "driver.py", "ours", *what, mode], folder, ours_env)
                     for _ in range(runs)])
            except RuntimeError as e:
                results[name][key] = f"unavailable ({e})"
    return results


# --- the disk cache -----------------------------------------------------------------------

CACHED = '''
# salt {salt}: a fresh source for every run of the bench, so no run hits a
# cache entry stored by an earlier one
import numpy as np
from math import tanh

from cuforge import cuda

SALT = {salt_int}


@cuda.jit(cache={cache})
def activate(values, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = tanh(values[i]) + (SALT - SALT)
'''

CACHE_DRIVER = '''
import gc, json, sys, time
import numpy as np
from cuforge import cuda
a = cuda.to_device(np.linspace(-1, 1, 64, dtype=np.float32))
b = cuda.device_array(64, dtype=np.float32)
cuda.synchronize()
gc.collect()  # settled: see bench_cache_hit.py on collections of the imports' objects
t0 = time.perf_counter()
from cached_kernel import activate
activate[2, 32](a, b)
cuda.synchronize()
t1 = time.perf_counter()
activate[2, 32](a, b)
cuda.synchronize()
t2 = time.perf_counter()
assert abs(float(b.copy_to_host()[0]) - float(np.tanh(np.float32(-1)))) < 1e-5
stats = getattr(activate, "stats", None)  # numba's kernel.stats, where the cache has it
hits = sum(stats.cache_hits.values()) if stats is not None else -1
print(json.dumps({"first": t1 - t0, "warm": t2 - t1, "hits": hits}))
'''


def cache_available():
    return importlib.util.find_spec("cuforge.cuda._cache") is not None


def cache_rows(runs):
    """Seconds of a first launch (load + launch - a warm launch): cache=False
    each time, cache=True the first time (stores), cache=True later (hits);
    and the files the first run left."""
    out = {}
    for label, cache in (("nocache", False), ("cache", True)):
        folder = pathlib.Path(tempfile.mkdtemp(prefix="bench_cache_"))
        try:
            salt = uuid.uuid4().hex
            (folder / "cached_kernel.py").write_text(
                CACHED.format(salt=salt, salt_int=int(salt[:12], 16), cache=cache))
            (folder / "driver.py").write_text(CACHE_DRIVER)
            env = dict(os.environ, CUFORGE_CACHE_DIR=str(folder / "cache"), PYTHONDONTWRITEBYTECODE="1")
            before = set(folder.rglob("*"))
            rows = [run_json([sys.executable, "driver.py"], folder, env)]
            stored = sorted(str(p.relative_to(folder)) for p in set(folder.rglob("*")) - before if p.is_file())
            if cache:
                out["store"] = rows[0]
                out["files"] = stored
                rows = []
            rows += [run_json([sys.executable, "driver.py"], folder, env) for _ in range(runs)]
            out[label] = medians(rows)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return out


def ms(s):
    return f"{s * 1e3:9.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numba-python", default=None, help="an interpreter with numba-cuda")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per measurement (median)")
    ap.add_argument("--skip-cache", action="store_true", help="leave out the disk-cache rows")
    args = ap.parse_args()
    numba_python = find_numba_python(args.numba_python)

    with tempfile.TemporaryDirectory(prefix="bench_compile_") as folder:
        _examples.stage_numba(folder, set(EXAMPLE_OF.values()))
        pathlib.Path(folder, "driver.py").write_text(DRIVER)
        results = compile_latency(folder, args.runs, numba_python)

    import cuforge

    print(f"bench/compile: compile_ptx for sm_90, median of {args.runs} fresh processes, milliseconds "
          f"(backend here: {cuforge.backend()})")
    print(f"numba-cuda: {numba_python or 'not found (pass --numba-python)'}")
    print(f"{'kernel':14}{'':7}{'ours':>9}{'numba':>9}{'ratio':>8}")
    verdicts = []
    for name, r in results.items():
        ours, theirs = r["ours"], r["numba"]
        for key, label in (("first", "cold"), ("warm", "warm"), ("import", "import")):
            line = f"{name if key == 'first' else '':14}{label:7}{ms(ours[key])}"
            if isinstance(theirs, dict):
                line += f"{ms(theirs[key])}{ours[key] / theirs[key]:8.3f}"
            print(line)
        if isinstance(theirs, dict):
            for key, label in (("first", "cold"), ("warm", "warm")):
                ratio = ours[key] / theirs[key]
                verdicts.append(f"{name} {label} {ratio:.3f}x ({'met' if ratio <= GOAL else 'NOT met'})")
        elif isinstance(theirs, str):
            print(f"{'':14}numba: {theirs}")
    for key, title in (("stages", "where our cold compile goes (ms; walker = AST -> IR, typer, "
                                  "codegen = LLVM opt + libdevice + NVPTX):"),
                       ("later_stages", "where a later compile goes (ms; lower+O3 = lowering, libdevice, LLVM's O3; "
                                        "NVPTX = the code generator, PTX out):")):
        print(title)
        for name, r in results.items():
            st = r[key]
            if isinstance(st, dict):
                total = sum(st.values())
                print(f"  {name:12}" + "  ".join(f"{k} {v * 1e3:.2f} ({v / total:.0%})" for k, v in st.items()))
            else:
                print(f"  {name:12}{st}")
    print(f"goal (issue 16): cold and later compiles at most {GOAL}x numba-cuda's:",
          "; ".join(verdicts) if verdicts else "numba-cuda not available")

    if args.skip_cache:
        return
    if not cache_available():
        print("disk cache (cache=True): not available (no cuforge.cuda._cache)")
        return
    try:
        c = cache_rows(args.runs)
    except RuntimeError as e:
        print(f"disk cache (cache=True): failed: {e}")
        return
    cold = c["nocache"]["first"] - c["nocache"]["warm"]
    store = c["store"]["first"] - c["store"]["warm"]
    hit = c["cache"]["first"] - c["cache"]["warm"]
    print("disk cache: first launch in a fresh process minus a warm launch (ms):")
    print(f"  cache=False {ms(cold)}   cache=True storing {ms(store)}   cache=True hit {ms(hit)}"
          f"   (warm launch {c['cache']['warm'] * 1e3:.3f})")
    print(f"  files the storing run left beside the source or in CUFORGE_CACHE_DIR: "
          f"{', '.join(c['files']) if c['files'] else 'none seen (stored elsewhere, or nothing stored)'}")
    if c["cache"]["hits"] == 0:
        print("  kernel.stats counted no cache hit in the later processes: nothing was loaded from the cache")
    elif hit > 0.8 * cold:
        print("  the hit is not faster than compiling: was anything loaded from the cache?")
    print(f"goal: a disk-cache hit under 2 ms: {hit * 1e3:.2f} ms ({'met' if hit < 0.002 else 'NOT met'}); "
          f"{cold / hit if hit > 0 else float('inf'):.1f}x faster than compiling")


if __name__ == "__main__":
    main()

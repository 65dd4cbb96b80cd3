"""The disk cache, ``@cuda.jit(cache=True)`` (docs/compiler.md, "Disk
cache"): a miss stores, a fresh process hits (without running the walker);
the key follows the source, the globals, the device functions called, the
options and the types; damaged entries and unusable folders never crash;
concurrent processes all succeed and leave one valid entry.

Kernels live in files written under tmp_path (the cache keys on a file's
source) and are loaded as fresh modules, so each load is new Python
functions, as in a new process."""

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import uuid
import warnings

import numpy as np
import pytest

import cuforge
from cuforge import _core, cuda
from cuforge.cuda import _cache

ENTRY_SUFFIX = ".cfk"

KERNELS = '''
import numpy as np
from cuforge import cuda

N = 3
WEIGHTS = np.array([1.0, 2.0, 4.0], dtype=np.float32)


@cuda.jit(device=True)
def bump(x):
    return x + N


@cuda.jit(cache=True)
def add_n(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = bump(x[i]) * WEIGHTS[i % 3]
'''


def expected_add_n(x, n=3, bump_extra=0, weights=(1.0, 2.0, 4.0)):
    w = np.array(weights, dtype=np.float32)[np.arange(x.size) % 3]
    return ((x + n + bump_extra) * w).astype(np.float32)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CUFORGE_CACHE_DIR", str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # a rewritten module is never read from a stale .pyc
    return folder


def write(path, source):
    path.write_text(textwrap.dedent(source))
    return path


def load(path):
    """A fresh module from ``path``: new function objects, as a new process has."""
    spec = importlib.util.spec_from_file_location(f"cuforge_cache_test_{uuid.uuid4().hex}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def entries(folder):
    return sorted(p for p in pathlib.Path(folder).rglob("*") if p.is_file())


def run_add_n(mod, x=None):
    x = np.arange(10, dtype=np.float32) if x is None else x
    out = np.zeros_like(x)
    mod.add_n[1, 32](out, x)
    return out


def hits_and_misses(kernel):
    s = kernel.stats
    return sum(s.cache_hits.values()), sum(s.cache_misses.values())


# --- storing and hitting ----------------------------------------------------------------------

DRIVER = '''
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from cuforge import cuda
from cuforge.cuda._compiler import walker
import kernels_mod
x = np.arange(10, dtype=np.float32)
out = np.zeros_like(x)
kernels_mod.add_n[1, 32](out, x)
s = kernels_mod.add_n.stats
print(json.dumps({"out": out.tolist(), "hits": sum(s.cache_hits.values()),
                  "misses": sum(s.cache_misses.values()), "walked": len(walker._built)}))
'''


def run_driver(tmp_path, env, driver=DRIVER):
    script = tmp_path / "driver.py"
    script.write_text(driver)
    r = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_a_miss_stores_and_a_fresh_process_hits_without_the_walker(tmp_path):
    write(tmp_path / "kernels_mod.py", KERNELS)
    env = dict(os.environ, CUFORGE_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    want = expected_add_n(np.arange(10, dtype=np.float32)).tolist()

    first = run_driver(tmp_path, env)
    assert (first["hits"], first["misses"]) == (0, 1) and first["out"] == want
    assert first["walked"] >= 1
    stored = entries(tmp_path / "cache")
    assert [p.suffix for p in stored] == [ENTRY_SUFFIX] and stored[0].name.startswith("kernels_mod.add_n-")

    second = run_driver(tmp_path, env)
    assert (second["hits"], second["misses"]) == (1, 0) and second["out"] == want
    assert second["walked"] == 0, "a hit built the IR: the key must not need the walker"
    assert entries(tmp_path / "cache") == stored


def test_default_folder_is_pycache_beside_the_source(tmp_path, monkeypatch):
    monkeypatch.delenv("CUFORGE_CACHE_DIR", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = write(tmp_path / "kernels_mod.py", KERNELS)
    mod = load(path)
    np.testing.assert_array_equal(run_add_n(mod), expected_add_n(np.arange(10, dtype=np.float32)))
    stored = entries(tmp_path / "__pycache__" / "cuforge")
    assert len(stored) == 1 and stored[0].suffix == ENTRY_SUFFIX
    assert mod.add_n.stats.cache_path == str(tmp_path / "__pycache__" / "cuforge")
    again = load(path)
    run_add_n(again)
    assert hits_and_misses(again.add_n) == (1, 0)


def test_falls_back_to_the_user_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("CUFORGE_CACHE_DIR", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    src = tmp_path / "src"
    src.mkdir()
    (src / "__pycache__").write_text("a file where the folder would go")
    mod = load(write(src / "kernels_mod.py", KERNELS))
    np.testing.assert_array_equal(run_add_n(mod), expected_add_n(np.arange(10, dtype=np.float32)))
    assert len(entries(tmp_path / "xdg" / "cuforge")) == 1
    again = load(src / "kernels_mod.py")
    run_add_n(again)
    assert hits_and_misses(again.add_n) == (1, 0)


def test_eager_signatures_load_from_the_cache(cache_dir, tmp_path):
    path = write(tmp_path / "eager_mod.py", '''
        from cuforge import cuda


        @cuda.jit("void(float32[::1], float32[::1])", cache=True)
        def twice(out, x):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = 2 * x[i]
        ''')
    first = load(path)
    assert hits_and_misses(first.twice) == (0, 1)
    second = load(path)
    assert hits_and_misses(second.twice) == (1, 0)
    x = np.arange(5, dtype=np.float32)
    out = np.zeros_like(x)
    second.twice[1, 8](out, x)
    np.testing.assert_array_equal(out, 2 * x)


def test_a_hit_still_shows_types_llvm_and_ptx(cache_dir, tmp_path):
    path = write(tmp_path / "kernels_mod.py", KERNELS)
    first = load(path)
    run_add_n(first)
    [cf_first] = first.add_n.definitions.values()
    second = load(path)
    run_add_n(second)
    assert hits_and_misses(second.add_n) == (1, 0)
    [cf] = second.add_n.definitions.values()
    assert cf.from_cache and not cf_first.from_cache
    assert cf.types_dump == cf_first.types_dump and "add_n" in cf.types_dump
    assert (cf.symbol, cf.writes_arg, cf.return_spec) == (cf_first.symbol, cf_first.writes_arg, "none")
    assert ".entry" in cf.ptx  # remade from the source on demand
    assert "define" in cf.llvm


def test_device_functions_and_plain_kernels_store_nothing(cache_dir, tmp_path):
    mod = load(write(tmp_path / "kernels_mod.py", KERNELS.replace("cache=True", "cache=False")))
    run_add_n(mod)
    cached_device = cuda.jit(device=True, cache=True)(mod.bump.py_func)
    assert cached_device.stats.cache_path is None and mod.add_n.stats.cache_path is None
    assert hits_and_misses(mod.add_n) == (0, 0)
    assert not cache_dir.exists() or entries(cache_dir) == []


# --- what the key follows ---------------------------------------------------------------------


@pytest.mark.parametrize("change, n, bump_extra, weights", [
    ("source", 3, 10, (1.0, 2.0, 4.0)),
    ("global", 7, 0, (1.0, 2.0, 4.0)),
    ("global array", 3, 0, (1.0, 2.0, 8.0)),
    ("device function", 3, 100, (1.0, 2.0, 4.0)),
])
def test_the_key_follows_source_globals_and_device_functions(cache_dir, tmp_path, change, n, bump_extra, weights):
    path = write(tmp_path / "kernels_mod.py", KERNELS)
    x = np.arange(10, dtype=np.float32)
    run_add_n(load(path), x)
    changed = {
        "source": KERNELS.replace("out[i] = bump(x[i])", "out[i] = bump(x[i] + 10)"),
        "global": KERNELS.replace("N = 3", "N = 7"),
        "global array": KERNELS.replace("[1.0, 2.0, 4.0]", "[1.0, 2.0, 8.0]"),
        "device function": KERNELS.replace("return x + N", "return x + N + 100"),
    }[change]
    assert changed != KERNELS
    write(path, changed)
    mod = load(path)
    np.testing.assert_array_equal(run_add_n(mod, x), expected_add_n(x, n, bump_extra, weights))
    assert hits_and_misses(mod.add_n) == (0, 1), f"a changed {change} must miss"
    assert len(entries(cache_dir)) == 1, "the new entry replaces the one it supersedes"
    # The changed kernel is now what is stored: a fresh load hits it.
    again = load(path)
    np.testing.assert_array_equal(run_add_n(again, x), expected_add_n(x, n, bump_extra, weights))
    assert hits_and_misses(again.add_n) == (1, 0)


@pytest.mark.parametrize("text, name, defined", [
    ("@cuda.jit\ndef kernel(a):\n    pass", "kernel", True),
    ("def  kernel  (a):", "kernel", True),
    ("def\tkernel\n(a):", "kernel", True),
    ("async def kernel(a):", "kernel", True),
    ("def kernel_two(a):", "kernel", False),  # another function's name that begins with it
    ("def other(a):\n    kernel(a)", "kernel", False),  # a call, not a definition
    ("undef kernel(a)", "kernel", False),  # "def" inside a word
    ("x = default\ndef kernel(a):", "kernel", True),  # after a word that holds "def"
    ("defkernel(a):", "kernel", False),  # no blank after def
    ("def kernel", "kernel", False),  # no parenthesis
    ("def k\u00e9rnel(a):", "k\u00e9rnel", True),
    ("\u00e9def kernel(a):", "kernel", False),  # a word character before def, not ASCII
    ("f = lambda a: a", "<lambda>", True),
    ("def f(a): return a", "<lambda>", False),
])
def test_the_source_identity_finds_the_functions_definition(text, name, defined):
    # The scan matches what the regular expression it replaced matched.
    assert _cache._defines(text, name) is defined
    if name != "<lambda>":
        assert (re.search(r"\bdef\s+" + re.escape(name) + r"\s*\(", text) is not None) is defined


def test_moving_a_kernel_to_another_line_recompiles_and_replaces_its_entry(cache_dir, tmp_path):
    # Line numbers are in the code (assert messages, line info).
    path = write(tmp_path / "kernels_mod.py", KERNELS)
    run_add_n(load(path))
    [old] = entries(cache_dir)
    write(path, "\n\n" + KERNELS)
    mod = load(path)
    np.testing.assert_array_equal(run_add_n(mod), expected_add_n(np.arange(10, dtype=np.float32)))
    assert hits_and_misses(mod.add_n) == (0, 1)
    [new] = entries(cache_dir)
    assert new != old


def test_the_key_follows_an_attribute_of_a_module_global(cache_dir, tmp_path):
    write(tmp_path / "cfg_mod_for_cache.py", "BLOCK = 2\n")
    source = '''
        import sys
        sys.path.insert(0, {folder!r})
        import cfg_mod_for_cache as cfg
        from cuforge import cuda


        @cuda.jit(cache=True)
        def scaled(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = i * cfg.BLOCK
        '''.format(folder=str(tmp_path))
    path = write(tmp_path / "attr_mod.py", source)
    out = np.zeros(4, dtype=np.int64)
    first = load(path)
    first.scaled[1, 4](out)
    assert out.tolist() == [0, 2, 4, 6]
    import cfg_mod_for_cache

    cfg_mod_for_cache.BLOCK = 5  # the module global the kernel reads through an attribute
    try:
        second = load(path)
        second.scaled[1, 4](out)
        assert out.tolist() == [0, 5, 10, 15] and hits_and_misses(second.scaled) == (0, 1)
    finally:
        del sys.modules["cfg_mod_for_cache"]


def test_the_key_follows_kernel_side_names_imported_directly(cache_dir, tmp_path):
    # The kernel's own lines are the same; only what `index` names changes.
    body = '''
        from cuforge.cuda import {what} as index


        @cuda.jit(cache=True)
        def where(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = index(1)
        '''
    head = "from cuforge import cuda\n"
    path = tmp_path / "stub_mod.py"
    write(path, head + textwrap.dedent(body.format(what="grid")))
    out = np.zeros(6, dtype=np.int64)
    load(path).where[2, 3](out)
    assert out.tolist() == [0, 1, 2, 3, 4, 5]
    write(path, head + textwrap.dedent(body.format(what="gridsize")))
    mod = load(path)
    mod.where[2, 3](out)
    assert out.tolist() == [6] * 6 and hits_and_misses(mod.where) == (0, 1)


def test_the_key_follows_options_and_types(cache_dir, tmp_path):
    path = write(tmp_path / "kernels_mod.py", KERNELS)
    run_add_n(load(path))
    assert len(entries(cache_dir)) == 1
    fast = load(path)
    fast_kernel = cuda.jit(cache=True, fastmath=True)(fast.add_n.py_func)
    x = np.arange(10, dtype=np.float32)
    out = np.zeros_like(x)
    fast_kernel[1, 32](out, x)
    assert hits_and_misses(fast_kernel) == (0, 1)
    np.testing.assert_allclose(out, expected_add_n(x))
    other_types = load(path)
    x64 = np.arange(10, dtype=np.float64)
    out64 = np.zeros_like(x64)
    other_types.add_n[1, 32](out64, x64)
    assert hits_and_misses(other_types.add_n) == (0, 1)
    np.testing.assert_allclose(out64, expected_add_n(x64))
    assert len(entries(cache_dir)) == 3
    names = {p.name for p in entries(cache_dir)}
    assert all(n.startswith("kernels_mod.add_n-") for n in names)
    # Each is its own entry: all three hit now.
    again = load(path)
    again.add_n[1, 32](out, x)
    again.add_n[1, 32](out64, x64)
    fast_again = cuda.jit(cache=True, fastmath=True)(again.add_n.py_func)
    fast_again[1, 32](out, x)
    assert hits_and_misses(again.add_n) == (2, 0) and hits_and_misses(fast_again) == (1, 0)


def test_the_key_covers_what_decides_the_code(cache_dir, tmp_path):
    mod = load(write(tmp_path / "kernels_mod.py", KERNELS))
    cache = mod.add_n._disk_cache
    config = _core.CompileConfig().for_active_backend()
    key = cache.key(["array(float32, 1d, C)"] * 2, None, config)
    assert set(key) >= {"source", "file", "line", "args", "config", "compiler", "python"}
    # The configuration's key names the target: the GPU, or this CPU.
    assert key["config"] == config.key
    assert key["config"].startswith("nvptx sm_" if cuforge.backend() == "cuda" else "host ")
    if cuforge.backend() != "cuda":
        assert _core.host_target_id() in key["config"]
    assert "build" in key["compiler"] and "walker.py" in key["compiler"]
    assert key["python"] == sys.implementation.cache_tag
    other = cache.key(["array(float32, 1d, C)"] * 2, None, _core.CompileConfig(fastmath=True).for_active_backend())
    assert cache.file_name(key) != cache.file_name(other)


# --- damaged entries and unusable folders -------------------------------------------------------


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "empty", "garbage", "other format"])
def test_damaged_entries_are_recompiled_and_replaced(cache_dir, tmp_path, damage):
    path = write(tmp_path / "kernels_mod.py", KERNELS)
    run_add_n(load(path))
    [entry] = entries(cache_dir)
    blob = bytearray(entry.read_bytes())
    if damage == "flip a byte":
        blob[len(blob) // 2] ^= 0x40
    elif damage == "truncate":
        blob = blob[:len(blob) * 2 // 3]
    elif damage == "empty":
        blob = bytearray()
    elif damage == "garbage":
        blob = bytearray(os.urandom(len(blob)))
    else:  # intact, but written by another version of the format
        body = blob[:-_cache._DIGEST]
        body[len(_cache._MAGIC):len(_cache._MAGIC) + 4] = (_cache.FORMAT_VERSION + 1).to_bytes(4, "little")
        blob = body + _cache._mac(bytes(body), _cache.secret_key())
    entry.write_bytes(bytes(blob))

    mod = load(path)
    np.testing.assert_array_equal(run_add_n(mod), expected_add_n(np.arange(10, dtype=np.float32)))
    assert hits_and_misses(mod.add_n) == (0, 1)
    assert entries(cache_dir) == [entry] and entry.read_bytes() != bytes(blob)
    again = load(path)
    run_add_n(again)
    assert hits_and_misses(again.add_n) == (1, 0)


def test_an_entry_whose_code_will_not_load_is_a_miss(cache_dir, tmp_path):
    # Intact (checksum rewritten) but its code is not an object file / PTX.
    path = write(tmp_path / "kernels_mod.py", KERNELS)
    run_add_n(load(path))
    [entry] = entries(cache_dir)
    header, code = _cache._decode(entry.read_bytes(), _cache.secret_key())
    entry.write_bytes(_cache._encode(header, b"\x7fELF not really an object file", _cache.secret_key()))
    mod = load(path)
    np.testing.assert_array_equal(run_add_n(mod), expected_add_n(np.arange(10, dtype=np.float32)))
    assert hits_and_misses(mod.add_n) == (0, 1)


def test_an_unusable_cache_folder_warns_and_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("CUFORGE_CACHE_DIR", str(blocker / "cache"))  # cannot be made, even by root
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    mod = load(write(tmp_path / "kernels_mod.py", KERNELS))
    with pytest.warns(cuda.CacheWarning, match="no private, writable cache folder .*cannot be made"):
        out = run_add_n(mod)
    np.testing.assert_array_equal(out, expected_add_n(np.arange(10, dtype=np.float32)))
    assert hits_and_misses(mod.add_n) == (0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once per kernel
        mod.add_n[1, 32](np.zeros(3, dtype=np.float64), np.zeros(3, dtype=np.float64))


def test_a_failed_write_warns_and_the_kernel_still_runs(cache_dir, tmp_path, monkeypatch):
    mod = load(write(tmp_path / "kernels_mod.py", KERNELS))
    real_open = os.open

    def refusing(path, *args, **kwargs):
        if str(path).endswith(".tmp"):
            raise OSError(28, "No space left on device")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(_cache.os, "open", refusing)
    with pytest.warns(_cache.CacheWarning, match="No space left"):
        out = run_add_n(mod)
    np.testing.assert_array_equal(out, expected_add_n(np.arange(10, dtype=np.float32)))
    assert entries(cache_dir) == []


# --- concurrent processes ---------------------------------------------------------------------


def test_concurrent_processes_all_succeed_and_leave_one_valid_entry(tmp_path):
    write(tmp_path / "kernels_mod.py", KERNELS)
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    env = dict(os.environ, CUFORGE_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(4)]
    want = expected_add_n(np.arange(10, dtype=np.float32)).tolist()
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        got = json.loads(out.strip().splitlines()[-1])
        assert got["out"] == want and got["hits"] + got["misses"] == 1
    stored = entries(tmp_path / "cache")
    assert len(stored) == 1 and stored[0].suffix == ENTRY_SUFFIX, stored  # no temporaries left behind
    header, _ = _cache._decode(stored[0].read_bytes(), _cache.secret_key())  # whole and intact
    assert header["key"]["function"] == "add_n" and header["key"]["file"].endswith("kernels_mod.py")
    after = run_driver(tmp_path, env)
    assert (after["hits"], after["misses"]) == (1, 0) and after["out"] == want


def test_a_ptx_entry_carries_the_gpu_code_and_the_launcher_facts(cache_dir, tmp_path):
    # What a GPU stores: PTX and the facts, loaded without the typer or codegen.
    mod = load(write(tmp_path / "kernels_mod.py", KERNELS))
    specs = ["array(float32, 1d, C)"] * 2
    compiled = mod.add_n._compile_specs(specs)
    facts = {"symbol": compiled.symbol, "writes_arg": compiled.writes_arg, "uses_barrier": compiled.uses_barrier,
             "cooperative": compiled.cooperative, "return_spec": compiled.return_spec,
             "types_dump": compiled.types_dump, "raise_sites": []}
    ptx = compiled.ptx
    cf = _core.load_compiled("ptx", facts, ptx.encode(), specs, _core.CompileConfig(target="nvptx"), False)
    assert cf.from_cache and cf.ptx == ptx and cf.symbol == compiled.symbol
    assert cf.writes_arg == [True, False] and cf.arg_specs == specs and cf.types_dump == compiled.types_dump
    for kind, bad_facts, code in [("ptx", facts, b""), ("cubin", facts, ptx.encode()),
                                  ("ptx", {**facts, "writes_arg": [True]}, ptx.encode()),
                                  ("ptx", {k: v for k, v in facts.items() if k != "symbol"}, ptx.encode()),
                                  ("ptx", {**facts, "return_spec": "no such type"}, ptx.encode())]:
        with pytest.raises((ValueError, KeyError)):
            _core.load_compiled(kind, bad_facts, code, specs, _core.CompileConfig(target="nvptx"), False)

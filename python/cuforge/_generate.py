"""What the high-level APIs share (vectorize, guvectorize, cuda.reduce and
cuda.scan, the host jit and its prange split): generated source the
compiler reads as any function, and host-only code compiled from it
(docs/high_level.md)."""

from __future__ import annotations

import hashlib
import linecache
import re
import threading

from cuforge import _core, _log
from cuforge import types as cftypes

_lock = threading.Lock()


def generated(source, name, namespace):
    """Function ``name`` defined by ``source``, readable by the compiler (its
    lines are in linecache under a name made from the text, the same in
    every process: the disk cache's key holds it)."""
    clean = re.sub(r"\W", "_", name)  # a lambda's "<lambda>" is no identifier
    source, name = source.replace(name, clean), clean
    filename = f"<cuforge-generated {name} {hashlib.sha256(source.encode()).hexdigest()[:16]}>"
    with _lock:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def host_config(fastmath=False, boundscheck=False, error_model="numpy"):
    """The configuration of host-only code: the host target, host-only
    functions (random.random) allowed, Numba's ``error_model``."""
    from cuforge.cuda._jit import CompileOptions

    return CompileOptions(fastmath=fastmath, boundscheck=boundscheck).host_config(error_model)


def compile_host(pyfunc, specs, cache_for=None, config=None, owner=None):
    """``pyfunc`` (a generated loop or entry) compiled as host-only code; with
    ``cache_for`` (the user's function), through the disk cache, in the
    folder that function's file gives (as cuda.jit(cache=True) kernels).
    ``owner``: the user's function it is made for (the log names it)."""
    from cuforge.cuda._compiler import build_ir

    config = config if config is not None else host_config()
    started = _log.now()
    named = owner if owner is not None else cache_for if cache_for is not None else pyfunc

    def fresh():
        return _core.compile(build_ir(pyfunc), list(specs), config, False, None)

    if cache_for is None:
        cf = fresh()
        _log.compiled("host function", named, specs, config, started, "off")
        return cf
    from cuforge.cuda import _cache

    cache = _cache.DiskCache(pyfunc)
    cache._candidates = _cache.cache_dir_candidates(cache_for.__code__.co_filename)
    cf = cache.load(list(specs), None, config, fresh)
    if cf is not None:
        _log.compiled("host function", named, specs, config, started, "hit")
        return cf
    cf = fresh()
    cache.save(list(specs), None, config, cf)
    _log.compiled("host function", named, specs, config, started, "miss, stored")
    return cf


def return_type(pyfunc, specs, config=None):
    """The type ``pyfunc`` returns for arguments of these type specs (typed as
    a device function of host-only code)."""
    from cuforge.cuda._compiler import build_ir

    compiled = _core.compile(build_ir(pyfunc), list(specs), config or host_config(), True, None)
    return cftypes.from_spec(compiled.return_spec)

"""External memory managers (numba's EMM plugin interface; issue 18 items 1
and 5): a plugin serves every device allocation cuforge makes and gets
every one back; bad plugins are refused with errors that name the problem.

A plugin is set once per process, before anything is allocated, so each
scenario runs in its own process (emm_child.py, with the plugins of
emm_plugins.py) and prints what it saw."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from cuforge import cuda

HERE = pathlib.Path(__file__).resolve().parent


def run(scenario, **env):
    child_env = {**os.environ, **env, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(HERE / "emm_child.py"), scenario], capture_output=True, text=True,
                          timeout=300, env=child_env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def balanced(ledger):
    assert ledger["errors"] == []
    assert ledger["live"] == 0
    assert ledger["allocs"] == ledger["frees"] > 0


def test_every_device_allocation_goes_through_the_plugin_and_comes_back():
    seen = run("count")
    during, held, after = seen["during"], seen["held"], seen["after"]
    # to_device, device_array_like, the launch's copy of a NumPy argument (in and
    # out), the reduction's scratch, device_array, and the context's memalloc.
    assert during["allocs"] >= 7
    # While the arrays were alive, the plugin held them: d and out (80000 bytes
    # each), e (48) and the context's memalloc (1000).
    assert held["live"] >= 4
    assert held["live_sizes"].count(80000) >= 2 and 48 in held["live_sizes"] and 1000 in held["live_sizes"]
    assert 80000 in during["sizes"] and 1000 in during["sizes"]
    balanced(after)
    assert after["allocs"] == during["allocs"]  # nothing allocated outside the plugin afterwards
    assert seen["initialized"] == 1  # one instance per device (one device here), initialised once
    assert seen["manager"] == "Counting"
    free, total = seen["info"]
    assert 0 < free <= total  # get_memory_info comes from the plugin


def test_defer_cleanup_holds_the_plugins_frees_and_close_resets_it():
    seen = run("defer_and_close")
    assert seen["inside"] == 0  # 30 arrays dropped, none returned inside the scope
    balanced(seen["after"])
    assert seen["after"]["allocs"] == 30
    assert seen["resets"] == 1
    assert seen["values"] == [0.0, 1.0, 2.0]
    assert seen["allocs_after_close"] == 31


def test_pinned_and_mapped_host_memory_go_through_a_plugin_that_overrides_memhostalloc():
    seen = run("host")
    assert seen["ok"]
    assert seen["during"]["allocs"] == 2 and seen["during"]["live"] == 2
    balanced(seen["after"])


def test_environment_variable_names_the_plugin_module():
    for var in ("CUFORGE_MEMORY_MANAGER", "NUMBA_CUDA_MEMORY_MANAGER"):
        seen = run("environment", **{var: "emm_plugins"})
        assert seen["manager"] == "Counting", var
        balanced(seen["after"])


def test_environment_variable_naming_a_missing_module_is_a_clear_error():
    done = subprocess.run([sys.executable, str(HERE / "emm_child.py"), "environment"], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "CUFORGE_MEMORY_MANAGER": "no_such_plugin_mod"})
    assert done.returncode != 0
    assert "Failed to use memory manager from no_such_plugin_mod (CUFORGE_MEMORY_MANAGER)" in done.stderr
    assert "No module named 'no_such_plugin_mod'" in done.stderr


def test_an_rmm_style_resource_serves_allocations_without_numba():
    seen = run("resource")
    assert seen["during"]["allocs"] >= 7
    assert 1000 in seen["during"]["sizes"]  # current_context().memalloc goes through it too
    balanced(seen["after"])


def test_a_plugin_that_raises_gives_its_error_naming_the_call_and_leaks_nothing():
    seen = run("raising")
    assert seen["type"] == "RuntimeError" and seen["text"] == "plugin says no"
    assert any("Raising.memalloc(800)" in note for note in seen["notes"])
    balanced(seen["after"])


def test_a_plugin_returning_too_little_memory_is_refused_and_the_memory_returned():
    seen = run("short")
    assert seen["type"] == "RuntimeError"
    assert "Short.memalloc(8000) returned MemoryPointer of 4000 bytes, fewer than asked for" in seen["text"]
    balanced(seen["after"])


def test_bad_plugins_and_a_late_plugin_are_refused():
    seen = run("refusals")
    assert seen["not_a_class"][0] == "TypeError" and "memory manager class" in seen["not_a_class"][1]
    assert seen["incomplete"][0] == "TypeError" and "lacks memhostalloc" in seen["incomplete"][1]
    assert seen["version"] == ["RuntimeError", "EMM Plugin interface has version 2 - version 1 required (Version2)"]
    assert seen["abstract"][0] == "TypeError" and "does not implement get_ipc_handle" in seen["abstract"][1]
    assert seen["after_alloc"][0] == "RuntimeError"
    assert "must be set before memory is allocated: 1 device allocation(s)" in seen["after_alloc"][1]
    assert seen["after_free"] is None  # once they are gone, it may be set
    assert seen["works"] == [0.0, 1.0, 2.0, 3.0, 4.0]
    balanced(seen["ledger"])


def test_a_plugin_written_for_numba_works_unchanged():
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (the GPU image has it)")
    seen = run("numba_plugin")
    balanced(seen["after"])


def test_the_ipc_mixin_exports_plugin_memory():
    seen = run("ipc_through_plugin")
    assert seen == {"handle": "IpcHandle", "size": 64}


# --- the pointer objects and the context's calls, in this process ----------------


def test_memory_pointer_views_memset_and_free():
    freed = []
    ctx = cuda.current_context()
    raw = ctx.memalloc(256)
    mem = cuda.MemoryPointer(ctx, raw.device_pointer, 256, finalizer=lambda: freed.append(1))
    assert mem.device_pointer_value == raw.device_pointer and mem.owner is mem
    view = mem.view(16, 48)
    assert view.size == 32 and view.device_pointer == raw.device_pointer + 16 and view.owner is mem
    mem.memset(7)
    host = np.empty(256, np.uint8)
    from cuforge import _core

    _core.copy_address(host.ctypes.data, raw.device_pointer, 256)
    assert (host == 7).all()
    with pytest.raises(ValueError, match="view"):
        mem.view(10, 300)
    mem.free()
    assert freed == [1]
    with pytest.raises(RuntimeError, match="already freed"):
        mem.free()
    del raw


def test_default_context_calls_use_cuforges_own_memory():
    ctx = cuda.current_context()
    assert type(ctx.memory_manager).__name__ == "_CuforgeMemoryManager"
    info = ctx.get_memory_info()
    assert isinstance(info, cuda.MemoryInfo) and 0 < info.free <= info.total
    pinned = ctx.memhostalloc(64)
    mapped = ctx.memhostalloc(64, mapped=True)
    assert isinstance(pinned, cuda.PinnedMemory) and pinned.host_pointer
    assert isinstance(mapped, cuda.MappedMemory) and mapped.device_pointer and mapped.host_pointer
    host = np.zeros(32, np.int32)
    pin = ctx.mempin(host, host.ctypes.data, host.nbytes, mapped=True)
    assert isinstance(pin, cuda.MappedMemory) and pin.device_pointer
    with ctx.defer_cleanup():
        pass
    del pin


def test_plugin_classes_are_numbas_names():
    import cuforge.cuda as c

    for name in ("BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager", "GetIpcHandleMixin", "MemoryPointer",
                 "MappedMemory", "PinnedMemory", "MemoryInfo", "IpcHandle", "set_memory_manager"):
        assert hasattr(c, name), name
    assert issubclass(cuda.HostOnlyCUDAMemoryManager, cuda.BaseCUDAMemoryManager)


@pytest.mark.gpu
def test_rmm_numba_manager_works_unchanged():
    rmm_numba = pytest.importorskip("rmm.allocators.numba")
    done = subprocess.run([sys.executable, str(HERE / "rmm_child.py")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "ok", done.stdout
    del rmm_numba

"""One scenario of test_memory_manager.py per run, in a fresh process (a
plugin is set before anything is allocated, once per process): prints one
JSON line of what it saw. `python emm_child.py SCENARIO`."""

import gc
import json
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import emm_plugins  # noqa: E402
from emm_plugins import HOST_LEDGER, LEDGER  # noqa: E402

from cuforge import cuda  # noqa: E402


def settle():
    gc.collect()
    cuda.synchronize()
    gc.collect()
    cuda.synchronize()


@cuda.jit
def scale(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * 2


def workload():
    """Every path that allocates device memory, with the values checked;
    returns the ledger as it stood while the arrays were alive (whether the
    launch's copies and the reduction's scratch are back yet depends on
    when the deferred frees flush)."""
    a = np.arange(10_000, dtype=np.float64)
    d = cuda.to_device(a)
    out = cuda.device_array_like(d)
    scale[40, 256](d, out)
    assert np.array_equal(out.copy_to_host(), a * 2)
    host_out = np.zeros_like(a)
    scale[40, 256](a, host_out)  # NumPy arguments: copies made for the launch
    assert np.array_equal(host_out, a * 2)
    total = cuda.reduce(lambda x, y: x + y)(a)  # reduction scratch
    assert total == a.sum()
    e = cuda.device_array((3, 4), np.int32)
    e.copy_to_device(np.ones((3, 4), np.int32))
    view = e[1:, ::2]
    assert view.copy_to_host().sum() == 4
    mem = cuda.current_context().memalloc(1000)  # the context's own call
    assert mem.size >= 1000 and mem.device_pointer
    held = LEDGER.summary()
    del d, out, e, view, mem
    return held


@cuda.jit
def fill_scalar(x):
    pass


def scenario_count():
    # A kernel already launched (its error record is cuforge's own mapped
    # memory) does not stand in the way; only live device allocations do.
    fill_scalar[1, 1](1.0)
    cuda.synchronize()
    cuda.set_memory_manager(emm_plugins.Counting)
    held = workload()
    during = LEDGER.summary()
    settle()
    return {"during": during, "held": held, "after": LEDGER.summary(), "initialized": emm_plugins.Counting.initialized,
            "info": list(cuda.current_context().get_memory_info()),
            "manager": type(cuda.current_context().memory_manager).__name__}


def scenario_defer_and_close():
    cuda.set_memory_manager(emm_plugins.Counting)
    ctx = cuda.current_context()
    resets = []
    ctx.memory_manager.reset = lambda: resets.append(1)  # what cuda.close() must call
    with ctx.defer_cleanup():
        for _ in range(30):  # past the deferred queue's count threshold
            a = cuda.device_array(64)
            del a
        gc.collect()
        inside = LEDGER.summary()["frees"]
    settle()
    after = LEDGER.summary()
    cuda.close()
    b = cuda.to_device(np.arange(3.0))  # a new context: the plugin still serves
    values = b.copy_to_host().tolist()
    return {"inside": inside, "after": after, "resets": len(resets), "values": values,
            "allocs_after_close": LEDGER.summary()["allocs"]}


def scenario_host():
    cuda.set_memory_manager(emm_plugins.CountingWithHost)
    p = cuda.pinned_array(100, np.float32)
    m = cuda.mapped_array(50, np.int64)
    p[:] = 1
    m[:] = np.arange(50)

    @cuda.jit
    def bump(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1

    bump[1, 64](m)
    cuda.synchronize()
    ok = bool(p.sum() == 100 and np.array_equal(m, np.arange(50) + 1))
    during = HOST_LEDGER.summary()
    del p, m
    settle()
    return {"ok": ok, "during": during, "after": HOST_LEDGER.summary()}


def scenario_raising():
    cuda.set_memory_manager(emm_plugins.Raising)
    kept = [cuda.device_array(100), cuda.device_array(100)]
    out = {}
    try:
        cuda.device_array(100)
    except Exception as e:  # the plugin's own exception, with a note naming the call
        out["type"] = type(e).__name__
        out["text"] = str(e)
        out["notes"] = getattr(e, "__notes__", [])
    del kept
    settle()
    out["after"] = LEDGER.summary()
    return out


def scenario_short():
    cuda.set_memory_manager(emm_plugins.Short)
    out = {}
    try:
        cuda.device_array(1000, np.float64)
    except Exception as e:
        out["type"] = type(e).__name__
        out["text"] = str(e)
    settle()
    out["after"] = LEDGER.summary()
    return out


def _error(fn):
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None


def scenario_refusals():
    out = {
        "not_a_class": _error(lambda: cuda.set_memory_manager(emm_plugins.Counting.memalloc)),
        "incomplete": _error(lambda: cuda.set_memory_manager(emm_plugins.Incomplete)),
        "version": _error(lambda: cuda.set_memory_manager(emm_plugins.Version2)),
        "abstract": _error(lambda: cuda.set_memory_manager(type("Half", (cuda.HostOnlyCUDAMemoryManager,),
                                                               {"memalloc": lambda self, n: None}))),
    }
    held = cuda.device_array(10)
    out["after_alloc"] = _error(lambda: cuda.set_memory_manager(emm_plugins.Counting))
    del held
    settle()
    out["after_free"] = _error(lambda: cuda.set_memory_manager(emm_plugins.Counting))
    x = cuda.to_device(np.arange(5.0))
    out["works"] = x.copy_to_host().tolist()
    del x
    settle()
    out["ledger"] = LEDGER.summary()
    return out


def scenario_environment():
    # CUFORGE_MEMORY_MANAGER / NUMBA_CUDA_MEMORY_MANAGER=emm_plugins was set by the test.
    workload()
    settle()
    return {"manager": type(cuda.current_context().memory_manager).__name__, "after": LEDGER.summary()}


def scenario_resource():
    mr = emm_plugins.FakeResource()
    cuda.set_memory_resource(mr)
    workload()
    during = mr.ledger.summary()
    settle()
    return {"during": during, "after": mr.ledger.summary()}


def scenario_ipc_through_plugin():
    # The default GetIpcHandleMixin exports plugin memory that the runtime can share.
    cuda.set_memory_manager(emm_plugins.Counting)
    mem = cuda.current_context().memalloc(64)
    try:
        handle = cuda.current_context().get_ipc_handle(mem)
        return {"handle": type(handle).__name__, "size": handle.size}
    except Exception as e:
        return {"error": [type(e).__name__, str(e)]}


def scenario_numba_plugin():
    # A plugin written against numba's own classes, as RMM's RMMNumbaManager
    # is: numba's HostOnlyCUDAMemoryManager and MemoryPointer.
    from numba.cuda import HostOnlyCUDAMemoryManager as NumbaHostOnly
    from numba.cuda import MemoryPointer as NumbaPointer

    from cuforge.cuda.cudadrv import driver

    class NumbaStyle(NumbaHostOnly):
        def initialize(self):
            pass

        def memalloc(self, size):
            address = driver.driver.cuMemAlloc(size)
            LEDGER.alloc(address, size)

            def finalize():
                driver.driver.cuMemFree(address)
                LEDGER.free(address, size)

            return NumbaPointer(self.context, address, size, finalizer=finalize)

        def get_ipc_handle(self, memory):
            raise NotImplementedError

        def get_memory_info(self):
            return (1, 2)

        @property
        def interface_version(self):
            return 1

    cuda.set_memory_manager(NumbaStyle)
    workload()
    settle()
    return {"after": LEDGER.summary()}


if __name__ == "__main__":
    result = globals()["scenario_" + sys.argv[1]]()
    print(json.dumps(result))

"""Memory manager plugins for test_memory_manager.py, written as numba-cuda
users write them (importable by name: CUFORGE_MEMORY_MANAGER=emm_plugins).

``Counting`` serves device memory from the driver's raw allocations and
checks every request: each allocation is recorded with its size, each free
(the finalizer numba's interface runs) must match one, exactly once."""

import threading

from cuforge import cuda
from cuforge.cuda.cudadrv import driver


class Ledger:
    """What a plugin handed out and took back."""

    def __init__(self):
        self.lock = threading.Lock()
        self.live = {}  # address -> size
        self.allocs = 0
        self.frees = 0
        self.bytes = 0
        self.sizes = []
        self.errors = []

    def alloc(self, address, size):
        with self.lock:
            if address in self.live:
                self.errors.append(f"0x{address:x} handed out twice")
            self.live[address] = size
            self.allocs += 1
            self.bytes += size
            self.sizes.append(size)

    def free(self, address, size):
        with self.lock:
            if self.live.pop(address, None) != size:
                self.errors.append(f"free of 0x{address:x} ({size} bytes) that is not live")
            self.frees += 1

    def summary(self):
        with self.lock:
            return {"allocs": self.allocs, "frees": self.frees, "live": len(self.live), "bytes": self.bytes,
                    "errors": list(self.errors), "sizes": list(self.sizes), "live_sizes": sorted(self.live.values())}


LEDGER = Ledger()
HOST_LEDGER = Ledger()


def _finalizer(ledger, address, size):
    def finalize():
        driver.driver.cuMemFree(address)
        ledger.free(address, size)

    return finalize


class Counting(cuda.HostOnlyCUDAMemoryManager):
    """Device memory through the raw driver calls, every request counted."""

    initialized = 0

    def initialize(self):
        type(self).initialized += 1

    def memalloc(self, size):
        address = driver.driver.cuMemAlloc(size)
        LEDGER.alloc(address, size)
        return cuda.MemoryPointer(self.context, address, size, finalizer=_finalizer(LEDGER, address, size))

    def get_memory_info(self):
        free, total = driver.driver.cuMemGetInfo()
        return cuda.MemoryInfo(free=free, total=total)

    def get_ipc_handle(self, memory):
        return cuda.GetIpcHandleMixin.get_ipc_handle(self, memory)

    @property
    def interface_version(self):
        return 1


class CountingWithHost(Counting):
    """Counting, and pinned/mapped host memory through the base class,
    counted too (a plugin that overrides memhostalloc)."""

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        mem = super().memhostalloc(size, mapped, portable, wc)
        HOST_LEDGER.alloc(mem.host_pointer, size)
        import weakref

        weakref.finalize(mem, HOST_LEDGER.free, mem.host_pointer, size)
        return mem


class Raising(Counting):
    """memalloc fails after `budget` allocations."""

    budget = 2

    def memalloc(self, size):
        if type(self).budget <= 0:
            raise RuntimeError("plugin says no")
        type(self).budget -= 1
        return super().memalloc(size)


class Short(Counting):
    """Hands out less memory than asked for."""

    def memalloc(self, size):
        mem = super().memalloc(max(size // 2, 1))
        return mem


class Version2(Counting):
    @property
    def interface_version(self):
        return 2


class Incomplete:
    """Not a memory manager: lacks most of the interface."""

    def memalloc(self, size):
        raise AssertionError("never called")


class FakeResource:
    """An RMM-style memory resource: allocate(nbytes) / deallocate(ptr, nbytes)."""

    def __init__(self):
        self.ledger = Ledger()

    def allocate(self, nbytes, stream=None):
        address = driver.driver.cuMemAlloc(nbytes)
        self.ledger.alloc(address, nbytes)
        return address

    def deallocate(self, ptr, nbytes, stream=None):
        self.ledger.free(ptr, nbytes)
        driver.driver.cuMemFree(ptr)


# The names CUFORGE_MEMORY_MANAGER / NUMBA_CUDA_MEMORY_MANAGER look for.
_cuforge_memory_manager = Counting
_numba_memory_manager = Counting

"""What the child processes of test_ipc.py run (multiprocessing's spawn
imports this module by name in each child). Each puts its findings on a
queue; an exception is put as ("error", type name, text)."""

import os
import traceback

import numpy as np

from cuforge import cuda


def _report(queue, fn, *args):
    try:
        queue.put(fn(*args))
    except BaseException as e:  # noqa: BLE001 - reported to the parent, which asserts on it
        queue.put(("error", type(e).__name__, str(e), traceback.format_exc()))


@cuda.jit
def _negate(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = -a[i]


def _read_and_negate(handle):
    with handle as arr:
        seen = arr.copy_to_host()
        _negate[(arr.size + 255) // 256, 256](arr.reshape(arr.size) if arr.ndim > 1 else arr)
        cuda.synchronize()
    return ("ok", seen.tolist(), str(seen.dtype), list(seen.shape))


def read_and_negate(handle, queue):
    """Opens an IpcArrayHandle, reads it, negates it in place with a kernel."""
    _report(queue, _read_and_negate, handle)


def _open_raw(ipc_handle, shape, dtype, offset):
    with cuda.open_ipc_array(ipc_handle, shape, dtype, offset=offset) as arr:
        return ("ok", arr.copy_to_host().tolist())


def open_raw(ipc_handle, shape, dtype, offset, queue):
    """cuda.open_ipc_array over an IpcHandle, at an offset."""
    _report(queue, _open_raw, ipc_handle, shape, dtype, offset)


def _open_pointer(ipc_handle):
    mem = ipc_handle.open(cuda.current_context())
    try:
        twice_open = None
        try:
            ipc_handle.open(cuda.current_context())
        except ValueError as e:
            twice_open = str(e)
        return ("ok", mem.size, bool(mem.device_pointer), twice_open)
    finally:
        ipc_handle.close()


def open_pointer(ipc_handle, queue):
    """IpcHandle.open() / close(), and a second open of the same handle."""
    _report(queue, _open_pointer, ipc_handle)


def crash_holding(handle, queue):
    """Opens a handle, says so, and dies without closing it."""
    arr = handle.open()
    arr[:1] = np.full(1, 99, dtype=arr.dtype)  # noqa: F841 - a write through the mapping, then death
    cuda.synchronize()
    queue.put("opened")
    queue.close()
    queue.join_thread()  # the message is out before the process dies
    os._exit(3)


def open_only(handle, queue):
    """Tries to open a handle (memory that may be gone)."""
    def attempt():
        with handle as arr:
            return ("ok", arr.copy_to_host().tolist())

    _report(queue, attempt)


def receive_array(array, queue):
    """A pickled DeviceNDArray arrives as a device array with its values."""
    _report(queue, lambda: ("ok", type(array).__name__, array.copy_to_host().tolist()))

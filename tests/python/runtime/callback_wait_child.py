"""Run by test_streams.py in a child process (a regression would hang it):
each way of waiting for the device, called inside a stream callback, is
refused with CUDA_ERROR_NOT_PERMITTED instead of waiting for the callback
itself; the stream goes on afterwards. Prints one line per call."""

import numpy as np

from cuforge import cuda

s = cuda.stream()
d = cuda.to_device(np.arange(4.0))
e = cuda.event()
e.record(s)
calls = {
    "device synchronize": cuda.synchronize,
    "stream synchronize": s.synchronize,
    "default stream synchronize": cuda.default_stream().synchronize,
    "event synchronize": e.synchronize,
    "copy_to_host": d.copy_to_host,
    "to_device": lambda: cuda.to_device(np.ones(4)),
}
seen = {}


def inside(stream, status, name):
    try:
        calls[name]()
        seen[name] = "returned"
    except cuda.CudaAPIError as err:
        seen[name] = f"refused {err}"
    except Exception as err:  # noqa: BLE001 - the test reads what it was
        seen[name] = f"other {type(err).__name__}: {err}"


for name in calls:
    s.add_callback(inside, name)
s.synchronize()
for name in calls:
    print(f"{name}: {seen.get(name, 'not run')}")
# The stream and the device go on.
s.add_callback(lambda stream, status, arg: seen.__setitem__("later", "ran"))
s.synchronize()
print("later:", seen.get("later"), d.copy_to_host().tolist())

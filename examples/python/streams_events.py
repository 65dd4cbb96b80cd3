"""Streams, events and pinned memory: overlap-ready transfers in stream
order, timed with events, with a host callback when a stream drains."""

import numpy as np

from cuforge import cuda

n = 1 << 20
chunks = 4
host_in = cuda.pinned_array(n, dtype=np.float32)
host_in[:] = np.arange(n, dtype=np.float32)
host_out = cuda.pinned_array_like(host_in)

streams = [cuda.stream() for _ in range(chunks)]
d = cuda.device_array(n, dtype=np.float32)
parts_in = np.split(host_in, chunks)
parts_out = np.split(host_out, chunks)
parts_dev = d.split(n // chunks)

done: list[int] = []
start, stop = cuda.event(), cuda.event()
start.record(streams[0])
for s, hi, ho, dv in zip(streams, parts_in, parts_out, parts_dev):
    dv.copy_to_device(hi, stream=s)        # asynchronous: pinned memory
    dv.copy_to_host(ho, stream=s)
    s.add_callback(lambda stream, status, arg: done.append(arg), len(done))
for s in streams[1:]:
    e = cuda.event(timing=False)
    e.record(s)
    e.wait(streams[0])                     # stream 0 waits for the others
stop.record(streams[0])
stop.synchronize()
for s in streams:
    s.synchronize()

assert (host_out == host_in).all()
assert len(done) == chunks
print(f"{chunks} streams moved {n * 4 >> 20} MiB there and back in {cuda.event_elapsed_time(start, stop):.2f} ms")

with cuda.stream().auto_synchronize() as s:
    d_small = cuda.to_device(np.ones(16), stream=s)
print("auto_synchronize: ", d_small.copy_to_host()[:4])

# defer_cleanup: nothing is freed while asynchronous work may still read it.
with cuda.defer_cleanup():
    for _ in range(20):
        tmp = cuda.to_device(np.zeros(1000))
    del tmp
    pending, _ = cuda.current_context().deallocations
    print("frees held inside defer_cleanup:", pending)
cuda.synchronize()
print("after synchronize, pending frees:", cuda.current_context().deallocations[0])

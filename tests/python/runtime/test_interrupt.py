"""Ctrl-C interrupts a wait on a kernel that never ends (issue 15 item 3):
a stream's synchronize, an event's and the device's raise KeyboardInterrupt
within a fraction of a second, while the kernel itself goes on. On the cuda
backend the driver's wait for the whole device cannot be interrupted, so
there only the stream's and the event's are. In a child process
(interrupt_child.py): a regression hangs it, and the timeout ends it."""

import os
import pathlib
import select
import signal
import subprocess
import sys
import time

import pytest

from cuforge import cuda


class _Lines:
    """The child's output line by line, each awaited at most `seconds`: a
    wait that was not interrupted fails the test instead of hanging it."""

    def __init__(self, child):
        self.fd = child.stdout.fileno()
        self.pending = b""

    def next(self, seconds=60):
        end = time.monotonic() + seconds
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, end - time.monotonic()))
            assert ready, "the child printed nothing for a minute: a wait was not interrupted"
            chunk = os.read(self.fd, 4096)
            assert chunk, "the child ended early"
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode().strip()


def test_ctrl_c_interrupts_waits_on_a_kernel_that_never_ends():
    script = pathlib.Path(__file__).with_name("interrupt_child.py")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = _Lines(child)
    lines = []
    try:
        deadline = time.monotonic() + 120
        for what in ("stream", "event", "device"):
            line = out.next()
            assert line == f"waiting {what}", (line, lines)
            if what == "device" and cuda.backend() == "cuda":
                child.kill()
                break
            time.sleep(0.5)  # let it settle into the wait
            child.send_signal(signal.SIGINT)
            line = out.next()
            lines.append(line)
            assert line.startswith(f"interrupted {what} "), (line, lines)
            waited = float(line.split()[2])
            assert 0.3 < waited < 5.0, line  # it waited, and woke for the signal
            assert time.monotonic() < deadline
        assert child.wait(timeout=60) in (0, -signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.parametrize("wait", ["stream", "event", "device"])
def test_short_waits_still_return_at_once(wait):
    import numpy as np

    a = cuda.to_device(np.zeros(1000))
    s = cuda.stream()
    e = cuda.event()
    a.copy_to_host(stream=s)
    e.record(s)
    start = time.perf_counter()
    {"stream": s.synchronize, "event": e.synchronize, "device": cuda.synchronize}[wait]()
    assert time.perf_counter() - start < 1.0

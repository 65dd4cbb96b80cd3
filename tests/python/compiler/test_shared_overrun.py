"""A kernel that writes past its block's shared memory on the cpu backend
(a cuda.shared.array(0) launched with too few dynamic bytes, issue 15 item
4) fails its launch with an error saying so, instead of corrupting the heap;
launches with enough memory, and those after, run. In a child process
(shared_overrun_child.py), so that a regression crashes it, not the run."""

import pathlib
import subprocess
import sys

import pytest

from cuforge import cuda

pytestmark = pytest.mark.skipif(cuda.backend() != "cpu", reason="the cpu backend's guard (a GPU faults by itself)")


def test_an_overrun_of_shared_memory_fails_the_launch():
    script = pathlib.Path(__file__).with_name("shared_overrun_child.py")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    got = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert got["fibers-enough"] == "ok 31 0" and got["fibers-after"] == "ok 31 0", got
    assert got["loop-enough"] == "ok 0 31" and got["loop-after"] == "ok 0 31", got
    for name, dynamic in [("fibers-short", 8), ("loop-none", 0)]:
        assert got[name].startswith("error"), got
        assert "wrote past the end of its block's shared memory" in got[name], got
        assert f"{dynamic} dynamic bytes given at launch" in got[name], got

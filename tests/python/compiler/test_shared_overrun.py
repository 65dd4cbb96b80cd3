"""Overruns on the cpu backend (issue 15 item 4): a kernel that writes past
its block's shared memory (a cuda.shared.array(0) launched with too few
dynamic bytes) fails its launch with an error saying so, instead of
corrupting the heap, and launches with enough memory, and those after, run;
a kernel that reads just past an array whose end is a page boundary gets
garbage, as on a GPU, instead of killing the process. In a child process
(shared_overrun_child.py), so that a regression crashes it, not the run."""

import pathlib
import subprocess
import sys

import pytest

from cuforge import cuda

pytestmark = pytest.mark.skipif(cuda.backend() != "cpu", reason="the cpu backend's guard (a GPU faults by itself)")


@pytest.fixture(scope="module")
def child():
    script = pathlib.Path(__file__).with_name("shared_overrun_child.py")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return dict(line.split(" ", 1) for line in r.stdout.splitlines())


def test_an_overrun_of_shared_memory_fails_the_launch(child):
    got = child
    assert got["fibers-enough"] == "ok 31 0" and got["fibers-after"] == "ok 31 0", got
    assert got["loop-enough"] == "ok 0 31" and got["loop-after"] == "ok 0 31", got
    for name, dynamic in [("fibers-short", 8), ("loop-none", 0)]:
        assert got[name].startswith("error"), got
        assert "wrote past the end of its block's shared memory" in got[name], got
        assert f"{dynamic} dynamic bytes given at launch" in got[name], got


def test_a_read_just_past_an_array_does_not_kill_the_process(child):
    assert child.get("past-262144") == "ok" and child.get("past-524288") == "ok", child

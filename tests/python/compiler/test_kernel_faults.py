"""A kernel that faults on the cpu backend (issue 13 item 2: no kernel kills
or silently corrupts the interpreter): an access far outside its array, in a
kernel run as plain loops, as fibers (with barriers) or as a cooperative
grid, fails its launch with an error naming the thread (or, for a kernel
whose block ran as one vectorised loop, the block), as a GPU's launch fails
with an illegal address; the next launch works. A fault outside kernel
code still ends the process (Python's faulthandler reports it). Run in child
processes (fault_child.py), so that a regression crashes them, not the run."""

import pathlib
import signal
import subprocess
import sys

import pytest

from cuforge import cuda

pytestmark = [pytest.mark.skipif(cuda.backend() != "cpu", reason="the cpu backend's fault handling (a GPU faults alone)"),
              pytest.mark.no_asan]

CHILD = pathlib.Path(__file__).with_name("fault_child.py")


@pytest.fixture(scope="module")
def cases():
    r = subprocess.run([sys.executable, str(CHILD)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return dict(line.split(" ", 1) for line in r.stdout.splitlines())


# Barrier-free kernels run each block in one call (cpu_execution.md, "One call per block"): the
# block of the fault is known, its thread only where the block has one.
BLOCK_LOOP = "block (0,0,0), one of its threads: they ran as one loop"


@pytest.mark.parametrize("name, where", [("loop", BLOCK_LOOP), ("fiber", "thread (7,0,0)"),
                                         ("read", "block (0,0,0), thread (0,0,0)"), ("grid", "thread (3,0,0)"),
                                         ("again", "thread (7,0,0)"), ("unmapped", BLOCK_LOOP),
                                         ("later", "blocks (0,0,0) to (3,0,0), one of their threads: they ran as one loop"),
                                         ("later_exact", "block (2,0,0), one of its threads: they ran as one loop")])
def test_a_faulting_kernel_fails_its_launch_and_the_next_launch_works(cases, name, where):
    got = cases[name]
    assert got.startswith("error CudaAPIError [CUDA_ERROR_LAUNCH_FAILED]"), got
    assert "the kernel touched memory it may not (SIGSEGV" in got, got
    assert "boundscheck=True" in got and where in got, got
    assert cases[name + "-after"] == "ok"


def test_an_unmapped_address_is_named(cases):
    assert "SIGSEGV at address 0x" in cases["unmapped"], cases["unmapped"]


def test_a_fault_outside_a_kernel_still_ends_the_process():
    r = subprocess.run([sys.executable, "-X", "faulthandler", str(CHILD), "--then-crash-outside"],
                       capture_output=True, text=True, timeout=300)
    assert "crashing outside a kernel" in r.stdout and "survived" not in r.stdout
    assert r.returncode == -signal.SIGSEGV, (r.returncode, r.stderr[-2000:])
    assert "Fatal Python error: Segmentation fault" in r.stderr

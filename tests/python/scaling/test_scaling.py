"""Scaling out on existing engines (issue 18 item 4): cuforge kernels on
Dask's threaded scheduler and on a distributed.LocalCluster of two worker
processes, and an MPI halo exchange on 4 ranks whose fields are cuforge
device arrays passed to MPI directly, equal to a one-process run. The
examples (examples/python/scaling_*.py) are what runs; kernels travel to
other processes by pickle, which these tests check on their own too."""

import os
import pathlib
import pickle
import shutil
import subprocess
import sys

import numpy as np
import pytest

from cuforge import cuda

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples" / "python"
HERE = pathlib.Path(__file__).resolve().parent


def run(args, timeout=600):
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:])
    return done.stdout


def test_dask_map_blocks_on_threads_and_a_local_cluster():
    pytest.importorskip("dask.array", reason="dask is not installed (scripts/setup.sh installs it)")
    pytest.importorskip("distributed", reason="distributed is not installed (scripts/setup.sh installs it)")
    out = run([sys.executable, str(EXAMPLES / "scaling_dask.py")])
    assert "threaded scheduler: 8 chunks, equal to NumPy's" in out
    assert "LocalCluster with 2 worker processes: equal to NumPy's and to the threaded run" in out


def test_mpi_heat_equation_on_4_ranks_equals_one_process():
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (scripts/setup.sh installs it)")
    mpirun = shutil.which("mpirun")
    if not mpirun:
        pytest.skip("mpirun is not installed (Debian: openmpi-bin)")
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    out = run([mpirun, *flags, "-n", "4", sys.executable, str(EXAMPLES / "scaling_mpi.py"), "--no-launch"])
    assert "4 ranks x 1024 cells, 500 steps" in out
    if cuda.backend() == "cpu":
        assert "device arrays passed to MPI directly" in out
    assert "max difference from one process = 0.0" in out, out


def test_a_kernel_pickles_and_compiles_in_the_receiving_process():
    import kernels_to_send

    assert pickle.loads(pickle.dumps(kernels_to_send.scale_by)) is kernels_to_send.scale_by  # by name
    # In another process the name is looked up there (the module is imported).
    done = subprocess.run([sys.executable, str(HERE / "receive_kernel.py"), "3.0"],
                          input=pickle.dumps(kernels_to_send.scale_by), capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))})
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert done.stdout.decode().strip().splitlines()[-1] == "[0.0, 3.0, 6.0, 9.0]"


def test_a_kernel_defined_in_a_script_travels_with_its_source():
    cloudpickle = pytest.importorskip("cloudpickle", reason="cloudpickle comes with dask")
    del cloudpickle
    out = run([sys.executable, str(HERE / "send_script_kernel.py")])
    assert out.strip().splitlines()[-1] == "[0.0, 2.0, 6.0, 12.0]"

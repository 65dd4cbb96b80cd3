"""The toolkit's parts (libdevice, NVRTC, nvJitLink, ptxas) found wherever
the toolkit came from (issue 14 item 3), by one search: each part's CUFORGE_*
variable, then the environment's toolkit (CUDA_HOME, CUDA_PATH, a conda
environment), NVIDIA's pip wheels, the nvcc on PATH and the system's places,
in that order, with an error naming every place searched when none has it.
Fake layouts of each kind hold empty stand-ins (the search asks only that the
file exists) and, for libdevice, the real file; cases that need the pip
wheels or a compile run in a child process (toolkit_child.py), since wheels
are added at import and libdevice is read once per process."""

import os
import pathlib
import subprocess
import sys

import pytest

import cuforge
from cuforge import _core

HERE = pathlib.Path(__file__).resolve().parent
CHILD = HERE / "toolkit_child.py"

try:
    REAL, _ = cuforge.find_libdevice()
except ValueError:
    REAL = None
needs_libdevice = pytest.mark.skipif(REAL is None, reason="no libdevice on this machine")

ENV_VARS = ("CUFORGE_LIBDEVICE_PATH", "CUFORGE_NVRTC_PATH", "CUFORGE_NVJITLINK_PATH", "CUFORGE_PTXAS_PATH",
            "CUFORGE_NVVM_PATH", "CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX")
PARTS = {"libdevice": "nvvm/libdevice/libdevice.10.bc", "nvrtc": "lib/libnvrtc.so.13",
         "nvjitlink": "lib/libnvJitLink.so.13", "ptxas": "bin/ptxas", "nvvm": "nvvm/lib64/libnvvm.so.4"}


def run_child(tmp_path, **env_changes):
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    env.update({k: str(v) for k, v in env_changes.items()})
    r = subprocess.run([sys.executable, str(CHILD)], capture_output=True, text=True, timeout=300, env=env,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def fake_toolkit(root, lib="lib"):
    """A folder laid out as a toolkit: nvvm/libdevice holding the real file,
    and stand-ins for NVRTC and nvJitLink (in `lib`), ptxas and libNVVM."""
    d = root / "nvvm" / "libdevice"
    d.mkdir(parents=True)
    (d / "libdevice.10.bc").symlink_to(REAL)
    for rel in ("bin/ptxas", f"{lib}/libnvrtc.so.13", f"{lib}/libnvJitLink.so.13", "nvvm/lib64/libnvvm.so.4"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"")
    return root


def clean_environment(monkeypatch):
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)


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
    lines = out.splitlines()
    assert "NVIDIA's pip wheels (nvidia/cu13" in lines[0] and str(site) in lines[0], out
    # NVRTC, nvJitLink and ptxas from the same wheels' folder.
    for line, part in zip(lines[1:4], ("nvrtc", "nvjitlink", "ptxas")):
        assert line.startswith(f"{part} NVIDIA's pip wheels") and line.endswith(f"{site}/nvidia/cu13/{PARTS[part]}"), out
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
    clean_environment(monkeypatch)
    for var, value in [("CUDA_HOME", "/h"), ("CUDA_PATH", "/p"), ("CONDA_PREFIX", "/c")]:
        monkeypatch.setenv(var, value)
    got = cuforge.libdevice_candidates()
    tail = "/nvvm/libdevice/libdevice.10.bc"
    assert got[:3] == [("/h" + tail, "CUDA_HOME"), ("/p" + tail, "CUDA_PATH"), ("/c" + tail, "the conda environment")]
    whos = [who for _, who in got]
    assert whos[-1] == "Debian's nvidia-cuda-toolkit"
    # Then NVIDIA's wheels (where Python finds an `nvidia` package), the nvcc on PATH, the toolkit cuforge was
    # built with and /usr/local/cuda, each folder once (the first label that named it).
    order = ["NVIDIA's pip", "the nvcc on PATH", "the toolkit cuforge was built with", "/usr/local/cuda"]
    ranks = [next(i for i, o in enumerate(order) if w.startswith(o)) for w in whos[3:-1]]
    assert ranks == sorted(ranks), whos
    assert len({p for p, _ in got}) == len(got), got
    # Every part searches the same folders in the same order.
    for part, rel in PARTS.items():
        paths = cuforge.toolkit_candidates(part)
        if part in ("nvrtc", "nvjitlink"):  # lib64/, lib/ and targets/x86_64-linux/lib/ of each folder
            name = rel.split("/")[1]
            assert paths[:3] == [(f"/h/{d}/{name}", "CUDA_HOME") for d in ("lib64", "lib", "targets/x86_64-linux/lib")]
        else:
            assert paths[0] == ("/h/" + rel, "CUDA_HOME")
    monkeypatch.setenv("CUFORGE_LIBDEVICE_PATH", "/only/this.bc")
    assert cuforge.libdevice_candidates() == [("/only/this.bc", "CUFORGE_LIBDEVICE_PATH")]


@pytest.mark.parametrize("var", ["CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX"])
@pytest.mark.parametrize("lib", ["lib64", "lib", "targets/x86_64-linux/lib"])
def test_every_part_from_a_toolkit_named_by_the_environment(tmp_path, monkeypatch, var, lib):
    clean_environment(monkeypatch)
    root = fake_toolkit(tmp_path / "toolkit", lib)
    monkeypatch.setenv(var, str(root))
    label = "the conda environment" if var == "CONDA_PREFIX" else var
    for part, rel in PARTS.items():
        rel = rel.replace("lib/", lib + "/", 1) if part in ("nvrtc", "nvjitlink") else rel
        assert cuforge.find_toolkit(part) == (f"{root}/{rel}", label)


def test_libnvvm_in_a_toolkit_and_in_nvidias_pip_wheel(tmp_path, monkeypatch):
    """A toolkit keeps libNVVM in nvvm/lib64; NVIDIA's CUDA 13 wheel (nvidia/cu13) in lib/, as NVRTC."""
    clean_environment(monkeypatch)
    wheel = tmp_path / "cu13"
    (wheel / "lib").mkdir(parents=True)
    (wheel / "lib" / "libnvvm.so.4").write_bytes(b"")
    monkeypatch.setenv("CUDA_HOME", str(wheel))
    assert cuforge.find_toolkit("nvvm") == (f"{wheel}/lib/libnvvm.so.4", "CUDA_HOME")
    paths = [p for p, _ in cuforge.toolkit_candidates("nvvm")]
    assert paths[:2] == [f"{wheel}/nvvm/lib64/libnvvm.so.4", f"{wheel}/lib64/libnvvm.so.4"]


def test_each_parts_own_variable_names_a_file_or_a_folder(tmp_path, monkeypatch):
    clean_environment(monkeypatch)
    root = fake_toolkit(tmp_path / "toolkit")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "elsewhere"))
    for part, rel in PARTS.items():
        var = _core.toolkit_override_variable(part)
        target = root / rel
        for value in (target, target.parent):
            monkeypatch.setenv(var, str(value))
            assert cuforge.find_toolkit(part) == (str(target), var)
        monkeypatch.setenv(var, str(tmp_path / "missing"))
        with pytest.raises(ValueError, match=f"was not found; searched:\\n  {tmp_path}/missing \\({var}\\)"):
            cuforge.find_toolkit(part)
        monkeypatch.delenv(var)


def test_a_missing_part_names_every_place_searched(monkeypatch, tmp_path):
    clean_environment(monkeypatch)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "nowhere"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("CUFORGE_NVJITLINK_PATH", str(tmp_path / "nowhere" / "libnvJitLink.so.13"))
    with pytest.raises(ValueError) as info:
        cuforge.find_toolkit("nvjitlink")
    text = str(info.value)
    assert text.startswith("libnvJitLink.so.13 (the CUDA toolkit's nvjitlink) was not found; searched:")
    assert "CUFORGE_NVJITLINK_PATH" in text
    with pytest.raises(ValueError, match="no toolkit part 'nvcc'"):
        cuforge.find_toolkit("nvcc")


def test_the_report_lists_every_part():
    done = subprocess.run([sys.executable, "-m", "cuforge"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for part in PARTS:
        assert any(line.strip().startswith(part + ":") for line in done.stdout.splitlines()), done.stdout

"""The package's stubs (py.typed, cuforge/cuda/__init__.pyi) checked by mypy
over the examples, as a user's type checker reads them (issue 14 item 5).
scripts/setup.sh installs mypy; where it is missing the tests skip."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

pytest.importorskip("mypy", reason="mypy is not installed (scripts/setup.sh installs it)")


def mypy(*paths, cwd=ROOT):
    # The package as the source tree has it (an editable install's import hook is invisible to mypy).
    env = dict(os.environ, MYPYPATH=str(ROOT / "python"))
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file",
                           str(ROOT / "pyproject.toml"), *map(str, paths)], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env=env)


def test_the_examples_type_check_against_the_stubs():
    done = mypy(ROOT / "examples" / "python")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


def test_the_stubs_give_real_types_and_catch_mistakes(tmp_path):
    # The check can fail: a misspelt method and a wrong argument are errors, and the API's
    # results have the stubs' types rather than Any.
    (tmp_path / "user.py").write_text(
        "import numpy as np\n"
        "from cuforge import cuda\n"
        "d = cuda.to_device(np.zeros(3))\n"
        "reveal_type(d)\n"
        "reveal_type(cuda.stream())\n"
        "def kernel(a: cuda.DeviceNDArray) -> None: ...\n"
        "reveal_type(cuda.jit(kernel))\n"
        "reveal_type(cuda.jit(device=True))\n"
        "d.copy_to_hots()\n"
        "cuda.device_array(3).reshape(2, 2).is_c_contiguous(1)\n")
    done = mypy(tmp_path / "user.py", cwd=tmp_path)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert 'Revealed type is "cuforge.cuda.DeviceNDArray"' in out
    assert 'Revealed type is "cuforge.cuda.Stream"' in out
    assert 'Revealed type is "cuforge.cuda.Dispatcher"' in out
    assert 'Revealed type is "def (def (*Any, **Any) -> Any) -> cuforge.cuda.Dispatcher"' in out
    assert '"DeviceNDArray" has no attribute "copy_to_hots"' in out
    assert 'Too many arguments for "is_c_contiguous"' in out

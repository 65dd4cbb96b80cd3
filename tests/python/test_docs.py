"""The user documentation: it builds with Sphinx without a warning, its code
runs, and every public name has a docstring for the API reference.

The Sphinx build needs sphinx and myst-parser (scripts/setup.sh installs
them); where they are missing the build test is skipped, except in CI, where
it fails.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def python_blocks(page):
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.S)


@pytest.mark.parametrize("page", ["index.md", "tutorial.md"])
def test_the_pages_code_runs_as_one_script(page, tmp_path):
    """Each page's Python blocks, in order, are one program (kernels need their
    source in a file, so it runs from one, in a child process)."""
    blocks = python_blocks(page)
    assert blocks, f"{page} has no python code blocks"
    script = tmp_path / (page.replace(".md", "") + "_code.py")
    script.write_text("\n".join(blocks))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_tutorial_covers_the_seed_workflows():
    text = (DOCS / "tutorial.md").read_text()
    for topic in ("cuda.grid", "cuda.gridsize", "cuda.to_device", "copy_to_host", "cuda.stream()",
                  "cuda.pinned_array", "cuda.shared.array", "cuda.syncthreads()", "cuda.atomic.add",
                  "cuda.reduce", "device=True", "cuda.event()"):
        assert topic in text, topic


def _doc_body():
    spec = importlib.util.spec_from_file_location("cuforge_api", DOCS / "_ext" / "cuforge_api.py")
    if importlib.util.find_spec("sphinx") is None:
        pytest.skip("sphinx is not installed")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.doc_body


def test_every_public_name_has_a_docstring():
    import cuforge
    from cuforge import cuda

    doc_body = _doc_body()
    missing = [f"cuforge.cuda.{n}" for n in cuda.HOST_NAMES if not doc_body(n, getattr(cuda, n))]
    missing += [f"cuforge.{n}" for n in cuforge.__all__ if not doc_body(n, getattr(cuforge, n))]
    assert not missing, missing


def test_doc_body_ignores_pybind_signature_lines():
    doc_body = _doc_body()

    def bare():
        pass

    bare.__doc__ = "bare(x: int) -> object\n"
    assert doc_body("bare", bare) == ""
    bare.__doc__ = "bare(x: int) -> object\n\nDoes a thing."
    assert doc_body("bare", bare) == "Does a thing."


def test_sphinx_builds_without_warnings(tmp_path):
    missing = [m for m in ("sphinx", "myst_parser") if importlib.util.find_spec(m) is None]
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must build the docs, but {missing} are not installed (scripts/setup.sh)")
        pytest.skip(f"{missing} not installed")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
         str(tmp_path / "html")],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    html = tmp_path / "html"
    reference = (html / "reference" / "cuda.html").read_text()
    # Generated from the package's own list: a name from each corner of it.
    for name in ("cuforge.cuda.to_device", "cuforge.cuda.DeviceNDArray", "cuforge.cuda.Reduce",
                 "cuforge.cuda.set_memory_manager", "cuforge.cuda.declare_device"):
        assert f'id="{name}"' in reference, name
    for page in ("install", "tutorial", "differences", "intrinsics", "architecture"):
        assert (html / f"{page}.html").exists(), page

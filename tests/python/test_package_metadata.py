"""The package's license and version (issue 14, item 1): Apache-2.0 in a
LICENSE file and in the metadata, and one version, python/cuforge/__init__.py's,
that the metadata and the CMake project read."""

import importlib.metadata
import pathlib
import re

import pytest

import cuforge

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_license_is_apache_2():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert re.search(r'^license = "Apache-2.0"$', (ROOT / "pyproject.toml").read_text(), re.M)


def test_one_version():
    source = (ROOT / "python" / "cuforge" / "__init__.py").read_text()
    assert re.search(r'^__version__ = "([0-9][0-9.]*)"$', source, re.M).group(1) == cuforge.__version__
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert not re.search(r"^version = ", pyproject, re.M) and 'dynamic = ["version"]' in pyproject
    assert "project(cuforge VERSION ${cuforge_version}" in (ROOT / "CMakeLists.txt").read_text()


def test_the_installed_metadata_says_so():
    try:
        meta = importlib.metadata.metadata("cuforge")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("cuforge is not installed here (imported from the source tree)")
    assert meta["Version"] == cuforge.__version__
    assert meta.get("License-Expression") == "Apache-2.0"
    assert "Environment :: GPU :: NVIDIA CUDA" in meta.get_all("Classifier")


def test_typed_with_stubs_for_the_cuda_module():
    # PEP 561: the marker tells type checkers to read the package's own annotations and stubs.
    package = pathlib.Path(cuforge.__file__).parent
    assert (package / "py.typed").is_file()
    stub = (package / "cuda" / "__init__.pyi").read_text()
    for name in ("def jit", "def to_device", "def device_array", "def shfl_sync"):
        assert name in stub, name

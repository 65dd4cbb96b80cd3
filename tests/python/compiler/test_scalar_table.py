"""The scalar-type table (cuforge/runtime/scalar_types.hpp) as Python sees
it: cuforge.types, its stub, the resolver and the compiler read the one
table, and its aliases are true of NumPy."""

import ast
import importlib.util
import pathlib

import numpy as np
import pytest

import cuforge
from cuforge import _core, cuda
from cuforge import types as cftypes
from cuforge.cuda._compiler import resolve

TABLE = _core.scalar_types()
PYI = pathlib.Path(cftypes.__file__).with_suffix(".pyi")


def test_every_row_is_a_numpy_dtype_with_its_name_and_typestr():
    for row in TABLE:
        dt = np.dtype(row["typestr"])
        assert dt.name == row["name"]
        assert dt.itemsize == row["bytes"]
        assert dt.kind == row["kind"]


def test_numpy_aliases_are_numpys():
    for row in TABLE:
        for alias in row["numpy_aliases"]:
            assert np.dtype(getattr(np, alias)) == np.dtype(row["typestr"]), alias


def test_cuforge_types_binds_every_name_and_numba_alias():
    for row in TABLE:
        t = cftypes.from_spec(row["name"])
        assert t.spec == row["name"] and t.typestr == np.dtype(row["typestr"]).str
        for alias in row["numba_aliases"]:
            assert getattr(cftypes, alias) is t, alias
            assert alias in cftypes.__all__
            assert getattr(cuforge, alias) is t, "numba's top-level type names"
        assert cftypes.from_dtype(row["typestr"]) is t
        assert cftypes.parse_signature(f"void({row['name']})") is not None


def test_the_stub_declares_every_scalar_name():
    declared = {node.target.id for node in ast.parse(PYI.read_text()).body
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    wanted = {name for row in TABLE for name in (row["name"], *row["numba_aliases"]) if name != "bool"}
    assert wanted <= declared, f"types.pyi lacks {sorted(wanted - declared)}"


def test_python_types_as_dtypes_come_from_the_table():
    assert resolve.dtype_typestr(int) == np.dtype(np.int64).str
    assert resolve.dtype_typestr(float) == "<f8"
    assert resolve.dtype_typestr(complex) == "<c16"
    assert resolve.dtype_typestr(bool) == "|b1"
    assert {row["python_type"] for row in TABLE if row["python_type"]} == {"bool", "int", "float", "complex"}


@pytest.mark.parametrize("row", TABLE, ids=[row["name"] for row in TABLE])
def test_kernels_name_every_numpy_alias(row, tmp_path):
    """np.<name> and np.<alias> inside a kernel are the table's type."""
    names = (row["name"], *row["numpy_aliases"])
    lines = ["import numpy as np", "", "", "def kernel(out, x):"]
    lines += [f"    out[{i}] = np.{name}(x)" for i, name in enumerate(names)]
    path = tmp_path / f"alias_kernel_{row['name']}.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = np.zeros(len(names), dtype=np.complex128)
    kernel = cuda.jit(module.kernel)
    kernel[1, 1](out, 1)
    assert (out == 1).all()
    (typed,) = kernel.definitions.values()
    assert typed.types_dump.count(f":: {row['name']}") >= len(names), typed.types_dump

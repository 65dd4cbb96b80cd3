"""Debug information (issue 13 item 3): lineinfo=True puts line tables (.file
and .loc) in the PTX; debug=True adds DWARF for the function and each Python
variable (arguments numbered), on the GPU's PTX and in the cpu backend's host
object alike, so that cuda-gdb, Nsight and gdb map code to the Python source."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from cuforge import cuda

DWARFDUMP = shutil.which("llvm-dwarfdump-19") or shutil.which("llvm-dwarfdump") or (
    "/usr/lib/llvm-19/bin/llvm-dwarfdump" if os.path.exists("/usr/lib/llvm-19/bin/llvm-dwarfdump") else None)


def scaled(a, b):
    i = cuda.grid(1)
    x = a[i] * 2.0
    b[i] = x + 1.0


def _line_of(text):
    with open(__file__) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


def _dwarf_has(ptx, name):
    """Whether the PTX's .debug_info section holds the NUL-terminated string
    `name` (after a byte that cannot be part of a name: a DWARF code)."""
    start = ptx.index(".section\t.debug_info")
    body = ptx[start:ptx.index("}", start)]
    data = bytes(int(x) for x in re.findall(r"\.b8 (\d+)", body))
    for chunk in data.split(b"\x00"):
        if chunk.endswith(name.encode()):
            before = chunk[:-len(name)][-1:]
            if not before or not (before.isalnum() or before == b"_"):
                return True
    return False


def test_lineinfo_puts_line_tables_in_the_ptx():
    ptx, _ = cuda.compile_ptx(scaled, "void(float64[:], float64[:])", lineinfo=True, cc=(9, 0))
    files = re.findall(r'\.file\s+(\d+) "([^"]+)"', ptx)
    assert (os.path.basename(__file__)) in {os.path.basename(f) for _, f in files}
    lines = {int(n) for n in re.findall(r"\.loc\s+\d+ (\d+) ", ptx)}
    for text in ("i = cuda.grid(1)", "x = a[i] * 2.0", "b[i] = x + 1.0"):
        assert _line_of(text) in lines, (text, sorted(lines))
    assert ".section\t.debug_info" not in ptx  # lines only: no DWARF for functions or variables


def test_debug_puts_variables_in_the_ptx_dwarf():
    ptx, _ = cuda.compile_ptx(scaled, "void(float64[:], float64[:])", debug=True, opt=False, cc=(9, 0))
    assert ".loc" in ptx
    for name in ("a", "b", "i", "x", "float64", "int64"):
        assert _dwarf_has(ptx, name), name
    assert not _dwarf_has(ptx, "y")


@pytest.mark.skipif(cuda.backend() != "cpu", reason="the cpu backend's host object")
@pytest.mark.skipif(DWARFDUMP is None, reason="no llvm-dwarfdump")
def test_the_host_object_carries_the_same_for_gdb():
    k = cuda.jit(debug=True, opt=False)(scaled)
    k[1, 2](np.zeros(2), np.zeros(2))
    (compiled,) = k.overloads.values()
    kind, _, code = compiled.cache_payload()
    assert kind == "host-object"
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".o") as f:
        f.write(code)
        f.flush()
        info = subprocess.run([DWARFDUMP, "--debug-info", f.name], capture_output=True, text=True, check=True).stdout
        lines = subprocess.run([DWARFDUMP, "--debug-line", f.name], capture_output=True, text=True, check=True).stdout
    variables = dict(re.findall(r'DW_AT_name\s+\("(\w)"\)\s+DW_AT_decl_file\s+\("[^"]+"\)\s+DW_AT_decl_line\s+\((\d+)\)',
                                info))
    assert variables.get("x") == str(_line_of("x = a[i] * 2.0")), info
    assert variables.get("i") == str(_line_of("i = cuda.grid(1)")), info
    assert "a" in variables and "b" in variables
    assert "DW_TAG_formal_parameter" in info
    assert os.path.basename(__file__) in lines
    rows = {int(m) for m in re.findall(r"^0x[0-9a-f]+\s+(\d+)\s", lines, re.M)}
    assert _line_of("b[i] = x + 1.0") in rows


@pytest.mark.skipif(cuda.backend() != "cpu", reason="gdb on the cpu backend's kernels")
@pytest.mark.skipif(shutil.which("gdb") is None, reason="no gdb")
@pytest.mark.no_asan("tools")
def test_gdb_stops_at_a_python_line_of_a_cpu_backend_kernel_and_prints_a_variable():
    import pathlib
    import sys

    script = pathlib.Path(__file__).with_name("gdb_child.py")
    line = next(n for n, text in enumerate(script.read_text().splitlines(), 1) if "gdb stops here" in text)
    cmd = ["gdb", "-batch", "-nx", "-ex", "set breakpoint pending on", "-ex", "set debuginfod enabled off",
           "-ex", f"break gdb_child.py:{line}", "-ex", "run", "-ex", "print x", "-ex", "print i", "-ex", "kill",
           "--args", sys.executable, str(script)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    out = r.stdout + r.stderr
    assert f"gdb_child.py:{line}" in out, out[-3000:]
    assert re.search(r"\$1 = (3|5)\b", out), out[-3000:]  # x = a[i] * 2.0 for thread 0 or 1
    assert re.search(r"\$2 = (0|1)\b", out), out[-3000:]

"""The examples' kernels, for the benchmarks: examples/python is where the
seed workflows' kernels live once (tests import them too).

``load(name)`` imports an example as written (against cuforge);
``load(name, "numba")`` imports it with its imports of cuforge changed to
numba's and nothing else, the drop-in promise read backwards, so that the
same source runs under numba-cuda; ``numba_source(name)`` is that source as
text. For a benchmark's subprocesses: ``stage_numba(folder, names)`` writes
numba's copies there as ``<name>_numba.py``, and ``pythonpath()`` is a
PYTHONPATH under which the examples import as written."""

import importlib
import os
import pathlib
import re
import sys
import types

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples" / "python"
# numba_compat.py: numba-cuda importable where NumPy is newer than it expects (the GPU image's 2.5).
COMPAT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "python" / "compiler"

_IMPORT = re.compile(r"^(\s*)(from|import)\s+cuforge\b", re.M)


def path_of(name: str) -> pathlib.Path:
    path = EXAMPLES / f"{name}.py"
    if not path.exists():
        raise FileNotFoundError(f"no example {name}.py in {EXAMPLES}")
    return path


def numba_source(name: str) -> str:
    """The example's source with `from cuforge ...` / `import cuforge` made numba's."""
    text = path_of(name).read_text()
    swapped, n = _IMPORT.subn(lambda m: f"{m.group(1)}{m.group(2)} numba", text)
    if n == 0:
        raise ValueError(f"example {name} imports nothing from cuforge")
    return swapped


def numba_cuda():
    """``numba.cuda``, through numba_compat (its one fix for NumPy 2.5 applied first)."""
    if str(COMPAT) not in sys.path:
        sys.path.insert(0, str(COMPAT))
    import numba_compat

    return numba_compat.numba_cuda()


def load(name: str, implementation: str = "cuforge"):
    """The example as a module: as written, or with numba's imports."""
    if implementation == "cuforge":
        if str(EXAMPLES) not in sys.path:
            sys.path.insert(0, str(EXAMPLES))
        return importlib.import_module(name)
    if implementation != "numba":
        raise ValueError(f"implementation must be 'cuforge' or 'numba', not {implementation!r}")
    numba_cuda()
    module_name = f"{name}_numba"
    module = types.ModuleType(module_name)
    module.__file__ = str(path_of(name))
    code = compile(numba_source(name), str(path_of(name)), "exec")
    sys.modules[module_name] = module
    exec(code, module.__dict__)  # noqa: S102 - our own example, its imports changed
    return module


def stage_numba(folder, names):
    """Writes numba's copy of each example into ``folder`` as ``<name>_numba.py``."""
    for name in names:
        pathlib.Path(folder, f"{name}_numba.py").write_text(numba_source(name))


def pythonpath() -> str:
    """PYTHONPATH with the examples first: a subprocess imports them as written (and numba_compat)."""
    return os.pathsep.join(p for p in (str(EXAMPLES), str(COMPAT), os.environ.get("PYTHONPATH")) if p)

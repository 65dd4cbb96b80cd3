"""The kernel language's names on the host: ``cuda.grid``, ``cuda.threadIdx``,
``cuda.shared.array``, ``cuda.atomic.add``...

They are made from the intrinsic registry (``_core.intrinsics()``, its
``cuda.*`` rows), so that ``cuda.grid`` is an attribute of the package,
``from cuforge.cuda import grid, syncthreads`` works, and every name the
compiler knows has one, and no other. Inside a jitted function the walker
reads each as the attribute of the ``cuda`` module it names (so ``grid(1)``
compiles exactly as ``cuda.grid(1)``); on the host they only raise."""

from cuforge import _core


class _Stub:
    """A name that means something only inside @cuda.jit functions."""

    __slots__ = ("_cuforge_path", "_children", "_kind", "_params", "_doc")

    def __init__(self, path, entry):
        self._cuforge_path = path
        self._children = {}
        self._kind = entry["kind"]
        self._params = entry["params"]
        self._doc = entry["doc"]

    @property
    def __doc__(self):  # noqa: D105 - each stub's own line from the registry
        if self._kind == "function":
            return f"cuda.{'.'.join(self._cuforge_path)}{self._params}: {self._doc} (kernel-side only)"
        return f"cuda.{'.'.join(self._cuforge_path)}: {self._doc} (kernel-side only)"

    def __getattr__(self, name):
        try:
            return object.__getattribute__(self, "_children")[name]
        except KeyError:
            raise AttributeError(f"cuda.{'.'.join(self._cuforge_path)} has no attribute {name!r}") from None

    def __dir__(self):
        return list(self._children)

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"cuda.{'.'.join(self._cuforge_path)}() can only be used inside a @cuda.jit kernel or device function"
        )

    def __repr__(self):
        return f"<kernel-side cuda.{'.'.join(self._cuforge_path)}>"


def _build():
    """The stubs of the registry's ``cuda.*`` rows: the top-level ones by
    name, each holding its children (``threadIdx.x``, ``atomic.add``)."""
    by_path = {}
    aliases = []
    for entry in _core.intrinsics():
        name = entry["name"]
        if not name.startswith("cuda."):
            continue
        path = tuple(name.split(".")[1:])
        if entry.get("alias_of"):
            aliases.append((path, tuple(entry["alias_of"].split(".")[1:])))
            continue
        by_path[path] = _Stub(path, entry)
    for path, target in aliases:  # cuda.float2 is cuda.float32x2, as in numba.cuda
        by_path[path] = by_path[target]
    for path, stub in by_path.items():
        if len(path) > 1:
            parent = by_path.get(path[:-1])
            if parent is None:
                raise RuntimeError(f"the intrinsic registry has cuda.{'.'.join(path)} but no cuda.{'.'.join(path[:-1])}")
            parent._children[path[-1]] = stub
    return {path[0]: stub for path, stub in by_path.items() if len(path) == 1}


STUBS = _build()  # cuforge.cuda exports them


def cuda_path(obj):
    """The attribute path under ``cuda`` a stub stands for (("threadIdx",
    "x")), or None for anything else."""
    return obj._cuforge_path if isinstance(obj, _Stub) else None

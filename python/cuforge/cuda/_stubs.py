"""The kernel language's names on the host: ``cuda.grid``, ``cuda.threadIdx``,
``cuda.shared.array``, ``cuda.atomic.add``...

They exist so that ``cuda.grid`` is an attribute of the package and
``from cuforge.cuda import grid, syncthreads`` works. Inside a jitted
function the walker reads each as the attribute of the ``cuda`` module it
names (so ``grid(1)`` compiles exactly as ``cuda.grid(1)``); on the host
they only raise."""

__all__ = []


class _Stub:
    """A name that means something only inside @cuda.jit functions."""

    __slots__ = ("_cuforge_path", "_children")

    def __init__(self, path, children=()):
        self._cuforge_path = path
        self._children = {c: _Stub(path + (c,)) for c in children}

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


_XYZ = ("x", "y", "z")
_ATOMICS = ("add", "sub", "max", "min", "nanmax", "nanmin", "exch", "cas", "inc", "dec", "and_", "or_", "xor")

# docs/compiler.md, "CUDA": every name the kernel language has.
STUBS = {
    name: _Stub((name,), children)
    for name, children in {
        "grid": (),
        "gridsize": (),
        "threadIdx": _XYZ,
        "blockIdx": _XYZ,
        "blockDim": _XYZ,
        "gridDim": _XYZ,
        "warpsize": (),
        "laneid": (),
        "syncthreads": (),
        "syncthreads_count": (),
        "syncthreads_and": (),
        "syncthreads_or": (),
        "syncwarp": (),
        "threadfence": (),
        "threadfence_block": (),
        "threadfence_system": (),
        "shared": ("array",),
        "local": ("array",),
        "const": ("array_like",),
        "atomic": _ATOMICS,
        "popc": (),
        "brev": (),
        "clz": (),
        "ffs": (),
        "fma": (),
    }.items()
}

globals().update(STUBS)
__all__ += sorted(STUBS)


def cuda_path(obj):
    """The attribute path under ``cuda`` a stub stands for (("threadIdx",
    "x")), or None for anything else."""
    return obj._cuforge_path if isinstance(obj, _Stub) else None

"""Kernel-argument hints, as numba.cuda.args has them: ``cuda.In(ary)``
copies a host array to the device for the launch and not back,
``cuda.Out(ary)`` only back (the device copy starts uninitialised), and
``cuda.InOut(ary)`` both ways, which is what a bare NumPy argument does
(cuforge skips the copy back when the kernel never writes the array).

The launch path reads them in C++ (python/src/dispatch.cpp, by the class's
``_cuforge_transfer``); ``to_device`` is numba's method for code that moves
arguments itself."""

from cuforge.cuda.cudadrv.devicearray import auto_device

__all__ = ["ArgHint", "In", "InOut", "Out", "wrap_arg"]


class ArgHint:
    """A kernel argument with a transfer direction."""

    __slots__ = ("value",)
    _cuforge_transfer = "inout"

    def __init__(self, value):
        self.value = value

    def to_device(self, retr, stream=0):
        """The device array for ``value``; appends to ``retr`` the callables
        that copy results back after the launch (numba's protocol)."""
        dev, converted = auto_device(self.value, stream=stream, copy=self._cuforge_transfer != "out")
        if converted and self._cuforge_transfer != "in":
            retr.append(lambda: dev.copy_to_host(self.value, stream=stream))
        return dev

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"


class In(ArgHint):
    """Copied to the device before the launch, not back."""

    __slots__ = ()
    _cuforge_transfer = "in"


class Out(ArgHint):
    """Copied back after the launch; not copied to the device before it."""

    __slots__ = ()
    _cuforge_transfer = "out"


class InOut(ArgHint):
    """Copied to the device before the launch and back after it."""

    __slots__ = ()
    _cuforge_transfer = "inout"


def wrap_arg(value, default=InOut):
    """``value`` if it is already a hint, else ``default(value)``."""
    return value if isinstance(value, ArgHint) else default(value)

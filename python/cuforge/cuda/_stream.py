"""``cuda.Stream``: the binding's stream (``_core.Stream``) with what is
better written in Python. The binding makes every stream it returns an
instance of this class (``_core._set_stream_class``)."""

import contextlib
import ctypes

from cuforge import _core

__all__ = ["Stream"]


class Stream(_core.Stream):
    """A CUDA stream: ``cuda.stream()``, ``cuda.default_stream()``,
    ``cuda.external_stream(handle)``... Work queued on it runs in order."""

    __slots__ = ()

    @property
    def handle(self):
        """The stream's handle as a ``ctypes.c_void_p`` (Numba's)."""
        return ctypes.c_void_p(self.handle_value)

    def add_callback(self, callback, arg=None):
        """Calls ``callback(stream, status, arg)`` on a host thread once the
        work queued so far is done; later work waits for it."""
        self._add_host_callback(lambda: callback(self, 0, arg))

    @contextlib.contextmanager
    def auto_synchronize(self):
        """A scope that synchronises the stream when it ends."""
        try:
            yield self
        finally:
            self.synchronize()

    def async_done(self):
        """An asyncio future that completes when the work queued so far is done."""
        import asyncio  # here, not at import: asyncio takes ~25 ms to import

        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def resolve(stream, status, arg):
            loop.call_soon_threadsafe(lambda: future.done() or future.set_result(stream))

        self.add_callback(resolve)
        return future


Stream.__module__ = "cuforge.cuda"
_core._set_stream_class(Stream)

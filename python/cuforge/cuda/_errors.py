"""The compiler's error: TypingError, raised by the Python walker and (mapped
from frontend::typing_error) by the C++ typer, with one message format."""

import builtins
import importlib
import threading

from cuforge import _core

__all__ = ["TypingError", "format_diagnostic"]


def format_diagnostic(message, filename, line, function, source_line=None, column=0):
    """``message``, then where: the format frontend/diagnostics.cpp writes.

        <message>

        File "f.py", line 12, in kernel:
            x = a + b
                ^
    """
    text = f'{message}\n\nFile "{filename}", line {line}, in {function}:'
    if source_line is not None:
        text += f"\n    {source_line.rstrip()}\n    {' ' * max(column, 0)}^"
    return text


class TypingError(TypeError):
    """A construct or a type the kernel compiler cannot handle. The message
    names it and points at the source: file, line, the line itself and a
    caret under the column.

    Attributes (None when unknown): ``msg`` (the first line), ``filename``,
    ``lineno``, ``col`` (0-based), ``source_line``. The C++ typer's errors
    arrive as this class with the same attributes (python/src/dispatch.cpp)."""

    def __init__(self, message, filename=None, lineno=None, col=None, source_line=None, function=None):
        self.msg = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        if filename is not None:
            message = format_diagnostic(message, filename, lineno, function or "?", source_line, col or 0)
        super().__init__(message)


TypingError.__module__ = "cuforge.cuda"

# frontend::typing_error from C++ becomes this same class.
_core.set_typing_error_class(TypingError)


# --- exceptions raised in kernels ------------------------------------------------------

_kernel_exceptions = {}  # "module.qualname" -> the class a kernel raises
_kernel_exceptions_lock = threading.Lock()


def register_kernel_exception(cls) -> str:
    """The name a kernel's raise site carries for exception class ``cls``:
    a builtin's own name ("ValueError"), else "module.qualname", kept here so
    the launcher raises that very class (classes defined in functions too)."""
    if cls.__module__ == "builtins" and getattr(builtins, cls.__name__, None) is cls:
        return cls.__name__
    key = f"{cls.__module__}.{cls.__qualname__}"
    with _kernel_exceptions_lock:
        _kernel_exceptions[key] = cls
    return key


def kernel_exception_class(key: str):
    """The exception class a raise site names (register_kernel_exception's
    key), or None when this process cannot find it (a kernel from the disk
    cache whose class is not importable by name)."""
    if "." not in key:
        cls = getattr(builtins, key, None)
        return cls if isinstance(cls, type) and issubclass(cls, BaseException) else None
    with _kernel_exceptions_lock:
        cls = _kernel_exceptions.get(key)
    if cls is not None:
        return cls
    parts = key.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj if isinstance(obj, type) and issubclass(obj, BaseException) else None
    return None

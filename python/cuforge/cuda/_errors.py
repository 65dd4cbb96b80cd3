"""The compiler's error: TypingError, raised by the Python walker and (mapped
from frontend::typing_error) by the C++ typer, with one message format."""

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

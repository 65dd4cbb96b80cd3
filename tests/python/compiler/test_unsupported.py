"""Every construct kernels cannot contain is a TypingError (a TypeError)
naming it, with the file, the line, the line's text and a caret under the
construct."""

import inspect

import numpy as np

import pytest

from compiler_support import dump
from cuforge import cuda
from cuforge.cuda._compiler import build_ir

G = 0


def k_try(a):
    try:
        a[0] = 1
    except Exception:
        pass


def k_try_finally(a):
    try:
        a[0] = 1
    finally:
        a[1] = 2


def k_with(a):
    with a:
        pass


def k_listcomp(a):
    b = [x for x in a]


def k_setcomp(a):
    b = {x for x in a}


def k_dictcomp(a):
    b = {x: x for x in a}


def k_genexp(a):
    b = max(x for x in a)


def k_lambda(a):
    f = lambda x: x  # noqa: E731


def k_nested_def(a):
    def inner(x):
        return x


def k_decorated_nested_def(a):
    @cuda.jit(device=True)
    def inner(x):
        return x


def k_class(a):
    class C:
        pass


def k_list(a):
    b = [1, 2]


def k_dict(a):
    b = {1: 2}


def k_set(a):
    b = {1, 2}


def k_fstring(a):
    b = f"{a}"


def k_string(a):
    b = "text"


def k_string_argument(a):
    a.astype("float32")


def k_bytes(a):
    b = b"x"


def k_ellipsis(a):
    b = ...


def k_global(a):
    global G
    G = 1


def k_del(a):
    x = 1
    del x


def k_star_call(a):
    min(*a)


def test_star_arguments_need_tuples_and_kernels_take_none():
    # The walker takes f(*t) and def f(*rest); the typer wants a tuple, and a device function.
    with pytest.raises(cuda.TypingError, match=r"a star argument \(\*x\) must be a tuple, not array"):
        cuda.jit(k_star_call)[1, 1](np.zeros(2))
    with pytest.raises(cuda.TypingError, match=r"Unsupported: a kernel with \*arguments \(k_varargs\)"):
        cuda.jit(k_varargs)[1, 1](np.zeros(2), 1)


def k_kwargs_call(a):
    min(**a)


def k_yield(a):
    yield a


def k_yield_from(a):
    yield from a


def k_walrus(a):
    if (n := len(a)) > 1:
        pass


def k_import(a):
    import math


def k_import_from(a):
    from math import sin


def k_starred_assign(a):
    x, *y = a


def k_match(a):
    match a:
        case 1:
            pass


def k_default(a, b=(1, 2)):  # constants (numbers, bools, None) are taken: calls that omit them pass them
    pass


def k_varargs(a, *rest):
    pass


def k_kwargs(a, **kw):
    pass


def k_kwonly(a, *, b):
    pass


async def k_async(a):
    await a


def k_undefined(a):
    a[0] = undefined_name_xyz  # noqa: F821


def k_huge_literal(a):
    a[0] = 123456789012345678901234567890


def k_unknown_attribute(a):
    a[0] = inspect.no_such_thing_xyz


def _make_nonlocal():
    x = 1

    def k_nonlocal(a):
        nonlocal x
        x = 2

    return k_nonlocal


k_nonlocal = _make_nonlocal()
k_lambda_kernel = lambda a: a  # noqa: E731  (a lambda compiles; a kernel returning a value does not)

CASES = [
    (k_try, "try/except/finally", "try:"),
    (k_try_finally, "try/except/finally", "try:"),
    (k_with, "with statements", "with a"),
    (k_listcomp, "list comprehensions", "[x for"),
    (k_setcomp, "set comprehensions", "{x for"),
    (k_dictcomp, "dict comprehensions", "{x: x"),
    (k_genexp, "generator expressions", "(x for x"),
    (k_lambda, "lambda", "lambda x"),
    (k_nested_def, "nested functions", "def inner"),
    (k_decorated_nested_def, "nested functions", "def inner"),
    (k_class, "class definitions", "class C"),
    (k_list, "lists", "[1, 2]"),
    (k_dict, "dicts", "{1: 2}"),
    (k_set, "sets", "{1, 2}"),
    (k_fstring, "f-strings", 'f"{a}"'),
    (k_string, "strings", '"text"'),
    (k_string_argument, "strings", '"float32"'),
    (k_bytes, "bytes", 'b"x"'),
    (k_ellipsis, "Ellipsis", "..."),
    (k_global, "global statements", "global G"),
    (k_nonlocal, "nonlocal statements", "nonlocal x"),
    (k_del, "del", "del x"),
    (k_kwargs_call, "star arguments (**kwargs)", "**a"),
    (k_yield, "yield", "yield a"),
    (k_yield_from, "yield from", "yield from"),
    (k_walrus, "assignment expressions (:=)", "n := "),
    (k_import, "import in a kernel", "import math"),
    (k_import_from, "import in a kernel", "from math"),
    (k_starred_assign, "starred assignment", "*y"),
    (k_match, "match statements", "match a"),
    (k_default, "default argument value that is not a number, a bool or None", "(1, 2)):"),
    (k_kwargs, "keyword arguments collected with **kwargs", "kw):"),
    (k_kwonly, "keyword-only arguments", "b):"),
    (k_async, "async def", "async def"),
    (k_undefined, "name 'undefined_name_xyz' is not defined", "undefined_name_xyz"),
    (k_huge_literal, "does not fit in 64 bits", "1234567890"),
    (k_unknown_attribute, "has no attribute 'no_such_thing_xyz'", "inspect.no_such"),
]


def _where(kernel, marker):
    """(line, column, text) of the first line of ``kernel``'s source holding ``marker``."""
    lines, first = inspect.getsourcelines(kernel)
    for i, text in enumerate(lines):
        if marker in text:
            return first + i, text.index(marker), text.rstrip("\n")
    raise AssertionError(f"{marker!r} is not in the source of {kernel.__name__}")


@pytest.mark.parametrize("kernel, construct, marker", CASES, ids=[c[0].__name__ for c in CASES])
def test_unsupported_construct(kernel, construct, marker):
    with pytest.raises(cuda.TypingError) as info:
        build_ir(kernel)
    e = info.value
    assert isinstance(e, TypeError)
    assert construct in e.msg
    line, col, text = _where(kernel, marker)
    assert e.filename == __file__
    assert (e.lineno, e.col) == (line, col), (e.lineno, e.col, text)
    assert e.source_line == text
    lines = str(e).splitlines()
    assert lines[0] == e.msg
    assert f'File "{__file__}", line {line}, in {kernel.__qualname__}:' in lines
    assert lines[-2:] == ["    " + text, "    " + " " * col + "^"]


def test_unsupported_messages_start_with_the_construct():
    with pytest.raises(cuda.TypingError) as info:
        build_ir(k_try)
    assert info.value.msg == "Unsupported: try/except/finally (kernels cannot catch exceptions)"


def test_columns_of_indented_kernels_are_the_files():
    class Holder:
        @staticmethod
        def kernel(a):
            if a[0]:
                a[1] = [a]  # the list is the error

    with pytest.raises(cuda.TypingError) as info:
        build_ir(Holder.kernel)
    e = info.value
    line, col, text = _where(Holder.kernel, "[a]")
    assert (e.lineno, e.col, e.source_line) == (line, col, text)
    assert e.msg.startswith("Unsupported: lists")
    assert "in test_columns_of_indented_kernels_are_the_files.<locals>.Holder.kernel:" in str(e)


def test_columns_count_characters_not_bytes():
    def kernel(a):
        a[0] = 1  # «ü» before the error would shift a byte count: ü = [a]
        b = "é" if a else [a]

    with pytest.raises(cuda.TypingError) as info:
        build_ir(kernel)
    e = info.value
    line, col, text = _where(kernel, '"é"')
    assert (e.lineno, e.col) == (line, col)


def test_a_dispatcher_reports_the_walkers_error_and_keeps_it_a_typeerror():
    disp = cuda.jit(k_with)
    with pytest.raises(TypeError, match="with statements"):
        disp.function_ir
    with pytest.raises(cuda.TypingError):
        dump(disp)


def test_errors_are_not_memoised():
    for _ in range(2):
        with pytest.raises(cuda.TypingError):
            build_ir(k_class)


def test_a_lambda_compiles_and_a_kernel_returning_a_value_is_refused_where_it_returns():
    import numpy as np

    build_ir(k_lambda_kernel)  # a lambda is walked as the function it is
    with pytest.raises(cuda.TypingError) as info:
        cuda.jit(k_lambda_kernel)[1, 1](np.zeros(3))
    e = info.value
    assert "kernels cannot return a value" in e.msg
    line, col, text = _where(k_lambda_kernel, ": a  #")
    assert (e.lineno, e.col) == (line, col + 2)

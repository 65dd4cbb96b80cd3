"""Every node the walker builds carries its (line, column) in the user's
file, whatever the function's indentation or decorators; the builder gets
the file's lines for diagnostics."""

import inspect
import linecache

from cuforge import cuda


def _find(func, text, nth=0):
    """(line, col) in the file of the ``nth`` occurrence of ``text`` in ``func``'s source."""
    lines, first = inspect.getsourcelines(func)
    seen = 0
    for i, line in enumerate(lines):
        start = 0
        while (col := line.find(text, start)) >= 0:
            if seen == nth:
                return first + i, col
            seen += 1
            start = col + 1
    raise AssertionError(f"{text!r} not found")


@cuda.jit(
    debug=False,
)
def decorated(r, x, y):
    i = cuda.grid(1)
    r[i] = x[i] + y[i]


def test_the_builder_gets_the_function_and_the_files_lines(record):
    rec = record(decorated)
    def_line, _ = _find(decorated.py_func, "def decorated")
    assert rec.init == ("decorated", "decorated", __file__, def_line)
    ((lines,),) = rec.of("set_source")
    assert lines == linecache.getlines(__file__)
    ((fingerprint,),) = rec.of("set_fingerprint")
    assert fingerprint.startswith("source:\n@cuda.jit(\n")


def test_parameters_and_variables_are_where_they_are_named(record):
    rec = record(decorated)
    assert [(a[0], a[1:]) for a in rec.of("param")] == [
        ("r", _find(decorated.py_func, "r, x")),
        ("x", _find(decorated.py_func, "x, y")),
        ("y", _find(decorated.py_func, "y)")),
    ]
    assert [(a[0], a[1:]) for a in rec.of("variable")] == [("i", _find(decorated.py_func, "i = "))]


def test_statements_and_expressions_are_where_they_are(record):
    rec = record(decorated)
    assign_i, assign_r = rec.locations("assign")
    assert assign_i == _find(decorated.py_func, "i = cuda")
    assert assign_r == _find(decorated.py_func, "r[i] =")
    (binary,) = rec.locations("binary")
    assert binary == _find(decorated.py_func, "x[i] + y[i]")
    assert rec.locations("call") == [_find(decorated.py_func, "cuda.grid(1)")]
    assert rec.locations("attribute") == [_find(decorated.py_func, "cuda.grid")]
    subscripts = rec.locations("subscript")
    assert sorted(subscripts) == sorted([_find(decorated.py_func, "x[i]"), _find(decorated.py_func, "y[i]"),
                                         _find(decorated.py_func, "r[i]")])


def test_indented_functions_keep_the_files_columns(record):
    class Kernels:
        @staticmethod
        def nested(a, n):
            for k in range(n):
                if 0 < k < n:
                    a[k] += 1.5

    rec = record(Kernels.nested)
    f = Kernels.nested
    assert rec.init[1] == "test_indented_functions_keep_the_files_columns.<locals>.Kernels.nested"
    assert rec.init[3] == _find(f, "def nested")[0]
    assert rec.locations("for_range") == [_find(f, "for k")]
    assert rec.locations("if_") == [_find(f, "if 0")]
    assert rec.locations("compare") == [_find(f, "0 < k"), _find(f, "k < n")]
    assert rec.locations("logical") == [_find(f, "0 < k")]
    assert rec.locations("binary") == [_find(f, "a[k] += 1.5")]
    (constant_15,) = [a[2:] for a in rec.of("constant") if a[0] == 1.5]
    assert constant_15 == _find(f, "1.5")
    assert [a[2:] for a in rec.of("constant") if a[0] == 0 and a[2:] == _find(f, "0 <")]


def test_desugared_nodes_point_at_what_they_came_from(record):
    def loops(a, b):
        for i, x in enumerate(zip(a, b)):
            pass
        total = 0
        a[i + 1] += total

    rec = record(loops)
    # the hidden index and the element assignments: at the target
    temps = [a[1:] for a in rec.of("variable") if a[0] == ""]
    assert temps[0] == _find(loops, "i, x")
    # len() and min() made for zip: at the iterable
    lens = [a[-2:] for a in rec.of("call")]
    assert _find(loops, "zip(a, b)") in lens
    # the augmented assignment's temporary index: at the index
    assert temps[-1] == _find(loops, "i + 1")


def test_unicode_before_a_node_counts_in_characters(record):
    def kernel(a):
        a[0] = 1 if "é" == "é" else 2  # noqa: PLR0133

    try:
        record(kernel)
    except cuda.TypingError as e:
        assert (e.lineno, e.col) == _find(kernel, '"é" ==')
    else:
        raise AssertionError("strings are refused")


def test_a_docstring_less_indented_than_its_function_does_not_shift_columns():
    def kernel(a):
        """A docstring
whose second line starts the file's line: dedent cannot remove the indentation."""
        a[0] = [1]

    try:
        dump_ir = cuda.jit(kernel).function_ir
    except cuda.TypingError as e:
        assert (e.lineno, e.col) == _find(kernel, "[1]")
        assert e.source_line.endswith("a[0] = [1]")
    else:
        raise AssertionError(f"lists are refused, got {dump_ir.dump()}")

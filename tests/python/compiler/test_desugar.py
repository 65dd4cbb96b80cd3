"""Each of Python's sugars the walker takes out (docs/compiler.md, "The
IR"), checked on the IR listing."""

import pytest

from compiler_support import dump, expected
from cuforge import cuda


def elif_chain(a, x):
    if x < 0:
        a[0] = -1
    elif x == 0:
        a[0] = 0
    elif x < 10:
        a[0] = 1
    else:
        a[0] = 2


def test_elif_nests_in_the_else_block():
    assert dump(elif_chain) == expected("""
        def elif_chain(a, x):
            if (x < 0):
                a[0] = -1
            else:
                if (x == 0):
                    a[0] = 0
                else:
                    if (x < 10):
                        a[0] = 1
                    else:
                        a[0] = 2
        """)


def augmented(a, b, i, j, x):
    x += 1
    x -= i
    x *= 2
    x /= 3
    x //= 4
    x %= 5
    x **= 2
    x <<= 1
    x >>= 1
    x |= 1
    x ^= 3
    x &= 7
    a[i] += x
    a[i, j] *= 2
    a[i + 1] -= 1
    b[a[i], j + 1] += a[j]
    a[1:i] += 1
    a[i:j + 1:2] += 1


def test_augmented_assignment():
    assert dump(augmented) == expected("""
        def augmented(a, b, i, j, x):
            x = (x + 1)
            x = (x - i)
            x = (x * 2)
            x = (x / 3)
            x = (x // 4)
            x = (x % 5)
            x = (x ** 2)
            x = (x << 1)
            x = (x >> 1)
            x = (x | 1)
            x = (x ^ 3)
            x = (x & 7)
            a[i] = (a[i] + x)
            a[(i, j)] = (a[(i, j)] * 2)
            $t5 = (i + 1)
            a[$t5] = (a[$t5] - 1)
            $t6 = a[i]
            $t7 = (j + 1)
            b[($t6, $t7)] = (b[($t6, $t7)] + a[j])
            a[slice(1, i, <none>)] = (a[slice(1, i, <none>)] + 1)
            $t8 = (j + 1)
            a[slice(i, $t8, 2)] = (a[slice(i, $t8, 2)] + 1)
        """)


def augmented_object_only(rows, i):
    rows[i][0] += 2


def test_augmented_assignment_evaluates_the_object_once():
    assert dump(augmented_object_only) == expected("""
        def augmented_object_only(rows, i):
            $t2 = rows[i]
            $t2[0] = ($t2[0] + 2)
        """)


def augmented_attribute(a):
    a.shape += 1


def augmented_field(rows, i):
    rows[i].x += 2


def test_augmented_assignment_to_an_attribute_evaluates_the_object_once():
    # A record's field (r.x += 2); the typer refuses any other attribute (test_records.py).
    assert dump(augmented_attribute) == expected("""
        def augmented_attribute(a):
            a.shape = (a.shape + 1)
        """)
    assert dump(augmented_field) == expected("""
        def augmented_field(rows, i):
            $t2 = rows[i]
            $t2.x = ($t2.x + 2)
        """)


def chains(a, i, n, m):
    ok = 0 <= i < n
    ok2 = 0 <= i < n <= m
    ok3 = a[i] < a[i + 1] < a[i + 2]
    if i < n and 0 < a[i] < 10:
        a[i] = 0
    ok4 = i < n or a[0] < a[1] < a[2]
    ok5 = len(a) < i < n


def test_chained_comparisons():
    # Names and literals are read twice; other middle operands go into a
    # temporary (the first operand too when it is not simple, to keep
    # Python's order); statements a short-circuited operand needs run under
    # an if, only when Python would evaluate it.
    assert dump(chains) == expected("""
        def chains(a, i, n, m):
            ok = ((0 <= i) and (i < n))
            ok2 = ((0 <= i) and ((i < n) and (n <= m)))
            $t9 = a[i]
            $t10 = a[(i + 1)]
            ok3 = (($t9 < $t10) and ($t10 < a[(i + 2)]))
            $t12 = (i < n)
            if $t12:
                $t11 = a[i]
                $t12 = ((0 < $t11) and ($t11 < 10))
            if $t12:
                a[i] = 0
            $t15 = (i < n)
            if (not $t15):
                $t13 = a[0]
                $t14 = a[1]
                $t15 = (($t13 < $t14) and ($t14 < a[2]))
            ok4 = $t15
            ok5 = ((global(builtins.len)(a) < i) and (i < n))
        """)




def loops_range(a, n, lo, step):
    for i in range(n):
        a[i] = i
    for i in range(lo, n):
        a[i] = 0
    for i in range(n, lo, -1):
        a[i] = 1
    for i in range(lo, n, step):
        a[i] += step
    else:
        a[0] = 2


def loop_variable_reassigned(a, n):
    for i in range(n):
        i = i * 2
        a[i] = 1
    for j in range(n):
        for j in range(3):
            a[j] = 0


def loops_enumerate_zip(a, b, c, out):
    for i, x in enumerate(a):
        out[i] = x
    for i, x in enumerate(a, 1):
        out[i] = x
    for i, x in enumerate(a, start=n0):
        out[i] = x
    for x, y in zip(a, b):
        out[0] += x * y
    for x, y, z in zip(a, b, c):
        out[0] += x * y * z
    for i, (x, y) in enumerate(zip(a, b)):
        out[i] = x - y
    for pair in zip(a, b):
        out[0] = pair[0]
    for (x,) in zip(a):
        out[0] = x


n0 = 5


def loops_arrays(a, rows, out):
    for x in a:
        out[0] += x
    for row in rows:
        for v in row:
            out[1] += v
    for x in a[1:]:
        out[2] = x
    for t in rows:
        pass
    else:
        out[3] = 1


def while_loops(a, n):
    i = 0
    while i < n:
        i += 1
        if a[i] == 0:
            break
        if a[i] < 0:
            continue
    else:
        a[0] = 1
    while 0 < i < n:
        i -= 1
    while 0 < a[i] < n:
        i -= 1
        if i == 3:
            continue
    while 0 < a[i] < n:
        i -= 1
    else:
        a[1] = 2


def unpacking(a, b, t):
    a, b = b, a
    x, (y, z) = t
    [p, q] = b, a
    a[0], a[1] = a[1], a[0]
    u = v = a[0] + 1
    w = k = b
    r: float = 1.5
    s: int
    return


def misc(a, b):
    """A docstring is no statement."""
    "nor is a bare string"
    ...
    pass
    c = a if b else -a
    d = not a
    e = ~b
    f = +a
    g = -(a)
    h = a @ b
    i = a is None
    j = a is not None
    k = a in b
    m = a not in b
    n = a and b or not a
    o = (a, b, (a,), ())
    return -1


def asserts_and_raises(a, n):
    assert n > 0
    assert n < 10, "n must be below 10"
    assert n != 3, ("three is " + "unlucky")
    if n == 4:
        raise ValueError("four")
    if n == 5:
        raise IndexError


def conditional_with_statements(a, i, n):
    x = 1 if i < n else (0 < a[i] < 2)
    y = (0 < a[i] < 2) if i < n else 3


def calls(a, b):
    cuda.atomic.add(a, 0, 1)
    cuda.local.array(shape=(2, 3), dtype=a.dtype)
    min(a, b, 3)
    max(key=a)


# --- the tests of the kernels above -------------------------------------------------


def test_for_over_range_is_for_range():
    assert dump(loops_range) == expected("""
        def loops_range(a, n, lo, step):
            for i in range(0, n, 1):
                a[i] = i
            for i in range(lo, n, 1):
                a[i] = 0
            for i in range(n, lo, -1):
                a[i] = 1
            for i in range(lo, n, step):
                a[i] = (a[i] + step)
            else:
                a[0] = 2
        """)


def test_a_loop_variable_the_body_assigns_is_a_copy_of_a_hidden_counter():
    assert dump(loop_variable_reassigned) == expected("""
        def loop_variable_reassigned(a, n):
            for $t4 in range(0, n, 1):
                i = $t4
                i = (i * 2)
                a[i] = 1
            for $t5 in range(0, n, 1):
                j = $t5
                for j in range(0, 3, 1):
                    a[j] = 0
        """)


def test_enumerate_and_zip_are_index_loops():
    assert dump(loops_enumerate_zip) == expected("""
        def loops_enumerate_zip(a, b, c, out):
            for $t9 in range(0, global(builtins.len)(a), 1):
                i = $t9
                x = a[$t9]
                out[i] = x
            for $t10 in range(0, global(builtins.len)(a), 1):
                i = ($t10 + 1)
                x = a[$t10]
                out[i] = x
            for $t11 in range(0, global(builtins.len)(a), 1):
                i = ($t11 + global(n0))
                x = a[$t11]
                out[i] = x
            for $t12 in range(0, global(builtins.min)(global(builtins.len)(a), global(builtins.len)(b)), 1):
                x = a[$t12]
                y = b[$t12]
                out[0] = (out[0] + (x * y))
            for $t13 in range(0, global(builtins.min)(global(builtins.len)(a), global(builtins.len)(b), global(builtins.len)(c)), 1):
                x = a[$t13]
                y = b[$t13]
                z = c[$t13]
                out[0] = (out[0] + ((x * y) * z))
            for $t14 in range(0, global(builtins.min)(global(builtins.len)(a), global(builtins.len)(b)), 1):
                i = $t14
                x = a[$t14]
                y = b[$t14]
                out[i] = (x - y)
            for $t15 in range(0, global(builtins.min)(global(builtins.len)(a), global(builtins.len)(b)), 1):
                pair = (a[$t15], b[$t15])
                out[0] = pair[0]
            for $t16 in range(0, global(builtins.len)(a), 1):
                x = a[$t16]
                out[0] = x
        """)  # noqa: E501


def test_for_over_arrays_indexes_them():
    assert dump(loops_arrays) == expected("""
        def loops_arrays(a, rows, out):
            for $t7 in range(0, global(builtins.len)(a), 1):
                x = a[$t7]
                out[0] = (out[0] + x)
            for $t8 in range(0, global(builtins.len)(rows), 1):
                row = rows[$t8]
                for $t9 in range(0, global(builtins.len)(row), 1):
                    v = row[$t9]
                    out[1] = (out[1] + v)
            $t10 = a[slice(1, <none>, <none>)]
            for $t11 in range(0, global(builtins.len)($t10), 1):
                x = $t10[$t11]
                out[2] = x
            for $t12 in range(0, global(builtins.len)(rows), 1):
                t = rows[$t12]
                pass
            else:
                out[3] = 1
        """)


def test_while_loops_and_conditions_that_need_statements():
    # A condition that needs statements is re-evaluated every iteration
    # (continue included); the else block runs only when the condition ends
    # the loop, not after a break.
    assert dump(while_loops) == expected("""
        def while_loops(a, n):
            i = 0
            while (i < n):
                i = (i + 1)
                if (a[i] == 0):
                    break
                if (a[i] < 0):
                    continue
            else:
                a[0] = 1
            while ((0 < i) and (i < n)):
                i = (i - 1)
            while True:
                $t3 = a[i]
                if (not ((0 < $t3) and ($t3 < n))):
                    break
                i = (i - 1)
                if (i == 3):
                    continue
            $t5 = False
            while True:
                $t4 = a[i]
                if (not ((0 < $t4) and ($t4 < n))):
                    $t5 = True
                    break
                i = (i - 1)
            if $t5:
                a[1] = 2
        """)


def test_tuple_unpacking_and_several_targets():
    assert dump(unpacking) == expected("""
        def unpacking(a, b, t):
            (a, b) = (b, a)
            (x, (y, z)) = t
            (p, q) = (b, a)
            (a[0], a[1]) = (a[1], a[0])
            $t14 = (a[0] + 1)
            u = $t14
            v = $t14
            w = b
            k = b
            r = 1.5
            return None
        """)


def test_expressions_and_bare_statements():
    assert dump(misc) == expected("""
        def misc(a, b):
            pass
            pass
            c = (a if b else (- a))
            d = (not a)
            e = (~ b)
            f = (+ a)
            g = (- a)
            h = (a @ b)
            i = (a is None)
            j = (a is not None)
            k = (a in b)
            m = (a not in b)
            n = ((a and b) or (not a))
            o = (a, b, (a,), ())
            return -1
        """)


def test_asserts_keep_their_message_and_raises_their_text(record):
    rec = record(asserts_and_raises)
    assert rec.ir.dump() == expected("""
        def asserts_and_raises(a, n):
            assert (n > 0)
            assert (n < 10), n must be below 10
            assert (n != 3), 'three is ' + 'unlucky'
            if (n == 4):
                raise global(ValueError('four'))
            if (n == 5):
                raise global(IndexError)
        """)
    messages = [args[1] for args in rec.of("assert_")]
    assert messages == ["", "n must be below 10", "'three is ' + 'unlucky'"]
    raised = [(g["kind"], g["cls"], g["message"]) for (g,) in rec.of("global_")]
    assert raised == [("exception", "ValueError", "four"), ("exception", "IndexError", None)]


def test_conditional_expressions_that_need_statements():
    assert dump(conditional_with_statements) == expected("""
        def conditional_with_statements(a, i, n):
            if (i < n):
                $t6 = 1
            else:
                $t5 = a[i]
                $t6 = ((0 < $t5) and ($t5 < 2))
            x = $t6
            if (i < n):
                $t7 = a[i]
                $t8 = ((0 < $t7) and ($t7 < 2))
            else:
                $t8 = 3
            y = $t8
        """)


def test_calls_keep_positional_then_keyword_arguments(record):
    rec = record(calls)
    assert rec.ir.dump() == expected("""
        def calls(a, b):
            global(cuda).atomic.add(a, 0, 1)
            global(cuda).local.array(shape=(2, 3), dtype=a.dtype)
            global(builtins.min)(a, b, 3)
            global(builtins.max)(key=a)
        """)
    keywords = [args[2] for args in rec.of("call")]
    assert keywords == [[], ["shape", "dtype"], [], ["key"]]


def test_literals_are_weak_constants_of_their_python_type(record):
    rec = record(misc)
    values = [(args[0], args[1]) for args in rec.of("constant")]
    assert (-1, True) in values  # -1 is one literal, not neg(1)
    assert all(weak is True for _, weak in values)
    assert rec.of("typed_constant") == []
    values = [args[0] for args in record(unpacking).of("constant")]
    # a[0], a[1] = a[1], a[0]: the value before the targets, as Python evaluates them
    assert values == [1, 0, 0, 1, 0, 1, 1.5] and isinstance(values[-1], float)


def range_forms(a, n):
    for i in range(n, step=2):
        pass


def range_too_many(a, n):
    for i in range(0, n, 1, 2):
        pass


def zip_bad_range(a, n):
    for i, j in zip(a, range(1, n, 1, 2)):
        pass


def unpack_mismatch(a, b):
    for i, j, k in enumerate(a):
        pass


def zip_strict(a, b):
    for x, y in zip(a, b, strict=True):
        pass


@pytest.mark.parametrize(
    "kernel, message",
    [
        (range_forms, "range() takes no keyword arguments"),
        (range_too_many, "range expected 1 to 3 arguments, got 4"),
        (zip_bad_range, "range expected 1 to 3 arguments, got 4"),
        (unpack_mismatch, "cannot unpack 2 values into 3 targets"),
        (zip_strict, "zip() keyword arguments"),
    ],
)
def test_loops_the_walker_refuses(kernel, message):
    with pytest.raises(cuda.TypingError) as info:
        dump(kernel)
    assert message in str(info.value)


def shadowed_range(a, range):
    for i in range(3):
        a[i] = 0


def test_a_range_that_is_not_the_builtin_is_iterated_like_any_object():
    assert dump(shadowed_range) == expected("""
        def shadowed_range(a, range):
            $t3 = range(3)
            for $t4 in range(0, global(builtins.len)($t3), 1):
                i = $t3[$t4]
                a[i] = 0
        """)

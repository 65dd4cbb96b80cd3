"""Functions in the kernel language's shapes, for the bytecode frontend's
tests: each is decompiled, compiled back and run beside the original on
the same arguments (tests/python/compiler/test_bytecode_frontend.py). Every
function takes three ints and returns a value made from them; a list
``buf`` stands for an array."""

import math


def if_else(a, b, c):
    if a < b:
        x = a
    else:
        x = b
    return x


def elif_chain(a, b, c):
    if a < 0:
        r = 1
    elif a == 0:
        r = 2
    elif b > c:
        r = 3
    else:
        r = 4
    return r


def and_or(a, b, c):
    r = 0
    if a > 0 and b > 0:
        r += 1
    if a > 0 or b > 0:
        r += 10
    if a > 0 and b > 0 or c > 0:
        r += 100
    if a > 0 and (b > 0 or c > 0):
        r += 1000
    if (a > 0 or b > 0) and c > 0:
        r += 10000
    if not a > 0 and b > 0:
        r += 100000
    if a > 0 and not b > 0:
        r += 1000000
    if not (a > 0 or b > 0):
        r += 10000000
    return r


def nested_ifs(a, b, c):
    r = 0
    if a > 0:
        if b > 0:
            r = 1
        else:
            r = 2
    else:
        if c > 0:
            r = 3
    return r


def guard_returns(a, b, c):
    if a < 0:
        return -1
    if b < 0:
        return -2
    return a + b + c


def ternaries(a, b, c):
    x = a if a > b else b
    y = (a if c > 0 else b) if x > 1 else c
    z = 1 if a > 0 and b > 0 else 2
    return x + y * 3 + z * 7


def value_boolops(a, b, c):
    x = a and b
    y = a or b
    z = a and b and c
    w = a or b or c
    v = (a and b) or c
    return (x, y, z, w, v)


def chained(a, b, c):
    r = 0
    if a < b < c:
        r += 1
    if a <= b == c:
        r += 2
    if 0 < a < b < c:
        r += 4
    x = a < b <= c
    return r, x, a < b < c


def chained_return(a, b, c):
    return a < b <= c


def for_range(a, b, c):
    s = 0
    for i in range(a % 7):
        s += i
    for i in range(1, b % 9, 2):
        s += i * 3
    return s


def for_break_continue(a, b, c):
    s = 0
    for i in range(10):
        if i == a % 10:
            continue
        if i > b % 10:
            break
        s += i
    return s


def for_else(a, b, c):
    s = 0
    for i in range(a % 5):
        if i == b % 5:
            s = -1
            break
        s += 1
    else:
        s += 100
    return s


def nested_loops(a, b, c):
    s = 0
    for i in range(a % 6):
        for j in range(b % 6):
            if j > i:
                break
            if (i + j) % 2:
                continue
            s += i * j
        else:
            s += 1
    return s


def while_loop(a, b, c):
    i = 0
    s = 0
    while i < a % 20:
        s += i
        i += 1
    return s


def while_complex(a, b, c):
    i = 0
    s = 0
    while i < 30 and s < b % 50 + 5:
        i += 1
        if i % 3 == 0:
            continue
        if i > c % 25 + 3:
            break
        s += i
    else:
        s = -s
    return s


def while_true(a, b, c):
    i = 0
    while True:
        i += 1
        if i > a % 10:
            break
    return i


def return_in_loop(a, b, c):
    for i in range(10):
        if i * i > a % 50:
            return i
    return -1


def return_in_while(a, b, c):
    i = a % 10
    while i < 20:
        if i == b % 20:
            return i * 2
        i += 1
    return 0


def tuples(a, b, c):
    a, b = b, a
    x, y, z = c, a, b
    p = q = a + b
    t = (a, b)
    u, v = t
    return a, b, x, y, z, p, q, u, v


def aug_assign(a, b, c):
    buf = [a, b, c]
    buf[1] += a
    buf[a % 3] *= 2
    buf[2] -= buf[0]
    x = a
    x //= (b % 5) + 1
    x **= 2
    x <<= 1
    x |= c & 7
    return buf, x


class _Rec:
    def __init__(self, v):
        self.v = v


def attributes(a, b, c):
    r = _Rec(a)
    r.v += b
    r.v = r.v * 2
    return r.v


def unpack_loop(a, b, c):
    s = 0
    for i, x in enumerate((a, b, c)):
        s += i * x
    for x, y in zip((a, b), (b, c)):
        s += x - y
    return s


def calls(a, b, c):
    x = max(a, b)
    y = min(a, b, c)
    z = abs(a - c)
    w = round(a / 3.0, ndigits=2)
    v = math.floor(b / 2.5)
    return x, y, z, w, v


def unary_and_is(a, b, c):
    r = -a + (+b) + ~c
    n = None if a > b else a
    if n is None:
        r += 1
    if n is not None:
        r += 2
    if a in (1, 2, 3):
        r += 4
    if b not in (4, 5):
        r += 8
    return r, not a


def slices(a, b, c):
    buf = [a, b, c, a + b, b + c]
    x = buf[1:3]
    y = buf[::2]
    z = buf[:-1]
    buf[0:2] = [c, c]
    return x, y, z, buf


def asserts(a, b, c):
    assert a > -10**9, "too small"
    assert b > -10**9
    return a


def raises(a, b, c):
    if a == 12345:
        raise ValueError("a is 12345")
    return b


def constants(a, b, c):
    x = -1
    y = 2 ** 10
    z = (1, 2, (3, 4))
    w = 1e3 * 2
    return x + y + z[2][1] + w + a


def floats(a, b, c):
    x = a / (b if b != 0 else 1)
    y = float(c) ** 0.5 if c >= 0 else 0.0
    return x + y


def early_exit_nested(a, b, c):
    s = 0
    for i in range(5):
        for j in range(5):
            if i * j == a % 7:
                return s
            s += 1
        if s > b % 30:
            break
    return s


def while_if_else_in_loop(a, b, c):
    i = 0
    s = 0
    while i < 10:
        if (a + i) % 3 == 0:
            s += 1
        elif (b + i) % 3 == 1:
            s += 2
        else:
            s -= 1
        i += 1
    return s


def if_at_loop_end(a, b, c):
    s = 0
    for i in range(8):
        s += 1
        if i == a % 8:
            s += 10
    return s


def loop_with_ternary_cond(a, b, c):
    s = 0
    for i in range(6):
        s += (i if i % 2 else -i) if a > 0 else b
    return s


def grid_stride(a, b, c):
    buf = [0] * 16
    start = a % 4
    stride = b % 3 + 1
    for i in range(start, len(buf), stride):
        buf[i] = i * 2
    i = start
    while i < len(buf):
        buf[i] += 1
        i += stride
    return buf


def pass_and_ellipsis(a, b, c):
    if a > 0:
        pass
    else:
        b = 2
    ...
    return b


def no_return(a, b, c):
    buf = [0]
    if a > b:
        buf[0] = 1


def defaults(a, b, c=3, d=4.5):
    return a + b + c + d


def varargs(a, *rest):
    return a + len(rest)


lam = lambda a, b, c: a * b + c  # noqa: E731


def _bump(log, v):
    log[0] = log[0] * 10 + v % 7 + 1
    return log[0]


def eval_order(a, b, c):
    log = [0]
    x, y = _bump(log, a), _bump(log, b)
    y, x = _bump(log, c), _bump(log, a)
    return x, y, log[0]


def if_continue_mid_loop(a, b, c):
    s = 0
    for i in range(10):
        if not i % 3:
            continue
        s += i
        if i > a % 10:
            s += 1
    return s


def nested_unpack(a, b, c):
    nested = ((a, b), (c, (a + 1, b + 1)))
    (e, f), (g, (h, j)) = nested
    s = 0
    for i, (x, y) in enumerate(zip((a, b), (c, a))):
        s += i * x - y
    for (p, q), r in ((a, b), c), ((b, c), a):
        s += p * q - r
    return e, f, g, h, j, s


def and_at_end(a, b, c):
    if a > 0 and b > 0 and c > 0:
        raise ValueError("all positive")


def long_loop_body(a, b, c):
    s = 0
    for i in range(a % 5 + 3):
        s += i * 1 + b
        s += i * 2 + b
        s += i * 3 + c
        s += i * 4 + c
        s -= i * 5 + a
        s += i * 6 + b
        s += i * 7 + c
        s -= i * 8 + a
        s += i * 9 + b
        s += i * 10 + c
        s -= i * 11 + a
        s += i * 12 + b
        if s > 1000:
            s //= 3
        s += i * 13 + c
        s -= i * 14 + a
        s += i * 15 + b
        s += i * 16 + c
        s -= i * 17 + a
        s += i * 18 + b
        s += i * 19 + c
        s -= i * 20 + a
        s += i * 21 + b
        s += i * 22 + c
    return s


# --- proc_*(buf, ...): written like kernels, into a list, without a return ---------------------

def proc_grid_stride(buf, start, n, c):
    i = start % 3
    while i < len(buf):
        buf[i] = i * n if i % 2 else -i
        i += 2


def proc_guard(buf, i, a, c):
    i = i % 10
    if i < len(buf) and a > 0:
        buf[i] += a


def proc_guard_else(buf, i, a, c):
    i = i % 8
    if i < len(buf):
        if a > 0:
            buf[i] = a
        else:
            buf[i] = -a
    else:
        buf[0] = 99


def proc_early_return(buf, i, a, c):
    if i < 0:
        return
    buf[i % 8] = a
    if a > c:
        return
    buf[0] += 1


def proc_for_if_end(buf, a, b, c):
    for i in range(len(buf)):
        if buf[i] > a:
            buf[i] = a


def proc_while_if_end(buf, a, b, c):
    i = 0
    while i < len(buf):
        if buf[i] % 2 == 0 and buf[i] > b:
            buf[i] //= 2
        i += 1


def proc_nested_loops(buf, a, b, c):
    for i in range(len(buf)):
        for j in range(i):
            if buf[j] > buf[i]:
                buf[i], buf[j] = buf[j], buf[i]


def proc_while_break(buf, a, b, c):
    i = 0
    while True:
        if i >= len(buf) or buf[i] == a:
            break
        buf[i] = b
        i += 1


def proc_chained_guard(buf, i, a, c):
    if 0 <= i < len(buf) and -5 < a <= 5:
        buf[i] = a


def proc_ternary_store(buf, a, b, c):
    for i in range(len(buf)):
        buf[i] = buf[i] if buf[i] > a else (b if c > 0 else -b)


def loops_that_never_loop(a, b, c):
    s = 0
    for i in range(a % 4):
        s += i + 1
        break
        s += 100
    while b > 0:
        s += 10
        break
    for i in range(3):
        if c > 0:
            return s * 2
        else:
            return s * 3
    return s


def _count(*args):
    return len(args) * 10 + (args[0] if args else 0)


def star_calls(a, b, c):
    t = (a, b)
    return _count(*t), _count(c, *t), _count(*(1, 2), c), _count()


def proc_while_ending_for_body(buf, a, b, c):
    for i in range(3):
        n = a % 4
        while n > 0 and buf[n] != b:
            n -= 1
            buf[n] += 1


def fstrings(a, b, c):
    assert a > -100, f"a is {a}"
    return f"{a}-{b!r}:{c:>4}{'' if c else '!'}"


def mixed_boolops(a, b, c):
    x = (a and b) or c
    y = (a or b) and c
    z = 1 if not a else 2
    w = (a > 0 and b) or (c < 0 and a)
    return x, y, z, w


def return_const_in_loop(a, b, c):
    for i in range(a % 3):
        return 1.5
    for j in range(b % 4):
        if j == c % 4:
            return -1
    return 0


def ternary_tested(a, b, c):
    v, w = (1, 2) if ((a if c > 0 else b) and c % 3) else (b, 3)
    if (a > 0 if b > 0 else c > 0) or a == b:
        v += 10
    return v, w

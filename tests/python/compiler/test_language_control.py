"""Statements, tuples, device functions, globals and closures end to end:
each kernel here is also plain Python, so Python running it on NumPy arrays
is the reference (device functions called through their ``py_func``)."""

import numpy as np
import pytest

from compiler_support import needs_codegen
from cuforge import cuda
from cuforge import float32, int16
from language_support import result_types

pytestmark = needs_codegen


@cuda.jit(device=True)
def divmod_(a, b):
    return a // b, a % b


@cuda.jit(device=True)
def reverse3(t):
    a, b, c = t
    return c, b, a


@cuda.jit(device=True)
def first_square_above(x):
    if x < 0:
        return -1
    for i in range(100):
        if i * i > x:
            return i
    return 100


@cuda.jit(device=True)
def min_max_sum(a, i):
    return min(a[i], a[i + 1]), max(a[i], a[i + 1]), a[i] + a[i + 1]


def as_python(kernel_fn):
    """The kernel's function with its device functions replaced by their
    Python bodies: what Python computes for it."""
    import types

    g = dict(kernel_fn.__globals__)
    for name, v in kernel_fn.__globals__.items():
        if isinstance(v, cuda.Dispatcher):
            g[name] = v.py_func
    return types.FunctionType(kernel_fn.__code__, g, closure=kernel_fn.__closure__)


def branches_and_loops(n, a, out):
    s = 0
    for i in range(n):  # if / elif / else
        if i % 3 == 0:
            s += 1
        elif i % 3 == 1:
            s += 10
        else:
            s += 100
    out[0] = s
    t = 0
    for i in range(5):  # range with one, two and three arguments, negative steps, empty
        t += i
    for i in range(2, 9):
        t += i * 10
    for i in range(10, 0, -3):
        t += i * 100
    for i in range(-1, -10, -2):
        t += i * 1000
    for i in range(5, 5):
        t += 999999
    for i in range(n, -n, -(n // 2)):
        t += i * 100000
    out[1] = t
    k = 0
    acc = 0
    while True:  # while, break, continue
        k += 1
        if k > 20:
            break
        if k % 2:
            continue
        acc += k
    out[2] = acc
    found = -1
    for i in range(n):  # for-else: break skips the else
        if i * i > 30:
            found = i
            break
    else:
        found = -2
    out[3] = found
    for i in range(3):
        pass
    else:
        found += 100
    out[4] = found
    w = 0
    while w < len(a):  # while-else
        if a[w] < 0:
            break
        w += 1
    else:
        w += 1000
    out[5] = w
    total = 0.0
    for i in range(len(a) - 1, -1, -1):  # backwards over an array
        total = total * 2 + a[i]
    out[6] = total
    for i, x in enumerate(a):
        out[7] += (i + 1) * x
    for x, y in zip(a, a[1:]):
        out[8] += x * y
    for j, x in enumerate(a, 10):
        out[9] += j * x
    for i in range(3):
        i = i * 10  # assigning the loop variable does not change the iteration
        out[10] += i


def expressions(n, a, out):
    x = n
    out[0] = (x if x > 5 else -x) + (1 if not x else 2)  # conditional expressions, not
    out[1] = (0 < x < 10) + (0 < x > 10) * 10 + (x == 7 != 8) * 100 + (1 < 2 < 3 < 4 < x) * 1000
    out[2] = (x and 3) + (0 or 5) + (x > 100 or 11) + (0 and 99) + (a[0] < 0 or a[1])  # and / or
    out[3] = not (x < 3 and x > 1) or x == 2
    y = 10
    y += 3  # every augmented assignment
    y -= 1
    y *= 4
    y //= 5
    y %= 7
    y **= 3
    y <<= 2
    y >>= 1
    y |= 1
    y &= 0xFF
    y ^= 0x0F
    out[4] = y
    z = 1.5
    z /= 4
    z -= 1
    out[5] = z
    a[2] += 1  # on array elements: the index evaluated once
    a[n % 3 - 3] *= 2
    out[6] = a[2] + a[0]
    out[7] = -x + +x - ~x


def tuples(n, a, out):
    q, r = divmod_(17, -5)  # returned from device functions
    out[0] = q * 100 + r
    tt = (1, 2.5, n)
    c, b, a0 = reverse3(tt)
    out[1] = a0 * 100 + b * 10 + c
    out[2] = tt[1] * 2 + tt[-1] + len(tt) + tt[0:2][1]
    u, v = n, n + 1
    u, v = v, u  # swap
    out[3] = u * 10 + v
    nested = ((1, 2), (3, (4, 5)))
    (e, f), (g, (h, j)) = nested
    out[4] = e + f * 10 + g * 100 + h * 1000 + j * 10000
    lo, hi, s = min_max_sum(a, 1)
    out[5] = lo * 100 + hi * 10 + s
    out[6] = first_square_above(n) + first_square_above(-n) + first_square_above(10**5)
    t2 = (n, 2) + (3,)
    out[7] = t2[0] + t2[2] + len(t2 * 2)
    p = (a[0], a[1])
    out[8] = p[0] - p[1] if p else 0
    shape = a.shape
    out[9] = shape[0] + len(shape)


@pytest.mark.parametrize("fn", [branches_and_loops, expressions, tuples], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [8, 3])
def test_statements_compute_what_python_computes(fn, n):
    a = np.array([3.0, -1.5, 2.0, 4.0])
    want_a, want = a.copy(), np.zeros(11)
    as_python(fn)(n, want_a, want)
    got = np.zeros(11)
    cuda.jit(fn)[1, 1](n, a, got)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, want_a)


def test_tuples_returned_from_device_functions_have_tuple_types():
    assert result_types(divmod_, "int32", "int32") == (np.dtype("int64"),) * 2
    assert result_types(divmod_, "float32", "int8") == (np.dtype("float32"),) * 2


# --- globals and closures: compile-time constants ------------------------------------------------

N = 7
F = 2.5
C = 1 + 2j
B = True
TUP = (1, 2.0, (3, 4))
NP_F32 = np.float32(1.5)
NP_I8 = np.int8(100)
NP_U64 = np.uint64(2**63 + 5)
TABLE = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
ITABLE = np.arange(10, dtype=np.int16)


def globals_(out, iout):
    out[0] = N + F
    out[1] = C.real + C.imag * 10
    out[2] = B + TUP[0] + TUP[1] + TUP[2][1]
    out[3] = NP_F32 * 2
    iout[0] = NP_I8 + NP_I8  # NumPy scalars keep their type, and Numba widens int8 + int8 to int64
    iout[1] = NP_U64 // 2  # uint64 with a (signed) int64 literal computes in int64, as Numba's
    out[4] = TABLE[1, 2] + TABLE[0, 0] + TABLE.shape[1] + ITABLE[-1]  # small arrays: constant memory
    s = 0
    for i in range(len(ITABLE)):
        s += ITABLE[i]
    out[5] = s
    c = cuda.const.array_like(TABLE)
    out[6] = c[1, 1] + c.size
    a, b, (cc, d) = TUP
    out[7] = a + b + cc + d


def test_globals_are_compile_time_constants():
    out, iout = np.zeros(8), np.zeros(2, np.int64)
    cuda.jit(globals_)[1, 1](out, iout)
    assert out.tolist() == [9.5, 21.0, 8.0, 3.0, 19.0, 45.0, 11.0, 10.0]
    assert iout.tolist() == [200, -((2**63 - 5) // 2) - 1]

    def types_of_globals(x):
        return NP_F32 * 2, NP_I8 + NP_I8, N * x, F * x, TABLE[0, 0], ITABLE[0] + x

    assert result_types(cuda.jit(device=True)(types_of_globals), "float32") == tuple(
        np.dtype(t) for t in ["float64", "int64", "float64", "float64", "float64", "float32"])


def make_scaled(scale, offset, table, pair):
    @cuda.jit
    def scaled(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = table[i % len(table)] * scale + offset + pair[1]

    return scaled


def test_closure_variables_are_compile_time_constants():
    table = np.array([1.0, 2.0, 3.0], np.float32)
    out = np.zeros(7, np.float32)
    make_scaled(np.float32(2.0), 3, table, (0, 0.5))[1, 8](out)
    np.testing.assert_array_equal(out, np.tile(table, 3)[:7] * 2 + 3.5)
    out = np.zeros(4)
    make_scaled(-1.0, 0, np.arange(2.0), (1, 2))[1, 8](out)
    np.testing.assert_array_equal(out, [2.0, 1.0, 2.0, 1.0])


def test_a_global_changed_after_compiling_is_not_seen():
    # Numba's rule: globals are frozen into the specialisation.
    state = {"k": 1}

    def make():
        k = state["k"]

        @cuda.jit
        def f(out):
            out[0] = k

        return f

    f = make()
    out = np.zeros(1)
    f[1, 1](out)
    state["k"] = 2
    f[1, 1](out)
    assert out[0] == 1


def test_local_variables_take_the_promotion_of_what_is_assigned():
    def unify(a, flag):
        x = 1
        if flag:
            x = a  # int64 (the literal) with float32: float64, Numba's unification
        return x

    assert result_types(cuda.jit(device=True)(unify), "float32", "bool") == np.dtype("float64")
    assert result_types(cuda.jit(device=True)(unify), "int16", "bool") == np.dtype("int64")

    def mixed(a, b):
        x = a
        x = b
        return x

    assert result_types(cuda.jit(device=True)(mixed), "int8", "uint8") == np.dtype("int16")


def shared_typed(out):
    s = cuda.shared.array(4, float32)
    i = cuda.threadIdx.x
    s[i] = int16(i) * float32(1.5)
    cuda.syncthreads()
    out[i] = s[3 - i]


def test_dtype_globals_convert():
    out = np.zeros(4, np.float32)
    cuda.jit(shared_typed)[1, 4](out)
    np.testing.assert_array_equal(out, [4.5, 3.0, 1.5, 0.0])


@cuda.jit
def early_return(out, n):
    i = cuda.grid(1)
    if i >= n:
        return
    out[i] = i
    if i % 2:
        return
    out[i] = -i


def test_return_from_a_kernel():
    out = np.full(40, 99)
    early_return[2, 32](out, 30)
    np.testing.assert_array_equal(out, [-i if i % 2 == 0 else i for i in range(30)] + [99] * 10)


@cuda.jit
def count_range(out, start, stop, step):
    n = 0
    for _ in range(start, stop, step):
        n += 1
    out[0] = n


@pytest.mark.parametrize("start, stop, step", [(0, 10, 3), (10, -10, -3), (127, -128, -1), (-2**63, 2**63 - 1, 2**62),
                                               (2**63 - 5, 2**63 - 1, 3), (5, -2**63, -2**62), (0, 10, 2**63 - 1)])
def test_range_lengths_near_the_int64_limits(start, stop, step):
    out = np.zeros(1, np.int64)
    count_range[1, 1](out, start, stop, step)
    assert out[0] == len(range(start, stop, step))


def test_range_with_a_zero_step_runs_no_iteration():
    # Python raises ValueError; a kernel cannot raise, so the loop is empty.
    out = np.full(1, -1, np.int64)
    count_range[1, 1](out, 0, 10, 0)
    assert out[0] == 0


# --- variables a read may reach unassigned ------------------------------------------------------


def _maybe_assigned(out, c):
    if c > 0:
        x = c * 2
    out[0] = x


def _assigned_in_a_loop(out, n):
    i = 0
    while i < n:
        y = i * 3
        i += 1
    out[0] = y


def _loop_variable_after(out, n):
    for j in range(n):
        pass
    out[0] = j


@pytest.mark.parametrize("fn, arg, want", [(_maybe_assigned, 0, 0), (_maybe_assigned, 3, 6),
                                           (_assigned_in_a_loop, 0, 0), (_assigned_in_a_loop, 4, 9),
                                           (_loop_variable_after, 0, 0), (_loop_variable_after, 3, 2)])
def test_a_variable_unassigned_on_the_path_taken_reads_zero(fn, arg, want):
    out = np.full(1, 7, np.int64)
    cuda.jit(fn)[1, 1](out, arg)
    assert out[0] == want


def _straight(out, x):
    a = x[0]
    b = a * 2.0
    c = b + a
    out[0] = c


def _maybe(out, x):
    if x[0] > 0:
        y = x[0] * 2.0
    out[0] = y


def test_only_variables_a_read_may_reach_unassigned_start_at_zero():
    # Zeroing every variable at the entry made each one live from there to its uses: mem2reg's
    # work grew with the square of a long kernel's size (issue 16 item 5).
    sig = "void(float64[:], float64[:])"
    straight = cuda.jit(sig, opt=False)(_straight).inspect_llvm(sig)
    assert straight.count("alloca double") == 3 and "store double 0.0" not in straight
    maybe = cuda.jit(sig, opt=False)(_maybe).inspect_llvm(sig)
    assert maybe.count("store double 0.0") == 1

"""Hand-picked edge cases for test_fuzz.py's crash-safe harness: constructs at
the edges of the language (odd shapes, dtypes, globals, calls, control flow,
sizes) that every compile must survive, compiling or refusing with a located
TypingError. Each is (name, signature, source put after EDGE_PRELUDE); the
kernel is ``k``."""

# ruff: noqa: E501

EDGE_PRELUDE = """\
import cmath, math
import numpy as np
from cuforge import cuda
from cuforge.types import float32, float64, int32, int64, uint8, boolean, float16
BIG = np.arange(100_000, dtype=np.float64)
OBJARR = np.array([1, None], dtype=object)
STRUCTARR = np.zeros(3, dtype=[("a", "f8")])
F16ARR = np.ones(4, np.float16)
NCARR = np.arange(16.0).reshape(4, 4)[::2, ::2]
ZEROD = np.array(5.0)
EMPTY = np.zeros(0)
CONSTARR = np.arange(4.0)
NESTED = (1, (2.0, 3))
NONE = None
DT64 = np.datetime64("2020-01-01")
NPBOOL = np.bool_(True)
NPU64 = np.uint64(2**63)
"""

CASES = [
("huge_local", "void(float32[::1])", """
def k(a):
    t = cuda.local.array(1000000000, float32)
    t[0] = 1
    a[0] = t[0]
"""),
("huge_shared", "void(float32[::1])", """
def k(a):
    t = cuda.shared.array(2**40, float32)
    t[0] = 1
    a[0] = t[0]
"""),
("shared_tuple_empty", "void(float32[::1])", """
def k(a):
    t = cuda.shared.array((), float32)
    a[0] = 1
"""),
("shared_zero_extent", "void(float32[::1])", """
def k(a):
    t = cuda.shared.array((0, 4), float32)
    a[0] = 1
"""),
("local_neg", "void(float32[::1])", """
def k(a):
    t = cuda.local.array((2, -3), float32)
    a[0] = 1
"""),
("for_else", "void(float32[::1])", """
def k(a):
    for i in range(3):
        if a[i] > 1:
            break
    else:
        a[0] = 5
"""),
("while_else", "void(float32[::1])", """
def k(a):
    i = 0
    while i < 3:
        i += 1
    else:
        a[0] = i
"""),
("multi_target", "void(float32[::1])", """
def k(a):
    x = y = 1
    a[0] = x + y
"""),
("swap", "void(float32[::1])", """
def k(a):
    a[0], a[1] = a[1], a[0]
"""),
("nested_unpack", "void(float32[::1])", """
def k(a):
    (x, (y, z)) = (1, (2.0, 3))
    a[0] = x + y + z
"""),
("annassign", "void(float32[::1])", """
def k(a):
    x: int = 1
    y: float32
    a[0] = x
"""),
("return_array_dev", "void(float32[::1])", """
@cuda.jit(device=True)
def tail(a):
    return a[1:]
def k(a):
    b = tail(a)
    b[0] = 3
"""),
("dev_writes_shared", "void(float32[::1])", """
@cuda.jit(device=True)
def fill(s, v):
    s[cuda.threadIdx.x] = v
def k(a):
    s = cuda.shared.array(32, float32)
    fill(s, 2.0)
    cuda.syncthreads()
    a[0] = s[0]
"""),
("mutual_recursion", "void(float32[::1])", """
@cuda.jit(device=True)
def f1(x):
    return f2(x - 1) if x > 0 else 0
@cuda.jit(device=True)
def f2(x):
    return f1(x - 1)
def k(a):
    a[0] = f1(3)
"""),
("dev_no_return_used", "void(float32[::1])", """
@cuda.jit(device=True)
def nothing(x):
    pass
def k(a):
    a[0] = nothing(1)
"""),
("dev_mixed_returns", "void(float32[::1])", """
@cuda.jit(device=True)
def mixed(x):
    if x > 0:
        return 1
    return (1, 2)
def k(a):
    a[0] = mixed(1)[0]
"""),
("dev_maybe_return", "void(float32[::1])", """
@cuda.jit(device=True)
def maybe(x):
    if x > 0:
        return 1.0
def k(a):
    a[0] = maybe(a[1])
"""),
("ellipsis_index", "void(float32[:, ::1])", """
def k(a):
    a[...] = 1
"""),
("empty_index", "void(float32[::1])", """
def k(a):
    a[()] = 1
"""),
("newaxis", "void(float32[::1])", """
def k(a):
    b = a[:, None]
"""),
("slice_store", "void(float32[::1])", """
def k(a):
    a[1:3] = 2
"""),
("slice_step0", "void(float32[::1])", """
def k(a):
    b = a[::0]
    a[0] = b[0]
"""),
("zero_d_array", "void(float32[::1])", """
def k(a):
    b = a[0:0]
    a[0] = len(b)
"""),
("three_d", "void(float64[:, :, ::1])", """
def k(a):
    i, j, l = cuda.grid(3)
    a[i, j, l] = a[i][j][l] + a[-1, -1, -1]
"""),
("f16", "void(float16[::1], float16[::1])", """
def k(a, b):
    i = cuda.grid(1)
    a[i] = b[i] * 2 + a[i] / b[i]
"""),
("f16_math", "void(float16[::1])", """
def k(a):
    a[0] = math.sin(a[1]) + abs(a[2])
"""),
("f16_atomic", "void(float16[::1])", """
def k(a):
    cuda.atomic.add(a, 0, 1)
"""),
("complex64", "void(complex64[::1])", """
def k(a):
    a[0] = a[1] * a[2] / a[3] + cmath.exp(a[4]) + abs(a[5])
"""),
("complex_cmp", "void(complex64[::1])", """
def k(a):
    if a[0] < a[1]:
        a[2] = 1
"""),
("atomic_complex", "void(complex128[::1])", """
def k(a):
    cuda.atomic.add(a, 0, 1j)
"""),
("atomic_2d", "void(int32[:, ::1])", """
def k(a):
    cuda.atomic.add(a, (0, 1), 1)
    cuda.atomic.max(a, (1, 0), 5)
"""),
("atomic_readonly", "void(Array(int32, 1, 'C', readonly=True))", """
def k(a):
    cuda.atomic.add(a, 0, 1)
"""),
("atomic_local", "void(int32[::1])", """
def k(a):
    l = cuda.local.array(4, int32)
    cuda.atomic.add(l, 0, 1)
    a[0] = l[0]
"""),
("atomic_cas", "void(int32[::1])", """
def k(a):
    old = cuda.atomic.cas(a, 0, 1, 2)
    a[1] = old
"""),
("atomic_cas_f", "void(float32[::1])", """
def k(a):
    old = cuda.atomic.cas(a, 0, 1.0, 2.0)
"""),
("atomic_bool", "void(boolean[::1])", """
def k(a):
    cuda.atomic.add(a, 0, True)
"""),
("atomic_u8", "void(uint8[::1])", """
def k(a):
    cuda.atomic.add(a, 0, 1)
"""),
("shadow_builtin", "void(float32[::1])", """
def k(a):
    range = 3
    for i in range(range):
        a[i] = i
"""),
("param_named_cuda", "void(float32[::1])", """
def k(cuda):
    cuda[0] = 1
"""),
("local_named_math", "void(float32[::1])", """
def k(a):
    math = 2
    a[0] = math.sqrt(4.0)
"""),
("no_params", "void()", """
def k():
    x = cuda.grid(1)
"""),
("return_in_loop", "void(float32[::1])", """
def k(a):
    for i in range(10):
        if a[i] > 0:
            return
        a[i] = 1
"""),
("int_min", "void(int64[::1])", """
def k(a):
    a[0] = -9223372036854775808
    a[1] = 0x8000000000000000
    a[2] = 1 << 100
    a[3] = 1 // 0
    a[4] = -9223372036854775808 // -1
    a[5] = 7 % 0
"""),
("float_edge", "void(float64[::1])", """
def k(a):
    a[0] = 1e400
    a[1] = 1.0 / 0.0
    a[2] = 0.0 // 0.0
    a[3] = 5.0 % 0.0
    a[4] = int(math.inf)
    a[5] = math.ldexp(1.0, 10**30)
"""),
("round_big", "void(float64[::1])", """
def k(a):
    a[0] = round(a[1], 10**20)
    a[1] = round(a[1], -400)
"""),
("pow_edge", "void(int64[::1])", """
def k(a):
    a[0] = a[1] ** -1
    a[2] = 0 ** -1
    a[3] = a[4] ** 100
    a[5] = (-1) ** a[6]
"""),
("factorial", "void(int64[::1])", """
def k(a):
    a[0] = math.factorial(3)
"""),
("np_float32_complex", "void(float32[::1])", """
def k(a):
    a[0] = np.float32(1j)
"""),
("dtype_builtin_float", "void(float32[::1])", """
def k(a):
    s = cuda.local.array(4, float)
    s[0] = 1
    a[0] = s[0]
"""),
("dtype_string", "void(float32[::1])", """
def k(a):
    s = cuda.local.array(4, 'float32')
"""),
("dtype_np_type", "void(float32[::1])", """
def k(a):
    s = cuda.local.array(4, np.dtype('float32'))
"""),
("shared_kw", "void(float32[::1])", """
def k(a):
    s = cuda.shared.array(shape=4, dtype=np.complex128)
    s[0] = 1j
    a[0] = s[0].imag
"""),
("shared_dyn_2d", "void(float32[::1])", """
def k(a):
    s = cuda.shared.array((0, 4), float32)
"""),
("const_non_global", "void(float32[::1])", """
def k(a):
    c = cuda.const.array_like(a)
"""),
("big_const", "void(float64[::1])", """
def k(a):
    a[0] = BIG[cuda.grid(1)]
"""),
("const_obj_array", "void(float64[::1])", """
def k(a):
    a[0] = OBJARR[0]
"""),
("const_struct_array", "void(float64[::1])", """
def k(a):
    a[0] = STRUCTARR[0]
"""),
("const_f16", "void(float64[::1])", """
def k(a):
    a[0] = F16ARR[1]
"""),
("const_nc", "void(float64[::1])", """
def k(a):
    a[0] = NCARR[1, 1] + ZEROD[()]
"""),
("const_empty", "void(float64[::1])", """
def k(a):
    a[0] = len(EMPTY)
"""),
("const_store", "void(float64[::1])", """
def k(a):
    CONSTARR[0] = 1
"""),
("global_tuple_nested", "void(float64[::1])", """
def k(a):
    a[0] = NESTED[1][0] + len(NESTED)
"""),
("global_none", "void(float64[::1])", """
def k(a):
    if NONE is None:
        a[0] = 1
"""),
("global_dt64", "void(float64[::1])", """
def k(a):
    a[0] = DT64
"""),
("global_npbool", "void(float64[::1])", """
def k(a):
    a[0] = NPBOOL + NPU64
"""),
("tuple_of_arrays", "void(UniTuple(float64[::1], 2))", """
def k(t):
    t[0][0] = t[1][0]
"""),
("empty_tuple", "void(Tuple(()))", """
def k(t):
    x = len(t)
"""),
("nested_tuple_param", "void(Tuple((int64, Tuple((float64, UniTuple(int32, 2))))), float64[::1])", """
def k(t, a):
    a[0] = t[0] + t[1][0] + t[1][1][1]
"""),
("deep_nest", "void(float64[::1])", "\ndef k(a):\n" + "".join("    " * (i + 1) + f"if a[{i % 3}] > {i}:\n" for i in range(60)) + "    " * 61 + "a[0] = 1\n"),
("long_chain", "void(float64[::1])", "\ndef k(a):\n    a[0] = a[1] < " + " < ".join(f"a[{i % 4}]" for i in range(300)) + "\n"),
("many_vars", "void(float64[::1])", "\ndef k(a):\n" + "".join(f"    v{i} = a[{i % 4}] * {i}\n" for i in range(1000)) + "    a[0] = " + " + ".join(f"v{i}" for i in range(0, 1000, 7)) + "\n"),
("syncthreads_in_dev", "void(float64[::1])", """
@cuda.jit(device=True)
def sync(x):
    cuda.syncthreads()
    return x
def k(a):
    a[0] = sync(a[1])
"""),
("bool_arith", "void(boolean[::1])", """
def k(a):
    a[0] = a[1] + a[2] - ~a[3] * -a[4] / a[5]
"""),
("bool_shift", "void(boolean[::1], int64[::1])", """
def k(a, b):
    b[0] = a[1] << a[2]
    b[1] = a[0] // a[1]
    b[2] = a[0] % a[1]
    b[3] = a[0] ** a[1]
"""),
("uint_mix", "void(uint64[::1], int64[::1])", """
def k(a, b):
    a[0] = a[1] + b[0]
    b[1] = b[0] // a[2]
    a[3] = a[a[4]]
"""),
("uint_index", "void(uint64[::1], int64[::1])", """
def k(a, b):
    b[a[0] + b[0]] = 1
"""),
("matmul_op", "void(float64[::1])", """
def k(a):
    a[0] = a[1] @ a[2]
"""),
("is_op", "void(float64[::1])", """
def k(a):
    if a is a:
        a[0] = 1
"""),
("in_op", "void(float64[::1])", """
def k(a):
    if 1 in (1, 2):
        a[0] = 1
    if a[0] in a:
        a[1] = 1
"""),
("raise_bare", "void(float64[::1])", """
def k(a):
    raise
"""),
("raise_debug", "void(float64[::1])", """
def k(a):
    if a[0] > 1:
        raise ValueError("too big")
"""),
("assert_fstring", "void(float64[::1])", """
def k(a):
    assert a[0] > 0, f"bad {a[0]}"
"""),
("assert_tuple", "void(float64[::1])", """
def k(a):
    assert (a[0], 1), "always true"
"""),
("if_tuple", "void(float64[::1])", """
def k(a):
    if (1, 2):
        a[0] = 1
    while (a[0], ):
        break
"""),
("if_array", "void(float64[::1])", """
def k(a):
    if a:
        a[0] = 1
"""),
("not_array", "void(float64[::1])", """
def k(a):
    a[0] = not a
"""),
("and_arrays", "void(float64[::1], float64[::1])", """
def k(a, b):
    c = a and b
    c[0] = 1
"""),
("ifexp_arrays", "void(float64[::1], float64[:])", """
def k(a, b):
    c = a if a[0] > 0 else b
    c[0] = 1
"""),
("reassign_param_array", "void(float64[::1], float64[:])", """
def k(a, b):
    a = b
    a[0] = 1
"""),
("array_var_unify", "void(float64[::1], int64[::1])", """
def k(a, b):
    c = a
    if a[0] > 0:
        c = b
    c[0] = 1
"""),
("loop_var_array", "void(float64[:, ::1])", """
def k(a):
    for row in a:
        for x in row:
            row[0] = x
"""),
("enumerate_start", "void(float64[::1])", """
def k(a):
    for i, x in enumerate(a, 5):
        a[i - 5] = x + i
"""),
("zip_three", "void(float64[::1], float64[::1], float64[::1])", """
def k(a, b, c):
    for x, y, z in zip(a, b, c):
        a[0] = x + y + z
"""),
("zip_tuple_target", "void(float64[::1], float64[::1])", """
def k(a, b):
    for t in zip(a, b):
        a[0] = t[0]
"""),
("enumerate_zip", "void(float64[::1], float64[::1])", """
def k(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        a[i] = x * y
"""),
("for_tuple", "void(float64[::1])", """
def k(a):
    for x in (1, 2.5, 3):
        a[0] += x
"""),
("for_hetero_tuple", "void(float64[::1])", """
def k(a):
    for x in (1, (2, 3)):
        a[0] = 1
"""),
("for_range_var", "void(float64[::1])", """
def k(a):
    r = range(3)
    for i in r:
        a[i] = 1
"""),
("loop_var_after", "void(float64[::1])", """
def k(a):
    for i in range(len(a)):
        pass
    a[0] = i
"""),
("loop_var_float_reassign", "void(float64[::1])", """
def k(a):
    for i in range(3):
        i = 0.5
        a[0] = i
"""),
("break_outside_nested", "void(float64[::1])", """
def k(a):
    while True:
        while True:
            break
        break
"""),
("infinite_no_break", "void(float64[::1])", """
def k(a):
    while True:
        a[0] += 1
"""),
("grid_kw", "void(float64[::1])", """
def k(a):
    a[0] = cuda.grid(ndim=1)
"""),
("threadidx_store", "void(float64[::1])", """
def k(a):
    cuda.threadIdx.x = 1
"""),
("shape_store", "void(float64[::1])", """
def k(a):
    a.shape[0] = 1
"""),
("tuple_store", "void(float64[::1])", """
def k(a):
    t = (1, 2)
    t[0] = 3
"""),
("complex_index", "void(float64[::1])", """
def k(a):
    a[1j] = 1
"""),
("bool_index", "void(float64[::1])", """
def k(a):
    a[True] = 1
"""),
("array_index_array", "void(float64[::1], int64[::1])", """
def k(a, b):
    a[b] = 1
"""),
("float_shape", "void(float64[::1])", """
def k(a):
    s = cuda.local.array(2.5, float32)
"""),
("shape_var", "void(float64[::1])", """
def k(a):
    n = 4
    s = cuda.local.array(n, float32)
    s[0] = 1
"""),
("shape_param", "void(float64[::1], int64)", """
def k(a, n):
    s = cuda.local.array(n, float32)
"""),
("fma_ints", "void(int64[::1])", """
def k(a):
    a[0] = cuda.fma(a[1], a[2], a[3])
"""),
("popc_float", "void(float64[::1])", """
def k(a):
    a[0] = cuda.popc(a[1])
"""),
("clz_u8", "void(uint8[::1])", """
def k(a):
    a[0] = cuda.clz(a[1]) + cuda.brev(a[2]) + cuda.ffs(a[3])
"""),
("clz_bool", "void(boolean[::1])", """
def k(a):
    a[0] = cuda.clz(a[1])
"""),
("min_mixed", "void(float64[::1])", """
def k(a):
    a[0] = min(1, 2.5, True, a[1])
    a[1] = max(1j, 2)
    a[2] = min(a)
    a[3] = min((1, 2))
"""),
("abs_bool", "void(float64[::1])", """
def k(a):
    a[0] = abs(True) + abs(-9223372036854775807 - 1)
"""),
("int_of_complex", "void(float64[::1])", """
def k(a):
    a[0] = int(1j) + float(2j)
"""),
("complex_of_complex", "void(complex128[::1])", """
def k(a):
    a[0] = complex(a[1], a[2])
"""),
("len_scalar", "void(float64[::1])", """
def k(a):
    a[0] = len(a[0])
"""),
("syncthreads_args", "void(float64[::1])", """
def k(a):
    cuda.syncthreads(1)
"""),
("grid_zero", "void(float64[::1])", """
def k(a):
    a[0] = cuda.grid(0)
"""),
("grid_var", "void(float64[::1], int64)", """
def k(a, n):
    a[0] = cuda.grid(n)
"""),
("warp_shfl", "void(float64[::1])", """
def k(a):
    a[0] = cuda.shfl_sync(0xffffffff, a[1], 0)
"""),
("laneid_store", "void(float64[::1])", """
def k(a):
    cuda.laneid = 1
"""),
("kernel_call_kernel", "void(float64[::1])", """
@cuda.jit
def inner(a):
    a[0] = 1
def k(a):
    inner(a)
"""),
("kernel_launch_in_kernel", "void(float64[::1])", """
@cuda.jit
def inner(a):
    a[0] = 1
def k(a):
    inner[1, 1](a)
"""),
("dev_kwargs", "void(float64[::1])", """
@cuda.jit(device=True)
def f(x, y):
    return x - y
def k(a):
    a[0] = f(y=1, x=3)
    a[1] = f(1, x=3)
"""),
("dev_too_many", "void(float64[::1])", """
@cuda.jit(device=True)
def f(x):
    return x
def k(a):
    a[0] = f(1, 2)
"""),
("dev_eager_mismatch", "void(float64[::1])", """
@cuda.jit("int32(int32)", device=True)
def f(x):
    return x
def k(a):
    a[0] = f(a[1])
"""),
("dev_eager_array", "void(float64[::1])", """
@cuda.jit("void(float64[::1])", device=True)
def f(x):
    x[0] = 1
def k(a):
    f(a)
    f(a[::2])
"""),
("dev_calls_kernel_global", "void(float64[::1])", """
def k(a):
    a[0] = k
"""),
("self_recursive_kernel", "void(float64[::1])", """
@cuda.jit
def rec(a):
    rec(a)
def k(a):
    a[0] = 1
"""),
("dev_returns_shared", "void(float64[::1])", """
@cuda.jit(device=True)
def mk():
    return cuda.shared.array(4, float64)
def k(a):
    s = mk()
    s[0] = 1
    a[0] = s[0]
"""),
("dev_returns_local", "void(float64[::1])", """
@cuda.jit(device=True)
def mk():
    l = cuda.local.array(4, float64)
    l[0] = 5
    return l
def k(a):
    l = mk()
    a[0] = l[0]
"""),
("dev_tuple_of_arrays", "void(float64[::1])", """
@cuda.jit(device=True)
def two(a):
    return a, a[1:]
def k(a):
    x, y = two(a)
    x[0] = y[0]
"""),
("dev_default_like", "void(float64[::1])", """
@cuda.jit(device=True)
def f(x, y=2):
    return x + y
def k(a):
    a[0] = f(1)
"""),
("tuple_param_writes", "void(UniTuple(int64, 2), int64[::1])", """
def k(t, a):
    t = (3, 4)
    a[0] = t[0]
"""),
("tuple_arith", "void(int64[::1])", """
def k(a):
    t = (1, 2) + (3,)
    u = (1, 2) * 2
    a[0] = t[2] + u[3] + len(t)
"""),
("tuple_compare", "void(int64[::1])", """
def k(a):
    if (1, 2) < (1, 3):
        a[0] = 1
    if (1, 2) == (1, 2.0):
        a[1] = 1
"""),
("tuple_index_var", "void(int64[::1])", """
def k(a):
    t = (1, 2, 3)
    a[0] = t[a[1]]
    a[1] = t[-4]
    a[2] = t[1:]
"""),
("tuple_hetero_index_var", "void(int64[::1])", """
def k(a):
    t = (1, 2.5, 3)
    a[0] = t[a[1]]
"""),
("shape_index_var", "void(float64[:, ::1])", """
def k(a):
    i = cuda.grid(1)
    a[0, 0] = a.shape[i] + a.strides[i % 2]
"""),
("big_tuple", "void(int64[::1])", "\ndef k(a):\n    t = (" + ", ".join(str(i) for i in range(64)) + ")\n    a[0] = t[a[1]]\n"),
("big_tuple_unpack", "void(int64[::1])", "\ndef k(a):\n    " + ", ".join(f"x{i}" for i in range(100)) + " = (" + ", ".join(str(i) for i in range(100)) + ")\n    a[0] = x99\n"),
("unpack_mismatch", "void(int64[::1])", """
def k(a):
    x, y = (1, 2, 3)
"""),
("unpack_scalar", "void(int64[::1])", """
def k(a):
    x, y = 1
"""),
("unpack_array", "void(int64[::1])", """
def k(a):
    x, y = a
"""),
("unpack_shape", "void(int64[:, ::1])", """
def k(a):
    n, m = a.shape
    a[0, 0] = n * m
"""),
("augassign_tuple", "void(int64[::1])", """
def k(a):
    t = (1, 2)
    t += (3,)
"""),
("augassign_array", "void(int64[::1])", """
def k(a):
    a += 1
"""),
("augassign_unbound", "void(int64[::1])", """
def k(a):
    x += 1
"""),
("use_before_assign", "void(int64[::1])", """
def k(a):
    a[0] = x
    x = 1
"""),
("assign_one_branch", "void(int64[::1])", """
def k(a):
    if a[0] > 0:
        x = 1
    a[1] = x
"""),
("type_change_branches", "void(int64[::1])", """
def k(a):
    if a[0] > 0:
        x = 1
    else:
        x = 1.5
    a[1] = x
"""),
("type_change_complex", "void(float64[::1])", """
def k(a):
    x = 1
    x = 1j
    a[1] = x
"""),
("store_complex_to_float", "void(float64[::1])", """
def k(a):
    a[0] = 1j
"""),
("store_tuple_to_float", "void(float64[::1])", """
def k(a):
    a[0] = (1, 2)
"""),
("store_array_to_elem", "void(float64[::1])", """
def k(a):
    a[0] = a
"""),
("readonly_store", "void(Array(float64, 1, 'C', readonly=True))", """
def k(a):
    a[0] = 1
"""),
("readonly_to_dev_writer", "void(Array(float64, 1, 'C', readonly=True))", """
@cuda.jit(device=True)
def w(x):
    x[0] = 1
def k(a):
    w(a)
"""),
("const_to_dev_writer", "void(float64[::1])", """
@cuda.jit(device=True)
def w(x):
    x[0] = 1
def k(a):
    c = cuda.const.array_like(CONSTARR)
    w(c)
"""),
("F_layout", "void(float64[::1, :])", """
def k(a):
    i, j = cuda.grid(2)
    a[i, j] = a[j, i] + a[i][j]
"""),
("A_layout_1d_slice", "void(float64[:])", """
def k(a):
    b = a[::-1]
    b[0] = a[1:][::3][0]
"""),
("attr_on_module_call", "void(float64[::1])", """
def k(a):
    a[0] = math.sqrt.__name__
"""),
("np_attr", "void(float64[::1])", """
def k(a):
    a[0] = np.pi + np.e + np.inf + np.nan + np.float64(1) + np.float32.__name__
"""),
("dtype_attr", "void(float64[::1])", """
def k(a):
    a[0] = a.dtype
"""),
("real_imag_array", "void(complex128[::1], float64[::1])", """
def k(a, b):
    b[0] = a.real[0] + a.imag[0]
"""),
("T_attr", "void(float64[:, ::1])", """
def k(a):
    a.T[0, 1] = 1
"""),
("conj_float", "void(float64[::1])", """
def k(a):
    a[0] = a[1].conjugate() + a[2].real + a[3].imag
"""),
("int_attrs", "void(int64[::1])", """
def k(a):
    a[0] = a[1].real + a[2].bit_length()
"""),
("cmath_phase", "void(complex128[::1], float64[::1])", """
def k(a, b):
    b[0] = cmath.phase(a[0]) + abs(cmath.polar(a[1])[0])
    a[2] = cmath.rect(1.0, 2.0)
    b[1] = cmath.isnan(a[3])
"""),
("math_on_complex", "void(complex128[::1], float64[::1])", """
def k(a, b):
    b[0] = math.sqrt(a[0])
"""),
("math_on_bool", "void(boolean[::1], float64[::1])", """
def k(a, b):
    b[0] = math.sqrt(a[0]) + math.floor(a[1]) + math.isnan(a[2])
"""),
("math_on_u64", "void(uint64[::1], float64[::1])", """
def k(a, b):
    b[0] = math.sqrt(a[0]) + math.log(a[1]) + math.atan2(a[2], 1)
"""),
("math_const_fold", "void(float64[::1])", """
def k(a):
    a[0] = math.sqrt(-1.0) + math.log(0.0) + math.acosh(0.5) + math.gamma(-1.0) + math.lgamma(0.0)
"""),
("math_domain_int", "void(int64[::1])", """
def k(a):
    a[0] = math.floor(math.nan) + math.ceil(math.inf) + round(math.nan)
"""),
("frexp_modf_f32", "void(float32[::1], int64[::1])", """
def k(a, b):
    m, e = math.frexp(a[0])
    f, i = math.modf(a[1])
    a[2] = m + f + i
    b[0] = e
"""),
("ldexp_f32", "void(float32[::1])", """
def k(a):
    a[0] = math.ldexp(a[1], 3)
"""),
("np_funcs", "void(float64[::1])", """
def k(a):
    a[0] = np.sqrt(a[1]) + np.sin(a[2]) + np.abs(a[3]) + np.exp(a[4]) + np.floor(a[5]) + np.minimum(a[6], 1) + np.fmax(a[1], a[2]) + np.sign(a[3]) + np.power(a[1], 2) + np.hypot(1, 2) + np.deg2rad(3)
"""),
("np_array_func", "void(float64[::1])", """
def k(a):
    a[0] = np.sum(a)
"""),
("np_sqrt_array", "void(float64[::1])", """
def k(a):
    b = np.sqrt(a)
"""),
("np_types", "void(float64[::1])", """
def k(a):
    a[0] = np.int8(300) + np.uint16(-1) + np.bool_(2) + np.float16(1.5) + np.complex64(1j).imag + np.intp(3) + np.uintp(3)
"""),
("np_type_on_array", "void(float64[::1])", """
def k(a):
    b = np.float32(a)
"""),
("np_datetime", "void(float64[::1])", """
def k(a):
    a[0] = np.datetime64(1, 's')
"""),
("types_call", "void(float64[::1])", """
def k(a):
    a[0] = float32(a[1]) + int32(a[2]) + uint8(a[3]) + boolean(a[4]) + float64(1j)
"""),
("types_call_two", "void(float64[::1])", """
def k(a):
    a[0] = float32(1, 2)
"""),
("types_call_none", "void(float64[::1])", """
def k(a):
    a[0] = float32()
"""),
("int_call_none", "void(float64[::1])", """
def k(a):
    a[0] = int() + float() + bool() + complex().real
"""),
("int_base", "void(float64[::1])", """
def k(a):
    a[0] = int(3, 10)
"""),
("none_ops", "void(float64[::1])", """
def k(a):
    x = None
    a[0] = x + 1
"""),
("none_compare", "void(float64[::1])", """
def k(a):
    x = None
    if x == None:
        a[0] = 1
"""),
("return_none_explicit", "void(float64[::1])", """
def k(a):
    return None
"""),
("return_value_kernel_zero", "void(float64[::1])", """
def k(a):
    if a[0]:
        return
    return 0
"""),
("dev_return_none_and_value", "void(float64[::1])", """
@cuda.jit(device=True)
def f(x):
    if x:
        return
    return 1
def k(a):
    a[0] = f(a[1])
"""),
("dev_only_raise", "void(float64[::1])", """
@cuda.jit(device=True)
def f(x):
    raise ValueError
def k(a):
    a[0] = f(a[1])
"""),
("dev_infinite", "void(float64[::1])", """
@cuda.jit(device=True)
def f(x):
    while True:
        pass
def k(a):
    a[0] = f(a[1])
"""),
("dev_param_array_none", "void(float64[::1])", """
@cuda.jit(device=True)
def f(x):
    return x
def k(a):
    a[0] = f(None)
"""),
("dev_param_module", "void(float64[::1])", """
@cuda.jit(device=True)
def f(m, x):
    return m.sqrt(x)
def k(a):
    a[0] = f(math, a[1])
"""),
("dev_param_function", "void(float64[::1])", """
@cuda.jit(device=True)
def g(x):
    return x * 2
@cuda.jit(device=True)
def f(fn, x):
    return fn(x)
def k(a):
    a[0] = f(g, a[1])
"""),
("dev_param_dtype", "void(float64[::1])", """
@cuda.jit(device=True)
def f(dt, x):
    s = cuda.local.array(2, dt)
    s[0] = x
    return s[0]
def k(a):
    a[0] = f(float32, a[1])
"""),
("dev_param_tuple", "void(float64[::1])", """
@cuda.jit(device=True)
def f(t):
    return t[0] + t[1]
def k(a):
    a[0] = f((a[1], 2)) + f((1, (2, 3))[1])
"""),
("assign_module", "void(float64[::1])", """
def k(a):
    m = math
    a[0] = m.sqrt(a[1])
"""),
("assign_function", "void(float64[::1])", """
def k(a):
    f = math.sqrt
    a[0] = f(a[1])
"""),
("assign_dtype", "void(float64[::1])", """
def k(a):
    d = float32
    a[0] = d(a[1])
"""),
("assign_devfn", "void(float64[::1])", """
@cuda.jit(device=True)
def g(x):
    return x * 2
def k(a):
    f = g
    a[0] = f(a[1])
"""),
("assign_shared_fn", "void(float64[::1])", """
def k(a):
    mk = cuda.shared.array
    s = mk(4, float64)
    s[0] = 1
"""),
("cuda_attr_chain", "void(float64[::1])", """
def k(a):
    a[0] = cuda.threadIdx
"""),
("cuda_atomic_value", "void(float64[::1])", """
def k(a):
    f = cuda.atomic
    f.add(a, 0, 1)
"""),
("syncthreads_value", "void(float64[::1])", """
def k(a):
    a[0] = cuda.syncthreads()
"""),
("cuda_module_store", "void(float64[::1])", """
def k(a):
    x = cuda
    a[0] = x.grid(1)
"""),
]

"""CUDA vector types in kernels, as numba-cuda 0.30 has them: cuda.int8x1 ..
cuda.float64x4 and their CUDA C names (cuda.float2, cuda.uchar4, ...), built
from numbers and from other vectors of the same element type, members
.x .y .z .w read (not written), passed to and returned from device
functions. The first tests port numba-cuda's test_vector_type.py (every
type, plain and "fancy" construction); every kernel also goes through ptxas
(conftest.py).
"""

import numpy as np
import pytest

from cuforge import cuda
from cuforge import types as cftypes
from cuforge.types import float32

BASES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
ALIASES = {"char": "int8", "short": "int16", "int": "int32", "long": "int64", "longlong": "int64",
           "uchar": "uint8", "ushort": "uint16", "uint": "uint32", "ulong": "uint64", "ulonglong": "uint64",
           "float": "float32", "double": "float64"}


def make_kernel(base_name, n):
    vobj = getattr(cuda, f"{base_name}x{n}")
    base_type = getattr(cftypes, base_name)

    def kernel_1elem(res):
        v = vobj(base_type(0))
        res[0] = v.x

    def kernel_2elem(res):
        v = vobj(base_type(0), base_type(1))
        res[0] = v.x
        res[1] = v.y

    def kernel_3elem(res):
        v = vobj(base_type(0), base_type(1), base_type(2))
        res[0] = v.x
        res[1] = v.y
        res[2] = v.z

    def kernel_4elem(res):
        v = vobj(base_type(0), base_type(1), base_type(2), base_type(3))
        res[0] = v.x
        res[1] = v.y
        res[2] = v.z
        res[3] = v.w

    return cuda.jit({1: kernel_1elem, 2: kernel_2elem, 3: kernel_3elem, 4: kernel_4elem}[n])


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("base_name", BASES)
def test_creation_readout(base_name, n):
    arr = np.zeros(n)
    make_kernel(base_name, n)[1, 1](arr)
    np.testing.assert_array_equal(arr, np.arange(n))


def make_fancy_creation_kernel(base_name):
    base_type = getattr(cftypes, base_name)
    v1 = getattr(cuda, f"{base_name}x1")
    v2 = getattr(cuda, f"{base_name}x2")
    v3 = getattr(cuda, f"{base_name}x3")
    v4 = getattr(cuda, f"{base_name}x4")

    def kernel(res):
        one = base_type(1.0)
        two = base_type(2.0)
        three = base_type(3.0)
        four = base_type(4.0)
        j = 0
        f1_1 = v1(one)
        f1_2 = v1(f1_1)
        res[0] = f1_1.x
        res[1] = f1_2.x
        j += 2
        f2_1 = v2(two, three)
        f2_2 = v2(f1_1, three)
        f2_3 = v2(two, f1_1)
        f2_4 = v2(f1_1, f1_1)
        f2_5 = v2(f2_1)
        # One name per loop: numba-cuda's own test reuses `v` across the loops (its SSA renames it);
        # a cuforge variable keeps one type in the whole function (docs/compiler.md).
        for a in (f2_1, f2_2, f2_3, f2_4, f2_5):
            res[j] = a.x
            res[j + 1] = a.y
            j += 2
        f3_1 = v3(f2_1, one)
        f3_2 = v3(f2_1, f1_1)
        f3_3 = v3(one, f2_1)
        f3_4 = v3(f1_1, f2_1)
        f3_5 = v3(one, two, three)
        f3_6 = v3(f1_1, two, three)
        f3_7 = v3(one, f1_1, three)
        f3_8 = v3(one, two, f1_1)
        f3_9 = v3(f1_1, f1_1, three)
        f3_10 = v3(one, f1_1, f1_1)
        f3_11 = v3(f1_1, two, f1_1)
        f3_12 = v3(f1_1, f1_1, f1_1)
        f3_13 = v3(f3_1)
        for b in (f3_1, f3_2, f3_3, f3_4, f3_5, f3_6, f3_7, f3_8, f3_9, f3_10, f3_11, f3_12, f3_13):
            res[j] = b.x
            res[j + 1] = b.y
            res[j + 2] = b.z
            j += 3
        f4_1 = v4(one, two, three, four)
        f4_2 = v4(f2_1, f2_1)
        f4_3 = v4(f3_5, four)
        f4_4 = v4(one, f3_5)
        f4_5 = v4(f1_1, f2_1, four)
        f4_6 = v4(f4_1)
        for c in (f4_1, f4_2, f4_3, f4_4, f4_5, f4_6):
            res[j] = c.x
            res[j + 1] = c.y
            res[j + 2] = c.z
            res[j + 3] = c.w
            j += 4

    return cuda.jit(kernel)


FANCY_EXPECTED = (
    [1, 1]
    + [2, 3, 1, 3, 2, 1, 1, 1, 2, 3]
    + [2, 3, 1, 2, 3, 1, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 1, 3, 1, 2, 1, 1, 1, 3, 1, 1, 1, 1, 2, 1,
       1, 1, 1, 2, 3, 1]
    + [1, 2, 3, 4, 2, 3, 2, 3, 1, 2, 3, 4, 1, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4]
)


@pytest.mark.parametrize("base_name", BASES)
def test_fancy_creation_readout(base_name):
    arr = np.zeros(len(FANCY_EXPECTED))
    make_fancy_creation_kernel(base_name)[1, 1](arr)
    np.testing.assert_array_equal(arr, FANCY_EXPECTED)


def test_the_c_names_are_the_same_objects():
    for alias, base in ALIASES.items():
        for n in (1, 2, 3, 4):
            assert getattr(cuda, f"{alias}{n}") is getattr(cuda, f"{base}x{n}"), f"{alias}{n}"


@cuda.jit("void(float64[:])")
def basic(arr):
    v1 = cuda.float64x4(1.0, 3.0, 5.0, 7.0)
    v2 = cuda.short2(10, 11)
    arr[0] = v1.x
    arr[1] = v1.y
    arr[2] = v1.z
    arr[3] = v1.w
    arr[4] = v2.x
    arr[5] = v2.y


def test_basic():
    res = np.zeros(6)
    basic[1, 1](res)
    np.testing.assert_array_equal(res, [1.0, 3.0, 5.0, 7.0, 10, 11])


# --- types and conversions: numba-cuda's ------------------------------------------------------


def mixed_components(a):
    v = cuda.float32x3(a, 2, 3.5)
    return cuda.float32x4(cuda.float32x2(v.x, v.y), v.z, 1)


def member_sum(a):
    v = cuda.int32x2(a, a)
    return v.x + v.y


def narrowed(a):
    return cuda.uchar4(a, 1, 2, 300)


def test_result_types_are_numba_cudas():
    # Recorded from numba-cuda 0.30.4's compile_ptx(..., device=True).
    _, ret = cuda.compile_ptx(mixed_components, (cftypes.int64,), device=True, cc=(9, 0))
    assert str(ret) == "float32x4" and isinstance(ret, cftypes.VectorType) and ret.num_elements == 4
    _, ret = cuda.compile_ptx(member_sum, (cftypes.float64,), device=True, cc=(9, 0))
    assert str(ret) == "int64"  # int32 + int32
    _, ret = cuda.compile_ptx(narrowed, (cftypes.float32,), device=True, cc=(9, 0))
    assert str(ret) == "uint8x4"
    assert cftypes.from_spec("float64x3") == cftypes.VectorType(cftypes.float64, 3)


@cuda.jit
def conversions(out, a):
    v = cuda.uchar4(a, 1, 2, 300)  # components convert as numba's casts: 300 wraps to 44, 2.75 truncates
    w = cuda.int2(2.75, -1.5)
    out[0] = v.x
    out[1] = v.w
    out[2] = w.x
    out[3] = w.y


def test_components_convert_as_numbas_casts():
    out = np.zeros(4)
    conversions[1, 1](out, 7.9)
    np.testing.assert_array_equal(out, [7, 44, 2, -1])


# --- through device functions: a PyOptiX-style raygen ---------------------------------------------


@cuda.jit(device=True)
def make_float2(x, y):
    return cuda.float32x2(x, y)


@cuda.jit(device=True)
def make_float3(x, y, z):
    return cuda.float32x3(x, y, z)


@cuda.jit(device=True)
def add3(a, b):
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z)


@cuda.jit(device=True)
def scale3(s, a):
    return make_float3(s * a.x, s * a.y, s * a.z)


@cuda.jit(device=True)
def normalize(v):
    inv = float32(1.0) / (v.x * v.x + v.y * v.y + v.z * v.z) ** float32(0.5)
    return scale3(inv, v)


@cuda.jit(device=True)
def compute_ray(idx, dim, eye, U, V, W):
    # Normalizing coordinates to [-1.0, 1.0], component by component (numba-cuda's
    # vector types have no arithmetic; PyOptiX's extension adds it).
    d = make_float2(float32(2.0) * (float32(idx.x) / float32(dim.x)) - float32(1.0),
                    float32(2.0) * (float32(idx.y) / float32(dim.y)) - float32(1.0))
    direction = normalize(add3(add3(scale3(d.x, U), scale3(d.y, V)), W))
    return eye, direction


@cuda.jit
def raygen(out, width, height):
    x, y = cuda.grid(2)
    if x < width and y < height:
        idx = cuda.uint3(x, y, 0)
        dim = cuda.uint3(width, height, 1)
        eye = make_float3(0.0, 0.0, -2.0)
        origin, direction = compute_ray(idx, dim, eye, make_float3(1, 0, 0), make_float3(0, 1, 0),
                                        make_float3(0, 0, 1))
        out[y, x, 0] = direction.x
        out[y, x, 1] = direction.y
        out[y, x, 2] = direction.z
        out[y, x, 3] = origin.z


def test_pyoptix_style_raygen():
    w, h = 8, 4
    out = np.zeros((h, w, 4), np.float32)
    raygen[(1, 1), (8, 4)](out, w, h)
    xs = (2 * (np.arange(w, dtype=np.float32) / w) - 1)[None, :]
    ys = (2 * (np.arange(h, dtype=np.float32) / h) - 1)[:, None]
    d = np.stack(np.broadcast_arrays(xs, ys, np.ones((h, w), np.float32)), axis=-1)
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    np.testing.assert_allclose(out[..., :3], d, rtol=1e-6)
    np.testing.assert_array_equal(out[..., 3], -2.0)


# --- bad input -------------------------------------------------------------------------------


@cuda.jit
def write_member(out):
    v = cuda.float32x2(1, 2)
    v.x = 3.0
    out[0] = v.x


@cuda.jit
def too_few(out):
    out[0] = cuda.float32x3(1, 2).x


@cuda.jit
def other_element_type(out):
    out[0] = cuda.float32x2(cuda.float64x2(1, 2)).x


@cuda.jit
def no_such_member(out):
    out[0] = cuda.float32x3(1, 2, 3).w


@cuda.jit
def complex_component(out):
    out[0] = cuda.float32x2(1j, 2).x


def test_bad_uses_are_typing_errors():
    out = np.zeros(1)
    with pytest.raises(cuda.TypingError, match=r"members are read-only \('\.x' of float32x2\)"):
        write_member[1, 1](out)
    with pytest.raises(cuda.TypingError, match=r"cuda\.float32x3.*3 components in all.*got 2"):
        too_few[1, 1](out)
    with pytest.raises(cuda.TypingError, match=r"float64x2 is not made of float32"):
        other_element_type[1, 1](out)
    with pytest.raises(cuda.TypingError, match=r"Unknown attribute 'w' of float32x3"):
        no_such_member[1, 1](out)
    with pytest.raises(cuda.TypingError, match=r"cuda\.float32x2"):
        complex_component[1, 1](out)


def test_vector_types_are_kernel_side_only():
    with pytest.raises(TypeError, match=r"cuda\.float32x2\(\) can only be used inside"):
        cuda.float32x2(1, 2)

"""Arrays end to end: every scalar dtype, 1 to 3 dimensions, C, F and
non-contiguous layouts (strided NumPy views, and device views with negative
steps, which keep their strides in the kernel), indexed with integers,
tuples and negative indices; ``.shape``, ``.strides``, ``.size``,
``.ndim``, ``len``; views made in the kernel with Python's slice rules."""

import numpy as np
import pytest

from compiler_support import needs_codegen
from cuforge import cuda
from language_support import SCALARS

pytestmark = needs_codegen


@cuda.jit
def copy1(a, out, meta):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i]
        out[-1 - i] = a[-1 - i]  # negative indices count from the end
    if i == 0:
        meta[0] = a.ndim
        meta[1] = a.size
        meta[2] = len(a)
        meta[3] = a.shape[0]
        meta[4] = a.strides[0]


@cuda.jit
def copy2(a, out, meta):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j]
        out[-1 - i, -1 - j] = a[-1 - i, -1 - j]
        t = (i, j)
        out[t] = a[t]  # a tuple index
        out[i][j] = a[i][j]  # a row view, then an element
    if i == 0 and j == 0:
        meta[0] = a.ndim
        meta[1] = a.size
        meta[2] = len(a)
        meta[3], meta[4] = a.shape
        meta[5], meta[6] = a.strides


@cuda.jit
def copy3(a, out, meta):
    i, j, k = cuda.grid(3)
    if i < a.shape[0] and j < a.shape[1] and k < a.shape[2]:
        out[i, j, k] = a[i, j, k]
        out[i, -1 - j, k - a.shape[2]] = a[i, -1 - j, k - a.shape[2]]
        out[i][j][k] = a[i][j][k]
    if i == 0 and j == 0 and k == 0:
        meta[0] = a.ndim
        meta[1] = a.size
        meta[2] = len(a)
        s = a.shape
        meta[3] = s[0]
        meta[4] = s[1]
        meta[5] = s[2]
        st = a.strides
        meta[6] = st[0]
        meta[7] = st[-2]
        meta[8] = st[2]


COPIES = {1: (copy1, 8, 32), 2: (copy2, (2, 2), (4, 4)), 3: (copy3, (2, 2, 2), (4, 4, 4))}
SHAPES = {1: (37,), 2: (5, 6), 3: (3, 5, 7)}


def sample(rng, shape, dtype):
    v = rng.standard_normal(shape) * 100
    dt = np.dtype(dtype)
    if dt.kind == "c":
        v = v + 1j * rng.standard_normal(shape)
    if dt.kind == "b":
        v = v > 0
    return v.astype(dt)


def want_meta(a, strides=True):
    m = [a.ndim, a.size, len(a)] + list(a.shape)
    if strides:
        m += list(a.strides)
    return m


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("dtype", SCALARS)
def test_host_arrays_of_every_dtype_and_layout(dtype, ndim):
    rng = np.random.default_rng(ndim * 100 + SCALARS.index(dtype))
    shape = SHAPES[ndim]
    big = sample(rng, tuple(2 * s for s in shape), dtype)
    inner = tuple(slice(0, s) for s in shape)
    kernel, griddim, blockdim = COPIES[ndim]
    for layout, a in [("C", np.ascontiguousarray(big[inner])), ("F", np.asfortranarray(big[inner])),
                      ("strided", big[tuple(slice(1, None, 2) for _ in shape)]),
                      ("reversed", big[tuple(slice(None, None, -2) for _ in shape)])]:
        assert a.shape == shape
        out = np.zeros_like(a)
        meta = np.zeros(9, np.int64)
        kernel[griddim, blockdim](a, out, meta)
        np.testing.assert_array_equal(out, a, err_msg=layout)
        # The launcher copies a non-contiguous NumPy argument into a compact
        # device array: its strides in the kernel are the copy's.
        m = want_meta(a, strides=layout in "CF")
        assert meta[:len(m)].tolist() == m, layout


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["bool", "int16", "uint64", "float32", "complex128"])
def test_device_views_keep_their_strides(dtype, ndim):
    rng = np.random.default_rng(ndim)
    shape = SHAPES[ndim]
    big = sample(rng, tuple(2 * s for s in shape), dtype)
    kernel, griddim, blockdim = COPIES[ndim]
    for index in [tuple(slice(1, None, 2) for _ in shape), tuple(slice(None, None, -2) for _ in shape),
                  tuple(slice(-1, 0, -2) if d % 2 else slice(0, None, 2) for d in range(ndim))]:
        view = cuda.to_device(big)[index]
        a = big[index]
        out = cuda.to_device(np.zeros_like(big))[index]
        meta = np.zeros(9, np.int64)
        kernel[griddim, blockdim](view, out, meta)
        np.testing.assert_array_equal(out.copy_to_host(), a)
        m = want_meta(a)
        assert meta[:len(m)].tolist() == m, index


@cuda.jit
def runtime_negative_indices(a, idx, out):
    i = cuda.grid(1)
    if i < idx.size:
        j = idx[i]
        out[i] = a[j, -1] + a[-1, j] * 1000
        a[j, j] = -i - 1


def test_negative_indices_known_only_at_run_time():
    a = np.arange(5 * 5, dtype=np.int32).reshape(5, 5) * 10
    idx = np.array([0, -1, -4, 2, -2], np.int64)  # distinct once wrapped: no two threads write one element
    out = np.zeros(5, np.int32)
    want = a.copy()
    runtime_negative_indices[1, 8](a, idx, out)
    np.testing.assert_array_equal(out, [want[j, -1] + want[-1, j] * 1000 for j in idx])
    for i, j in enumerate(idx):
        want[j, j] = -i - 1
    np.testing.assert_array_equal(a, want)


def slicing(a, out, meta):
    v = a[1:5:2, ::-1]  # rows 1 and 3, reversed
    for p in range(v.shape[0]):
        for q in range(v.shape[1]):
            v[p, q] = 1000 + 10 * p + q
    row = a[2]
    for q in range(len(row)):
        row[q] = 100 + q
    col = a[:, -2]
    col[0] = -7
    meta[0] = a[::3].shape[0]
    meta[1] = a[4:0:-2].shape[0]
    meta[2] = a[::-1].shape[0]
    meta[3] = a[10:].shape[0]
    meta[4] = a[:-10].shape[0]
    meta[5] = a[-100:100].shape[0]
    meta[6] = a[-2:].shape[0]
    meta[7] = a[::-2, 1].strides[0]
    meta[8] = a[::-2, 1][0]
    meta[9] = v.size
    meta[10] = a[1:, 2:5].size
    meta[11] = a[-1][-1]
    meta[12] = len(a[1:-1, ::2][0])
    meta[13] = a[::2, ::3].strides[1]


def test_views_made_in_the_kernel_follow_pythons_slice_rules():
    a = np.arange(6 * 8, dtype=np.int64).reshape(6, 8)
    meta = np.zeros(14, np.int64)
    want_a, want_meta = a.copy(), np.zeros(14, np.int64)
    slicing(want_a, want_a.copy(), want_meta)  # Python's (the views write through)
    cuda.jit(slicing)[1, 1](a, a.copy(), meta)
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(meta, want_meta)


@cuda.jit
def read_only(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * 2


def test_read_only_arrays_are_read_and_refuse_stores():
    a = np.arange(10.0)
    a.flags.writeable = False
    out = np.zeros(10)
    read_only[1, 32](a, out)
    np.testing.assert_array_equal(out, 2 * np.arange(10.0))

    def store(a):
        a[0] = 1.0

    with pytest.raises(cuda.TypingError, match="read-?only"):
        cuda.jit(store)[1, 1](a)


def bad_index(a):
    a[0, 0] = 1


def test_indexing_errors_are_typing_errors():
    with pytest.raises(cuda.TypingError, match="too many indices"):
        cuda.compile_ptx(bad_index, "void(float32[:])")

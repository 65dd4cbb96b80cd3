"""Bad input to the array API gives a clear Python exception, never a crash.

TypeError for what devices cannot hold (objects, strings, raw void,
datetime dtypes), ValueError for shapes that do not fit, CudaOutOfMemoryError
(a CudaAPIError and a MemoryError) for sizes no device has. The huge sizes
run in a subprocess, so that a crash fails one test instead of ending the
run.
"""

import json

import numpy as np
import pytest

from cuforge import cuda

UNSUPPORTED_DTYPES = ["U3", "S4", "M8[10s]", "m8[25ms]", "V8", np.longdouble,
                      np.clongdouble, ">f4", ">i8"]
UNSUPPORTED_IDS = ["unicode", "bytes", "datetime-multiple", "timedelta-multiple", "void", "longdouble",
                   "clongdouble", "big-endian-float", "big-endian-int"]


def names_dtype(message, dtype):
    dtype = np.dtype(dtype)
    return dtype.str in message or str(dtype) in message


@pytest.mark.parametrize("dtype", UNSUPPORTED_DTYPES, ids=UNSUPPORTED_IDS)
def test_unsupported_dtypes_raise_type_error_naming_the_dtype(dtype):
    host = np.zeros(3, dtype=dtype)
    makers = [lambda: cuda.to_device(host), lambda: cuda.device_array(3, dtype=dtype),
              lambda: cuda.device_array_like(host), lambda: cuda.pinned_array(3, dtype=dtype),
              lambda: cuda.mapped_array(3, dtype=dtype), lambda: cuda.managed_array(3, dtype=dtype)]
    for make in makers:
        with pytest.raises(TypeError) as info:
            make()
        assert names_dtype(str(info.value), dtype), str(info.value)


def test_unsupported_dtypes_into_existing_arrays():
    d = cuda.device_array(3, np.float64)
    with pytest.raises(TypeError):
        d.copy_to_device(np.zeros(3, "M8[s]"))
    with pytest.raises(TypeError):
        d.copy_to_host(np.zeros(3, "U4"))
    with pytest.raises(TypeError):
        d.view("S8")


@pytest.mark.parametrize("obj", [np.array([1, "a", None], dtype=object), [object(), object()], [None, None],
                                 np.array([1.0, 2.0], dtype=object), [1.5, object()]],
                         ids=["object-array", "objects", "nones", "numbers-as-objects", "mixed"])
def test_python_objects_raise_type_error(obj):
    with pytest.raises(TypeError, match="object"):
        cuda.to_device(obj)
    with pytest.raises(TypeError):
        cuda.device_array_like(obj)
    d = cuda.device_array(len(obj))
    with pytest.raises(TypeError):
        d.copy_to_device(obj)
    with pytest.raises(TypeError):
        d[:] = obj
    with pytest.raises(TypeError):
        cuda.device_array(2, dtype=object)


def test_ragged_lists_raise_value_error():
    with pytest.raises(ValueError):
        cuda.to_device([[1], [2, 3]])


def test_copy_to_host_into_a_mismatched_array():
    d = cuda.to_device(np.arange(10.0))
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_host(np.empty(5))  # too small
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_host(np.empty(11))
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_host(np.empty((2, 5)))
    with pytest.raises(TypeError, match="dtype"):  # numba: TypeError("incompatible dtype")
        d.copy_to_host(np.empty(10, np.float32))
    with pytest.raises(TypeError):
        d.copy_to_host([0.0] * 10)


def test_copy_to_host_into_a_read_only_array():
    d = cuda.to_device(np.arange(10.0))
    ro = np.zeros(10)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        d.copy_to_host(ro)
    assert (ro == 0).all()
    with pytest.raises(ValueError, match="read-only"):
        d.copy_to_host(np.frombuffer(bytes(80)))


def test_copy_to_device_from_a_mismatched_array():
    d = cuda.device_array((3, 4), np.int32)
    for src in [np.zeros(12, np.int32), np.zeros((4, 3), np.int32), np.zeros((3, 5), np.int32),
                cuda.device_array(12, np.int32), cuda.device_array((3, 3), np.int32), [1, 2, 3]]:
        with pytest.raises(ValueError, match="shape"):
            d.copy_to_device(src)
        with pytest.raises(ValueError, match="shape"):
            cuda.to_device(src, to=d)
    for src in [np.zeros((3, 4), np.int64), cuda.device_array((3, 4), np.float32)]:
        with pytest.raises(TypeError, match="dtype"):
            d.copy_to_device(src)
        with pytest.raises(TypeError, match="dtype"):
            cuda.to_device(src, to=d)


def test_copy_to_device_does_not_broadcast():
    """numba's copy_to_device copies, it does not broadcast (setitem does)."""
    d = cuda.device_array((3, 4))
    with pytest.raises(ValueError):
        d.copy_to_device(np.zeros(4))
    with pytest.raises(ValueError):
        d.copy_to_device(cuda.to_device(np.zeros((1, 4))))


def test_to_device_to_something_not_a_device_array():
    with pytest.raises(TypeError):
        cuda.to_device(np.zeros(3), to=np.zeros(3))


@pytest.mark.parametrize("shape", [-1, (3, -2), (-5, 0), [2, -1, 2]], ids=str)
def test_negative_sizes_raise_value_error(shape):
    for make in [cuda.device_array, cuda.pinned_array, cuda.mapped_array, cuda.managed_array]:
        with pytest.raises(ValueError, match="negative"):
            make(shape)


@pytest.mark.parametrize("shape", [3.0, "3", None, True, (2, 2.0), (2, None), ((2,), 3), object()],
                         ids=["float", "str", "None", "bool", "float-item", "None-item", "nested", "object"])
def test_shapes_that_are_not_ints_raise_type_error(shape):
    with pytest.raises(TypeError):
        cuda.device_array(shape)
    with pytest.raises(TypeError):
        cuda.pinned_array(shape)


def test_more_than_64_dimensions():
    with pytest.raises(ValueError):
        cuda.device_array((1,) * 65)
    assert cuda.device_array((1,) * 64).ndim == 64


def test_np_asarray_of_a_device_array_points_to_copy_to_host():
    """numba's __array__ copies to the host silently; cuforge refuses the
    implicit copy and says how to make it (deliberate)."""
    d = cuda.to_device(np.arange(3))
    for convert in [np.asarray, np.array, lambda a: np.add(a, 1), lambda a: np.zeros(3) + a]:
        with pytest.raises(TypeError, match="copy_to_host"):
            convert(d)


def run_cases(run_python, cases, prelude=""):
    """Runs each (name, code) in one fresh interpreter; returns
    {name: {"error": type name or None, ...attributes}}, after checking the
    process survived and could still allocate and use an array."""
    script = [
        "import json, sys",
        "import numpy as np",
        "from cuforge import cuda",
        prelude,
        "results = {}",
    ]
    for name, code in cases:
        script += [
            "try:",
            f"    {code}",
            f"    results[{name!r}] = {{'error': None}}",
            "except BaseException as e:",
            f"    results[{name!r}] = {{'error': type(e).__name__, 'mro': [c.__name__ for c in type(e).__mro__],",
            "        'bytes': getattr(e, 'bytes', None), 'name': getattr(e, 'name', None), 'msg': str(e)}",
            f"print('done', {name!r}, flush=True)",
        ]
    script += [
        "a = cuda.to_device(np.arange(100))",
        "a[3:6] = 7",
        "assert a[4] == 7 and a.copy_to_host().sum() == np.arange(100).sum() - 3 - 4 - 5 + 21",
        "print('RESULTS', json.dumps(results))",
    ]
    run = run_python("\n".join(script))
    assert run.rc == 0, run
    line = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULTS ")][0]
    return json.loads(line[len("RESULTS "):])


def test_huge_sizes_fail_cleanly_and_the_process_keeps_working(run_python):
    cases = [
        ("2**62 bytes", "cuda.device_array(1 << 59)"),
        ("2**63 bytes", "cuda.device_array(1 << 60)"),
        ("count overflows", "cuda.device_array((1 << 40, 1 << 40))"),
        ("bytes overflow", "cuda.device_array((1 << 31, 1 << 31), np.int16)"),
        ("dim past 64 bits", "cuda.device_array(1 << 64)"),
        ("dim at 2**63", "cuda.device_array(1 << 63)"),
        ("strided", "cuda.device_array(4, strides=(1 << 62,))"),
        ("strided 2**62.6 bytes", "cuda.device_array(4, strides=(1 << 61,))"),
        ("1 TiB broadcast", "cuda.to_device(np.broadcast_to(np.zeros(1, np.int8), (1 << 40,)))"),
        ("like 1 TiB", "cuda.device_array_like(np.broadcast_to(np.zeros(1, np.int8), (1 << 40,)))"),
        ("pinned", "cuda.pinned_array(1 << 59)"),
        ("mapped", "cuda.mapped_array(1 << 59)"),
        ("managed", "cuda.managed_array(1 << 59)"),
        ("pinned huge strides", "cuda.pinned_array(5, strides=(1 << 62,))[1] = 1"),
        ("mapped huge strides", "cuda.mapped_array((3, 2), strides=(1 << 62, 8))[2, 1] = 1"),
    ]
    r = run_cases(run_python, cases)
    oom = {"2**62 bytes": 1 << 62, "1 TiB broadcast": 1 << 40, "like 1 TiB": 1 << 40,
           "strided 2**62.6 bytes": 3 * (1 << 61) + 8,
           "pinned": 1 << 62, "mapped": 1 << 62, "managed": 1 << 62}
    for name, size in oom.items():
        e = r[name]
        assert e["error"] == "CudaOutOfMemoryError", (name, e)
        assert {"CudaAPIError", "MemoryError"} <= set(e["mro"])
        assert e["bytes"] == size and e["name"] == "CUDA_ERROR_OUT_OF_MEMORY"
    for name in ["2**63 bytes", "bytes overflow"]:
        assert r[name]["error"] in ("CudaOutOfMemoryError", "ValueError"), (name, r[name])
    for name in ["count overflows", "dim past 64 bits", "dim at 2**63", "strided", "pinned huge strides",
                 "mapped huge strides"]:
        assert r[name]["error"] == "ValueError", (name, r[name])
        assert "big" in r[name]["msg"], r[name]


def test_out_of_memory_in_process_and_recovery():
    with pytest.raises(cuda.CudaOutOfMemoryError) as info:
        cuda.device_array(1 << 59)
    assert isinstance(info.value, cuda.CudaAPIError) and isinstance(info.value, MemoryError)
    assert info.value.bytes == 1 << 62
    assert str(1 << 62) in str(info.value)
    with pytest.raises(MemoryError):  # catchable as the builtin
        cuda.device_array(1 << 59)
    d = cuda.to_device(np.arange(1000))
    assert d[999] == 999

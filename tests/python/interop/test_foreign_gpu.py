"""CuPy, PyTorch and JAX against cuforge, both ways, through both protocols
(__cuda_array_interface__ and DLPack), on a GPU.

Zero-copy is proven by mutation: a write through one library is read
through the other. Stream ordering is proven with a producer whose writes
are slow and queued on a stream that the legacy default stream does not
wait for (non-blocking): a CuPy spin kernel, torch.cuda._sleep, or our
stream held back by the `held` fixture. An import that did not synchronise
would read the old contents.

Every test needs the cuda backend (skipped on the cpu one) and its library
(skipped when it is not installed).
"""

import gc
import os

import numpy as np
import pytest

from cuforge import cuda

pytestmark = pytest.mark.gpu

N = 1 << 20
SPINS = 50_000_000  # clock cycles per thread of the slow kernel: tens of ms per wave


@pytest.fixture
def cupy():
    cp = pytest.importorskip("cupy")
    if cp.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("CuPy sees no GPU")
    return cp


@pytest.fixture
def torch():
    t = pytest.importorskip("torch")
    if not t.cuda.is_available():
        pytest.skip("PyTorch was built without CUDA or sees no GPU")
    return t


@pytest.fixture
def jax():
    # JAX takes most of the GPU's memory up front unless told otherwise.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    j = pytest.importorskip("jax")
    try:
        j.devices("gpu")
    except RuntimeError:
        pytest.skip("JAX has no GPU backend here")
    return j


@pytest.fixture
def slow_fill(cupy):
    """slow_fill(array, value, stream_ptr): every element of a float64 CuPy
    array set to `value` by a kernel that spins first, on that stream."""
    kernel = cupy.RawKernel(
        r"""
extern "C" __global__ void slow_fill(double* out, long long n, double value, long long spins) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long start = clock64();
    while (clock64() - start < spins) {}
    if (i < n) out[i] = value;
}
""",
        "slow_fill",
    )

    def launch(array, value, stream_ptr):
        n = array.size
        with cupy.cuda.ExternalStream(stream_ptr):
            kernel(((n + 255) // 256,), (256,), (array, np.int64(n), np.float64(value), np.int64(SPINS)))

    return launch


def settle():
    gc.collect()
    cuda.synchronize()


# --- CuPy ------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["interface", "dlpack"])
def test_cupy_shares_our_memory(cupy, protocol):
    d = cuda.to_device(np.arange(12.0).reshape(3, 4))
    # Negative strides through the interface only: DLPack allows them, but
    # consumers need not (PyTorch does not).
    views = (d, d[::-1, 1::2], d.T) if protocol == "interface" else (d, d[:, 1::2], d.T)
    for view in views:
        c = cupy.asarray(view) if protocol == "interface" else cupy.from_dlpack(view)
        assert c.data.ptr == view._pointer
        assert c.strides == view.strides
        np.testing.assert_array_equal(c.get(), view.copy_to_host())
    c = cupy.asarray(d) if protocol == "interface" else cupy.from_dlpack(d)
    c[1, 2] = -1.0  # CuPy writes, we read
    assert d.copy_to_host()[1, 2] == -1.0
    d[2, 3] = -2.0  # we write, CuPy reads
    assert float(c[2, 3]) == -2.0


@pytest.mark.parametrize("protocol", ["interface", "dlpack"])
def test_we_share_cupys_memory(cupy, protocol):
    c = cupy.arange(20, dtype=cupy.int32).reshape(4, 5)
    views = (c, c[::-1, ::2], c.T) if protocol == "interface" else (c, c[:, ::2], c.T)
    for view in views:
        x = cuda.as_cuda_array(view) if protocol == "interface" else cuda.from_dlpack(view)
        assert x._pointer == view.data.ptr
        assert x.strides == view.strides
        np.testing.assert_array_equal(x.copy_to_host(), view.get())
    x = cuda.as_cuda_array(c) if protocol == "interface" else cuda.from_dlpack(c)
    x[0, 1] = -5  # we write, CuPy reads
    assert int(c[0, 1]) == -5
    c[3, 4] = -6  # CuPy writes, we read
    assert x.copy_to_host()[3, 4] == -6


def test_every_array_taking_api_takes_cupy_arrays(cupy):
    c = cupy.arange(6, dtype=cupy.float32)
    v = cuda.to_device(c)  # a view, as numba gives
    assert v._pointer == c.data.ptr
    dst = cuda.device_array(6, dtype=np.float32)
    dst.copy_to_device(c)
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(6, dtype=np.float32))
    dst[:] = c[::-1]
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(6, dtype=np.float32)[::-1])
    like = cuda.device_array_like(c)
    assert like.shape == (6,) and like.dtype == np.float32
    assert cuda.is_cuda_array(c)


@pytest.mark.parametrize("protocol", ["interface", "dlpack"])
def test_we_wait_for_cupys_stream(cupy, slow_fill, protocol):
    c = cupy.zeros(N)
    cupy.cuda.Device().synchronize()
    s = cupy.cuda.Stream(non_blocking=True)
    slow_fill(c, 3.0, s.ptr)
    with s:  # CuPy names its current stream: the interface's 'stream', DLPack's producer stream
        x = cuda.as_cuda_array(c) if protocol == "interface" else cuda.from_dlpack(c)
    got = x.copy_to_host()  # on our default stream, which does not wait for s by itself
    assert (got == 3.0).all(), f"{(got != 3.0).sum()} of {N} elements read before CuPy's stream wrote them"


@pytest.mark.parametrize("protocol", ["interface", "dlpack"])
def test_cupy_waits_for_our_stream(cupy, slow_fill, protocol):
    s = cuda.stream(non_blocking=True)
    d = cuda.to_device(np.zeros(N))
    slow_fill(cupy.asarray(d), 4.0, s.handle_value)  # queued on our stream
    bound = d.bind(s)
    if protocol == "interface":
        assert bound.__cuda_array_interface__["stream"] == s.handle_value
        c = cupy.asarray(bound)  # CuPy synchronises with the interface's stream
    else:
        c = cupy.from_dlpack(bound)  # our handshake: CuPy's stream waits for ours
    got = c.get()
    assert (got == 4.0).all(), f"{(got != 4.0).sum()} of {N} elements read before our stream wrote them"


def test_cupy_memory_lives_while_we_use_it(cupy):
    pool = cupy.get_default_memory_pool()
    c = cupy.ones(N)
    used = pool.used_bytes()
    x = cuda.as_cuda_array(c)
    y = cuda.from_dlpack(c)
    del c
    gc.collect()
    assert pool.used_bytes() == used
    assert x.copy_to_host().sum() == N and y.copy_to_host().sum() == N
    del x, y
    settle()
    assert pool.used_bytes() <= used - N * 8


def test_cupy_holds_our_memory(cupy):
    from cuforge import _core

    _core.enable_memory_statistics()
    settle()
    before = _core.memory_statistics()["current_bytes"]
    d = cuda.to_device(np.ones(N))
    c1, c2 = cupy.asarray(d), cupy.from_dlpack(d)
    del d
    settle()
    assert _core.memory_statistics()["current_bytes"] >= before + N * 8
    assert float(c1.sum()) == N and float(c2.sum()) == N
    del c1, c2
    settle()
    assert _core.memory_statistics()["current_bytes"] == before


# --- PyTorch ----------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["interface", "dlpack"])
def test_torch_shares_our_memory(torch, protocol):
    d = cuda.to_device(np.arange(12, dtype=np.float32).reshape(3, 4))
    for view in (d, d[:, 1::2], d.T):
        t = torch.as_tensor(view, device="cuda") if protocol == "interface" else torch.from_dlpack(view)
        assert t.data_ptr() == view._pointer
        assert tuple(s * 4 for s in t.stride()) == view.strides
        np.testing.assert_array_equal(t.cpu().numpy(), view.copy_to_host())
    t = torch.as_tensor(d, device="cuda") if protocol == "interface" else torch.from_dlpack(d)
    t[1, 2] = -1.0
    assert d.copy_to_host()[1, 2] == -1.0
    d[2, 3] = -2.0
    assert t[2, 3].item() == -2.0


@pytest.mark.parametrize("protocol", ["interface", "dlpack"])
def test_we_share_torchs_memory(torch, protocol):
    t = torch.arange(20, dtype=torch.int64, device="cuda").reshape(4, 5)
    for view in (t, t[:, ::2], t.t()):
        x = cuda.as_cuda_array(view) if protocol == "interface" else cuda.from_dlpack(view)
        assert x._pointer == view.data_ptr()
        assert x.strides == tuple(s * 8 for s in view.stride())
        np.testing.assert_array_equal(x.copy_to_host(), view.cpu().numpy())
    x = cuda.as_cuda_array(t) if protocol == "interface" else cuda.from_dlpack(t)
    x[0, 1] = -5
    assert t[0, 1].item() == -5
    t[3, 4] = -6
    assert x.copy_to_host()[3, 4] == -6


def test_to_device_of_a_torch_tensor_is_a_view(torch):
    t = torch.zeros(5, device="cuda")
    v = cuda.to_device(t)
    assert v._pointer == t.data_ptr()
    v[2] = 9.0
    assert t[2].item() == 9.0


def test_we_wait_for_torchs_stream_through_dlpack(torch):
    t = torch.zeros(N, dtype=torch.float64, device="cuda")
    side = torch.cuda.Stream()  # PyTorch's streams do not synchronise with the legacy one
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(SPINS)
        t.fill_(5.0)
        x = cuda.from_dlpack(t)  # torch makes our stream wait for its current one
    got = x.copy_to_host()
    assert (got == 5.0).all(), f"{(got != 5.0).sum()} of {N} elements read before PyTorch's stream wrote them"


def test_torch_waits_for_our_stream_through_dlpack(torch, held):
    # Warm PyTorch up first (context, allocator blocks of this size): nothing
    # inside the held scope may need to wait for the whole device.
    (torch.zeros(N, dtype=torch.float64, device="cuda") * 2).cpu()
    s = cuda.stream(non_blocking=True)
    d = cuda.to_device(np.zeros(N))
    ones = cuda.to_device(np.ones(N))
    with held(s):
        d.copy_to_device(ones, stream=s)  # runs only when the scope ends
        t = torch.from_dlpack(d.bind(s))  # torch's current stream must wait for s
        doubled = t * 2  # queued on torch's stream, behind that wait
    got = doubled.cpu().numpy()
    assert (got == 2.0).all(), f"{(got != 2.0).sum()} of {N} elements computed before our stream wrote them"


def test_cupy_waits_for_our_held_stream_through_dlpack(cupy, held):
    (cupy.zeros(N) * 2).get()  # warm up, as above
    s = cuda.stream(non_blocking=True)
    d = cuda.to_device(np.zeros(N))
    ones = cuda.to_device(np.ones(N))
    with held(s):
        d.copy_to_device(ones, stream=s)
        c = cupy.from_dlpack(d.bind(s))
        doubled = c * 2
    got = doubled.get()
    assert (got == 2.0).all(), f"{(got != 2.0).sum()} of {N} elements computed before our stream wrote them"


def test_torch_memory_lives_while_we_use_it(torch):
    torch.cuda.synchronize()
    t = torch.ones(N, dtype=torch.float32, device="cuda")
    used = torch.cuda.memory_allocated()
    x = cuda.from_dlpack(t)
    y = cuda.as_cuda_array(t)
    del t
    gc.collect()
    assert torch.cuda.memory_allocated() == used
    assert x.copy_to_host().sum() == N and y.copy_to_host().sum() == N
    del x, y
    settle()
    assert torch.cuda.memory_allocated() <= used - N * 4


def test_a_torch_bfloat16_tensor_is_refused_and_released(torch):
    settle()  # an earlier test's tensors, collected later, would move the baseline
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    t = torch.zeros(N, dtype=torch.bfloat16, device="cuda")
    for _ in range(3):
        with pytest.raises(TypeError, match="bfloat16"):
            cuda.from_dlpack(t)
    del t
    settle()
    assert torch.cuda.memory_allocated() == base  # every failed import ran torch's deleter


# --- CuPy arrays and PyTorch tensors as kernel arguments -------------------------
#
# A launch reads these producers' attributes instead of their interface
# (python/src/interop.cpp, read_known_producer): the same view, type and
# stream rule as the interface gives, which the tests compare.


@cuda.jit
def copy_2d(src, dst):
    i, j = cuda.grid(2)
    if i < src.shape[0] and j < src.shape[1]:
        dst[i, j] = src[i, j]


@cuda.jit
def copy_1d(src, dst):
    i = cuda.grid(1)
    if i < src.size:
        dst[i] = src[i]


def launch_copy(src, dst):
    if len(src.shape) == 1:
        copy_1d[max(1, (src.shape[0] + 127) // 128), 128](src, dst)
    else:
        copy_2d[(max(1, (src.shape[0] + 15) // 16), max(1, (src.shape[1] + 15) // 16)), (16, 16)](src, dst)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
def test_cupy_arrays_as_kernel_arguments(cupy, dtype):
    base = cupy.asarray((np.arange(7 * 9) % 5).astype(dtype).reshape(7, 9))
    for view in (base, base.T, base[::-1, 1::3], base[2:5, 4], base[:0], base.ravel()):
        want = cupy.asnumpy(view)
        out = cuda.device_array(view.shape, dtype=view.dtype)
        launch_copy(view, out)
        np.testing.assert_array_equal(out.copy_to_host(), want)
        out2 = cupy.zeros(view.shape, dtype=view.dtype)
        launch_copy(view, out2)  # a CuPy array written by the kernel
        np.testing.assert_array_equal(cupy.asnumpy(out2), want)


def test_a_launch_waits_for_cupys_current_stream(cupy, slow_fill):
    c = cupy.zeros(N)
    cupy.cuda.Device().synchronize()
    s = cupy.cuda.Stream(non_blocking=True)
    out = cuda.device_array(N)
    with s:  # the array's interface would name s: the launch (on our default stream) waits for it
        slow_fill(c, 7.0, s.ptr)
        launch_copy(c, out)
    got = out.copy_to_host()
    assert (got == 7.0).all(), f"{(got != 7.0).sum()} of {N} elements read before CuPy's stream wrote them"


def one_specialisation_per_layout(array):
    """Launches a fresh kernel with `array` (10 float32) and a strided view of it, each through the
    interface and as itself: the kernel gets two specialisations, not four."""

    @cuda.jit
    def scale(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = 2 * a[i]

    out = cuda.device_array(10, dtype=np.float32)
    for view in (array, array[::2]):
        scale[1, 32](cuda.as_cuda_array(view), out)  # through the interface
        scale[1, 32](view, out)  # through the producer's attributes
    assert len(scale.signatures) == 2, scale.signatures
    np.testing.assert_array_equal(out.copy_to_host()[:5], np.arange(0, 10, 2) * 2)


def test_cupy_arguments_add_no_specialisations(cupy):
    one_specialisation_per_layout(cupy.arange(10, dtype=cupy.float32))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
def test_torch_tensors_as_kernel_arguments(torch, dtype):
    tdtype = getattr(torch, dtype)
    base = torch.arange(7 * 9, device="cuda").remainder(5).to(tdtype).reshape(7, 9)
    for view in (base, base.t(), base[1::2, ::3], base[2:5, 4], base[:0], base.flatten()):
        want = view.cpu().numpy()
        out = cuda.device_array(tuple(view.shape), dtype=want.dtype)
        launch_copy(view, out)
        np.testing.assert_array_equal(out.copy_to_host(), want)
        out2 = torch.zeros_like(view).contiguous()
        launch_copy(view, out2)  # a tensor written by the kernel
        np.testing.assert_array_equal(out2.cpu().numpy(), want)


def test_torch_tensors_the_interface_refuses_are_refused_at_launch(torch):
    out = cuda.device_array(4, dtype=np.float32)
    grad = torch.zeros(4, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):  # PyTorch's own error, as its interface gives
        launch_copy(grad, out)
    launch_copy(grad.detach(), out)
    brain = torch.zeros(4, dtype=torch.bfloat16, device="cuda")  # refused as the interface refuses it
    with pytest.raises(Exception) as through_interface:
        cuda.as_cuda_array(brain)
    with pytest.raises(type(through_interface.value)):
        launch_copy(brain, cuda.device_array(4, dtype=np.float32))


def test_torch_arguments_add_no_specialisations(torch):
    one_specialisation_per_layout(torch.arange(10, dtype=torch.float32, device="cuda"))


# --- JAX ---------------------------------------------------------------------------


def test_jax_reads_our_array_through_dlpack(jax):
    import jax.numpy as jnp

    d = cuda.to_device(np.arange(16, dtype=np.float32).reshape(4, 4))
    for consume in (jax.dlpack.from_dlpack, jnp.from_dlpack):
        a = consume(d)
        np.testing.assert_array_equal(np.asarray(a), np.arange(16, dtype=np.float32).reshape(4, 4))
        assert a.unsafe_buffer_pointer() == d._pointer, "JAX copied our array"


def test_we_read_jax_arrays_through_dlpack(jax):
    import jax.numpy as jnp

    a = jnp.arange(10, dtype=jnp.float32) * 3
    a.block_until_ready()
    x = cuda.from_dlpack(a)
    assert x._pointer == a.unsafe_buffer_pointer()
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(10, dtype=np.float32) * 3)
    del a
    gc.collect()
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(10, dtype=np.float32) * 3)  # still alive

"""Devices and contexts: cuda.gpus, selection, attributes, memory info,
detect(), profiling."""

import re

import numpy as np
import pytest

import cuforge
from cuforge import cuda


def test_gpus_is_a_sequence_of_devices():
    n = len(cuda.gpus)
    assert n >= 1
    assert [g.id for g in cuda.gpus] == list(range(n))
    assert cuda.gpus[0].id == 0
    assert cuda.gpus[-1].id == n - 1
    with pytest.raises(IndexError):
        cuda.gpus[n]
    with pytest.raises(IndexError):
        cuda.gpus[-n - 1]
    assert cuda.list_devices() is cuda.gpus
    assert cuda.gpus.current == cuda.get_current_device()
    assert "Device" in repr(cuda.gpus) or "device" in repr(cuda.gpus)


def test_with_a_gpu_makes_it_current_for_the_scope():
    before = cuda.get_current_device().id
    last = len(cuda.gpus) - 1
    with cuda.gpus[last] as dev:
        assert dev.id == last
        assert cuda.get_current_device().id == last
        d = cuda.to_device(np.arange(3))
        assert d.device_id == last
    assert cuda.get_current_device().id == before


def test_with_a_gpu_restores_on_exceptions():
    before = cuda.get_current_device().id
    with pytest.raises(KeyError):
        with cuda.gpus[0]:
            raise KeyError("inside")
    assert cuda.get_current_device().id == before


def test_select_device():
    dev = cuda.select_device(0)
    assert dev.id == 0 and cuda.get_current_device() == dev
    for bad in [len(cuda.gpus), -1, 1000]:
        with pytest.raises(ValueError, match="out of range"):
            cuda.select_device(bad)
    assert cuda.get_current_device().id == 0


def test_the_current_device():
    dev = cuda.get_current_device()
    assert isinstance(dev.id, int) and dev.id == 0
    assert isinstance(dev.name, str) and dev.name
    cc = dev.compute_capability
    assert isinstance(cc, tuple) and len(cc) == 2 and all(isinstance(x, int) for x in cc)
    assert cc == (dev.COMPUTE_CAPABILITY_MAJOR, dev.COMPUTE_CAPABILITY_MINOR)
    assert re.fullmatch(r"GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", dev.uuid), dev.uuid
    assert str(dev.id) in repr(dev) and dev.name in repr(dev)
    assert dev == cuda.get_current_device() and hash(dev) == hash(cuda.get_current_device())
    assert isinstance(dev.supports_float16, bool)


def test_device_attributes_by_name():
    dev = cuda.get_current_device()
    assert dev.WARP_SIZE == 32
    assert dev.MAX_THREADS_PER_BLOCK == 1024
    assert dev.MAX_BLOCK_DIM_X == 1024 and dev.MAX_BLOCK_DIM_Z == 64
    assert dev.MULTIPROCESSOR_COUNT >= 1
    assert dev.MAX_SHARED_MEMORY_PER_BLOCK >= 48 * 1024
    assert dev.SHARED_MEMORY_PER_BLOCK == dev.MAX_SHARED_MEMORY_PER_BLOCK  # numba's alias
    assert dev.CAN_MAP_HOST_MEMORY == 1 and dev.UNIFIED_ADDRESSING == 1
    with pytest.raises(AttributeError):
        dev.NOT_AN_ATTRIBUTE
    assert not hasattr(dev, "MAX_THREADS_PER_WARP")


def test_gpus_entries_forward_device_attributes():
    assert cuda.gpus[0].WARP_SIZE == 32
    assert cuda.gpus[0].name == cuda.get_current_device().name


def test_memory_info():
    ctx = cuda.current_context()
    info = ctx.get_memory_info()
    free, total = info
    assert (info.free, info.total) == (free, total)
    assert 0 < free <= total
    assert ctx.device == cuda.get_current_device()
    assert cuda.current_context(0).device.id == 0


def test_synchronize():
    s = cuda.stream()
    done = []
    s.add_callback(lambda st, status, arg: done.append(1))
    cuda.synchronize()  # every stream of the device
    assert done == [1]
    s.add_callback(lambda st, status, arg: done.append(2))
    cuda.current_context().synchronize()
    assert done == [1, 2]


def test_detect_prints_the_devices_and_says_true(capsys):
    assert cuda.detect() is True
    out = capsys.readouterr().out
    assert f"Found {len(cuda.gpus)} CUDA devices" in out
    assert cuda.get_current_device().name in out
    assert "Compute Capability" in out and "UUID" in out
    assert f"{len(cuda.gpus)}/{len(cuda.gpus)} devices are supported" in out


def test_is_available_and_the_backend():
    assert cuda.is_available() is True
    assert cuforge.backend() in ("cuda", "cpu")
    assert cuda.backend() == cuforge.backend()
    assert isinstance(cuforge.backend_reason(), str) and cuforge.backend_reason()
    assert cuda.backend_reason() == cuforge.backend_reason()
    assert cuforge.backend() in cuforge.backend_reason()


def test_profiling_calls_start_and_stop(monkeypatch):
    import cuforge.cuda._api as api

    calls = []
    monkeypatch.setattr(api, "profile_start", lambda: calls.append("start"))
    monkeypatch.setattr(api, "profile_stop", lambda: calls.append("stop"))
    with cuda.profiling():
        calls.append("body")
    with pytest.raises(KeyError):
        with cuda.profiling():
            raise KeyError("inside")
    assert calls == ["start", "body", "stop", "start", "stop"]


def test_profile_start_and_stop_run():
    cuda.profile_start()
    cuda.profile_stop()
    with cuda.profiling():
        cuda.to_device(np.arange(3)).copy_to_host()


@pytest.mark.gpu
def test_a_gpu_device():
    dev = cuda.get_current_device()
    assert "cpu backend" not in dev.name
    assert dev.compute_capability >= (5, 0)
    assert cuda.device_array(16).memory_kind == "device"
    assert cuforge.backend_reason().startswith("cuda backend")
    assert cuda.get_current_device().INTEGRATED in (0, 1)


@pytest.mark.gpu
def test_memory_info_reflects_allocations(run_python):
    """In a fresh process, so no pool holds memory from other tests. The free memory is the whole
    device's, which other processes move too (14 test processes on an H200 moved it by hundreds of
    megabytes between two readings): a quarter of the device (8 GiB at most) is allocated, and at
    least half of it must show, in the largest drop of three tries."""
    run = run_python(
        """
        import numpy as np
        from cuforge import cuda
        ctx = cuda.current_context()
        size = min(8 << 30, ctx.get_memory_info()[1] // 4)
        drops = []
        for _ in range(3):
            free0, total = ctx.get_memory_info()
            d = cuda.device_array(size, np.uint8)
            d[:] = 1
            cuda.synchronize()
            free1, _ = ctx.get_memory_info()
            drops.append(free0 - free1)
            del d
            cuda.synchronize()
        print(size, max(drops))
        """
    )
    assert run.rc == 0, run
    size, drop = map(int, run.stdout.split()[-2:])
    assert drop >= size // 2, (size, drop)

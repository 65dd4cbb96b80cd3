"""Deferred deallocation: frees queue up and run in batches; nothing is
freed inside cuda.defer_cleanup(); views keep their memory alive.

Counts come from the context's pending deallocations and the statistics
adaptor (`_core.enable_memory_statistics()`).
"""

import gc

import numpy as np
import pytest

from cuforge import _core, cuda

ITEM_BYTES = 1000 * 8


@pytest.fixture
def stats():
    """Allocation counters of the current device's resource, from now on,
    with pending frees flushed first."""
    _core.enable_memory_statistics()
    gc.collect()
    cuda.synchronize()
    return _core.memory_statistics


def pending():
    count, nbytes = cuda.current_context().deallocations
    return count, nbytes


def test_deallocations_is_a_count_and_bytes():
    gc.collect()
    cuda.synchronize()
    assert pending() == (0, 0)
    with cuda.defer_cleanup():
        d = cuda.device_array(1000)
        del d
        gc.collect()
        count, nbytes = pending()
        assert count == 1 and nbytes >= ITEM_BYTES


def test_defer_cleanup_holds_every_free_until_the_scope_ends(stats):
    before = stats()["current_bytes"]
    with cuda.defer_cleanup():
        arrays = [cuda.device_array(1000) for _ in range(30)]  # 30 > the batch of 10
        in_use = stats()["current_bytes"]
        assert in_use >= before + 30 * ITEM_BYTES
        del arrays
        gc.collect()
        count, nbytes = pending()
        assert count >= 30 and nbytes >= 30 * ITEM_BYTES
        cuda.synchronize()  # a synchronisation point, yet nothing goes inside the scope
        assert pending()[0] >= 30
        assert stats()["current_bytes"] == in_use
    assert pending() == (0, 0)  # over the batch size: flushed on leaving
    assert stats()["current_bytes"] <= in_use - 30 * ITEM_BYTES


def test_nested_defer_cleanup_flushes_when_the_outermost_ends(stats):
    with cuda.defer_cleanup():
        with cuda.defer_cleanup():
            arrays = [cuda.device_array(1000) for _ in range(15)]
            del arrays
            gc.collect()
        assert pending()[0] >= 15  # the inner scope's end is not the outer's
    assert pending() == (0, 0)


def test_defer_cleanup_ends_on_exceptions(stats):
    with pytest.raises(ZeroDivisionError):
        with cuda.defer_cleanup():
            arrays = [cuda.device_array(1000) for _ in range(12)]
            del arrays
            gc.collect()
            1 / 0
    assert pending() == (0, 0)
    arrays = [cuda.device_array(1000) for _ in range(12)]
    del arrays
    gc.collect()
    assert pending()[0] < 10  # batches flush again


def test_frees_batch_up_outside_defer_cleanup(stats):
    for _ in range(3):
        arrays = [cuda.device_array(1000) for _ in range(25)]
        del arrays
        gc.collect()
        assert pending()[0] < 10
    cuda.synchronize()
    assert pending() == (0, 0)


def test_a_view_keeps_its_allocation_alive(stats):
    d = cuda.to_device(np.arange(1000, dtype=np.int64))
    v = d[500::7]
    count_before = pending()[0]
    del d
    gc.collect()
    assert pending()[0] == count_before  # nothing to free: the view holds it
    np.testing.assert_array_equal(v.copy_to_host(), np.arange(500, 1000, 7))
    with cuda.defer_cleanup():
        count_before = pending()[0]  # the strided copy may have freed a staging buffer
        del v
        gc.collect()
        assert pending()[0] == count_before + 1


def test_the_batch_size_comes_from_the_environment(run_python):
    run = run_python(
        """
        import gc
        from cuforge import cuda
        for n in range(1, 4):
            d = cuda.device_array(10)
            del d
            gc.collect()
            print(cuda.current_context().deallocations[0])
        """,
        env={"CUFORGE_DEALLOCS_COUNT": "3"},
    )
    assert run.rc == 0, run
    assert run.stdout.split() == ["1", "2", "0"]

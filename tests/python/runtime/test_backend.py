"""Backend selection (CUFORGE_BACKEND) and the cpu backend's devices
(CUFORGE_CPU_DEVICES), each in a fresh interpreter: the choice is made once
per process."""

import pytest

from cuforge import _core


def test_an_unknown_backend_is_a_clear_error_on_first_use(run_python):
    run = run_python(
        """
        import cuforge
        from cuforge import cuda  # importing chooses nothing
        print("imported")
        print("available", cuda.is_available())
        try:
            cuforge.backend()
        except ValueError as e:
            print("ValueError:", e)
        try:
            cuda.device_array(3)
        except ValueError as e:
            print("ValueError again")
        """,
        env={"CUFORGE_BACKEND": "bogus"},
    )
    assert run.rc == 0, run
    lines = run.stdout.splitlines()
    assert lines[0] == "imported"
    assert lines[1] == "available False"
    assert "'bogus'" in lines[2] and "auto, cuda, cpu" in lines[2]
    assert lines[3] == "ValueError again"


def test_cpu_can_be_forced(run_python):
    run = run_python(
        """
        import numpy as np
        import cuforge
        from cuforge import cuda
        print(cuforge.backend(), "|", cuforge.backend_reason())
        print(cuda.to_device(np.arange(4)).copy_to_host().sum())
        """,
        env={"CUFORGE_BACKEND": "cpu"},
    )
    assert run.rc == 0, run
    first, second = run.stdout.splitlines()
    assert first.startswith("cpu |") and "CUFORGE_BACKEND=cpu" in first
    assert second == "6"


def test_forcing_cuda(run_python):
    """Works where a CUDA driver is usable; elsewhere a CudaAPIError with
    CUDA_ERROR_NO_DEVICE saying why."""
    run = run_python(
        """
        import cuforge
        from cuforge import cuda
        try:
            print(cuforge.backend())
        except cuda.CudaAPIError as e:
            print(e.name, "|", e)
        """,
        env={"CUFORGE_BACKEND": "cuda"},
    )
    assert run.rc == 0, run
    if _core.cuda_driver_usable():
        assert run.stdout.strip() == "cuda"
    else:
        name, message = run.stdout.strip().split(" | ", 1)
        assert name == "CUDA_ERROR_NO_DEVICE" and "CUFORGE_BACKEND=cuda" in message


def test_auto_picks_cuda_exactly_when_a_driver_is_usable(run_python):
    run = run_python("import cuforge; print(cuforge.backend())", env={"CUFORGE_BACKEND": "auto"})
    assert run.rc == 0, run
    assert run.stdout.strip() == ("cuda" if _core.cuda_driver_usable() else "cpu")


def test_several_cpu_devices(run_python):
    """Also a regression test: a non-contiguous copy between devices recursed
    until the stack overflowed."""
    run = run_python(
        """
        import numpy as np
        from cuforge import cuda
        assert len(cuda.gpus) == 3
        with cuda.gpus[2]:
            d2 = cuda.to_device(np.arange(12).reshape(3, 4))
            s2 = cuda.stream()
            assert d2.device_id == 2 and s2.device_id == 2
            assert cuda.get_current_device().id == 2
        assert cuda.get_current_device().id == 0
        d0 = cuda.device_array((3, 4), np.int64)
        assert d0.device_id == 0
        d0.copy_to_device(d2)
        assert (d0.copy_to_host() == np.arange(12).reshape(3, 4)).all()
        d0[:] = d2[::-1, ::-1]
        assert (d0.copy_to_host() == np.arange(12)[::-1].reshape(3, 4)).all()
        assert (d2[:, ::2].copy_to_host() == np.arange(12).reshape(3, 4)[:, ::2]).all()
        cuda.select_device(1)
        assert cuda.device_array(2).device_id == 1
        print("ok")
        """,
        env={"CUFORGE_BACKEND": "cpu", "CUFORGE_CPU_DEVICES": "3"},
    )
    assert run.rc == 0, run
    assert run.stdout.strip() == "ok"


@pytest.mark.parametrize("value", ["0", "65", "-1"])
def test_an_invalid_cpu_device_count_is_a_clear_error(run_python, value):
    run = run_python(
        """
        from cuforge import cuda
        try:
            len(cuda.gpus)
        except ValueError as e:
            print(e)
        """,
        env={"CUFORGE_BACKEND": "cpu", "CUFORGE_CPU_DEVICES": value},
    )
    assert run.rc == 0, run
    assert "CUFORGE_CPU_DEVICES must be between 1 and 64" in run.stdout

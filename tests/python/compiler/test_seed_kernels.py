"""The walker on the seed documents' kernels (seed_kernels.py): exact IR
listings for some, structure and globals for the rest."""

import inspect

import numpy as np
import pytest

import seed_kernels as seeds
from compiler_support import dump, expected, needs_codegen, needs_typer
from cuforge import cuda

ALL = [name for name, obj in vars(seeds).items() if isinstance(obj, cuda.Dispatcher)]


def test_the_seed_module_has_every_kernel():
    assert len(ALL) == 19  # the kernels and device functions, cuda.random's generator among them
    assert {"vector_add", "matmul", "compute_pi", "histogram", "polar_to_cartesian"} <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_every_seed_kernel_builds_and_names_its_params(name):
    disp = getattr(seeds, name)
    text = dump(disp)
    params = ", ".join(inspect.signature(disp.py_func).parameters)
    assert text.startswith(f"def {name}({params}):\n")
    assert disp.function_ir.name == name
    assert disp.function_ir.qualname == name


def test_vector_add():
    assert dump(seeds.vector_add) == expected("""
        def vector_add(r, x, y):
            start = global(cuda).grid(1)
            step = global(cuda).gridsize(1)
            stop = global(builtins.len)(r)
            for i in range(start, stop, step):
                r[i] = (x[i] + y[i])
        """)


def test_increment_a_2D_array():
    assert dump(seeds.increment_a_2D_array) == expected("""
        def increment_a_2D_array(an_array):
            (x, y) = global(cuda).grid(2)
            if ((x < an_array.shape[0]) and (y < an_array.shape[1])):
                an_array[(x, y)] = (an_array[(x, y)] + 1)
        """)


def test_matmul():
    assert dump(seeds.matmul) == expected("""
        def matmul(A, B, C):
            (i, j) = global(cuda).grid(2)
            if ((i < C.shape[0]) and (j < C.shape[1])):
                tmp = 0.0
                for k in range(0, A.shape[1], 1):
                    tmp = (tmp + (A[(i, k)] * B[(k, j)]))
                C[(i, j)] = tmp
        """)


def test_activate_calls_math_exp_imported_by_name():
    assert dump(seeds.activate) == expected("""
        def activate(values, out):
            i = global(cuda).grid(1)
            if (i < values.size):
                out[i] = ((global(math.exp)(values[i]) - global(math.exp)((- values[i]))) / (global(math.exp)(values[i]) + global(math.exp)((- values[i]))))
        """)  # noqa: E501


def test_device_functions():
    assert dump(seeds.hypot) == expected("""
        def hypot(x, y):
            x = global(builtins.abs)(x)
            y = global(builtins.abs)(y)
            t = global(builtins.min)(x, y)
            x = global(builtins.max)(x, y)
            t = (t / x)
            return (x * global(math).sqrt((1 + (t * t))))
        """)
    assert dump(seeds.polar_to_cartesian) == expected("""
        def polar_to_cartesian(rho, theta):
            x = (rho * global(math).cos(theta))
            y = (rho * global(math).sin(theta))
            return (x, y)
        """)
    assert dump(seeds.polar_distance) == expected("""
        def polar_distance(rho1, theta1, rho2, theta2, out):
            i = global(cuda).grid(1)
            if (i < out.size):
                (x1, y1) = global(polar_to_cartesian)(rho1[i], theta1[i])
                (x2, y2) = global(polar_to_cartesian)(rho2[i], theta2[i])
                out[i] = global(hypot)((x1 - x2), (y1 - y2))
        """)


def test_sum_reduction():
    assert dump(seeds.block_sum) == expected("""
        def block_sum(x, partial):
            s = global(cuda).shared.array(global(TPB), dtype=global(int32))
            tid = global(cuda).threadIdx.x
            i = global(cuda).grid(1)
            s[tid] = (x[i] if (i < x.size) else 0)
            global(cuda).syncthreads()
            stride = (global(TPB) // 2)
            while (stride > 0):
                if (tid < stride):
                    s[tid] = (s[tid] + s[(tid + stride)])
                global(cuda).syncthreads()
                stride = (stride // 2)
            if (tid == 0):
                partial[global(cuda).blockIdx.x] = s[0]
        """)


def test_nan_compact_loops_over_the_array_by_index():
    assert dump(seeds.nan_compact) == expected("""
        def nan_compact(x, out, count):
            out_index = 0
            for $t5 in range(0, global(builtins.len)(x), 1):
                element = x[$t5]
                if (not global(numpy).isnan(element)):
                    out[out_index] = element
                    out_index = (out_index + 1)
            count[0] = out_index
        """)


def test_histograms_use_atomics():
    text = dump(seeds.histogram)
    assert "global(cuda).atomic.add(histogram_out, bin_number, 1)" in text
    assert "bin_number = global(numpy).int32(((x[i] - xmin) / bin_width))" in text
    assert "for i in range(start, x.shape[0], stride):" in text
    text = dump(seeds.shared_histogram)
    assert "local = global(cuda).shared.array(global(NBINS), dtype=global(int32))" in text
    # for v in x[a::b]: the sliced view evaluated once, then indexed
    assert "$t5 = x[slice(global(cuda).grid(1), <none>, global(cuda).gridsize(1))]" in text
    assert "for $t6 in range(0, global(builtins.len)($t5), 1):\n        v = $t5[$t6]" in text
    assert "global(cuda).atomic.add(local, (global(builtins.int)(v) % global(NBINS)), 1)" in text


def test_fast_matmul_keeps_keyword_arguments_and_syncthreads():
    text = dump(seeds.fast_matmul)
    assert text.count("global(cuda).shared.array(shape=(global(TPB), global(TPB)), dtype=global(float32))") == 2
    assert text.count("global(cuda).syncthreads()") == 2
    assert "tmp = global(float32)(0.0)" in text
    assert "for j in range(0, global(TPB), 1):" in text


def test_compute_pi_resolves_the_generator(record):
    rec = record(seeds.compute_pi)
    (entry,) = [g for (g,) in rec.of("global_") if "xoroshiro128p_uniform_float32" in g["name"]]
    assert entry["kind"] == "device_function"  # cuforge.cuda.random's
    assert entry["callee"].name == "xoroshiro128p_uniform_float32"
    text = rec.ir.dump()
    assert "if (((x ** 2) + (y ** 2)) <= 1.0):" in text
    assert "out[tid] = ((4.0 * inside) / iterations)" in text


def test_gpu_round_and_the_debug_kernel():
    text = dump(seeds.gpu_round)
    assert "f = (10 ** decimal)" in text
    assert "ret = global(numpy.rint)(ret)" in text
    text = dump(seeds.add_1)
    assert "if (i > x.shape[0]):\n        return None\n    x[i] = (x[i] + 1)" in text
    assert seeds.add_1.targetoptions["debug"] is True and seeds.add_1.targetoptions["opt"] is False


def test_seed_globals_resolve_by_kind(record):
    kinds = {g["name"]: g["kind"] for (g,) in record(seeds.fast_matmul).of("global_")}
    assert kinds == {"cuda": "module", "TPB": "constant", "float32": "dtype"}
    kinds = {g["name"]: g["kind"] for (g,) in record(seeds.polar_distance).of("global_")}
    assert kinds == {"cuda": "module", "polar_to_cartesian": "device_function", "hypot": "device_function"}
    kinds = {g["name"]: g["kind"] for (g,) in record(seeds.activate).of("global_")}
    assert kinds == {"cuda": "module", "math.exp": "function"}


# --- end to end, once the typer and code generation exist ---------------------------------------


def _vector_add():
    x = np.arange(100, dtype=np.float32)
    r = np.zeros_like(x)
    seeds.vector_add[2, 32](r, x, x)
    np.testing.assert_array_equal(r, 2 * x)


def _increment_a_2D_array():
    a = np.zeros((5, 7))
    seeds.increment_a_2D_array[(2, 2), (4, 4)](a)
    np.testing.assert_array_equal(a, np.ones((5, 7)))


def _matmul():
    rng = np.random.default_rng(1)
    A, B, C = rng.random((8, 5)), rng.random((5, 6)), np.zeros((8, 6))
    seeds.matmul[(2, 2), (4, 4)](A, B, C)
    np.testing.assert_allclose(C, A @ B)


def _fast_matmul():
    rng = np.random.default_rng(2)
    A = rng.random((32, 32), dtype=np.float32)
    B = rng.random((32, 32), dtype=np.float32)
    C = np.zeros((32, 32), np.float32)
    seeds.fast_matmul[(2, 2), (seeds.TPB, seeds.TPB)](A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-4)


def _hidden_layer():
    rng = np.random.default_rng(3)
    g = (rng.random(1000) * 255).astype(np.float32)
    w = rng.random(1000, dtype=np.float32)
    normalized, weighted, activated = (np.zeros_like(g) for _ in range(3))
    seeds.normalize[4, 256](g, normalized)
    seeds.weigh[4, 256](normalized, w, weighted)
    seeds.activate[4, 256](weighted, activated)
    np.testing.assert_allclose(activated, np.tanh(g / 255 * w), atol=1e-5)


def _polar_distance():
    rng = np.random.default_rng(4)
    r1, t1, r2, t2 = (rng.random(100, dtype=np.float32) for _ in range(4))
    out = np.zeros(100, np.float32)
    seeds.polar_distance[1, 128](r1, t1, r2, t2, out)
    dx = r1 * np.cos(t1) - r2 * np.cos(t2)
    dy = r1 * np.sin(t1) - r2 * np.sin(t2)
    np.testing.assert_allclose(out, np.hypot(dx, dy), atol=1e-5)


def _block_sum():
    a = np.arange(4 * seeds.REDUCE_TPB, dtype=np.int32) - 300
    partial = np.zeros(4, np.int32)
    seeds.block_sum[4, seeds.REDUCE_TPB](a, partial)
    np.testing.assert_array_equal(partial, a.reshape(4, seeds.REDUCE_TPB).sum(axis=1))


def _histogram():
    x = np.random.default_rng(5).random(1000)
    h = np.zeros(10, np.int64)
    seeds.histogram[4, 64](x, 0.0, 1.0, h)
    np.testing.assert_array_equal(h, np.histogram(x, bins=10, range=(0, 1))[0])


def _shared_histogram():
    x = np.arange(1000, dtype=np.float64)
    h = np.zeros(seeds.NBINS, np.int32)
    seeds.shared_histogram[4, 64](x, h)
    np.testing.assert_array_equal(h, np.bincount(np.arange(1000) % seeds.NBINS))


def _nan_compact():
    x = np.array([1, np.nan, 2, np.nan, 3.0])
    out, count = np.zeros(5), np.zeros(1, np.int64)
    seeds.nan_compact[1, 1](x, out, count)
    assert count[0] == 3 and out[:3].tolist() == [1, 2, 3]


def _gpu_round():
    a = np.random.default_rng(6).random(100) * 100
    out = np.zeros(100)
    seeds.gpu_round.forall(100)(a, out, 2)
    np.testing.assert_allclose(out, np.round(a, 2))


def _axpy_and_add_1():
    x = np.arange(10.0)
    r = np.zeros(10)
    seeds.axpy[1, 32](r, 2.0, x, x)
    np.testing.assert_array_equal(r, 3 * x)
    ones = np.zeros(10)
    seeds.add_1[1, 10](ones)
    np.testing.assert_array_equal(ones, np.ones(10))


@needs_codegen
@pytest.mark.parametrize("run", [_vector_add, _increment_a_2D_array, _matmul, _fast_matmul, _hidden_layer,
                                 _polar_distance, _block_sum, _histogram, _shared_histogram, _nan_compact,
                                 _gpu_round, _axpy_and_add_1], ids=lambda f: f.__name__.strip("_"))
def test_seed_kernels_run(run):
    run()


@needs_codegen
def test_compute_pi_runs_with_cuda_random():
    from cuforge.cuda.random import create_xoroshiro128p_states

    out = np.zeros(128)
    seeds.compute_pi[2, 64](create_xoroshiro128p_states(128, seed=1), 2000, out)
    assert abs(out.mean() - np.pi) < 0.02



"""cuda.extending: struct types, overloads of functions, operators, methods
and attributes, register_jitable, and library objects as kernel arguments
(docs/extending.md). The cuDF-style masked value is the running example."""

import math
import operator
import re
from fractions import Fraction

import numpy as np
import pytest

import cuforge
from cuforge import cuda, types
from cuforge.cuda import extending

# --- a cuDF-style masked value: a value and a validity flag, the mask propagated --------------------------

Masked = extending.struct_type("Masked", [("value", types.float64), ("valid", types.boolean)])


@extending.overload(operator.add)
def masked_add(a, b):
    if extending.is_struct(a, Masked) and extending.is_struct(b, Masked):
        def impl(a, b):
            return Masked(a.value + b.value, a.valid and b.valid)
        return impl
    if extending.is_struct(a, Masked) and isinstance(b, types.Number):
        def impl(a, b):
            return Masked(a.value + b, a.valid)
        return impl
    if isinstance(a, types.Number) and extending.is_struct(b, Masked):
        def impl(a, b):
            return Masked(a + b.value, b.valid)
        return impl
    return None


@extending.overload(operator.mul)
def masked_mul(a, b):
    if extending.is_struct(a, Masked) and extending.is_struct(b, Masked):
        def impl(a, b):
            return Masked(a.value * b.value, a.valid and b.valid)
        return impl
    return None


@extending.overload(operator.lt)
def masked_lt(a, b):
    if extending.is_struct(a, Masked) and isinstance(b, types.Number):
        def impl(a, b):
            return a.valid and a.value < b
        return impl
    return None


@extending.overload(operator.neg)
def masked_neg(a):
    if extending.is_struct(a, Masked):
        def impl(a):
            return Masked(-a.value, a.valid)
        return impl
    return None


@extending.overload_attribute(Masked, "is_null")
def masked_is_null(m):
    def impl(m):
        return not m.valid
    return impl


@extending.overload_method(Masked, "value_or")
def masked_value_or(m, default):
    if isinstance(default, types.Number):
        def impl(m, default):
            return m.value if m.valid else default
        return impl
    return None


def clip01(x):
    """A plain Python function kernels call through its overload."""
    return min(max(x, 0.0), 1.0)


@extending.overload(clip01)
def clip01_overload(x):
    if isinstance(x, types.Float):
        def impl(x):
            return min(max(x, 0.0), 1.0)
        return impl
    if extending.is_struct(x, Masked):
        def impl(x):
            return Masked(min(max(x.value, 0.0), 1.0), x.valid)
        return impl
    return None


def udf(x, y):
    """A user's function, as cuDF compiles it for masked columns."""
    return clip01(x * y + 1.0) + -x


udf_device = cuda.jit(device=True)(udf)


@cuda.jit
def apply_udf(xv, xm, yv, ym, out, out_valid, nulls, fallback):
    i = cuda.grid(1)
    if i < out.size:
        r = udf_device(Masked(xv[i], xm[i]), Masked(yv[i], ym[i]))
        out[i] = r.value
        out_valid[i] = r.valid
        nulls[i] = r.is_null
        fallback[i] = r.value_or(-1.0)


def _expected(xv, xm, yv, ym):
    if cuforge.backend() == "cuda":
        # The GPU contracts x * y + 1.0 into an fma (as numba-cuda's kernels do): one rounding.
        product = np.array([float(Fraction(x) * Fraction(y) + 1) for x, y in zip(xv, yv)])
    else:
        product = xv * yv + 1.0
    value = np.minimum(np.maximum(product, 0.0), 1.0) - xv
    valid = xm & ym
    return value, valid


def test_masked_udf_runs_with_the_mask_propagated():
    rng = np.random.default_rng(0)
    n = 100
    xv, yv = rng.standard_normal(n), rng.standard_normal(n)
    xm, ym = rng.random(n) > 0.3, rng.random(n) > 0.3
    out, out_valid, nulls, fallback = np.zeros(n), np.zeros(n, np.bool_), np.zeros(n, np.bool_), np.zeros(n)
    apply_udf[4, 32](xv, xm, yv, ym, out, out_valid, nulls, fallback)
    value, valid = _expected(xv, xm, yv, ym)
    np.testing.assert_array_equal(out, value)
    np.testing.assert_array_equal(out_valid, valid)
    np.testing.assert_array_equal(nulls, ~valid)
    np.testing.assert_array_equal(fallback, np.where(valid, value, -1.0))


def test_masked_udf_compiles_to_a_device_function_with_compile_ptx():
    ptx, ret = cuda.compile_ptx(udf, (Masked.kernel_type, Masked.kernel_type), device=True)
    assert ret == Masked.kernel_type
    assert ".visible .func" in ptx
    # The scalar path of the same overloads: float in, float out.
    ptx, ret = cuda.compile_ptx(udf, (types.float64, types.float64), device=True)
    assert ret == types.float64


def test_struct_types_convert_their_fields_on_host_and_in_kernels():
    m = Masked(1, 1)
    assert type(m.value) is np.float64 and type(m.valid) is np.bool_
    assert Masked.kernel_type.spec == "Masked(value: float64, valid: bool)"

    @cuda.jit
    def make(out):
        m = Masked(3, 0)  # an int and an int: converted to float64 and bool
        out[0] = m.value + 0.5
        out[1] = 1.0 if m.valid else 2.0

    out = np.zeros(2)
    make[1, 1](out)
    np.testing.assert_array_equal(out, [3.5, 2.0])


def test_operators_on_structs_and_numbers_and_comparisons():
    @cuda.jit
    def ops(out, flags):
        a = Masked(2.0, True)
        b = Masked(5.0, False)
        out[0] = (a + b).value
        out[1] = (a + 1).value
        out[2] = (10 + a).value
        out[3] = (a * a).value
        out[4] = (-a).value
        flags[0] = (a + b).valid
        flags[1] = a < 3
        flags[2] = b < 10  # invalid: False

    out, flags = np.zeros(5), np.zeros(3, np.bool_)
    ops[1, 1](out, flags)
    np.testing.assert_array_equal(out, [7.0, 3.0, 12.0, 4.0, -2.0])
    np.testing.assert_array_equal(flags, [False, True, False])


# --- library objects as kernel arguments (a PyOptiX-style launch-parameter struct) --------------------------

LaunchParams = extending.struct_type("LaunchParams", [("width", types.uint32), ("height", types.uint32),
                                                      ("scale", types.float32)])


class Params:
    """A library's own object, not a tuple."""

    def __init__(self, width, height, scale):
        self.width, self.height, self.scale = width, height, scale


extending.register_argument(Params, LaunchParams)


@cuda.jit
def fill_image(params, image):
    x, y = cuda.grid(2)
    if x < params.width and y < params.height:
        image[y, x] = (y * params.width + x) * params.scale


def test_a_registered_object_passes_as_its_struct():
    image = np.zeros((6, 10), np.float32)
    fill_image[(2, 2), (8, 4)](Params(10, 6, 0.5), image)
    np.testing.assert_array_equal(image, np.arange(60, dtype=np.float32).reshape(6, 10) * np.float32(0.5))
    assert fill_image.signatures[0][0] == LaunchParams.kernel_type
    # A struct made on the host passes the same way.
    fill_image[(2, 2), (8, 4)](LaunchParams(10, 6, 2.0), image)
    assert image[5, 9] == 118.0


# --- structs with array and struct fields (an OptiX-style launch-parameter block) ------------------------------

Vec3 = extending.struct_type("Vec3", [("x", types.float32), ("y", types.float32), ("z", types.float32)])
Scene = extending.struct_type("Scene", [("image", types.float32[:, ::1]), ("origin", Vec3), ("scale", types.float32),
                                        ("hits", types.int32[:])])


@extending.overload_method(Scene, "put")
def scene_put(scene, i, j, v):
    if extending.is_struct(scene, Scene) and isinstance(v, types.Number):
        def impl(scene, i, j, v):
            scene.image[i, j] = v * scene.scale + scene.origin.z
            cuda.atomic.add(scene.hits, 0, 1)
        return impl
    return None


@cuda.jit
def render(scene):
    i, j = cuda.grid(2)
    if i < scene.image.shape[0] and j < scene.image.shape[1]:
        scene.image[i, j] = (scene.origin.x + i * scene.scale) + (scene.origin.y + j) * scene.origin.z
        cuda.atomic.add(scene.hits, 0, 1)


@cuda.jit
def render_inside(image, hits, a):
    scene = Scene(image, Vec3(a, a, a), 2.0, hits)
    i, j = cuda.grid(2)
    if i < image.shape[0] and j < image.shape[1]:
        scene.put(i, j, i * 10 + j)


def test_structs_with_array_and_struct_fields_pass_as_kernel_arguments():
    image, hits = np.zeros((5, 7), np.float32), np.zeros(1, np.int32)
    scene = Scene(image, Vec3(1, 2, 3), 0.5, hits)
    assert isinstance(scene.origin, Vec3) and scene.scale.dtype == np.float32 and scene.image is image
    render[(1, 1), (8, 8)](scene)
    i, j = np.indices(image.shape, dtype=np.float32)
    np.testing.assert_array_equal(image, (1 + i * np.float32(0.5)) + (2 + j) * np.float32(3))
    assert hits[0] == image.size
    # Device arrays, and a tuple for the struct field.
    d_image, d_hits = cuda.to_device(np.zeros((2, 3), np.float32)), cuda.to_device(np.zeros(1, np.int32))
    render[(1, 1), (4, 4)](Scene(d_image, (0, 0, 1), 1.0, d_hits))
    np.testing.assert_array_equal(d_image.copy_to_host(), np.add.outer(np.arange(2), np.arange(3)))
    assert d_hits.copy_to_host()[0] == 6


def test_structs_with_array_fields_are_made_in_kernels_and_given_to_overloads():
    from conftest import ptxas_check

    image, hits = np.zeros((3, 4), np.float32), np.zeros(1, np.int32)
    render_inside[(1, 1), (4, 4)](image, hits, 1.5)
    np.testing.assert_array_equal(image, np.add.outer(np.arange(3) * 10, np.arange(4)).astype(np.float32) * 2 + 1.5)
    assert hits[0] == 12
    assert extending.is_struct(Scene.kernel_type, Scene) and not extending.is_struct(Vec3.kernel_type, Scene)
    ptx, _ = cuda.compile_ptx(render_inside, (types.float32[:, ::1], types.int32[::1], types.float32))
    assert "atom.global.add" in ptx or "red.global.add" in ptx
    ptxas_check(ptx)


def test_a_struct_field_refuses_an_array_of_another_kind_on_the_host():
    with pytest.raises(TypeError, match=r"Scene.image is array\(float32, 2d, C\); got array\(float64, 2d, C\)"):
        Scene(np.zeros((2, 2)), Vec3(0, 0, 0), 1.0, np.zeros(1, np.int32))
    with pytest.raises(TypeError, match="Scene.image is array"):
        Scene(np.zeros((4, 4), np.float32)[:, ::2], Vec3(0, 0, 0), 1.0, np.zeros(1, np.int32))  # not C-contiguous
    with pytest.raises(TypeError, match="Scene.hits is array\\(int32, 1d, A\\); got list"):
        Scene(np.zeros((2, 2), np.float32), Vec3(0, 0, 0), 1.0, [0])
    # Any layout where the field says A.
    Scene(np.zeros((2, 2), np.float32), Vec3(0, 0, 0), 1.0, np.zeros(4, np.int32)[::2])


# --- register_jitable ---------------------------------------------------------------------------------------


@extending.register_jitable
def hypot3(x, y, z):
    return math.sqrt(x * x + y * y + z * z)


def test_register_jitable_runs_in_python_and_in_kernels():
    assert hypot3(1.0, 2.0, 2.0) == 3.0

    @cuda.jit
    def k(out, a):
        out[0] = hypot3(a[0], a[1], a[2])

    out = np.zeros(1)
    k[1, 1](out, np.array([2.0, 3.0, 6.0]))
    assert out[0] == 7.0


# --- errors ---------------------------------------------------------------------------------------------------


def test_struct_type_errors():
    with pytest.raises(ValueError, match="exists already"):
        extending.struct_type("Masked", [("value", types.float64)])
    with pytest.raises(TypeError, match="a struct's fields are scalars, arrays"):
        extending.struct_type("Bad1", [("a", types.UniTuple(types.float64, 2))])
    with pytest.raises(ValueError, match="a field is named twice"):
        extending.struct_type("Bad2", [("a", types.float64), ("a", types.int32)])
    with pytest.raises(TypeError, match="expected a struct type"):
        extending.overload_method(tuple, "x")
    with pytest.raises(TypeError, match="cannot overload"):
        extending.overload(3)


def _no_overload_for_ints(x):
    return x


@extending.overload(_no_overload_for_ints)
def _only_floats(x):
    if isinstance(x, types.Float):
        return lambda x: x
    return None


def _broken(x):
    return x


@extending.overload(_broken)
def _broken_overload(x):
    raise RuntimeError("the library's typing code failed")


def _not_a_function(x):
    return x


@extending.overload(_not_a_function)
def _returns_a_number(x):
    return 42


def _failing_impl(x):
    return x


@extending.overload(_failing_impl)
def _impl_that_does_not_compile(x):
    def impl(x):
        return x.no_such_attribute
    return impl


@pytest.mark.parametrize("func, message", [
    (_no_overload_for_ints, r"No implementation of _no_overload_for_ints for \(int64,\)"),
    (_broken, r"the overload registered for _broken failed for \(int64\): RuntimeError: the library's typing "
              r"code failed"),
    (_not_a_function, r"the overload returned 42, not an implementation function"),
    (_failing_impl, r"Unknown attribute 'no_such_attribute' of int64"),
])
def test_overload_errors_are_typing_errors_at_the_call(func, message):
    @cuda.jit
    def k(out):
        out[0] = func(1)

    with pytest.raises(cuda.TypingError, match=message) as e:
        k[1, 1](np.zeros(1))
    assert "out[0] = func(1)" in str(e.value) or "x.no_such_attribute" in str(e.value)


def lerp(a, b, t=0.5):
    """Overloaded, with a default: kernels call it with keywords too."""
    return a + (b - a) * t


@extending.overload(lerp)
def lerp_overload(a, b, t=0.5):
    if all(isinstance(x, (types.Float, types.Integer)) for x in (a, b)):
        def impl(a, b, t=0.5):
            return a + (b - a) * t
        return impl
    return None


def test_overloaded_functions_take_keyword_arguments_and_defaults():
    # Bound by the overloaded function's signature, as Python binds the call: numba-cuda's overloads take
    # keywords (the implementations then get the arguments by position).
    @cuda.jit
    def k(out, a, b):
        out[0] = lerp(a, b)
        out[1] = lerp(a, b, t=0.25)
        out[2] = lerp(b=b, a=a, t=1.0)
        out[3] = lerp(a, t=0.0, b=b)

    out = np.zeros(4)
    k[1, 1](out, 2.0, 6.0)
    assert out.tolist() == [lerp(2.0, 6.0), lerp(2.0, 6.0, t=0.25), 6.0, 2.0]


@pytest.mark.parametrize("call, message", [
    ("lerp(a, b, s=1.0)", "lerp\\(\\): got an unexpected keyword argument 's'"),
    ("lerp(a)", "lerp\\(\\): missing a required argument: 'b'"),
    ("lerp(a, b, 0.5, t=0.5)", "lerp\\(\\): multiple values for argument 't'"),
    # *args: Python's binding too; keyword-only parameters an implementation taking its arguments by
    # position cannot be given
    ("total(a, b, first=a)", "total\\(\\): multiple values for argument 'first'"),
    ("total()", "total\\(\\): missing a required argument: 'first'"),
    ("gather(a)", "gather\\(\\): keyword-only parameters \\('scale'\\) are not supported"),
    ("gather(a, scale=2.0)", "gather\\(\\): keyword-only parameters \\('scale'\\) are not supported"),
])
def test_a_call_python_would_refuse_is_a_typing_error_with_pythons_words(call, message, tmp_path):
    from compiler_support import typing_error_of

    src = f"from test_extending import gather, lerp, total\n\ndef k(out):\n    a = out[0]\n    b = 2.0\n    out[0] = {call}\n"
    e = typing_error_of(src, tmp_path, "bad_lerp_call")
    assert re.search(message, str(e)), str(e)


@extending.overload_method(Masked, "scaled")
def masked_scaled(m, factor=2.0, offset=0):
    """A method with defaults: bound by this typing function's signature, as numba binds a method call."""
    if isinstance(factor, types.Number) and isinstance(offset, types.Number):
        def impl(m, factor=2.0, offset=0):
            return Masked(m.value * factor + offset, m.valid)
        return impl
    return None


def test_overloaded_methods_take_keyword_arguments_and_defaults():
    @cuda.jit
    def k(out, valid, x):
        m = Masked(x, True)
        r = m.scaled()
        out[0] = r.value
        out[1] = m.scaled(3.0).value
        out[2] = m.scaled(offset=1.0).value
        out[3] = m.scaled(offset=1, factor=0.5).value
        out[4] = m.scaled(10.0, offset=-1).value
        valid[0] = Masked(x, False).scaled(offset=5.0).valid

    out, valid = np.zeros(5), np.ones(1, np.bool_)
    k[1, 1](out, valid, 4.0)
    assert out.tolist() == [8.0, 12.0, 9.0, 3.0, 39.0]
    assert not valid[0]


@pytest.mark.parametrize("call, message", [
    ("m.scaled(scale=1.0)", "Masked.scaled\\(\\): got an unexpected keyword argument 'scale'"),
    ("m.scaled(1.0, factor=2.0)", "Masked.scaled\\(\\): multiple values for argument 'factor'"),
    ("m.scaled(1.0, 2.0, 3.0)", "Masked.scaled\\(\\): too many positional arguments"),
    ("m.value_or(1.0, fallback=1.0)", "Masked.value_or\\(\\): got an unexpected keyword argument 'fallback'"),
    ("m.value_or()", "Masked.value_or\\(\\): missing a required argument: 'default'"),
])
def test_a_method_call_python_would_refuse_is_a_typing_error_with_pythons_words(call, message, tmp_path):
    from compiler_support import typing_error_of

    src = (f"from test_extending import Masked\n\ndef k(out):\n    m = Masked(out[0], True)\n"
           f"    out[0] = {call}.value\n" if "scaled" in call else
           f"from test_extending import Masked\n\ndef k(out):\n    m = Masked(out[0], True)\n    out[0] = {call}\n")
    e = typing_error_of(src, tmp_path, "bad_method_call")
    assert re.search(message, str(e)), str(e)


def total(first, *rest):
    """Overloaded, with *args: the extra arguments reach the implementation's *rest."""
    return first + sum(rest)


@extending.overload(total)
def total_overload(first, *rest):
    if isinstance(first, types.Number) and all(isinstance(r, types.Number) for r in rest):
        def impl(first, *rest):
            s = first
            for r in rest:
                s += r
            return s
        return impl
    return None


def gather(x, *, scale=1.0, **options):
    """Keyword-only parameters and **kwargs: an implementation taking arguments by position can't have them."""
    return x * scale


@extending.overload(gather)
def gather_overload(x, *, scale=1.0, **options):
    return lambda x, scale=1.0: x * scale


def test_overloaded_functions_with_star_args():
    @cuda.jit
    def k(out, a, b):
        out[0] = total(a)
        out[1] = total(a, b)
        out[2] = total(a, b, 3.0, 4.0)
        out[3] = total(first=b)

    out = np.zeros(4)
    k[1, 1](out, 1.5, 2.0)
    assert out.tolist() == [total(1.5), total(1.5, 2.0), total(1.5, 2.0, 3.0, 4.0), total(first=2.0)]




def test_register_argument_checks_what_to_struct_gives():
    class Other:
        pass

    extending.register_argument(Other, LaunchParams, to_struct=lambda obj: (1, 2, 3.0))
    with pytest.raises(TypeError, match="to_struct gave tuple, not LaunchParams"):
        fill_image[1, 1](Other(), np.zeros((1, 1), np.float32))
    with pytest.raises(TypeError, match=re.escape("kernel argument 0 (object) is not supported")):
        fill_image[1, 1](object(), np.zeros((1, 1), np.float32))


# --- intrinsics: inline PTX and LLVM IR, with host implementations --------------------------------------------


@cuda.jit(device=True)
def _host_syncthreads():
    cuda.syncthreads()


@extending.intrinsic("void()", llvm="""
declare void @llvm.nvvm.barrier0()

define void @seed_syncthreads() {
  call void @llvm.nvvm.barrier0()
  ret void
}
""", host=_host_syncthreads)
def seed_syncthreads():
    """Synchronize all threads in the same thread block (the seed talk's @intrinsic example)."""


@cuda.jit(device=True)
def _host_exp2(x):
    return 2.0 ** x


@extending.intrinsic("float32(float32)", ptx="ex2.approx.ftz.f32 $0, $1;", host=_host_exp2)
def fast_exp2(x):
    """2**x, the GPU's approximation."""


@extending.intrinsic("int64(int64, int64)", llvm="""
define i64 @mul_add_one(i64 %a, i64 %b) {
  %p = mul i64 %a, %b
  %r = add i64 %p, 1
  ret i64 %r
}
""")
def mul_add_one(a, b):
    """a * b + 1 in LLVM IR: no host implementation needed (target-independent IR)."""


@cuda.jit
def reverse_block(a):
    tile = cuda.shared.array(64, types.int32)
    i = cuda.threadIdx.x
    tile[i] = a[i]
    seed_syncthreads()
    a[i] = tile[63 - i]


def test_the_seeds_syncthreads_intrinsic_orders_shared_memory():
    a = np.arange(64, dtype=np.int32)
    reverse_block[1, 64](a)
    np.testing.assert_array_equal(a, np.arange(64)[::-1])
    ptx, _ = cuda.compile_ptx(reverse_block.py_func, "void(int32[:])")
    assert "bar.sync \t0;" in ptx or "barrier.sync \t0;" in ptx


def test_inline_ptx_on_the_gpu_and_its_host_implementation():
    @cuda.jit
    def k(out, x, r):
        out[0] = fast_exp2(x[0])
        r[0] = mul_add_one(6, 7)

    out, r = np.zeros(1, np.float32), np.zeros(1, np.int64)
    k[1, 1](out, np.array([3.0], np.float32), r)
    assert out[0] == 8.0 and r[0] == 43
    ptx, _ = cuda.compile_ptx(k.py_func, "void(float32[:], float32[:], int64[:])")
    assert "ex2.approx.ftz.f32" in ptx
    assert "mul_add_one" not in ptx  # linked in and inlined


def test_intrinsic_errors():
    with pytest.raises(ValueError, match="ptx= or llvm="):
        extending.intrinsic("void()")
    with pytest.raises(TypeError, match="is not a type an intrinsic takes"):
        extending.intrinsic("void(float32[:])", ptx="trap;")
    with pytest.raises(TypeError, match="host= is a device function"):
        extending.intrinsic("void()", ptx="trap;", host=lambda: None)

    @extending.intrinsic("void()", ptx="trap;")
    def gpu_only():
        pass

    with pytest.raises(ValueError, match="bad_ir's LLVM IR does not parse:.*'%x' defined with type 'i32'"):
        @extending.intrinsic("int32(int32)", llvm="define i32 @bad_ir(i32 %x) { ret i64 %x }")
        def bad_ir(x):
            pass
    with pytest.raises(ValueError, match=r"@wrong_type is i32 \(i32\); its signature makes it i64 \(i64\)"):
        @extending.intrinsic("int64(int64)", llvm="define i32 @wrong_type(i32 %x) { ret i32 %x }")
        def wrong_type(x):
            pass
    with pytest.raises(ValueError, match="does not define @missing"):
        @extending.intrinsic("int64(int64)", llvm="define i64 @other(i64 %x) { ret i64 %x }")
        def missing(x):
            pass

    @cuda.jit
    def uses_gpu_only(a):
        gpu_only()

    if cuda.backend() == "cpu":
        with pytest.raises(Exception, match="inline PTX, which only a GPU runs, and has no host implementation"):
            uses_gpu_only[1, 1](np.zeros(1))
    ptx, _ = cuda.compile_ptx(uses_gpu_only.py_func, "void(float64[:])")
    assert "trap;" in ptx


def test_kernels_using_overloads_are_not_kept_in_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUFORGE_CACHE_DIR", str(tmp_path / "cache"))

    def files():
        return sorted(p for p in (tmp_path / "cache").rglob("*") if p.is_file()) if (tmp_path / "cache").exists() else []

    @cuda.jit(cache=True)
    def plain(out, x):
        out[0] = min(max(x[0], 0.0), 1.0)

    @cuda.jit(cache=True)
    def overloaded(out, x):
        out[0] = clip01(x[0])

    out = np.zeros(1)
    plain[1, 1](out, np.array([2.0]))
    stored = files()
    assert stored and out[0] == 1.0  # the cache works here
    overloaded[1, 1](out, np.array([-2.0]))
    assert out[0] == 0.0 and files() == stored  # nothing added for the kernel made with clip01's overload

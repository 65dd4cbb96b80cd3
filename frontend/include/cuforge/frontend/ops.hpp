#pragma once

/// @file
/// The operations of the typed IR: the contract between the typer, which
/// resolves every Python-level operation into one of these with operands
/// already converted to the types it takes, and codegen, which implements
/// each on every target. An `op` expression has `op`, `operands`, `attrs`
/// (compile-time integers) and its result type `ty`.
///
/// These are the language's own operations (arithmetic, comparisons, the
/// math library, complex numbers, arrays, tuples, calls). Kernel-side
/// functions (cuda.syncthreads, cuda.atomic.add, cuda.popc...) are rows of
/// the intrinsic registry (intrinsics.hpp) instead: the typer emits them as
/// one op, `intrinsic`, whose attrs[0] names the registry entry that lowers
/// it.
///
/// Notation: T is the expression's own type `ty` unless said otherwise;
/// "int" is any integer type, "float" any floating type; all operands of
/// an arithmetic op have type T. Integer arithmetic wraps (two's
/// complement). Floating-point follows IEEE-754 without traps (NumPy's error
/// model: x / 0.0 is inf or nan); with fastmath, codegen may contract and
/// approximate.
///
/// The second column of the table is the op's lowering group: codegen finds
/// how to lower an op by it (codegen_ops.cpp, one function per group).

#include <cuforge/runtime/export.hpp>

#include <cstdint>

namespace cuforge::frontend {

#define CUFORGE_FRONTEND_OPS(X)                                                                        \
  X(none, invalid)                                                                                     \
  /* --- arithmetic: operands (a, b) of type T, result T (unless said) --- */                        \
  X(add, arith)         /* int, float, complex */                                                      \
  X(sub, arith)                                                                                        \
  X(mul, arith)                                                                                        \
  X(div, arith)         /* float, complex: true division */                                            \
  X(floordiv, arith)    /* int: Python floor division, x // 0 == 0; float: floor(a / b) as Python  */ \
                        /* (sign of the divisor, nan and inf as Python's float floordiv) */           \
  X(mod, arith)         /* int: Python modulo (sign of the divisor), x % 0 == 0; float: Python's % */ \
  X(pow, arith)         /* int ** int (a negative exponent gives 0 unless the base is 1 or -1);    */ \
                        /* float: pow; complex: cpow */                                               \
  X(powi, powi)         /* (float T, int64 n) -> T: a ** n for an integer exponent */                  \
  X(neg, neg)           /* (a) -> T: int, float, complex */                                            \
  X(bit_and, arith)     /* int, bool */                                                                \
  X(bit_or, arith)                                                                                     \
  X(bit_xor, arith)                                                                                    \
  X(shl, arith)         /* int: a << b (b >= width gives 0) */                                         \
  X(shr, arith)         /* int: a >> b, arithmetic for signed T, logical for unsigned */               \
  X(invert, invert)     /* (a) -> T: int ~a */                                                         \
  X(not_, not_)         /* (a bool) -> bool */                                                         \
  X(abs, abs)           /* (a) -> T for int and float; (complex a) -> float of its width */           \
  X(min, arith)         /* (a, b) -> T, int or float: Python's min (b if b < a else a) */             \
  X(max, arith)         /* (a, b) -> T: Python's max (b if b > a else a) */                           \
  /* --- comparisons: (a, b) of one type, result bool; complex only eq/ne --- */                      \
  X(eq, compare)                                                                                       \
  X(ne, compare)                                                                                       \
  X(lt, compare)                                                                                       \
  X(le, compare)                                                                                       \
  X(gt, compare)                                                                                       \
  X(ge, compare)                                                                                       \
  /* --- math on float T: (a) -> T; libdevice on the GPU, libm on the host --- */                     \
  X(sqrt, math1) X(cbrt, math1) X(exp, math1) X(exp2, math1) X(expm1, math1) X(log, math1)             \
  X(log2, math1) X(log10, math1) X(log1p, math1) X(sin, math1) X(cos, math1) X(tan, math1)             \
  X(asin, math1) X(acos, math1) X(atan, math1) X(sinh, math1) X(cosh, math1) X(tanh, math1)            \
  X(asinh, math1) X(acosh, math1) X(atanh, math1) X(erf, math1) X(erfc, math1) X(lgamma, math1)        \
  X(tgamma, math1) X(floor, math1) X(ceil, math1) X(trunc, math1) X(rint, math1) X(fabs, math1)        \
  /* --- math on float T: (a, b) -> T --- */                                                           \
  X(atan2, math2) X(hypot, math2) X(copysign, math2) X(fmod, math2) X(fpow, math2) X(fmin, math2)      \
  X(fmax, math2) X(nextafter, math2)                                                                   \
  X(remainder, math2)   /* IEEE 754 remainder: x - n*y, n the integer nearest x/y (ties to even) */   \
  X(ldexp, ldexp)       /* (a T, n int32) -> T */                                                      \
  X(fma, fma)           /* (a, b, c) -> T: a * b + c, rounded once */                                  \
  X(isnan, fclass)      /* (a float) -> bool */                                                        \
  X(isinf, fclass)                                                                                     \
  X(isfinite, fclass)                                                                                  \
  X(frexp, frexp_modf)  /* (a T) -> Tuple(T, int32) */                                                 \
  X(modf, frexp_modf)   /* (a T) -> Tuple(T, T): (fractional, integral) as Python's math.modf */      \
  /* --- complex (T the complex type unless said) --- */                                               \
  X(complex_make, complex_make) /* (re, im) of the matching float -> T */                              \
  X(real, complex_part) /* (z complex) -> float of its width */                                        \
  X(imag, complex_part)                                                                                \
  X(phase, complex_part) /* (z complex) -> float: atan2(imag, real) */                                 \
  X(conj, complex_fn)   /* (z) -> T */                                                                 \
  /* cmath's, as numba-cuda computes them (C99 special values; z's type unless said): */              \
  X(cexp, complex_fn) X(clog, complex_fn) X(csqrt, complex_fn) X(csin, complex_fn) X(ccos, complex_fn) \
  X(ctan, complex_fn) X(csinh, complex_fn) X(ccosh, complex_fn) X(casin, complex_fn)                   \
  X(cacos, complex_fn) X(catan, complex_fn) X(casinh, complex_fn) X(catanh, complex_fn)                \
  X(ctanh, complex_fn) X(cacosh, complex_fn) X(clog10, complex_fn) /* complex128 for complex64 too */   \
  X(crect, complex_fn)  /* (r, phi) floats of one width -> the complex of it: cmath.rect */            \
  /* NumPy's own on complex numbers (no special cases), z's type: */                                   \
  X(np_csinh, complex_fn) X(np_ccosh, complex_fn) X(np_ctanh, complex_fn) X(np_cacosh, complex_fn)     \
  /* --- arrays: A an array type; indices int64 --- */                                                 \
  X(array_load, array)  /* (A, i0, .., i{n-1}) -> A.dtype (a record: its address); attrs[0] = 1 when*/ \
                        /* an index may be negative (then i < 0 means i + shape); attrs[1], when   */ \
                        /* present and >= 0: bounds checked, an index outside raises that site     */ \
                        /* (IndexError) */                                                         \
  X(array_store, array) /* (A, value of A.dtype, i0, .., i{n-1}) -> none (a record is copied);      */ \
                        /* attrs[0] as array_load */                                                   \
  X(array_shape, array) /* (A) -> int64: attrs[0] = the dimension */                                   \
  X(array_stride, array) /* (A) -> int64 bytes: attrs[0] = the dimension */                            \
  X(array_size, array)  /* (A) -> int64: the element count */                                          \
  X(array_view, array)  /* (A, ...) -> T (an array): basic indexing that keeps some dimensions.     */ \
                        /* attrs, one per source dimension: 0 an integer index (1 operand), 1 a    */ \
                        /* full slice ':' (no operand), 2 a slice (3 operands start, stop, step,   */ \
                        /* each int64 or the constant INT64_MIN when absent); Python's slice rules;*/ \
                        /* attrs[ndim], when present: the integer indices are bounds-checked     */ \
                        /* (raise site, as array_load's attrs[1])                                  */ \
  X(shared_array, array) /* -> T, an array in shared memory of T.dtype; attrs: its shape (a single */ \
                        /* 0: the launch's dynamic shared memory, shape (0,)). Each op site is its */ \
                        /* own array, laid out statically per kernel */                                \
  X(local_array, array) /* -> T, per-thread array; attrs: its shape */                                 \
  X(const_array, array) /* -> T, in constant memory; attrs[0] = the global_value index (a           */ \
                        /* const_array) */                                                             \
  X(array_reshape, array) /* (A, extents...) -> T: A's elements (A C-contiguous) as a C-ordered   */ \
                        /* array of those int64 extents (their product is A's size: checked before) */ \
  X(global_array, array) /* -> T, a device array the kernel's globals name, by its address; attrs[0] */ \
                        /* = the global_value index (a device_array) */                                \
  X(ufunc_loop, ufunc)  /* (out A, arrays..., element) -> A: a NumPy ufunc with out=, as Numba runs it in */ \
                        /* a kernel: for every index of out (C order), element (computed from the arrays' */ \
                        /* elements there, broadcast as NumPy does, by ufunc_element ops) is stored into */ \
                        /* out; the typer checked the shapes broadcast before */                          \
  X(ufunc_element, ufunc) /* -> T: inside the element of the ufunc_loop around it, the element of its    */ \
                        /* array operand attrs[0] (0 the first after out) at the loop's index */             \
  /* --- records: R a record type (its value the address of its bytes) --- */                         \
  X(record_get, record) /* (R) -> field attrs[0]: a scalar's value, a nested record (its address),   */ \
                        /* a nested array (a C-ordered array over its bytes) */                        \
  X(record_set, record) /* (R, value) -> none: stores field attrs[0]; a nested record or array is   */ \
                        /* copied from the value (a record of its layout, an array of its shape) */    \
  /* --- tuples --- */                                                                                 \
  X(tuple_get, tuple_get) /* (t) -> its element attrs[0] (t a tuple or a vector type) */               \
  /* --- optionals: O an OptionalType, V its value's type --- */                                      \
  X(optional_some, optional)    /* (v V) -> O: v, present */                                           \
  X(optional_none, optional)    /* () -> O: None */                                                    \
  X(optional_present, optional) /* (o O) -> bool: o is not None */                                     \
  X(optional_value, optional)   /* (o O) -> V: o's value; attrs[0] >= 0: None raises raise site     */ \
                                /* attrs[0] (TypeError), else None gives V's zero */                   \
  /* --- run-time checks (debug=True) --- */                                                          \
  X(nonzero, check)     /* (y T) -> T: y, a divisor; y == 0 (int, float, complex) raises raise site  */ \
                        /* attrs[0] (ZeroDivisionError) */                                             \
  /* --- calls --- */                                                                                  \
  X(call_device, call_device) /* (args...) -> the callee's return type; attrs[0] = index into       */ \
                        /* typed_module::functions (the callee's specialization) */                    \
  X(call_external, call_external) /* (args...) -> its return type: a function declared with       */ \
                        /* cuda.declare_device; attrs[0] = index into typed_module::externals,     */ \
                        /* attrs[1] an intrinsic's host implementation (typed_module::functions) or -1 */ \
  X(intrinsic, intrinsic) /* (args...) -> T: a kernel-side function of the intrinsic registry;      */ \
                        /* attrs[0] = its index there (intrinsics.hpp), the rest are its own */

enum class op_id : std::uint16_t {
#define CUFORGE_FRONTEND_OP_ENUM(name, group) name,
  CUFORGE_FRONTEND_OPS(CUFORGE_FRONTEND_OP_ENUM)
#undef CUFORGE_FRONTEND_OP_ENUM
};

/// "add", "array_load", ...
CUFORGE_API const char* to_string(op_id op) noexcept;

}  // namespace cuforge::frontend

#pragma once

/// @file
/// The operations of the typed IR: the contract between the typer, which
/// resolves every Python-level operation into one of these with operands
/// already converted to the types it takes, and codegen, which implements
/// each on every target. An `op` expression has `op`, `operands`, `attrs`
/// (compile-time integers) and its result type `ty`.
///
/// Notation: T is the expression's own type `ty` unless said otherwise;
/// "int" is any integer type, "float" any floating type; all operands of
/// an arithmetic op have type T. Integer arithmetic wraps (two's
/// complement). Floating-point follows IEEE-754 without traps (NumPy's error
/// model: x / 0.0 is inf or nan); with fastmath, codegen may contract and
/// approximate.

#include <cstdint>

namespace cuforge::frontend {

#define CUFORGE_FRONTEND_OPS(X)                                                                        \
  X(none)                                                                                              \
  /* --- arithmetic: operands (a, b) of type T, result T (unless said) --- */                        \
  X(add)         /* int, float, complex */                                                             \
  X(sub)                                                                                               \
  X(mul)                                                                                               \
  X(div)         /* float, complex: true division */                                                 \
  X(floordiv)    /* int: Python floor division, x // 0 == 0; float: floor(a / b) as Python (sign   */ \
                 /* of the divisor, nan and inf as Python's float floordiv) */                         \
  X(mod)         /* int: Python modulo (sign of the divisor), x % 0 == 0; float: Python's float % */ \
  X(pow)         /* int ** int (a negative exponent gives 0 unless the base is 1 or -1); float:   */ \
                 /* pow; complex: cpow */                                                              \
  X(powi)        /* (float T, int64 n) -> T: a ** n for an integer exponent */                         \
  X(neg)         /* (a) -> T: int, float, complex */                                                   \
  X(bit_and)     /* int, bool */                                                                       \
  X(bit_or)                                                                                            \
  X(bit_xor)                                                                                           \
  X(shl)         /* int: a << b (b >= width gives 0) */                                                \
  X(shr)         /* int: a >> b, arithmetic for signed T, logical for unsigned */                      \
  X(invert)      /* (a) -> T: int ~a */                                                                \
  X(not_)        /* (a bool) -> bool */                                                                \
  X(abs)         /* (a) -> T for int and float; (complex a) -> float of its width */                 \
  X(min)         /* (a, b) -> T, int or float: Python's min (b if b < a else a) */                    \
  X(max)         /* (a, b) -> T: Python's max (b if b > a else a) */                                  \
  /* --- comparisons: (a, b) of one type, result bool; complex only eq/ne --- */                      \
  X(eq)                                                                                                \
  X(ne)                                                                                                \
  X(lt)                                                                                                \
  X(le)                                                                                                \
  X(gt)                                                                                                \
  X(ge)                                                                                                \
  /* --- math on float T: (a) -> T; libdevice on the GPU, libm on the host --- */                     \
  X(sqrt) X(cbrt) X(exp) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p)                             \
  X(sin) X(cos) X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(asinh) X(acosh) X(atanh)      \
  X(erf) X(erfc) X(lgamma) X(tgamma) X(floor) X(ceil) X(trunc) X(rint) X(fabs)                         \
  /* --- math on float T: (a, b) -> T --- */                                                           \
  X(atan2) X(hypot) X(copysign) X(fmod) X(fpow) X(fmin) X(fmax) X(nextafter)                           \
  X(remainder)   /* IEEE 754 remainder: x - n*y, n the integer nearest x/y (ties to even) */          \
  X(ldexp)       /* (a T, n int32) -> T */                                                             \
  X(fma)         /* (a, b, c) -> T: a * b + c, rounded once */                                         \
  X(isnan)       /* (a float) -> bool */                                                               \
  X(isinf)                                                                                             \
  X(isfinite)                                                                                          \
  X(frexp)       /* (a T) -> Tuple(T, int32) */                                                        \
  X(modf)        /* (a T) -> Tuple(T, T): (fractional, integral) as Python's math.modf */             \
  /* --- complex (T the complex type unless said) --- */                                               \
  X(complex_make) /* (re, im) of the matching float -> T */                                            \
  X(real)        /* (z complex) -> float of its width */                                               \
  X(imag)                                                                                              \
  X(conj)        /* (z) -> T */                                                                        \
  X(cexp) X(clog) X(csqrt) X(csin) X(ccos) X(ctan) X(csinh) X(ccosh) X(ctanh)                          \
  X(phase)       /* (z complex) -> float: atan2(imag, real) */                                         \
  /* --- integer intrinsics (cuda.popc ...): (a int) -> T unless said --- */                          \
  X(popc)        /* -> int32 */                                                                        \
  X(brev)                                                                                              \
  X(clz)         /* -> int32 */                                                                        \
  X(ffs)         /* -> int32: 1-based index of the lowest set bit, 0 for 0 */                         \
  /* --- arrays: A an array type; indices int64 --- */                                                 \
  X(array_load)  /* (A, i0, .., i{n-1}) -> A.dtype; attrs[0] = 1 when an index may be negative */     \
                 /* (then i < 0 means i + shape) */                                                    \
  X(array_store) /* (A, value of A.dtype, i0, .., i{n-1}) -> none; attrs[0] as array_load */         \
  X(array_shape) /* (A) -> int64: attrs[0] = the dimension */                                          \
  X(array_stride) /* (A) -> int64 bytes: attrs[0] = the dimension */                                   \
  X(array_size)  /* (A) -> int64: the element count */                                                 \
  X(array_view)  /* (A, ...) -> T (an array): basic indexing that keeps some dimensions. attrs,     */ \
                 /* one per source dimension: 0 an integer index (1 operand), 1 a full slice ':'    */ \
                 /* (no operand), 2 a slice (3 operands start, stop, step, each int64 or the      */ \
                 /* constant INT64_MIN when absent); Python's slice rules */                          \
  /* --- tuples --- */                                                                                 \
  X(tuple_get)   /* (t) -> its element attrs[0] */                                                    \
  /* --- the CUDA execution model; attrs[0] = dimension 0/1/2 for the first four --- */               \
  X(thread_idx)  /* -> int32 */                                                                        \
  X(block_idx)                                                                                         \
  X(block_dim)                                                                                         \
  X(grid_dim)                                                                                          \
  X(laneid)      /* -> int32 */                                                                        \
  X(syncthreads) /* -> none */                                                                         \
  X(syncthreads_count) /* (pred int32) -> int32: threads whose pred != 0 */                            \
  X(syncthreads_and)   /* (pred int32) -> int32 */                                                     \
  X(syncthreads_or)    /* (pred int32) -> int32 */                                                     \
  X(syncwarp)          /* (mask uint32) -> none */                                                     \
  X(threadfence_block) /* -> none */                                                                   \
  X(threadfence)                                                                                       \
  X(threadfence_system)                                                                                \
  X(shared_array) /* -> T, an array in shared memory of T.dtype; attrs: its shape (a single 0: the   */ \
                  /* launch's dynamic shared memory, shape (0,)). Each op site is its own array,     */ \
                  /* laid out statically per kernel */                                                 \
  X(local_array)  /* -> T, per-thread array; attrs: its shape */                                       \
  X(const_array)  /* -> T, in constant memory; attrs[0] = the global_value index (a const_array) */    \
  /* --- atomics on an element of A (global or shared): returns the old value (A.dtype) --- */         \
  X(atomic_add)   /* (A, value, i0, ..) */                                                             \
  X(atomic_sub)                                                                                        \
  X(atomic_and)                                                                                        \
  X(atomic_or)                                                                                         \
  X(atomic_xor)                                                                                        \
  X(atomic_max)   /* for floats: NaN-ignoring like CUDA's atomicMax on floats via integer tricks */    \
  X(atomic_min)                                                                                        \
  X(atomic_exch)                                                                                       \
  X(atomic_inc)   /* (A uint32/uint64, limit, ..): old >= limit ? 0 : old + 1 */                      \
  X(atomic_dec)   /* (A, limit, ..): (old == 0 || old > limit) ? limit : old - 1 */                   \
  X(atomic_cas)   /* (A, expected, new, i0, ..): stores new where the element equals expected */     \
  /* --- calls --- */                                                                                  \
  X(call_device)  /* (args...) -> the callee's return type; attrs[0] = index into               */ \
                  /* typed_module::functions (the callee's specialization) */

enum class op_id : std::uint16_t {
#define CUFORGE_FRONTEND_OP_ENUM(name) name,
  CUFORGE_FRONTEND_OPS(CUFORGE_FRONTEND_OP_ENUM)
#undef CUFORGE_FRONTEND_OP_ENUM
};

/// "add", "array_load", ...
const char* to_string(op_id op) noexcept;

}  // namespace cuforge::frontend

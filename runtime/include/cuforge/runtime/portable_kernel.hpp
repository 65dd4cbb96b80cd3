#pragma once

/// @file
/// Single-source kernels for the C++ API: one kernel body that nvcc compiles
/// to PTX for the cuda backend and a host compiler compiles to a
/// cpu-backend kernel. On the host, `threadIdx`, `blockIdx`, `blockDim`,
/// `gridDim`, `__syncthreads()` and `atomicAdd` read the running fiber's
/// thread_context. Dynamic shared memory is declared with
/// CUFORGE_DYNAMIC_SHARED; static `__shared__` arrays are not available on
/// the host side (the compiler frontends lay shared memory out themselves).
///
///   CUFORGE_GLOBAL void scale(float* x, float a, int n) {
///     int i = blockIdx.x * blockDim.x + threadIdx.x;
///     if (i < n) x[i] *= a;
///   }
///   // host side only: the table module_image::from_host takes
///   cuforge::cpu_kernel_symbol sym = CUFORGE_HOST_KERNEL(scale);

#if defined(__CUDACC__)

#define CUFORGE_GLOBAL extern "C" __global__
#define CUFORGE_DEVICE __device__ inline
#define CUFORGE_DYNAMIC_SHARED(T, name) extern __shared__ T name[]

#else  // host compiler: the cpu backend

#include <cuforge/runtime/cpu_kernel.hpp>
#include <cuforge/runtime/module.hpp>

#include <atomic>

#define CUFORGE_GLOBAL
#define CUFORGE_DEVICE inline
#define CUFORGE_DYNAMIC_SHARED(T, name) \
  T* name = static_cast<T*>(::cuforge::cpu::current()->dynamic_shared())

#define threadIdx (::cuforge::cpu::current()->thread_idx)
#define blockIdx (::cuforge::cpu::current()->block_idx)
#define blockDim (::cuforge::cpu::current()->block_dim)
#define gridDim (::cuforge::cpu::current()->grid_dim)
#define __syncthreads() cuforge_cpu_syncthreads(::cuforge::cpu::current())

/// Host kernels run their threads as fibers of one worker, but blocks run on
/// several workers at once, so atomics must be real atomics.
template <class T>
inline T atomicAdd(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value, std::memory_order_relaxed);
}

/// A cpu_kernel_symbol for a kernel written with this header.
#define CUFORGE_HOST_KERNEL(kernel_)                                                 \
  ::cuforge::cpu_kernel_symbol {                                                     \
    .name = #kernel_, .fn = &::cuforge::cpu::entry<&kernel_>,                        \
    .param_sizes = ::cuforge::cpu::param_sizes<&kernel_>()                           \
  }

#endif

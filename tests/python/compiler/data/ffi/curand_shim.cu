// The seed's cuRAND device-API shim: CUDA-only code (a GPU runs it; the cpu backend refuses it).
#include <curand_kernel.h>

extern "C" __device__ int _numba_curand_init(int* numba_return_value, curandState* states,
                                             unsigned long long index, unsigned long long seed,
                                             unsigned long long sequence, unsigned long long offset) {
  curand_init(seed, sequence, offset, &states[index]);
  return 0;
}

extern "C" __device__ int _numba_curand(unsigned int* numba_return_value, curandState* states,
                                        unsigned long long index) {
  *numba_return_value = curand(&states[index]);
  return 0;
}

// Device functions written in CUDA C++, called from Python kernels
// (examples/python/c_interop.py). Portable code: on a GPU NVRTC compiles it,
// on the cpu backend the host's C++ compiler does.

// Numba's ABI: the result through the first pointer, 0 for "no exception".
extern "C" __device__ int mul_f32_f32(float* return_value, float x, float y) {
  *return_value = x * y;
  return 0;
}

// A reduction over an array the kernel passes by pointer.
extern "C" __device__ int sum_reduce(float* return_value, const float* array, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += array[i];
  *return_value = (float)sum;
  return 0;
}

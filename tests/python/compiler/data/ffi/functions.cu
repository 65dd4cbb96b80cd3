// Device functions in CUDA C++ that kernels of test_declare_device.py call through
// cuda.declare_device. Portable code: they also run on the cpu backend.

extern "C" __device__ int mul_f32_f32(float* return_value, float x, float y) {
  *return_value = x * y;
  return 0;
}

// A reduction over an array passed by pointer.
extern "C" __device__ int sum_reduce(float* return_value, float* array, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += array[i];
  *return_value = (float)sum;
  return 0;
}

// Writes through its pointer: the kernel's array sees it.
extern "C" __device__ int scale_in_place(int* return_value, double* data, long long n, double by) {
  for (long long i = 0; i < n; ++i) data[i] *= by;
  *return_value = (int)n;
  return 0;
}

// The C ABI: the result returned.
extern "C" __device__ double fma_c(double a, double b, double c) { return a * b + c; }

extern "C" __device__ bool is_odd_c(unsigned long long x) { return (x & 1) != 0; }

extern "C" __device__ void bump_c(int* counter) { *counter += 1; }

// Needs include_a and include_b on the include path (CUFORGE_CUDA_INCLUDE_PATH).
#include <add.cuh>
#include <mul.cuh>

extern "C" __device__ int saxpy(float* ret, float a, float x, float y) {
  *ret = myadd(mymul(a, x), y);
  return 0;
}

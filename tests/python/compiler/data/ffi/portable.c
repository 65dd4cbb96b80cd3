/* C (not C++): a device function kernels call with the C ABI. */
__device__ int clamp_c(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

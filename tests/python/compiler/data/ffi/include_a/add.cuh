__device__ inline float myadd(float a, float b) { return a + b; }

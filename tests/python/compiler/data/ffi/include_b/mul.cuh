__device__ inline float mymul(float a, float b) { return a * b; }

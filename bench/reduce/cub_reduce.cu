// The baseline of bench/reduce: CUB's DeviceReduce::Sum over N float32 on
// the GPU, nothing of cuforge in the way. Prints one JSON object: the
// median seconds of a reduction (the result copied back included, as
// cuda.reduce returns it to the host), the bandwidth it reads at, and the
// sum. Exits 77 (skip) where there is no GPU.
//
//   bench_cub_reduce N [REPEATS]
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

__global__ void fill(float* x, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    x[i] = static_cast<float>(i % 1024) * (1.0f / 1024.0f);
}

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "bench_cub_reduce: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_cub_reduce N [REPEATS]\n");
    return 2;
  }
  const long long n = std::atoll(argv[1]);
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 20;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("{\"error\": \"no GPU\"}\n");
    return 77;
  }
  float *x = nullptr, *out = nullptr;
  if (!ok(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc") || !ok(cudaMalloc(&out, sizeof(float)), "cudaMalloc"))
    return 1;
  fill<<<1024, 256>>>(x, n);
  std::size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, temp_bytes, x, out, n);
  void* temp = nullptr;
  if (!ok(cudaMalloc(&temp, temp_bytes), "cudaMalloc (temporary storage)")) return 1;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  float host = 0;
  for (int r = 0; r < repeats + 2; ++r) {
    cudaEventRecord(start);
    cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n);
    cudaMemcpy(&host, out, sizeof(float), cudaMemcpyDeviceToHost);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (r >= 2) times.push_back(ms / 1e3f);  // (two warm-ups)
  }
  if (!ok(cudaGetLastError(), "the reduction")) return 1;
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("{\"seconds\": %.9f, \"gbps\": %.3f, \"sum\": %.6f, \"temp_bytes\": %zu}\n", median,
              n * sizeof(float) / median / 1e9, static_cast<double>(host), temp_bytes);
  cudaFree(temp);
  cudaFree(out);
  cudaFree(x);
  return 0;
}

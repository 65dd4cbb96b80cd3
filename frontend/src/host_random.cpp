// Python's `random.random()` and `random.seed(n)` for host code (the host
// jit's functions; the registry's random.* rows call these): Mersenne
// Twister MT19937, one generator per thread, with CPython's seeding
// (init_by_array over the 32-bit words of |n|) and its 53-bit doubles, so
// `random.seed(42); random.random()` in a jitted function gives CPython's
// number. Unseeded, each thread's generator starts from the OS's entropy.
#include <time.h>

#include <cstdint>
#include <random>

namespace {

struct mt19937 {
  static constexpr int n = 624, m = 397;
  std::uint32_t mt[n];
  int index = n + 1;  // unseeded

  void init_genrand(std::uint32_t s) {
    mt[0] = s;
    for (int i = 1; i < n; ++i) mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
    index = n;
  }

  void init_by_array(const std::uint32_t* key, int len) {
    init_genrand(19650218u);
    int i = 1, j = 0;
    for (int k = n > len ? n : len; k; --k) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<std::uint32_t>(j);
      ++i;
      ++j;
      if (i >= n) {
        mt[0] = mt[n - 1];
        i = 1;
      }
      if (j >= len) j = 0;
    }
    for (int k = n - 1; k; --k) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - static_cast<std::uint32_t>(i);
      ++i;
      if (i >= n) {
        mt[0] = mt[n - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000u;
    index = n;
  }

  std::uint32_t next() {
    if (index > n) seed_from_entropy();
    if (index >= n) twist();
    std::uint32_t y = mt[index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  static std::uint32_t mix(std::uint32_t a, std::uint32_t b, std::uint32_t far) {
    const std::uint32_t y = (a & 0x80000000u) | (b & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
  }

  void twist() {  // the reference's three loops: no index wraps inside them
    int k = 0;
    for (; k < n - m; ++k) mt[k] = mix(mt[k], mt[k + 1], mt[k + m]);
    for (; k < n - 1; ++k) mt[k] = mix(mt[k], mt[k + 1], mt[k + m - n]);
    mt[n - 1] = mix(mt[n - 1], mt[0], mt[m - 1]);
    index = 0;
  }

  void seed_from_entropy() {
    std::random_device rd;
    std::uint32_t key[8];
    for (auto& k : key) k = rd();
    init_by_array(key, 8);
  }
};

// The thread's generator, through a pointer in static TLS (initial-exec: one
// instruction to reach, where a thread_local object of a dlopened library
// costs a __tls_get_addr call per draw). The generators live until the
// process ends (one per thread that ever drew).
__attribute__((tls_model("initial-exec"))) thread_local mt19937* generator_of_thread = nullptr;

mt19937& generator() {
  mt19937* g = generator_of_thread;
  if (g == nullptr) g = generator_of_thread = new mt19937();
  return *g;
}

}  // namespace

/// random.random(): a double in [0, 1) with 53 random bits (CPython's genrand_res53).
extern "C" double cuforge_host_random() {
  mt19937& g = generator();  // one look-up of the thread's generator
  const std::uint32_t a = g.next() >> 5, b = g.next() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/// random.seed(n): CPython's seeding by an integer (the 32-bit words of |n|).
extern "C" void cuforge_host_seed(std::int64_t n) {
  std::uint64_t v = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  std::uint32_t key[2] = {static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32)};
  generator().init_by_array(key, key[1] != 0 ? 2 : 1);
}

/// cuda.nanosleep(ns) in host code: the calling OS thread sleeps about ns nanoseconds.
extern "C" void cuforge_host_nanosleep(std::uint32_t ns) {
  timespec t{0, static_cast<long>(ns)};
  while (ns > 0 && ::nanosleep(&t, &t) != 0) {
  }
}

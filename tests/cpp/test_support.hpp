#pragma once

// Helpers shared by the GoogleTest suites: skipping what one backend (or a
// single device) cannot run, checking cuda_error statuses, rerunning the
// executable with two cpu devices, a watchdog for tests that hang when
// broken, a gate that holds a stream still, and a kernel that takes a
// while. Every helper works on both backends.

#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/module.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cuda.h>
#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test_kernels.hpp"

/// Skips the current test unless the cuda backend is active.
#define CUFORGE_REQUIRE_CUDA()                                            \
  do {                                                                    \
    if (::cuforge::active_backend() != ::cuforge::backend_kind::cuda)     \
      GTEST_SKIP() << "needs the cuda backend";                           \
  } while (0)

/// Skips the current test unless the cpu backend is active; `why` says what
/// the cuda backend cannot do here.
#define CUFORGE_REQUIRE_CPU(why)                                          \
  do {                                                                    \
    if (::cuforge::active_backend() != ::cuforge::backend_kind::cpu)      \
      GTEST_SKIP() << "needs the cpu backend: " << (why);                 \
  } while (0)

/// Skips the current test unless there are at least `n` devices.
#define CUFORGE_REQUIRE_DEVICES(n)                                                         \
  do {                                                                                     \
    if (::cuforge::device::count() < (n))                                                  \
      GTEST_SKIP() << "needs " << (n) << " devices (MultiDevice.OnTwoCpuDevices reruns it " \
                   << "with CUFORGE_CPU_DEVICES=2)";                                       \
  } while (0)

/// Expects the statement(s) to throw cuforge::cuda_error with CUresult
/// `code` (a CUDA_ERROR_* name).
#define CUFORGE_EXPECT_CUDA_ERROR(code, ...)                                             \
  do {                                                                                     \
    try {                                                                                  \
      __VA_ARGS__;                                                                         \
      ADD_FAILURE() << #__VA_ARGS__ " did not throw (expected " #code ")";               \
    } catch (const ::cuforge::cuda_error& cuforge_e_) {                                    \
      EXPECT_EQ(cuforge_e_.status(), static_cast<int>(code))                             \
          << #__VA_ARGS__ " threw " << cuforge_e_.name() << ": " << cuforge_e_.what();     \
      EXPECT_EQ(cuforge_e_.name(), #code);                                               \
    }                                                                                      \
  } while (0)

/// Expects the statement(s) to throw `type` whose what() contains `text`.
#define CUFORGE_EXPECT_THROW_WITH(type, text, ...)                                         \
  do {                                                                                     \
    try {                                                                                  \
      __VA_ARGS__;                                                                         \
      ADD_FAILURE() << #__VA_ARGS__ " did not throw " #type;                               \
    } catch (const type& cuforge_e_) {                                                     \
      EXPECT_NE(std::string(cuforge_e_.what()).find(text), std::string::npos)              \
          << #__VA_ARGS__ " threw " #type " without '" << (text) << "': " << cuforge_e_.what(); \
    }                                                                                      \
  } while (0)

extern "C" char** environ;

namespace cuforge::testing {

/// Runs this test executable again with `filter` and `name=value` added to
/// its environment (CUFORGE_CPU_DEVICES=2, say: the cpu backend reads it
/// once, at selection); returns the child's exit status.
inline int rerun_self(const std::string& filter, const std::string& name, const std::string& value) {
  std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string filter_arg = "--gtest_filter=" + filter;
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, (name + "=").c_str(), name.size() + 1) != 0) env_strings.emplace_back(*e);
  env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv = {exe.data(), filter_arg.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// The cuda_error `f` throws, or nothing when it does not throw one.
template <class F>
std::optional<cuda_error> catch_cuda_error(F&& f) {
  try {
    f();
  } catch (const cuda_error& e) {
    return e;
  }
  return std::nullopt;
}

/// Fails the whole run, rather than letting it hang, when the scope it
/// guards has not ended within `limit`: for tests that deadlock if broken.
class watchdog {
 public:
  explicit watchdog(const char* what, std::chrono::seconds limit = std::chrono::seconds(30))
      : thread_([this, what, limit] {
          std::unique_lock lock(m_);
          if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "FAILED: %s did not finish within %lld s (deadlock?)\n", what,
                         static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::_Exit(1);
          }
        }) {}
  ~watchdog() {
    {
      std::lock_guard lock(m_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

/// Holds a stream still: queue hold() as a host callback and the stream
/// waits there until open() (or the destructor) is called. The callback
/// gives up after `limit` so that a broken test cannot hang the run.
class gate {
 public:
  explicit gate(std::chrono::seconds limit = std::chrono::seconds(10))
      : state_(std::make_shared<state>()), limit_(limit) {}
  ~gate() { open(); }
  gate(const gate&) = delete;
  gate& operator=(const gate&) = delete;

  /// The callback to queue: blocks its stream until open().
  std::function<void()> hold() const {
    return [s = state_, limit = limit_] {
      std::unique_lock lock(s->m);
      s->reached = true;
      s->cv.notify_all();
      s->cv.wait_for(lock, limit, [&] { return s->open; });
    };
  }
  void open() {
    {
      std::lock_guard lock(state_->m);
      state_->open = true;
    }
    state_->cv.notify_all();
  }
  /// Waits until the stream has reached the gate (true) or `limit` passed.
  bool wait_reached(std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) const {
    std::unique_lock lock(state_->m);
    return state_->cv.wait_for(lock, limit, [&] { return state_->reached; });
  }

 private:
  struct state {
    std::mutex m;
    std::condition_variable cv;
    bool open = false;
    bool reached = false;
  };
  std::shared_ptr<state> state_;
  std::chrono::seconds limit_;
};

/// Polls `pred` until it holds or `limit` passes; returns the last answer.
inline bool eventually(const std::function<bool()>& pred,
                       std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
  auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

/// Device memory for `n` values of T, freed (after waiting for the device)
/// with its owner.
template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t n)
      : n_(n), p_(static_cast<T*>(mem::alloc_device(std::max<std::size_t>(n, 1) * sizeof(T), -1))) {}
  ~device_buffer() {
    try {
      cuforge::synchronize();
    } catch (...) {  // a failure the test has already seen (or will not)
    }
    mem::free_device(p_, 0);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  void upload(const std::vector<T>& v, stream_view s = {}) {
    mem::copy_sync(p_, v.data(), v.size() * sizeof(T), s);
  }
  std::vector<T> download(stream_view s = {}) const {
    std::vector<T> v(n_);
    mem::copy_sync(v.data(), p_, n_ * sizeof(T), s);
    return v;
  }

 private:
  std::size_t n_;
  T* p_;
};

/// Host memory mapped into the device: the host reads what kernels wrote
/// (once they are done) without a copy that would itself be stream-ordered.
template <class T>
class mapped_buffer {
 public:
  explicit mapped_buffer(std::size_t n)
      : n_(n), host_(static_cast<T*>(mem::alloc_pinned(std::max<std::size_t>(n, 1) * sizeof(T), true))) {
    for (std::size_t i = 0; i < n_; ++i) host_[i] = T{};
    dev_ = static_cast<T*>(mem::device_pointer_of_mapped(host_));
  }
  ~mapped_buffer() {
    try {
      cuforge::synchronize();
    } catch (...) {
    }
    mem::free_pinned(host_);
  }
  mapped_buffer(const mapped_buffer&) = delete;
  mapped_buffer& operator=(const mapped_buffer&) = delete;

  T* device() const noexcept { return dev_; }
  /// Reads element i as the host sees it now.
  T operator[](std::size_t i) const noexcept { return static_cast<volatile T*>(host_)[i]; }
  void set(std::size_t i, T v) noexcept { static_cast<volatile T*>(host_)[i] = v; }
  std::size_t size() const noexcept { return n_; }
  /// True when every element equals v.
  bool all(T v) const noexcept {
    for (std::size_t i = 0; i < n_; ++i)
      if ((*this)[i] != v) return false;
    return true;
  }

 private:
  std::size_t n_;
  T* host_;
  T* dev_ = nullptr;
};

/// The test kernels (tests/kernels/test_kernels.inc), loaded on the current
/// device. Load per test: close() invalidates modules.
inline module test_module() { return module::load(test_kernels_image()); }

/// Launch helpers for the test kernels, one thread per element.
inline launch_config one_per_element(std::size_t n, stream_view s = {}, unsigned block = 128) {
  auto blocks = static_cast<unsigned>((n + block - 1) / block);
  return launch_config{.grid = dim3(std::max(blocks, 1u)), .block = dim3(block), .stream = s};
}

/// The `repeat` for slow_increment over 1024 elements that makes it take
/// about `target_ms` on this machine: calibrated once per process, so the
/// tests that need a kernel to still be running do not depend on the speed
/// of the device.
inline int slow_repeat(double target_ms = 80.0) {
  static const double per_repeat_ms = [] {
    auto mod = test_module();
    auto slow = mod.get_kernel("slow_increment");
    device_buffer<int> x(1024);
    int n = 1024;
    // Once untimed: the first launch may include loading the kernel.
    launch(slow, one_per_element(1024), x.get(), n, 1);
    stream_view{}.synchronize();
    int repeat = 1 << 10;
    for (;;) {
      auto t0 = std::chrono::steady_clock::now();
      launch(slow, one_per_element(1024), x.get(), n, repeat);
      stream_view{}.synchronize();
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (ms >= 10.0 || repeat >= (1 << 28)) return ms / repeat;
      repeat *= 4;
    }
  }();
  double r = target_ms / std::max(per_repeat_ms, 1e-9);
  return static_cast<int>(std::clamp(r, 1.0, static_cast<double>(1 << 30)));
}

}  // namespace cuforge::testing

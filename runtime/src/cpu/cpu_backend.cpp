// The cpu backend: the whole runtime contract on the host.
#include "backends.hpp"
#include "cpu/exec.hpp"
#include "cpu/host_memory.hpp"
#include "cpu/streams.hpp"
#include "sm90_limits.hpp"
#include "status.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace cuforge::detail {
namespace {

using cpu::event_mark;
using cpu::event_state;
using cpu::stream_state;

struct cpu_module {
  std::vector<cpu_kernel_symbol> kernels;
};

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "host CPU";
}

class cpu_backend final : public backend {
 public:
  cpu_backend() {
    const char* env = std::getenv("CUFORGE_CPU_DEVICES");
    int n = env && *env ? std::atoi(env) : 1;
    if (n < 1 || n > 64) throw logic_error("CUFORGE_CPU_DEVICES must be between 1 and 64");
    devices_.resize(static_cast<std::size_t>(n));
    name_ = "cuforge cpu backend (" + cpu_model_name() + ", " + std::to_string(cpu_exec::worker_count()) +
            " threads)";
  }

  backend_kind kind() const noexcept override { return backend_kind::cpu; }
  const backend_traits& traits() const noexcept override {
    static constexpr backend_traits t{module_image::format::host, true};
    return t;
  }
  int driver_version() const noexcept override { return 0; }
  bool close_frees_memory() const noexcept override { return false; }

  // --- devices -----------------------------------------------------------

  int device_count() override { return static_cast<int>(devices_.size()); }

  device_properties properties(int dev) override {
    device_properties p;
    p.name = name_;
    // The cpu device keeps the rules of the GPUs the compiler targets first
    // (sm_90): warp size, block limits and this capability, so code that
    // checks them behaves as it would there.
    p.cc = {detail::sm90::compute_capability_major, detail::sm90::compute_capability_minor};
    p.total_memory = memory_.total_physical();
    char uuid[64];
    std::snprintf(uuid, sizeof uuid, "GPU-cf000000-0000-0000-0000-%012d", dev);
    p.uuid = uuid;
    char bus[16];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", dev);
    p.pci_bus_id = bus;
    return p;
  }

  int attribute(int dev, int attr) override {
    if (auto v = detail::sm90::limit(static_cast<CUdevice_attribute>(attr))) return *v;
    switch (attr) {
      case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return static_cast<int>(cpu_exec::worker_count());
      case CU_DEVICE_ATTRIBUTE_INTEGRATED: return 1;  // its memory is the host's
      case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
      case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
      case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
      case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
      case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: return 1;
      case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
      case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
      case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
      case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
      case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 1;
      case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return dev;
      case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1000000;
      case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 1000000;
      case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 64;
      default: return 0;  // features the cpu device does not have
    }
  }

  memory_info mem_info(int) override {
    // Freed mappings kept for reuse (host_memory) are free to the program.
    memory_info info = cpu::read_meminfo();
    info.free = std::min(info.total, info.free + memory_.idle_bytes());
    return info;
  }
  void activate(int) override {}

  void device_synchronize(int dev) override {
    for (auto& s : streams_of(dev)) s->synchronize();
  }

  std::optional<bool> device_idle(int dev) override {
    for (auto& s : streams_of(dev))
      if (!s->query()) return false;
    return true;
  }

  void close_all() override {
    // Contexts go away: every stream, event and module made so far becomes
    // invalid (their owners skip releasing them, see close()). Memory stays
    // with its owners. Queued work is finished first, as a reset would wait.
    for (int d = 0; d < device_count(); ++d) {
      try {
        device_synchronize(d);
      } catch (const std::exception& e) {
        std::cerr << "cuforge: an error was pending when the context closed: " << e.what() << "\n";
      }
    }
    std::lock_guard lock(m_);
    for (auto& [h, s] : user_streams_) s->retire();
    user_streams_.clear();
    events_.clear();
    modules_.clear();
  }

  // --- memory ------------------------------------------------------------

  void* alloc(memory_kind kind, std::size_t bytes, int dev) override {
    return memory_.allocate(kind, bytes, dev, kind == memory_kind::mapped);
  }

  void free(memory_kind kind, void* p, int) noexcept override {
    if (!memory_.release(p))
      std::cerr << "cuforge: cpu backend asked to free " << p << " (" << to_string(kind)
                << "), which it did not allocate\n";
  }

  bool pools_supported(int) override { return true; }

  void* alloc_async(std::size_t bytes, handle stream, int dev) override {
    (void)stream;  // allocating now is always early enough for the stream's order
    return memory_.allocate(memory_kind::device, bytes, dev, false);
  }

  void free_async(void* p, handle stream, int dev) override {
    enqueue(stream, dev, [this, p] { memory_.release(p); });
  }

  void pool_set_release_threshold(int, std::uint64_t) override {}
  void pool_trim(int, std::size_t keep) override { memory_.trim(keep); }

  std::string ipc_export(void* base, std::size_t, int dev) override {
    device_synchronize(dev);  // the pages move into a shared file: nothing may write them meanwhile
    return memory_.share(reinterpret_cast<std::uintptr_t>(base));
  }
  void* ipc_open(const std::string& handle, int dev) override { return memory_.open_shared(handle, dev); }
  void ipc_close(void* p, int dev) override {
    device_synchronize(dev);
    memory_.close_shared(p);
  }

  void* mapped_device_pointer(void* host) override {
    auto r = memory_.find(host);
    if (!r || !r->second.mapped)
      raise(CUDA_ERROR_INVALID_VALUE, "the pointer is not mapped host memory",
            "cuMemHostGetDevicePointer (cpu backend)");
    return host;  // one address space
  }

  void host_register(void* p, std::size_t bytes, bool mapped) override {
    memory_.add_registration(p, bytes, mapped);
  }

  void host_unregister(void* p) noexcept override {
    if (!memory_.remove_registration(p))
      std::cerr << "cuforge: unregistering " << p << ", which is not registered host memory\n";
  }

  void copy(void* dst, const void* src, std::size_t bytes, handle stream, int dev) override {
    // As with the driver: a copy that touches pageable host memory is done
    // with it on return; between runtime-known memory it is asynchronous.
    bool pageable = !memory_.find(dst) || !memory_.find(src);
    auto op = [dst, src, bytes] { std::memcpy(dst, src, bytes); };
    if (pageable)
      run_now(stream, dev, op);
    else
      enqueue(stream, dev, op);
  }

  void fill(void* dst, std::uint32_t value, unsigned elem, std::size_t count, handle stream,
            int dev) override {
    enqueue(stream, dev, [dst, value, elem, count] {
      switch (elem) {
        case 1: std::memset(dst, static_cast<int>(value & 0xff), count); break;
        case 2: {
          auto* p = static_cast<std::uint16_t*>(dst);
          for (std::size_t i = 0; i < count; ++i) p[i] = static_cast<std::uint16_t>(value);
          break;
        }
        default: {
          auto* p = static_cast<std::uint32_t*>(dst);
          for (std::size_t i = 0; i < count; ++i) p[i] = value;
        }
      }
    });
  }

  memory_kind kind_of(const void* p) override {
    auto r = memory_.find(p);
    return r ? r->second.kind : memory_kind::pageable;
  }

  std::optional<address_info> address_range(const void* p) override {
    auto r = memory_.find(p);
    if (!r) return std::nullopt;
    bool device_memory = r->second.kind == memory_kind::device || r->second.kind == memory_kind::managed;
    return address_info{r->first, r->second.bytes, device_memory ? r->second.device : -1, r->second.kind};
  }

  // --- streams -------------------------------------------------------------

  handle stream_create(int dev, int priority, bool non_blocking) override {
    auto s = std::make_shared<stream_state>(dev, priority, non_blocking, stream_state::role::user);
    auto h = reinterpret_cast<handle>(s.get());
    std::lock_guard lock(m_);
    user_streams_[h] = s;
    devices_[dev].streams.push_back(s);
    return h;
  }

  void stream_destroy(handle h, int) noexcept override {
    std::shared_ptr<stream_state> s;
    {
      std::lock_guard lock(m_);
      auto it = user_streams_.find(h);
      if (it == user_streams_.end()) return;
      s = std::move(it->second);
      user_streams_.erase(it);
    }
    s->retire();
  }

  void stream_synchronize(handle h, int dev) override { get(h, dev)->synchronize(); }
  bool stream_query(handle h, int dev) override { return get(h, dev)->query(); }

  void stream_wait_event(handle h, handle e, int dev) override {
    auto mark = last_mark(e);
    if (!mark) return;  // never recorded: nothing to wait for
    enqueue(h, dev, [mark] { mark->wait(); });
  }

  void stream_add_callback(handle h, std::function<void()> fn, int dev) override {
    enqueue(h, dev, [fn = std::move(fn)] {
      try {
        fn();
      } catch (const std::exception& e) {
        std::cerr << "cuforge: a stream callback raised: " << e.what() << "\n";
      } catch (...) {
        std::cerr << "cuforge: a stream callback raised an unknown exception\n";
      }
    });
  }

  int stream_priority(handle h, int dev) override { return get(h, dev)->priority(); }
  bool stream_non_blocking(handle h, int dev) override { return get(h, dev)->non_blocking(); }
  std::pair<int, int> priority_range(int) override { return {0, -5}; }

  int stream_device(handle h) override {
    if (h == stream_view::legacy_handle || h == stream_view::per_thread_handle || h == 0)
      return resolve_device(-1);
    std::lock_guard lock(m_);
    auto it = user_streams_.find(h);
    if (it == user_streams_.end())
      raise(CUDA_ERROR_INVALID_HANDLE,
            "stream handle " + std::to_string(h) + " is not a live stream of the cpu backend",
            "stream lookup (cpu backend)");
    return it->second->device();
  }

  // --- events --------------------------------------------------------------

  handle event_create(int dev, bool timing, bool) override {
    auto e = std::make_unique<event_state>();
    e->device = dev;
    e->timing = timing;
    return keep(events_, std::move(e));
  }

  void event_destroy(handle h, int) noexcept override { drop(events_, h); }

  void event_record(handle e, handle stream, int dev) override {
    auto* ev = reinterpret_cast<event_state*>(e);
    auto mark = std::make_shared<event_mark>();
    {
      std::lock_guard lock(ev->m);
      ev->last = mark;
    }
    enqueue(stream, dev, [mark] { mark->complete(); });
  }

  bool event_query(handle e, int) override {
    auto mark = last_mark(e);
    if (!mark) return true;
    std::lock_guard lock(mark->m);
    return mark->done;
  }

  void event_synchronize(handle e, int) override {
    if (auto mark = last_mark(e)) mark->wait();
  }

  float event_elapsed_ms(handle start, handle end, int) override {
    auto a = last_mark(start), b = last_mark(end);
    if (!a || !b)
      raise(CUDA_ERROR_INVALID_HANDLE, "both events must have been recorded", "cuEventElapsedTime (cpu backend)");
    std::chrono::steady_clock::time_point ta, tb;
    {
      std::scoped_lock lock(a->m, b->m);
      if (!a->done || !b->done)
        raise(CUDA_ERROR_NOT_READY, "an event has not completed yet", "cuEventElapsedTime (cpu backend)");
      ta = a->when;
      tb = b->when;
    }
    return std::chrono::duration<float, std::milli>(tb - ta).count();
  }

  // --- modules and launch --------------------------------------------------

  handle module_load(const module_image& image, const module::options&, int, std::string& info_log) override {
    if (!image.has(module_image::format::host))
      raise(CUDA_ERROR_NOT_SUPPORTED,
            "this module image has no host code: PTX, cubins and fatbins run only on the cuda backend",
            "cuModuleLoadData (cpu backend)");
    auto m = std::make_unique<cpu_module>();
    m->kernels = image.host_kernels();
    info_log.clear();
    return keep(modules_, std::move(m));
  }

  void module_unload(handle h, int) noexcept override { drop(modules_, h); }

  handle module_get_kernel(handle h, std::string_view name, int) override {
    auto* m = reinterpret_cast<cpu_module*>(h);
    for (auto& k : m->kernels)
      if (k.name == name) return reinterpret_cast<handle>(&k);
    std::string known;
    for (auto& k : m->kernels) known += (known.empty() ? "" : ", ") + k.name;
    raise(CUDA_ERROR_NOT_FOUND, "no kernel named '" + std::string(name) + "' in the module (it has: " + known + ")",
          "cuModuleGetFunction (cpu backend)");
  }

  kernel_attributes kernel_attrs(handle k, int) override {
    auto* sym = reinterpret_cast<cpu_kernel_symbol*>(k);
    kernel_attributes a;
    a.max_threads_per_block = sym->max_threads_per_block;
    a.static_shared_bytes = sym->static_shared_bytes;
    a.max_dynamic_shared_bytes = static_cast<int>(detail::sm90::shared_per_block_optin - sym->static_shared_bytes);
    return a;
  }

  void kernel_set_max_dynamic_shared(handle, int, int) override {}

  unsigned long long max_cooperative_blocks(handle, dim3 block, std::size_t, int) override {
    return cpu_exec::max_cooperative_threads() / block.count();
  }

  void launch(handle k, const launch_config& cfg, void** params, int dev) override {
    auto* sym = reinterpret_cast<cpu_kernel_symbol*>(k);
    if (cfg.block.count() > static_cast<unsigned long long>(sym->max_threads_per_block))
      raise(CUDA_ERROR_INVALID_VALUE,
            "kernel '" + sym->name + "' allows at most " + std::to_string(sym->max_threads_per_block) +
                " threads per block",
            "cuLaunchKernel (cpu backend)");
    auto job = std::make_shared<launch_job>();
    job->launch.fn = sym->fn;
    job->launch.block_fn = sym->block_fn;
    job->launch.block_runs = sym->block_runs;
    job->launch.grid = cfg.grid;
    job->launch.block = cfg.block;
    job->launch.static_shared_bytes = sym->static_shared_bytes;
    job->launch.dynamic_shared_bytes = cfg.shared_bytes;
    job->launch.uses_barrier = sym->uses_barrier;
    job->launch.cooperative = cfg.cooperative;
    bool copied = sym->param_sizes.has_value();
    if (copied) {
      job->capture(*sym->param_sizes, params);
      if (!sym->arrays.empty()) {
        job->launch.arrays = &sym->arrays;
        job->launch.param_count = sym->param_sizes->size();
      }
    } else {
      job->launch.params = params;
    }
    // Without the parameter sizes the values cannot be copied, so they must
    // not be needed after we return.
    if (copied)
      enqueue(cfg.stream.handle(), dev, [job] { cpu_exec::run(job->launch); });
    else
      run_now(cfg.stream.handle(), dev, [job] { cpu_exec::run(job->launch); });
  }

  void profiler_start() override {}
  void profiler_stop() override {}

 private:
  // Objects the backend owns, by the handle it gave out for them.
  template <class T>
  handle keep(std::unordered_map<handle, std::unique_ptr<T>>& table, std::unique_ptr<T> obj) {
    auto h = reinterpret_cast<handle>(obj.get());
    std::lock_guard lock(m_);
    table[h] = std::move(obj);
    return h;
  }
  template <class T>
  void drop(std::unordered_map<handle, std::unique_ptr<T>>& table, handle h) noexcept {
    std::lock_guard lock(m_);
    table.erase(h);
  }

  struct launch_job {
    cpu_exec::grid_launch launch;
    std::vector<std::max_align_t> storage;
    std::vector<void*> pointers;
    void capture(const std::vector<std::size_t>& sizes, void** params) {
      std::size_t slots = 0;
      for (auto s : sizes) slots += (s + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
      storage.resize(slots);
      pointers.resize(sizes.size());
      std::size_t at = 0;
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        pointers[i] = &storage[at];
        std::memcpy(pointers[i], params[i], sizes[i]);
        at += (sizes[i] + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
      }
      launch.params = pointers.data();
    }
  };

  struct device_slot {
    std::shared_ptr<stream_state> legacy;
    std::vector<std::weak_ptr<stream_state>> streams;  // every stream but legacy
  };

  // The per-thread default streams of this thread, one per device, retired
  // when the thread ends.
  struct per_thread_streams {
    std::vector<std::shared_ptr<stream_state>> by_device;
    ~per_thread_streams() {
      for (auto& s : by_device)
        if (s) s->retire();
    }
  };

  std::shared_ptr<stream_state> get(handle h, int dev) {
    if (h == stream_view::legacy_handle || h == 0) {
      std::lock_guard lock(m_);
      auto& slot = devices_[dev];
      if (!slot.legacy)
        slot.legacy = std::make_shared<stream_state>(dev, 0, false, stream_state::role::legacy);
      return slot.legacy;
    }
    if (h == stream_view::per_thread_handle) {
      thread_local per_thread_streams mine;
      if (mine.by_device.size() <= static_cast<std::size_t>(dev)) mine.by_device.resize(dev + 1);
      auto& s = mine.by_device[dev];
      if (!s) {
        s = std::make_shared<stream_state>(dev, 0, false, stream_state::role::per_thread);
        std::lock_guard lock(m_);
        devices_[dev].streams.push_back(s);
      }
      return s;
    }
    // Looked up, not cast: a handle whose stream was destroyed (or closed
    // with its context) must fail as the driver's would, not be touched.
    std::lock_guard lock(m_);
    auto it = user_streams_.find(h);
    if (it == user_streams_.end())
      raise(CUDA_ERROR_INVALID_HANDLE,
            "stream handle " + std::to_string(h) + " is not a live stream of the cpu backend (destroyed, or "
            "made before close())",
            "stream lookup (cpu backend)");
    return it->second;
  }

  std::vector<std::shared_ptr<stream_state>> streams_of(int dev) {
    std::vector<std::shared_ptr<stream_state>> out;
    std::lock_guard lock(m_);
    auto& slot = devices_[dev];
    if (slot.legacy) out.push_back(slot.legacy);
    auto& v = slot.streams;
    for (auto it = v.begin(); it != v.end();) {
      if (auto s = it->lock()) {
        out.push_back(std::move(s));
        ++it;
      } else {
        it = v.erase(it);
      }
    }
    return out;
  }

  using waits_t = std::vector<std::pair<std::shared_ptr<stream_state>, std::uint64_t>>;

  // The work an op on `s` must wait for first, by the legacy default
  // stream's rules: on the legacy stream, all queued work of the device's
  // blocking streams; on a blocking stream, the legacy stream's.
  waits_t implicit_waits(const std::shared_ptr<stream_state>& s, int dev) {
    waits_t waits;
    if (s->kind() == stream_state::role::legacy) {
      for (auto& other : streams_of(dev)) {
        if (other == s || !other->blocking()) continue;
        auto t = other->issued();
        if (!other->done(t)) waits.emplace_back(other, t);
      }
    } else if (s->blocking()) {
      std::shared_ptr<stream_state> legacy;
      {
        std::lock_guard lock(m_);
        legacy = devices_[dev].legacy;
      }
      if (legacy) {
        auto t = legacy->issued();
        if (!legacy->done(t)) waits.emplace_back(legacy, t);
      }
    }
    return waits;
  }

  // Queues `op` on a stream, after its implicit waits. Returns the op's
  // ticket on that stream.
  std::uint64_t enqueue(handle h, int dev, std::function<void()> op) {
    auto s = get(h, dev);
    auto waits = implicit_waits(s, dev);
    if (!waits.empty())
      s->push([waits = std::move(waits)] {
        for (auto& [other, t] : waits) other->wait_for(t);
      });
    return s->push(std::move(op));
  }

  // Runs `op` in stream order and returns once it has run: on the calling
  // thread when nothing is ahead of it (no hop to the worker and back), else
  // queued and waited for.
  void run_now(handle h, int dev, std::function<void()> op) {
    auto s = get(h, dev);
    if (implicit_waits(s, dev).empty() && s->try_run_inline(op)) return;
    s->wait_for(enqueue(h, dev, std::move(op)));
  }

  std::shared_ptr<event_mark> last_mark(handle e) {
    auto* ev = reinterpret_cast<event_state*>(e);
    std::lock_guard lock(ev->m);
    return ev->last;
  }

  std::string name_;
  cpu::host_memory memory_;
  std::mutex m_;
  std::vector<device_slot> devices_;
  std::unordered_map<handle, std::shared_ptr<stream_state>> user_streams_;
  std::unordered_map<handle, std::unique_ptr<event_state>> events_;
  std::unordered_map<handle, std::unique_ptr<cpu_module>> modules_;
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend() { return std::make_unique<cpu_backend>(); }

}  // namespace cuforge::detail

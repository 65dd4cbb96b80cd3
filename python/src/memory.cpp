// Memory for Python: host arrays over pinned, mapped and managed memory,
// registration of existing arrays, deferred deallocation, statistics.
#include "common.hpp"

#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/callback_memory_resource.hpp>
#include <cuforge/memory/device_memory_resource.hpp>
#include <cuforge/memory/pinned_memory_resource.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/memory/statistics_resource_adaptor.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

namespace cuforge::python {

struct py_registration {
  std::shared_ptr<memory::allocation> a;
};

namespace {
constexpr const char* capsule_name = "cuforge.allocation";
}  // namespace

py::capsule owner_capsule(std::shared_ptr<memory::allocation> a) {
  auto* held = new std::shared_ptr<memory::allocation>(std::move(a));
  return py::capsule(held, capsule_name, [](PyObject* cap) {
    auto* last = static_cast<std::shared_ptr<memory::allocation>*>(PyCapsule_GetPointer(cap, capsule_name));
    // A free may flush deferred ones and wait for the device, where a stream
    // callback may be waiting for the GIL (see release_without_gil).
    py::gil_scoped_release nogil;
    delete last;
  });
}

namespace {

// The allocation behind a NumPy array made by host_array(), if any.
std::shared_ptr<memory::allocation> allocation_behind(py::handle arr) {
  py::handle cur = arr;
  for (int depth = 0; depth < 64 && !cur.is_none(); ++depth) {
    if (PyCapsule_CheckExact(cur.ptr()) && std::strcmp(PyCapsule_GetName(cur.ptr()), capsule_name) == 0)
      return *static_cast<std::shared_ptr<memory::allocation>*>(PyCapsule_GetPointer(cur.ptr(), capsule_name));
    if (!py::hasattr(cur, "base")) break;
    cur = cur.attr("base");
  }
  return nullptr;
}

// Whether Python may still be called: not after the interpreter began to
// finalise (a free from a static destructor or a late thread then leaks, as
// the process is ending anyway).
bool python_callable() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

// A Python callable owned from C++, called and released with the GIL
// whichever thread does it.
struct py_callback {
  std::shared_ptr<py::object> fn;
  explicit py_callback(py::object o)
      : fn(new py::object(std::move(o)), [](py::object* p) {
          if (!python_callable()) return;  // leaked: nothing left to release it to
          py::gil_scoped_acquire gil;
          delete p;
        }) {}
};

memory_kind host_kind(const std::string& kind) {
  if (kind == "device") return memory_kind::device;
  if (kind == "pinned") return memory_kind::pinned;
  if (kind == "mapped") return memory_kind::mapped;
  throw py::value_error("memory kind must be 'device', 'pinned' or 'mapped', not '" + kind + "'");
}

// An external memory manager's functions as a resource: allocate(bytes,
// stream) returns the address, free(address, bytes, stream) takes it back.
std::shared_ptr<memory::memory_resource> callback_resource(py::object allocate, py::object free, memory_kind kind,
                                                           int device, std::string name) {
  py_callback alloc_cb(std::move(allocate)), free_cb(std::move(free));
  return std::make_shared<memory::callback_memory_resource>(
      [alloc_cb](std::size_t bytes, stream_view s) -> void* {
        if (!python_callable()) throw cuforge::logic_error("the Python memory manager is gone (interpreter exiting)");
        py::gil_scoped_acquire gil;
        py::object r = (*alloc_cb.fn)(bytes, s.handle());
        return reinterpret_cast<void*>(r.cast<std::uintptr_t>());
      },
      [free_cb](void* p, std::size_t bytes, stream_view s) {
        if (!python_callable()) return;
        py::gil_scoped_acquire gil;
        try {
          (*free_cb.fn)(reinterpret_cast<std::uintptr_t>(p), bytes, s.handle());
        } catch (py::error_already_set& e) {
          e.discard_as_unraisable("freeing memory through the external memory manager");
        }
      },
      kind, device, std::move(name));
}

memory::statistics_resource_adaptor* stats_adaptor(int dev) {
  return dynamic_cast<memory::statistics_resource_adaptor*>(memory::current_resource(dev).get());
}

}  // namespace

void bind_memory(py::module_& m) {
  // A free can happen wherever an owner is dropped, often with the GIL held
  // (a NumPy array over our memory, a consumer releasing an export): the
  // device wait before a batch of frees must not hold it, or a Python stream
  // callback waiting for the GIL would never let the device finish.
  memory::deallocation_queue::instance().set_wait_hook([](const std::function<void()>& wait) {
    if (Py_IsInitialized() && PyGILState_Check()) {
      py::gil_scoped_release nogil;
      wait();
    } else {
      wait();
    }
  });

  m.def("host_array", [](const std::string& kind, py::handle shape_like, py::handle dtype_like,
                         py::handle strides_like, const std::string& order) {
    dtype t = to_dtype(dtype_like);
    extents shape = to_extents(shape_like, "shape");
    if (order != "C" && order != "F") throw py::value_error("order must be 'C' or 'F', not '" + order + "'");
    extents strides = strides_like.is_none() ? contiguous_strides(shape, t.itemsize, order[0])
                                             : to_extents(strides_like, "strides");
    if (strides.size() != shape.size()) throw py::value_error("strides do not match the shape's dimensions");
    std::int64_t n = element_count(shape);
    std::int64_t span = n ? t.itemsize : 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (strides[i] < 0) throw py::value_error("strides must not be negative");
      // As for device arrays: the device moves whole, aligned items.
      if (strides[i] % static_cast<std::int64_t>(t.itemsize) != 0)
        throw py::value_error("strides must be multiples of the itemsize (" + std::to_string(t.itemsize) + ")");
      std::int64_t reach = 0;
      // Checked: a wrapped span would give a small buffer under a big array.
      if (n && (__builtin_mul_overflow(shape[i] - 1, strides[i], &reach) ||
                __builtin_add_overflow(span, reach, &span)))
        throw py::value_error("array is too big: its strides and shape span more than 64 bits of bytes");
    }
    std::shared_ptr<memory::memory_resource> mr;
    if (kind == "pinned")
      mr = memory::pinned_resource();
    else if (kind == "mapped")
      mr = memory::mapped_resource();
    else if (kind == "managed")
      mr = memory::managed_resource();
    else
      throw py::value_error("unknown host memory kind '" + kind + "'");
    std::shared_ptr<memory::allocation> a;
    {
      py::gil_scoped_release nogil;  // allocating may flush deferred frees and wait
      a = memory::allocation::make(mr, static_cast<std::size_t>(span));
    }
    void* host = a->host_data();
    static char empty_buffer[16];
    if (!host) host = empty_buffer;  // NumPy wants a pointer even for size 0
    return py::array(to_numpy_dtype(t), shape, strides, host, owner_capsule(std::move(a)));
  });

  m.def("device_view_of_host", [](py::array arr) -> py::object {
    // The device array over the memory of a host array made by host_array()
    // (mapped or managed: memory the device can address), or None.
    auto a = allocation_behind(arr);
    if (!a || (a->kind() != memory_kind::mapped && a->kind() != memory_kind::managed &&
               !(a->kind() == memory_kind::registered && a->data() != a->host_data())))
      return py::none();
    auto offset = static_cast<const char*>(arr.data()) - static_cast<const char*>(a->host_data());
    host_view hv = host_view_of(arr);
    return py::cast(py_devarray{device_ndarray(std::move(a), offset, hv.shape, hv.strides, hv.type)});
  });

  m.def("host_memory_kind", [](py::array arr) -> py::object {
    auto a = allocation_behind(arr);
    if (!a) return py::none();
    return py::str(to_string(a->kind()));
  });

  py::class_<py_registration>(m, "_Registration", "Keeps host memory page-locked until released.")
      .def("release", [](py_registration& r) { r.a.reset(); });

  m.def("register_host", [](py::array arr, bool mapped) -> py::tuple {
    // Page-locks an array's memory in place until the registration is
    // released (cuda.pinned / cuda.mapped scopes); with `mapped`, also gives
    // a device array over it, valid while registered.
    if (arr.nbytes() == 0) return py::make_tuple(py::none(), py::none());
    host_view hv = host_view_of(arr);
    std::int64_t lo = 0, hi = hv.type.itemsize;
    for (std::size_t i = 0; i < hv.shape.size(); ++i) {
      std::int64_t r = (hv.shape[i] - 1) * hv.strides[i];
      (r < 0 ? lo : hi) += r;
    }
    char* start = static_cast<char*>(hv.data) + lo;
    auto reg = memory::allocation::register_host(start, static_cast<std::size_t>(hi - lo), mapped);
    py::object dev = py::none();
    if (mapped) {
      // The view does not own the registration: the scope's end releases it.
      auto view = memory::allocation::adopt(reg->data(), reg->size(), memory_kind::mapped, reg->device(), nullptr,
                                            reg->host_data());
      dev = py::cast(py_devarray{device_ndarray(std::move(view), -lo, hv.shape, hv.strides, hv.type)});
    }
    return py::make_tuple(py_registration{std::move(reg)}, dev);
  });

  m.def("defer_cleanup_enter", [] { memory::deallocation_queue::instance().begin_defer(); });
  m.def("defer_cleanup_exit", [] {
    py::gil_scoped_release nogil;
    memory::deallocation_queue::instance().end_defer();
  });
  m.def("flush_deallocations", [] {
    py::gil_scoped_release nogil;
    memory::deallocation_queue::instance().flush();
  });
  m.def("pending_deallocations", [] {
    auto& q = memory::deallocation_queue::instance();
    return py::make_tuple(q.pending_count(), q.pending_bytes());
  });

  m.def("set_memory_callbacks", [](const std::string& kind, int device, py::object allocate, py::object free,
                                   const std::string& name) {
    // Plugs an external memory manager in for `kind` (device memory of
    // `device`, or pinned / mapped host memory); allocate=None restores
    // cuforge's own.
    memory_kind k = host_kind(kind);
    std::shared_ptr<memory::memory_resource> mr;
    if (!allocate.is_none()) mr = callback_resource(std::move(allocate), std::move(free), k, device, name);
    if (k == memory_kind::device)
      memory::set_current_resource(std::move(mr), device);
    else if (k == memory_kind::pinned)
      memory::set_pinned_resource(std::move(mr));
    else
      memory::set_mapped_resource(std::move(mr));
  }, py::arg("kind"), py::arg("device"), py::arg("allocate"), py::arg("free"), py::arg("name") = "plugin");
  m.def("live_allocations", [](const std::string& kind) { return memory::allocation::live(host_kind(kind)); },
        "How many allocations of `kind` cuforge made that are still alive.");
  m.def("own_allocation", [](const std::string& kind, std::size_t bytes, int device) -> py::tuple {
    // Memory from a resource of ours: "device" the device's current one
    // (the default memalloc when no plugin is set), "raw" plain device
    // memory (driver.cuMemAlloc, what plugins build on), "pinned"/"mapped"
    // cuforge's own host memory (HostOnlyCUDAMemoryManager's host
    // allocations). Returns (address, host address or 0, owner); the memory
    // goes back when the owner is dropped.
    memory_kind k = host_kind(kind == "raw" ? "device" : kind);
    std::shared_ptr<memory::memory_resource> mr;
    if (kind == "raw") {
      static std::mutex m;
      static auto* plain = new std::map<int, std::shared_ptr<memory::memory_resource>>;
      int dev = device < 0 ? cuforge::device::current().ordinal() : device;
      std::lock_guard lock(m);
      auto& slot = (*plain)[dev];
      if (!slot) slot = std::make_shared<memory::device_memory_resource>(dev);
      mr = slot;
    } else if (k == memory_kind::device) {
      mr = memory::current_resource(device);  // a set_memory_resource or statistics adaptor included
    } else {
      static auto* pinned = new std::shared_ptr<memory::memory_resource>(
          std::make_shared<memory::pinned_memory_resource>(false));
      static auto* mapped = new std::shared_ptr<memory::memory_resource>(
          std::make_shared<memory::pinned_memory_resource>(true));
      mr = k == memory_kind::pinned ? *pinned : *mapped;
    }
    std::shared_ptr<memory::allocation> a;
    {
      py::gil_scoped_release nogil;
      a = memory::allocation::make(mr, bytes);
    }
    auto data = reinterpret_cast<std::uintptr_t>(a->data());
    auto host = reinterpret_cast<std::uintptr_t>(a->host_data());
    return py::make_tuple(data, host, owner_capsule(std::move(a)));
  }, py::arg("kind"), py::arg("bytes"), py::arg("device") = -1);

  // Raw addresses, for numba's MemoryPointer family (cudadrv/driver.py's
  // objects that plugins construct and return).
  m.def("mapped_device_pointer", [](std::uintptr_t host) {
    return reinterpret_cast<std::uintptr_t>(mem::device_pointer_of_mapped(reinterpret_cast<void*>(host)));
  });
  m.def("register_range", [](std::uintptr_t host, std::size_t bytes, bool mapped) -> py::tuple {
    // Page-locks [host, host + bytes) until the registration is released;
    // returns (registration, device address: mapped memory's, else 0).
    auto reg = memory::allocation::register_host(reinterpret_cast<void*>(host), bytes, mapped);
    auto dev = mapped ? reinterpret_cast<std::uintptr_t>(reg->data()) : 0;
    return py::make_tuple(py_registration{std::move(reg)}, dev);
  });
  m.def("memset_address", [](std::uintptr_t dst, unsigned value, std::size_t count, py::handle stream) {
    stream_view s = to_stream(stream);
    py::gil_scoped_release nogil;
    mem::fill(reinterpret_cast<void*>(dst), value & 0xffu, 1, count, s);
    if (stream.is_none() || (py::isinstance<py::int_>(stream) && stream.cast<long long>() == 0)) s.synchronize();
  }, py::arg("dst"), py::arg("value"), py::arg("count"), py::arg("stream") = py::none());
  m.def("copy_address", [](std::uintptr_t dst, std::uintptr_t src, std::size_t bytes) {
    py::gil_scoped_release nogil;
    mem::copy_sync(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes, stream_view{});
  });

  // Sharing device memory with other processes (cuda IPC; a shared file on
  // the cpu backend).
  m.def("ipc_export", [](std::uintptr_t address) -> py::tuple {
    mem::ipc_export_info info;
    {
      py::gil_scoped_release nogil;  // the cpu backend waits for the device first
      info = mem::ipc_export(reinterpret_cast<const void*>(address));
    }
    return py::make_tuple(py::bytes(info.handle), info.bytes, info.offset, info.device);
  });
  m.def("ipc_open_array", [](py::bytes handle, std::size_t bytes, std::int64_t offset, py::handle shape_like,
                             py::handle strides_like, py::handle dtype_like, int device) -> py::object {
    // A device array over the memory a handle from another process names,
    // `offset` bytes in; the memory is unmapped when the last view goes.
    dtype t = to_dtype(dtype_like);
    extents shape = to_extents(shape_like, "shape");
    extents strides = to_extents(strides_like, "strides");
    int dev = device < 0 ? cuforge::device::current().ordinal() : device;
    std::string h = handle;
    void* p = nullptr;
    std::size_t mapped = 0;
    {
      py::gil_scoped_release nogil;
      p = mem::ipc_open(h, dev);
      if (auto r = mem::range_of(p)) mapped = r->second;
    }
    if (mapped != 0 && bytes > mapped) {
      mem::ipc_close(p, dev);
      throw py::value_error("the IPC array needs " + std::to_string(bytes) + " bytes (its offset, shape and strides), "
                            "but the shared allocation holds " + std::to_string(mapped));
    }
    auto a = memory::allocation::adopt(p, bytes, memory_kind::device, dev, [p, dev] {
      try {
        mem::ipc_close(p, dev);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "cuforge: closing IPC memory at %p failed: %s\n", p, e.what());
      }
    });
    // On a bad extent the adopted allocation's release unmaps it again.
    return py::cast(py_devarray{device_ndarray(std::move(a), offset, shape, strides, t)});
  });

  m.def("memory_resource_name", [](int dev) { return memory::current_resource(dev).get()->name(); },
        py::arg("device") = -1);
  m.def("enable_memory_statistics", [](int dev) {
    // Wraps the device's current resource in a counting adaptor (idempotent).
    if (stats_adaptor(dev)) return;
    memory::set_current_resource(
        std::make_shared<memory::statistics_resource_adaptor>(memory::current_resource(dev)), dev);
  }, py::arg("device") = -1);
  m.def("memory_statistics", [](int dev) -> py::object {
    auto* s = stats_adaptor(dev);
    if (!s) return py::none();
    auto c = s->stats();
    py::dict d;
    d["current_bytes"] = c.current_bytes;
    d["peak_bytes"] = c.peak_bytes;
    d["total_bytes"] = c.total_bytes;
    d["current_count"] = c.current_count;
    d["peak_count"] = c.peak_count;
    d["total_count"] = c.total_count;
    return d;
  }, py::arg("device") = -1);
}

}  // namespace cuforge::python

// Devices, streams, events and the backend, for Python.
#include "common.hpp"

#include <cuforge/memory/deallocation.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/scalar_types.hpp>

#include <pythread.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace cuforge::python {

stream_view default_stream_view() {
  static const bool per_thread = [] {
    const char* v = std::getenv("CUFORGE_PER_THREAD_DEFAULT_STREAM");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return per_thread ? stream_view::per_thread_default() : stream_view::legacy_default();
}

namespace {
bool is_zero(py::handle obj) {
  if (obj.is_none()) return true;
  if (PyLong_CheckExact(obj.ptr())) {
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(obj.ptr(), &overflow);
    return !overflow && v == 0;
  }
  return false;
}
}  // namespace

stream_view to_stream(py::handle obj, const py_devarray* bound) {
  if (is_zero(obj)) {
    if (bound && !bound->stream_obj.is_none()) return bound->a.stream();
    return default_stream_view();
  }
  if (py::isinstance<py_stream>(obj)) return obj.cast<const py_stream&>().get();
  if (py::hasattr(obj, "__cuda_stream__")) {
    // The CUDA stream protocol: (version, handle).
    py::object t = obj.attr("__cuda_stream__")();
    if (!py::isinstance<py::tuple>(t) || py::len(t) != 2)
      throw py::type_error("__cuda_stream__ must return a (version, handle) tuple");
    return stream_view::from_handle(py::reinterpret_borrow<py::tuple>(t)[1].cast<std::uintptr_t>());
  }
  throw py::type_error("expected a stream: a cuforge Stream (cuda.stream()), 0 or None for the default stream, "
                       "or an object with __cuda_stream__; got " +
                       std::string(py::str(py::type::of(obj).attr("__name__"))) + " " +
                       std::string(py::repr(obj)));
}

namespace {
// The class Stream objects are made as: the Python package's subclass of
// _core.Stream once it has registered it (cuforge/cuda/_stream.py), which
// adds what is better written in Python; _core.Stream until then.
py::object& stream_class() {
  static auto* cls = new py::object;
  return *cls;
}
}  // namespace

py::object make_stream(py_stream s) {
  py::object base = py::cast(std::move(s));
  if (!stream_class() || stream_class().is(py::type::of(base))) return base;
  return stream_class()(base);
}

py::object stream_object(py::handle obj) {
  if (is_zero(obj)) return py::none();
  if (py::isinstance<py_stream>(obj)) return py::reinterpret_borrow<py::object>(obj);
  return make_stream(py_stream{nullptr, to_stream(obj), true});
}

cuforge::event& py_event::get() const {
  if (!ev) throw logic_error("the event was destroyed");
  return *ev;
}

namespace {

py::dict device_info(int ordinal) {
  auto d = device::get(ordinal);
  py::dict info;
  info["id"] = ordinal;
  info["name"] = d.name();
  auto cc = d.cc();
  info["compute_capability"] = py::make_tuple(cc.major, cc.minor);
  info["uuid"] = d.uuid();
  info["pci_bus_id"] = d.pci_bus_id();
  info["total_memory"] = d.total_memory();
  return info;
}

std::string stream_repr(const py_stream& s) {
  std::string dev = std::to_string(s.view.is_default() ? device::current().ordinal() : s.view.device());
  if (s.view.is_legacy_default()) return "<Legacy default CUDA stream on device " + dev + ">";
  if (s.view.is_per_thread_default()) return "<Per-thread default CUDA stream on device " + dev + ">";
  return std::string(s.external ? "<External CUDA stream " : "<CUDA stream ") + std::to_string(s.view.handle()) +
         " on device " + dev + ">";
}

unsigned long main_thread_ident = 0;  // Python's main thread: where signal handlers run

// A wait that Ctrl-C interrupts: polls `idle` (without the GIL) until it is
// true, then calls `finish`, the real wait (now immediate, and raising what
// the work left behind). A short wait spins; a longer one sleeps in steps of
// a fiftieth of the time waited so far (20 us to 2 ms, so at most 2% later
// than a blocking wait) and every 50 ms lets Python run its signal handlers:
// KeyboardInterrupt ends the wait, while the work itself goes on. Off Python's
// main thread (no signals there; stream callbacks, whose waits are refused)
// it is the blocking wait.
template <class Idle, class Finish>
void interruptible_wait(Idle idle, Finish finish) {
  using clock = std::chrono::steady_clock;
  using std::chrono::microseconds;
  if (PyThread_get_thread_ident() != main_thread_ident) {
    py::gil_scoped_release nogil;
    finish();
    return;
  }
  py::gil_scoped_release nogil;
  const auto start = clock::now();
  auto checked = start;
  while (!idle()) {
    const auto now = clock::now();
    const auto waited = now - start;
    if (waited < microseconds(200)) {
      std::this_thread::yield();
      continue;
    }
    if (now - checked >= std::chrono::milliseconds(50)) {
      checked = now;
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
    std::this_thread::sleep_for(std::clamp<clock::duration>(waited / 50, microseconds(20), microseconds(2000)));
  }
  finish();
}

// The words of a space-separated alias list.
py::tuple words(std::string_view list) {
  py::list out;
  while (!list.empty()) {
    auto space = list.find(' ');
    out.append(std::string(list.substr(0, space)));
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return py::tuple(out);
}

}  // namespace

void bind_runtime(py::module_& m) {
  m.def("scalar_types", [] {
    py::list rows;
    for (const auto& s : scalar_types) {
      py::dict d;
      d["name"] = std::string(s.name);
      d["kind"] = std::string(1, static_cast<char>(s.kind));
      d["bytes"] = s.bytes;
      d["typestr"] = std::string(s.typestr());
      d["numpy_aliases"] = words(s.numpy_aliases);
      d["numba_aliases"] = words(s.numba_aliases);
      d["python_type"] = s.python_type.empty() ? py::object(py::none()) : py::object(py::str(std::string(s.python_type)));
      rows.append(d);
    }
    return py::tuple(rows);
  }, "The scalar-type table (cuforge/runtime/scalar_types.hpp): one dict per type, in its order.");
  m.def("backend", [] { return std::string(to_string(active_backend())); },
        "The active backend: 'cuda' or 'cpu' (CUFORGE_BACKEND=auto|cuda|cpu chooses).");
  m.def("backend_reason", &backend_reason, "Why the active backend was chosen.");
  m.def("cuda_driver_usable", &cuda_driver_usable);
  m.def("driver_version", &driver_version);

  m.def("device_count", &device::count);
  m.def("device_info", &device_info);
  m.def("device_attribute", [](int ordinal, int attr) { return device::get(ordinal).attribute(attr); });
  m.def("device_memory_info", [](int ordinal) {
    auto info = device::get(ordinal).memory();
    return py::make_tuple(info.free, info.total);
  });
  m.def("select_device", [](int ordinal) { device::get(ordinal).make_current(); });
  m.def("current_device", [] { return device::current().ordinal(); });
  main_thread_ident = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  m.def("synchronize", [] {
    const device d = device::current();
    if (!d.idle()) {  // the driver cannot tell: its own wait
      py::gil_scoped_release nogil;
      memory::synchronize();
      return;
    }
    interruptible_wait([&] { return *d.idle(); }, [] { memory::synchronize(); });
  }, "Waits for all work on the current device, then frees pending deallocations. Ctrl-C interrupts it on "
     "the cpu backend (the driver's wait for the whole device cannot be interrupted; streams' and events' can).");
  m.def("device_synchronize", [](int ordinal) {
    const device d = device::get(ordinal);
    if (!d.idle()) {
      py::gil_scoped_release nogil;
      memory::synchronize(ordinal);
      return;
    }
    interruptible_wait([&] { return *d.idle(); }, [ordinal] { memory::synchronize(ordinal); });
  });
  m.def("close", [] {
    py::gil_scoped_release nogil;
    memory::deallocation_queue::instance().flush_forced();
    close();
  });
  m.def("profile_start", &profiler_start);
  m.def("profile_stop", &profiler_stop);

  py::class_<py_stream>(m, "Stream", "A CUDA stream (cuda.stream(), cuda.default_stream(), ...).")
      .def(py::init([](const py_stream& other) { return other; }), py::arg("stream"),
           "The same stream as `stream` (what a subclass is made from).")
      .def_property_readonly("handle_value", [](const py_stream& s) { return s.view.handle(); })
      .def_property_readonly("external", [](const py_stream& s) { return s.external; })
      .def_property_readonly("is_default", [](const py_stream& s) { return s.view.is_default(); })
      .def_property_readonly("device_id", [](const py_stream& s) { return s.get().device(); })
      .def_property_readonly("priority", [](const py_stream& s) { return s.get().priority(); })
      .def_property_readonly("non_blocking", [](const py_stream& s) { return s.get().is_non_blocking(); })
      .def("synchronize", [](const py_stream& s) {
        auto v = s.get();
        interruptible_wait([&] { return v.is_idle(); }, [&] { v.synchronize(); });
      }, "Waits until all work queued on the stream has completed (Ctrl-C interrupts the wait).")
      .def("query", [](const py_stream& s) { return s.get().is_idle(); },
           "True when all work queued so far has completed.")
      .def("_add_host_callback", [](const py_stream& s, py::function fn) {
        // The callback runs on a thread of the backend's; it takes the GIL,
        // and drops its reference to `fn` while holding it.
        auto* held = new py::function(std::move(fn));
        s.get().add_callback([held] {
          py::gil_scoped_acquire gil;
          try {
            (*held)();
          } catch (py::error_already_set& e) {
            e.discard_as_unraisable("cuforge stream callback");
          }
          delete held;
        });
      })
      .def("wait_event", [](const py_stream& s, const py_event& e) { s.get().wait(e.get()); })
      .def("__int__", [](const py_stream& s) { return s.view.handle(); })
      .def("__cuda_stream__", [](const py_stream& s) { return py::make_tuple(0, s.view.handle()); })
      .def("__repr__", &stream_repr)
      .def("__eq__", [](const py_stream& a, py::handle b) {
        return py::isinstance<py_stream>(b) && a.view == b.cast<const py_stream&>().view;
      })
      .def("__hash__", [](const py_stream& s) { return std::hash<std::uintptr_t>{}(s.view.handle()); });

  m.def("_set_stream_class", [](py::object cls) {
    py::object base = py::type::of<py_stream>();
    if (!PyType_Check(cls.ptr()) || !PyObject_IsSubclass(cls.ptr(), base.ptr()))
      throw py::type_error("the stream class must be a subclass of _core.Stream");
    stream_class() = std::move(cls);
  }, "Makes every Stream the binding returns an instance of this subclass of _core.Stream.");
  m.def("new_stream", [](int priority, bool non_blocking) {
    auto owned = std::make_shared<cuforge::stream>(stream::options{priority, non_blocking});
    return make_stream(py_stream{owned, owned->view(), false});
  }, py::arg("priority") = 0, py::arg("non_blocking") = false);
  m.def("default_stream", [] { return make_stream(py_stream{nullptr, default_stream_view(), false}); },
        R"doc(The default stream: the legacy one, or the per-thread one where
CUFORGE_PER_THREAD_DEFAULT_STREAM=1 (as numba's NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM) asks
for it. Work given no stream goes here.)doc");
  m.def("legacy_default_stream", [] { return make_stream(py_stream{nullptr, stream_view::legacy_default(), false}); },
        R"doc(The legacy default stream (CU_STREAM_LEGACY): it waits for, and is waited
for by, every other blocking stream of the context.)doc");
  m.def("per_thread_default_stream",
        [] { return make_stream(py_stream{nullptr, stream_view::per_thread_default(), false}); },
        R"doc(The calling thread's default stream (CU_STREAM_PER_THREAD): ordered with
the legacy default stream, but not with other threads' per-thread streams.)doc");
  m.def("external_stream", [](std::uintptr_t handle) {
    if (handle == 0) throw py::value_error("external_stream needs a stream handle, not 0 (use default_stream())");
    return make_stream(py_stream{nullptr, stream_view::from_handle(handle), true});
  });
  m.def("stream_priority_range", [] { return stream::priority_range(); });

  py::class_<py_event>(m, "Event", "A CUDA event (cuda.event()).")
      .def("record", [](py_event& e, py::handle stream) { e.get().record(to_stream(stream)); },
           py::arg("stream") = 0, "Marks the current end of the stream's queue.")
      .def("synchronize", [](const py_event& e) {
        auto& ev = e.get();
        interruptible_wait([&] { return ev.query(); }, [&] { ev.synchronize(); });
      }, "Waits until the event's work has completed (Ctrl-C interrupts the wait).")
      .def("wait", [](const py_event& e, py::handle stream) { e.get().wait(to_stream(stream)); },
           py::arg("stream") = 0, "Makes the stream wait for this event.")
      .def("query", [](const py_event& e) { return e.get().query(); })
      .def("elapsed_time", [](const py_event& start, const py_event& end) {
        return start.get().elapsed_ms(end.get());
      }, py::arg("evtend"), "Milliseconds from this event to evtend.")
      .def_property_readonly("handle_value", [](const py_event& e) { return e.get().handle(); })
      .def("__repr__", [](const py_event& e) {
        return "<CUDA event " + std::to_string(e.get().handle()) + (e.get().has_timing() ? "" : " (no timing)") + ">";
      });

  m.def("new_event", [](bool timing, bool blocking) {
    return py_event{std::make_unique<cuforge::event>(event::options{timing, blocking})};
  }, py::arg("timing") = true, py::arg("blocking") = false);
}

}  // namespace cuforge::python

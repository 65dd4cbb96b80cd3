// __cuda_array_interface__ and DLPack for Python: the dictionaries and
// capsules around cuforge::interop, and the one import path for arrays from
// other libraries.
#include "common.hpp"

#include <cuforge/interop/cuda_array_interface.hpp>
#include <cuforge/interop/dlpack.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/event.hpp>

#include <cstdlib>
#include <cstring>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace cuforge::python {

using namespace cuforge::dlpack;

namespace {

constexpr const char* versioned_name = "dltensor_versioned";
constexpr const char* legacy_name = "dltensor";
constexpr const char* used_versioned_name = "used_dltensor_versioned";
constexpr const char* used_legacy_name = "used_dltensor";

bool is_cuda_device(DLDeviceType t) { return t == kDLCUDA || t == kDLCUDAHost || t == kDLCUDAManaged; }

// Keeps a Python object alive until the last view of its memory goes. The
// release may run on any thread, so it takes the GIL itself; it holds a bare
// reference, so destroying the function needs no GIL.
std::function<void()> keep_alive(py::handle obj) {
  PyObject* o = obj.ptr();
  Py_INCREF(o);
  return [o] {
    if (!Py_IsInitialized()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(o);
    PyGILState_Release(g);
  };
}

// The interface's synchronisation rule: the producer's stream is waited on
// at import, unless turned off like Numba's NUMBA_CUDA_ARRAY_INTERFACE_SYNC.
bool interface_sync_enabled() {
  static const bool on = [] {
    for (const char* name : {"CUFORGE_CUDA_ARRAY_INTERFACE_SYNC", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC"}) {
      const char* v = std::getenv(name);
      if (v && *v) return std::strcmp(v, "0") != 0;
    }
    return true;
  }();
  return on;
}

std::int64_t int_field(py::handle v, const char* what) {
  if (PyLong_CheckExact(v.ptr())) {  // the common case, without a conversion
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (!overflow) return x;
  }
  // The type first: converting a str or float would raise an error that does
  // not say which field is wrong.
  if (!PyLong_Check(v.ptr()) && !py::hasattr(v, "__index__"))
    throw py::type_error(std::string("__cuda_array_interface__: ") + what + " must be an int, not " +
                         std::string(py::str(py::type::of(v).attr("__name__"))));
  auto i = to_int64(v);
  if (!i) throw py::value_error(std::string("__cuda_array_interface__: ") + what + " does not fit in 64 bits");
  return *i;
}

extents int_tuple(py::handle v, const char* what) {
  extents e;
  if (PyTuple_Check(v.ptr())) {  // tuple subclasses too (PyTorch's torch.Size)
    Py_ssize_t n = PyTuple_GET_SIZE(v.ptr());
    e.reserve(static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) e.push_back(int_field(PyTuple_GET_ITEM(v.ptr(), i), what));
    return e;
  }
  if (!py::isinstance<py::tuple>(v) && !py::isinstance<py::list>(v))
    throw py::type_error(std::string("__cuda_array_interface__: '") + what + "' must be a tuple of ints, not " +
                         std::string(py::str(py::type::of(v).attr("__name__"))));
  for (auto x : py::reinterpret_borrow<py::sequence>(v)) e.push_back(int_field(x, what));
  return e;
}

// The interface's keys and the attributes the CuPy and PyTorch readers
// read, interned once: a launch reads one dictionary (or a few attributes)
// per foreign argument, and making and hashing the strings each time cost
// more than the rest of the import.
struct interned_names {
  PyObject *shape, *typestr, *data, *version, *strides, *mask, *stream;  // the interface's keys
  PyObject *ptr, *device_id, *dtype, *str, *is_cuda, *requires_grad, *is_sparse, *stride, *data_ptr,
      *get_device;  // the readers' attributes (shape, strides and data too)
};
const interned_names& names() {
  static const interned_names n = [] {
    auto in = [](const char* s) { return PyUnicode_InternFromString(s); };
    return interned_names{in("shape"),     in("typestr"),   in("data"),     in("version"),       in("strides"),
                          in("mask"),      in("stream"),    in("ptr"),      in("device_id"),     in("dtype"),
                          in("str"),       in("is_cuda"),   in("requires_grad"), in("is_sparse"), in("stride"),
                          in("data_ptr"),  in("get_device")};
  }();
  return n;
}

// d[key], or a null handle when absent.
py::handle entry(py::handle d, PyObject* key) {
  PyObject* v = PyDict_GetItemWithError(d.ptr(), key);
  if (!v && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

interop::array_interface parse_interface(py::handle desc) {
  if (!PyDict_Check(desc.ptr()))
    throw py::type_error("__cuda_array_interface__ must be a dict, not " +
                         std::string(py::str(py::type::of(desc).attr("__name__"))));
  const auto& k = names();
  py::handle shape = entry(desc, k.shape), typestr = entry(desc, k.typestr), data = entry(desc, k.data),
             version = entry(desc, k.version);
  for (auto [v, key] : {std::pair{shape, "shape"}, {typestr, "typestr"}, {data, "data"}, {version, "version"}})
    if (!v) throw py::value_error(std::string("__cuda_array_interface__ lacks the '") + key + "' entry");
  interop::array_interface ai;
  ai.version = static_cast<int>(int_field(version, "'version'"));
  ai.shape = int_tuple(shape, "shape");
  if (!PyUnicode_Check(typestr.ptr())) throw py::type_error("__cuda_array_interface__: 'typestr' must be a str");
  Py_ssize_t len = 0;
  const char* ts = PyUnicode_AsUTF8AndSize(typestr.ptr(), &len);
  if (!ts) throw py::error_already_set();
  ai.typestr.assign(ts, static_cast<std::size_t>(len));
  if (!PyTuple_Check(data.ptr()) || PyTuple_GET_SIZE(data.ptr()) != 2)
    throw py::type_error("__cuda_array_interface__: 'data' must be a (pointer, read_only) tuple");
  auto ptr = int_field(PyTuple_GET_ITEM(data.ptr(), 0), "the data pointer");
  if (ptr < 0) throw py::value_error("__cuda_array_interface__: the data pointer is negative");
  ai.data = static_cast<std::uintptr_t>(ptr);
  int ro = PyObject_IsTrue(PyTuple_GET_ITEM(data.ptr(), 1));
  if (ro < 0) throw py::error_already_set();
  ai.read_only = ro != 0;
  if (py::handle st = entry(desc, k.strides); st && !st.is_none()) ai.strides = int_tuple(st, "strides");
  if (py::handle m = entry(desc, k.mask); m && !m.is_none()) ai.has_mask = true;
  if (py::handle s = entry(desc, k.stream); s && !s.is_none()) {
    auto st = int_field(s, "'stream'");
    if (st == 0)
      throw py::value_error("__cuda_array_interface__: 'stream' 0 is disallowed by the interface (ambiguous); "
                            "1 is the legacy default stream, 2 the per-thread one");
    if (st < 0) throw py::value_error("__cuda_array_interface__: 'stream' is negative");
    ai.stream = static_cast<std::uintptr_t>(st);
  }
  return ai;
}

// A stream handle as a stream's identity (0 and 1 both name the legacy
// default stream).
std::uintptr_t stream_identity(std::uintptr_t h) { return h == 0 ? stream_view::legacy_handle : h; }

// Makes `consumer` wait for the work queued on `producer` so far, on the
// device (an event), not in this thread.
void order_after(stream_view producer, stream_view consumer) {
  event e(event::options{.timing = false});
  e.record(producer);
  consumer.wait(e);
}

// `launch`, when given: the import is for a kernel launched on that stream.
// Instead of waiting in this thread for the producer's stream (the rule for
// an array taken to keep), the launch's stream waits for it on the device;
// and when the producer's stream is the launch's (None counting as the
// legacy default one, where v2 producers and Numba's default-stream arrays
// work), the producer is let go as soon as the launch drops the view: its
// allocator reuses the memory in that stream's order, after the kernel.
device_ndarray adopt_interface(py::handle obj, const interop::array_interface& ai, bool sync, const stream_view* launch,
                               std::optional<int> producer_device = std::nullopt) {
  bool prompt = false;
  if (launch) {
    std::uintptr_t producer = ai.stream ? stream_identity(*ai.stream) : stream_view::legacy_handle;
    if (producer == stream_identity(launch->handle()))
      prompt = true;
    else if (ai.stream && interface_sync_enabled())
      order_after(stream_view::from_handle(*ai.stream), *launch);
  } else if (ai.stream && sync && interface_sync_enabled()) {
    auto producer = stream_view::from_handle(*ai.stream);
    py::gil_scoped_release nogil;
    producer.synchronize();
  }
  return interop::import_interface(ai, keep_alive(obj), prompt, producer_device);
}

// Producers whose arrays are immutable though what they export cannot say so:
// JAX's (its legacy DLPack capsules carry no read-only flag, its CUDA Array
// Interface says writable; NumPy's from_dlpack makes every legacy host import
// read-only, which covers JAX there). Decided once per type, by the module
// that defines it or a base class.
bool immutable_producer(PyTypeObject* kind) {
  static std::unordered_map<PyTypeObject*, bool> known;
  auto it = known.find(kind);
  if (it != known.end()) return it->second;
  bool immutable = false;
  py::tuple mro = py::handle(reinterpret_cast<PyObject*>(kind)).attr("__mro__");
  for (py::handle base : mro) {
    py::object name = py::getattr(base, "__module__", py::none());
    if (!py::isinstance<py::str>(name)) continue;
    const std::string module = name.cast<std::string>();
    if (module == "jax" || module.rfind("jax.", 0) == 0 || module == "jaxlib" || module.rfind("jaxlib.", 0) == 0) {
      immutable = true;
      break;
    }
  }
  known.emplace(kind, immutable);
  return immutable;
}

device_ndarray import_interface(py::handle obj, py::handle desc, bool sync, const stream_view* launch = nullptr) {
  device_ndarray a = adopt_interface(obj, parse_interface(desc), sync, launch);
  return immutable_producer(Py_TYPE(obj.ptr())) ? a.as_read_only() : a;
}

// The producer's interface, or a null object when it has none. Only an
// AttributeError means "none" (as hasattr): any other error is the
// producer's to report, not a reason to treat its array as host data.
py::object interface_of(py::handle obj) {
  static PyObject* const name = PyUnicode_InternFromString("__cuda_array_interface__");
  if (PyObject* desc = PyObject_GetAttr(obj.ptr(), name))
    return py::reinterpret_steal<py::object>(desc);
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
  PyErr_Clear();
  return py::object();
}

// --- CuPy arrays and PyTorch tensors as kernel arguments ---------------------------
//
// A launch taking a CuPy array or a PyTorch tensor reads what the interface
// would say from the producer's own attributes: building the interface's
// dictionary costs the producer 0.7 us (CuPy) and 1.9 us (PyTorch) per
// array, more than our whole launch. The fields and the stream are the ones
// the producer's __cuda_array_interface__ gives (see docs/interop.md); the
// driver is not asked about the pointer, which the producer owns on the
// device it names. Only the exact types are read this way (a subclass may
// change what its interface says), and any case the reader does not cover
// (a tensor that requires grad, an unusual dtype, an attribute that is not
// there in some release) goes the interface's way, with its errors.

enum class producer_kind { other, cupy, torch };

// How one producer type's attributes are read, set up when its first array
// is seen (the producer's module is imported by then).
struct producer_reader {
  producer_kind kind = producer_kind::other;
  py::object stream_ptr;  // CuPy: cupy.cuda.stream.get_current_stream_ptr, or None for no stream
  std::uintptr_t default_stream = stream_view::legacy_handle;  // CuPy's, for a current stream of 0
  std::unordered_map<PyObject*, std::pair<std::string, std::int64_t>> torch_dtypes;  // dtype -> typestr, itemsize
  py::object keep_type;  // the type object, so that its address is not reused
};

// `name` from the module `module` when that module is imported (never imports it).
py::object imported_attr(const char* module, const char* name) {
  PyObject* mods = PyImport_GetModuleDict();  // borrowed
  PyObject* m = PyDict_GetItemString(mods, module);
  if (!m) return py::object();
  PyObject* a = PyObject_GetAttrString(m, name);
  if (!a) {
    PyErr_Clear();
    return py::object();
  }
  return py::reinterpret_steal<py::object>(a);
}

producer_reader make_reader(PyTypeObject* t) {
  producer_reader r;
  r.keep_type = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(t));
  try {
    if (py::object c = imported_attr("cupy", "ndarray"); c && c.ptr() == reinterpret_cast<PyObject*>(t)) {
      py::module_ util = py::module_::import("cupy._util");
      int export_version = py::cast<int>(util.attr("CUDA_ARRAY_INTERFACE_EXPORT_VERSION"));
      if (export_version != 3 && export_version != 2) return r;  // CuPy's interface raises: let it
      r.stream_ptr = py::none();
      if (export_version == 3) r.stream_ptr = py::module_::import("cupy.cuda.stream").attr("get_current_stream_ptr");
      const char* ptds = std::getenv("CUPY_CUDA_PER_THREAD_DEFAULT_STREAM");
      if (ptds && std::strcmp(ptds, "1") == 0) r.default_stream = stream_view::per_thread_handle;
      r.kind = producer_kind::cupy;
    } else if (py::object tt = imported_attr("torch", "Tensor"); tt && tt.ptr() == reinterpret_cast<PyObject*>(t)) {
      // The dtypes PyTorch's interface names, with their typestrs; others go its way.
      for (auto [name, ts, size] : {std::tuple{"float16", "<f2", 2}, {"float32", "<f4", 4}, {"float64", "<f8", 8},
                                    {"complex64", "<c8", 8}, {"complex128", "<c16", 16}, {"uint8", "|u1", 1},
                                    {"int8", "|i1", 1}, {"int16", "<i2", 2}, {"int32", "<i4", 4},
                                    {"int64", "<i8", 8}, {"bool", "|b1", 1}, {"uint16", "<u2", 2},
                                    {"uint32", "<u4", 4}, {"uint64", "<u8", 8}}) {
        py::object d = imported_attr("torch", name);
        if (!d) continue;  // a release without it
        r.torch_dtypes.emplace(d.ptr(), std::pair{std::string(ts), static_cast<std::int64_t>(size)});
        d.release();  // torch's dtype objects live as long as torch: the keys stay valid
      }
      r.kind = producer_kind::torch;
    }
  } catch (py::error_already_set&) {
    r.kind = producer_kind::other;  // a release without what the reader expects: the interface's way
  }
  return r;
}

producer_reader& reader_for(PyTypeObject* t) {
  // Under the GIL. Never destroyed: its Python objects must not be released
  // after the interpreter is gone.
  static auto& readers = *new std::unordered_map<PyTypeObject*, producer_reader>;
  auto it = readers.find(t);
  if (it == readers.end()) it = readers.emplace(t, make_reader(t)).first;
  return it->second;
}

bool truthy(py::handle o) {
  int v = PyObject_IsTrue(o.ptr());
  if (v < 0) throw py::error_already_set();
  return v != 0;
}

// CuPy's interface, from the array's attributes: `data.ptr` and
// `data.device_id`, `shape`, `strides`, `dtype.str`, and the stream CuPy
// would name (its current one, the default stream for 0; none when CuPy
// exports version 2).
struct producer_read {
  interop::array_interface ai;
  int device = 0;
};

py::object get(py::handle o, PyObject* name) {
  PyObject* v = PyObject_GetAttr(o.ptr(), name);
  if (!v) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(v);
}

py::object call(py::handle o, PyObject* method) {
  PyObject* v = PyObject_CallMethodNoArgs(o.ptr(), method);
  if (!v) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(v);
}

// A NumPy dtype's typestr, remembered for the dtype objects seen (NumPy's
// built-in dtypes are singletons; the first 256 others are kept too).
const std::string& typestr_of(py::handle dtype) {
  static auto& known = *new std::unordered_map<PyObject*, std::string>;  // never destroyed, as the readers
  if (auto it = known.find(dtype.ptr()); it != known.end()) return it->second;
  thread_local std::string scratch;
  scratch = py::cast<std::string>(get(dtype, names().str));
  if (known.size() >= 256) return scratch;
  Py_INCREF(dtype.ptr());  // the key stays this dtype's
  return known.emplace(dtype.ptr(), scratch).first->second;
}

std::optional<producer_read> read_cupy(const producer_reader& r, py::handle a) {
  producer_read out;
  auto& ai = out.ai;
  const auto& n = names();
  py::object mem = get(a, n.data);
  ai.data = static_cast<std::uintptr_t>(int_field(get(mem, n.ptr), "CuPy's data pointer"));
  out.device = static_cast<int>(int_field(get(mem, n.device_id), "CuPy's device id"));
  ai.shape = int_tuple(get(a, n.shape), "shape");
  ai.strides = int_tuple(get(a, n.strides), "strides");
  ai.typestr = typestr_of(get(a, n.dtype));
  if (!r.stream_ptr.is_none()) {
    auto p = static_cast<std::uintptr_t>(int_field(r.stream_ptr(), "CuPy's stream"));
    ai.stream = p == 0 ? r.default_stream : p;
  }
  return out;
}

// PyTorch's interface (version 2, no stream), from the tensor's attributes;
// nullopt where its interface would raise or is not there (a tensor on the
// CPU, one that requires grad, a sparse one, a dtype it does not name).
std::optional<producer_read> read_torch(const producer_reader& r, py::handle t) {
  const auto& n = names();
  if (!truthy(get(t, n.is_cuda)) || truthy(get(t, n.requires_grad)) || truthy(get(t, n.is_sparse)))
    return std::nullopt;
  py::object dt = get(t, n.dtype);
  auto d = r.torch_dtypes.find(dt.ptr());
  if (d == r.torch_dtypes.end()) return std::nullopt;
  producer_read out;
  auto& ai = out.ai;
  ai.version = 2;
  ai.typestr = d->second.first;
  ai.shape = int_tuple(get(t, n.shape), "shape");
  extents strides = int_tuple(call(t, n.stride), "strides");
  for (auto& s : strides) s *= d->second.second;
  ai.strides = std::move(strides);
  ai.data = static_cast<std::uintptr_t>(int_field(call(t, n.data_ptr), "the data pointer"));
  out.device = static_cast<int>(int_field(call(t, n.get_device), "the tensor's device"));
  return out;
}

// A CuPy array or PyTorch tensor taken by a launch on `launch`, read
// through its attributes; nullopt for anything else (and for the cases the
// readers leave to the interface). A reader that fails to read (a release
// whose attributes differ) is turned off for that type: its arrays then go
// the interface's way, which reports what is wrong.
std::optional<device_ndarray> read_known_producer(py::handle obj, const stream_view& launch) {
  producer_reader& r = reader_for(Py_TYPE(obj.ptr()));
  if (r.kind == producer_kind::other) return std::nullopt;
  std::optional<producer_read> got;
  try {
    got = r.kind == producer_kind::cupy ? read_cupy(r, obj) : read_torch(r, obj);
  } catch (py::error_already_set&) {
    r.kind = producer_kind::other;
    return std::nullopt;
  } catch (py::builtin_exception&) {  // a field of an unexpected type
    r.kind = producer_kind::other;
    return std::nullopt;
  }
  if (!got) return std::nullopt;
  return adopt_interface(obj, got->ai, true, &launch, got->device);
}

// --- DLPack capsules -----------------------------------------------------------

void versioned_capsule_destructor(PyObject* cap) {
  // Unconsumed: the consumer never took ownership, so we let go.
  if (PyCapsule_IsValid(cap, versioned_name)) {
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, versioned_name));
    if (t && t->deleter) t->deleter(t);
  }
}

void legacy_capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, legacy_name)) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, legacy_name));
    if (t && t->deleter) t->deleter(t);
  }
}

// Takes ownership of the tensor in a capsule, renaming it as the protocol
// requires so that its destructor leaves the tensor to us.
device_ndarray consume_capsule(py::handle cap, bool allow_host = false) {
  PyObject* c = cap.ptr();
  if (PyCapsule_IsValid(c, versioned_name)) {
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, versioned_name));
    if (PyCapsule_SetName(c, used_versioned_name) != 0) throw py::error_already_set();
    return interop::import_versioned(t, allow_host);
  }
  if (PyCapsule_IsValid(c, legacy_name)) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, legacy_name));
    if (PyCapsule_SetName(c, used_legacy_name) != 0) throw py::error_already_set();
    return interop::import_legacy(t, allow_host);
  }
  if (PyCapsule_IsValid(c, used_versioned_name) || PyCapsule_IsValid(c, used_legacy_name))
    throw py::value_error("this DLPack capsule was already consumed (a capsule can be imported once)");
  throw py::type_error("expected a DLPack capsule named 'dltensor' or 'dltensor_versioned'");
}

py::object consumer_stream_argument(DLDeviceType t, const stream_view* launch) {
  if (!is_cuda_device(t)) return py::none();
  return py::int_(launch ? launch->handle() : default_stream_view().handle());
}

// `launch`, when given: the stream a kernel taking the array is launched
// on, which the producer is asked to order its work before.
device_ndarray import_dlpack(py::handle obj, const stream_view* launch = nullptr, bool allow_host = false) {
  if (PyCapsule_CheckExact(obj.ptr())) return consume_capsule(obj, allow_host);
  if (!py::hasattr(obj, "__dlpack__") || !py::hasattr(obj, "__dlpack_device__"))
    throw py::type_error("from_dlpack needs an object with __dlpack__ and __dlpack_device__ (or a DLPack "
                         "capsule), not " + std::string(py::str(py::type::of(obj).attr("__name__"))));
  py::tuple dev = obj.attr("__dlpack_device__")();
  auto type = static_cast<DLDeviceType>(dev[0].cast<int>());
  py::object stream = consumer_stream_argument(type, launch);
  // Producers from before max_version raise TypeError for it; remember
  // their types so that each later import costs one call, not a raise and a
  // retry. (A type object's address reused by another type only costs that
  // one a legacy capsule.)
  static std::unordered_set<PyTypeObject*> legacy_producers;
  PyTypeObject* kind = Py_TYPE(obj.ptr());
  py::object cap;
  if (legacy_producers.count(kind)) {
    cap = obj.attr("__dlpack__")(py::arg("stream") = stream);
  } else {
    try {
      cap = obj.attr("__dlpack__")(py::arg("stream") = stream,
                                   py::arg("max_version") = py::make_tuple(major_version, minor_version));
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_TypeError)) throw;
      cap = obj.attr("__dlpack__")(py::arg("stream") = stream);
      legacy_producers.insert(kind);
    }
  }
  device_ndarray a = consume_capsule(cap, allow_host);
  return immutable_producer(kind) ? a.as_read_only() : a;
}

// --- export ----------------------------------------------------------------------

py::object interface_stream(const py_devarray& self) {
  if (self.stream_obj.is_none()) return py::none();
  return py::int_(self.a.stream().handle());
}

py::dict cuda_array_interface(const py_devarray& self) {
  if (active_traits().device_memory_is_host)
    throw py::attribute_error(
        "__cuda_array_interface__ is not offered on the cpu backend: its device memory is host memory, which CUDA "
        "consumers must not be handed (use __dlpack__, which says kDLCPU, or copy_to_host())");
  std::optional<std::uintptr_t> stream;
  if (!self.stream_obj.is_none()) stream = self.a.stream().handle();
  auto ai = interop::export_interface(self.a, stream);
  py::dict d;
  d["shape"] = to_tuple(ai.shape);
  d["strides"] = ai.strides ? py::object(to_tuple(*ai.strides)) : py::object(py::none());
  d["data"] = py::make_tuple(ai.data, ai.read_only);
  d["typestr"] = ai.typestr;
  d["stream"] = interface_stream(self);
  d["version"] = ai.version;
  return d;
}

[[noreturn]] void buffer_error(const std::string& what) {
  PyErr_SetString(PyExc_BufferError, what.c_str());
  throw py::error_already_set();
}

// dl_device as the standard passes it: a (device_type, device_id) pair.
std::pair<int, int> dl_device_arg(py::handle v) {
  auto fail = [&] {
    return py::type_error("__dlpack__: dl_device must be a (device_type, device_id) tuple of ints, not " +
                          std::string(py::repr(v)));
  };
  if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v) || py::len(v) != 2) throw fail();
  auto seq = py::reinterpret_borrow<py::sequence>(v);
  std::pair<int, int> out;
  int* parts[] = {&out.first, &out.second};
  for (std::size_t i = 0; i < 2; ++i) {
    py::object x = seq[i];
    if (!PyLong_Check(x.ptr()) && !py::hasattr(x, "__index__")) throw fail();
    auto n = to_int64(x);
    if (!n || *n < INT32_MIN || *n > INT32_MAX) throw fail();
    *parts[i] = static_cast<int>(*n);
  }
  return out;
}

py::object dlpack_export(const py_devarray& self, py::handle stream, py::handle max_version, py::handle dl_device,
                         py::handle copy) {
  DLDevice dev = interop::dlpack_device_of(self.a);
  bool want_copy = !copy.is_none() && copy.cast<bool>();
  bool no_copy = !copy.is_none() && !copy.cast<bool>();
  if (!dl_device.is_none()) {
    auto [t, id] = dl_device_arg(dl_device);
    if (t != dev.device_type || id != dev.device_id) {
      if (t == kDLCPU && id == 0 && !no_copy) {
        // To the host, as asked: a NumPy copy exports itself, marked a copy.
        py::object host = py::module_::import("cuforge._core").attr("DeviceNDArray").attr("copy_to_host")(py::cast(self));
        py::object cap = host.attr("__dlpack__")(py::arg("max_version") = max_version);
        if (PyCapsule_IsValid(cap.ptr(), versioned_name))
          static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap.ptr(), versioned_name))->flags |=
              flag_is_copied;
        return cap;
      }
      buffer_error("cannot export a device array on DLPack device (" + std::to_string(dev.device_type) + ", " +
                   std::to_string(dev.device_id) + ") to device (" + std::to_string(t) + ", " + std::to_string(id) +
                   ")" + (no_copy ? " without a copy" : ""));
    }
  }
  // The stream handshake: the consumer's stream waits for our work.
  if (dev.device_type == kDLCPU) {
    if (!stream.is_none() && !(PyLong_Check(stream.ptr()) && stream.cast<long long>() == -1))
      buffer_error("__dlpack__: stream must be None for arrays in host memory (kDLCPU)");
  } else {
    long long consumer = stream.is_none() ? static_cast<long long>(stream_view::legacy_handle) : stream.cast<long long>();
    if (consumer == 0)
      throw py::value_error("__dlpack__: stream 0 is ambiguous and disallowed; pass 1 for the legacy default stream");
    if (consumer != -1) {
      stream_view producer = self.stream_obj.is_none() ? default_stream_view() : self.a.stream();
      stream_view theirs = stream_view::from_handle(static_cast<std::uintptr_t>(consumer));
      if (!(producer == theirs)) {
        event e(event::options{.timing = false});
        e.record(producer);
        theirs.wait(e);
      }
    }
  }
  device_ndarray src = self.a;
  std::uint64_t flags = 0;
  if (want_copy) {
    py::gil_scoped_release nogil;
    src = self.a.copy('K');
    flags |= flag_is_copied;
  }
  bool versioned = false;
  if (!max_version.is_none()) {
    py::tuple v = py::reinterpret_borrow<py::object>(max_version);
    versioned = v[0].cast<int>() >= 1;
  }
  try {
    if (versioned) {
      auto* t = interop::export_versioned(src, flags);
      return py::reinterpret_steal<py::object>(PyCapsule_New(t, versioned_name, &versioned_capsule_destructor));
    }
    auto* t = interop::export_legacy(src);
    return py::reinterpret_steal<py::object>(PyCapsule_New(t, legacy_name, &legacy_capsule_destructor));
  } catch (const logic_error& e) {
    buffer_error(e.what());
  }
}

}  // namespace

std::optional<device_ndarray> device_array_of(py::handle obj, bool sync, const stream_view* launch) {
  if (is_devarray(obj)) return obj.cast<const py_devarray&>().a;
  if (py::isinstance<py::array>(obj)) return std::nullopt;  // NumPy: host data, even over mapped memory
  if (launch)
    if (auto a = read_known_producer(obj, *launch)) return a;
  if (py::object d = interface_of(obj)) return import_interface(obj, d, sync, launch);
  if (py::hasattr(obj, "__dlpack_device__") && py::hasattr(obj, "__dlpack__")) {
    py::tuple dev = obj.attr("__dlpack_device__")();
    // Host memory (kDLCPU) is the caller's to view as host data; anything
    // else is imported, and a device we cannot address is refused there.
    if (static_cast<DLDeviceType>(dev[0].cast<int>()) != kDLCPU) return import_dlpack(obj, launch);
  }
  return std::nullopt;
}

py::object host_array_of_dlpack(py::handle obj) {
  // The one validation path (the same import as from_dlpack), then NumPy's
  // view of the memory, which owns the import: a kernel argument in host
  // memory is transferred like a NumPy array.
  device_ndarray a = import_dlpack(obj, nullptr, /*allow_host=*/true);
  static char empty_buffer[16];
  void* data = a.size() ? a.data() : empty_buffer;
  py::array arr(to_numpy_dtype(a.type()), a.shape(), a.strides(), data, owner_capsule(a.allocation()));
  if (a.read_only()) py::detail::array_proxy(arr.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return arr;
}

void bind_interop(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<py_devarray, py_devarray_holder>>(m.attr("DeviceNDArray"));
  cls.def_property_readonly("__cuda_array_interface__", &cuda_array_interface,
                            "The CUDA Array Interface (version 3); absent on the cpu backend.")
      .def("__dlpack__", &dlpack_export, py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
           py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
           "A DLPack capsule over the array's memory (versioned when max_version allows).")
      .def("__dlpack_device__", [](const py_devarray& self) {
        auto d = interop::dlpack_device_of(self.a);
        return py::make_tuple(static_cast<int>(d.device_type), d.device_id);
      });

  m.def("from_dlpack", [](py::handle obj) { return py_devarray{import_dlpack(obj), py::none()}; },
        py::arg("obj"), "A device array over a DLPack producer's memory, without a copy.");
  m.def("as_cuda_array", [](py::handle obj, bool sync) -> py::object {
    if (is_devarray(obj)) return py::reinterpret_borrow<py::object>(obj);
    py::object d = interface_of(obj);
    if (!d)
      throw py::type_error("as_cuda_array: " + std::string(py::str(py::type::of(obj).attr("__name__"))) +
                           " does not implement the CUDA Array Interface (__cuda_array_interface__)");
    return py::cast(py_devarray{import_interface(obj, d, sync), py::none()});
  }, py::arg("obj"), py::arg("sync") = true);
  m.def("is_cuda_array", [](py::handle obj) {
    if (is_devarray(obj)) return true;
    return static_cast<bool>(interface_of(obj));
  }, py::arg("obj"));
}

}  // namespace cuforge::python

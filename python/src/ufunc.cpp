// NumPy ufuncs and generalised ufuncs whose loops are our compiled host code:
// the CPU targets of vectorize and guvectorize (cuforge/_ufunc.py). Each
// loop is a specialisation compiled for the host target taking every
// argument as an array with one leading (loop) dimension and the argument's
// core dimensions after it; NumPy's inner loop hands us pointers, the loop
// count, the core sizes and the strides, which are exactly those arrays'
// slots (frontend/abi.hpp). The only translation unit using NumPy's C API.
#include "common.hpp"

#include <cuforge/jit/error_record.hpp>
#include <cuforge/jit/host_call.hpp>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarrayobject.h>
#include <numpy/ufuncobject.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cuforge::python {

namespace {

using jit::compiled_kernel;

void ensure_numpy_api() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = _import_array() >= 0 && _import_umath() >= 0; });
  if (!ok) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ImportError, "cuforge: NumPy's C API could not be loaded");
    throw py::error_already_set();
  }
}

/// One loop of a ufunc: a compiled specialisation and where each argument's
/// core sizes and strides are in NumPy's inner-loop arrays.
struct loop_data {
  std::shared_ptr<compiled_kernel> k;
  std::size_t nargs = 0;
  std::vector<std::vector<int>> core_dims;      // per argument: indexes into dims[1:]
  std::vector<std::size_t> core_step_offset;    // per argument: its first core step in steps[nargs:]
  bool parallel = false;
  std::size_t slots = 0;
};

/// What a ufunc object owns (its `obj`): the loops and the arrays NumPy keeps pointers to.
struct ufunc_owner {
  std::vector<std::unique_ptr<loop_data>> loops;
  std::vector<PyUFuncGenericFunction> funcs;
  std::vector<void*> data;
  std::vector<char> types;
  std::string name, doc, signature;
};

/// Slots of every argument for outer iterations [start, start + count).
void fill_slots(const loop_data& L, char** args, const npy_intp* dims, const npy_intp* steps, npy_intp start,
                npy_intp count, std::vector<std::uint64_t>& out) {
  out.clear();
  for (std::size_t j = 0; j < L.nargs; ++j) {
    const auto& cd = L.core_dims[j];
    out.push_back(reinterpret_cast<std::uintptr_t>(args[j] + start * steps[j]));
    out.push_back(static_cast<std::uint64_t>(count));
    for (int ix : cd) out.push_back(static_cast<std::uint64_t>(dims[1 + ix]));
    out.push_back(static_cast<std::uint64_t>(steps[j]));
    for (std::size_t t = 0; t < cd.size(); ++t)
      out.push_back(static_cast<std::uint64_t>(steps[L.nargs + L.core_step_offset[j] + t]));
  }
}

void set_loop_error(std::exception_ptr p) {
  PyGILState_STATE g = PyGILState_Ensure();
  if (!PyErr_Occurred()) set_error_from(p);
  PyGILState_Release(g);
}

void inner_loop(char** args, const npy_intp* dims, const npy_intp* steps, void* data) {
  const auto& L = *static_cast<const loop_data*>(data);
  const npy_intp n = dims[0];
  if (n <= 0) return;
  try {
    std::size_t core = 1;
    for (const auto& cd : L.core_dims)
      for (int ix : cd) core = std::max<std::size_t>(core, static_cast<std::size_t>(std::max<npy_intp>(dims[1 + ix], 1)));
    // Split only what is worth a thread: about 16K element-operations a piece.
    const std::size_t grain = std::max<std::size_t>(1, 16384 / core);
    const std::size_t pieces =
        L.parallel ? std::min<std::size_t>(jit::host_workers() * 4, (static_cast<std::size_t>(n) + grain - 1) / grain) : 1;
    if (pieces <= 1) {
      std::vector<std::uint64_t> slots;
      slots.reserve(L.slots);
      fill_slots(L, args, dims, steps, 0, n, slots);
      jit::call_on_host(*L.k, slots);
      return;
    }
    const npy_intp per = (n + static_cast<npy_intp>(pieces) - 1) / static_cast<npy_intp>(pieces);
    jit::host_parallel_for(pieces, [&](std::size_t p) {
      const npy_intp start = static_cast<npy_intp>(p) * per;
      if (start >= n) return;
      std::vector<std::uint64_t> slots;
      slots.reserve(L.slots);
      fill_slots(L, args, dims, steps, start, std::min(per, n - start), slots);
      jit::call_on_host(*L.k, slots);
    });
  } catch (...) {
    set_loop_error(std::current_exception());
  }
}

int identity_code(py::handle identity, py::object& value) {
  if (identity.is_none()) return PyUFunc_None;
  if (py::isinstance<py::str>(identity)) {
    if (identity.cast<std::string>() == "reorderable") return PyUFunc_ReorderableNone;
    throw py::value_error("identity must be a number, None or 'reorderable', not " + py::repr(identity).cast<std::string>());
  }
  value = py::reinterpret_borrow<py::object>(identity);
  return PyUFunc_IdentityValue;
}

/// make_ufunc(name, doc, nin, nout, loops, identity, signature, parallel):
/// loops is a list of (type numbers of every argument, CompiledFunction).
py::object make_ufunc(const std::string& name, const std::string& doc, int nin, int nout, py::list loops,
                      py::object identity, py::object signature, bool parallel) {
  ensure_numpy_api();
  if (nin < 1 || nout < 1) throw py::value_error("a ufunc needs at least one input and one output");
  if (loops.empty()) throw py::value_error("a ufunc needs at least one loop");
  const std::size_t nargs = static_cast<std::size_t>(nin + nout);
  auto owner = std::make_unique<ufunc_owner>();
  owner->name = name;
  owner->doc = doc;
  const bool gufunc = !signature.is_none();
  if (gufunc) owner->signature = signature.cast<std::string>();
  for (py::handle item : loops) {
    auto t = item.cast<py::tuple>();
    auto typenums = t[0].cast<std::vector<int>>();
    auto k = t[1].cast<std::shared_ptr<compiled_kernel>>();
    if (typenums.size() != nargs) throw py::value_error("a loop's types do not match nin + nout");
    for (int tn : typenums) owner->types.push_back(static_cast<char>(tn));
    auto L = std::make_unique<loop_data>();
    L->k = std::move(k);
    L->nargs = nargs;
    L->parallel = parallel;
    L->k->host_code();  // compiled now: a failure is the decorator's error, not a call's
    owner->funcs.push_back(&inner_loop);
    owner->data.push_back(L.get());
    owner->loops.push_back(std::move(L));
  }
  py::object ident_value = py::none();
  const int ident = identity_code(identity, ident_value);
  PyObject* uf = PyUFunc_FromFuncAndDataAndSignatureAndIdentity(
      owner->funcs.data(), owner->data.data(), owner->types.data(), static_cast<int>(owner->funcs.size()), nin, nout,
      ident, owner->name.c_str(), owner->doc.c_str(), 0, gufunc ? owner->signature.c_str() : nullptr,
      ident == PyUFunc_IdentityValue ? ident_value.ptr() : nullptr);
  if (uf == nullptr) throw py::error_already_set();
  py::object result = py::reinterpret_steal<py::object>(uf);
  auto* u = reinterpret_cast<PyUFuncObject*>(uf);
  // Where each argument's core sizes and strides are, from NumPy's own parse of the signature.
  std::vector<std::vector<int>> core_dims(nargs);
  std::vector<std::size_t> offsets(nargs, 0);
  std::size_t slots = 0;
  for (std::size_t j = 0; j < nargs; ++j) {
    if (gufunc && u->core_enabled) {
      offsets[j] = static_cast<std::size_t>(u->core_offsets[j]);
      for (int t = 0; t < u->core_num_dims[j]; ++t) core_dims[j].push_back(u->core_dim_ixs[u->core_offsets[j] + t]);
    }
    slots += 1 + 2 * (1 + core_dims[j].size());
  }
  for (auto& L : owner->loops) {
    L->core_dims = core_dims;
    L->core_step_offset = offsets;
    L->slots = slots;
    if (L->k->layout().argument_slots != slots)
      throw py::value_error("ufunc '" + name + "': a loop whose parameters do not match the signature");
  }
  // The ufunc owns its loops: NumPy keeps pointers to funcs, data and types.
  ufunc_owner* raw = owner.release();
  py::capsule cap(raw, [](void* p) { delete static_cast<ufunc_owner*>(p); });
  Py_XDECREF(u->obj);
  u->obj = cap.release().ptr();
  return result;
}


// --- HostFunction: the host jit's call path (cuforge/_host_jit.py) -------------------------------
//
// A base type of HostDispatcher whose call types the arguments, finds the
// entry compiled for exactly those types, packs the slots and boxes the
// result here, without a Python frame. A call it cannot serve (new types,
// keyword arguments, an argument it does not type) goes to the Python
// fallback, which compiles and returns (result, info); info, when the entry
// takes these argument types exactly, is (compiled, result type numbers,
// kind: 0 none, 1 a scalar, 2 a tuple), registered for the next calls.

enum : std::int64_t {
  code_float = 1,    // Python float: float64
  code_int = 2,      // Python int: int64
  code_bool = 3,     // Python bool
  code_complex = 4,  // Python complex: complex128
};
constexpr std::int64_t code_scalar = std::int64_t{1} << 40;  // | NumPy type number
constexpr std::int64_t code_array = std::int64_t{1} << 41;   // | type number << 16 | ndim << 8 | layout << 1 | writeable

struct native_entry {
  std::vector<std::int64_t> key;
  std::shared_ptr<compiled_kernel> k;
  std::vector<int> ret_typenums;
  int ret_kind = 0;
};

struct host_function_object {
  PyObject_HEAD
  std::vector<native_entry>* entries;
  PyObject* fallback;
  std::size_t last;
};

/// The code of one argument; false when the native path does not type it.
bool arg_code(PyObject* a, std::int64_t& code) {
  if (PyFloat_CheckExact(a)) return code = code_float, true;
  if (PyBool_Check(a)) return code = code_bool, true;
  if (PyLong_CheckExact(a)) return code = code_int, true;
  if (PyComplex_CheckExact(a)) return code = code_complex, true;
  if (PyArray_CheckExact(a)) {
    auto* arr = reinterpret_cast<PyArrayObject*>(a);
    const int flags = PyArray_FLAGS(arr);
    const std::int64_t layout = (flags & NPY_ARRAY_C_CONTIGUOUS) ? 0 : (flags & NPY_ARRAY_F_CONTIGUOUS) ? 1 : 2;
    if (PyArray_NDIM(arr) > 255) return false;
    code = code_array | (static_cast<std::int64_t>(PyArray_TYPE(arr)) << 16) |
           (static_cast<std::int64_t>(PyArray_NDIM(arr)) << 8) | (layout << 1) |
           ((flags & NPY_ARRAY_WRITEABLE) ? 1 : 0);
    return true;
  }
  if (PyArray_IsScalar(a, Generic)) {
    PyArray_Descr* d = PyArray_DescrFromScalar(a);
    if (d == nullptr) return PyErr_Clear(), false;
    const int tn = d->type_num;
    Py_DECREF(d);
    if (tn > NPY_CLONGDOUBLE || tn == NPY_LONGDOUBLE || tn == NPY_CLONGDOUBLE) return false;
    return code = code_scalar | tn, true;
  }
  return false;
}

/// Appends `a`'s slots; false (no Python error) when its value does not fit (an int past int64).
bool pack_arg(PyObject* a, std::int64_t code, std::uint64_t* slots, std::size_t& n) {
  if (code == code_float) {
    const double v = PyFloat_AS_DOUBLE(a);
    std::memcpy(&slots[n++], &v, 8);
    return true;
  }
  if (code == code_int) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(a, &overflow);
    if (overflow != 0 || (v == -1 && PyErr_Occurred())) return PyErr_Clear(), false;
    slots[n++] = static_cast<std::uint64_t>(v);
    return true;
  }
  if (code == code_bool) return slots[n++] = (a == Py_True) ? 1 : 0, true;
  if (code == code_complex) {
    const Py_complex c = PyComplex_AsCComplex(a);
    std::memcpy(&slots[n++], &c.real, 8);
    std::memcpy(&slots[n++], &c.imag, 8);
    return true;
  }
  if (code & code_array) {
    auto* arr = reinterpret_cast<PyArrayObject*>(a);
    const int nd = PyArray_NDIM(arr);
    slots[n++] = reinterpret_cast<std::uintptr_t>(PyArray_DATA(arr));
    for (int i = 0; i < nd; ++i) slots[n++] = static_cast<std::uint64_t>(PyArray_DIMS(arr)[i]);
    for (int i = 0; i < nd; ++i) slots[n++] = static_cast<std::uint64_t>(PyArray_STRIDES(arr)[i]);
    return true;
  }
  // a NumPy scalar: its bytes, low-order first; complex128 takes two slots
  alignas(16) unsigned char buf[16] = {};
  PyArray_ScalarAsCtype(a, buf);
  const int tn = static_cast<int>(code & 0xffff);
  std::uint64_t lo = 0, hi = 0;
  std::memcpy(&lo, buf, 8);
  slots[n++] = lo;
  if (tn == NPY_CDOUBLE) {
    std::memcpy(&hi, buf + 8, 8);
    slots[n++] = hi;
  } else {
    // keep only the scalar's own bytes (the rest of the slot is zero)
    PyArray_Descr* d = PyArray_DescrFromType(tn);
    const auto size = static_cast<std::size_t>(PyDataType_ELSIZE(d));
    Py_DECREF(d);
    if (size < 8) slots[n - 1] = lo & ((std::uint64_t{1} << (8 * size)) - 1);
  }
  return true;
}

PyObject* box(int typenum, const unsigned char* p) {
  switch (typenum) {
    case NPY_BOOL: return PyBool_FromLong(*p != 0);
    case NPY_BYTE: return PyLong_FromLong(*reinterpret_cast<const std::int8_t*>(p));
    case NPY_UBYTE: return PyLong_FromLong(*p);
    case NPY_SHORT: { std::int16_t v; std::memcpy(&v, p, 2); return PyLong_FromLong(v); }
    case NPY_USHORT: { std::uint16_t v; std::memcpy(&v, p, 2); return PyLong_FromLong(v); }
    case NPY_INT: { std::int32_t v; std::memcpy(&v, p, 4); return PyLong_FromLong(v); }
    case NPY_UINT: { std::uint32_t v; std::memcpy(&v, p, 4); return PyLong_FromUnsignedLong(v); }
    case NPY_LONG: case NPY_LONGLONG: { std::int64_t v; std::memcpy(&v, p, 8); return PyLong_FromLongLong(v); }
    case NPY_ULONG: case NPY_ULONGLONG: {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      return PyLong_FromUnsignedLongLong(v);
    }
    case NPY_FLOAT: { float v; std::memcpy(&v, p, 4); return PyFloat_FromDouble(v); }
    case NPY_DOUBLE: { double v; std::memcpy(&v, p, 8); return PyFloat_FromDouble(v); }
    case NPY_CFLOAT: { float v[2]; std::memcpy(v, p, 8); return PyComplex_FromDoubles(v[0], v[1]); }
    case NPY_CDOUBLE: { double v[2]; std::memcpy(v, p, 16); return PyComplex_FromDoubles(v[0], v[1]); }
    default: {  // (float16 and others) through NumPy's scalar
      PyArray_Descr* d = PyArray_DescrFromType(typenum);
      PyObject* sc = PyArray_Scalar(const_cast<unsigned char*>(p), d, nullptr);
      Py_DECREF(d);
      if (sc == nullptr) return nullptr;
      PyObject* item = PyObject_CallMethod(sc, "item", nullptr);
      Py_DECREF(sc);
      return item;
    }
  }
}

PyObject* call_entry(const native_entry& e, PyObject* args) {
  const Py_ssize_t nargs = PyTuple_GET_SIZE(args);
  const std::size_t total = e.k->layout().argument_slots;
  std::uint64_t local[64];
  std::vector<std::uint64_t> heap;
  std::uint64_t* slots = local;
  if (total > 64) {
    heap.resize(total);
    slots = heap.data();
  }
  std::size_t n = 0;
  for (Py_ssize_t i = 0; i < nargs; ++i)
    if (!pack_arg(PyTuple_GET_ITEM(args, i), e.key[static_cast<std::size_t>(i)], slots, n)) return nullptr;
  alignas(16) unsigned char results[16 * 16];
  const std::size_t nret = e.ret_typenums.size();
  if (nret > 16) return nullptr;
  for (std::size_t r = 0; r < nret; ++r) {
    slots[n++] = reinterpret_cast<std::uintptr_t>(results + 16 * r);
    slots[n++] = 1;
    slots[n++] = 16;  // (the stride of a one-element array is never used)
  }
  if (n != total) {
    PyErr_SetString(PyExc_RuntimeError, "cuforge.jit: an entry's slots do not match its arguments");
    return reinterpret_cast<PyObject*>(-1);
  }
  try {
    jit::call_on_host(*e.k, std::span<const std::uint64_t>(slots, n));
  } catch (...) {
    set_error_from(std::current_exception());
    return reinterpret_cast<PyObject*>(-1);
  }
  if (e.ret_kind == 0) Py_RETURN_NONE;
  if (e.ret_kind == 1) {
    PyObject* v = box(e.ret_typenums[0], results);
    return v != nullptr ? v : reinterpret_cast<PyObject*>(-1);
  }
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(nret));
  if (t == nullptr) return reinterpret_cast<PyObject*>(-1);
  for (std::size_t r = 0; r < nret; ++r) {
    PyObject* v = box(e.ret_typenums[r], results + 16 * r);
    if (v == nullptr) {
      Py_DECREF(t);
      return reinterpret_cast<PyObject*>(-1);
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(r), v);
  }
  return t;
}

PyObject* host_function_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  auto* f = reinterpret_cast<host_function_object*>(self);
  std::int64_t codes[16];
  const Py_ssize_t nargs = PyTuple_GET_SIZE(args);
  bool native = f->entries != nullptr && (kwargs == nullptr || PyDict_GET_SIZE(kwargs) == 0) && nargs <= 16;
  for (Py_ssize_t i = 0; native && i < nargs; ++i) native = arg_code(PyTuple_GET_ITEM(args, i), codes[i]);
  if (native) {
    auto matches = [&](const native_entry& e) {
      return e.key.size() == static_cast<std::size_t>(nargs) && std::equal(e.key.begin(), e.key.end(), codes);
    };
    const native_entry* hit = nullptr;
    if (f->last < f->entries->size() && matches((*f->entries)[f->last])) hit = &(*f->entries)[f->last];
    for (std::size_t i = 0; hit == nullptr && i < f->entries->size(); ++i)
      if (matches((*f->entries)[i])) hit = &(*f->entries)[f->last = i];
    if (hit != nullptr) {
      PyObject* r = call_entry(*hit, args);
      if (r == reinterpret_cast<PyObject*>(-1)) return nullptr;
      if (r != nullptr) return r;
      // a value that does not fit: the Python path raises what it should
    }
  }
  if (f->fallback == nullptr) {
    PyErr_SetString(PyExc_TypeError, "HostFunction: no fallback");
    return nullptr;
  }
  PyObject* kw = kwargs != nullptr ? kwargs : Py_None;
  PyObject* out = PyObject_CallFunctionObjArgs(f->fallback, args, kw, nullptr);
  if (out == nullptr) return nullptr;
  if (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != 2) {
    Py_DECREF(out);
    PyErr_SetString(PyExc_RuntimeError, "HostFunction: the fallback must return (result, info)");
    return nullptr;
  }
  PyObject* result = Py_NewRef(PyTuple_GET_ITEM(out, 0));
  PyObject* info = PyTuple_GET_ITEM(out, 1);
  if (native && info != Py_None && f->entries != nullptr) {
    try {
      auto t = py::reinterpret_borrow<py::tuple>(info);
      native_entry e;
      e.key.assign(codes, codes + nargs);
      e.k = t[0].cast<std::shared_ptr<compiled_kernel>>();
      e.ret_typenums = t[1].cast<std::vector<int>>();
      e.ret_kind = t[2].cast<int>();
      f->entries->push_back(std::move(e));
      f->last = f->entries->size() - 1;
    } catch (...) {
      Py_DECREF(out);
      Py_DECREF(result);
      set_error_from(std::current_exception());
      return nullptr;
    }
  }
  Py_DECREF(out);
  return result;
}

int host_function_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  auto* f = reinterpret_cast<host_function_object*>(self);
  static const char* names[] = {"fallback", nullptr};
  PyObject* fallback = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:HostFunction", const_cast<char**>(names), &fallback)) return -1;
  try {
    ensure_numpy_api();
  } catch (py::error_already_set& e) {
    e.restore();
    return -1;
  }
  Py_XSETREF(f->fallback, Py_NewRef(fallback));
  if (f->entries == nullptr) f->entries = new std::vector<native_entry>();
  f->last = 0;
  return 0;
}

int host_function_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(reinterpret_cast<host_function_object*>(self)->fallback);
  return 0;
}

int host_function_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<host_function_object*>(self)->fallback);
  return 0;
}

void host_function_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  host_function_clear(self);
  auto* f = reinterpret_cast<host_function_object*>(self);
  delete f->entries;
  f->entries = nullptr;
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* host_function_count(PyObject* self, PyObject*) {
  auto* f = reinterpret_cast<host_function_object*>(self);
  return PyLong_FromSize_t(f->entries ? f->entries->size() : 0);
}

PyMethodDef host_function_methods[] = {
    {"_native_entries", host_function_count, METH_NOARGS, "How many entries the native call path holds."},
    {nullptr, nullptr, 0, nullptr}};

py::object make_host_function_type() {
  static PyType_Slot slots[] = {
      {Py_tp_doc, const_cast<char*>("HostFunction(fallback): the host jit's native call path (a base class of "
                                    "cuforge's HostDispatcher).")},
      {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
      {Py_tp_init, reinterpret_cast<void*>(host_function_init)},
      {Py_tp_call, reinterpret_cast<void*>(host_function_call)},
      {Py_tp_traverse, reinterpret_cast<void*>(host_function_traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(host_function_clear)},
      {Py_tp_dealloc, reinterpret_cast<void*>(host_function_dealloc)},
      {Py_tp_methods, host_function_methods},
      {0, nullptr}};
  static PyType_Spec spec = {"cuforge._core.HostFunction", sizeof(host_function_object), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(type);
}

}  // namespace

void bind_ufunc(py::module_& m) {
  m.def("make_ufunc", &make_ufunc, py::arg("name"), py::arg("doc"), py::arg("nin"), py::arg("nout"), py::arg("loops"),
        py::arg("identity") = py::none(), py::arg("signature") = py::none(), py::arg("parallel") = false,
        "A NumPy ufunc (or, with a signature, a generalised ufunc) whose loops are compiled host code: "
        "loops is a list of (the type numbers of every argument, a CompiledFunction for the host target "
        "taking each argument as an array of its core dimensions plus one leading loop dimension).");
  m.def("call_on_host", [](compiled_kernel& k, std::vector<std::uint64_t> slots) {
    py::gil_scoped_release nogil;
    jit::call_on_host(k, slots);
  }, py::arg("compiled"), py::arg("slots"),
     "Runs a host-target specialisation once on this thread, its argument slots given (arrays as host "
     "addresses, extents and byte strides; scalars as their bits).");
  py::class_<frontend::host_allocations>(m, "HostAllocations",
                                         "Arrays host code allocated, kept alive for the arrays a host-jitted "
                                         "function returned (freed when this object is).")
      .def("holds", &frontend::host_allocations::holds, py::arg("address"), py::arg("nbytes"),
           "Whether [address, address + nbytes) lies inside one of the blocks.")
      .def_property_readonly("count", &frontend::host_allocations::count)
      .def_property_readonly("nbytes", &frontend::host_allocations::total_bytes);
  m.def("host_bytes_outstanding", &frontend::host_bytes_outstanding,
        "Bytes host code allocated and not yet freed (calls under way, returned arrays alive).");
  m.def("call_on_host_keeping", [](compiled_kernel& k, std::vector<std::uint64_t> slots) -> py::object {
    frontend::host_allocations kept;
    {
      py::gil_scoped_release nogil;
      kept = jit::call_on_host_keeping(k, slots);
    }
    if (kept.count() == 0) return py::none();
    return py::cast(std::move(kept));
  }, py::arg("compiled"), py::arg("slots"),
     "call_on_host, keeping the arrays the code allocated: a HostAllocations, or None when it made none.");
  m.def("call_on_host_parallel", [](compiled_kernel& k, std::vector<std::vector<std::uint64_t>> calls) {
    py::gil_scoped_release nogil;
    jit::host_parallel_for(calls.size(), [&](std::size_t i) { jit::call_on_host(k, calls[i]); });
  }, py::arg("compiled"), py::arg("calls"),
     "Runs a host-target specialisation once per slot list, the calls spread over the host workers.");
  m.def("host_workers", &jit::host_workers, "The host threads the 'parallel' target spreads work over.");
  m.attr("HostFunction") = make_host_function_type();
}

}  // namespace cuforge::python

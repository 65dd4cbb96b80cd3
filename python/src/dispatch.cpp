// Compiling and launching kernels from Python: the binding of the jit layer
// (jit/: compiled kernels, the dispatcher, the kernel ABI). What stays here
// is what only Python has: classifying Python arguments into the jit's
// kernel_argument records (our arrays read in place, NumPy arrays to copy,
// CAI and DLPack producers imported, numbers and tuples), converting Python
// numbers to a specialisation's types by NumPy's rules, the native Launcher
// type `kernel[grid, block]` returns, and the Python faces of
// CompiledFunction and Dispatcher.
#include "common.hpp"

#include <structmember.h>

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/compile_config.hpp>
#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/typer.hpp>
#include <cuforge/frontend/types.hpp>
#include <cuforge/jit/compiled_kernel.hpp>
#include <cuforge/jit/compiler.hpp>
#include <cuforge/jit/dispatcher.hpp>
#include <cuforge/jit/kernel_abi.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/launch.hpp>

#include <link.h>

#include <complex>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace cuforge::python {

using namespace cuforge::frontend;
using jit::compiled_kernel;
using jit::kernel_argument;

namespace {

// A Python object owned from C++ (a callback in a std::function): released
// with the GIL held, whichever thread drops it.
std::shared_ptr<py::object> hold(py::object o) {
  return std::shared_ptr<py::object>(new py::object(std::move(o)), [](py::object* p) {
    if (!Py_IsInitialized()) return;  // dropped after the interpreter: nothing left to release it to
    py::gil_scoped_acquire gil;
    delete p;
  });
}

// --- compiling ------------------------------------------------------------------

// Turns the compiler's typing_error into Python's TypingError (a TypeError
// defined by the package and registered here).
py::object& typing_error_class() {
  static py::object* cls = new py::object(py::reinterpret_borrow<py::object>(PyExc_TypeError));
  return *cls;
}

[[noreturn]] void raise_typing_error(const typing_error& e) {
  py::object exc = typing_error_class()(e.what());
  exc.attr("filename") = e.filename();
  exc.attr("lineno") = e.line();
  exc.attr("col") = e.column();
  exc.attr("source_line") = e.source_line();
  exc.attr("msg") = e.message();
  PyErr_SetObject(typing_error_class().ptr(), exc.ptr());
  throw py::error_already_set();
}

std::vector<const type*> parse_specs(const std::vector<std::string>& specs) {
  std::vector<const type*> out;
  for (const auto& s : specs) out.push_back(jit::parse_type(s));
  return out;
}

std::shared_ptr<compiled_kernel> compile(std::shared_ptr<function> fn, const std::vector<std::string>& specs,
                                         const compile_config& config, bool device, py::object ret_spec,
                                         std::vector<std::string> link, bool lto) {
  std::vector<const type*> args = parse_specs(specs);
  const type* ret = ret_spec.is_none() ? nullptr : jit::parse_type(py::str(ret_spec));
  try {
    return compiled_kernel::compile(std::move(fn), std::move(args), ret, config, device, std::move(link), lto);
  } catch (const typing_error& e) {
    raise_typing_error(e);
  }
}

// The disk cache's (kind, facts, code) for a specialisation, and back.
py::tuple cache_payload(compiled_kernel& k) {
  jit::cache_entry e = k.to_cache_entry();
  py::dict facts;
  facts["symbol"] = e.facts.symbol;
  facts["writes_arg"] = e.facts.writes_arg;
  facts["uses_barrier"] = e.facts.uses_barrier;
  facts["cooperative"] = e.facts.cooperative;
  py::list sites;
  for (const auto& r : e.facts.raise_sites)
    sites.append(py::make_tuple(static_cast<int>(r.code), r.exception, r.message, r.function, r.filename, r.line));
  facts["raise_sites"] = sites;
  facts["return_spec"] = e.facts.return_type->str();
  facts["types_dump"] = e.types_dump;
  if (e.k == jit::cache_entry::kind::ptx) return py::make_tuple("ptx", facts, py::bytes(e.code));
  facts["host_name"] = e.host_name;
  facts["host_block_name"] = e.host_block_name;
  facts["static_shared_bytes"] = e.static_shared_bytes;
  facts["slots"] = e.slots;
  py::list arrays;
  for (const auto& a : e.arrays)
    arrays.append(py::make_tuple(a.slot, a.ndim, static_cast<int>(a.how), a.itemsize, a.arg));
  facts["arrays"] = arrays;
  return py::make_tuple("host-object", facts, py::bytes(e.code));
}

// Anything malformed is a ValueError, which the cache counts as a miss.
std::shared_ptr<compiled_kernel> load_compiled(const std::string& kind, py::dict facts, py::bytes code,
                                               const std::vector<std::string>& specs, const compile_config& config,
                                               bool device) {
  if (device) throw py::value_error("device functions are not stored in the disk cache");
  jit::cache_entry e;
  std::vector<const type*> args;
  try {
    args = parse_specs(specs);
    e.facts.return_type = jit::parse_type(facts["return_spec"].cast<std::string>());
  } catch (const std::exception& ex) {
    throw py::value_error(std::string("a cache entry with an unreadable type: ") + ex.what());
  }
  try {
    e.facts.symbol = facts["symbol"].cast<std::string>();
    e.facts.writes_arg = facts["writes_arg"].cast<std::vector<bool>>();
    e.facts.uses_barrier = facts["uses_barrier"].cast<bool>();
    e.facts.cooperative = facts["cooperative"].cast<bool>();
    for (auto item : facts["raise_sites"].cast<py::list>()) {
      auto t = item.cast<py::tuple>();
      if (t.size() != 6) throw py::value_error("a cache entry with a malformed raise site");
      raise_site r;
      r.code = static_cast<kernel_error>(t[0].cast<int>());
      r.exception = t[1].cast<std::string>();
      r.message = t[2].cast<std::string>();
      r.function = t[3].cast<std::string>();
      r.filename = t[4].cast<std::string>();
      r.line = t[5].cast<std::int32_t>();
      e.facts.raise_sites.push_back(std::move(r));
    }
    e.types_dump = facts["types_dump"].cast<std::string>();
    e.code = code;
    if (kind == "ptx") {
      e.k = jit::cache_entry::kind::ptx;
    } else if (kind == "host-object") {
      e.k = jit::cache_entry::kind::host_object;
      e.host_name = facts["host_name"].cast<std::string>();
      e.host_block_name = facts["host_block_name"].cast<std::string>();
      e.static_shared_bytes = facts["static_shared_bytes"].cast<std::size_t>();
      e.slots = facts["slots"].cast<std::size_t>();
      for (auto item : facts["arrays"].cast<py::list>()) {
        auto t = item.cast<py::tuple>();
        const bool sized = t.size() == 5;
        const int how = sized ? t[2].cast<int>() : -1;
        const auto ndim = sized ? t[1].cast<unsigned>() : 0u;
        const auto itemsize = sized ? t[3].cast<std::uint32_t>() : 0u;
        if (how < 0 || how > static_cast<int>(cpu::array_param::use::float_sum) || ndim > 32 || itemsize == 0)
          throw py::value_error("a cache entry with a malformed array parameter");
        cpu::array_param a;
        a.slot = t[0].cast<std::uint32_t>();
        a.ndim = static_cast<std::uint8_t>(ndim);
        a.how = static_cast<cpu::array_param::use>(how);
        a.itemsize = itemsize;
        a.arg = t[4].cast<std::uint32_t>();
        if (a.slot + 1 + 2 * std::size_t{a.ndim} > e.slots)
          throw py::value_error("a cache entry whose array parameters do not fit its slots");
        e.arrays.push_back(a);
      }
    } else {
      throw py::value_error("unknown cache entry kind '" + kind + "'");
    }
  } catch (const py::cast_error& ex) {
    throw py::value_error(std::string("a cache entry with malformed facts: ") + ex.what());
  } catch (const py::error_already_set& ex) {
    if (!ex.matches(PyExc_KeyError)) throw;
    throw py::value_error(std::string("a cache entry without the fact ") + ex.what());
  }
  try {
    return compiled_kernel::from_cache(std::move(e), std::move(args), config);
  } catch (const logic_error& ex) {
    throw py::value_error(ex.what());
  }
}

// --- arguments ------------------------------------------------------------------

array_layout layout_of(bool c, bool f, int ndim) {
  if (c) return array_layout::c;
  if (f && ndim > 1) return array_layout::f;
  return array_layout::any;
}

// The launch path looks types up per argument; interning one builds a
// string key, so the common ones are kept here. Types are interned for the
// process (jit::types()), and every caller holds the GIL: the launch path's
// interning is serialised by it, and compiles take jit::compile_lock() too.
struct common_types {
  const type *boolean, *int64, *uint64, *float64, *complex128;
};
const common_types& common() {
  static const common_types c = [] {
    std::lock_guard lock(jit::compile_lock());
    auto& tc = jit::types();
    return common_types{tc.boolean(), tc.int64(), tc.uint64(), tc.float64(), tc.complex128()};
  }();
  return c;
}

// A record dtype's type, made once per layout (records are interned, so the layout's address is its identity).
const type* record_type_of(const dtype& d) {
  static auto* cache = new std::unordered_map<const record_layout*, const type*>;
  if (auto it = cache->find(d.record); it != cache->end()) return it->second;
  std::lock_guard lock(jit::compile_lock());
  const type* t = jit::element_type(jit::types(), d);
  cache->emplace(d.record, t);
  return t;
}

// A device array's type, cached by (dtype, ndim, layout, readonly).
const type* array_type_of(const device_ndarray& d) {
  int nd = static_cast<int>(d.ndim());
  array_layout layout = layout_of(d.is_c_contiguous(), d.is_f_contiguous(), nd);
  if (d.type().is_record()) {
    const type* r = record_type_of(d.type());
    std::lock_guard lock(jit::compile_lock());
    return jit::types().array(r, nd, layout, d.read_only());
  }
  std::uint64_t key = static_cast<std::uint64_t>(static_cast<unsigned char>(d.type().time)) << 56 |
                      static_cast<std::uint64_t>(d.type().unit) << 48 |
                      static_cast<std::uint64_t>(static_cast<unsigned char>(d.type().k)) << 40 |
                      static_cast<std::uint64_t>(d.type().itemsize) << 32 |
                      static_cast<std::uint64_t>(static_cast<unsigned char>(layout)) << 24 |
                      static_cast<std::uint64_t>(d.read_only()) << 16 | static_cast<std::uint64_t>(nd);
  static auto* cache = new std::unordered_map<std::uint64_t, const type*>;
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  std::lock_guard lock(jit::compile_lock());
  auto& tc = jit::types();
  const type* t = tc.array(jit::element_type(tc, d.type()), nd, layout, d.read_only());
  cache->emplace(key, t);
  return t;
}

const type* scalar_type(py::handle v) {
  const auto& c = common();
  if (PyBool_Check(v.ptr())) return c.boolean;
  if (PyLong_Check(v.ptr())) {
    int overflow = 0;
    PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (!overflow) return c.int64;
    PyLong_AsUnsignedLongLong(v.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error("integer argument " + std::string(py::str(v)) + " does not fit in 64 bits");
    }
    return c.uint64;
  }
  if (PyFloat_Check(v.ptr())) return c.float64;
  if (PyComplex_Check(v.ptr())) return c.complex128;
  // NumPy scalars: their own dtype.
  static py::object generic = py::module_::import("numpy").attr("generic");
  if (py::isinstance(v, generic)) {
    std::lock_guard lock(jit::compile_lock());
    if (auto* t = jit::types().from_typestr(py::str(v.attr("dtype").attr("str")))) return t;
  }
  return nullptr;
}

// Arguments of one launch as the jit takes them, and the Python objects the
// launch must keep alive beyond the argument tuple (NumPy views of other
// libraries' host tensors).
struct classified {
  std::vector<kernel_argument> args;
  std::vector<py::object> keep;
};

// Fills `a` (fresh) for the argument `v`. `launch`: the stream of the
// launch the argument is for (foreign arrays are ordered after their
// producer's stream on it); null for typing only.
// cuda.extending's converter of objects the launcher does not know (None until a class is registered).
py::object& argument_hook() {
  static py::object* hook = new py::object(py::none());
  return *hook;
}

void classify_into(kernel_argument& a, py::handle v, std::size_t index, std::vector<py::object>& keep,
                   const stream_view* launch = nullptr) {
  auto scalar = [&](const type* t) {
    a.k = kernel_argument::kind::scalar;
    a.ty = t;
    a.source = reinterpret_cast<std::uintptr_t>(v.ptr());  // borrowed: the argument tuple holds it
  };
  // Python's own numbers first: common, and no array protocol can apply to them.
  if (PyObject* o = v.ptr(); PyBool_Check(o) || PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyComplex_CheckExact(o)) {
    scalar(scalar_type(v));
    return;
  }
  if (is_devarray(v)) {
    a.k = kernel_argument::kind::device_array;
    a.borrowed = &v.cast<const py_devarray&>().a;
    a.ty = array_type_of(*a.borrowed);
    return;
  }
  if (auto d = device_array_of(v, true, launch)) {
    a.k = kernel_argument::kind::device_array;
    a.owned = std::move(*d);
    a.ty = array_type_of(a.owned);
    return;
  }
  if (py::isinstance<py::array>(v)) {
    py::array arr = py::reinterpret_borrow<py::array>(v);
    a.host = host_view_of(arr);  // refuses unsupported dtypes with a TypeError
    bool c = arr.flags() & py::array::c_style, f = arr.flags() & py::array::f_style;
    int nd = static_cast<int>(arr.ndim());
    const type* record = a.host.type.is_record() ? record_type_of(a.host.type) : nullptr;
    std::lock_guard lock(jit::compile_lock());
    auto& tc = jit::types();
    a.ty = tc.array(record != nullptr ? record : jit::element_type(tc, a.host.type), nd, layout_of(c, f, nd),
                    !arr.writeable());
    a.k = kernel_argument::kind::host_array;
    return;
  }
  // A single record: a DeviceRecord (the 0-d device array it wraps), or a NumPy
  // record (np.void), copied in and, when the kernel writes it, back into its bytes.
  if (PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(v.ptr())), "_cuforge_record")) {
    py::object inner = v.attr("_array");
    if (!is_devarray(inner)) throw py::type_error("kernel argument " + std::to_string(index) + ": a DeviceRecord without its device array");
    keep.push_back(inner);
    a.k = kernel_argument::kind::device_array;
    a.borrowed = &inner.cast<const py_devarray&>().a;
    if (a.borrowed->ndim() != 0 || !a.borrowed->type().is_record())
      throw py::type_error("kernel argument " + std::to_string(index) + ": a DeviceRecord must hold one record");
    a.ty = record_type_of(a.borrowed->type());
    return;
  }
  static py::object np_void = py::module_::import("numpy").attr("void");
  if (py::isinstance(v, np_void)) {
    static py::object asarray = py::module_::import("numpy").attr("asarray");
    py::array arr = asarray(v);  // a 0-d view of the record's bytes (writable when the record is an array's element)
    keep.push_back(arr);
    a.host = host_view_of(arr);
    if (!a.host.type.is_record())
      throw py::type_error("kernel argument " + std::to_string(index) + ": a NumPy void scalar without fields is not supported");
    a.k = kernel_argument::kind::host_array;
    if (!arr.writeable()) a.xfer = kernel_argument::transfer::to_device;
    a.ty = record_type_of(a.host.type);
    return;
  }
  // Host data from other libraries (a CPU torch tensor): imported through
  // from_dlpack's checks, viewed by NumPy, then transferred like any host array.
  if (py::hasattr(v, "__dlpack__") && py::hasattr(v, "__dlpack_device__")) {
    py::tuple dev = v.attr("__dlpack_device__")();
    if (dev[0].cast<int>() == 1) {
      keep.push_back(host_array_of_dlpack(v));
      classify_into(a, keep.back(), index, keep, launch);
      return;
    }
  }
  if (py::isinstance<py::tuple>(v)) {
    a.k = kernel_argument::kind::tuple;
    std::vector<const type*> ts;
    for (auto e : py::reinterpret_borrow<py::tuple>(v)) {
      classify_into(a.elements.emplace_back(), e, index, keep, launch);
      ts.push_back(a.elements.back().ty);
    }
    // A namedtuple keeps its class's name and fields (p.x in the kernel).
    std::vector<std::string> names;
    std::string cls;
    py::handle klass = py::type::of(v);
    if (PyObject_HasAttrString(klass.ptr(), "_fields")) {
      py::object fields = klass.attr("_fields");
      if (py::isinstance<py::tuple>(fields) && py::len(fields) == ts.size() && !ts.empty()) {
        for (auto f : fields) names.push_back(py::str(f));
        cls = py::str(klass.attr("__name__"));
      }
    }
    std::lock_guard lock(jit::compile_lock());
    a.ty = names.empty() ? jit::types().tuple(std::move(ts)) : jit::types().named_tuple(std::move(ts), cls, std::move(names));
    return;
  }
  if (const type* t = scalar_type(v)) {
    scalar(t);
    return;
  }
  // cuda.In / cuda.Out / cuda.InOut (cuforge/cuda/args.py): the array they
  // wrap, transferred the way they say.
  if (PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(v.ptr())), "_cuforge_transfer")) {
    const std::string way = py::str(v.attr("_cuforge_transfer"));
    classify_into(a, v.attr("value"), index, keep, launch);
    a.xfer = way == "in"    ? kernel_argument::transfer::to_device
             : way == "out" ? kernel_argument::transfer::from_device
                            : kernel_argument::transfer::both;
    return;
  }
  // A library's object registered to pass as a struct (cuda.extending.register_argument).
  if (py::object& hook = argument_hook(); !hook.is_none()) {
    py::object made = hook(v);
    if (!made.is_none()) {
      keep.push_back(made);
      classify_into(a, keep.back(), index, keep, launch);
      return;
    }
  }
  throw py::type_error("kernel argument " + std::to_string(index) + " (" +
                       std::string(py::str(py::type::of(v).attr("__name__"))) +
                       ") is not supported: pass NumPy or device arrays, numbers, or tuples of them");
}

// A Python (or NumPy) number as the value of scalar type `t`, converted as numba-cuda's launcher
// converts it (through ctypes): an integer keeps its low bits (2**31 + 5 as an int32 is
// -2147483643, 300 as an int8 is 44); a float is refused for an integer parameter.
jit::scalar_value to_scalar(py::handle v, const type* t) {
  jit::scalar_value s;
  s.ty = t;
  switch (t->kind) {
    case type_kind::boolean: s.i = py::cast<bool>(py::bool_(py::reinterpret_borrow<py::object>(v))) ? 1 : 0; return s;
    case type_kind::integer: {
      if (!PyLong_Check(v.ptr()) && (PyFloat_Check(v.ptr()) || !py::hasattr(v, "__index__")))
        throw py::type_error(std::string(py::repr(v)) + " (" + std::string(py::str(py::type::of(v).attr("__name__"))) +
                             ") cannot be passed as " + t->str() + ": the signature's parameter is an integer");
      py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
      if (!i) throw py::error_already_set();
      const unsigned long long low = PyLong_AsUnsignedLongLongMask(i.ptr());  // the value modulo 2**64
      if (low == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw py::error_already_set();
      const int bits = t->bits;
      std::uint64_t u = bits >= 64 ? low : low & ((1ULL << bits) - 1);
      if (t->is_signed && bits < 64 && (u >> (bits - 1)) != 0) u |= ~((1ULL << bits) - 1);  // sign-extend
      s.i = static_cast<std::int64_t>(u);
      return s;
    }
    case type_kind::floating:
      s.f = PyFloat_CheckExact(v.ptr()) ? PyFloat_AS_DOUBLE(v.ptr())
                                        : py::cast<double>(py::float_(py::reinterpret_borrow<py::object>(v)));
      return s;
    case type_kind::complex: {
      auto z = py::cast<std::complex<double>>(py::module_::import("builtins").attr("complex")(v));
      s.re = z.real();
      s.im = z.imag();
      return s;
    }
    case type_kind::datetime:
    case type_kind::timedelta: {  // np.datetime64 / np.timedelta64 of the parameter's unit: its int64 count
      static py::object numpy = py::module_::import("numpy");
      bool same = false;
      if (py::isinstance(v, numpy.attr("generic"))) {
        std::lock_guard lock(jit::compile_lock());
        same = jit::types().from_typestr(py::str(v.attr("dtype").attr("str"))) == t;
      }
      if (!same)
        throw py::type_error(std::string(py::repr(v)) + " cannot be passed as " + t->str() +
                             ": pass a NumPy " + t->str() + " scalar");
      static py::object int64 = numpy.attr("int64");
      s.i = py::cast<std::int64_t>(v.attr("view")(int64));
      return s;
    }
    default: throw py::type_error("cannot pass a " + t->str() + " as a scalar");
  }
}

// The scalars of `a` converted to the specialisation's types `as`.
void convert_scalars(kernel_argument& a, const type* as) {
  switch (a.k) {
    case kernel_argument::kind::scalar:
      a.scalar = to_scalar(py::handle(reinterpret_cast<PyObject*>(a.source)), as);
      return;
    case kernel_argument::kind::tuple:
      if (as->is_tuple() && as->elements.size() == a.elements.size())
        for (std::size_t i = 0; i < a.elements.size(); ++i) convert_scalars(a.elements[i], as->elements[i]);
      return;
    default: return;
  }
}

dim3 to_dim3(py::handle d, const char* what) {
  auto bad = [&] {
    return py::value_error(std::string(what) +
                           " must be a positive int (below 2**32) or a tuple of 1 to 3 of them, not " +
                           std::string(py::repr(d)));
  };
  if (PyLong_CheckExact(d.ptr())) {  // kernel[blocks, threads]: the common case, without a conversion
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(d.ptr(), &overflow);
    if (!overflow && n > 0 && n <= 0xffffffffLL) return dim3(static_cast<unsigned>(n), 1, 1);
  }
  unsigned v[3] = {1, 1, 1};
  auto one = [&](py::handle x) -> unsigned {
    if (PyBool_Check(x.ptr()) || !(PyLong_Check(x.ptr()) || py::hasattr(x, "__index__"))) throw bad();
    auto i = to_int64(x);
    if (!i || *i <= 0 || *i > 0xffffffffLL) throw bad();
    return static_cast<unsigned>(*i);
  };
  if (py::isinstance<py::tuple>(d) || py::isinstance<py::list>(d)) {
    auto seq = py::reinterpret_borrow<py::sequence>(d);
    if (py::len(seq) < 1 || py::len(seq) > 3) throw bad();
    for (std::size_t i = 0; i < py::len(seq); ++i) v[i] = one(seq[i]);
  } else {
    v[0] = one(d);
  }
  return dim3(v[0], v[1], v[2]);
}

// A launch's dynamic shared memory: an int number of bytes, not negative.
std::size_t to_shared_bytes(py::handle v) {
  if (PyLong_CheckExact(v.ptr())) {
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (!overflow && n >= 0) return static_cast<std::size_t>(n);
  }
  if (PyBool_Check(v.ptr()) || !(PyLong_Check(v.ptr()) || py::hasattr(v, "__index__")))
    throw py::type_error("the dynamic shared memory size must be an int (bytes), not " + std::string(py::repr(v)));
  auto i = to_int64(v);
  if (!i || *i < 0)
    throw py::value_error("the dynamic shared memory size must be a non-negative number of bytes, not " +
                          std::string(py::repr(v)));
  return static_cast<std::size_t>(*i);
}

// --- the dispatcher's Python face ------------------------------------------------

class py_dispatcher {
 public:
  // The callback compiles new argument types (it calls back into Python,
  // with the GIL held: find runs before the launch releases it).
  py_dispatcher(py::object compile_callback, std::string name)
      : d_(std::move(name), [cb = hold(std::move(compile_callback))](const std::vector<const type*>& types) {
          py::list specs;
          for (auto* t : types) specs.append(t->str());
          return (*cb)(specs).cast<std::shared_ptr<compiled_kernel>>();
        }) {}

  void add(std::shared_ptr<compiled_kernel> k) { d_.add(std::move(k)); }
  void set_lazy(bool lazy) { d_.set_lazy(lazy); }

  py::dict specializations() const {
    py::dict d;
    for (const auto& k : d_.specializations()) {
      py::tuple key(k->arg_types().size());
      for (std::size_t i = 0; i < k->arg_types().size(); ++i) key[i] = k->arg_types()[i]->str();
      d[key] = py::cast(k);
    }
    return d;
  }

  void launch(py::tuple pyargs, py::handle grid, py::handle block, py::handle stream, py::handle shared) {
    launch_config cfg;
    cfg.grid = to_dim3(grid, "the grid");
    cfg.block = to_dim3(block, "the block");
    cfg.stream = to_stream(stream);
    cfg.shared_bytes = to_shared_bytes(shared);
    classified c;
    std::shared_ptr<compiled_kernel> k = prepare(pyargs, cfg.stream, c);
    py::gil_scoped_release nogil;
    d_.launch(*k, c.args, cfg);
  }

  /// The specialisation a launch with these arguments runs (compiling it if need be), launching nothing.
  std::shared_ptr<compiled_kernel> find(py::tuple pyargs) {
    classified c;
    return prepare(pyargs, default_stream_view(), c);
  }

  double raw_launch_loop(py::tuple pyargs, py::handle grid, py::handle block, std::size_t n) {
    launch_config cfg;
    cfg.grid = to_dim3(grid, "the grid");
    cfg.block = to_dim3(block, "the block");
    cfg.stream = default_stream_view();
    classified c;
    std::shared_ptr<compiled_kernel> k = prepare(pyargs, cfg.stream, c);
    py::gil_scoped_release nogil;
    return d_.raw_launch_loop(*k, c.args, cfg, n);
  }

 private:
  // A launch's arguments classified (into `c`), its specialisation found (or
  // compiled), its scalars converted to that specialisation's types.
  std::shared_ptr<compiled_kernel> prepare(py::tuple pyargs, const stream_view& stream, classified& c) {
    c.args.reserve(pyargs.size());
    for (std::size_t i = 0; i < pyargs.size(); ++i) classify_into(c.args.emplace_back(), pyargs[i], i, c.keep, &stream);
    std::shared_ptr<compiled_kernel> k = d_.find(c.args);  // (of as many arguments as given)
    for (std::size_t i = 0; i < c.args.size(); ++i)
      if (c.args[i].k == kernel_argument::kind::scalar || c.args[i].k == kernel_argument::kind::tuple)
        convert_scalars(c.args[i], k->arg_types()[i]);
    return k;
  }

  jit::dispatcher d_;
};

// The GNU build id of the loaded object holding `address` (hex), read from
// its notes in memory; "" when it has none. Part of the disk cache's key: a
// rebuilt library is a different compiler. (Not dladdr: it scans the
// symbol table, which is large in libcuforge.)
std::string build_id_of(const void* address) {
  struct search {
    std::uintptr_t address;
    std::string id;
  } s{reinterpret_cast<std::uintptr_t>(address), {}};
  dl_iterate_phdr(
      [](dl_phdr_info* i, std::size_t, void* data) {
        auto* s = static_cast<search*>(data);
        bool mine = false;
        for (int p = 0; p < i->dlpi_phnum && !mine; ++p) {
          const auto& ph = i->dlpi_phdr[p];
          std::uintptr_t start = i->dlpi_addr + ph.p_vaddr;
          mine = ph.p_type == PT_LOAD && s->address >= start && s->address < start + ph.p_memsz;
        }
        if (!mine) return 0;
        for (int p = 0; p < i->dlpi_phnum; ++p) {
          if (i->dlpi_phdr[p].p_type != PT_NOTE) continue;
          auto* at = reinterpret_cast<const unsigned char*>(i->dlpi_addr + i->dlpi_phdr[p].p_vaddr);
          const unsigned char* end = at + i->dlpi_phdr[p].p_memsz;
          while (at + sizeof(ElfW(Nhdr)) <= end) {
            auto* n = reinterpret_cast<const ElfW(Nhdr)*>(at);
            const unsigned char* name = at + sizeof(ElfW(Nhdr));
            const unsigned char* desc = name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0 &&
                desc + n->n_descsz <= end) {
              static constexpr char hex[] = "0123456789abcdef";
              for (std::size_t k = 0; k < n->n_descsz; ++k) {
                s->id += hex[desc[k] >> 4];
                s->id += hex[desc[k] & 15];
              }
              return 1;
            }
            at = desc + ((n->n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &s);
  return s.id;
}

}  // namespace

// --- configured launches ---------------------------------------------------------

namespace {

// `kernel[grid, block, stream, shared]`: a Python type of its own whose call
// goes straight to py_dispatcher::launch, without a Python frame or pybind11's
// argument matching (together about as much as the rest of a launch's
// host-side work). _jit._LaunchConfiguration derives from it.
struct launcher_object {
  PyObject_HEAD
  PyObject* native;  // the dispatcher's Python object: keeps `d` alive
  py_dispatcher* d;
  PyObject* grid;
  PyObject* block;
  PyObject* stream;
  PyObject* shared;
};

int launcher_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  auto* l = reinterpret_cast<launcher_object*>(self);
  static const char* names[] = {"native", "grid", "block", "stream", "shared_bytes", nullptr};
  PyObject *native = nullptr, *grid = nullptr, *block = nullptr, *stream = nullptr, *shared = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OO:Launcher", const_cast<char**>(names), &native, &grid,
                                   &block, &stream, &shared))
    return -1;
  py_dispatcher* d = nullptr;
  try {
    d = py::cast<py_dispatcher*>(py::handle(native));
  } catch (...) {
    PyErr_SetString(PyExc_TypeError, "Launcher: the first argument must be a native Dispatcher");
    return -1;
  }
  if (!stream) stream = Py_None;
  static PyObject* const zero = PyLong_FromLong(0);
  if (!shared) shared = zero;
  PyObject* fresh[] = {native, grid, block, stream, shared};
  PyObject** slots[] = {&l->native, &l->grid, &l->block, &l->stream, &l->shared};
  for (int i = 0; i < 5; ++i) Py_XSETREF(*slots[i], Py_NewRef(fresh[i]));
  l->d = d;
  return 0;
}

PyObject* launcher_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  auto* l = reinterpret_cast<launcher_object*>(self);
  if (kwargs && PyDict_GET_SIZE(kwargs) != 0) {
    PyErr_SetString(PyExc_TypeError, "kernel arguments are positional: kernel[grid, block](a, b, ...)");
    return nullptr;
  }
  if (!l->d) {
    PyErr_SetString(PyExc_RuntimeError, "this Launcher was not initialised");
    return nullptr;
  }
  try {
    l->d->launch(py::reinterpret_borrow<py::tuple>(args), l->grid, l->block, l->stream, l->shared);
  } catch (...) {
    set_error_from(std::current_exception());
    return nullptr;
  }
  Py_RETURN_NONE;
}

int launcher_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* l = reinterpret_cast<launcher_object*>(self);
  Py_VISIT(Py_TYPE(self));  // a heap type's instances own a reference to it
  Py_VISIT(l->native);
  Py_VISIT(l->grid);
  Py_VISIT(l->block);
  Py_VISIT(l->stream);
  Py_VISIT(l->shared);
  return 0;
}

int launcher_clear(PyObject* self) {
  auto* l = reinterpret_cast<launcher_object*>(self);
  l->d = nullptr;
  Py_CLEAR(l->native);
  Py_CLEAR(l->grid);
  Py_CLEAR(l->block);
  Py_CLEAR(l->stream);
  Py_CLEAR(l->shared);
  return 0;
}

void launcher_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  launcher_clear(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyMemberDef launcher_members[] = {
    {"_native", T_OBJECT, offsetof(launcher_object, native), READONLY, "The native Dispatcher launched."},
    {"_griddim", T_OBJECT, offsetof(launcher_object, grid), READONLY, "The grid as given."},
    {"_blockdim", T_OBJECT, offsetof(launcher_object, block), READONLY, "The block as given."},
    {"_stream", T_OBJECT, offsetof(launcher_object, stream), READONLY, "The stream as given."},
    {"_sharedmem", T_OBJECT, offsetof(launcher_object, shared), READONLY, "Dynamic shared memory bytes."},
    {nullptr, 0, 0, 0, nullptr}};

py::object make_launcher_type() {
  static PyType_Slot slots[] = {
      {Py_tp_doc, const_cast<char*>("Launcher(native, grid, block, stream=None, shared_bytes=0): calling it "
                                    "launches the native Dispatcher's kernel with these arguments.")},
      {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
      {Py_tp_init, reinterpret_cast<void*>(launcher_init)},
      {Py_tp_call, reinterpret_cast<void*>(launcher_call)},
      {Py_tp_traverse, reinterpret_cast<void*>(launcher_traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(launcher_clear)},
      {Py_tp_dealloc, reinterpret_cast<void*>(launcher_dealloc)},
      {Py_tp_members, launcher_members},
      {0, nullptr}};
  static PyType_Spec spec = {"cuforge._core.Launcher", sizeof(launcher_object), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(type);
}

}  // namespace

void bind_dispatch(py::module_& m) {
  py::class_<compiled_kernel, std::shared_ptr<compiled_kernel>>(m, "CompiledFunction",
                                                               "One specialisation of a jitted function.")
      .def_property_readonly("ptx", [](compiled_kernel& k) { return k.ptx(); })
      .def("ltoir", [](compiled_kernel& k, bool forceinline) {
        std::string c;
        {
          py::gil_scoped_release nogil;
          c = k.ltoir(forceinline);
        }
        return py::bytes(c);
      }, py::arg("forceinline") = false,
         "Its LTO-IR: written as NVVM IR and compiled by libNVVM (-gen-lto), for nvJitLink's link-time optimisation.")
      .def("nvvm_ir", [](compiled_kernel& k, bool forceinline) {
        py::gil_scoped_release nogil;
        return k.nvvm_ir(forceinline);
      }, py::arg("forceinline") = false, "The NVVM IR text (LLVM 7's dialect) that ltoir() gives libNVVM.")
      .def_property_readonly("link", [](compiled_kernel& k) { return k.link_inputs(); },
                             "The files its code links (declared functions' and the kernel's), each once.")
      .def_property_readonly("uses_overloads", [](compiled_kernel& k) { return k.uses_overloads(); },
                             "Whether overloads a library registered (cuda.extending) gave part of its code.")
      .def("linked_cubin", [](compiled_kernel& k) {
        std::string c;
        {
          py::gil_scoped_release nogil;
          c = k.linked_cubin();
        }
        return py::bytes(c);
      }, "Its PTX linked with its files by nvJitLink (NVRTC compiling sources): the cubin a GPU loads.")
      .def_property_readonly("llvm", [](compiled_kernel& k) {
        // A device function's IR is its GPU IR: it never runs on its own.
        return k.llvm_ir(k.is_device() ? target_kind::nvptx : k.config().target);
      })
      .def_property_readonly("llvm_gpu", [](compiled_kernel& k) { return k.llvm_ir(target_kind::nvptx); })
      .def_property_readonly("config", [](const compiled_kernel& k) { return k.config(); },
                             "The CompileConfig it was compiled with.")
      .def_property_readonly("types_dump", [](compiled_kernel& k) { return k.types_dump(); })
      .def_property_readonly("return_spec", [](const compiled_kernel& k) { return k.facts().return_type->str(); })
      .def_property_readonly("arg_specs", [](const compiled_kernel& k) {
        py::list l;
        for (auto* t : k.arg_types()) l.append(t->str());
        return l;
      })
      .def_property_readonly("symbol", [](const compiled_kernel& k) { return k.facts().symbol; })
      .def_property_readonly("writes_arg", [](const compiled_kernel& k) { return k.facts().writes_arg; })
      .def_property_readonly("uses_barrier", [](const compiled_kernel& k) { return k.facts().uses_barrier; })
      .def_property_readonly(
          "block_entry",
          [](compiled_kernel& k) {
            if (k.config().target != frontend::target_kind::host || k.is_device()) return false;
            py::gil_scoped_release unlocked;
            return k.host_code().block_fn != nullptr;
          },
          "Whether the host code runs a whole block in one call (a vectorisable thread loop).")
      .def_property_readonly(
          "private_sums",
          [](compiled_kernel& k) {
            py::list args;
            if (k.config().target != frontend::target_kind::host || k.is_device()) return args;
            std::vector<cpu::array_param> arrays;
            {
              py::gil_scoped_release unlocked;
              arrays = k.host_code().arrays;
            }
            for (const auto& a : arrays)
              if (a.how != cpu::array_param::use::other) args.append(a.arg);
            return args;
          },
          "The arguments the cpu backend's workers may add into private copies of (arrays the kernel only "
          "adds into with atomics whose results it ignores: docs/cpu_execution.md, \"Private sums\").")
      .def_property_readonly("cooperative", [](const compiled_kernel& k) { return k.facts().cooperative; },
                             "Whether it syncs the whole grid (cuda.cg): its launches are cooperative.")
      .def_property_readonly("may_raise", [](const compiled_kernel& k) { return k.facts().may_raise(); },
                             "Whether it may write its launch's error record (raise, assert under debug=True).")
      .def_property_readonly("from_cache", &compiled_kernel::from_disk_cache,
                             "Whether it was loaded from the disk cache (its typed IR is remade on demand).")
      .def("cache_payload", &cache_payload,
           "(kind, facts, code) the disk cache stores for the active backend: PTX on a GPU, an object file "
           "on the cpu backend.")
      .def("_set_rebuild", [](compiled_kernel& k, py::object f) {
        k.set_rebuild([cb = hold(std::move(f))]() {
          py::gil_scoped_acquire gil;
          return (*cb)().cast<std::shared_ptr<compiled_kernel>>();
        });
      }, "The callable remaking a cached specialisation's typed IR (for .ptx and .llvm).")
      .def("attributes", [](compiled_kernel& k) {
        if (k.is_device()) throw py::type_error("a device function has no kernel attributes: it is not a kernel");
        const kernel_attributes a = k.load(device::current().ordinal()).k->attributes();
        py::dict d;
        d["max_threads_per_block"] = a.max_threads_per_block;
        d["num_registers"] = a.num_registers;
        d["static_shared_bytes"] = a.static_shared_bytes;
        d["local_bytes"] = a.local_bytes;
        d["const_bytes"] = a.const_bytes;
        return d;
      }, "Its kernel's attributes on the current device (loading it there): registers per thread, static "
         "shared, local and constant bytes, the most threads a block may have.")
      .def("max_cooperative_grid_blocks", [](compiled_kernel& k, py::handle blockdim, std::size_t dynsmemsize) {
        if (k.is_device()) throw py::type_error("a device function cannot be launched");
        const dim3 b = to_dim3(blockdim, "blockdim");
        return max_cooperative_blocks(*k.load(device::current().ordinal()).k, b, dynsmemsize);
      }, py::arg("blockdim"), py::arg("dynsmemsize") = 0,
         "The most blocks of `blockdim` threads (with `dynsmemsize` bytes of dynamic shared memory) a "
         "cooperative launch may have on the current device (numba-cuda's).")
      .def("max_potential_block_size", [](compiled_kernel& k, std::size_t dynsmemsize) {
        if (k.is_device()) throw py::type_error("a device function cannot be launched");
        return max_potential_block_size(*k.load(device::current().ordinal()).k, dynsmemsize);
      }, py::arg("dynsmemsize") = 0,
         "The block size (threads) giving its kernel the most resident threads on the current device, the "
         "largest such (cuOccupancyMaxPotentialBlockSize's answer), with `dynsmemsize` bytes of dynamic "
         "shared memory per block.")
      .def("load_host", [](compiled_kernel& k) { k.host_code(); },
           "Compiles (or links, from the disk cache) its host code: host-only code, called on the host.")
      .def("load", [](compiled_kernel& k) { k.load(device::current().ordinal()); },
           "Compiles and loads the kernel for the active backend on the current device.");

  m.def("compile", &compile, py::arg("function_ir"), py::arg("arg_specs"), py::arg("config"),
        py::arg("device") = false, py::arg("return_spec") = py::none(),
        py::arg("link") = std::vector<std::string>{}, py::arg("lto") = false,
        "Types and prepares one specialisation (codegen runs on demand); return_spec fixes a device "
        "function's return type; link names files its code is linked with (cuda.jit(link=...)), lto "
        "links them with nvJitLink's link-time optimisation.");
  m.def("load_compiled", &load_compiled, py::arg("kind"), py::arg("facts"), py::arg("code"), py::arg("arg_specs"),
        py::arg("config"), py::arg("device") = false,
        "A specialisation from what CompiledFunction.cache_payload gave; ValueError when malformed.");
  m.def("build_id", [] {
    static const std::string id = build_id_of(reinterpret_cast<const void*>(&frontend::compile_host_object)) + " " +
                                  build_id_of(reinterpret_cast<const void*>(&build_id_of));
    return id;
  }, "The GNU build ids of libcuforge and of this module (part of the disk cache's key).");
  m.def("host_target_id", [] { return host_target_id(); },
        "The triple, CPU and CPU features host code is compiled for (part of the disk cache's key).");
  m.def("set_typing_error_class", [](py::object cls) { typing_error_class() = std::move(cls); });
  m.def("set_argument_hook", [](py::object hook) { argument_hook() = std::move(hook); }, py::arg("hook"),
        "The launcher's converter of arguments it does not know (cuda.extending.register_argument): "
        "hook(value) gives what to pass instead, or None.");
  m.def("compatible", [](const std::string& have, const std::string& want) {
    return jit::compatible(jit::parse_type(have), jit::parse_type(want));
  }, py::arg("have"), py::arg("want"),
     "Whether an argument of type spec `have` may be passed where `want` is declared (the eager "
     "signatures' rule, jit::compatible).");
  m.def("typeof", [](py::handle v) {
    std::vector<py::object> keep;
    kernel_argument a;
    classify_into(a, v, 0, keep);
    return a.ty->str();
  }, "The compiler's type of a kernel argument, as a type spec.");

  py::class_<py_dispatcher>(m, "Dispatcher", "The launch path of a jitted kernel (jit::dispatcher).")
      .def(py::init<py::object, std::string>(), py::arg("compile_callback"), py::arg("name"))
      .def("add", &py_dispatcher::add)
      .def("set_lazy", &py_dispatcher::set_lazy)
      .def("find", &py_dispatcher::find, py::arg("args"),
           "The specialisation a launch with these arguments runs (compiled if need be); nothing is launched.")
      .def_property_readonly("specializations", &py_dispatcher::specializations)
      .def("launch", &py_dispatcher::launch, py::arg("args"), py::arg("grid"), py::arg("block"), py::arg("stream") = 0,
           py::arg("shared_bytes") = 0)
      .def("_raw_launch_loop", &py_dispatcher::raw_launch_loop, py::arg("args"), py::arg("grid"), py::arg("block"),
           py::arg("n"), "bench/launch's baseline: n raw backend launches from C++ (seconds).");
  m.attr("Launcher") = make_launcher_type();
}

}  // namespace cuforge::python

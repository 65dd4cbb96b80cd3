// Compiling and launching kernels from Python: _core.compile (the typer and
// codegen for one specialisation) and _core.Dispatcher (the launch path:
// classify the arguments, find or make the specialisation, pack the
// parameter slots, launch, copy NumPy arguments back). The launch path is
// the one users feel, so it is all here, in C++, without Python in the
// loop once a specialisation exists.
#include "common.hpp"

#include <structmember.h>

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/compile_config.hpp>
#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/typer.hpp>
#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/module.hpp>

#include <link.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace cuforge::python {

using namespace cuforge::frontend;

namespace {

// One type context for the process: types are interned for good, so type
// pointers can key caches. Compilation holds this lock (LLVM and the typer
// are not re-entrant on shared state).
std::mutex& compile_lock() {
  static auto* m = new std::mutex;
  return *m;
}
type_context& types() {
  static auto* tc = new type_context;
  return *tc;
}

// --- compiled functions ---------------------------------------------------------

struct compiled_function {
  typed_module module;  // empty for one loaded from the disk cache (until rebuilt)
  compile_config config;  // the target is the active backend's (nvptx for device functions)
  bool device = false;
  std::vector<const type*> arg_types;

  // The entry's facts the launcher and the inspectors read: from the typed
  // module, or from a disk-cache entry.
  std::string symbol;
  std::vector<bool> writes_arg;
  bool uses_barrier = false;
  const type* return_type = nullptr;
  std::optional<std::string> types_dump;

  // A disk-cache entry's code for the cpu backend, linked on first load.
  std::optional<host_object> host_obj;
  // Remakes the typed module (a Python callable returning a compiled
  // function) for what a cache entry does not hold: PTX or LLVM IR of a
  // kernel loaded as host code.
  py::object rebuild = py::none();

  // Made on demand (the cpu backend never needs PTX, a GPU never needs
  // host code), under compile_lock().
  std::optional<std::string> ptx, llvm_gpu, llvm_host;
  std::optional<host_kernel> host;
  struct loaded {
    std::uint64_t generation = 0;
    std::optional<kernel> k;
    std::size_t static_shared = 0;    // bytes of its cuda.shared.array(n > 0) arrays
    std::size_t dynamic_allowed = 0;  // dynamic shared bytes a launch may ask for without opting in
  };
  std::vector<loaded> per_device;

  const typed_function& entry() const { return module.functions.front(); }

  void set_entry_facts() {
    const auto& e = entry();
    symbol = e.symbol;
    writes_arg = e.writes_arg;
    uses_barrier = e.uses_barrier;
    return_type = e.return_type;
  }

  // The typed module, remade when this came from the disk cache. Call with
  // the GIL and without compile_lock() (rebuilding compiles).
  void ensure_module() {
    if (!module.functions.empty()) return;
    if (rebuild.is_none())
      throw std::runtime_error("this specialisation was loaded from the disk cache without its typed IR");
    auto fresh = rebuild().cast<std::shared_ptr<compiled_function>>();
    if (fresh->module.functions.empty()) throw std::runtime_error("rebuilding a cached specialisation failed");
    module = fresh->module;
  }

  // PTX whatever the backend (inspect_asm() on the cpu backend shows it too).
  const std::string& get_ptx() {
    if (!ptx) ensure_module();
    std::lock_guard lock(compile_lock());
    if (!ptx) ptx = frontend::compile_ptx(module, config.with_target(target_kind::nvptx)).ptx;
    return *ptx;
  }

  // The kernel for the active backend on `dev`, loaded once per context.
  const kernel& kernel_for(int dev) {
    if (per_device.size() > static_cast<std::size_t>(dev) && per_device[dev].k &&
        per_device[dev].generation == context_generation())
      return *per_device[dev].k;
    module_image image = [&] {
      if (config.target == target_kind::nvptx) return module_image::from_ptx(get_ptx());
      std::lock_guard lock(compile_lock());
      if (!host) host = host_obj ? load_host_object(*host_obj) : compile_host(module, config);
      cpu_kernel_symbol sym;
      sym.name = host->name;
      sym.fn = host->fn;
      sym.static_shared_bytes = host->static_shared_bytes;
      sym.uses_barrier = host->uses_barrier;
      sym.param_sizes = host->param_sizes;
      return module_image::from_host({sym});
    }();
    module_options mo;
    mo.max_registers = config.max_registers;
    mo.generate_line_info = config.line_tables();
    auto mod = module::load(image, mo, dev);
    if (per_device.size() <= static_cast<std::size_t>(dev)) per_device.resize(dev + 1);
    per_device[dev].k = mod.get_kernel(config.target == target_kind::nvptx ? symbol : host->name);
    auto attrs = per_device[dev].k->attributes();
    per_device[dev].static_shared = attrs.static_shared_bytes;
    per_device[dev].dynamic_allowed = static_cast<std::size_t>(std::max(attrs.max_dynamic_shared_bytes, 0));
    per_device[dev].generation = context_generation();
    return *per_device[dev].k;
  }

  // kernel_for's kernel with its shared memory facts.
  loaded& loaded_on(int dev) {
    kernel_for(dev);
    return per_device[dev];
  }

  // What the disk cache stores for the active backend: (kind, facts, code).
  // On the cpu backend the object file is also what this process runs from
  // now on (linking it is cheaper than a second codegen).
  py::tuple cache_payload() {
    if (device) throw py::type_error("device functions are not stored in the disk cache");
    py::dict facts;
    facts["symbol"] = symbol;
    facts["writes_arg"] = writes_arg;
    facts["uses_barrier"] = uses_barrier;
    facts["return_spec"] = return_type->str();
    facts["types_dump"] = get_types_dump();
    if (config.target == target_kind::nvptx) return py::make_tuple("ptx", facts, py::bytes(get_ptx()));
    ensure_module();
    std::lock_guard lock(compile_lock());
    if (!host_obj) host_obj = compile_host_object(module, config);
    if (!host) host = load_host_object(*host_obj);
    facts["host_name"] = host_obj->name;
    facts["static_shared_bytes"] = host_obj->static_shared_bytes;
    facts["slots"] = host_obj->slots;
    return py::make_tuple("host-object", facts, py::bytes(host_obj->object));
  }

  const std::string& get_types_dump() {
    if (!types_dump) {
      std::string s;
      for (const auto& f : module.functions) s += f.ir->dump();
      types_dump = std::move(s);
    }
    return *types_dump;
  }
};

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

std::shared_ptr<compiled_function> compile(std::shared_ptr<function> fn, const std::vector<std::string>& specs,
                                           const compile_config& config, bool device, py::object ret_spec) {
  config.validate();
  auto cf = std::make_shared<compiled_function>();
  typer_options topts;
  topts.debug = config.debug();
  cf->config = config;
  cf->device = device;
  try {
    std::lock_guard lock(compile_lock());
    signature sig;
    for (const auto& s : specs) sig.args.push_back(parse_type(types(), s));
    if (!ret_spec.is_none()) sig.ret = parse_type(types(), py::str(ret_spec));
    cf->arg_types = sig.args;
    cf->module = infer(types(), fn, sig, !device, topts);
  } catch (const typing_error& e) {
    raise_typing_error(e);
  }
  cf->set_entry_facts();
  return cf;
}

// A specialisation from a disk-cache entry (what cache_payload gave):
// checked as far as it can be without running it; anything malformed is a
// ValueError, which the cache treats as a miss.
std::shared_ptr<compiled_function> load_compiled(const std::string& kind, py::dict facts, py::bytes code,
                                                 const std::vector<std::string>& specs, const compile_config& config,
                                                 bool device) {
  if (device) throw py::value_error("device functions are not stored in the disk cache");
  auto cf = std::make_shared<compiled_function>();
  cf->config = config;
  try {
    std::lock_guard lock(compile_lock());
    for (const auto& s : specs) cf->arg_types.push_back(parse_type(types(), s));
    cf->return_type = parse_type(types(), facts["return_spec"].cast<std::string>());
  } catch (const std::exception& e) {
    throw py::value_error(std::string("a cache entry with an unreadable type: ") + e.what());
  }
  try {
    cf->symbol = facts["symbol"].cast<std::string>();
    cf->writes_arg = facts["writes_arg"].cast<std::vector<bool>>();
    cf->uses_barrier = facts["uses_barrier"].cast<bool>();
    cf->types_dump = facts["types_dump"].cast<std::string>();
    std::string bytes = code;
    if (kind == "ptx") {
      if (bytes.empty()) throw py::value_error("empty PTX");
      cf->ptx = std::move(bytes);
    } else if (kind == "host-object") {
      host_object o;
      o.name = facts["host_name"].cast<std::string>();
      o.static_shared_bytes = facts["static_shared_bytes"].cast<std::size_t>();
      o.slots = facts["slots"].cast<std::size_t>();
      o.uses_barrier = cf->uses_barrier;
      o.object = std::move(bytes);
      std::size_t slots = 0;
      for (auto* t : cf->arg_types) slots += slot_count(t);
      if (o.object.empty() || o.slots != slots || o.name.empty())
        throw py::value_error("a host object that does not match its argument types");
      cf->host_obj = std::move(o);
    } else {
      throw py::value_error("unknown cache entry kind '" + kind + "'");
    }
  } catch (const py::cast_error& e) {
    throw py::value_error(std::string("a cache entry with malformed facts: ") + e.what());
  }
  if (cf->writes_arg.size() != cf->arg_types.size())
    throw py::value_error("a cache entry whose facts do not match its argument types");
  return cf;
}

// --- arguments ------------------------------------------------------------------

// How one argument reaches the kernel.
struct argument {
  const type* ty = nullptr;
  enum class how { device, host_array, scalar, tuple } h = how::scalar;
  device_ndarray dev;      // device (or the device copy of a host array)
  // Our own DeviceNDArray, read in place (the argument tuple keeps it alive
  // and its array never changes): no copy of its shape and strides.
  const device_ndarray* borrowed = nullptr;
  py::object host;         // host_array: the NumPy array to copy in (and back); not a py::array,
                           // whose default constructor makes a NumPy array per argument
  py::handle value;        // scalar
  std::vector<argument> elements;  // tuple

  const device_ndarray& array() const { return borrowed ? *borrowed : dev; }
  host_view host_data() const { return host_view_of(py::reinterpret_borrow<py::array>(host)); }
};

array_layout layout_of(bool c, bool f, int ndim) {
  if (c) return array_layout::c;
  if (f && ndim > 1) return array_layout::f;
  return array_layout::any;
}

// NumPy's type string of a scalar type ("<f4").
std::string typestr_of(const type* t) {
  if (const scalar_type_info* s = t->scalar()) return std::string(s->typestr());
  throw py::type_error(t->str() + " is not a scalar type");
}

// The launch path looks types up per argument; interning one builds a
// string key, so the common ones are kept here. Types are interned for the
// process, and every caller holds the GIL.
struct common_types {
  const type *boolean, *int64, *uint64, *float64, *complex128;
};
const common_types& common() {
  static const common_types c = [] {
    auto& tc = types();
    return common_types{tc.boolean(), tc.int64(), tc.uint64(), tc.float64(), tc.complex128()};
  }();
  return c;
}

// A device array's type, cached by (dtype, ndim, layout, readonly).
const type* array_type_of(const device_ndarray& d) {
  int nd = static_cast<int>(d.ndim());
  array_layout layout = layout_of(d.is_c_contiguous(), d.is_f_contiguous(), nd);
  std::uint64_t key = static_cast<std::uint64_t>(static_cast<unsigned char>(d.type().k)) << 40 |
                      static_cast<std::uint64_t>(d.type().itemsize) << 32 |
                      static_cast<std::uint64_t>(static_cast<unsigned char>(layout)) << 24 |
                      static_cast<std::uint64_t>(d.read_only()) << 16 | static_cast<std::uint64_t>(nd);
  static auto* cache = new std::unordered_map<std::uint64_t, const type*>;
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  auto& tc = types();
  const type* t = tc.array(tc.scalar(d.type().scalar()), nd, layout, d.read_only());
  cache->emplace(key, t);
  return t;
}

const type* scalar_type(py::handle v) {
  const auto& c = common();
  auto& tc = types();
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
    if (auto* t = tc.from_typestr(py::str(v.attr("dtype").attr("str")))) return t;
  }
  return nullptr;
}

// `launch`: the stream of the launch the argument is for (foreign arrays
// are ordered after their producer's stream on it); null for typing only.
argument classify(py::handle v, std::size_t index, const stream_view* launch = nullptr) {
  auto& tc = types();
  argument a;
  if (is_devarray(v)) {
    a.h = argument::how::device;
    a.borrowed = &v.cast<const py_devarray&>().a;
    a.ty = array_type_of(*a.borrowed);
    return a;
  }
  if (auto d = device_array_of(v, true, launch)) {
    a.h = argument::how::device;
    a.dev = std::move(*d);
    a.ty = array_type_of(a.dev);
    return a;
  }
  if (py::isinstance<py::array>(v)) {
    py::array arr = py::reinterpret_borrow<py::array>(v);
    host_view hv = host_view_of(arr);  // refuses unsupported dtypes with a TypeError
    const type* dt = tc.scalar(hv.type.scalar());
    bool c = arr.flags() & py::array::c_style, f = arr.flags() & py::array::f_style;
    int nd = static_cast<int>(arr.ndim());
    a.ty = tc.array(dt, nd, layout_of(c, f, nd), !arr.writeable());
    a.h = argument::how::host_array;
    a.host = arr;
    return a;
  }
  // Host data from other libraries (a CPU torch tensor): NumPy's zero-copy
  // view, then transferred like any host array.
  if (!py::isinstance<py::array>(v) && py::hasattr(v, "__dlpack__") && py::hasattr(v, "__dlpack_device__")) {
    py::tuple dev = v.attr("__dlpack_device__")();
    if (dev[0].cast<int>() == 1) return classify(py::module_::import("numpy").attr("from_dlpack")(v), index, launch);
  }
  if (py::isinstance<py::tuple>(v)) {
    a.h = argument::how::tuple;
    std::vector<const type*> ts;
    for (auto e : py::reinterpret_borrow<py::tuple>(v)) {
      a.elements.push_back(classify(e, index, launch));
      ts.push_back(a.elements.back().ty);
    }
    a.ty = tc.tuple(std::move(ts));
    return a;
  }
  if (const type* t = scalar_type(v)) {
    a.h = argument::how::scalar;
    a.ty = t;
    a.value = v;
    return a;
  }
  throw py::type_error("kernel argument " + std::to_string(index) + " (" +
                       std::string(py::str(py::type::of(v).attr("__name__"))) +
                       ") is not supported: pass NumPy or device arrays, numbers, or tuples of them");
}

// The bytes of a Python number as scalar type `t`, in one slot (two for
// complex128), converted as NumPy converts.
void pack_scalar(py::handle v, const type* t, std::vector<std::uint64_t>& slots) {
  std::uint64_t s = 0;
  auto put = [&](const auto& x) {
    std::memcpy(&s, &x, sizeof x);
    slots.push_back(s);
  };
  switch (t->kind) {
    case type_kind::boolean: put(static_cast<std::uint8_t>(py::cast<bool>(py::bool_(py::reinterpret_borrow<py::object>(v))))); return;
    case type_kind::integer: {
      // NumPy's conversion of a Python/NumPy number to the integer type.
      py::object n = py::module_::import("numpy").attr("dtype")(typestr_of(t)).attr("type")(v);
      py::object item = n.attr("item")();
      // (uint64 values past int64's range arrive as large Python ints.)
      std::int64_t i = t->is_signed ? item.cast<std::int64_t>()
                                    : static_cast<std::int64_t>(item.cast<std::uint64_t>());
      switch (t->bits) {
        case 8: put(static_cast<std::int8_t>(i)); return;
        case 16: put(static_cast<std::int16_t>(i)); return;
        case 32: put(static_cast<std::int32_t>(i)); return;
        default: put(i); return;
      }
    }
    case type_kind::floating: {
      double d = py::cast<double>(py::float_(py::reinterpret_borrow<py::object>(v)));
      if (t->bits == 32)
        put(static_cast<float>(d));
      else if (t->bits == 64)
        put(d);
      else {
        py::object h = py::module_::import("numpy").attr("float16")(d);
        put(h.attr("view")("uint16").attr("item")().cast<std::uint16_t>());
      }
      return;
    }
    case type_kind::complex: {
      auto z = py::cast<std::complex<double>>(py::module_::import("builtins").attr("complex")(v));
      if (t->bits == 64) {
        std::complex<float> f(static_cast<float>(z.real()), static_cast<float>(z.imag()));
        put(f);
      } else {
        put(z.real());
        put(z.imag());
      }
      return;
    }
    default: throw py::type_error("cannot pass a " + t->str() + " as a scalar");
  }
}

// Scalar arguments are usually given as their own type: the common cases
// skip NumPy's conversion machinery.
void pack_scalar_fast(py::handle v, const type* t, std::vector<std::uint64_t>& slots) {
  if (t->kind == type_kind::integer && t->bits == 64 && t->is_signed && PyLong_CheckExact(v.ptr())) {
    std::int64_t i = PyLong_AsLongLong(v.ptr());
    std::uint64_t s;
    std::memcpy(&s, &i, 8);
    slots.push_back(s);
    return;
  }
  if (t->kind == type_kind::floating && t->bits == 64 && PyFloat_CheckExact(v.ptr())) {
    double d = PyFloat_AS_DOUBLE(v.ptr());
    std::uint64_t s;
    std::memcpy(&s, &d, 8);
    slots.push_back(s);
    return;
  }
  pack_scalar(v, t, slots);
}

void pack_array(const device_ndarray& a, std::vector<std::uint64_t>& slots) {
  slots.push_back(reinterpret_cast<std::uintptr_t>(a.data()));
  for (auto e : a.shape()) slots.push_back(static_cast<std::uint64_t>(e));
  for (auto s : a.strides()) slots.push_back(static_cast<std::uint64_t>(s));
}

void pack(const argument& a, const type* as, std::vector<std::uint64_t>& slots) {
  switch (a.h) {
    case argument::how::device:
    case argument::how::host_array: pack_array(a.array(), slots); return;
    case argument::how::scalar: pack_scalar_fast(a.value, as, slots); return;
    case argument::how::tuple:
      for (std::size_t i = 0; i < a.elements.size(); ++i) pack(a.elements[i], as->elements[i], slots);
      return;
  }
}

// Whether an argument of type `have` may be passed where `want` is declared
// (eager signatures): the same type, an array of the same dtype and rank into
// an any-layout (or same-layout) one, writable into readonly, or numbers
// converted.
bool compatible(const type* have, const type* want) {
  if (have == want) return true;
  if (have->is_array() && want->is_array())
    return have->dtype == want->dtype && have->ndim == want->ndim &&
           (want->layout == array_layout::any || want->layout == have->layout) && (want->readonly || !have->readonly);
  if (have->is_scalar() && want->is_scalar()) return true;
  if (have->is_tuple() && want->is_tuple() && have->elements.size() == want->elements.size()) {
    for (std::size_t i = 0; i < have->elements.size(); ++i)
      if (!compatible(have->elements[i], want->elements[i])) return false;
    return true;
  }
  return false;
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

// Shared memory per block: what a kernel's static arrays may take (ptxas's
// limit on a GPU) and what static + dynamic may take once opted in.
struct shared_limits {
  std::size_t per_block = 0, optin = 0;
};
const shared_limits& shared_limits_of(int dev) {
  static const std::vector<shared_limits> all = [] {
    std::vector<shared_limits> v;
    for (const auto& d : device::all()) {
      auto per_block = static_cast<std::size_t>(d.attribute(device_attribute::max_shared_memory_per_block));
      auto optin = static_cast<std::size_t>(d.attribute(device_attribute::max_shared_memory_per_block_optin));
      v.push_back({per_block, std::max(per_block, optin)});
    }
    return v;
  }();
  return all.at(static_cast<std::size_t>(dev));
}

// --- the dispatcher ---------------------------------------------------------------

struct type_vector_hash {
  std::size_t operator()(const std::vector<const type*>& v) const noexcept {
    std::size_t h = 0;
    for (auto* t : v) h = h * 1000003u ^ std::hash<const void*>{}(t);
    return h;
  }
};

class dispatcher {
 public:
  dispatcher(py::object compile_callback, std::string name)
      : callback_(std::move(compile_callback)), name_(std::move(name)) {}

  void add(std::shared_ptr<compiled_function> cf) {
    specs_[cf->arg_types] = cf;
    order_.push_back(cf);
    last_.reset();  // an exact signature may now win over a compatible one
  }

  void set_lazy(bool lazy) {
    lazy_ = lazy;
    last_.reset();
  }

  py::dict specializations() const {
    py::dict d;
    for (const auto& cf : order_) {
      py::tuple key(cf->arg_types.size());
      for (std::size_t i = 0; i < cf->arg_types.size(); ++i) key[i] = cf->arg_types[i]->str();
      d[key] = py::cast(cf);
    }
    return d;
  }

  // The specialisation for these arguments: exact match, then (for eager
  // signatures) the first compatible one, else compile one. A dispatcher
  // that may compile takes exact matches only, as Numba's: a compatible one
  // would convert (2.5 passed to an int64 specialisation is 2).
  std::shared_ptr<compiled_function> find(const std::vector<argument>& args) {
    // A loop launches with the same types each time: the last match first,
    // without building and hashing a key.
    if (last_ && last_types_.size() == args.size()) {
      bool same = true;
      for (std::size_t i = 0; same && i < args.size(); ++i) same = args[i].ty == last_types_[i];
      if (same) return last_;
    }
    auto cf = find_slow(args);
    last_ = cf;
    last_types_.clear();
    for (auto& a : args) last_types_.push_back(a.ty);
    return cf;
  }

  std::shared_ptr<compiled_function> find_slow(const std::vector<argument>& args) {
    std::vector<const type*> key;
    key.reserve(args.size());
    for (auto& a : args) key.push_back(a.ty);
    if (auto it = specs_.find(key); it != specs_.end()) return it->second;
    for (const auto& cf : order_) {
      if (lazy_ || cf->arg_types.size() != key.size()) continue;
      bool ok = true;
      for (std::size_t i = 0; ok && i < key.size(); ++i) ok = compatible(key[i], cf->arg_types[i]);
      if (ok) {
        specs_[key] = cf;
        return cf;
      }
    }
    if (!lazy_) {
      // (Appended piecewise: GCC 12 warns falsely on `"" + std::string` here.)
      auto joined = [](const std::vector<const type*>& ts) {
        std::string s;
        for (auto* t : ts) {
          if (!s.empty()) s += ", ";
          s += t->str();
        }
        return s;
      };
      std::string have = joined(key);
      std::string known;
      for (const auto& cf : order_) known += "\n    (" + joined(cf->arg_types) + ")";
      throw py::type_error("no matching definition of " + name_ + " for argument types (" + have +
                           "); its signatures are:" + known);
    }
    py::list specs;
    for (auto* t : key) specs.append(t->str());
    auto cf = callback_(specs).cast<std::shared_ptr<compiled_function>>();
    specs_[key] = cf;
    order_.push_back(cf);
    return cf;
  }

  // The baseline of bench/launch: the same kernel launched `n` times from a
  // C++ loop straight through the backend (cuLaunchKernel on a GPU), its
  // parameters packed once. Device-array arguments only. Returns seconds.
  double raw_launch_loop(py::tuple pyargs, py::handle grid, py::handle block, std::size_t n) {
    launch_config cfg;
    cfg.grid = to_dim3(grid, "the grid");
    cfg.block = to_dim3(block, "the block");
    cfg.stream = default_stream_view();
    std::vector<argument> args;
    for (std::size_t i = 0; i < pyargs.size(); ++i) {
      args.push_back(classify(pyargs[i], i, &cfg.stream));
      if (args.back().h == argument::how::host_array) throw py::type_error("raw_launch_loop takes device arrays");
    }
    auto cf = find(args);
    std::vector<std::uint64_t> slots;
    for (std::size_t i = 0; i < args.size(); ++i) pack(args[i], cf->arg_types[i], slots);
    std::vector<void*> params(slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i) params[i] = &slots[i];
    int dev = device::current().ordinal();
    const kernel& k = cf->kernel_for(dev);
    auto& backend = detail::active();
    py::gil_scoped_release nogil;
    backend.launch(k.handle(), cfg, params.data(), dev);  // warm-up
    cfg.stream.synchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; ++i) backend.launch(k.handle(), cfg, params.data(), dev);
    cfg.stream.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void launch(py::tuple pyargs, py::handle grid, py::handle block, py::handle stream, py::handle shared) {
    launch_config cfg;
    cfg.grid = to_dim3(grid, "the grid");
    cfg.block = to_dim3(block, "the block");
    cfg.stream = to_stream(stream);
    cfg.shared_bytes = to_shared_bytes(shared);

    std::vector<argument> args;
    args.reserve(pyargs.size());
    for (std::size_t i = 0; i < pyargs.size(); ++i) args.push_back(classify(pyargs[i], i, &cfg.stream));
    auto cf = find(args);
    if (args.size() != cf->arg_types.size())
      throw py::type_error(name_ + " takes " + std::to_string(cf->arg_types.size()) + " arguments, " +
                           std::to_string(args.size()) + " given");
    int dev = device::current().ordinal();
    check_shared(cf->loaded_on(dev), cfg.shared_bytes, dev);

    // NumPy arrays go to the device first (numba's rule), and come back
    // after only if the kernel may have written them.
    // Host arrays inside tuple arguments count as their tuple's argument.
    std::vector<std::pair<argument*, std::size_t>> hosts;
    auto collect = [&](auto& self, argument& a, std::size_t top) -> void {
      if (a.h == argument::how::host_array) hosts.emplace_back(&a, top);
      for (auto& e : a.elements) self(self, e, top);
    };
    for (std::size_t i = 0; i < args.size(); ++i) collect(collect, args[i], i);
    if (!hosts.empty()) {
      py::gil_scoped_release nogil;
      for (auto [ap, top] : hosts) {
        argument& a = *ap;
        host_view hv;
        {
          py::gil_scoped_acquire gil;
          hv = a.host_data();
        }
        char order = a.ty->layout == array_layout::f ? 'F' : 'C';
        a.dev = device_ndarray::empty(hv.shape, hv.type, order, cfg.stream);
        a.dev.copy_from_host(hv, cfg.stream);
      }
    }
    std::vector<std::uint64_t> slots;
    slots.reserve(16);
    for (std::size_t i = 0; i < args.size(); ++i) pack(args[i], cf->arg_types[i], slots);
    std::vector<void*> params(slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i) params[i] = &slots[i];

    const kernel& k = cf->kernel_for(dev);
    {
      py::gil_scoped_release nogil;
      try {
        cuforge::launch(k, cfg, params.data());
      } catch (const logic_error& e) {
        // The runtime names the kernel by its symbol; the user knows its Python name.
        std::string msg = e.what();
        if (auto at = msg.find("'" + k.name() + "'"); at != std::string::npos)
          msg.replace(at, k.name().size() + 2, "'" + name_ + "'");
        throw py::value_error(msg);
      }
      bool copied_back = false;
      for (auto [ap, i] : hosts) {
        argument& a = *ap;
        if (i < cf->writes_arg.size() && !cf->writes_arg[i]) continue;
        host_view hv;
        {
          py::gil_scoped_acquire gil;
          hv = a.host_data();
        }
        a.dev.copy_to_host(hv, cfg.stream);
        copied_back = true;
      }
      if (copied_back) cfg.stream.synchronize();
    }
  }

 private:
  // Shared memory, checked before anything is copied or run: the static
  // arrays against the per-block limit (ptxas refuses more on a GPU, so the
  // cpu backend does too), static + dynamic against the opt-in limit; a
  // launch asking for more than the default opts the kernel in.
  void check_shared(compiled_function::loaded& ld, std::size_t dynamic, int dev) {
    const auto& lim = shared_limits_of(dev);
    if (ld.static_shared > lim.per_block)
      throw py::value_error("kernel '" + name_ + "' has " + std::to_string(ld.static_shared) +
                            " bytes of static shared memory (cuda.shared.array); the device allows at most " +
                            std::to_string(lim.per_block) + " per block");
    if (dynamic <= ld.dynamic_allowed) return;
    if (ld.static_shared + dynamic > lim.optin)
      throw py::value_error("kernel '" + name_ + "': " + std::to_string(dynamic) +
                            " bytes of dynamic shared memory requested (with " + std::to_string(ld.static_shared) +
                            " static); the device has at most " + std::to_string(lim.optin) + " per block");
    ld.k->set_max_dynamic_shared_bytes(static_cast<int>(dynamic));
    ld.dynamic_allowed = dynamic;
  }

  py::object callback_;
  std::string name_;
  bool lazy_ = true;
  std::unordered_map<std::vector<const type*>, std::shared_ptr<compiled_function>, type_vector_hash> specs_;
  std::vector<std::shared_ptr<compiled_function>> order_;
  std::shared_ptr<compiled_function> last_;  // find's last answer, for the types in last_types_
  std::vector<const type*> last_types_;
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
// goes straight to dispatcher::launch, without a Python frame or pybind11's
// argument matching (together about as much as the rest of a launch's
// host-side work). _jit._LaunchConfiguration derives from it.
struct launcher_object {
  PyObject_HEAD
  PyObject* native;  // the dispatcher's Python object: keeps `d` alive
  dispatcher* d;
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
  dispatcher* d = nullptr;
  try {
    d = py::cast<dispatcher*>(py::handle(native));
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
  py::class_<compiled_function, std::shared_ptr<compiled_function>>(m, "CompiledFunction",
                                                                     "One specialisation of a jitted function.")
      .def_property_readonly("ptx", [](compiled_function& cf) { return cf.get_ptx(); })
      .def_property_readonly("llvm", [](compiled_function& cf) {
        cf.ensure_module();
        std::lock_guard lock(compile_lock());
        // A device function's IR is its GPU IR: it never runs on its own.
        const target_kind t = cf.device ? target_kind::nvptx : cf.config.target;
        auto& slot = t == target_kind::nvptx ? cf.llvm_gpu : cf.llvm_host;
        if (!slot) slot = emit_llvm_ir(cf.module, cf.config.with_target(t));
        return *slot;
      })
      .def_property_readonly("llvm_gpu", [](compiled_function& cf) {
        cf.ensure_module();
        std::lock_guard lock(compile_lock());
        if (!cf.llvm_gpu) cf.llvm_gpu = emit_llvm_ir(cf.module, cf.config.with_target(target_kind::nvptx));
        return *cf.llvm_gpu;
      })
      .def_property_readonly("config", [](const compiled_function& cf) { return cf.config; },
                             "The CompileConfig it was compiled with.")
      .def_property_readonly("types_dump", [](compiled_function& cf) { return cf.get_types_dump(); })
      .def_property_readonly("return_spec", [](const compiled_function& cf) { return cf.return_type->str(); })
      .def_property_readonly("arg_specs", [](const compiled_function& cf) {
        py::list l;
        for (auto* t : cf.arg_types) l.append(t->str());
        return l;
      })
      .def_property_readonly("symbol", [](const compiled_function& cf) { return cf.symbol; })
      .def_property_readonly("writes_arg", [](const compiled_function& cf) { return cf.writes_arg; })
      .def_property_readonly("uses_barrier", [](const compiled_function& cf) { return cf.uses_barrier; })
      .def_property_readonly("from_cache", [](const compiled_function& cf) { return cf.module.functions.empty(); },
                             "Whether it was loaded from the disk cache (its typed IR is remade on demand).")
      .def("cache_payload", &compiled_function::cache_payload,
           "(kind, facts, code) the disk cache stores for the active backend: PTX on a GPU, an object file "
           "on the cpu backend.")
      .def("_set_rebuild", [](compiled_function& cf, py::object f) { cf.rebuild = std::move(f); },
           "The callable remaking a cached specialisation's typed IR (for .ptx and .llvm).")
      .def("load", [](compiled_function& cf) {
        if (cf.device) throw py::type_error("a device function cannot be loaded as a kernel");
        cf.kernel_for(device::current().ordinal());
      }, "Compiles and loads the kernel for the active backend on the current device.");

  m.def("compile", &compile, py::arg("function_ir"), py::arg("arg_specs"), py::arg("config"),
        py::arg("device") = false, py::arg("return_spec") = py::none(),
        "Types and prepares one specialisation (codegen runs on demand); return_spec fixes a device "
        "function's return type.");
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
  m.def("typeof", [](py::handle v) { return classify(v, 0).ty->str(); },
        "The compiler's type of a kernel argument, as a type spec.");

  py::class_<dispatcher>(m, "Dispatcher", "The launch path of a jitted kernel.")
      .def(py::init<py::object, std::string>(), py::arg("compile_callback"), py::arg("name"))
      .def("add", &dispatcher::add)
      .def("set_lazy", &dispatcher::set_lazy)
      .def_property_readonly("specializations", &dispatcher::specializations)
      .def("launch", &dispatcher::launch, py::arg("args"), py::arg("grid"), py::arg("block"), py::arg("stream") = 0,
           py::arg("shared_bytes") = 0)
      .def("_raw_launch_loop", &dispatcher::raw_launch_loop, py::arg("args"), py::arg("grid"), py::arg("block"),
           py::arg("n"), "bench/launch's baseline: n raw backend launches from C++ (seconds).");
  m.attr("Launcher") = make_launcher_type();
}

}  // namespace cuforge::python

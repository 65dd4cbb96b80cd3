// Compiling and launching kernels from Python: _core.compile (the typer and
// codegen for one specialisation) and _core.Dispatcher (the launch path:
// classify the arguments, find or make the specialisation, pack the
// parameter slots, launch, copy NumPy arguments back). The launch path is
// the one users feel, so it is all here, in C++, without Python in the
// loop once a specialisation exists.
#include "common.hpp"

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/typer.hpp>
#include <cuforge/frontend/types.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/module.hpp>

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
  typed_module module;
  codegen_options options;
  int max_registers = 0;
  bool device = false;
  std::vector<const type*> arg_types;

  // Made on demand (the cpu backend never needs PTX, a GPU never needs
  // host code), under compile_lock().
  std::optional<std::string> ptx, llvm_gpu, llvm_host;
  std::optional<host_kernel> host;
  struct loaded {
    std::uint64_t generation = 0;
    std::optional<kernel> k;
  };
  std::vector<loaded> per_device;

  const typed_function& entry() const { return module.functions.front(); }

  const std::string& get_ptx() {
    std::lock_guard lock(compile_lock());
    if (!ptx) ptx = frontend::compile_ptx(module, options).ptx;
    return *ptx;
  }

  // The kernel for the active backend on `dev`, loaded once per context.
  const kernel& kernel_for(int dev) {
    if (per_device.size() > static_cast<std::size_t>(dev) && per_device[dev].k &&
        per_device[dev].generation == context_generation())
      return *per_device[dev].k;
    module_image image = [&] {
      if (active_backend() == backend_kind::cuda) return module_image::from_ptx(get_ptx());
      std::lock_guard lock(compile_lock());
      if (!host) host = compile_host(module, options);
      cpu_kernel_symbol sym;
      sym.name = host->name;
      sym.fn = host->fn;
      sym.static_shared_bytes = host->static_shared_bytes;
      sym.uses_barrier = host->uses_barrier;
      sym.param_sizes = host->param_sizes;
      return module_image::from_host({sym});
    }();
    module_options mo;
    mo.max_registers = max_registers;
    mo.generate_line_info = options.lineinfo;
    auto mod = module::load(image, mo, dev);
    if (per_device.size() <= static_cast<std::size_t>(dev)) per_device.resize(dev + 1);
    per_device[dev].k = mod.get_kernel(active_backend() == backend_kind::cuda ? entry().symbol : host->name);
    per_device[dev].generation = context_generation();
    return *per_device[dev].k;
  }
};

codegen_options options_from(py::dict o, int& max_registers, typer_options& topts) {
  codegen_options c;
  auto flag = [&](const char* k, bool dflt) { return o.contains(k) && !o[k].is_none() ? o[k].cast<bool>() : dflt; };
  c.debug = flag("debug", false);
  c.lineinfo = flag("lineinfo", false) || c.debug;
  c.fastmath = flag("fastmath", false);
  c.opt = flag("opt", true);
  topts.debug = c.debug;
  if (o.contains("cc") && !o["cc"].is_none()) {
    auto cc = o["cc"].cast<std::pair<int, int>>();
    c.cc = {cc.first, cc.second};
  }
  max_registers = o.contains("max_registers") && !o["max_registers"].is_none() ? o["max_registers"].cast<int>() : 0;
  return c;
}

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
                                           py::dict opts, bool device, py::object ret_spec) {
  auto cf = std::make_shared<compiled_function>();
  typer_options topts;
  cf->options = options_from(opts, cf->max_registers, topts);
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
  return cf;
}

// --- arguments ------------------------------------------------------------------

// How one argument reaches the kernel.
struct argument {
  const type* ty = nullptr;
  enum class how { device, host_array, scalar, tuple } h = how::scalar;
  device_ndarray dev;      // device (or the device copy of a host array)
  py::array host;          // host_array: the NumPy array to copy in (and back)
  py::handle value;        // scalar
  std::vector<argument> elements;  // tuple
};

array_layout layout_of(bool c, bool f, int ndim) {
  if (c) return array_layout::c;
  if (f && ndim > 1) return array_layout::f;
  return array_layout::any;
}

// NumPy's type string of a scalar type ("<f4").
std::string typestr_of(const type* t) {
  switch (t->kind) {
    case type_kind::boolean: return "|b1";
    case type_kind::integer: return (t->bits == 8 ? "|" : "<") + std::string(t->is_signed ? "i" : "u") + std::to_string(t->bits / 8);
    case type_kind::floating: return "<f" + std::to_string(t->bits / 8);
    case type_kind::complex: return "<c" + std::to_string(t->bits / 8);
    default: throw py::type_error(t->str() + " is not a scalar type");
  }
}

const type* scalar_type(py::handle v) {
  auto& tc = types();
  if (PyBool_Check(v.ptr())) return tc.boolean();
  if (PyLong_Check(v.ptr())) {
    int overflow = 0;
    PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (!overflow) return tc.int64();
    PyLong_AsUnsignedLongLong(v.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error("integer argument " + std::string(py::str(v)) + " does not fit in 64 bits");
    }
    return tc.uint64();
  }
  if (PyFloat_Check(v.ptr())) return tc.float64();
  if (PyComplex_Check(v.ptr())) return tc.complex128();
  // NumPy scalars: their own dtype.
  static py::object generic = py::module_::import("numpy").attr("generic");
  if (py::isinstance(v, generic)) {
    if (auto* t = tc.from_typestr(py::str(v.attr("dtype").attr("str")))) return t;
  }
  return nullptr;
}

argument classify(py::handle v, std::size_t index) {
  auto& tc = types();
  argument a;
  if (auto d = device_array_of(v)) {
    a.h = argument::how::device;
    a.dev = *d;
    const type* dt = tc.from_typestr(d->type().typestr());
    a.ty = tc.array(dt, static_cast<int>(d->ndim()),
                    layout_of(d->is_c_contiguous(), d->is_f_contiguous(), static_cast<int>(d->ndim())), d->read_only());
    return a;
  }
  if (py::isinstance<py::array>(v)) {
    py::array arr = py::reinterpret_borrow<py::array>(v);
    host_view hv = host_view_of(arr);  // refuses unsupported dtypes with a TypeError
    const type* dt = tc.from_typestr(hv.type.typestr());
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
    if (dev[0].cast<int>() == 1) return classify(py::module_::import("numpy").attr("from_dlpack")(v), index);
  }
  if (py::isinstance<py::tuple>(v)) {
    a.h = argument::how::tuple;
    std::vector<const type*> ts;
    for (auto e : py::reinterpret_borrow<py::tuple>(v)) {
      a.elements.push_back(classify(e, index));
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
      std::int64_t i = n.attr("item")().cast<std::int64_t>();
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
    case argument::how::host_array: pack_array(a.dev, slots); return;
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
    return py::value_error(std::string(what) + " must be a positive int or a tuple of 1 to 3 positive ints, not " +
                           std::string(py::repr(d)));
  };
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
  }

  void set_lazy(bool lazy) { lazy_ = lazy; }

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
  // signatures) the first compatible one, else compile one.
  std::shared_ptr<compiled_function> find(const std::vector<argument>& args) {
    std::vector<const type*> key;
    key.reserve(args.size());
    for (auto& a : args) key.push_back(a.ty);
    if (auto it = specs_.find(key); it != specs_.end()) return it->second;
    for (const auto& cf : order_) {
      if (cf->arg_types.size() != key.size()) continue;
      bool ok = true;
      for (std::size_t i = 0; ok && i < key.size(); ++i) ok = compatible(key[i], cf->arg_types[i]);
      if (ok) {
        specs_[key] = cf;
        return cf;
      }
    }
    if (!lazy_) {
      std::string have;
      for (auto* t : key) have += (have.empty() ? "" : ", ") + t->str();
      std::string known;
      for (const auto& cf : order_) {
        std::string s;
        for (auto* t : cf->arg_types) s += (s.empty() ? "" : ", ") + t->str();
        known += "\n    (" + s + ")";
      }
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
      args.push_back(classify(pyargs[i], i));
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

  void launch(py::tuple pyargs, py::handle grid, py::handle block, py::handle stream, std::size_t shared) {
    launch_config cfg;
    cfg.grid = to_dim3(grid, "the grid");
    cfg.block = to_dim3(block, "the block");
    cfg.stream = to_stream(stream);
    cfg.shared_bytes = shared;

    std::vector<argument> args;
    args.reserve(pyargs.size());
    for (std::size_t i = 0; i < pyargs.size(); ++i) args.push_back(classify(pyargs[i], i));
    auto cf = find(args);
    const auto& entry = cf->entry();
    if (args.size() != cf->arg_types.size())
      throw py::type_error(name_ + " takes " + std::to_string(cf->arg_types.size()) + " arguments, " +
                           std::to_string(args.size()) + " given");

    // NumPy arrays go to the device first (numba's rule), and come back
    // after only if the kernel may have written them.
    {
      py::gil_scoped_release nogil;
      for (auto& a : args) {
        if (a.h != argument::how::host_array) continue;
        host_view hv;
        {
          py::gil_scoped_acquire gil;
          hv = host_view_of(a.host);
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

    int dev = device::current().ordinal();
    const kernel& k = cf->kernel_for(dev);
    {
      py::gil_scoped_release nogil;
      cuforge::launch(k, cfg, params.data());
      bool copied_back = false;
      for (std::size_t i = 0; i < args.size(); ++i) {
        auto& a = args[i];
        if (a.h != argument::how::host_array) continue;
        if (i < entry.writes_arg.size() && !entry.writes_arg[i]) continue;
        host_view hv;
        {
          py::gil_scoped_acquire gil;
          hv = host_view_of(a.host);
        }
        a.dev.copy_to_host(hv, cfg.stream);
        copied_back = true;
      }
      if (copied_back) cfg.stream.synchronize();
    }
  }

 private:
  py::object callback_;
  std::string name_;
  bool lazy_ = true;
  std::unordered_map<std::vector<const type*>, std::shared_ptr<compiled_function>, type_vector_hash> specs_;
  std::vector<std::shared_ptr<compiled_function>> order_;
};

}  // namespace

void bind_dispatch(py::module_& m) {
  py::class_<compiled_function, std::shared_ptr<compiled_function>>(m, "CompiledFunction",
                                                                     "One specialisation of a jitted function.")
      .def_property_readonly("ptx", [](compiled_function& cf) { return cf.get_ptx(); })
      .def_property_readonly("llvm", [](compiled_function& cf) {
        std::lock_guard lock(compile_lock());
        bool gpu = active_backend() == backend_kind::cuda || cf.device;
        auto& slot = gpu ? cf.llvm_gpu : cf.llvm_host;
        if (!slot) slot = emit_llvm_ir(cf.module, gpu, cf.options);
        return *slot;
      })
      .def_property_readonly("llvm_gpu", [](compiled_function& cf) {
        std::lock_guard lock(compile_lock());
        if (!cf.llvm_gpu) cf.llvm_gpu = emit_llvm_ir(cf.module, true, cf.options);
        return *cf.llvm_gpu;
      })
      .def_property_readonly("types_dump", [](const compiled_function& cf) {
        std::string s;
        for (const auto& f : cf.module.functions) s += f.ir->dump();
        return s;
      })
      .def_property_readonly("return_spec", [](const compiled_function& cf) { return cf.entry().return_type->str(); })
      .def_property_readonly("arg_specs", [](const compiled_function& cf) {
        py::list l;
        for (auto* t : cf.arg_types) l.append(t->str());
        return l;
      })
      .def_property_readonly("symbol", [](const compiled_function& cf) { return cf.entry().symbol; })
      .def_property_readonly("writes_arg", [](const compiled_function& cf) { return cf.entry().writes_arg; })
      .def_property_readonly("uses_barrier", [](const compiled_function& cf) { return cf.entry().uses_barrier; })
      .def("load", [](compiled_function& cf) {
        if (cf.device) throw py::type_error("a device function cannot be loaded as a kernel");
        cf.kernel_for(device::current().ordinal());
      }, "Compiles and loads the kernel for the active backend on the current device.");

  m.def("compile", &compile, py::arg("function_ir"), py::arg("arg_specs"), py::arg("options"),
        py::arg("device") = false, py::arg("return_spec") = py::none(),
        "Types and prepares one specialisation (codegen runs on demand); return_spec fixes a device "
        "function's return type.");
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
}

}  // namespace cuforge::python

// The compiler for Python: the IR builder the walker drives, type specs.
#include "common.hpp"

#include <cuforge/frontend/cuda_c.hpp>
#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/extending.hpp>
#include <cuforge/frontend/compile_config.hpp>

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/intrinsics.hpp>
#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/toolkit.hpp>
#include <cuforge/frontend/types.hpp>
#include <cuforge/jit/compiler.hpp>

namespace cuforge::python {

using namespace cuforge::frontend;

namespace {

location loc_of(py::handle line, py::handle col) { return {line.cast<std::int32_t>(), col.cast<std::int32_t>()}; }

constant_value constant_of(py::handle v, bool weak) {
  constant_value c;
  c.weak = weak;
  if (v.is_none()) {
    c.k = constant_value::kind::none;
  } else if (PyBool_Check(v.ptr())) {
    c.k = constant_value::kind::boolean;
    c.b = v.cast<bool>();
  } else if (PyLong_Check(v.ptr())) {
    c.k = constant_value::kind::integer;
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow) {
      // Beyond int64: uint64 literals keep their bits; anything larger is an error.
      unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
      if (PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error("integer constant " + std::string(py::str(v)) + " does not fit in 64 bits");
      }
      c.i = static_cast<std::int64_t>(u);
    } else {
      c.i = i;
    }
  } else if (PyFloat_Check(v.ptr())) {
    c.k = constant_value::kind::floating;
    c.f = v.cast<double>();
  } else if (PyComplex_Check(v.ptr())) {
    c.k = constant_value::kind::complex;
    c.c = v.cast<std::complex<double>>();
  } else {
    throw py::type_error("not a constant: " + std::string(py::repr(v)));
  }
  return c;
}

constant_value typed_constant_of(py::handle v, const std::string& typestr) {
  auto cv = constant_of(v, false);
  type_context tc;
  if (!tc.from_typestr(typestr)) throw py::type_error("unsupported scalar type " + typestr);
  cv.typestr = typestr;
  return cv;
}

// A global as the walker resolved it (ir.hpp global_value).
global_value global_of(py::dict d) {
  global_value g;
  std::string kind = py::str(d["kind"]);
  auto get = [&](const char* k) -> py::object { return d.contains(k) ? py::object(d[k]) : py::object(py::none()); };
  if (!get("name").is_none()) g.name = py::str(get("name"));
  if (kind == "constant") {
    g.k = global_value::kind::constant;
    g.value = get("typestr").is_none() ? constant_of(get("value"), true)
                                       : typed_constant_of(get("value"), py::str(get("typestr")));
  } else if (kind == "tuple" || kind == "tuple_class") {
    g.k = kind == "tuple" ? global_value::kind::tuple : global_value::kind::tuple_class;
    if (!get("elements").is_none())
      for (auto e : get("elements")) g.elements.push_back(global_of(py::reinterpret_borrow<py::dict>(e)));
    if (!get("cls").is_none()) g.cls = py::str(get("cls"));
    if (!get("fields").is_none())
      for (auto f : get("fields")) g.fields.push_back(py::str(f));
    if (!get("types").is_none())
      for (auto f : get("types")) g.field_types.push_back(py::str(f));
  } else if (kind == "const_array") {
    g.k = global_value::kind::const_array;
    g.dtype = py::str(get("typestr"));
    for (auto e : get("shape")) g.shape.push_back(e.cast<std::int64_t>());
    std::string bytes = get("data").cast<std::string>();
    g.bytes.assign(bytes.begin(), bytes.end());
  } else if (kind == "device_array") {
    g.k = global_value::kind::device_array;
    g.dtype = py::str(get("typestr"));
    g.address = get("address").cast<std::uint64_t>();
    for (auto e : get("shape")) g.shape.push_back(e.cast<std::int64_t>());
    for (auto e : get("strides")) g.strides.push_back(e.cast<std::int64_t>());
  } else if (kind == "module") {
    g.k = global_value::kind::module;
  } else if (kind == "function") {
    g.k = global_value::kind::function;
  } else if (kind == "dtype") {
    g.k = global_value::kind::dtype;
    g.dtype = py::str(get("typestr"));
  } else if (kind == "device_function") {
    g.k = global_value::kind::device_function;
    // No callee: a function being compiled further up (recursion), named by qualname and file.
    if (!get("callee").is_none()) g.callee = get("callee").cast<std::shared_ptr<function>>();
    if (!get("file").is_none()) g.file = py::str(get("file"));
  } else if (kind == "string") {
    g.k = global_value::kind::string;
    g.message = py::str(get("message"));
  } else if (kind == "exception") {
    g.k = global_value::kind::exception;
    g.cls = py::str(get("cls"));
    if (!get("message").is_none()) g.message = py::str(get("message"));
  } else if (kind == "overloaded") {
    g.k = global_value::kind::overloaded;
    if (!get("display").is_none()) g.message = py::str(get("display"));
  } else if (kind == "external_function") {
    g.k = global_value::kind::external_function;
    for (auto a : get("args")) g.fields.push_back(py::str(a));
    g.dtype = py::str(get("ret"));
    g.cls = py::str(get("abi"));
    if (d.contains("cooperative")) g.cooperative = get("cooperative").cast<bool>();
    if (!get("link").is_none())
      for (auto f : get("link")) g.link.push_back(py::str(f));
    // An intrinsic (cuda.extending): its body, and its host implementation's IR.
    if (!get("message").is_none()) g.message = py::str(get("message"));
    if (!get("callee").is_none()) g.callee = get("callee").cast<std::shared_ptr<function>>();
  } else if (kind == "unsupported") {
    g.k = global_value::kind::unsupported;
  } else {
    throw py::value_error("unknown global kind '" + kind + "'");
  }
  return g;
}

}  // namespace

// An overload registered from Python (cuforge.cuda.extending): `fn(specs)` gives the implementation's
// FunctionIR for those argument type specs, or None.
class py_overload_resolver final : public overload_resolver {
 public:
  explicit py_overload_resolver(py::object fn) : fn_(std::move(fn)) {}
  std::shared_ptr<const function> resolve(const std::vector<const type*>& args) override {
    py::gil_scoped_acquire gil;
    py::list specs;
    for (const type* t : args) specs.append(t->str());
    try {
      py::object r = fn_(specs);
      if (r.is_none()) return nullptr;
      return r.cast<std::shared_ptr<function>>();
    } catch (py::error_already_set& e) {
      throw cuforge::logic_error(std::string(py::str(e.type().attr("__name__"))) + ": " + py::str(e.value()).cast<std::string>());
    } catch (const py::cast_error&) {
      throw cuforge::logic_error("an overload's resolver gave something other than a function's IR");
    }
  }
  // fn.bind(positional, keywords): a list whose items are the call's argument indices, or
  // ("default", value) for a default filled in; a TypeError says why the call does not fit.
  std::vector<bound_argument> bind(std::size_t positional, const std::vector<std::string>& keywords) override {
    py::gil_scoped_acquire gil;
    if (!py::hasattr(fn_, "bind")) return overload_resolver::bind(positional, keywords);
    std::vector<bound_argument> r;
    try {
      for (py::handle item : fn_.attr("bind")(positional, keywords)) {
        bound_argument b;
        if (py::isinstance<py::int_>(item)) {
          b.index = item.cast<int>();
        } else {
          b.value = constant_of(item.cast<py::tuple>()[1], true);
        }
        r.push_back(b);
      }
    } catch (py::error_already_set& e) {
      throw cuforge::logic_error(py::str(e.value()).cast<std::string>());
    } catch (const py::cast_error&) {
      throw cuforge::logic_error("an overload's binder gave something other than argument indices and defaults");
    }
    return r;
  }

 private:
  py::object fn_;  // (the registry is never destroyed, so neither is this)
};

void bind_compiler(py::module_& m) {
  m.def("register_overload", [](const std::string& key, py::object fn) {
    register_overload(key, std::make_shared<py_overload_resolver>(std::move(fn)));
  }, py::arg("key"), py::arg("resolver"),
     "Registers an implementation resolver under key (frontend/extending.hpp): resolver(specs) gives a "
     "FunctionIR or None.");
  m.def("compile_cuda_source", [](const std::string& source, const std::string& name, std::pair<int, int> cc,
                                  bool lto) {
    nvrtc_result r;
    {
      py::gil_scoped_release nogil;
      r = compile_cuda_source(source, name, compute_capability{cc.first, cc.second}, lto, {});
    }
    return py::make_tuple(py::bytes(r.code), r.log);
  }, py::arg("source"), py::arg("name"), py::arg("cc"), py::arg("lto") = false,
     "CUDA C++ compiled by NVRTC as relocatable device code: (PTX or LTO-IR bytes, log).");
  m.def("compile_cuda_file", [](const std::string& path, std::pair<int, int> cc, bool lto) {
    nvrtc_result r;
    {
      py::gil_scoped_release nogil;
      r = compile_cuda_file(path, compute_capability{cc.first, cc.second}, lto);
    }
    return py::make_tuple(py::bytes(r.code), r.log);
  }, py::arg("path"), py::arg("cc"), py::arg("lto") = false,
     "A source file (.cu, .cpp, .c) compiled by NVRTC as the GPU link does: (PTX or LTO-IR bytes, log).");
  m.def("link_kind", [](const std::string& path) {
    switch (link_kind_of(path)) {
      case link_kind::cuda_source:
      case link_kind::cpp_source:
      case link_kind::c_source: return "source";
      case link_kind::ptx: return "ptx";
      case link_kind::cubin: return "cubin";
      case link_kind::fatbin: return "fatbin";
      case link_kind::ltoir: return "ltoir";
      case link_kind::object: return "o";
      case link_kind::library: return "a";
    }
    return "?";
  }, py::arg("path"), "What a file to link is, by its extension: 'source', 'ptx', 'cubin', 'fatbin', 'ltoir', 'o', "
                      "'a' (ValueError naming it otherwise).");
  m.def("host_library", [](const std::vector<std::string>& inputs) {
    py::gil_scoped_release nogil;
    return host_library(inputs);
  }, py::arg("inputs"), "The shared library the cpu backend builds from C/C++ sources (its path).");
  m.def("check_intrinsic_ir", [](const std::string& ir, const std::string& symbol, const std::vector<std::string>& args,
                                 const std::string& ret) {
    std::vector<const type*> params;
    for (const auto& a : args) params.push_back(jit::parse_type(a));
    check_intrinsic_ir(ir, symbol, params, jit::parse_type(ret));
  }, py::arg("ir"), py::arg("symbol"), py::arg("arg_specs"), py::arg("ret_spec"),
     "Checks an intrinsic's LLVM IR: it parses and defines symbol with the signature's types (ValueError).");
  m.def("nvrtc_version", [] { return nvrtc_version(); }, "NVRTC's version (major * 1000 + minor * 10), 0 if absent.");

  py::class_<function, std::shared_ptr<function>>(m, "FunctionIR", "A function's IR (untyped or typed).")
      .def_readonly("name", &function::name)
      .def_readonly("qualname", &function::qualname)
      .def_readonly("fingerprint", &function::fingerprint)
      .def("dump", &function::dump);

  py::enum_<binop>(m, "BinOp")
      .value("add", binop::add).value("sub", binop::sub).value("mul", binop::mul)
      .value("truediv", binop::truediv).value("floordiv", binop::floordiv).value("mod", binop::mod)
      .value("pow", binop::pow).value("lshift", binop::lshift).value("rshift", binop::rshift)
      .value("bitor", binop::bitor_).value("bitxor", binop::bitxor).value("bitand", binop::bitand_)
      .value("matmul", binop::matmul);
  py::enum_<unop>(m, "UnaryOp")
      .value("neg", unop::neg).value("pos", unop::pos).value("invert", unop::invert).value("not_", unop::not_);
  py::enum_<cmpop>(m, "CmpOp")
      .value("eq", cmpop::eq).value("ne", cmpop::ne).value("lt", cmpop::lt).value("le", cmpop::le)
      .value("gt", cmpop::gt).value("ge", cmpop::ge).value("is_", cmpop::is).value("is_not", cmpop::is_not)
      .value("in_", cmpop::in).value("not_in", cmpop::not_in);

  // Every method takes (..., line, col) last and returns the new node's id.
  py::class_<builder>(m, "IRBuilder", "Builds a function's IR (see frontend/ir.hpp); the walker drives it.")
      .def(py::init<std::string, std::string, std::string, std::int32_t>(), py::arg("name"), py::arg("qualname"),
           py::arg("filename"), py::arg("first_line"))
      .def("param", [](builder& b, const std::string& n, py::handle l, py::handle c) { return b.param(n, loc_of(l, c)); })
      .def("variable", [](builder& b, const std::string& n, py::handle l, py::handle c) { return b.variable(n, loc_of(l, c)); })
      .def("constant", [](builder& b, py::handle v, bool weak, py::handle l, py::handle c) {
        return b.constant(constant_of(v, weak), loc_of(l, c));
      }, py::arg("value"), py::arg("weak"), py::arg("line"), py::arg("col"))
      .def("typed_constant", [](builder& b, py::handle v, const std::string& typestr, py::handle l, py::handle c) {
        // A NumPy scalar: its value (as a Python number) and its type.
        return b.constant(typed_constant_of(v, typestr), loc_of(l, c));
      }, py::arg("value"), py::arg("typestr"), py::arg("line"), py::arg("col"))
      .def("global_", [](builder& b, py::dict g) { return b.global(global_of(g)); },
           "Adds a resolved global (a dict: kind, name, value, typestr, elements, shape, data, callee).")
      .def("name", [](builder& b, var_id v, py::handle l, py::handle c) { return b.name(v, loc_of(l, c)); })
      .def("global_ref", [](builder& b, std::int32_t g, py::handle l, py::handle c) { return b.global_ref(g, loc_of(l, c)); })
      .def("unary", [](builder& b, unop op, expr_id a, py::handle l, py::handle c) { return b.unary(op, a, loc_of(l, c)); })
      .def("binary", [](builder& b, binop op, expr_id a, expr_id x, py::handle l, py::handle c, bool inplace) {
        return b.binary(op, a, x, loc_of(l, c), inplace);
      }, py::arg("op"), py::arg("a"), py::arg("b"), py::arg("line"), py::arg("col"), py::arg("inplace") = false)
      .def("compare", [](builder& b, cmpop op, expr_id a, expr_id x, py::handle l, py::handle c) {
        return b.compare(op, a, x, loc_of(l, c));
      })
      .def("logical", [](builder& b, bool is_and, expr_id a, expr_id x, py::handle l, py::handle c) {
        return b.logical(is_and, a, x, loc_of(l, c));
      })
      .def("conditional", [](builder& b, expr_id cond, expr_id t, expr_id e, py::handle l, py::handle c) {
        return b.conditional(cond, t, e, loc_of(l, c));
      })
      .def("call", [](builder& b, expr_id callee, std::vector<expr_id> args, std::vector<std::string> kw, py::handle l,
                      py::handle c) { return b.call(callee, std::move(args), std::move(kw), loc_of(l, c)); })
      .def("attribute", [](builder& b, expr_id o, const std::string& n, py::handle l, py::handle c) {
        return b.attribute(o, n, loc_of(l, c));
      })
      .def("subscript", [](builder& b, expr_id o, expr_id i, py::handle l, py::handle c) {
        return b.subscript(o, i, loc_of(l, c));
      })
      .def("tuple", [](builder& b, std::vector<expr_id> es, py::handle l, py::handle c) { return b.tuple(std::move(es), loc_of(l, c)); })
      .def("slice", [](builder& b, expr_id s0, expr_id s1, expr_id s2, py::handle l, py::handle c) {
        return b.slice(s0, s1, s2, loc_of(l, c));
      })
      .def("assign", [](builder& b, expr_id t, expr_id v, py::handle l, py::handle c) { return b.assign(t, v, loc_of(l, c)); })
      .def("expression", [](builder& b, expr_id v, py::handle l, py::handle c) { return b.expression(v, loc_of(l, c)); })
      .def("if_", [](builder& b, expr_id cond, std::vector<stmt_id> body, std::vector<stmt_id> orelse, py::handle l,
                     py::handle c) { return b.if_(cond, std::move(body), std::move(orelse), loc_of(l, c)); })
      .def("while_", [](builder& b, expr_id cond, std::vector<stmt_id> body, std::vector<stmt_id> orelse, py::handle l,
                        py::handle c) { return b.while_(cond, std::move(body), std::move(orelse), loc_of(l, c)); })
      .def("for_range", [](builder& b, var_id v, expr_id start, expr_id stop, expr_id step, std::vector<stmt_id> body,
                           std::vector<stmt_id> orelse, py::handle l, py::handle c) {
        return b.for_range(v, start, stop, step, std::move(body), std::move(orelse), loc_of(l, c));
      })
      .def("break_", [](builder& b, py::handle l, py::handle c) { return b.break_(loc_of(l, c)); })
      .def("continue_", [](builder& b, py::handle l, py::handle c) { return b.continue_(loc_of(l, c)); })
      .def("return_", [](builder& b, expr_id v, py::handle l, py::handle c) { return b.return_(v, loc_of(l, c)); })
      .def("pass_", [](builder& b, py::handle l, py::handle c) { return b.pass(loc_of(l, c)); })
      .def("raise_", [](builder& b, expr_id v, py::handle l, py::handle c) { return b.raise_(v, loc_of(l, c)); })
      .def("assert_", [](builder& b, expr_id cond, std::string msg, py::handle l, py::handle c) {
        return b.assert_(cond, std::move(msg), loc_of(l, c));
      })
      .def("set_body", &builder::set_body)
      .def("set_source", &builder::set_source)
      .def("set_fingerprint", &builder::set_fingerprint)
      .def("set_varargs", &builder::set_varargs)
      .def("finish", &builder::finish);

  m.attr("NO_ID") = no_id;

  // The toolkit search (frontend/toolkit.hpp), by part name: "libdevice", "nvrtc", "nvjitlink", "ptxas", "nvvm".
  static const auto part_of = [](const std::string& name) {
    std::string names;
    for (auto p : toolkit_parts()) {
      if (name == to_string(p)) return p;
      names += (names.empty() ? "" : ", ") + std::string(to_string(p));
    }
    throw py::value_error("no toolkit part '" + name + "': " + names);
  };
  m.def("add_toolkit_root", [](std::string path, std::string found_by) {
    add_toolkit_root({std::move(path), std::move(found_by)});
  }, py::arg("path"), py::arg("found_by"),
     "A folder laid out as a CUDA toolkit (cuforge/_toolkit.py adds NVIDIA's pip wheels), searched after the "
     "environment's.");
  m.def("toolkit_roots", [] {
    py::list out;
    for (auto& c : toolkit_roots()) out.append(py::make_tuple(c.path, c.found_by));
    return out;
  }, "The toolkit folders searched, in order, as (path, found_by).");
  m.def("toolkit_candidates", [](const std::string& part) {
    py::list out;
    for (auto& c : toolkit_candidates(part_of(part))) out.append(py::make_tuple(c.path, c.found_by));
    return out;
  }, py::arg("part"), "Every place searched for a toolkit part, in order, as (path, found_by).");
  m.def("toolkit_location", [](const std::string& part) {
    auto c = toolkit_location(part_of(part));
    return py::make_tuple(c.path, c.found_by);
  }, py::arg("part"), "Where a toolkit part is, as (path, found_by); raises naming every place searched when none "
     "exists.");
  m.def("toolkit_override_variable", [](const std::string& part) { return std::string(override_variable(part_of(part))); },
        py::arg("part"));

  m.def("intrinsics", [] {
    py::list rows;
    for (const auto& e : intrinsics()) {
      py::dict d;
      d["name"] = std::string(e.name);
      d["kind"] = std::string(to_string(e.kind));
      d["cpu"] = std::string(to_string(e.cpu));
      d["params"] = std::string(e.params);
      d["doc"] = std::string(e.doc);
      d["alias_of"] = std::string(e.alias_of);
      rows.append(d);
    }
    return py::tuple(rows);
  }, "The intrinsic registry (frontend/intrinsics.hpp): one dict per entry (name, kind, cpu, params, doc, alias_of), in "
     "index order. cuforge.cuda's kernel-side names, its stub and docs/intrinsics.md are made from it.");

  py::class_<compile_config>(m, "CompileConfig",
                             "What one compilation is for (frontend/compile_config.hpp): target, compute capability "
                             "and the options that change the code. Hashable; `key` is the disk cache's.")
      .def(py::init([](const std::string& target, std::optional<std::pair<int, int>> cc, bool fastmath, int debug_level,
                       bool lineinfo, bool opt, int max_registers, bool host_only, std::tuple<int, int, int> bounds,
                       bool boundscheck, const std::string& abi, const std::string& abi_name,
                       const std::string& error_model) {
             compile_config c;
             if (target == "nvptx")
               c.target = target_kind::nvptx;
             else if (target == "host")
               c.target = target_kind::host;
             else
               throw py::value_error("CompileConfig: target must be 'nvptx' or 'host', not '" + target + "'");
             if (cc) c.cc = {cc->first, cc->second};
             c.fastmath = fastmath;
             c.debug_level = debug_level;
             c.lineinfo = lineinfo;
             c.boundscheck = boundscheck;
             c.opt = opt;
             c.max_registers = max_registers;
             std::tie(c.max_threads_per_block, c.min_blocks_per_sm, c.max_blocks_per_cluster) = bounds;
             if (host_only && c.target != target_kind::host)
               throw py::value_error("CompileConfig: host_only code is compiled for the host target");
             c.host_only = host_only;
             if (abi != "numba" && abi != "c")
               throw py::value_error("CompileConfig: abi must be 'numba' or 'c', not '" + abi + "'");
             c.c_abi = abi == "c";
             c.abi_name = abi_name;
             if (error_model != "numpy" && error_model != "python")
               throw py::value_error("CompileConfig: error_model must be 'python' or 'numpy', not '" + error_model + "'");
             c.python_error_model = error_model == "python";
             c.validate();
             return c;
           }),
           py::kw_only(), py::arg("target") = "nvptx", py::arg("cc") = py::none(), py::arg("fastmath") = false,
           py::arg("debug_level") = 0, py::arg("lineinfo") = false, py::arg("opt") = true, py::arg("max_registers") = 0,
           py::arg("host_only") = false, py::arg("launch_bounds") = std::make_tuple(0, 0, 0),
           py::arg("boundscheck") = false, py::arg("abi") = "numba", py::arg("abi_name") = "",
           py::arg("error_model") = "numpy")
      .def_property_readonly("target", [](const compile_config& c) { return std::string(to_string(c.target)); })
      .def_property_readonly("cc", [](const compile_config& c) { return py::make_tuple(c.cc.major, c.cc.minor); })
      .def_readonly("fastmath", &compile_config::fastmath)
      .def_readonly("debug_level", &compile_config::debug_level)
      .def_readonly("lineinfo", &compile_config::lineinfo)
      .def_readonly("boundscheck", &compile_config::boundscheck)
      .def_readonly("opt", &compile_config::opt)
      .def_readonly("max_registers", &compile_config::max_registers)
      .def_readonly("host_only", &compile_config::host_only)
      .def_property_readonly("error_model",
                             [](const compile_config& c) { return c.python_error_model ? "python" : "numpy"; })
      .def_property_readonly("abi", [](const compile_config& c) { return c.c_abi ? "c" : "numba"; })
      .def_readonly("abi_name", &compile_config::abi_name)
      .def_property_readonly("launch_bounds", [](const compile_config& c) {
        return py::make_tuple(c.max_threads_per_block, c.min_blocks_per_sm, c.max_blocks_per_cluster);
      })
      .def_property_readonly("key", &compile_config::key)
      .def("for_active_backend", &compile_config::for_active_backend,
           "These options for the active backend's kernels: its target, and on a GPU the current device's "
           "compute capability.")
      .def("__eq__", [](const compile_config& a, py::handle b) {
        return py::isinstance<compile_config>(b) && a == b.cast<const compile_config&>();
      })
      .def("__hash__", &compile_config::hash)
      .def("__repr__", [](const compile_config& c) { return "<CompileConfig " + c.key() + ">"; });
}

}  // namespace cuforge::python

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
  m.def("call_on_host_parallel", [](compiled_kernel& k, std::vector<std::vector<std::uint64_t>> calls) {
    py::gil_scoped_release nogil;
    jit::host_parallel_for(calls.size(), [&](std::size_t i) { jit::call_on_host(k, calls[i]); });
  }, py::arg("compiled"), py::arg("calls"),
     "Runs a host-target specialisation once per slot list, the calls spread over the host workers.");
  m.def("host_workers", &jit::host_workers, "The host threads the 'parallel' target spreads work over.");
}

}  // namespace cuforge::python

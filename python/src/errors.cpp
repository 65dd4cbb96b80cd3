// One mapping from the C++ exception hierarchy to Python exceptions.
#include "common.hpp"

#include <pybind11/eval.h>

#include <cuforge/runtime/error.hpp>

#include <cuda.h>

namespace cuforge::python {
namespace {
PyObject* cuda_api_error = nullptr;
PyObject* cuda_oom_error = nullptr;

void raise_cuda(const cuda_error& e) {
  py::object cls = py::reinterpret_borrow<py::object>(cuda_api_error);
  py::object exc = cls(e.status(), e.what());
  exc.attr("name") = e.name();
  exc.attr("call") = e.call();
  exc.attr("msg") = e.message();
  PyErr_SetObject(cuda_api_error, exc.ptr());
}

void raise_oom(const out_of_memory& e) {
  py::object cls = py::reinterpret_borrow<py::object>(cuda_oom_error);
  py::object exc = cls(static_cast<int>(CUDA_ERROR_OUT_OF_MEMORY), e.what());
  exc.attr("name") = "CUDA_ERROR_OUT_OF_MEMORY";
  exc.attr("call") = "allocation";
  exc.attr("msg") = e.what();
  exc.attr("bytes") = e.bytes();
  PyErr_SetObject(cuda_oom_error, exc.ptr());
}
}  // namespace

void bind_errors(py::module_& m) {
  // CudaAPIError(code, msg): numba's constructor, so code that raises or
  // catches it by numba's rules keeps working. str() is "[NAME] Call to ...".
  py::object runtime_error = py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  py::dict ns;
  py::exec(R"(
class CudaAPIError(RuntimeError):
    """A CUDA driver call failed (or the cpu backend failed the same way).

    Attributes: code (the CUresult value), name (its name), call (the call
    that failed), msg (the driver's message)."""
    def __init__(self, code, msg):
        super().__init__(code, msg)
        self.code = code
        self.msg = msg
    def __str__(self):
        return str(self.args[1])

class CudaOutOfMemoryError(CudaAPIError, MemoryError):
    """An allocation failed; `bytes` is the size asked for."""
)", ns);
  cuda_api_error = ns["CudaAPIError"].ptr();
  cuda_oom_error = ns["CudaOutOfMemoryError"].ptr();
  Py_INCREF(cuda_api_error);
  Py_INCREF(cuda_oom_error);
  ns["CudaAPIError"].attr("__module__") = "cuforge.cuda";
  ns["CudaOutOfMemoryError"].attr("__module__") = "cuforge.cuda";
  m.attr("CudaAPIError") = ns["CudaAPIError"];
  m.attr("CudaOutOfMemoryError") = ns["CudaOutOfMemoryError"];

  py::register_exception_translator([](std::exception_ptr p) {
    if (p && !set_cuforge_error(p)) std::rethrow_exception(p);  // not ours: the next translator's
  });
  (void)runtime_error;
}

bool set_cuforge_error(std::exception_ptr p) {
  try {
    std::rethrow_exception(p);
  } catch (const cuda_error& e) {
    raise_cuda(e);
  } catch (const out_of_memory& e) {
    raise_oom(e);
  } catch (const type_error& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const index_error& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const logic_error& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (...) {
    return false;
  }
  return true;
}

void set_error_from(std::exception_ptr p) {
  try {
    std::rethrow_exception(p);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (...) {
    if (set_cuforge_error(std::current_exception())) return;
    try {
      throw;
    } catch (const std::bad_alloc&) {
      PyErr_NoMemory();
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
      PyErr_SetString(PyExc_RuntimeError, "an unknown C++ exception escaped from cuforge");
    }
  }
}

}  // namespace cuforge::python

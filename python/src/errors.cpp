// One mapping from the C++ exception hierarchy to Python exceptions.
#include "common.hpp"

#include <pybind11/eval.h>

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/jit/error_record.hpp>
#include <cuforge/runtime/error.hpp>

#include <cuda.h>

namespace cuforge::python {
namespace {
PyObject* cuda_api_error = nullptr;
PyObject* cuda_oom_error = nullptr;
PyObject* internal_error = nullptr;

void raise_internal(const frontend::internal_compiler_error& e) {
  py::object cls = py::reinterpret_borrow<py::object>(internal_error);
  py::object exc = cls(e.what());
  exc.attr("function") = e.function();
  exc.attr("detail") = e.detail();
  PyErr_SetObject(internal_error, exc.ptr());
}

// A kernel thread raised: the Python exception its error record names (a
// builtin: AssertionError, ZeroDivisionError...), in Numba's words, with the
// record's facts as attributes.
void raise_kernel(const jit::kernel_exception& e) {
  // A builtin by its name, a user's class through the walker's registry (cuforge/cuda/_errors.py).
  py::object cls = py::module_::import("cuforge.cuda._errors").attr("kernel_exception_class")(e.python_exception());
  std::string text = e.what();
  if (cls.is_none()) {
    cls = py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
    text = e.python_exception() + " (a class this process cannot find): " + text;
  }
  py::object exc;
  try {
    exc = text.empty() ? cls() : cls(text);
  } catch (const py::error_already_set&) {  // a class whose constructor takes other arguments
    exc = py::reinterpret_borrow<py::object>(PyExc_RuntimeError)(e.python_exception() + ": " + text);
    cls = py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  }
  try {
    exc.attr("tid") = py::make_tuple(e.thread()[0], e.thread()[1], e.thread()[2]);
    exc.attr("ctaid") = py::make_tuple(e.block()[0], e.block()[1], e.block()[2]);
    exc.attr("lineno") = e.line();
    exc.attr("filename") = e.filename();
  } catch (const py::error_already_set&) {  // an exception class that takes no attributes: the text has them
  }
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

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

class InternalCompilerError(RuntimeError):
    """The kernel compiler failed inside itself: a bug in cuforge, not in the
    kernel. Attributes: function (the Python function being compiled, "" when
    not known), detail (what failed)."""
)", ns);
  cuda_api_error = ns["CudaAPIError"].ptr();
  cuda_oom_error = ns["CudaOutOfMemoryError"].ptr();
  internal_error = ns["InternalCompilerError"].ptr();
  Py_INCREF(cuda_api_error);
  Py_INCREF(cuda_oom_error);
  Py_INCREF(internal_error);
  for (const char* name : {"CudaAPIError", "CudaOutOfMemoryError", "InternalCompilerError"}) {
    ns[name].attr("__module__") = "cuforge.cuda";
    m.attr(name) = ns[name];
  }

  m.def("_raise_for_test", [](const std::string& kind, const std::string& text) {
    if (kind == "internal") throw frontend::internal_compiler_error(text, "kernel_fn");
    if (kind == "kernel") {
      frontend::kernel_error_record r;
      r.code = static_cast<std::int32_t>(frontend::kernel_error::assertion);
      r.line = 12;
      r.thread[0] = 5;
      r.block[1] = 2;
      throw jit::kernel_exception(r, {frontend::kernel_error::assertion, "AssertionError", text, "kernel_fn", "<src>", 12});
    }
    if (kind == "logic") throw logic_error(text);
    if (kind == "type") throw type_error(text);
    if (kind == "index") throw index_error(text);
    throw std::runtime_error(text);
  }, "Raises a C++ exception of `kind` ('internal', 'kernel', 'logic', 'type', 'index') through the one mapping to "
     "Python exceptions: for that mapping's tests.");

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
  } catch (const frontend::internal_compiler_error& e) {
    raise_internal(e);
  } catch (const jit::kernel_exception& e) {
    raise_kernel(e);
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

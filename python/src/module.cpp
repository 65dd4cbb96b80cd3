// cuforge._core: the thin binding over libcuforge.
#include "common.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "cuforge's native core (use cuforge.cuda, not this module)";
  cuforge::python::bind_errors(m);
  cuforge::python::bind_runtime(m);
  cuforge::python::bind_memory(m);
  cuforge::python::bind_devicearray(m);
  cuforge::python::bind_interop(m);
  cuforge::python::bind_compiler(m);
  cuforge::python::bind_dispatch(m);
  cuforge::python::bind_ufunc(m);
}

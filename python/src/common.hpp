#pragma once

/// @file
/// Shared pieces of the binding: stream and dtype conversion, the Python
/// stream and array holders. The binding only converts: logic lives in the
/// C++ layers.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/event.hpp>
#include <cuforge/runtime/stream.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>

namespace py = pybind11;

namespace cuforge::python {

void bind_errors(py::module_& m);
void bind_runtime(py::module_& m);
void bind_memory(py::module_& m);
void bind_devicearray(py::module_& m);
void bind_interop(py::module_& m);
void bind_compiler(py::module_& m);
void bind_dispatch(py::module_& m);
void bind_ufunc(py::module_& m);

/// A Python Stream: an owned stream, or a default or external one.
struct py_stream {
  std::shared_ptr<cuforge::stream> owned;
  stream_view view;
  bool external = false;
  /// The view, after checking an owned stream outlived no close().
  stream_view get() const {
    if (owned) check_generation(owned->generation(), "stream");
    return view;
  }
};

/// A Python Event.
struct py_event {
  std::unique_ptr<cuforge::event> ev;
  cuforge::event& get() const;
};

/// A Python DeviceNDArray: the C++ array and the Stream object it is bound
/// to (kept alive so the stream outlives the arrays that use it).
struct py_devarray {
  device_ndarray a;
  py::object stream_obj = py::none();
};

/// Sets the Python error for a cuforge exception (CudaAPIError,
/// CudaOutOfMemoryError, TypeError, IndexError, ValueError); false when `p`
/// is none of ours. The one mapping: pybind11's translator uses it too.
bool set_cuforge_error(std::exception_ptr p);

/// Sets the Python error for any exception, as pybind11 would at a bound
/// function's boundary: for entry points that bypass pybind11 (call in a
/// catch block with std::current_exception()).
void set_error_from(std::exception_ptr p);

/// isinstance(obj, DeviceNDArray) by the type alone: pybind11's isinstance
/// goes through __instancecheck__, which a launch would pay per argument.
inline bool is_devarray(py::handle obj) {
  static PyTypeObject* const type =
      reinterpret_cast<PyTypeObject*>(py::detail::get_type_handle(typeid(py_devarray), true).ptr());
  return PyObject_TypeCheck(obj.ptr(), type);
}

/// The holder's deleter: dropping an array may free its memory, and a free
/// may flush the deferred ones, which waits for the device. A stream callback
/// that calls Python needs the GIL to finish, so the wait must not hold it.
struct release_without_gil {
  void operator()(py_devarray* p) const noexcept {
    device_ndarray last = std::move(p->a);
    delete p;  // the stream object, with the GIL
    py::gil_scoped_release nogil;
    last = device_ndarray();
  }
};
using py_devarray_holder = std::unique_ptr<py_devarray, release_without_gil>;

/// The stream `0`/None means: legacy default, or per-thread default when
/// CUFORGE_PER_THREAD_DEFAULT_STREAM=1 (numba's
/// NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM).
stream_view default_stream_view();

/// A stream argument as numba takes it: 0 or None (the default stream, or
/// `bound` when given), a Stream, or any object with __cuda_stream__.
/// @throws TypeError for anything else.
stream_view to_stream(py::handle obj, const py_devarray* bound = nullptr);

/// The Stream object to remember for `obj` (None for the default stream).
py::object stream_object(py::handle obj);

/// A NumPy dtype (or anything np.dtype accepts) as a device dtype.
/// @throws TypeError naming the dtype when devices cannot hold it.
dtype to_dtype(py::handle dtype_like);
py::dtype to_numpy_dtype(dtype d);

/// A NumPy array's memory as a host_view.
host_view host_view_of(const py::array& a);

/// np.asarray(obj), refusing object arrays with a clear TypeError.
py::array as_host_array(py::handle obj);

/// `obj` as a device array when it is one: a DeviceNDArray, a
/// __cuda_array_interface__ producer, or a DLPack producer whose memory is
/// on a CUDA device. NumPy arrays and other host producers are host data
/// (callers copy them). This is the one import path every API that takes an
/// array uses; `sync` follows the interface's stream rule. `launch`, when
/// given, is the stream of a kernel launch taking the array: that stream
/// waits for the producer's on the device instead of this thread waiting,
/// and a producer on the same stream is let go as soon as the launch is
/// done with it (see docs/interop.md).
std::optional<device_ndarray> device_array_of(py::handle obj, bool sync = true, const stream_view* launch = nullptr);
/// A NumPy array over a host-memory (kDLCPU) DLPack producer's memory,
/// checked as from_dlpack checks every tensor; it owns the import.
py::object host_array_of_dlpack(py::handle obj);

/// A capsule owning a reference to an allocation: the base of every NumPy
/// array over memory cuforge holds (its host memory, a host-memory DLPack
/// import), so the memory lives as long as any view; the last reference is
/// dropped without the GIL (a free may wait for the device, where a stream
/// callback may be waiting for the GIL).
py::capsule owner_capsule(std::shared_ptr<memory::allocation> a);

/// An integer (anything with __index__) as 64 bits; nullopt when it does not
/// fit, with `overflow` (when given) set to its sign.
std::optional<std::int64_t> to_int64(py::handle obj, int* overflow = nullptr);

/// A shape or strides argument: an int or a sequence of ints.
/// @throws TypeError for other things, ValueError past 64 bits.
extents to_extents(py::handle shape_like, const char* what);
py::tuple to_tuple(const extents& e);

}  // namespace cuforge::python

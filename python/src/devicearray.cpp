// DeviceNDArray for Python, with numba's surface, and the array-making
// functions (to_device, device_array, ...).
#include "common.hpp"

#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/host_parallel.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace cuforge::python {

// --- conversions ----------------------------------------------------------

namespace {

// The record layout of a structured NumPy dtype: its fields (scalars, nested
// records, fixed-size arrays of either), offsets, size, aligned or packed.
dtype record_of(const py::dtype& dt) {
  record_layout r;
  r.itemsize = dt.itemsize();
  r.aligned = dt.attr("isalignedstruct").cast<bool>();
  py::dict fields = dt.attr("fields");
  for (auto name : py::list(dt.attr("names"))) {
    py::tuple f = fields[name];
    py::dtype ft = py::reinterpret_borrow<py::dtype>(f[0]);
    record_field rf;
    rf.name = py::str(name);
    rf.offset = f[1].cast<std::int64_t>();
    py::object sub = ft.attr("subdtype");
    if (!sub.is_none()) {
      py::tuple st = sub;
      for (auto e : py::tuple(st[1])) rf.shape.push_back(e.cast<std::int64_t>());
      ft = py::reinterpret_borrow<py::dtype>(st[0]);
    }
    rf.type = to_dtype(ft);
    r.fields.push_back(std::move(rf));
  }
  return dtype::of_record(intern_record(std::move(r)));
}

}  // namespace

dtype to_dtype(py::handle dtype_like) {
  py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype_like));
  if (!dt.attr("fields").is_none()) return record_of(dt);
  if (!dt.attr("subdtype").is_none())
    throw type_error("a sub-array dtype (" + std::string(py::str(dt)) +
                     ") is not an element type: give the array the extra dimensions instead");
  return dtype::from_typestr(std::string(py::str(dt.attr("str"))));
}

py::dtype to_numpy_dtype(dtype d) {
  if (!d.is_record()) return py::dtype(d.typestr());
  // One NumPy dtype per layout, made once (the GIL guards the map).
  static auto* made = new std::unordered_map<const record_layout*, py::object>;
  if (auto it = made->find(d.record); it != made->end()) return py::reinterpret_borrow<py::dtype>(it->second);
  py::list names, formats, offsets;
  for (const record_field& f : d.record->fields) {
    names.append(f.name);
    py::object fmt = to_numpy_dtype(f.type);
    if (!f.shape.empty()) {
      py::tuple shape(f.shape.size());
      for (std::size_t i = 0; i < f.shape.size(); ++i) shape[i] = f.shape[i];
      fmt = py::make_tuple(fmt, shape);
    }
    formats.append(fmt);
    offsets.append(f.offset);
  }
  py::dict spec;
  spec["names"] = names;
  spec["formats"] = formats;
  spec["offsets"] = offsets;
  spec["itemsize"] = d.record->itemsize;
  py::dtype out = py::module_::import("numpy").attr("dtype")(spec, py::arg("align") = d.record->aligned);
  made->emplace(d.record, out);
  return out;
}

host_view host_view_of(const py::array& a) {
  host_view v;
  v.data = const_cast<void*>(a.data());
  v.type = to_dtype(a.dtype());
  v.shape.assign(a.shape(), a.shape() + a.ndim());
  v.strides.assign(a.strides(), a.strides() + a.ndim());
  return v;
}

py::array as_host_array(py::handle obj) {
  static py::object asarray = py::module_::import("numpy").attr("asarray");
  py::array a = asarray(obj);
  if (a.dtype().kind() == 'O')
    throw py::type_error("cannot put an array of Python objects (dtype object) in device memory: "
                         "give it a numeric dtype");
  return a;
}

std::optional<std::int64_t> to_int64(py::handle obj, int* overflow) {
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!i) throw py::error_already_set();
  int sign = 0;
  long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &sign);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow) *overflow = sign;
  if (sign) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

namespace {
std::int64_t extent_value(py::handle item, const char* what) {
  auto v = to_int64(item);
  if (!v)
    throw py::value_error(std::string(what) + " value " + std::string(py::str(item)) +
                          " is too big: array sizes must fit in 64 bits");
  return *v;
}
}  // namespace

extents to_extents(py::handle shape_like, const char* what) {
  extents e;
  if (PyLong_Check(shape_like.ptr()) || py::hasattr(shape_like, "__index__")) {
    if (PyBool_Check(shape_like.ptr())) throw py::type_error(std::string(what) + " must be an int or a tuple of ints");
    e.push_back(extent_value(shape_like, what));
    return e;
  }
  if (!py::isinstance<py::sequence>(shape_like) || py::isinstance<py::str>(shape_like))
    throw py::type_error(std::string(what) + " must be an int or a tuple of ints, not " +
                         std::string(py::str(py::type::of(shape_like).attr("__name__"))));
  for (auto item : py::reinterpret_borrow<py::sequence>(shape_like)) {
    if (PyBool_Check(item.ptr()) || !(PyLong_Check(item.ptr()) || py::hasattr(item, "__index__")))
      throw py::type_error(std::string(what) + " must contain only ints, found " + std::string(py::repr(item)));
    e.push_back(extent_value(item, what));
  }
  return e;
}

py::tuple to_tuple(const extents& e) {
  py::tuple t(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) t[i] = e[i];
  return t;
}

namespace {

// --- indexing -------------------------------------------------------------

// A slice bound or step; beyond 64 bits it saturates, as Python's own
// slices do at the limits of Py_ssize_t (never -INT64_MIN: steps negate).
std::optional<std::int64_t> slice_part(py::handle v) {
  if (v.is_none()) return std::nullopt;
  int overflow = 0;
  auto x = to_int64(v, &overflow);
  constexpr auto top = std::numeric_limits<std::int64_t>::max();
  if (!x) return overflow > 0 ? top : -top;
  return std::max(*x, -top);
}

// A 0-d integer NumPy array indexes as the integer it holds, as in NumPy.
bool is_integer_scalar_array(py::handle k) {
  if (!py::isinstance<py::array>(k)) return false;
  auto a = py::reinterpret_borrow<py::array>(k);
  char kind = a.dtype().kind();
  return a.ndim() == 0 && (kind == 'i' || kind == 'u');
}

index_item to_index_item(py::handle k) {
  index_item it;
  if (PyBool_Check(k.ptr()))
    throw py::index_error("boolean indices are advanced indexing, which device arrays do not support");
  if (PyLong_Check(k.ptr()) || (py::hasattr(k, "__index__") && !py::isinstance<py::array>(k)) ||
      is_integer_scalar_array(k)) {
    it.k = index_item::kind::integer;
    auto v = to_int64(k);
    if (!v) throw py::index_error("index " + std::string(py::str(k)) + " is out of bounds: it does not fit in 64 bits");
    it.value = *v;
  } else if (PySlice_Check(k.ptr())) {
    it.k = index_item::kind::slice;
    it.start = slice_part(k.attr("start"));
    it.stop = slice_part(k.attr("stop"));
    it.step = slice_part(k.attr("step"));
  } else if (k.ptr() == Py_Ellipsis) {
    it.k = index_item::kind::ellipsis;
  } else if (k.is_none()) {
    it.k = index_item::kind::newaxis;
  } else {
    throw py::index_error("only integers, slices (':'), ellipsis ('...') and None are valid device array "
                          "indices (advanced indexing is not supported); got " +
                          std::string(py::str(py::type::of(k).attr("__name__"))));
  }
  return it;
}

std::vector<index_item> to_index(py::handle key) {
  std::vector<index_item> items;
  if (py::isinstance<py::tuple>(key)) {
    for (auto k : py::reinterpret_borrow<py::tuple>(key)) items.push_back(to_index_item(k));
  } else {
    items.push_back(to_index_item(key));
  }
  return items;
}

bool selects_scalar(const std::vector<index_item>& idx, std::size_t ndim) {
  std::size_t ints = 0;
  for (auto& i : idx) {
    if (i.k != index_item::kind::integer) return false;
    ++ints;
  }
  return ints == ndim;
}

// --- copies ---------------------------------------------------------------

void sync_if_default(stream_view s) {
  // numba's rule: without an explicit stream, transfers are synchronous.
  if (s.is_default()) s.synchronize();
}

py::array host_result(const device_ndarray& a) {
  auto order = a.is_f_contiguous() && !a.is_c_contiguous() ? py::array::f_style : py::array::c_style;
  if (order == py::array::f_style)
    return py::array(to_numpy_dtype(a.type()), a.shape(), contiguous_strides(a.shape(), a.itemsize(), 'F'));
  return py::array(to_numpy_dtype(a.type()), a.shape());
}

// A fresh host result of many megabytes: its pages faulted in over the host's
// cores before a copy writes it. A copy out into fresh pages has the OS zero
// each one as it is first touched, on one thread: the hidden layer's copy back
// of 400 MB took 0.139 s on an H200's host, where the copy itself moves 14 GB/s.
// Only for an array just made: the writes are zeros into undefined contents.
void prefault(py::array& a) {
  const auto bytes = static_cast<std::size_t>(a.nbytes());
  constexpr std::size_t threshold = std::size_t{32} << 20, piece = std::size_t{4} << 20, page = 4096;
  if (bytes < threshold || cuforge::host_workers() < 2) return;
  char* p = static_cast<char*>(a.mutable_data());
  py::gil_scoped_release nogil;
  cuforge::host_parallel_for((bytes + piece - 1) / piece, [p, bytes](std::size_t i) {
    const std::size_t end = std::min(bytes, (i + 1) * piece);
    for (std::size_t at = i * piece; at < end; at += page) *reinterpret_cast<volatile char*>(p + at) = 0;
  });
}

// numba copies between shapes that differ only in extent-1 axes ((3,) and
// (3, 1)); the strides of `shape` laid out for `target` when they do so.
std::optional<extents> strides_for(const extents& shape, const extents& strides, const extents& target) {
  if (shape == target) return strides;
  extents kept_shape, kept_strides, want;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1) {
      kept_shape.push_back(shape[i]);
      kept_strides.push_back(strides[i]);
    }
  for (auto e : target)
    if (e != 1) want.push_back(e);
  if (kept_shape != want) return std::nullopt;
  extents out;
  std::size_t next = 0;
  for (auto e : target) out.push_back(e == 1 ? 0 : kept_strides[next++]);
  return out;
}

// `hv` seen with `target`'s shape when the two differ only in extent-1 axes;
// else unchanged, for the copy to report the mismatch.
host_view conformed(host_view hv, const extents& target) {
  if (auto st = strides_for(hv.shape, hv.strides, target)) {
    hv.strides = *st;
    hv.shape = target;
  }
  return hv;
}

device_ndarray conformed(const device_ndarray& a, const extents& target) {
  if (a.shape() == target) return a;
  if (auto st = strides_for(a.shape(), a.strides(), target))
    return device_ndarray(a.allocation(), a.offset(), target, *st, a.type(), a.stream());
  return a;
}

// `value` as an array of `want`, converted as NumPy's assignment converts:
// arrays cast as astype() does; Python and NumPy scalars and lists are
// checked (OverflowError for an integer out of range, ValueError for NaN to
// an integer, ...).
py::array converted(py::handle value, const py::array& host, const py::dtype& want) {
  if (host.dtype().equal(want)) return host;
  if (py::isinstance<py::array>(value)) return host.attr("astype")(want);
  py::array out(want, std::vector<py::ssize_t>(host.shape(), host.shape() + host.ndim()));
  out.attr("__setitem__")(py::ellipsis(), value);
  return out;
}

// `value` as a host array of `want`: converted() for numbers; for records,
// NumPy's reading of tuples (and records) as elements of the structured dtype.
py::array host_value(py::handle value, const py::dtype& want) {
  if (want.attr("fields").is_none() || py::isinstance<py::array>(value))
    return converted(value, as_host_array(value), want);
  static py::object asarray = py::module_::import("numpy").attr("asarray");
  return asarray(value, py::arg("dtype") = want);
}

py::object copy_to_host(const py_devarray& self, py::handle ary, py::handle stream) {
  stream_view s = to_stream(stream, &self);
  py::array out;
  if (ary.is_none()) {
    out = host_result(self.a);
    prefault(out);
  } else {
    if (!py::isinstance<py::array>(ary))
      throw py::type_error("copy_to_host(ary=...) needs a NumPy array, not " +
                           std::string(py::str(py::type::of(ary).attr("__name__"))));
    out = py::reinterpret_borrow<py::array>(ary);
    if (!out.writeable()) throw py::value_error("copy_to_host: the destination array is read-only");
  }
  host_view hv = conformed(host_view_of(out), self.a.shape());
  {
    py::gil_scoped_release nogil;
    self.a.copy_to_host(hv, s, s.is_default());  // numba's rule: without a stream, synchronous
  }
  return out;
}

// NumPy's assignment drops a value's leading extent-1 axes beyond the
// target's rank ((1, 3) into (3,)); and an element takes only a scalar.
void fit_rank(extents& shape, extents& strides, std::size_t ndim, bool element) {
  if (element && !shape.empty())
    throw py::value_error("setting an array element with a sequence (of shape " +
                          std::string(py::str(to_tuple(shape))) + ")");
  while (shape.size() > ndim && shape.front() == 1) {
    shape.erase(shape.begin());
    strides.erase(strides.begin());
  }
}

// Assigns `value` (device array, host array, list or scalar) to `view`,
// broadcasting and converting the dtype as NumPy assignment does. `element`:
// the index picked one element (a[1, 2] = ...), not a view (a[1:2] = ...).
void assign(device_ndarray& view, py::handle value, stream_view s, bool element) {
  if (auto dev = device_array_of(value)) {
    const auto& whole = *dev;
    extents shape = whole.shape(), strides = whole.strides();
    fit_rank(shape, strides, view.ndim(), element);
    device_ndarray src(whole.allocation(), whole.offset(), shape, strides, whole.type(), whole.stream());
    if (src.type() == view.type()) {
      py::gil_scoped_release nogil;
      view.copy_from(src, s);
      sync_if_default(s);
      return;
    }
    // A dtype conversion: through the host until kernels can do it here.
    py::array host = host_result(src);
    host_view hv = host_view_of(host);
    {
      py::gil_scoped_release nogil;
      src.copy_to_host(hv, s);
      s.synchronize();
    }
    assign(view, host.attr("astype")(to_numpy_dtype(view.type())), s, element);
    return;
  }
  py::array host = host_value(value, to_numpy_dtype(view.type()));
  if (!py::isinstance<py::array>(value) && static_cast<std::size_t>(host.ndim()) > view.ndim() && !element)
    // NumPy reads a sequence no deeper than the target ([[1, 2]] into (2,) fails).
    throw py::value_error("setting an array element with a sequence: " + std::to_string(host.ndim()) +
                          " levels of nesting for a " + std::to_string(view.ndim()) + "-dimensional target");
  host_view hv = host_view_of(host);
  fit_rank(hv.shape, hv.strides, view.ndim(), element);
  if (element_count(hv.shape) == 1) {
    // One value: a fill, whatever the target's layout.
    std::vector<char> bytes(view.itemsize());
    std::memcpy(bytes.data(), hv.data, view.itemsize());
    py::gil_scoped_release nogil;
    view.fill(bytes.data(), s);
    sync_if_default(s);
    return;
  }
  hv.strides = broadcast_strides(hv.shape, hv.strides, view.shape());
  hv.shape = view.shape();
  py::gil_scoped_release nogil;
  view.copy_from_host(hv, s, s.is_default());
}

// numba's copy_to_device: no broadcasting; shapes equal up to extent-1 axes.
// Host arrays must have the array's dtype (TypeError otherwise, as numba);
// lists and scalars are converted to it.
void copy_to_device(py_devarray& self, py::handle ary, py::handle stream) {
  stream_view s = to_stream(stream, &self);
  if (auto dev = device_array_of(ary)) {
    const device_ndarray src = conformed(*dev, self.a.shape());
    if (src.shape() != self.a.shape())
      throw py::value_error("copy_to_device: shapes differ (" + std::string(py::str(to_tuple(self.a.shape()))) +
                            " and " + std::string(py::str(to_tuple(src.shape()))) + ")");
    py::gil_scoped_release nogil;
    self.a.copy_from(src, s);
    sync_if_default(s);
    return;
  }
  py::array host = py::isinstance<py::array>(ary) ? as_host_array(ary) : host_value(ary, to_numpy_dtype(self.a.type()));
  host_view hv = conformed(host_view_of(host), self.a.shape());
  py::gil_scoped_release nogil;
  self.a.copy_from_host(hv, s, s.is_default());
}

// A 0-d device array of records as numba's DeviceRecord (a view of the element).
py::object device_record(py_devarray a) {
  static py::object cls = py::module_::import("cuforge.cuda.cudadrv.devicearray").attr("DeviceRecord");
  return cls.attr("_wrap")(py::cast(std::move(a)));
}

py::object getitem(const py_devarray& self, py::handle key, py::handle stream) {
  auto idx = to_index(key);
  device_ndarray v = self.a.view(idx);
  if (selects_scalar(idx, self.a.ndim()) && v.type().is_record()) return device_record(py_devarray{std::move(v), self.stream_obj});
  if (selects_scalar(idx, self.a.ndim())) {
    stream_view s = to_stream(stream, &self);
    py::array one(to_numpy_dtype(v.type()), extents{});
    host_view hv = host_view_of(one);
    {
      py::gil_scoped_release nogil;
      v.copy_to_host(hv, s);
      s.synchronize();
    }
    return one[py::tuple()];
  }
  return py::cast(py_devarray{std::move(v), self.stream_obj});
}

void setitem(py_devarray& self, py::handle key, py::handle value, py::handle stream) {
  auto idx = to_index(key);
  device_ndarray v = self.a.view(idx);
  assign(v, value, to_stream(stream, &self), selects_scalar(idx, self.a.ndim()));
}

py_devarray make_array(const extents& shape, dtype t, py::handle strides, char order, py::handle stream) {
  stream_view s = to_stream(stream);
  py::object sobj = stream_object(stream);
  device_ndarray a;
  std::optional<extents> st;
  if (!strides.is_none()) st = to_extents(strides, "strides");
  {
    // Allocating may flush deferred frees (memory ran out), which waits for the device.
    py::gil_scoped_release nogil;
    a = st ? device_ndarray::empty_strided(shape, *st, t, s) : device_ndarray::empty(shape, t, order, s);
  }
  return py_devarray{std::move(a), std::move(sobj)};
}

char order_of(py::handle order) {
  std::string o = py::str(order);
  if (o != "C" && o != "F") throw py::value_error("order must be 'C' or 'F', not '" + o + "'");
  return o[0];
}

char layout_of(const py::array& a) {
  bool c = a.flags() & py::array::c_style, f = a.flags() & py::array::f_style;
  return f && !c ? 'F' : 'C';
}

namespace {
// The layout numba's *_array_like functions give a new array like one with
// this shape and these strides: C or F order when it is contiguous (or has
// at most one dimension); otherwise dense strides that keep the axes' order
// of stride size (NumPy's empty_like with order='K', sorting the strides as
// numba does: by signed value, ties in axis order).
struct like_layout {
  extents shape;
  dtype type;
  std::optional<extents> strides;
  char order = 'C';
};

like_layout layout_like(const extents& shape, const extents& strides, std::int64_t itemsize, bool c, bool f) {
  like_layout out;
  out.shape = shape;
  out.order = f && !c ? 'F' : 'C';
  if (c || f || shape.size() <= 1) return out;
  std::vector<std::size_t> axes(shape.size());
  for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = i;
  std::stable_sort(axes.begin(), axes.end(), [&](std::size_t a, std::size_t b) { return strides[a] < strides[b]; });
  extents dense(shape.size());
  std::int64_t step = itemsize;
  for (std::size_t axis : axes) {
    dense[axis] = step;
    step *= shape[axis];
  }
  out.strides = std::move(dense);
  return out;
}

like_layout layout_like(py::handle ary) {
  if (auto dev = device_array_of(ary)) {
    const auto& a = *dev;
    like_layout l = layout_like(a.shape(), a.strides(), a.itemsize(), a.is_c_contiguous(), a.is_f_contiguous());
    l.type = a.type();
    return l;
  }
  py::array host = as_host_array(ary);
  like_layout l = layout_like(extents(host.shape(), host.shape() + host.ndim()),
                              extents(host.strides(), host.strides() + host.ndim()), host.itemsize(),
                              host.flags() & py::array::c_style, host.flags() & py::array::f_style);
  l.type = to_dtype(host.dtype());
  return l;
}
}  // namespace

std::string repr(const py_devarray& self) {
  std::string shape = py::str(to_tuple(self.a.shape()));
  return "<cuforge.cuda.DeviceNDArray shape=" + shape + " dtype=" + self.a.type().name() + " device=" +
         std::to_string(self.a.device()) + " (" + std::string(to_string(active_backend())) + ")>";
}

}  // namespace

void bind_devicearray(py::module_& m) {
  py::class_<py_devarray, py_devarray_holder>(m, "DeviceNDArray", "An array in device memory (numba's DeviceNDArray).")
      .def(py::init([](py::handle shape, py::handle strides, py::handle dt, py::handle stream) {
             dtype t = to_dtype(dt);
             return make_array(to_extents(shape, "shape"), t, strides, 'C', stream);
           }),
           py::arg("shape"), py::arg("strides") = py::none(), py::arg("dtype") = py::dtype("float64"),
           py::arg("stream") = 0)
      .def_property_readonly("shape", [](const py_devarray& s) { return to_tuple(s.a.shape()); })
      .def_property_readonly("strides", [](const py_devarray& s) { return to_tuple(s.a.strides()); })
      .def_property_readonly("dtype", [](const py_devarray& s) { return to_numpy_dtype(s.a.type()); })
      .def_property_readonly("size", [](const py_devarray& s) { return s.a.size(); })
      .def_property_readonly("nbytes", [](const py_devarray& s) { return s.a.nbytes(); })
      .def_property_readonly("ndim", [](const py_devarray& s) { return s.a.ndim(); })
      .def_property_readonly("itemsize", [](const py_devarray& s) { return s.a.itemsize(); })
      .def_property_readonly("alloc_size", [](const py_devarray& s) {
        // numba's: the bytes the array's elements span (nbytes when contiguous).
        auto [lo, hi] = s.a.extent_bytes();
        return hi - lo;
      })
      .def_property_readonly("device_id", [](const py_devarray& s) { return s.a.device(); })
      .def_property_readonly("memory_kind", [](const py_devarray& s) {
        return std::string(to_string(s.a.allocation() ? s.a.allocation()->kind() : memory_kind::device));
      })
      .def_property_readonly("_pointer", [](const py_devarray& s) {
        return reinterpret_cast<std::uintptr_t>(s.a.data());
      })
      .def_property_readonly(
          "device_ctypes_pointer",
          [](const py_devarray& s) {
            static py::object c_void_p = py::module_::import("ctypes").attr("c_void_p");
            return c_void_p(reinterpret_cast<std::uintptr_t>(s.a.data()));
          },
          "The data's device address as a ctypes.c_void_p (numba's; c_void_p(0), whose value is None, for an "
          "empty array)")
      .def_property_readonly("stream", [](const py_devarray& s) -> py::object {
        return s.stream_obj.is_none() ? py::object(py::int_(0)) : s.stream_obj;
      })
      .def("__len__", [](const py_devarray& s) {
        if (s.a.ndim() == 0) throw py::type_error("len() of unsized object");
        return s.a.shape()[0];
      })
      .def("__repr__", &repr)
      .def("is_c_contiguous", [](const py_devarray& s) { return s.a.is_c_contiguous(); })
      .def("is_f_contiguous", [](const py_devarray& s) { return s.a.is_f_contiguous(); })
      .def_property_readonly("flags", [](const py_devarray& s) {
        py::dict d;
        d["C_CONTIGUOUS"] = s.a.is_c_contiguous();
        d["F_CONTIGUOUS"] = s.a.is_f_contiguous();
        d["WRITEABLE"] = !s.a.read_only();
        return d;
      })
      .def("copy_to_host", &copy_to_host, py::arg("ary") = py::none(), py::arg("stream") = 0,
           "Copies the array to the host: into `ary` when given, else into a new NumPy array.")
      .def("copy_to_device", &copy_to_device, py::arg("ary"), py::arg("stream") = 0,
           "Copies `ary` (a host or device array of the same shape and dtype) into the array.")
      .def("__getitem__", [](const py_devarray& s, py::handle key) { return getitem(s, key, py::int_(0)); })
      .def("getitem", &getitem, py::arg("item"), py::arg("stream") = 0)
      .def("__setitem__", [](py_devarray& s, py::handle key, py::handle value) { setitem(s, key, value, py::int_(0)); })
      .def("setitem", &setitem, py::arg("key"), py::arg("value"), py::arg("stream") = 0)
      .def("reshape", [](const py_devarray& s, py::args shape, py::kwargs kw) {
        std::string order = kw.contains("order") ? std::string(py::str(kw["order"])) : "C";
        for (auto item : kw)
          if (std::string(py::str(item.first)) != "order")
            throw py::type_error("reshape() got an unexpected keyword argument '" + std::string(py::str(item.first)) + "'");
        extents e = py::len(shape) == 1 ? to_extents(shape[0], "shape") : to_extents(shape, "shape");
        if (order.size() != 1) throw py::value_error("order must be 'C', 'F' or 'A'");
        device_ndarray r;
        {
          py::gil_scoped_release nogil;  // may copy
          r = s.a.reshape(e, order[0]);
        }
        return py_devarray{std::move(r), s.stream_obj};
      })
      .def("ravel", [](const py_devarray& s, const std::string& order, py::handle stream) {
        (void)to_stream(stream, &s);
        if (order.size() != 1) throw py::value_error("order must be 'C', 'F' or 'A'");
        device_ndarray r;
        {
          py::gil_scoped_release nogil;  // may copy
          r = s.a.ravel(order[0]);
        }
        return py_devarray{std::move(r), s.stream_obj};
      }, py::arg("order") = "C", py::arg("stream") = 0)
      .def("transpose", [](const py_devarray& s, py::handle axes) {
        std::vector<std::int64_t> ax;
        if (!axes.is_none()) ax = to_extents(axes, "axes");
        return py_devarray{s.a.transpose(ax), s.stream_obj};
      }, py::arg("axes") = py::none())
      .def_property_readonly("T", [](const py_devarray& s) { return py_devarray{s.a.transpose(), s.stream_obj}; })
      .def("split", [](const py_devarray& s, std::int64_t section, py::handle stream) {
        (void)to_stream(stream, &s);
        py::list out;
        for (auto& p : s.a.split(section)) out.append(py_devarray{p, s.stream_obj});
        return out;
      }, py::arg("section"), py::arg("stream") = 0)
      .def("bind", [](const py_devarray& s, py::handle stream) {
        stream_view v = to_stream(stream);
        return py_devarray{s.a.bind(v), stream_object(stream)};
      }, py::arg("stream") = 0, "The same array, bound to `stream` as its default stream.")
      .def("copy", [](const py_devarray& s, const std::string& order, py::handle stream) {
        stream_view v = to_stream(stream, &s);
        if (order.size() != 1) throw py::value_error("order must be 'C', 'F', 'A' or 'K'");
        device_ndarray c;
        {
          py::gil_scoped_release nogil;
          c = s.a.copy(order[0], v);
        }
        return py_devarray{std::move(c), py::none()};
      }, py::arg("order") = "C", py::arg("stream") = 0)
      .def("view", [](const py_devarray& s, py::handle dt) {
        dtype t = to_dtype(dt);
        const auto& a = s.a;
        if (t.itemsize == a.itemsize())
          return py_devarray{device_ndarray(a.allocation(), a.offset(), a.shape(), a.strides(), t, a.stream()),
                             s.stream_obj};
        if (a.ndim() == 0 || a.strides().back() != static_cast<std::int64_t>(a.itemsize()))
          throw py::value_error("to view as a dtype of another size, the last axis must be contiguous");
        std::int64_t last = a.shape().back() * static_cast<std::int64_t>(a.itemsize());
        if (last % t.itemsize != 0)
          throw py::value_error("the last axis (" + std::to_string(last) + " bytes) does not divide into " +
                                t.name() + " items");
        extents shape = a.shape(), strides = a.strides();
        shape.back() = last / t.itemsize;
        strides.back() = t.itemsize;
        return py_devarray{device_ndarray(a.allocation(), a.offset(), shape, strides, t, a.stream()), s.stream_obj};
      }, py::arg("dtype"))
      .def("squeeze", [](const py_devarray& s, py::handle axis, py::handle stream) {
        (void)to_stream(stream, &s);
        const auto& a = s.a;
        std::vector<bool> drop(a.ndim(), false);
        if (axis.is_none()) {
          for (std::size_t i = 0; i < a.ndim(); ++i) drop[i] = a.shape()[i] == 1;
        } else {
          for (auto ax : to_extents(axis, "axis")) {
            auto i = ax < 0 ? ax + static_cast<std::int64_t>(a.ndim()) : ax;
            if (i < 0 || i >= static_cast<std::int64_t>(a.ndim()))
              throw py::index_error("axis " + std::to_string(ax) + " is out of bounds");
            if (a.shape()[i] != 1) throw py::value_error("cannot select an axis to squeeze out which has size not equal to one");
            drop[i] = true;
          }
        }
        extents shape, strides;
        for (std::size_t i = 0; i < a.ndim(); ++i)
          if (!drop[i]) {
            shape.push_back(a.shape()[i]);
            strides.push_back(a.strides()[i]);
          }
        return py_devarray{device_ndarray(a.allocation(), a.offset(), shape, strides, a.type(), a.stream()),
                           s.stream_obj};
      }, py::arg("axis") = py::none(), py::arg("stream") = 0)
      .def("_field", [](const py_devarray& s, const std::string& name) {
        // Field `name` of every record: a view of the field's dtype, its extra
        // dimensions (an array field's) after the array's own.
        const device_ndarray& a = s.a;
        if (!a.type().is_record()) throw py::type_error("the array's dtype (" + a.type().name() + ") has no fields");
        const record_field* f = a.type().record->find(name);
        if (f == nullptr) throw py::key_error("the record has no field '" + name + "'");
        extents shape = a.shape(), strides = a.strides();
        extents inner = contiguous_strides(f->shape, f->type.itemsize, 'C');
        shape.insert(shape.end(), f->shape.begin(), f->shape.end());
        strides.insert(strides.end(), inner.begin(), inner.end());
        return py_devarray{device_ndarray(a.allocation(), a.offset() + f->offset, shape, strides, f->type, a.stream()),
                           s.stream_obj};
      }, py::arg("name"))
      .def("__array__", [](const py_devarray&, py::args, py::kwargs) -> py::object {
        throw py::type_error("implicit conversion of a device array to a NumPy array is not allowed: "
                             "use .copy_to_host()");
      });

  m.def("to_device", [](py::handle obj, py::handle stream, bool copy, py::handle to) -> py::object {
    if (!to.is_none()) {
      if (is_devarray(to)) {
        copy_to_device(to.cast<py_devarray&>(), obj, stream);  // numba: to.copy_to_device(obj)
        return py::reinterpret_borrow<py::object>(to);
      }
      auto dst = device_array_of(to);
      if (!dst) throw py::type_error("to_device(to=...) needs a device array");
      py_devarray view{*dst, py::none()};
      copy_to_device(view, obj, stream);
      return py::reinterpret_borrow<py::object>(to);
    }
    if (is_devarray(obj)) return py::reinterpret_borrow<py::object>(obj);
    // Another library's device array: a view of it, as numba's to_device does.
    if (auto dev = device_array_of(obj)) return py::cast(py_devarray{*dev, py::none()});
    py::array host = as_host_array(obj);
    host_view hv = host_view_of(host);
    stream_view s = to_stream(stream);
    static py::object np_void = py::module_::import("numpy").attr("void");
    const bool record = py::isinstance(obj, np_void) && hv.type.is_record();
    // A blocking copy inside a stream callback: refused before the allocation,
    // which the driver refuses there too, but without saying why.
    if (copy && s.is_default()) cuforge::detail::refuse_wait_in_callback("a blocking copy");
    py_devarray out{device_ndarray(), stream_object(stream)};
    {
      py::gil_scoped_release nogil;
      out.a = device_ndarray::empty(hv.shape, hv.type, layout_of(host), s);
      if (copy) {
        out.a.copy_from_host(hv, s, s.is_default());
      }
    }
    if (record) return device_record(std::move(out));  // numba's to_device of a record
    return py::cast(std::move(out));
  }, py::arg("obj"), py::arg("stream") = 0, py::arg("copy") = true, py::arg("to") = py::none(),
  R"doc(Copies a host array (or anything NumPy can make one of) to a new device array.

``stream``: the copy is queued there and the call returns at once (the host
array must then stay alive and unchanged until the stream reaches it); with
the default stream it has finished when the call returns. ``copy=False``
allocates the device array without copying. ``to=`` a device array copies
into it instead and returns it. A device array is returned as it is, and
another library's device array (``__cuda_array_interface__``, DLPack) as a
view of its memory, without a copy. A NumPy record (``np.void``) becomes a
one-element device record.)doc");

  m.def("device_array", [](py::handle shape, py::handle dt, py::handle strides, py::handle order, py::handle stream) {
    return make_array(to_extents(shape, "shape"), to_dtype(dt), strides, order_of(order), stream);
  }, py::arg("shape"), py::arg("dtype") = py::dtype("float64"), py::arg("strides") = py::none(),
        py::arg("order") = "C", py::arg("stream") = 0,
  R"doc(A new device array of ``shape`` and ``dtype``, uninitialised, as ``numpy.empty`` makes one.

``order`` is ``"C"`` (row-major) or ``"F"`` (column-major); ``strides`` (in
bytes) give another layout over the same memory. With ``stream`` the memory
is allocated in that stream's order (a pool allocation where the device has
pools).)doc");

  m.def("device_array_like", [](py::handle ary, py::handle stream) {
    like_layout l = layout_like(ary);
    return make_array(l.shape, l.type, l.strides ? py::object(to_tuple(*l.strides)) : py::none(), l.order, stream);
  }, py::arg("ary"), py::arg("stream") = 0,
  R"doc(A new, uninitialised device array with the shape, dtype and layout of ``ary``.

``ary`` is a NumPy array, a device array or any array another library hands
over. A C- or F-contiguous ``ary`` gives a C- or F-ordered array; any other
(a transposed or sliced view) a contiguous array whose axes are laid out in
the order of ``ary``'s strides, smallest stride innermost, as numba.cuda
does.)doc");

  m.def("layout_like", [](py::handle ary) {
    like_layout l = layout_like(ary);
    return py::make_tuple(l.strides ? py::object(to_tuple(*l.strides)) : py::none(), std::string(1, l.order));
  }, py::arg("ary"), "(strides or None, order) of a new array laid out like `ary`, as numba's *_array_like make it");

  m.def("is_device_array", [](py::handle obj) { return is_devarray(obj); });
}

}  // namespace cuforge::python

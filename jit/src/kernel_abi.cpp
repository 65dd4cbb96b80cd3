// The launcher's half of the kernel ABI (frontend/abi.hpp): packing.
#include <cuforge/jit/kernel_abi.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/small_floats.hpp>

#include <bit>
#include <cmath>
#include <cstring>

namespace cuforge::jit {

using frontend::type;
using frontend::type_kind;

std::uint16_t half_bits(double d) noexcept {
  // Straight from the double's bits, rounding once (converting through float would round twice);
  // a nan keeps its sign, quiet.
  if (std::isnan(d)) return static_cast<std::uint16_t>((std::signbit(d) ? 0x8000u : 0u) | 0x7e00u);
  return small_float_from_double(d, rounding::rn, ieee_half);
}

const type* element_type(frontend::type_context& tc, const dtype& d) {
  if (d.is_time()) return d.time == 'M' ? tc.datetime(d.unit) : tc.timedelta(d.unit);
  if (!d.is_record()) return tc.scalar(d.scalar());
  std::vector<frontend::field_info> fields;
  for (const record_field& f : d.record->fields)
    fields.push_back(frontend::field_info{f.name, element_type(tc, f.type), f.offset, f.shape});
  return tc.record(std::move(fields), d.record->itemsize, d.record->aligned);
}

namespace {

// Writes the scalar `v` at out[0] (and out[1] for complex128); `out` holds enough.
void put_scalar(const scalar_value& v, std::uint64_t* out) {
  const type* t = v.ty;
  auto put = [&](std::size_t at, const auto& x) {
    std::uint64_t s = 0;
    std::memcpy(&s, &x, sizeof x);
    out[at] = s;
  };
  switch (t->kind) {
    case type_kind::boolean: put(0, static_cast<std::uint8_t>(v.i != 0)); return;
    case type_kind::datetime:
    case type_kind::timedelta: put(0, v.i); return;  // the int64 count; NaT is INT64_MIN
    case type_kind::integer:
      switch (t->bits) {
        case 8: put(0, static_cast<std::int8_t>(v.i)); return;
        case 16: put(0, static_cast<std::int16_t>(v.i)); return;
        case 32: put(0, static_cast<std::int32_t>(v.i)); return;
        default: put(0, v.i); return;
      }
    case type_kind::floating:
      if (t->bits == 16) put(0, half_bits(v.f));
      else if (t->bits == 32) put(0, static_cast<float>(v.f));
      else put(0, v.f);
      return;
    case type_kind::complex:
      if (t->bits == 64) {
        const float parts[2] = {static_cast<float>(v.re), static_cast<float>(v.im)};
        put(0, parts);
      } else {
        put(0, v.re);
        put(1, v.im);
      }
      return;
    default: break;
  }
  throw type_error("cannot pass a " + t->str() + " as a scalar");
}

void check_scalar(const scalar_value& v) {
  if (v.ty == nullptr || !(v.ty->is_scalar() || v.ty->is_time()))
    throw type_error("a scalar argument without a scalar type");
}

}  // namespace

void pack_scalar(const scalar_value& v, std::vector<std::uint64_t>& slots) {
  check_scalar(v);
  const std::size_t at = slots.size();
  slots.resize(at + frontend::slot_count(v.ty));
  put_scalar(v, slots.data() + at);
}

std::size_t pack_into(const kernel_argument& a, const type* as, std::span<std::uint64_t> out) {
  auto mismatch = [&] {
    return type_error("a kernel argument of type " + (a.ty ? a.ty->str() : std::string("?")) +
                      " packed as the parameter type " + as->str());
  };
  auto room = [&](std::size_t n) {
    if (out.size() < n) throw type_error("the kernel ABI: no room for the slots of an argument of type " + as->str());
  };
  switch (a.k) {
    case kernel_argument::kind::device_array:
    case kernel_argument::kind::host_array: {
      const device_ndarray& d = a.array();
      const std::size_t nd = d.ndim();
      if (as->is_record()) {
        // A single record: the address of its bytes (a 0-d array of records holds them).
        if (nd != 0 || !d.type().is_record() || static_cast<std::int64_t>(d.itemsize()) != as->size) throw mismatch();
        room(1);
        out[0] = reinterpret_cast<std::uintptr_t>(d.data());
        return 1;
      }
      if (!as->is_array() || static_cast<std::size_t>(as->ndim) != nd) throw mismatch();
      room(1 + 2 * nd);
      out[0] = reinterpret_cast<std::uintptr_t>(d.data());
      for (std::size_t i = 0; i < nd; ++i) {
        out[1 + i] = static_cast<std::uint64_t>(d.shape()[i]);
        out[1 + nd + i] = static_cast<std::uint64_t>(d.strides()[i]);
      }
      return 1 + 2 * nd;
    }
    case kernel_argument::kind::scalar: {
      if (a.scalar.ty != as) throw mismatch();
      check_scalar(a.scalar);
      const std::size_t n = frontend::slot_count(as);
      room(n);
      put_scalar(a.scalar, out.data());
      return n;
    }
    case kernel_argument::kind::tuple: {
      if (!as->is_tuple() || as->elements.size() != a.elements.size()) throw mismatch();
      std::size_t n = 0;
      for (std::size_t i = 0; i < a.elements.size(); ++i) n += pack_into(a.elements[i], as->elements[i], out.subspan(n));
      return n;
    }
  }
  throw mismatch();
}

void pack(const kernel_argument& a, const type* as, std::vector<std::uint64_t>& slots) {
  const std::size_t at = slots.size();
  slots.resize(at + frontend::slot_count(as));
  try {
    slots.resize(at + pack_into(a, as, std::span<std::uint64_t>(slots).subspan(at)));
  } catch (...) {
    slots.resize(at);  // nothing appended
    throw;
  }
}

}  // namespace cuforge::jit

// The launcher's half of the kernel ABI (frontend/abi.hpp): packing.
#include <cuforge/jit/kernel_abi.hpp>
#include <cuforge/runtime/error.hpp>

#include <bit>
#include <cmath>
#include <cstring>

namespace cuforge::jit {

using frontend::type;
using frontend::type_kind;

std::uint16_t half_bits(double d) noexcept {
  // Straight from the double's bits, rounding once (converting through
  // float would round twice).
  const auto x = std::bit_cast<std::uint64_t>(d);
  const auto sign = static_cast<std::uint16_t>((x >> 48) & 0x8000u);
  const std::uint64_t exp = (x >> 52) & 0x7ff;
  std::uint64_t man = x & ((std::uint64_t{1} << 52) - 1);
  if (exp == 0x7ff) return static_cast<std::uint16_t>(sign | 0x7c00u | (man != 0 ? 0x200u : 0u));  // inf, nan
  const int e = static_cast<int>(exp) - 1023;  // the unbiased exponent
  if (e > 15) return static_cast<std::uint16_t>(sign | 0x7c00u);  // beyond half's range: infinity
  if (exp == 0 || e < -25) return sign;  // zero, a double subnormal, or below half a half subnormal
  // The value's bits with the implicit one, then shifted to half's precision:
  // 10 fraction bits for a normal half (e >= -14), fewer for a subnormal.
  man |= std::uint64_t{1} << 52;
  const int shift = e >= -14 ? 42 : 42 + (-14 - e);
  std::uint64_t q = man >> shift;
  const std::uint64_t rest = man & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half_way = std::uint64_t{1} << (shift - 1);
  if (rest > half_way || (rest == half_way && (q & 1) != 0)) ++q;  // to nearest, ties to even
  std::uint64_t bits = 0;
  if (e >= -14) {
    // q holds 11 bits with the implicit one (2048 after a carry): the exponent absorbs it.
    bits = (static_cast<std::uint64_t>(e + 15) << 10) + (q - (std::uint64_t{1} << 10));
  } else {
    bits = q;  // a subnormal (1024 after a carry: the smallest normal, as the encoding says)
  }
  return static_cast<std::uint16_t>(sign | bits);
}

void pack_scalar(const scalar_value& v, std::vector<std::uint64_t>& slots) {
  const type* t = v.ty;
  if (t == nullptr || !t->is_scalar()) throw type_error("a scalar argument without a scalar type");
  std::uint64_t s = 0;
  auto put = [&](const auto& x) {
    s = 0;
    std::memcpy(&s, &x, sizeof x);
    slots.push_back(s);
  };
  switch (t->kind) {
    case type_kind::boolean: put(static_cast<std::uint8_t>(v.i != 0)); return;
    case type_kind::integer:
      switch (t->bits) {
        case 8: put(static_cast<std::int8_t>(v.i)); return;
        case 16: put(static_cast<std::int16_t>(v.i)); return;
        case 32: put(static_cast<std::int32_t>(v.i)); return;
        default: put(v.i); return;
      }
    case type_kind::floating:
      if (t->bits == 16) put(half_bits(v.f));
      else if (t->bits == 32) put(static_cast<float>(v.f));
      else put(v.f);
      return;
    case type_kind::complex:
      if (t->bits == 64) {
        const float parts[2] = {static_cast<float>(v.re), static_cast<float>(v.im)};
        put(parts);
      } else {
        put(v.re);
        put(v.im);
      }
      return;
    default: break;
  }
  throw type_error("cannot pass a " + t->str() + " as a scalar");
}

void pack(const kernel_argument& a, const type* as, std::vector<std::uint64_t>& slots) {
  auto mismatch = [&] {
    return type_error("a kernel argument of type " + (a.ty ? a.ty->str() : std::string("?")) +
                      " packed as the parameter type " + as->str());
  };
  switch (a.k) {
    case kernel_argument::kind::device_array:
    case kernel_argument::kind::host_array: {
      if (!as->is_array() || static_cast<std::size_t>(as->ndim) != a.array().ndim()) throw mismatch();
      const device_ndarray& d = a.array();
      slots.push_back(reinterpret_cast<std::uintptr_t>(d.data()));
      for (auto e : d.shape()) slots.push_back(static_cast<std::uint64_t>(e));
      for (auto st : d.strides()) slots.push_back(static_cast<std::uint64_t>(st));
      return;
    }
    case kernel_argument::kind::scalar:
      if (a.scalar.ty != as) throw mismatch();
      pack_scalar(a.scalar, slots);
      return;
    case kernel_argument::kind::tuple:
      if (!as->is_tuple() || as->elements.size() != a.elements.size()) throw mismatch();
      for (std::size_t i = 0; i < a.elements.size(); ++i) pack(a.elements[i], as->elements[i], slots);
      return;
  }
}

}  // namespace cuforge::jit

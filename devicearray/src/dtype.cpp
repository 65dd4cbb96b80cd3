#include <cuforge/devicearray/dtype.hpp>
#include <cuforge/runtime/error.hpp>

namespace cuforge {

dtype dtype::from_typestr(std::string_view s) {
  auto bad = [&](const char* why) -> dtype {
    throw type_error("unsupported dtype '" + std::string(s) + "': " + why);
  };
  if (s.size() < 2) return bad("expected a type string such as '<f4'");
  char order = s[0], code = s[1];
  switch (code) {
    case 'O': return bad("Python objects cannot live in device memory");
    case 'U':
    case 'S': return bad("strings are not supported in device arrays");
    case 'V': return bad("structured and void dtypes are not supported in device arrays yet");
    case 'M':
    case 'm': return bad("datetime and timedelta dtypes are not supported in device arrays");
    default: break;
  }
  if (s.size() < 3) return bad("expected a type string such as '<f4'");
  int size = 0;
  for (char c : s.substr(2)) {
    if (c < '0' || c > '9') return bad("expected a type string such as '<f4'");
    size = size * 10 + (c - '0');
    if (size > 64) return bad("item size too large");
  }
  if (order == '>' && size > 1) return bad("big-endian data is not supported on devices");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    return bad("unknown byte order");
  dtype d;
  d.itemsize = static_cast<std::uint8_t>(size);
  switch (code) {
    case 'b':
      if (size != 1) return bad("booleans are one byte");
      d.k = kind::boolean;
      return d;
    case 'i':
    case 'u':
      if (size != 1 && size != 2 && size != 4 && size != 8) return bad("integers are 1, 2, 4 or 8 bytes");
      d.k = code == 'i' ? kind::signed_int : kind::unsigned_int;
      return d;
    case 'f':
      if (size != 2 && size != 4 && size != 8) return bad("floats are 2, 4 or 8 bytes");
      d.k = kind::floating;
      return d;
    case 'c':
      if (size != 8 && size != 16) return bad("complex numbers are 8 or 16 bytes");
      d.k = kind::complex;
      return d;
    default: return bad("not a numeric type");
  }
}

std::string dtype::typestr() const {
  std::string s(1, itemsize == 1 ? '|' : '<');
  s += static_cast<char>(k);
  s += std::to_string(itemsize);
  return s;
}

std::string dtype::name() const {
  switch (k) {
    case kind::boolean: return "bool";
    case kind::signed_int: return "int" + std::to_string(itemsize * 8);
    case kind::unsigned_int: return "uint" + std::to_string(itemsize * 8);
    case kind::floating: return "float" + std::to_string(itemsize * 8);
    case kind::complex: return "complex" + std::to_string(itemsize * 8);
  }
  return "?";
}

}  // namespace cuforge

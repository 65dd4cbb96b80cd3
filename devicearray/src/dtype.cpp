#include <cuforge/devicearray/dtype.hpp>
#include <cuforge/runtime/error.hpp>

namespace cuforge {

namespace {

// "1, 2, 4 or 8": the sizes the table has for a kind.
std::string sizes_of(scalar_kind k) {
  std::string sizes;
  int count = 0, seen = 0;
  for (const auto& s : scalar_types) count += s.kind == k;
  for (const auto& s : scalar_types) {
    if (s.kind != k) continue;
    ++seen;
    if (seen > 1) sizes += seen == count ? " or " : ", ";
    sizes += std::to_string(s.bytes);
  }
  return sizes;
}

const char* kind_plural(scalar_kind k) {
  switch (k) {
    case scalar_kind::boolean: return "booleans";
    case scalar_kind::signed_int:
    case scalar_kind::unsigned_int: return "integers";
    case scalar_kind::floating: return "floats";
    case scalar_kind::complex: return "complex numbers";
  }
  return "values";
}

}  // namespace

dtype dtype::from_typestr(std::string_view s) {
  auto bad = [&](const std::string& why) -> dtype {
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
  if (order != '<' && order != '|' && order != '=' && order != '>') return bad("unknown byte order");
  const auto k = static_cast<scalar_kind>(code);
  bool known_kind = false;
  for (const auto& t : scalar_types) known_kind = known_kind || t.kind == k;
  if (!known_kind) return bad("not a numeric type");
  const scalar_type_info* row = find_scalar(k, size);
  if (row == nullptr)
    return bad(std::string(kind_plural(k)) + (k == scalar_kind::boolean ? " are one byte" : " are " + sizes_of(k) + " bytes"));
  return dtype(row->id);
}

const scalar_type_info& dtype::scalar() const {
  const scalar_type_info* row = find_scalar(k, itemsize);
  if (row == nullptr)
    throw type_error("no scalar type of kind '" + std::string(1, static_cast<char>(k)) + "' and " +
                     std::to_string(itemsize) + " bytes");
  return *row;
}

std::string dtype::typestr() const {
  if (const scalar_type_info* row = find_scalar(k, itemsize)) return std::string(row->typestr());
  std::string s(1, itemsize == 1 ? '|' : '<');
  s += static_cast<char>(k);
  s += std::to_string(itemsize);
  return s;
}

std::string dtype::name() const {
  if (const scalar_type_info* row = find_scalar(k, itemsize)) return std::string(row->name);
  return "?";
}

}  // namespace cuforge

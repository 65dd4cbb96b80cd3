#include <cuforge/devicearray/dtype.hpp>
#include <cuforge/runtime/error.hpp>

#include <deque>
#include <mutex>
#include <limits>
#include <set>

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
    case 'V': return bad("void dtypes without fields (raw bytes) are not supported in device arrays; a structured dtype names its fields");
    case 'M':
    case 'm': {
      // "<M8[D]", "<m8" (generic): int64 counts of a unit.
      std::string_view rest = s.substr(2);
      if (rest.substr(0, 1) != "8") return bad("datetime64 and timedelta64 are 8 bytes");
      rest.remove_prefix(1);
      std::string_view unit;
      if (!rest.empty()) {
        if (rest.front() != '[' || rest.back() != ']') return bad("expected a unit in brackets, as in '<M8[D]'");
        unit = rest.substr(1, rest.size() - 2);
      }
      const int code = datetime_unit_code(unit);
      if (code < 0) return bad("unknown or unsupported datetime unit '" + std::string(unit) + "' (multiples such as 10s are not supported)");
      if (order == '>') return bad("big-endian data is not supported on devices");
      return of_time(s[1], code);
    }
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
  if (record != nullptr) throw type_error("a record (" + record->str() + ") is not a scalar type");
  const scalar_type_info* row = find_scalar(k, itemsize);
  if (row == nullptr)
    throw type_error("no scalar type of kind '" + std::string(1, static_cast<char>(k)) + "' and " +
                     std::to_string(itemsize) + " bytes");
  return *row;
}

dtype dtype::of_time(char kind, int unit) {
  if ((kind != 'M' && kind != 'm') || unit < 0 || unit > generic_datetime_unit || unit == 3)
    throw logic_error("a datetime dtype of kind '" + std::string(1, kind) + "' and unit " + std::to_string(unit));
  dtype d(scalar_id::int64);
  d.time = kind;
  d.unit = static_cast<std::uint8_t>(unit);
  return d;
}

std::string dtype::typestr() const {
  if (record != nullptr) return "|V" + std::to_string(itemsize);
  if (time != 0) {
    const std::string_view u = datetime_units[unit];
    return std::string("<") + time + "8" + (u.empty() ? "" : "[" + std::string(u) + "]");
  }
  if (const scalar_type_info* row = find_scalar(k, itemsize)) return std::string(row->typestr());
  std::string s(1, itemsize == 1 ? '|' : '<');
  s += static_cast<char>(k);
  s += std::to_string(itemsize);
  return s;
}

std::string dtype::name() const {
  if (record != nullptr) return "void" + std::to_string(itemsize * 8);
  if (time != 0) {
    const std::string_view u = datetime_units[unit];
    return std::string(time == 'M' ? "datetime64" : "timedelta64") + (u.empty() ? "" : "[" + std::string(u) + "]");
  }
  if (const scalar_type_info* row = find_scalar(k, itemsize)) return std::string(row->name);
  return "?";
}

dtype dtype::of_record(const record_layout* r) {
  CUFORGE_EXPECTS(r != nullptr, "of_record needs a layout");
  dtype d;
  d.k = kind::unsigned_int;
  d.itemsize = static_cast<std::uint32_t>(r->itemsize);
  d.record = r;
  return d;
}

std::int64_t record_field::size() const noexcept {
  std::int64_t n = type.itemsize;
  for (auto e : shape) n *= e;
  return n;
}

const record_field* record_layout::find(std::string_view name) const noexcept {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {
std::string field_type_str(const record_field& f) {
  std::string t = f.type.is_record() ? f.type.record->str() : f.type.name();
  if (f.shape.empty()) return t;
  std::string s = "nestedarray(" + t + ", (";
  for (std::size_t i = 0; i < f.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(f.shape[i]);
  return s + (f.shape.size() == 1 ? ",))" : "))");
}
}  // namespace

std::string record_layout::str() const {
  std::string s = "Record(";
  for (std::size_t i = 0; i < fields.size(); ++i)
    s += (i ? "," : "") + fields[i].name + "[type=" + field_type_str(fields[i]) + ";offset=" +
         std::to_string(fields[i].offset) + "]";
  return s + ";" + std::to_string(itemsize) + ";" + (aligned ? "True" : "False") + ")";
}

const record_layout* intern_record(record_layout r) {
  if (r.itemsize <= 0 || r.itemsize > std::numeric_limits<std::uint32_t>::max())
    throw logic_error("a record of " + std::to_string(r.itemsize) + " bytes");
  std::set<std::string_view> names;
  for (const auto& f : r.fields) {
    if (f.name.empty()) throw logic_error("a record field needs a name");
    if (!names.insert(f.name).second) throw logic_error("record field '" + f.name + "' is named twice");
    for (auto e : f.shape)
      if (e < 0) throw logic_error("record field '" + f.name + "' has a negative extent");
    if (f.offset < 0 || f.offset + f.size() > r.itemsize)
      throw logic_error("record field '" + f.name + "' (" + std::to_string(f.size()) + " bytes at offset " +
                        std::to_string(f.offset) + ") lies outside the record's " + std::to_string(r.itemsize) +
                        " bytes");
  }
  static std::mutex m;
  static auto* layouts = new std::deque<record_layout>;  // lives as long as the process: dtypes point at it
  std::lock_guard lock(m);
  for (const auto& l : *layouts)
    if (l == r) return &l;
  layouts->push_back(std::move(r));
  return &layouts->back();
}

}  // namespace cuforge

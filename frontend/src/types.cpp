#include <cuforge/frontend/types.hpp>

#include <cuforge/runtime/error.hpp>

#include <algorithm>
#include <cctype>
#include <limits>

namespace cuforge::frontend {

const scalar_type_info* type::scalar() const noexcept {
  switch (kind) {
    case type_kind::boolean: return &info(scalar_id::bool_);
    case type_kind::integer:
      return find_scalar(is_signed ? scalar_kind::signed_int : scalar_kind::unsigned_int, bits / 8);
    case type_kind::floating: return find_scalar(scalar_kind::floating, bits / 8);
    case type_kind::complex: return find_scalar(scalar_kind::complex, bits / 8);
    default: return nullptr;
  }
}

namespace {
// How a type outside global memory says where it lives: ", shared" (after `sep`); nothing for global.
std::string space_suffix(address_space space, const char* sep) {
  switch (space) {
    case address_space::shared: return std::string(sep) + "shared";
    case address_space::local: return std::string(sep) + "local";
    case address_space::constant: return std::string(sep) + "constant";
    case address_space::global: break;
  }
  return "";
}
}  // namespace

std::string type::str() const {
  switch (kind) {
    case type_kind::none: return "none";
    case type_kind::boolean:
    case type_kind::integer:
    case type_kind::floating:
    case type_kind::complex: {
      const scalar_type_info* s = scalar();
      return s != nullptr ? std::string(s->name) : "?";
    }
    case type_kind::bfloat16: return "bfloat16";
    case type_kind::datetime:
    case type_kind::timedelta:
      return std::string(kind == type_kind::datetime ? "datetime64" : "timedelta64") +
             (name.empty() ? "" : "[" + name + "]");
    case type_kind::array: {
      std::string s = "array(" + dtype->str() + ", " + std::to_string(ndim) + "d, " + static_cast<char>(layout);
      if (readonly) s += ", readonly";
      return s + space_suffix(space, ", ") + ")";
    }
    case type_kind::tuple: {
      if (!names.empty()) {
        std::string s = name + "(";
        for (std::size_t i = 0; i < elements.size(); ++i) s += (i ? ", " : "") + names[i] + ": " + elements[i]->str();
        return s + ")";
      }
      bool uniform = !elements.empty() &&
                     std::all_of(elements.begin(), elements.end(), [&](const type* e) { return e == elements[0]; });
      if (uniform) return "UniTuple(" + elements[0]->str() + " x " + std::to_string(elements.size()) + ")";
      std::string s = "Tuple(";
      for (std::size_t i = 0; i < elements.size(); ++i) s += (i ? ", " : "") + elements[i]->str();
      return s + ")";
    }
    case type_kind::record: {
      std::string s = "Record(";
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const field_info& f = fields[i];
        std::string t = f.ty->str();
        if (!f.shape.empty()) {
          t = "nestedarray(" + t + ", (";
          for (std::size_t d = 0; d < f.shape.size(); ++d) t += (d ? ", " : "") + std::to_string(f.shape[d]);
          t += f.shape.size() == 1 ? ",))" : "))";
        }
        s += (i ? "," : "") + f.name + "[type=" + t + ";offset=" + std::to_string(f.offset) + "]";
      }
      s += ";" + std::to_string(size) + ";" + (aligned ? "True" : "False");
      return s + space_suffix(space, ";") + ")";
    }
    case type_kind::vector: return name;
    case type_kind::optional: return "OptionalType(" + dtype->str() + ")";
    case type_kind::module: return "Module(" + name + ")";
    case type_kind::function: return "Function(" + name + ")";
    case type_kind::dtype: return "dtype(" + dtype->str() + ")";
    case type_kind::device_function: return "DeviceFunction(" + name + ")";
    case type_kind::external_function: {
      std::string s = "ExternalFunction(" + name + ", " + (dtype ? dtype->str() : "none") + "(";
      for (std::size_t i = 0; i < elements.size(); ++i) s += (i ? ", " : "") + elements[i]->str();
      return s + "))";
    }
    case type_kind::pointer: return "CPointer(" + dtype->str() + ")";
    case type_kind::string_literal: return "Literal[str](" + name + ")";
    case type_kind::tuple_class: {
      std::string s = "TupleClass(" + name;
      for (const auto& n : names) s += ", " + n;
      return s + ")";
    }
  }
  return "?";
}

type_context::type_context() = default;

namespace {
std::string key_of(const type& t) {
  std::string k = std::to_string(static_cast<int>(t.kind)) + ":" + std::to_string(t.bits) + ":" +
                  (t.is_signed ? "s" : "u") + ":" + std::to_string(reinterpret_cast<std::uintptr_t>(t.dtype)) + ":" +
                  std::to_string(t.ndim) + ":" + static_cast<char>(t.layout) + ":" + (t.readonly ? "r" : "w") + ":" +
                  std::to_string(static_cast<int>(t.space)) + ":" + t.name + ":" +
                  std::to_string(reinterpret_cast<std::uintptr_t>(t.callee)) + ":" + (t.cooperative ? "g" : "") + ":";
  for (auto* e : t.elements) k += std::to_string(reinterpret_cast<std::uintptr_t>(e)) + ",";
  for (const auto& n : t.names) k += "|" + n;
  if (t.kind == type_kind::record) {
    k += "{" + std::to_string(t.size) + (t.aligned ? "a" : "p");
    for (const auto& f : t.fields) {
      k += ";" + std::to_string(f.name.size()) + ":" + f.name + "@" + std::to_string(f.offset) + ":" +
           std::to_string(reinterpret_cast<std::uintptr_t>(f.ty));
      for (auto e : f.shape) k += "x" + std::to_string(e);
    }
    k += "}";
  }
  return k;
}
}  // namespace

const type* type_context::intern(type t) {
  std::string key = key_of(t);
  auto it = by_key_.find(key);
  if (it != by_key_.end()) return it->second;
  storage_.push_back(std::move(t));
  const type* p = &storage_.back();
  by_key_.emplace(std::move(key), p);
  return p;
}

const type* type_context::none() { return intern(type{}); }

const type* type_context::boolean() {
  type t;
  t.kind = type_kind::boolean;
  t.bits = 8;
  return intern(t);
}

const type* type_context::integer(int bits, bool is_signed) {
  type t;
  t.kind = type_kind::integer;
  t.bits = bits;
  t.is_signed = is_signed;
  return intern(t);
}

const type* type_context::floating(int bits) {
  type t;
  t.kind = type_kind::floating;
  t.bits = bits;
  return intern(t);
}

const type* type_context::complex(int bits) {
  type t;
  t.kind = type_kind::complex;
  t.bits = bits;
  return intern(t);
}

const type* type_context::array(const type* dtype, int ndim, array_layout layout, bool readonly,
                                address_space space) {
  type t;
  t.kind = type_kind::array;
  t.dtype = dtype;
  t.ndim = ndim;
  // A 0-d or 1-d array contiguous one way is contiguous both ways: say C.
  t.layout = (ndim <= 1 && layout == array_layout::f) ? array_layout::c : layout;
  t.readonly = readonly;
  t.space = space;
  return intern(t);
}

const type* type_context::tuple(std::vector<const type*> elements) {
  type t;
  t.kind = type_kind::tuple;
  t.elements = std::move(elements);
  return intern(t);
}

const type* type_context::named_tuple(std::vector<const type*> elements, const std::string& cls,
                                      std::vector<std::string> names) {
  if (names.size() != elements.size()) throw cuforge::logic_error("a named tuple needs one name per element");
  if (cls.empty()) throw cuforge::logic_error("a named tuple needs its class's name");
  type t;
  t.kind = type_kind::tuple;
  t.elements = std::move(elements);
  t.name = cls;
  t.names = std::move(names);
  return intern(t);
}

const type* type_context::tuple_class(const std::string& cls, std::vector<std::string> names) {
  return tuple_class(cls, std::move(names), {});
}

const type* type_context::tuple_class(const std::string& cls, std::vector<std::string> names,
                                      std::vector<const type*> elements) {
  type t;
  t.kind = type_kind::tuple_class;
  t.name = cls;
  t.names = std::move(names);
  t.elements = std::move(elements);
  return intern(t);
}

const type* type_context::record(std::vector<field_info> fields, std::int64_t size, bool aligned,
                                 address_space space) {
  type t;
  t.kind = type_kind::record;
  t.size = size;
  t.aligned = aligned;
  t.space = space;
  int align = 1;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const field_info& f = fields[i];
    if (f.name.empty()) throw cuforge::logic_error("a record field needs a name");
    for (std::size_t j = 0; j < i; ++j)
      if (fields[j].name == f.name) throw cuforge::logic_error("record field '" + f.name + "' is named twice");
    if (f.ty == nullptr || !(f.ty->is_scalar() || (f.ty->is_record() && f.ty->space == address_space::global)))
      throw cuforge::logic_error("record field '" + f.name + "' must be a scalar or a record");
    std::int64_t bytes = f.ty->itemsize();
    for (auto e : f.shape) {
      if (e < 0) throw cuforge::logic_error("record field '" + f.name + "' has a negative extent");
      bytes *= e;
    }
    if (f.offset < 0 || f.offset + bytes > size)
      throw cuforge::logic_error("record field '" + f.name + "' (" + std::to_string(bytes) + " bytes at offset " +
                                 std::to_string(f.offset) + ") lies outside the record's " + std::to_string(size) +
                                 " bytes");
    align = std::max(align, f.ty->natural_align());
  }
  if (size <= 0) throw cuforge::logic_error("a record of " + std::to_string(size) + " bytes");
  t.align = aligned ? align : 1;
  t.fields = std::move(fields);
  return intern(t);
}

const type* type_context::vector(const type* base, int count) {
  if (base == nullptr || !(base->is_int() || base->is_float()) || count < 1 || count > 4)
    throw cuforge::logic_error("a vector type has 1 to 4 integers or floats");
  type t;
  t.kind = type_kind::vector;
  t.elements.assign(static_cast<std::size_t>(count), base);
  t.name = base->str() + "x" + std::to_string(count);
  return intern(t);
}

const type* type_context::optional(const type* value) {
  if (value == nullptr || !value->is_runtime()) throw cuforge::logic_error("an optional needs a run-time type");
  if (value->kind == type_kind::none || value->is_optional()) return value;
  type t;
  t.kind = type_kind::optional;
  t.dtype = value;
  return intern(t);
}

const type* type_context::in_space(const type* r, address_space space) {
  if (r == nullptr || !r->is_record() || r->space == space) return r;
  return record(r->fields, r->size, r->aligned, space);
}

const type* type_context::module(const std::string& name) {
  type t;
  t.kind = type_kind::module;
  t.name = name;
  return intern(t);
}

const type* type_context::function(const std::string& name) {
  type t;
  t.kind = type_kind::function;
  t.name = name;
  return intern(t);
}

const type* type_context::string_literal(const std::string& text) {
  type t;
  t.kind = type_kind::string_literal;
  t.name = text;
  return intern(t);
}

const type* type_context::dtype_value(const type* scalar) {
  type t;
  t.kind = type_kind::dtype;
  t.dtype = scalar;
  return intern(t);
}

const type* type_context::bfloat16() {
  type t;
  t.kind = type_kind::bfloat16;
  t.bits = 16;
  return intern(t);
}

namespace {
type time_type(type_kind k, int unit) {
  if (unit < 0 || unit > generic_datetime_unit || unit == 3)
    throw logic_error("a datetime type of unit code " + std::to_string(unit));
  type t;
  t.kind = k;
  t.bits = 64;
  t.is_signed = true;
  t.name = std::string(datetime_units[unit]);
  return t;
}
}  // namespace

const type* type_context::datetime(int unit) { return intern(time_type(type_kind::datetime, unit)); }
const type* type_context::timedelta(int unit) { return intern(time_type(type_kind::timedelta, unit)); }

const type* type_context::device_function(const frontend::function* callee) {
  type t;
  t.kind = type_kind::device_function;
  t.callee = callee;
  return intern(t);
}

const type* type_context::external_function(const std::string& symbol, std::vector<const type*> params,
                                            const type* ret, int abi, std::vector<std::string> link,
                                            const frontend::function* host, bool cooperative) {
  type t;
  t.callee = host;
  t.cooperative = cooperative;
  t.kind = type_kind::external_function;
  t.name = symbol;
  t.elements = std::move(params);
  t.dtype = ret;
  t.bits = abi;
  t.names = std::move(link);
  return intern(t);
}

const type* type_context::pointer(const type* pointee) {
  type t;
  t.kind = type_kind::pointer;
  t.dtype = pointee;
  return intern(t);
}

const type* type_context::scalar(scalar_id id) {
  const scalar_type_info& s = info(id);
  switch (s.kind) {
    case scalar_kind::boolean: return boolean();
    case scalar_kind::signed_int: return integer(s.bits(), true);
    case scalar_kind::unsigned_int: return integer(s.bits(), false);
    case scalar_kind::floating: return floating(s.bits());
    case scalar_kind::complex: return complex(s.bits());
  }
  return nullptr;
}

const type* type_context::from_typestr(const std::string& s) {
  // "<M8[D]", "<m8": datetime64 / timedelta64 of a unit (generic without one).
  if (s.size() >= 3 && (s[1] == 'M' || s[1] == 'm') && s[2] == '8' && (s[0] == '<' || s[0] == '=')) {
    std::string unit;
    if (s.size() > 3) {
      if (s[3] != '[' || s.back() != ']') return nullptr;
      unit = s.substr(4, s.size() - 5);
    }
    const int code = datetime_unit_code(unit);
    if (code < 0) return nullptr;
    return s[1] == 'M' ? datetime(code) : timedelta(code);
  }
  const scalar_type_info* row = find_scalar_typestr(s);
  return row != nullptr ? scalar(row->id) : nullptr;
}

const type* float_for(type_context& tc, const type* t) {
  switch (t->kind) {
    case type_kind::boolean: return tc.float16();
    case type_kind::integer: return t->bits <= 8 ? tc.float16() : t->bits <= 16 ? tc.float32() : tc.float64();
    case type_kind::floating:
    case type_kind::complex: return t;
    default: return nullptr;
  }
}

namespace {

class spec_parser {
 public:
  spec_parser(type_context& tc, const std::string& s) : tc_(tc), s_(s) {}

  const type* parse() {
    const type* t = one();
    skip();
    if (pos_ != s_.size()) fail("unexpected text");
    return t;
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    throw cuforge::logic_error("cannot read the type '" + s_ + "': " + why + " at position " + std::to_string(pos_));
  }
  void skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  std::string word() {
    skip();
    std::size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    if (b == pos_) fail("expected a name");
    return s_.substr(b, pos_ - b);
  }
  int number() {
    std::int64_t n = number64();
    if (n > std::numeric_limits<int>::max()) fail("number too large");
    return static_cast<int>(n);
  }

  const type* scalar(const std::string& w) {
    if (w == "none") return tc_.none();
    if (const scalar_type_info* row = find_scalar(w)) return tc_.scalar(row->id);
    if (w == "bfloat16") return tc_.bfloat16();
    if (w == "datetime64" || w == "timedelta64") {  // "datetime64[D]", "timedelta64" (generic)
      std::string unit;
      if (eat('[')) {
        unit = peek_unit();
        expect(']');
      }
      const int code = datetime_unit_code(unit);
      if (code < 0) fail("unknown datetime unit '" + unit + "'");
      return w == "datetime64" ? tc_.datetime(code) : tc_.timedelta(code);
    }
    // A vector type: "float32x3".
    if (auto x = w.rfind('x'); x != std::string::npos && x + 2 == w.size() && w[x + 1] >= '1' && w[x + 1] <= '4')
      if (const scalar_type_info* row = find_scalar(w.substr(0, x)); row != nullptr && row->kind != scalar_kind::boolean &&
                                                                     row->kind != scalar_kind::complex && row->bytes > 0 &&
                                                                     row->id != scalar_id::float16)
        return tc_.vector(tc_.scalar(row->id), w[x + 1] - '0');
    fail("unknown type name '" + w + "'");
  }

  std::string peek_unit() {  // the letters of a datetime unit, up to ']'
    skip();
    std::size_t b = pos_;
    while (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    return s_.substr(b, pos_ - b);
  }

  std::int64_t number64() {
    skip();
    std::size_t b = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (b == pos_ || pos_ - b > 15) fail("expected a number");
    return std::stoll(s_.substr(b, pos_ - b));
  }

  // A record field's name: anything up to its '['.
  std::string field_name() {
    skip();
    std::size_t b = pos_;
    while (pos_ < s_.size() && s_[pos_] != '[' && s_[pos_] != ',' && s_[pos_] != ';' && s_[pos_] != ')') ++pos_;
    if (b == pos_) fail("expected a field name");
    return s_.substr(b, pos_ - b);
  }

  // Record(name[type=T;offset=N],...;size;True|False[;space])
  const type* record() {
    expect('(');
    std::vector<field_info> fields;
    skip();
    if (pos_ < s_.size() && s_[pos_] != ';') {
      do {
        field_info f;
        f.name = field_name();
        expect('[');
        if (word() != "type") fail("expected 'type='");
        expect('=');
        std::size_t mark = pos_;
        std::string w = word();
        if (w == "nestedarray") {
          expect('(');
          f.ty = one();
          expect(',');
          expect('(');
          do {
            skip();
            if (pos_ < s_.size() && s_[pos_] == ')') break;
            f.shape.push_back(number64());
          } while (eat(','));
          expect(')');
          expect(')');
          if (f.shape.empty()) fail("a nested array needs a shape");
        } else {
          pos_ = mark;
          f.ty = one();
        }
        expect(';');
        if (word() != "offset") fail("expected 'offset='");
        expect('=');
        f.offset = number64();
        expect(']');
        fields.push_back(std::move(f));
      } while (eat(','));
    }
    expect(';');
    std::int64_t size = number64();
    expect(';');
    std::string al = word();
    if (al != "True" && al != "False") fail("expected True or False");
    address_space space = address_space::global;
    if (eat(';')) {
      std::string sp = word();
      if (sp == "shared") space = address_space::shared;
      else if (sp == "local") space = address_space::local;
      else if (sp == "constant") space = address_space::constant;
      else fail("unknown address space '" + sp + "'");
    }
    expect(')');
    try {
      return tc_.record(std::move(fields), size, al == "True", space);
    } catch (const cuforge::logic_error& e) {
      fail(e.what());
    }
  }

  const type* one() {
    std::string w = word();
    if (w == "Record") return record();
    if (w == "array") {
      expect('(');
      const type* dtype = one();
      expect(',');
      int ndim = number();
      if (!eat('d')) fail("expected 'd' after the dimension count");
      expect(',');
      std::string lay = word();
      if (lay != "C" && lay != "F" && lay != "A") fail("layout must be C, F or A");
      bool readonly = false;
      if (eat(',')) {
        if (word() != "readonly") fail("expected 'readonly'");
        readonly = true;
      }
      expect(')');
      if (!dtype->is_scalar() && !dtype->is_time() && !(dtype->is_record() && dtype->space == address_space::global))
        fail("an array's dtype must be a scalar type or a record");
      return tc_.array(dtype, ndim, static_cast<array_layout>(lay[0]), readonly);
    }
    if (w == "UniTuple") {
      expect('(');
      const type* e = one();
      if (word() != "x") fail("expected 'x'");
      int n = number();
      expect(')');
      return tc_.tuple(std::vector<const type*>(static_cast<std::size_t>(n), e));
    }
    if (w == "CPointer") {
      expect('(');
      const type* e = one();
      if (eat(',')) number();  // an address space: pointers are generic here
      expect(')');
      if (!e->is_scalar() && !e->is_record() && e->kind != type_kind::none)
        fail("a CPointer's target must be a scalar type, a record or none (void*)");
      return tc_.pointer(e);
    }
    if (w == "OptionalType") {
      expect('(');
      const type* e = one();
      expect(')');
      return tc_.optional(e);
    }
    if (w == "Tuple") {
      expect('(');
      std::vector<const type*> es;
      if (!eat(')')) {
        do es.push_back(one());
        while (eat(','));
        expect(')');
      }
      return tc_.tuple(std::move(es));
    }
    skip();
    if (pos_ < s_.size() && s_[pos_] == '(' && w != "none") {
      // A named tuple: Class(field: type, ...)
      expect('(');
      std::vector<const type*> es;
      std::vector<std::string> names;
      if (!eat(')')) {
        do {
          names.push_back(word());
          expect(':');
          es.push_back(one());
        } while (eat(','));
        expect(')');
      }
      if (names.empty()) fail("a named tuple needs fields");
      return tc_.named_tuple(std::move(es), w, std::move(names));
    }
    return scalar(w);
  }

  type_context& tc_;
  const std::string& s_;
  std::size_t pos_ = 0;
};

// The "kind order" NumPy promotes along: bool < int < float < complex.
int category(const type* t) {
  switch (t->kind) {
    case type_kind::boolean: return 0;
    case type_kind::integer: return 1;
    case type_kind::floating: return 2;
    case type_kind::complex: return 3;
    default: return -1;
  }
}

const type* promote_ints(type_context& tc, const type* a, const type* b) {
  if (a->is_signed == b->is_signed) return a->bits >= b->bits ? a : b;
  const type* u = a->is_signed ? b : a;
  const type* s = a->is_signed ? a : b;
  if (s->bits > u->bits) return s;
  if (u->bits == 64) return tc.float64();  // no integer type holds both
  return tc.integer(u->bits * 2, true);
}

const type* promote_strong(type_context& tc, const type* a, const type* b) {
  int ca = category(a), cb = category(b);
  if (ca < 0 || cb < 0) return nullptr;
  if (ca == 0 && cb == 0) return tc.boolean();
  if (ca == 0) return b;
  if (cb == 0) return a;
  if (ca == 1 && cb == 1) return promote_ints(tc, a, b);
  // Mixed kinds: the wider kind, wide enough for the other operand.
  const type* hi = ca >= cb ? a : b;
  const type* lo = ca >= cb ? b : a;
  if (hi->is_float()) {
    const type* need = float_for(tc, lo);
    return need->bits > hi->bits ? need : hi;
  }
  // hi is complex: its float parts must hold lo.
  const int need = lo->is_complex() ? lo->bits / 2 : float_for(tc, lo)->bits;
  return need > hi->bits / 2 ? tc.complex(need * 2) : hi;
}

}  // namespace

const type* parse_type(type_context& tc, const std::string& spec) { return spec_parser(tc, spec).parse(); }

const type* promote(type_context& tc, const type* a, const type* b) {
  if (a == b) return a;
  return promote_strong(tc, a, b);
}

}  // namespace cuforge::frontend

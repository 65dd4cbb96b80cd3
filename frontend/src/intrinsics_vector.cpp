// The registry's CUDA vector types, as numba-cuda 0.30 has them:
// cuda.int8x1 .. cuda.float64x4 (ten element types, one to four elements)
// and their CUDA C names (cuda.float2, cuda.uchar4, cuda.double3, ...),
// which are aliases of the same rows. A vector is built from components in
// order: each a number (converted to the element type, as Numba's overload
// resolution converts it) or a vector of the same element type, the counts
// adding up to the type's (float32x4(float32x2(a, b), c, d)). Its members
// .x .y .z .w are read-only (the typer reads them as tuple_get).
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

namespace cuforge::frontend::detail {

namespace {

// A row's arg: its element type's scalar_id times 8, plus its count.
constexpr int vector_arg(scalar_id base, int count) { return static_cast<int>(base) * 8 + count; }

value type_vector(function_typer& ft, const intrinsic& self, call_args& c) {
  const type* base = ft.tc_.scalar(static_cast<scalar_id>(self.arg / 8));
  const int count = self.arg % 8;
  const type* vt = ft.tc_.vector(base, count);
  const std::string rule = "it takes " + std::to_string(count) + " components in all: numbers, or " + base->str() +
                           " vectors (" + vt->str() + "x...)";
  if (!c.kwargs.empty()) ft.no_impl(c, "it takes no keyword arguments");
  std::vector<value> parts;
  for (const value& a : c.args) {
    if (a.runtime() && a.ty->is_vector()) {
      if (a.ty->elements[0] != base)
        ft.no_impl(c, "a " + a.ty->str() + " is not made of " + base->str() + " (vectors do not convert)");
      value v = ft.pure(a, c.loc);
      for (std::size_t i = 0; i < a.ty->elements.size(); ++i)
        parts.push_back(ft.op(op_id::tuple_get, base, {v}, c.loc, {static_cast<std::int64_t>(i)}));
    } else if (a.runtime() && a.ty->is_scalar() && !a.ty->is_complex()) {
      parts.push_back(ft.cast(a, base, c.loc));
    } else {
      ft.no_impl(c, rule);
    }
  }
  if (parts.size() != static_cast<std::size_t>(count)) ft.no_impl(c, rule + "; got " + std::to_string(parts.size()));
  return ft.intrinsic_op(self, vt, std::move(parts), c.loc);
}

llvm::Value* lower_vector(function_lowering& fl, const intrinsic& self, const expr& e) {
  llvm::Value* v = llvm::PoisonValue::get(fl.ms.value_type(e.ty));
  if (!e.ty->is_vector() || e.operands.size() != e.ty->elements.size())
    fl.fail_at(std::string(self.info.name) + " typed " + e.ty->str(), e.loc);
  for (unsigned i = 0; i < e.operands.size(); ++i) v = fl.b.CreateInsertValue(v, fl.expr(e.operands[i]), i);
  return v;
}

constexpr intrinsic vec(std::string_view name, std::string_view params, std::string_view doc, scalar_id base, int count) {
  return lowered_by(function_entry(name, params, doc, type_vector, op_id::none, vector_arg(base, count)), lower_vector);
}

constexpr intrinsic alias(std::string_view name, std::string_view of, std::string_view params, std::string_view doc,
                          scalar_id base, int count) {
  intrinsic e = vec(name, params, doc, base, count);
  e.info.alias_of = of;
  return e;
}

// Each element type's four rows; each C name's four (aliases of them).
#define CUFORGE_VECTOR_ROWS(T)                                                                   \
  vec("cuda." #T "x1", "(x)", "A " #T " vector of 1 element (.x).", scalar_id::T, 1),            \
  vec("cuda." #T "x2", "(x, y)", "A " #T " vector of 2 elements (.x .y).", scalar_id::T, 2),     \
  vec("cuda." #T "x3", "(x, y, z)", "A " #T " vector of 3 elements (.x .y .z).", scalar_id::T, 3), \
  vec("cuda." #T "x4", "(x, y, z, w)", "A " #T " vector of 4 elements (.x .y .z .w).", scalar_id::T, 4),
#define CUFORGE_VECTOR_ALIAS(C, T, n, params) \
  alias("cuda." #C #n, "cuda." #T "x" #n, params, "CUDA C's " #C #n ": another name of cuda." #T "x" #n ".", scalar_id::T, n),
#define CUFORGE_VECTOR_ALIASES(C, T)                                                                 \
  CUFORGE_VECTOR_ALIAS(C, T, 1, "(x)") CUFORGE_VECTOR_ALIAS(C, T, 2, "(x, y)")                       \
  CUFORGE_VECTOR_ALIAS(C, T, 3, "(x, y, z)") CUFORGE_VECTOR_ALIAS(C, T, 4, "(x, y, z, w)")

// The C names as numba-cuda maps them (NumPy's C types on Linux: long is 64 bits).
const intrinsic table[] = {
    CUFORGE_VECTOR_ROWS(int8) CUFORGE_VECTOR_ROWS(int16) CUFORGE_VECTOR_ROWS(int32) CUFORGE_VECTOR_ROWS(int64)
    CUFORGE_VECTOR_ROWS(uint8) CUFORGE_VECTOR_ROWS(uint16) CUFORGE_VECTOR_ROWS(uint32) CUFORGE_VECTOR_ROWS(uint64)
    CUFORGE_VECTOR_ROWS(float32) CUFORGE_VECTOR_ROWS(float64)
    CUFORGE_VECTOR_ALIASES(char, int8) CUFORGE_VECTOR_ALIASES(short, int16) CUFORGE_VECTOR_ALIASES(int, int32)
    CUFORGE_VECTOR_ALIASES(long, int64) CUFORGE_VECTOR_ALIASES(longlong, int64)
    CUFORGE_VECTOR_ALIASES(uchar, uint8) CUFORGE_VECTOR_ALIASES(ushort, uint16) CUFORGE_VECTOR_ALIASES(uint, uint32)
    CUFORGE_VECTOR_ALIASES(ulong, uint64) CUFORGE_VECTOR_ALIASES(ulonglong, uint64)
    CUFORGE_VECTOR_ALIASES(float, float32) CUFORGE_VECTOR_ALIASES(double, float64)
};

#undef CUFORGE_VECTOR_ROWS
#undef CUFORGE_VECTOR_ALIASES
#undef CUFORGE_VECTOR_ALIAS

}  // namespace

std::span<const intrinsic> vector_intrinsics() { return table; }

}  // namespace cuforge::frontend::detail

// The registry's builtins.* rows (Python's builtins a kernel may call) and
// operator.* rows (the operator module's functions, typed as the operators
// they name). They type into ordinary ops.
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"
#include "numba_typing.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include <functional>

namespace cuforge::frontend::detail {

namespace {

// --- builtins -------------------------------------------------------------------------------------

// min (arg 1) and max (arg 0): two or more numbers, or a tuple of them.
value type_min_max(function_typer& ft, const intrinsic& self, call_args& c) {
  if (!c.kwargs.empty()) ft.no_impl(c);
  return ft.min_max(self.arg == 1, c.args, c);
}

value type_round(function_typer& ft, const intrinsic&, call_args& c) { return ft.round(c); }

value type_divmod(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 2, 2);
  const location loc = c.loc;
  value x = ft.pure(scalar_arg(ft, c, 0), loc), y = ft.pure(scalar_arg(ft, c, 1), loc);
  return ft.make_tuple({ft.binary(binop::floordiv, x, y, loc), ft.binary(binop::mod, x, y, loc)}, loc);
}

// int, float, complex, bool called as functions: conversions to the scalar-type table's row `arg`.
value type_conversion(function_typer& ft, const intrinsic& self, call_args& c) {
  const type* t = ft.tc_.scalar(static_cast<scalar_id>(self.arg));
  if (t->is_complex() && c.args.size() == 2 && c.kwargs.empty()) {
    const value &re = scalar_arg(ft, c, 0), &im = scalar_arg(ft, c, 1);
    if (re.ty->is_complex() || im.ty->is_complex()) ft.no_impl(c, "the parts must be real");
    const type* f = ft.tc_.float64();
    return ft.op(op_id::complex_make, ft.tc_.complex128(), {ft.cast(re, f, c.loc), ft.cast(im, f, c.loc)}, c.loc);
  }
  expect_args(ft, c, 0, 1);
  if (c.args.size() == 1 && c.args[0].runtime() && c.args[0].ty->is_scalar()) {
    // Numba's int(), float() and complex(): int() keeps an integer's type,
    // float() a float's, complex() of a float32 is a complex64.
    const type* x = c.args[0].ty;
    if (t->is_int() && x->is_int()) t = x;
    if (t->is_float() && x->is_float()) t = x;
    if (t->is_complex() && (x->is_complex() || x == ft.tc_.float32())) t = x == ft.tc_.float32() ? ft.tc_.complex64() : ft.tc_.complex128();
  }
  return ft.call_dtype(t, c);
}

// cffi's FFI.from_buffer(array): the array itself, which a declared function's CPointer parameter
// takes as its data pointer (calls of cuda.declare_device's functions, typer_calls.cpp).
value type_from_buffer(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 1, 1);
  if (!c.args[0].ty->is_array()) ft.no_impl(c, "ffi.from_buffer() takes an array");
  return c.args[0];
}

value type_len(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 1, 1);
  const location loc = c.loc;
  const value& x = c.args[0];
  if (x.ty->is_array()) {
    if (x.ty->ndim == 0) ft.no_impl(c, "len() of a 0-d array");
    value r = ft.op(op_id::array_shape, ft.tc_.int64(), {x}, loc, {0});
    r.weak = r.nonneg = true;
    return r;
  }
  if (x.ty->is_tuple()) {
    if (!x.pure) ft.hoist(x, loc);
    return ft.int_constant(static_cast<std::int64_t>(x.ty->elements.size()), ft.tc_.int64(), loc, true);
  }
  ft.no_impl(c, "len() takes an array or a tuple");
}

// range(start, stop, step) as a source inside enumerate() or zip(): its length
// (__range_len__, arg 0), and its item at an index (__range_item__, arg 1),
// in the type for_range counts in. The walker's desugaring; no Python name
// reaches these.
value type_range_part(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  const bool item = self.arg == 1;
  const std::string name(self.info.name.substr(self.info.name.find('.') + 1));
  if (c.args.size() != (item ? 4u : 3u) || !c.kwargs.empty()) ft.fail(loc, "malformed IR: " + name);
  for (const auto& a : c.args)
    if (!a.runtime()) ft.fail(loc, "range() arguments must be integers, got " + a.ty->str());
  value start = ft.pure(c.args[0], loc), stop = ft.pure(c.args[1], loc), step = ft.pure(c.args[2], loc);
  const value* parts[] = {&start, &stop, &step};
  const location where[3] = {loc, loc, loc};
  bool weak = false;
  const type* t = ft.range_type(parts, where, loc, weak);
  value s0 = ft.cast(start, t, loc), s1 = ft.cast(stop, t, loc), st = ft.cast(step, t, loc);
  if (item) {
    value i = ft.cast(c.args[3], t, loc);
    return ft.cast(ft.binary(binop::add, s0, ft.binary(binop::mul, i, st, loc), loc), t, loc);
  }
  value n;
  if (t->is_signed) {
    // Python's floor division makes -((start - stop) // step) the ceiling
    // of (stop - start) / step for either sign of step.
    n = ft.unary(unop::neg, ft.binary(binop::floordiv, ft.binary(binop::sub, s0, s1, loc), st, loc), loc);
    n = ft.min_max(false, {ft.pure(n, loc), ft.int_constant(0, t, loc)}, c);
  } else {
    // Unsigned: the step is positive (a negative constant made it int64).
    value span = ft.binary(binop::sub, ft.min_max(false, {s1, s0}, c), s0, loc);
    n = ft.binary(binop::floordiv,
                  ft.binary(binop::sub, ft.binary(binop::add, span, st, loc), ft.int_constant(1, t, loc), loc), st, loc);
  }
  value r = ft.cast(n, ft.tc_.int64(), loc);
  r.nonneg = true;
  return r;
}

// range, enumerate and zip are for loops' iterables: the walker takes them there.
value type_loop_only(function_typer& ft, const intrinsic& self, call_args& c) {
  ft.fail(c.loc, "Unsupported: " + std::string(self.info.name.substr(9)) + "() outside the iterable of a for loop");
}

// print(*values): numba-cuda's line, its format made here (printimpl.py's rules): an integer as
// %lld or %llu (widened to 64 bits), a float as %f (a double; in host-only code %R, Python's repr,
// as Numba's CPU target prints: host_print.cpp), a boolean as True or False, a constant
// string as itself, a tuple as (a, b) or (a,), cuda.threadIdx and its kin as (x, y, z); the items
// joined by spaces, a newline last. The intrinsic op's operands are the values the format takes
// (int64, uint64, float64 or bool, in order); attrs[1] indexes the format in the module's strings.
constexpr std::size_t print_max_values = 32;  // vprintf's limit

value type_print(function_typer& ft, const intrinsic& self, call_args& c) {
  const location loc = c.loc;
  if (!c.kwargs.empty())
    ft.no_impl(c, "print() in a kernel takes no keyword arguments ('" + c.kwargs.front().name + "' given)");
  std::string format;
  std::vector<value> values;
  std::function<void(const value&)> item = [&](const value& v) {
    const type* t = v.ty;
    if (t == nullptr) ft.no_impl(c);
    if (t->kind == type_kind::string_literal) {
      for (char ch : t->name) format += ch == '%' ? std::string("%%") : std::string(1, ch);
      return;
    }
    if (t->kind == type_kind::module && (t->name == "cuda.threadIdx" || t->name == "cuda.blockIdx" ||
                                         t->name == "cuda.blockDim" || t->name == "cuda.gridDim")) {
      format += "(";
      for (const char* d : {".x", ".y", ".z"}) {
        const intrinsic* e = find_entry(t->name + d);
        if (e == nullptr || e->read == nullptr) ft.no_impl(c, "cannot read " + t->name + d);
        if (d[1] != 'x') format += ", ";
        item(e->read(ft, *e, loc));
      }
      format += ")";
      return;
    }
    if (!v.runtime()) ft.no_impl(c, "print() cannot print " + t->str());
    if (t->kind == type_kind::boolean) {
      format += "%s";
      values.push_back(v);
    } else if (t->is_int()) {
      format += t->is_signed ? "%lld" : "%llu";
      values.push_back(ft.cast(v, t->is_signed ? ft.tc_.int64() : ft.tc_.uint64(), loc));
    } else if (t->is_float() || t->is_bfloat16()) {
      format += ft.host_only() ? "%R" : "%f";  // the host jit prints as Python (Numba's CPU print)
      values.push_back(ft.cast(t->is_bfloat16() ? ft.cast(v, ft.tc_.float32(), loc) : v, ft.tc_.float64(), loc));
    } else if (t->is_tuple()) {
      std::vector<value> es = ft.tuple_elements(v, loc);
      format += "(";
      for (std::size_t i = 0; i < es.size(); ++i) {
        if (i != 0) format += ", ";
        item(es[i]);
      }
      format += es.size() == 1 ? ",)" : ")";
    } else {
      ft.no_impl(c, "print() cannot print " + t->str() + " (numbers, booleans, constant strings and tuples of them)");
    }
  };
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    if (i != 0) format += " ";
    item(c.args[i]);
  }
  format += "\n";
  if (values.size() > print_max_values)
    ft.no_impl(c, "print() in a kernel prints at most " + std::to_string(print_max_values) + " values, not " +
                      std::to_string(values.size()) + " (CUDA's vprintf limit)");
  return ft.intrinsic_op(self, ft.tc_.none(), std::move(values), loc, {ft.add_string(format)}, true);
}

// print's format and values: the format's text, then each value as printf takes it (a bool as the
// string True or False), every string a constant of address space `space` seen as a generic pointer.
std::vector<llvm::Value*> print_arguments(function_lowering& fl, const expr& e, unsigned space) {
  auto& b = fl.b;
  if (e.attrs.size() < 2 || e.attrs[1] < 0 || static_cast<std::size_t>(e.attrs[1]) >= fl.ms.tm.strings.size())
    fl.fail_at("print without its format", e.loc);
  auto text = [&](const std::string& t) -> llvm::Value* {
    auto* init = llvm::ConstantDataArray::getString(fl.c_(), t, true);
    auto* g = new llvm::GlobalVariable(fl.ms.mod, init->getType(), true, llvm::GlobalValue::InternalLinkage, init,
                                       "print.text", nullptr, llvm::GlobalVariable::NotThreadLocal, space);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    g->setAlignment(llvm::Align(1));
    return space == 0 ? static_cast<llvm::Value*>(g) : b.CreateAddrSpaceCast(g, llvm::PointerType::get(fl.c_(), 0));
  };
  std::vector<llvm::Value*> out{text(fl.ms.tm.strings[static_cast<std::size_t>(e.attrs[1])])};
  llvm::Value* true_text = nullptr;
  llvm::Value* false_text = nullptr;
  for (expr_id id : e.operands) {
    const type* t = fl.type_of(id);
    llvm::Value* v = fl.expr(id);
    if (t->kind == type_kind::boolean) {
      if (true_text == nullptr) {
        true_text = text("True");
        false_text = text("False");
      }
      v = b.CreateSelect(fl.truth(v, t), true_text, false_text);
    }
    out.push_back(v);
  }
  return out;
}

// The GPU's: vprintf(format, a buffer holding the values), as CUDA's printf is compiled.
llvm::Value* lower_print_nvptx(function_lowering& fl, const intrinsic&, const expr& e) {
  auto& b = fl.b;
  std::vector<llvm::Value*> args = print_arguments(fl, e, 4);  // the constant space
  auto* generic = llvm::PointerType::get(fl.c_(), 0);
  llvm::Value* buffer = llvm::ConstantPointerNull::get(generic);
  if (args.size() > 1) {
    std::vector<llvm::Type*> fields;
    for (std::size_t i = 1; i < args.size(); ++i) fields.push_back(args[i]->getType());
    auto* st = llvm::StructType::get(fl.c_(), fields);
    llvm::AllocaInst* slot = fl.entry_alloca(st, "print.values");
    for (std::size_t i = 1; i < args.size(); ++i)
      b.CreateStore(args[i], b.CreateStructGEP(st, slot, static_cast<unsigned>(i - 1)));
    buffer = slot->getType() == generic ? static_cast<llvm::Value*>(slot) : b.CreateAddrSpaceCast(slot, generic);
  }
  llvm::FunctionCallee vprintf = fl.ms.mod.getOrInsertFunction("vprintf", b.getInt32Ty(), generic, generic);
  b.CreateCall(vprintf, {args[0], buffer});
  return fl.ms.none_value();
}

// The host's: cuforge_host_print(format, values...), C varargs (host_print.cpp), one whole line.
llvm::Value* lower_print_host(function_lowering& fl, const intrinsic&, const expr& e) {
  auto& b = fl.b;
  std::vector<llvm::Value*> args = print_arguments(fl, e, 0);
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {llvm::PointerType::get(fl.c_(), 0)}, /*isVarArg=*/true);
  b.CreateCall(fl.ms.mod.getOrInsertFunction("cuforge_host_print", fty), args);
  return fl.ms.none_value();
}

// --- operator -------------------------------------------------------------------------------------

value type_operator_binary(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 2, 2);
  return ft.binary(static_cast<binop>(self.arg), c.args[0], c.args[1], c.loc);
}

value type_operator_compare(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 2, 2);
  return ft.compare(static_cast<cmpop>(self.arg), c.args[0], c.args[1], c.loc);
}

value type_operator_unary(function_typer& ft, const intrinsic& self, call_args& c) {
  expect_args(ft, c, 1, 1);
  return ft.unary(static_cast<unop>(self.arg), c.args[0], c.loc);
}

constexpr intrinsic conversion(std::string_view name, scalar_id to, std::string_view doc) {
  return function_entry(name, "(x=0)", doc, type_conversion, op_id::none, static_cast<int>(to));
}
constexpr intrinsic op_binary(std::string_view name, binop o, std::string_view doc) {
  return function_entry(name, "(a, b)", doc, type_operator_binary, op_id::none, static_cast<int>(o));
}
constexpr intrinsic op_compare(std::string_view name, cmpop o, std::string_view doc) {
  return function_entry(name, "(a, b)", doc, type_operator_compare, op_id::none, static_cast<int>(o));
}
constexpr intrinsic op_unary(std::string_view name, unop o, std::string_view doc) {
  return function_entry(name, "(a)", doc, type_operator_unary, op_id::none, static_cast<int>(o));
}

const intrinsic table[] = {
    module_entry("builtins", "Python's builtins that kernels may call."),
    function_entry("builtins.abs", "(x)", "The absolute value (a complex number's modulus).", type_abs),
    function_entry("builtins.min", "(a, b, *more)", "The smallest of two or more numbers, or of a tuple.",
                   type_min_max, op_id::none, 1),
    function_entry("builtins.max", "(a, b, *more)", "The largest of two or more numbers, or of a tuple.",
                   type_min_max, op_id::none, 0),
    function_entry("builtins.round", "(x, ndigits=None)",
                   "x rounded, halves to even: an int64, or x's float type with ndigits.", type_round),
    function_entry("builtins.pow", "(x, y)", "x ** y.", type_pow),
    function_entry("builtins.divmod", "(x, y)", "(x // y, x % y).", type_divmod),
    conversion("builtins.int", scalar_id::int64, "x as an int64 (floats truncate)."),
    conversion("builtins.float", scalar_id::float64, "x as a float64."),
    conversion("builtins.complex", scalar_id::complex128, "x (or real, imag) as a complex128."),
    conversion("builtins.bool", scalar_id::bool_, "The truth of x."),
    function_entry("builtins.len", "(x)", "An array's first extent, or a tuple's length (int64).", type_len),
    module_entry("cffi", "cffi's FFI objects: their from_buffer, for declared functions' pointer parameters."),
    function_entry("cffi.from_buffer", "(array)",
                   "cffi's FFI.from_buffer: the array, passed to a declared function's pointer parameter as its "
                   "data pointer.",
                   type_from_buffer),
    function_entry("builtins.range", "(start, stop, step)", "The iterable of a for loop.", type_loop_only),
    function_entry("builtins.enumerate", "(iterable)", "The iterable of a for loop.", type_loop_only),
    function_entry("builtins.zip", "(*iterables)", "The iterable of a for loop.", type_loop_only),
    lowered_by(taking_compile_time_args(function_entry(
                   "builtins.print", "(*values)",
                   "Prints numbers, booleans, constant strings and tuples of them, space-separated, as one line "
                   "(vprintf on a GPU, the process's stdout on the cpu backend).",
                   type_print)),
               lower_print_nvptx, lower_print_host),
    function_entry("builtins.__range_len__", "(start, stop, step)",
                   "The walker's: the length of a range() inside enumerate() or zip().", type_range_part,
                   op_id::none, 0),
    function_entry("builtins.__range_item__", "(start, stop, step, i)",
                   "The walker's: item i of a range() inside enumerate() or zip().", type_range_part, op_id::none, 1),

    module_entry("operator", "Python's operator module: each function is the operator it names."),
    op_binary("operator.add", binop::add, "a + b."),
    op_binary("operator.sub", binop::sub, "a - b."),
    op_binary("operator.mul", binop::mul, "a * b."),
    op_binary("operator.truediv", binop::truediv, "a / b."),
    op_binary("operator.floordiv", binop::floordiv, "a // b."),
    op_binary("operator.mod", binop::mod, "a % b."),
    op_binary("operator.pow", binop::pow, "a ** b."),
    op_binary("operator.lshift", binop::lshift, "a << b."),
    op_binary("operator.rshift", binop::rshift, "a >> b."),
    op_binary("operator.and_", binop::bitand_, "a & b."),
    op_binary("operator.or_", binop::bitor_, "a | b."),
    op_binary("operator.xor", binop::bitxor, "a ^ b."),
    op_compare("operator.eq", cmpop::eq, "a == b."),
    op_compare("operator.ne", cmpop::ne, "a != b."),
    op_compare("operator.lt", cmpop::lt, "a < b."),
    op_compare("operator.le", cmpop::le, "a <= b."),
    op_compare("operator.gt", cmpop::gt, "a > b."),
    op_compare("operator.ge", cmpop::ge, "a >= b."),
    op_unary("operator.neg", unop::neg, "-a."),
    op_unary("operator.pos", unop::pos, "+a."),
    op_unary("operator.invert", unop::invert, "~a."),
    op_unary("operator.not_", unop::not_, "not a."),
    function_entry("operator.abs", "(a)", "abs(a).", type_abs),
};

}  // namespace

value type_pow(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 2, 2);
  return ft.pow(scalar_arg(ft, c, 0), scalar_arg(ft, c, 1), c.loc);
}

value type_abs(function_typer& ft, const intrinsic&, call_args& c) {
  expect_args(ft, c, 1, 1);
  const location loc = c.loc;
  if (c.args[0].runtime() && c.args[0].ty->kind == type_kind::timedelta) return ft.time_abs(c.args[0], loc);
  const value& x = scalar_arg(ft, c, 0);
  if (x.ty->is_complex()) {
    value r = ft.op(op_id::abs, ft.tc_.floating(x.ty->bits / 2), {x}, loc);
    r.weak = x.weak;
    return r;
  }
  // Numba's candidates: an integer keeps its type (a bool becomes int8),
  // float16 stays float16.
  resolved_op sig = numba_call(ft.tc_, "builtins.abs", {x.ty});
  if (!sig) ft.no_impl(c);
  const type* result = sig.result;
  const type* t = result;
  value v = ft.cast(x, t, loc);
  if (t->is_int()) {
    if (auto k = ft.const_int(v))
      return ft.int_constant(*k < 0 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(*k)) : *k, t, loc, x.weak);
    if (!t->is_signed) return v;
  }
  value r = ft.op(op_id::abs, t, {v}, loc);
  r.weak = x.weak;
  r.nonneg = t->is_int();
  return ft.cast(r, result, loc);
}

std::span<const intrinsic> builtin_intrinsics() { return table; }

}  // namespace cuforge::frontend::detail

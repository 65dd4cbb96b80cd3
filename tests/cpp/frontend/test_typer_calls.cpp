// The typer on calls: builtins, math/cmath/numpy, dtypes as conversions,
// the operator module, and device functions (specialisation, call_device,
// what callees write, recursion).
#include "typer_support.hpp"

using namespace typer_test;

namespace {

const char* const params[] = {"a", "b", "c", "d"};

std::shared_ptr<function> typed(env& e, const std::string& expression, const std::vector<std::string>& args) {
  std::string src = "def k(";
  for (std::size_t i = 0; i < args.size(); ++i) src += (i ? ", " : "") + std::string(params[i]);
  src += "):\n    x = " + expression + "\n";
  return e.infer(src, args).functions.at(0).ir;
}

std::string type_of(env& e, const std::string& expression, const std::vector<std::string>& args) {
  return var_type(*typed(e, expression, args), "x");
}

// The typing error of `x = <expression>` at the expression.
failure fails(env& e, const std::string& expression, const std::vector<std::string>& args, location& where) {
  std::string src = "def k(";
  for (std::size_t i = 0; i < args.size(); ++i) src += (i ? ", " : "") + std::string(params[i]);
  src += "):\n    x = " + expression + "\n";
  where = {2, 8};
  return e.fail(src, args);
}

}  // namespace

TEST(TyperBuiltins, Abs) {
  env e;
  EXPECT_EQ(only_op(*typed(e, "abs(a)", {"int32"}), op_id::abs).ty->str(), "int32");
  EXPECT_EQ(only_op(*typed(e, "abs(a)", {"float32"}), op_id::abs).ty->str(), "float32");
  auto f = typed(e, "abs(a)", {"complex64"});
  const expr& ab = only_op(*f, op_id::abs);
  EXPECT_EQ(ab.ty->str(), "float32");
  EXPECT_EQ(operand_types(*f, ab), (std::vector<std::string>{"complex64"}));
  EXPECT_EQ(type_of(e, "abs(a)", {"bool"}), "int8");
  EXPECT_EQ(type_of(e, "abs(a) * 2.0", {"float32"}), "float64");
  EXPECT_EQ(ops_of(*typed(e, "abs(a)", {"uint8"}), op_id::abs).size(), 0u);  // already non-negative
  location w;
  EXPECT_TYPING_ERROR(fails(e, "abs(a)", {"array(float32, 1d, C)"}, w),
                      "No implementation of builtins.abs for (array(float32, 1d, C),)", w);
  EXPECT_TYPING_ERROR(fails(e, "abs(a, a)", {"int32"}, w), "No implementation of builtins.abs for (int32, int32)", w);
}

TEST(TyperBuiltins, MinMax) {
  env e;
  auto f = typed(e, "min(a, b)", {"int32", "float32"});
  const expr& m = only_op(*f, op_id::min);
  EXPECT_EQ(m.ty->str(), "float64");
  EXPECT_EQ(operand_types(*f, m), (std::vector<std::string>{"float64", "float64"}));
  auto g = typed(e, "max(a, b, c)", {"int8", "int16", "int32"});
  EXPECT_EQ(ops_of(*g, op_id::max).size(), 2u);
  EXPECT_EQ(var_type(*g, "x"), "int32");
  EXPECT_EQ(type_of(e, "max(a, 0)", {"uint8"}), "int64");
  location w;
  EXPECT_TYPING_ERROR(fails(e, "min(a)", {"int32"}, w), "No implementation of builtins.min for (int32,)", w);
  EXPECT_TYPING_ERROR(fails(e, "max(a, b)", {"complex64", "float32"}, w),
                      "No implementation of builtins.max for (complex64, float32)", w);
}

TEST(TyperBuiltins, MinOfATuple) {
  env e;
  auto f = e.infer("def k(a, b):\n    t = (a, b, a)\n    x = min(t)\n", {"int32", "int64"}).functions[0].ir;
  EXPECT_EQ(ops_of(*f, op_id::min).size(), 2u);
  EXPECT_EQ(var_type(*f, "x"), "int64");
}

TEST(TyperBuiltins, Round) {
  env e;
  // round(x): an int, halves to even (rint).
  auto f = typed(e, "round(a)", {"float32"});
  EXPECT_EQ(only_op(*f, op_id::rint).ty->str(), "float32");
  EXPECT_EQ(var_type(*f, "x"), "int64");
  EXPECT_EQ(type_of(e, "round(a)", {"int16"}), "int64");
  // round(x, n): x's float type.
  auto g = typed(e, "round(a, 2)", {"float32"});
  EXPECT_EQ(var_type(*g, "x"), "float32");
  EXPECT_EQ(ops_of(*g, op_id::rint).size(), 1u);
  auto powers = ops_of(*g, op_id::powi);  // 10 ** n, once per use: the IR is a tree
  ASSERT_EQ(powers.size(), 2u);
  EXPECT_EQ(powers[0]->ty->str(), "float32");
  EXPECT_EQ(type_of(e, "round(a, 1)", {"float64"}), "float64");
  EXPECT_EQ(type_of(e, "round(a, -1)", {"int32"}), "float64");
  location w;
  EXPECT_TYPING_ERROR(fails(e, "round(a, 1.5)", {"float32"}, w), "No implementation of builtins.round for (float32, float64)", w);
  EXPECT_TYPING_ERROR(fails(e, "round(a)", {"complex128"}, w), "No implementation of builtins.round for (complex128,)", w);
}

TEST(TyperBuiltins, Conversions) {
  env e;
  auto f = typed(e, "int(a)", {"float32"});
  EXPECT_EQ(var_type(*f, "x"), "int64");
  EXPECT_EQ(f->at(f->at_stmt(f->body.back()).value).kind, expr_kind::cast);
  EXPECT_EQ(type_of(e, "float(a)", {"int32"}), "float64");
  EXPECT_EQ(type_of(e, "bool(a)", {"float32"}), "bool");
  EXPECT_EQ(type_of(e, "complex(a)", {"float32"}), "complex128");
  auto g = typed(e, "complex(a, b)", {"float32", "int32"});
  const expr& mk = only_op(*g, op_id::complex_make);
  EXPECT_EQ(mk.ty->str(), "complex128");
  EXPECT_EQ(operand_types(*g, mk), (std::vector<std::string>{"float64", "float64"}));
  EXPECT_EQ(type_of(e, "int()", {}), "int64");
  location w;
  EXPECT_TYPING_ERROR(fails(e, "int(a)", {"complex64"}, w), "No implementation of int for (complex64,)", w);
  EXPECT_TYPING_ERROR(fails(e, "float(a, a)", {"int32"}, w), "No implementation of float for (int32, int32)", w);
  EXPECT_TYPING_ERROR(fails(e, "complex(a, a)", {"complex64"}, w), "No implementation of complex for (complex64, complex64)", w);
  EXPECT_TYPING_ERROR(fails(e, "np.float32(a)", {"array(float32, 1d, C)"}, w),
                      "No implementation of numpy.float32 for (array(float32, 1d, C),)", w);
  // The builtins themselves, when a walker resolves them as functions.
  e.globals["int"] = function_global("builtins.int");
  e.globals["complex"] = function_global("builtins.complex");
  EXPECT_EQ(type_of(e, "int(a)", {"float32"}), "int64");
  EXPECT_EQ(type_of(e, "complex(a, 1)", {"float32"}), "complex128");
}

TEST(TyperBuiltins, DtypesAreConversions) {
  env e;
  auto f = typed(e, "float32(a)", {"int64"});
  EXPECT_EQ(var_type(*f, "x"), "float32");
  EXPECT_EQ(f->at(f->at_stmt(f->body.back()).value).kind, expr_kind::cast);
  EXPECT_EQ(type_of(e, "np.float32(a) * 2.0", {"int64"}), "float64");
  EXPECT_EQ(type_of(e, "np.uint8(a)", {"float64"}), "uint8");
  EXPECT_EQ(type_of(e, "bool_(a)", {"int32"}), "bool");
  EXPECT_EQ(type_of(e, "np.complex64(a)", {"float32"}), "complex64");
  EXPECT_EQ(type_of(e, "float16(a)", {"float32"}), "float16");
  // A constant converts while typing.
  auto g = typed(e, "np.int8(200)", {});
  const expr& v = g->at(g->at_stmt(g->body.back()).value);
  EXPECT_EQ(v.kind, expr_kind::constant);
  EXPECT_EQ(v.value.i, -56);
  location w;
  EXPECT_TYPING_ERROR(fails(e, "float32(a)", {"complex64"}, w), "No implementation of float32 for (complex64,)", w);
}

TEST(TyperBuiltins, Divmod) {
  env e;
  auto f = typed(e, "divmod(a, b)", {"int32", "int32"});
  EXPECT_EQ(var_type(*f, "x"), "UniTuple(int64 x 2)");
  EXPECT_EQ(only_op(*f, op_id::floordiv).ty->str(), "int64");
  EXPECT_EQ(only_op(*f, op_id::mod).ty->str(), "int64");
  EXPECT_EQ(type_of(e, "divmod(a, 2)", {"float32"}), "UniTuple(float64 x 2)");
}

TEST(TyperBuiltins, Len) {
  env e;
  auto f = typed(e, "len(a)", {"array(float32, 2d, C)"});
  EXPECT_EQ(only_op(*f, op_id::array_shape).attrs, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(var_type(*f, "x"), "int64");
  location w;
  EXPECT_TYPING_ERROR(fails(e, "len(a)", {"float32"}, w), "No implementation of builtins.len for (float32,)", w);
}

TEST(TyperBuiltins, RangeOutsideAForLoop) {
  env e;
  location w;
  EXPECT_TYPING_ERROR(fails(e, "range(a)", {"int32"}, w), "Unsupported: range() outside the iterable of a for loop", w);
  EXPECT_TYPING_ERROR(fails(e, "print(a)", {"array(int32, 1d, C)"}, w),
                      "print() cannot print array(int32, 1d, C) (numbers, booleans, constant strings and tuples", w);
}

TEST(TyperMath, SinglePrecisionStaysSingle) {
  env e;
  for (const char* f : {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
                        "exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "fabs", "erf", "erfc", "gamma", "lgamma"}) {
    EXPECT_EQ(type_of(e, std::string("math.") + f + "(a)", {"float32"}), "float32") << f;
    EXPECT_EQ(type_of(e, std::string("math.") + f + "(a)", {"int32"}), "float64") << f;
  }
  auto g = typed(e, "math.gamma(a)", {"float32"});
  EXPECT_EQ(only_op(*g, op_id::tgamma).ty->str(), "float32");
  auto h = typed(e, "math.sqrt(a)", {"int16"});
  EXPECT_EQ(operand_types(*h, only_op(*h, op_id::sqrt)), (std::vector<std::string>{"float64"}));
  EXPECT_EQ(type_of(e, "math.sin(a)", {"float16"}), "float16");
  EXPECT_EQ(type_of(e, "math.sin(a) * 2.0", {"float32"}), "float64");
}

TEST(TyperMath, TwoArgumentFunctions) {
  env e;
  auto f = typed(e, "math.atan2(a, b)", {"float32", "float32"});
  EXPECT_EQ(only_op(*f, op_id::atan2).ty->str(), "float32");
  EXPECT_EQ(type_of(e, "math.atan2(a, 1.0)", {"float32"}), "float64");
  EXPECT_EQ(type_of(e, "math.hypot(a, b)", {"float32", "int32"}), "float64");
  EXPECT_EQ(only_op(*typed(e, "math.pow(a, b)", {"float32", "float32"}), op_id::fpow).ty->str(), "float32");
  EXPECT_EQ(type_of(e, "math.copysign(a, b)", {"float64", "float32"}), "float64");
  EXPECT_EQ(type_of(e, "math.fmod(a, 2)", {"float32"}), "float64");
  auto g = typed(e, "math.log(a, 2)", {"float32"});
  EXPECT_EQ(ops_of(*g, op_id::log).size(), 2u);
  EXPECT_EQ(only_op(*g, op_id::div).ty->str(), "float64");
}

TEST(TyperMath, IntegerResultsAndPredicates) {
  env e;
  auto f = typed(e, "math.floor(a)", {"float32"});
  EXPECT_EQ(only_op(*f, op_id::floor).ty->str(), "float32");
  EXPECT_EQ(var_type(*f, "x"), "float32");
  EXPECT_EQ(type_of(e, "math.ceil(a)", {"int32"}), "float64");
  EXPECT_EQ(type_of(e, "math.trunc(a)", {"float64"}), "float64");
  auto g = typed(e, "math.isnan(a)", {"float32"});
  EXPECT_EQ(operand_types(*g, only_op(*g, op_id::isnan)), (std::vector<std::string>{"float32"}));
  EXPECT_EQ(var_type(*g, "x"), "bool");
  auto h = typed(e, "math.isinf(a)", {"int32"});
  EXPECT_EQ(ops_of(*h, op_id::isinf).size(), 0u);  // an integer is never inf
  EXPECT_EQ(type_of(e, "math.isfinite(a)", {"float64"}), "bool");
}

TEST(TyperMath, FrexpModfLdexpAngles) {
  env e;
  EXPECT_EQ(type_of(e, "math.frexp(a)", {"float32"}), "Tuple(float32, int32)");
  EXPECT_EQ(type_of(e, "math.modf(a)", {"float64"}), "UniTuple(float64 x 2)");
  EXPECT_EQ(type_of(e, "math.frexp(a)[1]", {"float32"}), "int32");
  auto f = typed(e, "math.ldexp(a, b)", {"float32", "int64"});
  EXPECT_EQ(operand_types(*f, only_op(*f, op_id::ldexp)), (std::vector<std::string>{"float32", "int32"}));
  EXPECT_EQ(only_op(*typed(e, "math.radians(a)", {"float32"}), op_id::mul).ty->str(), "float32");
  EXPECT_EQ(type_of(e, "math.degrees(a)", {"int32"}), "float64");
}

TEST(TyperMath, Constants) {
  env e;
  EXPECT_EQ(type_of(e, "math.pi", {}), "float64");
  EXPECT_EQ(type_of(e, "a * math.tau", {"float32"}), "float64");
  EXPECT_EQ(type_of(e, "math.inf", {}), "float64");
  EXPECT_EQ(type_of(e, "np.nan", {}), "float64");
  EXPECT_EQ(type_of(e, "cmath.infj", {}), "complex128");
  auto f = typed(e, "math.e", {});
  EXPECT_NEAR(f->at(f->at_stmt(f->body.back()).value).value.f, 2.718281828459045, 1e-15);
}

TEST(TyperMath, NumpyOnScalars) {
  env e;
  EXPECT_EQ(type_of(e, "np.sqrt(a)", {"float32"}), "float32");
  EXPECT_EQ(only_op(*typed(e, "np.arcsin(a)", {"float32"}), op_id::asin).ty->str(), "float32");
  EXPECT_EQ(type_of(e, "np.isnan(a)", {"float64"}), "bool");
  // numpy's floor keeps the float type (math.floor gives an int).
  EXPECT_EQ(type_of(e, "np.floor(a)", {"float32"}), "float32");
  EXPECT_EQ(type_of(e, "np.arctan2(a, b)", {"float32", "float32"}), "float32");
  EXPECT_EQ(only_op(*typed(e, "np.fmin(a, b)", {"float64", "float64"}), op_id::fmin).ty->str(), "float64");
  EXPECT_EQ(only_op(*typed(e, "np.minimum(a, b)", {"int32", "int32"}), op_id::min).ty->str(), "int32");
  EXPECT_EQ(only_op(*typed(e, "np.power(a, 2)", {"float32"}), op_id::powi).ty->str(), "float32");
  EXPECT_EQ(type_of(e, "np.abs(a)", {"complex128"}), "float64");
  EXPECT_EQ(only_op(*typed(e, "np.sqrt(a)", {"complex64"}), op_id::csqrt).ty->str(), "complex64");
  auto f = typed(e, "np.isnan(a)", {"complex64"});
  EXPECT_EQ(ops_of(*f, op_id::isnan).size(), 2u);  // either part
  EXPECT_EQ(type_of(e, "np.real(a)", {"complex64"}), "float32");
  EXPECT_EQ(only_op(*typed(e, "np.conj(a)", {"complex128"}), op_id::conj).ty->str(), "complex128");
  EXPECT_EQ(type_of(e, "numpy.deg2rad(a)", {"float32"}), "float32");
}

TEST(TyperMath, Complex) {
  env e;
  EXPECT_EQ(only_op(*typed(e, "cmath.exp(a)", {"complex64"}), op_id::cexp).ty->str(), "complex64");
  EXPECT_EQ(only_op(*typed(e, "cmath.sqrt(a)", {"float64"}), op_id::csqrt).ty->str(), "complex128");
  EXPECT_EQ(type_of(e, "cmath.sqrt(a)", {"float32"}), "complex64");
  EXPECT_EQ(only_op(*typed(e, "cmath.phase(a)", {"complex64"}), op_id::phase).ty->str(), "float32");
  EXPECT_EQ(type_of(e, "cmath.polar(a)", {"complex128"}), "UniTuple(float64 x 2)");
  EXPECT_EQ(only_op(*typed(e, "cmath.rect(a, b)", {"float32", "float32"}), op_id::crect).ty->str(), "complex64");
  EXPECT_EQ(type_of(e, "a.real", {"complex64"}), "float32");
  EXPECT_EQ(only_op(*typed(e, "a.imag", {"complex128"}), op_id::imag).ty->str(), "float64");
  EXPECT_EQ(type_of(e, "a.imag", {"float32"}), "float32");
  EXPECT_EQ(only_op(*typed(e, "a.conjugate()", {"complex64"}), op_id::conj).ty->str(), "complex64");
  EXPECT_EQ(type_of(e, "cmath.isnan(a)", {"complex64"}), "bool");
}

TEST(TyperMath, WrongArguments) {
  env e;
  location w;
  EXPECT_TYPING_ERROR(fails(e, "math.sin(a)", {"array(float32, 1d, C)"}, w),
                      "No implementation of math.sin for (array(float32, 1d, C),)", w);
  EXPECT_TYPING_ERROR(fails(e, "math.sin(a, a)", {"float32"}, w), "No implementation of math.sin for (float32, float32)", w);
  EXPECT_TYPING_ERROR(fails(e, "math.sqrt(a)", {"complex64"}, w), "No implementation of math.sqrt for (complex64,)", w);
  EXPECT_TYPING_ERROR(fails(e, "math.atan2(a)", {"float32"}, w), "No implementation of math.atan2 for (float32,)", w);
  EXPECT_TYPING_ERROR(fails(e, "math.isnan(a)", {"complex64"}, w), "No implementation of math.isnan for (complex64,)", w);
  EXPECT_TYPING_ERROR(fails(e, "math.ldexp(a, 1.5)", {"float32"}, w),
                      "No implementation of math.ldexp for (float32, float64)", w);
  EXPECT_TYPING_ERROR(fails(e, "math.sin(x=a)", {"float32"}, w), "No implementation of math.sin for (x=float32,)", w);
  EXPECT_TYPING_ERROR(fails(e, "math.sin(math)", {}, w), "No implementation of math.sin for (Module(math),)", w);
}

TEST(TyperMath, OperatorModule) {
  env e;
  EXPECT_EQ(only_op(*typed(e, "operator.add(a, b)", {"int32", "int32"}), op_id::add).ty->str(), "int64");
  EXPECT_EQ(type_of(e, "operator.truediv(a, 2)", {"int32"}), "float64");
  EXPECT_EQ(type_of(e, "operator.lt(a, b)", {"int32", "float32"}), "bool");
  EXPECT_EQ(only_op(*typed(e, "operator.neg(a)", {"float32"}), op_id::neg).ty->str(), "float32");
}

// --- device functions ---------------------------------------------------------------------

TEST(TyperDevice, CallsAreSpecialisedOncePerArgumentTypes) {
  env e;
  e.device("def add1(x):\n    return x + 1\n");
  auto m = e.infer(R"(def k(a, b, c):
    a[0] = add1(a[0])
    a[1] = add1(b)
    a[2] = add1(a[2])
    c[0] = add1(c[0])
)",
                   {"array(float32, 1d, C)", "float32", "array(int32, 1d, C)"});
  ASSERT_EQ(m.functions.size(), 3u);
  EXPECT_TRUE(m.functions[0].is_kernel);
  EXPECT_FALSE(m.functions[1].is_kernel);
  EXPECT_EQ(m.functions[1].arg_types[0]->str(), "float32");
  EXPECT_EQ(m.functions[1].return_type->str(), "float64");
  EXPECT_EQ(m.functions[2].arg_types[0]->str(), "int32");
  EXPECT_EQ(m.functions[2].return_type->str(), "int64");
  auto calls = ops_of(*m.functions[0].ir, op_id::call_device);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0]->attrs, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(calls[1]->attrs, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(calls[2]->attrs, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(calls[3]->attrs, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(calls[3]->ty->str(), "int64");
  EXPECT_EQ(m.functions[1].ir->dump(), "def add1(x: float32):\n    return add(cast(x :: float32) :: float64, 1.0 :: float64) :: float64\n");
  EXPECT_NE(m.functions[1].symbol, m.functions[2].symbol);
}

TEST(TyperDevice, NestedCallsAreIndexedInTheModule) {
  env e;
  e.device("def sq(x):\n    return x * x\n");
  e.device("def norm2(x, y):\n    return sq(x) + sq(y)\n");
  auto m = e.infer("def k(a, b):\n    a[0] = norm2(b, b)\n", {"array(float64, 1d, C)", "float64"});
  ASSERT_EQ(m.functions.size(), 3u);
  EXPECT_EQ(m.functions[1].ir->name, "norm2");
  EXPECT_EQ(m.functions[2].ir->name, "sq");
  for (const expr* c : ops_of(*m.functions[1].ir, op_id::call_device)) {
    EXPECT_EQ(c->attrs[0], 2);
  }
  EXPECT_EQ(only_op(*m.functions[0].ir, op_id::call_device).attrs[0], 1);
}

TEST(TyperDevice, ReturnTypesUnify) {
  env e;
  e.device(R"(def pick(x, c):
    if c:
        return x
    return 0
)");
  e.device(R"(def mix(x, c):
    if c:
        return x
    else:
        return 1.5
)");
  auto m = e.infer("def k(a, b, c):\n    a[0] = pick(b, c)\n    a[1] = mix(b, c)\n", {"array(float64, 1d, C)", "int32", "bool"});
  EXPECT_EQ(m.functions[1].return_type->str(), "int64");  // 0 is a Python int: weak
  EXPECT_EQ(m.functions[2].return_type->str(), "float64");
  auto rets = [](const function& f) {
    std::vector<const stmt*> out;
    for (const auto& s : f.stmts)
      if (s.kind == stmt_kind::return_ && s.value != no_id) out.push_back(&s);
    return out;
  };
  for (const stmt* s : rets(*m.functions[2].ir)) {
    EXPECT_EQ(m.functions[2].ir->at(s->value).ty->str(), "float64");
  }
}

TEST(TyperDevice, FallingOffTheEndReturnsNone) {
  env e;
  e.device(R"(def find(a, v):
    for i in range(len(a)):
        if a[i] == v:
            return i
)");
  // As in Numba: the return type is an optional, the end returns None, and storing the result
  // checks it (TypeError "expected int64, got None" at the kernel's line).
  auto m = e.infer("def k(a, r):\n    r[0] = find(a, 3)\n", {"array(int32, 1d, C)", "array(int64, 1d, C)"});
  const function& f = *m.functions[1].ir;
  EXPECT_EQ(m.functions[1].return_type->str(), "OptionalType(int64)");
  const stmt& last = f.at_stmt(f.body.back());
  ASSERT_EQ(last.kind, stmt_kind::return_);
  EXPECT_EQ(f.at(last.value).op, op_id::optional_none);
  EXPECT_NE(m.functions[0].ir->dump().find("optional_value"), std::string::npos) << m.functions[0].ir->dump();
  ASSERT_EQ(m.raise_sites.size(), 1U);
  EXPECT_EQ(m.raise_sites[0].exception, "TypeError");
  EXPECT_EQ(m.raise_sites[0].message, "expected int64, got None");
  EXPECT_EQ(m.raise_sites[0].line, 2);
  // `is None` reads only whether a value is present: no check, no raise site.
  auto t = e.infer("def k(a, r):\n    x = find(a, 3)\n    r[0] = x is None\n", {"array(int32, 1d, C)", "array(int64, 1d, C)"});
  EXPECT_TRUE(t.raise_sites.empty());
  EXPECT_EQ(var_type(*t.functions[0].ir, "x"), "OptionalType(int64)");
}

TEST(TyperDevice, ReturnsAndPassesTuples) {
  env e;
  e.device("def swap(t):\n    return t[1], t[0]\n");
  auto m = e.infer("def k(a, b):\n    x, y = swap((a[0], b))\n    a[1] = x + y\n", {"array(float32, 1d, C)", "int32"});
  EXPECT_EQ(m.functions[1].arg_types[0]->str(), "Tuple(float32, int32)");
  EXPECT_EQ(m.functions[1].return_type->str(), "Tuple(int32, float32)");
  EXPECT_EQ(var_type(*m.functions[0].ir, "x"), "int32");
}

TEST(TyperDevice, KeywordArguments) {
  env e;
  e.device("def axpy(alpha, x, y):\n    return alpha * x + y\n");
  auto m = e.infer("def k(a, b):\n    a[0] = axpy(2.0, y=b, x=a[1])\n", {"array(float32, 1d, C)", "float32"});
  EXPECT_EQ(m.functions[1].arg_types[0]->str(), "float64");
  EXPECT_EQ(m.functions[1].arg_types[1]->str(), "float32");
  EXPECT_EQ(m.functions[1].arg_types[2]->str(), "float32");
  std::string src = "def k(a):\n    a[0] = axpy(1.0, a[0], z=a[0])\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"array(float32, 1d, C)"}), "axpy() got an unexpected keyword argument 'z'",
                      at(src, 2, "axpy"));
  std::string few = "def k(a):\n    a[0] = axpy(1.0, a[0])\n";
  EXPECT_TYPING_ERROR(e.fail(few, {"array(float32, 1d, C)"}), "axpy() missing argument 'y'", at(few, 2, "axpy"));
  std::string many = "def k(a):\n    a[0] = axpy(1.0, a[0], a[0], a[0])\n";
  EXPECT_TYPING_ERROR(e.fail(many, {"array(float32, 1d, C)"}), "axpy() takes 3 arguments but 4 were given",
                      at(many, 2, "axpy"));
}

TEST(TyperDevice, WritesAndBarriersPropagateFromCallees) {
  env e;
  e.device("def put(arr, i, v):\n    arr[i] = v\n");
  e.device("def get(arr, i):\n    return arr[i]\n");
  e.device("def bar():\n    cuda.syncthreads()\n");
  auto m = e.infer("def k(a, b, c):\n    put(a, 0, get(b, 0))\n", {"array(float32, 1d, C)", "array(float32, 1d, C)", "int32"});
  EXPECT_EQ(m.functions[0].writes_arg, (std::vector<bool>{true, false, false}));
  EXPECT_FALSE(m.functions[0].uses_barrier);
  auto n = e.infer("def k(a):\n    bar()\n", {"array(float32, 1d, C)"});
  EXPECT_TRUE(n.functions[0].uses_barrier);
  EXPECT_TRUE(n.functions[1].uses_barrier);
  EXPECT_EQ(n.functions[0].writes_arg, (std::vector<bool>{false}));
}

TEST(TyperDevice, ArraysReturnedFromCalleesStillAlias) {
  env e;
  e.device("def row(m, i):\n    return m[i]\n");
  auto m = e.infer("def k(a, b):\n    r = row(a, 1)\n    r[0] = b[0]\n",
                   {"array(float32, 2d, C)", "array(float32, 1d, C)"});
  EXPECT_EQ(m.functions[1].return_type->str(), "array(float32, 1d, C)");
  EXPECT_EQ(m.functions[0].writes_arg, (std::vector<bool>{true, false}));
}

TEST(TyperDevice, RecursionTypesFromTheReturnsThatDoNotRecurse) {
  env e;
  auto fact = e.parse("def fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\n");
  bind_device(*fact, "fact", fact);
  e.globals["fact"] = {};
  e.globals["fact"].k = global_value::kind::device_function;
  e.globals["fact"].callee = fact;
  auto m = e.infer("def k(a):\n    a[0] = fact(5)\n", {"array(int64, 1d, C)"});
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[1].return_type->str(), "int64");
  // fact's call of itself is a call of its own position in the module.
  const function& f = *m.functions[1].ir;
  bool self_call = false;
  for (const auto& x : f.exprs)
    if (x.kind == expr_kind::op && x.op == op_id::call_device && !x.attrs.empty() && x.attrs[0] == 1) self_call = true;
  EXPECT_TRUE(self_call) << f.dump();
  fact->globals.back().callee.reset();  // break the cycle of shared_ptrs
}

TEST(TyperDevice, RunawayRecursionIsAnError) {
  env e;
  auto ping = e.parse("def ping(n):\n    return pong(n - 1)\n");
  auto pong = e.parse("def pong(n):\n    return ping(n)\n");
  bind_device(*ping, "pong", pong);
  bind_device(*pong, "ping", ping);
  e.globals["ping"] = {};
  e.globals["ping"].k = global_value::kind::device_function;
  e.globals["ping"].callee = ping;
  failure r = e.fail("def k(a):\n    a[0] = ping(3)\n", {"array(int64, 1d, C)"});
  EXPECT_TRUE(r.thrown);
  EXPECT_NE(r.message.find("cannot infer the return type of recursive function ping"), std::string::npos) << r.message;
  EXPECT_NE(r.what.find("in pong"), std::string::npos) << r.what;
  ping->globals.back().callee.reset();
}

TEST(TyperDevice, RecursionWithChangingArgumentTypesIsAnError) {
  env e;
  auto grow = e.parse("def grow(t, n):\n    if n > 0:\n        return 1\n    return grow((t, t), n)\n");
  bind_device(*grow, "grow", grow);
  e.globals["grow"] = {};
  e.globals["grow"].k = global_value::kind::device_function;
  e.globals["grow"].callee = grow;
  failure r = e.fail("def k(a):\n    a[0] = grow((1, 2), a[1])\n", {"array(int64, 1d, C)"});
  EXPECT_TRUE(r.thrown);
  EXPECT_NE(r.message.find("recursion of grow does not converge"), std::string::npos) << r.message;
  grow->globals.back().callee.reset();
}

TEST(TyperDevice, ErrorsInsideCalleesPointIntoTheCallee) {
  env e;
  e.device("def bad(x):\n    return x.foo\n");
  failure r = e.fail("def k(a):\n    a[0] = bad(a[1])\n", {"array(float32, 1d, C)"});
  EXPECT_TRUE(r.thrown);
  EXPECT_NE(r.message.find("Unknown attribute 'foo' of float32"), std::string::npos) << r.message;
  EXPECT_EQ(r.loc.line, 2);
  EXPECT_EQ(r.loc.col, 11);
  EXPECT_NE(r.what.find("in bad"), std::string::npos) << r.what;
}

TEST(TyperDevice, DeviceEntryPoints) {
  env e;
  auto m = e.infer("def f(x, y):\n    return x * y\n", {"float32", "int32"}, false);
  EXPECT_FALSE(m.functions[0].is_kernel);
  EXPECT_EQ(m.functions[0].return_type->str(), "float64");
  // A declared return type converts every return.
  type_context& tc = e.tc;
  auto fm = infer(tc, e.parse("def f(x):\n    return x + 1\n"), signature{{tc.int32()}, tc.float32()}, false);
  EXPECT_EQ(fm.functions[0].return_type, tc.float32());
  const function& f = *fm.functions[0].ir;
  EXPECT_EQ(f.at(f.at_stmt(f.body.back()).value).ty, tc.float32());
}

// The typer on expressions: NumPy 2 promotion with weak Python literals,
// Python's operator semantics, the casts and ops the typed IR gets.
#include "typer_support.hpp"

using namespace typer_test;

namespace {

const char* const params[] = {"a", "b", "c", "d"};

// `def k(a, b, ...): x = <expression>` typed; returns the function.
std::shared_ptr<function> typed(env& e, const std::string& expression, const std::vector<std::string>& args,
                                 const std::string& setup = "") {
  std::string src = "def k(";
  for (std::size_t i = 0; i < args.size(); ++i) src += (i ? ", " : "") + std::string(params[i]);
  src += "):\n" + setup + "    x = " + expression + "\n";
  return e.infer(src, args).functions.at(0).ir;
}

std::string type_of(env& e, const std::string& expression, const std::vector<std::string>& args,
                    const std::string& setup = "") {
  return var_type(*typed(e, expression, args, setup), "x");
}

// The value assigned to x, as the dump prints it.
std::string value_of(env& e, const std::string& expression, const std::vector<std::string>& args) {
  auto f = typed(e, expression, args);
  const stmt& s = f->at_stmt(f->body.back());
  std::string d = f->dump();
  auto p = d.rfind("x :: ");
  auto eq = d.find(" = ", p);
  return d.substr(eq + 3, d.find('\n', eq) - eq - 3) + (s.kind == stmt_kind::assign ? "" : "?");
}

}  // namespace

TEST(TyperPromotion, TypedOperandsFollowNumba) {
  env e;
  struct row {
    const char *a, *b, *result;
  } rows[] = {
      // Integers widen to int64 (uint64 when both are unsigned), Numba's
      // rule; the whole table is test_numba_typing.py's.
      {"int32", "int32", "int64"},        {"int32", "int64", "int64"},       {"int8", "uint8", "int64"},
      {"uint32", "int32", "int64"},       {"uint64", "int64", "int64"},      {"uint64", "uint64", "uint64"},
      {"int32", "float32", "float64"},    {"int16", "float32", "float32"},   {"int64", "float32", "float64"},
      {"float32", "float64", "float64"},  {"complex64", "float64", "complex128"},
      {"complex64", "float32", "complex64"}, {"int64", "complex64", "complex128"},
      {"bool", "bool", "int64"},          {"bool", "int8", "int64"},         {"bool", "float32", "float32"},
      // numba-cuda's float16 operators: float16 with float16, bool or int8.
      {"float16", "float16", "float16"},  {"int8", "float16", "float16"},    {"int16", "float16", "float32"},
  };
  for (const auto& r : rows) EXPECT_EQ(type_of(e, "a + b", {r.a, r.b}), r.result) << r.a << " + " << r.b;
}

TEST(TyperPromotion, PythonLiteralsAreInt64AndFloat64) {
  env e;
  EXPECT_EQ(type_of(e, "a * 2.0", {"float32"}), "float64");
  EXPECT_EQ(type_of(e, "2.0 * a", {"float32"}), "float64");
  EXPECT_EQ(type_of(e, "a + 1", {"int8"}), "int64");
  EXPECT_EQ(type_of(e, "a + 1", {"uint16"}), "int64");
  EXPECT_EQ(type_of(e, "a * 1.5", {"int32"}), "float64");
  EXPECT_EQ(type_of(e, "a + 1j", {"float32"}), "complex128");
  EXPECT_EQ(type_of(e, "a + 1j", {"int32"}), "complex128");
  EXPECT_EQ(type_of(e, "a + 1", {"float16"}), "float64");
  EXPECT_EQ(type_of(e, "a + True", {"int8"}), "int64");
  EXPECT_EQ(type_of(e, "2 * 1.5", {}), "float64");
  EXPECT_EQ(type_of(e, "1 + 1", {}), "int64");
}

TEST(TyperPromotion, LiteralExpressionsAreInt64) {
  env e;
  // -1, 2 * 3 and a variable only ever given literals are Python ints.
  EXPECT_EQ(type_of(e, "a * -2", {"int8"}), "int64");
  EXPECT_EQ(type_of(e, "a + 2 * 3", {"int16"}), "int64");
  EXPECT_EQ(type_of(e, "a * i", {"float32"}, "    i = 3\n"), "float64");
  EXPECT_EQ(type_of(e, "a * math.pi", {"float32"}), "float64");
  // ... but a strong operand makes the result strong.
  EXPECT_EQ(type_of(e, "a * (b + 1)", {"float32", "int32"}), "float64");
  // A loop over a literal range counts in Python ints.
  auto f = e.infer(R"(def k(a):
    for i in range(10):
        a[i] = a[i] * i
)",
                   {"array(float32, 1d, C)"})
               .functions[0]
               .ir;
  EXPECT_EQ(var_type(*f, "i"), "int64");
  const expr& mul = only_op(*f, op_id::mul);
  EXPECT_EQ(mul.ty->str(), "float64");
  EXPECT_EQ(operand_types(*f, mul), (std::vector<std::string>{"float64", "float64"}));
  // range(n) with n int32 counts in int32 (Numba's range_state32).
  auto g = e.infer(R"(def k(a, n):
    for i in range(n):
        a[i] = a[i] * i
)",
                   {"array(float32, 1d, C)", "int32"})
               .functions[0]
               .ir;
  EXPECT_EQ(var_type(*g, "i"), "int32");
  EXPECT_EQ(only_op(*g, op_id::mul).ty->str(), "float64");
}

TEST(TyperPromotion, PythonIntsBeyondTheOperandsRangeWiden) {
  env e;
  EXPECT_EQ(type_of(e, "a + 300", {"uint8"}), "int64");
  EXPECT_EQ(type_of(e, "a * -1", {"uint32"}), "int64");
  EXPECT_EQ(type_of(e, "a + 255", {"uint8"}), "int64");
  EXPECT_EQ(type_of(e, "a + -128", {"int8"}), "int64");
}

TEST(TyperPromotion, PythonIntsBeyond64BitsAreErrors) {
  env e;
  // Python's value of an expression of Python ints must fit the int64 the
  // IR keeps them in (the walker folds literal-only expressions exactly; this
  // is what reaches the typer otherwise).
  std::string src = "def k(a):\n    x = a + 4611686018427387904 * 4\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"int64"}), "the Python integer 4611686018427387904 * 4 does not fit in 64 bits",
                      at(src, 2, "4611686018427387904 * 4"));
  std::string pw = "def k(a):\n    x = a * 3 ** 41\n";
  EXPECT_TYPING_ERROR(e.fail(pw, {"int64"}), "the Python integer 3 ** 41 does not fit in 64 bits", at(pw, 2, "3 ** 41"));
  std::string sh = "def k(a):\n    x = a - (1 << 63)\n";
  EXPECT_TYPING_ERROR(e.fail(sh, {"int64"}), "the Python integer 1 << 63 does not fit in 64 bits", at(sh, 2, "1 << 63"));
  EXPECT_EQ(value_of(e, "3 ** 39 + 4611686018427387904", {}), std::to_string(4052555153018976267LL + 4611686018427387904LL) + " :: int64");
  EXPECT_EQ(value_of(e, "-9223372036854775807 - 1", {}), "-9223372036854775808 :: int64");
  EXPECT_EQ(value_of(e, "(-1) ** 63 * 2", {}), "-2 :: int64");
}

TEST(TyperOperators, TrueDivision) {
  env e;
  auto f = typed(e, "a / b", {"int32", "int32"});
  const expr& d = only_op(*f, op_id::div);
  EXPECT_EQ(d.ty->str(), "float64");
  EXPECT_EQ(operand_types(*f, d), (std::vector<std::string>{"float64", "float64"}));
  EXPECT_EQ(type_of(e, "a / b", {"float32", "float32"}), "float32");
  EXPECT_EQ(type_of(e, "a / 2", {"float32"}), "float64");
  EXPECT_EQ(type_of(e, "a / 2", {"int16"}), "float64");
  EXPECT_EQ(type_of(e, "a / b", {"complex64", "float32"}), "complex64");
  EXPECT_EQ(type_of(e, "a / b", {"float16", "float16"}), "float16");
}

TEST(TyperOperators, FloorDivisionAndModulo) {
  env e;
  auto f = typed(e, "a // b", {"int32", "int64"});
  const expr& d = only_op(*f, op_id::floordiv);
  EXPECT_EQ(d.ty->str(), "int64");
  EXPECT_EQ(operand_types(*f, d), (std::vector<std::string>{"int64", "int64"}));
  EXPECT_EQ(only_op(*typed(e, "a % b", {"float32", "float32"}), op_id::mod).ty->str(), "float32");
  EXPECT_EQ(type_of(e, "a % 3", {"uint8"}), "int64");
  // Python's rules on constants: floor toward -inf, the sign of the divisor.
  EXPECT_EQ(value_of(e, "-7 // 2", {}), "-4 :: int64");
  EXPECT_EQ(value_of(e, "-7 % 3", {}), "2 :: int64");
  EXPECT_EQ(value_of(e, "7 % -3", {}), "-2 :: int64");
  EXPECT_EQ(value_of(e, "7 // 0", {}), "0 :: int64");  // NumPy's model: no trap
  std::string src = "def k(a, b):\n    x = a // b\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"complex64", "float32"}), "unsupported operand types for //: complex64 and float32",
                      at(src, 2, "a // b"));
}

TEST(TyperOperators, Power) {
  env e;
  EXPECT_EQ(only_op(*typed(e, "a ** b", {"int32", "int32"}), op_id::pow).ty->str(), "int64");
  // A float to an integer power uses powi with an int64 exponent.
  auto f = typed(e, "a ** 2", {"float32"});
  const expr& p = only_op(*f, op_id::powi);
  EXPECT_EQ(p.ty->str(), "float32");
  EXPECT_EQ(operand_types(*f, p), (std::vector<std::string>{"float32", "int64"}));
  auto g = typed(e, "a ** b", {"float32", "int32"});
  // Numba's float32 ** int32 case stays in float32.
  EXPECT_EQ(operand_types(*g, only_op(*g, op_id::powi)), (std::vector<std::string>{"float32", "int64"}));
  auto h = typed(e, "a ** 0.5", {"float32"});
  EXPECT_EQ(operand_types(*h, only_op(*h, op_id::pow)), (std::vector<std::string>{"float64", "float64"}));
  EXPECT_EQ(only_op(*typed(e, "a ** 2", {"complex64"}), op_id::pow).ty->str(), "complex128");
  EXPECT_EQ(type_of(e, "a ** 0.5", {"int32"}), "float64");
  // Two Python ints: a negative power is a float, else an int.
  EXPECT_EQ(value_of(e, "2 ** -1", {}), "0.5 :: float64");
  EXPECT_EQ(value_of(e, "3 ** 4", {}), "81 :: int64");
}

TEST(TyperOperators, ShiftsAndBitwise) {
  env e;
  auto f = typed(e, "a << 2", {"int32"});
  EXPECT_EQ(operand_types(*f, only_op(*f, op_id::shl)), (std::vector<std::string>{"int64", "int64"}));
  EXPECT_EQ(only_op(*typed(e, "a >> b", {"uint16", "uint8"}), op_id::shr).ty->str(), "uint64");
  EXPECT_EQ(only_op(*typed(e, "a & b", {"bool", "bool"}), op_id::bit_and).ty->str(), "bool");
  EXPECT_EQ(only_op(*typed(e, "a | b", {"int8", "int16"}), op_id::bit_or).ty->str(), "int64");
  EXPECT_EQ(only_op(*typed(e, "a ^ b", {"bool", "int32"}), op_id::bit_xor).ty->str(), "int64");
  EXPECT_EQ(value_of(e, "1 << 4", {}), "16 :: int64");
  EXPECT_EQ(value_of(e, "0xF0 & 0x3C", {}), "48 :: int64");
  std::string src = "def k(a, b):\n    x = a << b\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"float32", "int32"}), "unsupported operand types for <<: float32 and int32",
                      at(src, 2, "a << b"));
  // Only the left operand's signedness matters (Numba's shifts).
  EXPECT_EQ(only_op(*typed(e, "a << b", {"uint64", "int64"}), op_id::shl).ty->str(), "uint64");
  std::string bit = "def k(a, b):\n    x = a & b\n";
  EXPECT_TYPING_ERROR(e.fail(bit, {"float64", "int64"}), "unsupported operand types for &: float64 and int64",
                      at(bit, 2, "a & b"));
}

TEST(TyperOperators, Unary) {
  env e;
  EXPECT_EQ(type_of(e, "-a", {"bool"}), "int64");
  EXPECT_EQ(only_op(*typed(e, "-a", {"uint8"}), op_id::neg).ty->str(), "uint8");
  EXPECT_EQ(type_of(e, "-a", {"float16"}), "float16");
  EXPECT_EQ(type_of(e, "+a", {"bool"}), "int64");
  EXPECT_EQ(only_op(*typed(e, "~a", {"int16"}), op_id::invert).ty->str(), "int16");
  // ~ is logical on booleans.
  auto f = typed(e, "~a", {"bool"});
  EXPECT_EQ(ops_of(*f, op_id::invert).size(), 0u);
  EXPECT_EQ(only_op(*f, op_id::not_).ty->str(), "bool");
  auto g = typed(e, "not a", {"float32"});
  const expr& n = only_op(*g, op_id::not_);
  EXPECT_EQ(g->at(n.operands[0]).kind, expr_kind::cast);
  EXPECT_EQ(g->at(n.operands[0]).ty->str(), "bool");
  EXPECT_EQ(value_of(e, "-(3)", {}), "-3 :: int64");
  EXPECT_EQ(value_of(e, "~5", {}), "-6 :: int64");
  EXPECT_EQ(value_of(e, "not 0", {}), "True :: bool");
  std::string src = "def k(a):\n    x = ~a\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"float32"}), "bad operand type for unary ~: float32", at(src, 2, "~a"));
  std::string arr = "def k(a):\n    x = -a\n";
  EXPECT_TYPING_ERROR(e.fail(arr, {"array(float32, 1d, C)"}), "bad operand type for unary -: array(float32, 1d, C)",
                      at(arr, 2, "-a"));
}

TEST(TyperOperators, Comparisons) {
  env e;
  auto f = typed(e, "a < b", {"int32", "float32"});
  const expr& lt = only_op(*f, op_id::lt);
  EXPECT_EQ(lt.ty->str(), "bool");
  EXPECT_EQ(operand_types(*f, lt), (std::vector<std::string>{"float64", "float64"}));
  auto g = typed(e, "a == b", {"bool", "bool"});
  EXPECT_EQ(operand_types(*g, only_op(*g, op_id::eq)), (std::vector<std::string>{"bool", "bool"}));
  EXPECT_EQ(only_op(*typed(e, "a != b", {"complex64", "complex64"}), op_id::ne).ty->str(), "bool");
  // A Python int beyond the other type's range compares by value.
  auto h = typed(e, "a < 300", {"uint8"});
  EXPECT_EQ(operand_types(*h, only_op(*h, op_id::lt)), (std::vector<std::string>{"int64", "int64"}));
  auto u = typed(e, "a > -1", {"uint64"});
  EXPECT_EQ(operand_types(*u, only_op(*u, op_id::gt)), (std::vector<std::string>{"float64", "float64"}));
  EXPECT_EQ(type_of(e, "a < 3", {"float16"}), "bool");
  auto c = typed(e, "a < b < 3", {"int32", "int32"});
  EXPECT_EQ(ops_of(*c, op_id::lt).size(), 2u);
  EXPECT_EQ(value_of(e, "3 <= 4", {}), "True :: bool");
  std::string src = "def k(a, b):\n    x = a < b\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"complex64", "float32"}), "'<' is not supported between complex64 and float32",
                      at(src, 2, "a < b"));
  EXPECT_TYPING_ERROR(e.fail(src, {"array(float32, 1d, C)", "float32"}),
                      "unsupported operand types for <: array(float32, 1d, C) and float32", at(src, 2, "a < b"));
}

TEST(TyperOperators, IsNoneAndMembership) {
  env e;
  EXPECT_EQ(value_of(e, "a is None", {"int32"}), "False :: bool");
  EXPECT_EQ(value_of(e, "None is None", {}), "True :: bool");
  EXPECT_EQ(value_of(e, "a is not None", {"float32"}), "True :: bool");
  auto f = typed(e, "a in (1, 2, 3)", {"int32"});
  EXPECT_EQ(ops_of(*f, op_id::eq).size(), 3u);
  EXPECT_EQ(var_type(*f, "x"), "bool");
  auto g = typed(e, "a not in (1, 2)", {"int8"});
  EXPECT_EQ(ops_of(*g, op_id::not_).size(), 1u);
  std::string src = "def k(a, b):\n    x = a is b\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"int32", "int32"}), "Unsupported: 'is' between int32 and int32 (use == or !=)",
                      at(src, 2, "a is b"));
}

TEST(TyperOperators, AndOrReturnThePromotedOperand) {
  env e;
  auto f = typed(e, "a and b", {"int32", "float32"});
  const expr* l = nullptr;
  for (const expr* x : reachable(*f))
    if (x->kind == expr_kind::logical) l = x;
  ASSERT_NE(l, nullptr);
  EXPECT_TRUE(l->is_and);
  EXPECT_EQ(l->ty->str(), "float64");
  EXPECT_EQ(operand_types(*f, *l), (std::vector<std::string>{"float64", "float64"}));
  EXPECT_EQ(type_of(e, "a > 0 or b > 0", {"int32", "float32"}), "bool");
  EXPECT_EQ(type_of(e, "a or 1.5", {"float32"}), "float64");
  // A constant left operand decides: the right one is not even typed.
  EXPECT_EQ(value_of(e, "0 and a", {"float32"}), "0 :: int64");
  EXPECT_EQ(type_of(e, "1 and a", {"float32"}), "float32");
  std::string src = "def k(a, b):\n    x = a or b\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"array(float32, 1d, C)", "int32"}), "Unsupported: 'or' on array(float32, 1d, C) and int32",
                      at(src, 2, "a or b"));
}

TEST(TyperOperators, ConditionalExpressions) {
  env e;
  auto f = typed(e, "a if c else b", {"int32", "float32", "int64"});
  const expr* cond = nullptr;
  for (const expr* x : reachable(*f))
    if (x->kind == expr_kind::conditional) cond = x;
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->ty->str(), "float64");
  EXPECT_EQ(operand_types(*f, *cond), (std::vector<std::string>{"bool", "float64", "float64"}));
  // A constant condition takes its branch only.
  EXPECT_EQ(value_of(e, "a if True else b", {"int32", "float32"}), "a :: int32");
  std::string src = "def k(a, b, c):\n    x = a if c else b\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"int32", "array(float32, 1d, C)", "bool"}),
                      "the branches of this conditional expression have types int32 and array(float32, 1d, C)",
                      at(src, 2, "a if"));
}

TEST(TyperOperators, ConstantsFoldToTheirTypes) {
  env e;
  EXPECT_EQ(value_of(e, "2 * 3 + 1", {}), "7 :: int64");
  EXPECT_EQ(value_of(e, "1.5 * 2", {}), "3.0 :: float64");
  // A literal converted for a typed operand is a constant of that type.
  auto f = typed(e, "a + 1", {"float32"});
  const expr& add = only_op(*f, op_id::add);
  const expr& one = f->at(add.operands[1]);
  EXPECT_EQ(one.kind, expr_kind::constant);
  EXPECT_EQ(one.value.k, constant_value::kind::floating);
  EXPECT_EQ(one.ty->str(), "float64");
  // Integers wrap to their width when converted.
  auto g = e.infer("def k(a):\n    a[0] = 300\n", {"array(int8, 1d, C)"}).functions[0].ir;
  const expr& st = only_op(*g, op_id::array_store);
  EXPECT_EQ(g->at(st.operands[1]).value.i, 44);
}

TEST(TyperTuples, BuildIndexAndUnpack) {
  env e;
  EXPECT_EQ(type_of(e, "(a, 1.0)", {"int32"}), "Tuple(int32, float64)");
  EXPECT_EQ(type_of(e, "(a, b)", {"int32", "int32"}), "UniTuple(int32 x 2)");
  // Constant indices (negative too) into a tuple variable are tuple_gets.
  auto f = typed(e, "t[-1]", {"int32", "float32"}, "    t = (a, b)\n");
  const expr& g = only_op(*f, op_id::tuple_get);
  EXPECT_EQ(g.attrs, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(g.ty->str(), "float32");
  // Indexing a tuple built in place takes the element.
  auto h = typed(e, "(a, b)[0]", {"int32", "float32"});
  EXPECT_EQ(ops_of(*h, op_id::tuple_get).size(), 0u);
  EXPECT_EQ(var_type(*h, "x"), "int32");
  EXPECT_EQ(type_of(e, "len(t)", {"int32"}, "    t = (a, a, a)\n"), "int64");
  EXPECT_EQ(type_of(e, "t + (1.5,)", {"int32"}, "    t = (a, a)\n"), "Tuple(int32, int32, float64)");
  EXPECT_EQ(type_of(e, "t[1:]", {"int32", "float32"}, "    t = (a, b, a)\n"), "Tuple(float32, int32)");
  std::string src = "def k(a):\n    t = (a, a)\n    x = t[2]\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"int32"}), "tuple index 2 out of range for UniTuple(int32 x 2)", at(src, 3, "t[2]"));
}

TEST(TyperTuples, RunTimeIndexOfAUniTuple) {
  env e;
  auto f = typed(e, "t[i]", {"int32", "int64"}, "    t = (a, a, a)\n    i = b\n");
  EXPECT_EQ(var_type(*f, "x"), "int32");
  std::size_t conds = 0;
  for (const expr* x : reachable(*f)) conds += x->kind == expr_kind::conditional;
  EXPECT_GE(conds, 2u);  // one per element but the last (and one for a negative index)
  std::string src = "def k(a, b, i):\n    t = (a, b)\n    x = t[i]\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"int32", "float32", "int64"}),
                      "a tuple of different types (Tuple(int32, float32)) can only be indexed with a constant",
                      at(src, 3, "t[i]"));
}

TEST(TyperTuples, UnpackingGoesThroughATemporary) {
  env e;
  std::string src = R"(def k(a, b):
    a, b = b, a
)";
  EXPECT_EQ(e.dump(src, {"int32", "int32"}),
            "def k(a: int32, b: int32):\n"
            "    $t2 :: UniTuple(int32 x 2) = (b :: int32, a :: int32) :: UniTuple(int32 x 2)\n"
            "    a :: int32 = tuple_get($t2 :: UniTuple(int32 x 2); 0) :: int32\n"
            "    b :: int32 = tuple_get($t2 :: UniTuple(int32 x 2); 1) :: int32\n");
  std::string bad = "def k(a):\n    x, y = (a, a, a)\n";
  EXPECT_TYPING_ERROR(e.fail(bad, {"int32"}), "cannot unpack UniTuple(int32 x 3) (3 values) into 2 targets",
                      at(bad, 2, "x, y"));
  std::string scalar = "def k(a):\n    x, y = a\n";
  EXPECT_TYPING_ERROR(e.fail(scalar, {"int32"}), "cannot unpack a value of type int32", at(scalar, 2, "x, y"));
}

TEST(TyperTuples, UnpackedLiteralElementsKeepTheirWeakness) {
  env e;
  auto f = e.infer(R"(def k(a):
    i, j = 0, 1
    x = a[0] * i
)",
                   {"array(float32, 1d, C)"})
               .functions[0]
               .ir;
  EXPECT_EQ(var_type(*f, "x"), "float64");
}

TEST(TyperExpressions, TheTypedIrIsATree) {
  env e;
  // np.square(x) uses its argument twice; each use is its own node.
  auto f = e.infer("def k(a):\n    x = np.square(a[0] + 1.0)\n", {"array(float32, 1d, C)"}).functions[0].ir;
  std::vector<int> parents(f->exprs.size(), 0);
  for (const expr* x : reachable(*f))
    for (auto o : x->operands) ++parents[static_cast<std::size_t>(o)];
  for (std::size_t i = 0; i < parents.size(); ++i) {
    EXPECT_LE(parents[i], 1) << "node " << i << " in\n" << f->dump();
  }
  EXPECT_EQ(only_op(*f, op_id::mul).ty->str(), "float64");
}

// The typer on statements: one type per variable across loops and
// branches, conditions, for_range, returns, raise/assert, parameters,
// symbols, and whole typed functions.
#include "typer_support.hpp"

#include <cctype>

using namespace typer_test;

namespace {

std::shared_ptr<function> kernel(env& e, const std::string& src, const std::vector<std::string>& args,
                                 typer_options opts = {}) {
  return e.infer(src, args, true, opts).functions.at(0).ir;
}

const char* const f32 = "array(float32, 1d, C)";

}  // namespace

TEST(TyperVariables, OneTypeAcrossALoop) {
  env e;
  std::string src = R"(def k(a, n):
    s = 0
    for i in range(n):
        s += a[i]
    a[0] = s
)";
  EXPECT_EQ(e.dump(src, {f32, "int64"}),
            "def k(a: array(float32, 1d, C), n: int64):\n"
            "    s :: float64 = 0.0 :: float64\n"
            "    for i in range(0 :: int64, n :: int64, 1 :: int64):\n"
            "        s :: float64 = add(s :: float64, cast(array_load(a :: array(float32, 1d, C), i :: int64; 0) :: float32) :: float64) :: float64\n"
            "    array_store(a :: array(float32, 1d, C), cast(s :: float64) :: float32, 0 :: int64; 0) :: none\n");
}

TEST(TyperVariables, WideningReachesEarlierReads) {
  env e;
  // y reads x before the assignment that widens x: the passes go on until
  // nothing changes.
  auto f = kernel(e, R"(def k(a, n):
    x = 0
    y = 0
    for i in range(n):
        if i > 0:
            y = x * 2
        x = a[i]
    a[0] = y
)",
                  {"array(float64, 1d, C)", "int64"});
  EXPECT_EQ(var_type(*f, "x"), "float64");
  EXPECT_EQ(var_type(*f, "y"), "float64");
  // Every assignment converts to the variable's type.
  for (const auto& s : f->stmts)
    if (s.kind == stmt_kind::assign) {
      EXPECT_EQ(f->at(s.target).ty, f->at(s.value).ty) << f->dump();
    }
}

TEST(TyperVariables, ChainsOfDependencies) {
  env e;
  auto f = kernel(e, R"(def k(a, n):
    p = 0
    q = 0
    r = 0
    for i in range(n):
        r = q
        q = p
        p = a[i]
)",
                  {"array(complex64, 1d, C)", "int64"});
  EXPECT_EQ(var_type(*f, "p"), "complex128");
  EXPECT_EQ(var_type(*f, "q"), "complex128");
  EXPECT_EQ(var_type(*f, "r"), "complex128");
}

TEST(TyperVariables, PromotionOfEverythingAssigned) {
  env e;
  auto f = kernel(e, "def k(a, b):\n    x = a\n    x = b\n    y = 1\n    y = 2.5\n    z = a\n    z = 1.5\n",
                  {"int32", "uint32"});
  EXPECT_EQ(var_type(*f, "x"), "int64");
  EXPECT_EQ(var_type(*f, "y"), "float64");
  EXPECT_EQ(var_type(*f, "z"), "float64");  // int32 with a Python float
  auto g = kernel(e, "def k(a):\n    x = a\n    x = 1\n", {"int8"});
  EXPECT_EQ(var_type(*g, "x"), "int64");
  auto h = kernel(e, "def k(a):\n    t = (0, 0)\n    t = (a, a)\n", {"int16"});
  EXPECT_EQ(var_type(*h, "t"), "UniTuple(int64 x 2)");
  auto b = kernel(e, "def k(a):\n    f = False\n    f = a > 0\n", {"int16"});
  EXPECT_EQ(var_type(*b, "f"), "bool");
}

TEST(TyperVariables, UnassignedReads) {
  env e;
  std::string never = "def k(a):\n    a[0] = x\n";
  EXPECT_TYPING_ERROR(e.fail(never, {f32}), "'x' is used but never assigned", at(never, 2, "x"));
  std::string self = "def k(a):\n    x = x + 1\n    a[0] = x\n";
  EXPECT_TYPING_ERROR(e.fail(self, {f32}), "cannot infer the type of 'x': every value assigned to it depends on itself",
                      at(self, 2, "x + 1"));
  // Assigned on some path only: fine (codegen zero-initialises).
  auto f = kernel(e, "def k(a, c):\n    if c:\n        x = 1.0\n    a[0] = x\n", {f32, "bool"});
  EXPECT_EQ(var_type(*f, "x"), "float64");
  // Read first, assigned later in a loop: fine.
  auto g = kernel(e, "def k(a, n):\n    for i in range(n):\n        a[i] = x\n        x = a[0]\n", {f32, "int64"});
  EXPECT_EQ(var_type(*g, "x"), "float32");
  // A variable whose only assignment fails reports that failure.
  std::string bad = "def k(a):\n    for i in range(3):\n        a[i] = x\n        x = a.foo\n";
  EXPECT_TYPING_ERROR(e.fail(bad, {f32}), "Unknown attribute 'foo' of array(float32, 1d, C)", at(bad, 4, "a.foo"));
}

TEST(TyperVariables, IncompatibleAssignments) {
  env e;
  std::string src = "def k(a, c):\n    x = a\n    if c:\n        x = 1\n";
  EXPECT_TYPING_ERROR(e.fail(src, {f32, "bool"}),
                      "variable 'x' is assigned values of types array(float32, 1d, C) and int64, which have no common type",
                      at(src, 4, "x"));
  // None and a value make an optional (Numba's OptionalType); None and a compile-time value do not.
  auto none = e.infer("def k(a):\n    x = None\n    x = 1\n", {f32});
  EXPECT_EQ(var_type(*none.functions[0].ir, "x"), "OptionalType(int64)");
  std::string nonef = "def k(a):\n    x = None\n    x = math.sin\n";
  EXPECT_TYPING_ERROR(e.fail(nonef, {f32}), "variable 'x' is assigned none and Function(math.sin)", at(nonef, 3, "x"));
  // Compile-time values may be held by a variable (Numba allows it), one value per variable.
  std::string mod = "def k(a, c):\n    m = math\n    if c:\n        m = cmath\n";
  EXPECT_TYPING_ERROR(e.fail(mod, {f32, "bool"}), "variable 'm' is assigned Module(math) and Module(cmath)", at(mod, 4, "m"));
  std::string fn = "def k(a, c):\n    f = math.sin\n    if c:\n        f = a[0]\n";
  EXPECT_TYPING_ERROR(e.fail(fn, {f32, "bool"}), "variable 'f' is assigned Function(math.sin) and float32", at(fn, 4, "f"));
  std::string rt = "def k(a, c):\n    f = a[0]\n    if c:\n        f = math.sin\n";
  EXPECT_TYPING_ERROR(e.fail(rt, {f32, "bool"}), "variable 'f' is assigned float32 and Function(math.sin)", at(rt, 4, "f"));
}

TEST(TyperVariables, CompileTimeValuesInVariables) {
  env e;
  auto m = e.infer("def k(a):\n    f = math.sqrt\n    t = np.float32\n    a[0] = t(f(a[1]))\n", {f32});
  EXPECT_NE(m.functions[0].ir->dump().find("sqrt"), std::string::npos) << m.functions[0].ir->dump();
}

TEST(TyperVariables, AVariableAssignedOneConstantIsThatConstant) {
  env e;
  // N sizes a shared array as the literal would; M, assigned twice, is a variable.
  auto m = e.infer("def k(a):\n    N = 16\n    s = cuda.shared.array(N, np.float32)\n    s[0] = a[0]\n    a[1] = N\n", {f32});
  EXPECT_NE(m.functions[0].ir->dump().find("shared_array"), std::string::npos) << m.functions[0].ir->dump();
  std::string two = "def k(a, c):\n    M = 16\n    if c:\n        M = 32\n    s = cuda.shared.array(M, np.float32)\n";
  failure r = e.fail(two, {f32, "bool"});
  EXPECT_TRUE(r.thrown);
}

TEST(TyperVariables, ParametersGivenOtherTypes) {
  env e;
  auto m = e.infer("def k(a, x):\n    x = x * 0.5\n    a[0] = x\n", {f32, "int32"});
  const function& f = *m.functions[0].ir;
  // The parameter keeps the argument's type; the body uses a local of the
  // joined type, copied from it first.
  EXPECT_EQ(f.vars[static_cast<std::size_t>(f.params[1])].ty->str(), "int32");
  EXPECT_EQ(var_type(f, "x"), "float64");  // the local the body assigns: int32 * 0.5 is float64
  std::string d = f.dump();
  EXPECT_EQ(d.substr(0, d.find('\n')), "def k(a: array(float32, 1d, C), x: int32):");
  EXPECT_NE(d.find("    x :: float64 = cast(x :: int32) :: float64\n"), std::string::npos) << d;
  EXPECT_EQ(m.functions[0].arg_types[1]->str(), "int32");
}

TEST(TyperStatements, ConditionsAreBool) {
  env e;
  auto f = kernel(e, "def k(a, x):\n    if x:\n        a[0] = 1.0\n    while x:\n        x -= 1\n", {f32, "float32"});
  for (const auto& s : f->stmts)
    if (s.kind == stmt_kind::if_ || s.kind == stmt_kind::while_) {
      EXPECT_EQ(f->at(s.value).ty->str(), "bool");
      EXPECT_EQ(f->at(s.value).kind, expr_kind::cast);
    }
  std::string arr = "def k(a):\n    if a:\n        pass\n";
  EXPECT_TYPING_ERROR(e.fail(arr, {f32}), "the truth value of array(float32, 1d, C) is ambiguous", at(arr, 2, "a"));
}

TEST(TyperStatements, ConstantConditionsPruneDeadBranches) {
  env e;
  e.globals["DEBUG"] = int_global(0);
  // The branch not taken is not typed at all (a.foo would be an error).
  auto f = kernel(e, "def k(a):\n    if DEBUG:\n        a[0] = a.foo\n    else:\n        a[0] = 1.0\n", {f32});
  EXPECT_EQ(f->body.size(), 1u);
  EXPECT_EQ(f->at_stmt(f->body[0]).kind, stmt_kind::expression);
  auto g = kernel(e, "def k(a):\n    while True:\n        a[0] = 1.0\n        break\n", {f32});
  EXPECT_EQ(g->at_stmt(g->body[0]).kind, stmt_kind::while_);
}

TEST(TyperStatements, ForRange) {
  env e;
  auto f = kernel(e, "def k(a, lo, hi):\n    for i in range(lo, hi, 2):\n        a[i] = 0\n", {f32, "int32", "int64"});
  EXPECT_EQ(var_type(*f, "i"), "int64");
  const stmt* loop = nullptr;
  for (const auto& s : f->stmts)
    if (s.kind == stmt_kind::for_range) loop = &s;
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(f->at(loop->start).ty->str(), "int64");
  EXPECT_EQ(f->at(loop->start).kind, expr_kind::cast);
  EXPECT_EQ(f->at(loop->stop).ty->str(), "int64");
  EXPECT_EQ(f->at(loop->step).ty->str(), "int64");
  EXPECT_EQ(f->at(loop->step).value.i, 2);
  EXPECT_EQ(var_type(*kernel(e, "def k(a, n):\n    for i in range(n):\n        pass\n", {f32, "uint32"}), "i"), "uint64");
  // -1 has no unsigned value: the loop counts in int64.
  EXPECT_EQ(var_type(*kernel(e, "def k(a, n):\n    for i in range(n - 1, -1, -1):\n        pass\n", {f32, "uint32"}), "i"),
            "int64");
  std::string fl = "def k(a, x):\n    for i in range(x):\n        pass\n";
  EXPECT_TYPING_ERROR(e.fail(fl, {f32, "float32"}), "range() arguments must be integers, got float32", at(fl, 2, "x)"));
  std::string zero = "def k(a):\n    for i in range(0, 10, 0):\n        pass\n";
  EXPECT_TYPING_ERROR(e.fail(zero, {f32}), "range() arg 3 must not be zero", at(zero, 2, "0):"));
  std::string also = "def k(a):\n    for i in range(3):\n        pass\n    i = 0.5\n";
  EXPECT_TYPING_ERROR(e.fail(also, {f32}), "loop variable 'i' must be an integer, but it is also assigned float64",
                      at(also, 2, "for"));
  std::string mixed = "def k(a, n):\n    for i in range(n, 0, -1):\n        pass\n";
  // Numba resolves range(uint64, int64, int64) to its int64 range.
  EXPECT_EQ(var_type(*kernel(e, mixed, {f32, "uint64"}), "i"), "int64");
}

TEST(TyperStatements, LoopsKeepBreakContinueAndElse) {
  env e;
  std::string src = R"(def k(a, n):
    for i in range(n):
        if a[i] < 0:
            break
        if a[i] == 0:
            continue
        a[i] = 1
    else:
        a[0] = 2
    while n > 0:
        n -= 1
    else:
        a[1] = 3
)";
  auto f = kernel(e, src, {f32, "int64"});
  std::size_t breaks = 0, continues = 0;
  for (const auto& s : f->stmts) {
    breaks += s.kind == stmt_kind::break_;
    continues += s.kind == stmt_kind::continue_;
    if (s.kind == stmt_kind::for_range || s.kind == stmt_kind::while_) {
      EXPECT_EQ(s.orelse.size(), 1u);
    }
  }
  EXPECT_EQ(breaks, 1u);
  EXPECT_EQ(continues, 1u);
}

TEST(TyperStatements, KernelReturns) {
  env e;
  auto f = kernel(e, "def k(a):\n    if a[0] > 0:\n        return\n    a[0] = 1.0\n    return None\n", {f32});
  for (const auto& s : f->stmts)
    if (s.kind == stmt_kind::return_) {
      EXPECT_EQ(s.value, no_id);
    }
  std::string src = "def k(a):\n    return a[0]\n";
  EXPECT_TYPING_ERROR(e.fail(src, {f32}), "kernels cannot return a value", at(src, 2, "return"));
}

TEST(TyperStatements, DeviceReturnsOfNoneAndValuesAreOptional) {
  env e;
  auto opt = e.infer("def f(x):\n    if x > 0:\n        return x\n    return\n", {"int32"}, false);
  EXPECT_EQ(opt.functions[0].return_type->str(), "OptionalType(int32)");
  auto widened = e.infer("def f(x):\n    if x > 0:\n        return x\n    if x < -5:\n        return None\n    return 2.5\n",
                         {"int32"}, false);
  EXPECT_EQ(widened.functions[0].return_type->str(), "OptionalType(float64)");
  std::string src = "def f(a, x):\n    if x > 0:\n        return a\n    return x\n";
  failure r = e.fail(src, {"array(float32, 1d, C)", "int32"}, false);
  EXPECT_TRUE(r.thrown);
  EXPECT_NE(r.message.find("f returns int32 here and array(float32, 1d, C) at line 3, which have no common type"),
            std::string::npos)
      << r.message;
  EXPECT_EQ(r.loc.line, 4);
  auto m = e.infer("def f(x):\n    x += 1\n", {"int32"}, false);
  EXPECT_EQ(m.functions[0].return_type->str(), "none");
  std::string local = "def f(x):\n    l = cuda.local.array(4, float32)\n    return l\n";
  EXPECT_TYPING_ERROR(e.fail(local, {"int32"}, false), "cannot return a local array from a device function",
                      at(local, 3, "return"));
}

TEST(TyperStatements, RaiseAndAssert) {
  env e;
  global_value exc;
  exc.k = global_value::kind::exception;
  exc.cls = "ValueError";
  exc.message = "bad";
  e.globals["EXC"] = exc;
  std::string src = "def k(a):\n    if a[0] < 0:\n        raise EXC\n";
  typer_options debug;
  debug.debug = true;
  // Numba's model: without debug=True a raise ends the thread, unreported (no site, no record).
  auto quiet = e.infer(src, {f32}, true);
  EXPECT_FALSE(quiet.may_raise());
  const function& qf = *quiet.functions[0].ir;
  const stmt& q = qf.at_stmt(qf.at_stmt(qf.body[0]).body[0]);
  EXPECT_EQ(q.kind, stmt_kind::raise_);
  EXPECT_EQ(q.site, no_id);
  // Under debug=True it is reported: a site naming the class and its message.
  auto loud = e.infer(src, {f32}, true, debug);
  ASSERT_EQ(loud.raise_sites.size(), 1u);
  EXPECT_EQ(loud.raise_sites[0].code, kernel_error::raised);
  EXPECT_EQ(loud.raise_sites[0].exception, "ValueError");
  EXPECT_EQ(loud.raise_sites[0].message, "bad");
  EXPECT_EQ(loud.raise_sites[0].line, 3);
  // The exception is only raised, never used as a value.
  std::string as_value = "def k(a):\n    x = EXC\n";
  EXPECT_TYPING_ERROR(e.fail(as_value, {f32}), "the exception ValueError used as a value", at(as_value, 2, "EXC"));
  std::string as = "def k(a):\n    assert a[0] > 0, 'positive'\n    a[0] = 1.0\n";
  auto plain = kernel(e, as, {f32});
  EXPECT_EQ(plain->body.size(), 1u);  // dropped, unchecked
  auto kept = kernel(e, as, {f32}, debug);
  ASSERT_EQ(kept->body.size(), 2u);
  const stmt& s = kept->at_stmt(kept->body[0]);
  EXPECT_EQ(s.kind, stmt_kind::assert_);
  EXPECT_EQ(kept->at(s.value).ty->str(), "bool");
  EXPECT_EQ(s.message, "positive");
  auto fl = kernel(e, "def k(a):\n    assert a[0]\n", {f32}, debug);
  EXPECT_EQ(fl->at(fl->at_stmt(fl->body[0]).value).kind, expr_kind::cast);
}

TEST(TyperStatements, ExpressionStatementsKeepOnlyEffects) {
  env e;
  auto f = kernel(e, "def k(a):\n    a[0]\n    a[0] + 1\n    math\n    cuda.syncthreads()\n", {f32});
  ASSERT_EQ(f->body.size(), 1u);
  EXPECT_EQ(f->at(f->at_stmt(f->body[0]).value).op, op_id::intrinsic);
  EXPECT_EQ(f->at(f->at_stmt(f->body[0]).value).attrs[0], intrinsic_index("cuda.syncthreads"));
}

TEST(TyperStatements, WhileConditionsThatNeedStatements) {
  env e;
  // A run-time index into a call's tuple result needs the tuple in a
  // temporary, evaluated before every test.
  e.device("def pair(x):\n    return x, x + 1\n");
  auto f = kernel(e, R"(def k(a, i):
    n = 0
    while pair(n)[i] < 10:
        n += 1
    else:
        a[0] = n
)",
                  {"array(int64, 1d, C)", "int64"});
  const stmt* loop = nullptr;
  for (auto id : f->body)
    if (f->at_stmt(id).kind == stmt_kind::while_) loop = &f->at_stmt(id);
  ASSERT_NE(loop, nullptr) << f->dump();
  const expr& c = f->at(loop->value);
  EXPECT_EQ(c.kind, expr_kind::constant);  // while True
  ASSERT_GE(loop->body.size(), 2u);
  EXPECT_EQ(f->at_stmt(loop->body[0]).kind, stmt_kind::assign);  // the temporary, every iteration
  EXPECT_EQ(ops_of(*f, op_id::call_device).size(), 1u);
  // The else runs only when the test ends the loop.
  const stmt& after = f->at_stmt(f->body.back());
  EXPECT_EQ(after.kind, stmt_kind::if_);
  EXPECT_EQ(f->at(after.value).ty->str(), "bool");
}

TEST(TyperFunctions, WritesAndBarriers) {
  env e;
  auto m = e.infer("def k(a, b, n):\n    b[0] = a[0] + n\n", {f32, f32, "int32"});
  EXPECT_EQ(m.functions[0].writes_arg, (std::vector<bool>{false, true, false}));
  EXPECT_FALSE(m.functions[0].uses_barrier);
  EXPECT_TRUE(m.functions[0].is_kernel);
  EXPECT_EQ(m.functions[0].return_type->str(), "none");
  auto s = e.infer("def k(a):\n    if a[0] > 0:\n        cuda.syncthreads_and(1)\n", {f32});
  EXPECT_TRUE(s.functions[0].uses_barrier);
}

TEST(TyperFunctions, Symbols) {
  env e;
  std::string src = "def k(a, n):\n    a[0] = n\n";
  auto a = e.infer(src, {f32, "int32"}).functions[0].symbol;
  auto b = e.infer(src, {f32, "int32"}).functions[0].symbol;
  auto c = e.infer(src, {f32, "int64"}).functions[0].symbol;
  EXPECT_EQ(a, b);  // stable: the cache and PTX name it the same every time
  EXPECT_NE(a, c);
  EXPECT_EQ(a.rfind("cuforge_k_", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("cuforge_k_").size() + 16);
  for (char ch : a) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') << a;
  // Qualified names become identifiers.
  auto f = e.parse(src);
  f->qualname = "outer.<locals>.k";
  auto q = infer(e.tc, f, signature{e.types({f32, "int32"}), nullptr}, true).functions[0].symbol;
  EXPECT_EQ(q.rfind("cuforge_outer__locals__k_", 0), 0u) << q;
  // The same source in another file is another function.
  auto g = e.parse(src, "other.py");
  EXPECT_NE(infer(e.tc, g, signature{e.types({f32, "int32"}), nullptr}, true).functions[0].symbol, a);
}

TEST(TyperFunctions, SignatureChecks) {
  env e;
  failure r = e.fail("def k(a, b):\n    pass\n", {f32});
  EXPECT_TRUE(r.thrown);
  EXPECT_EQ(r.message, "k() takes 2 arguments but 1 type was given");
  EXPECT_EQ(r.loc.line, 1);
  type_context& tc = e.tc;
  auto f = e.parse("def k(a):\n    pass\n");
  try {
    infer(tc, f, signature{{tc.module("math")}, nullptr}, true);
    ADD_FAILURE();
  } catch (const typing_error& x) {
    EXPECT_EQ(x.message(), "argument 'a' has type Module(math), which is not a run-time value");
  }
  try {
    infer(tc, f, signature{{tc.int32()}, tc.int32()}, true);
    ADD_FAILURE();
  } catch (const typing_error& x) {
    EXPECT_EQ(x.message(), "kernels cannot return a value (the signature returns int32)");
  }
  EXPECT_THROW(infer(tc, nullptr, signature{}, true), cuforge::logic_error);
}

TEST(TyperFunctions, TheTypedStageHasOnlyTypedKinds) {
  env e;
  e.device("def scale(v, s):\n    return v * s\n");
  auto m = e.infer(R"(def k(a, b, n):
    i = cuda.grid(1)
    s = cuda.shared.array(32, float32)
    if i < n:
        x = a[i] if i % 2 == 0 else -a[i]
        s[cuda.threadIdx.x] = scale(x, 2.0)
        cuda.syncthreads()
        t = (x, i)
        y, j = t
        b[j] = math.sqrt(abs(y)) + (1 if x > 0 and y > 0 else 0)
)",
                   {f32, f32, "int64"});
  for (const auto& tf : m.functions) {
    const function& f = *tf.ir;
    for (const expr* x : reachable(f)) {
      EXPECT_NE(x->ty, nullptr) << f.dump();
      EXPECT_TRUE(x->kind == expr_kind::constant || x->kind == expr_kind::variable || x->kind == expr_kind::tuple ||
                  x->kind == expr_kind::conditional || x->kind == expr_kind::logical || x->kind == expr_kind::cast ||
                  x->kind == expr_kind::op)
          << f.dump();
      if (x->kind == expr_kind::constant && x->ty->is_scalar()) {
        auto k = x->value.k;
        EXPECT_TRUE((x->ty->kind == type_kind::boolean && k == constant_value::kind::boolean) ||
                    (x->ty->is_int() && k == constant_value::kind::integer) ||
                    (x->ty->is_float() && k == constant_value::kind::floating) ||
                    (x->ty->is_complex() && k == constant_value::kind::complex));
      }
      if (x->kind == expr_kind::conditional) {
        EXPECT_EQ(f.at(x->operands[0]).ty->str(), "bool");
      }
      if (x->kind == expr_kind::logical) {
        for (auto o : x->operands) EXPECT_EQ(f.at(o).ty, x->ty);
      }
    }
    for (const auto& v : f.vars) {
      EXPECT_NE(v.ty, nullptr);
    }
    for (const auto& s : f.stmts)
      if (s.kind == stmt_kind::assign) {
        EXPECT_EQ(f.at(s.target).kind, expr_kind::variable);
        EXPECT_EQ(f.at(s.target).ty, f.vars[static_cast<std::size_t>(f.at(s.target).var)].ty);
        EXPECT_EQ(f.at(s.value).ty, f.at(s.target).ty);
      }
  }
  EXPECT_TRUE(m.functions[0].uses_barrier);
  EXPECT_EQ(m.functions[0].writes_arg, (std::vector<bool>{false, true, false}));
}

TEST(TyperFunctions, ExactDumpOfAKernelWithACall) {
  env e;
  e.device("def clamp(x, lo, hi):\n    return min(max(x, lo), hi)\n");
  std::string src = R"(def k(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = clamp(a[i], 0.0, 1.0)
)";
  auto m = e.infer(src, {f32});
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[0].ir->dump(),
            "def k(a: array(float32, 1d, C)):\n"
            "    i :: int64 = add(mul(cast(cuda.blockIdx.x() :: int32) :: int64, cast(cuda.blockDim.x() :: int32) :: "
            "int64) :: int64, cast(cuda.threadIdx.x() :: int32) :: int64) :: int64\n"
            "    if lt(i :: int64, array_size(a :: array(float32, 1d, C)) :: int64) :: bool:\n"
            "        array_store(a :: array(float32, 1d, C), cast(call_device(array_load(a :: array(float32, 1d, C), i :: "
            "int64; 0) :: float32, 0.0 :: float64, 1.0 :: float64; 1) :: float64) :: float32, i :: int64; 0) :: none\n");
  // A literal passed to a device function is a float64 argument there (the
  // parameters are typed, not weak), so clamp computes in float64, as Numba's
  // clamp(float32, float64, float64) does.
  EXPECT_EQ(m.functions[1].ir->dump(),
            "def clamp(x: float32, lo: float64, hi: float64):\n"
            "    return min(max(cast(x :: float32) :: float64, lo :: float64) :: float64, hi :: float64) :: float64\n");
}

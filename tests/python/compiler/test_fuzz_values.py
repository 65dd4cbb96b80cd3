"""The value-checking fuzz (issue 15 item 6): random scalar expressions over
every numeric dtype, compiled by cuforge, must give the type numba-cuda
gives them and the value its rules say they must have.

The rules come from numba-cuda itself: data/numba_operator_types.json holds,
for each operator and operand types, the signature numba's typing context
resolves (recorded by data/record_numba_operator_types.py). The expected
value of an expression is computed here with NumPy, node by node, as numba
lowers it: integer and bitwise operators convert both operands to the
result type and wrap; ``/`` of integers divides as float64; ``//`` and
``%`` follow Python's signs; comparisons compare in the signature's
argument type; ``-x`` negates in x's own type, then converts (an unsigned
``-x`` is not widened first). Leaves are kernel arguments of random dtypes and values
(the extremes of each type included) and literals (ints typed int64, big
ones too, floats, booleans), so the constant-wrapping class of bug, where a
literal or an operand is converted in the wrong type, shows as a wrong value
or a wrong type.

Each case is a device function ``f(a, b, c) -> expr`` (its return type is
read from ``compile_ptx``) and a kernel ``out[0] = f(a, b, c)`` run on the
active backend. The batch runs in a child process (this file run as a
script), which prints one JSON line per case: a crash fails the test and
names the case. CUFORGE_FUZZ_VALUES_N sets the number of expressions
(default 240); the seed is fixed. data/check_fuzz_values_with_numba.py runs
the same cases under numba's own @njit to check the expected values (where
numba's optimiser rewrites an overflowing signed subtraction the two differ;
its docstring has the one case found in 2000).
"""

import json
import math
import os
import pathlib
import random
import subprocess
import sys
import tempfile

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
TABLE = json.loads((HERE / "data" / "numba_operator_types.json").read_text())
DEFAULT_N = 240
SEED = 20261127

DTYPES = ["boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
NUMPY = {"boolean": np.bool_, "bool": np.bool_, **{t: np.dtype(t).type for t in DTYPES if t != "boolean"}}
ARITHMETIC = ["+", "-", "*", "&", "|", "^"]
DIVISION = ["/", "//", "%"]
SHIFTS = ["<<", ">>"]
COMPARISONS = ["<", "<=", "==", "!=", ">", ">="]


# --- the expressions ----------------------------------------------------------------------------------


class Leaf:
    def __init__(self, text, value, dtype, constant=False):
        self.text, self.value, self.dtype, self.constant = text, value, dtype, constant


# CPython folds operators over literals before any compiler sees them
# (Python's own arithmetic: 2**63 - 1 + 1 is 2**63, True + True is 2); the
# comparisons and abs() it leaves alone. numba then types the folded value.
FOLDED = {"+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "not"}


class TooBig(Exception):
    """A folded literal outside 64-bit integers: numba and cuforge refuse it."""


def fold(op, operands):
    """The literal CPython makes of `op` over literal operands, or None."""
    if op not in FOLDED or not all(isinstance(o, Leaf) and o.constant for o in operands):
        return None
    values = [o.value.item() for o in operands]
    if len(values) == 1:
        v = {"-": lambda x: -x, "not": lambda x: not x}[op](values[0])
    else:
        x, y = values
        v = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y,
             "//": lambda: x // y, "%": lambda: x % y, "**": lambda: x ** y, "&": lambda: x & y,
             "|": lambda: x | y, "^": lambda: x ^ y, "<<": lambda: x << y, ">>": lambda: x >> y}[op]()
    text = f"({op} {operands[0].text})" if len(operands) == 1 else f"({operands[0].text} {op} {operands[1].text})"
    if isinstance(v, bool):
        return Leaf(text, np.bool_(v), "boolean", True)
    if isinstance(v, int):
        if not -(2 ** 63) <= v < 2 ** 63:
            raise TooBig(text)
        return Leaf(text, np.int64(v), "int64", True)
    return Leaf(text, np.float64(v), "float64", True)


def random_value(rng, dtype):
    if dtype == "boolean":
        return np.bool_(rng.random() < 0.5)
    t = NUMPY[dtype]
    if dtype.startswith("float"):
        choice = rng.choice(["small", "big", "frac", "neg"])
        v = {"small": rng.uniform(-10, 10), "big": rng.uniform(-1e6, 1e6), "frac": rng.uniform(-1, 1),
             "neg": -rng.uniform(0, 100)}[choice]
        return t(v)
    info = np.iinfo(t)
    choice = rng.random()
    if choice < 0.25:
        return t(rng.choice([info.min, info.max, 0, 1, info.max - 1, info.min + 1]))
    if choice < 0.6:
        return t(rng.randint(max(info.min, -100), min(info.max, 100)))
    return t(rng.randint(int(info.min), int(info.max)))


def random_literal(rng):
    kind = rng.random()
    if kind < 0.45:
        v = rng.choice([0, 1, 2, 3, 7, 100, 255, 256, 65535, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 40,
                        2 ** 63 - 1, -1, -128, -129, -(2 ** 31), -(2 ** 63) + 1])
        # Not -(2 ** 63): numba's njit gives (-2**63) - uint8(162) == -2**63 for that literal
        # (with an int64 argument it wraps, as cuforge does); data/check_fuzz_values_with_numba.py.
        text = str(v) if v >= 0 else f"({v})"
        return Leaf(text, np.int64(v), "int64", True)
    if kind < 0.8:
        v = rng.choice([0.5, 1.5, -2.25, 3.0, 1e10, -1e-3, 65536.0])
        return Leaf(repr(v) if v >= 0 else f"({v!r})", np.float64(v), "float64", True)
    v = rng.random() < 0.5
    return Leaf(str(v), np.bool_(v), "boolean", True)


class Node:
    def __init__(self, op, operands, dtype, text):
        self.op, self.operands, self.dtype, self.text = op, operands, dtype, text


def binary_entry(a, op, b):
    return TABLE["binary"].get(f"{a} {op} {b}")


def generate(rng, args, depth):
    """A random expression over `args` (name -> (value, dtype)); only
    operator/type combinations numba accepts, divisors and shift counts
    literals that keep the value defined."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.7:
            name = rng.choice(sorted(args))
            return Leaf(name, args[name][0], args[name][1])
        return random_literal(rng)
    for _ in range(20):
        kind = rng.random()
        left = generate(rng, args, depth - 1)
        if kind < 0.12:
            op = rng.choice(["-", "abs", "not"])
            entry = TABLE["unary"].get(f"{op} {left.dtype}")
            if entry is None:
                continue
            folded = fold(op, [left])
            if folded is not None:
                return folded
            text = f"abs({left.text})" if op == "abs" else f"({op} {left.text})"
            return Node(op, [left], entry[0], text)
        if kind < 0.55:
            op, right = rng.choice(ARITHMETIC), generate(rng, args, depth - 1)
        elif kind < 0.7:
            op = rng.choice(DIVISION)
            right = rng.choice([Leaf("3", np.int64(3), "int64", True), Leaf("7", np.int64(7), "int64", True),
                                Leaf("(-5)", np.int64(-5), "int64", True),
                                Leaf("2.5", np.float64(2.5), "float64", True)])
        elif kind < 0.8:
            op = rng.choice(SHIFTS)
            n = rng.randint(0, 7)
            right = Leaf(str(n), np.int64(n), "int64", True)
        elif kind < 0.85:
            op = "**"
            n = rng.randint(0, 3)
            right = Leaf(str(n), np.int64(n), "int64", True)
        else:
            op, right = rng.choice(COMPARISONS), generate(rng, args, depth - 1)
        entry = binary_entry(left.dtype, op, right.dtype)
        if entry is None:
            continue
        folded = fold(op, [left, right])
        if folded is not None:
            return folded
        return Node(op, [left, right], entry[0], f"({left.text} {op} {right.text})")
    return generate(rng, args, 0)


# --- numba's value of an expression ----------------------------------------------------------------


def cast(value, dtype):
    with np.errstate(all="ignore"):
        return np.array(value).astype(NUMPY[dtype])[()]


def python_floordiv(x, y):
    with np.errstate(all="ignore"):
        return np.floor_divide(x, y)


def evaluate(node):
    if isinstance(node, Leaf):
        return node.value
    values = [evaluate(o) for o in node.operands]
    with np.errstate(all="ignore"):
        if len(values) == 1:
            (x,) = values
            entry = TABLE["unary"][f"{node.op} {node.operands[0].dtype}"]
            if node.op == "not":
                return np.bool_(not x)
            x = cast(x, entry[1][0])
            if node.op == "abs":
                return cast(np.abs(x), entry[0])
            # numba negates in the operand's type, then converts (numbers.py:
            # "Negate before upcasting, for unsigned numbers").
            # A boolean is converted first (-True is -1).
            if entry[1][0] == "bool":
                return cast(-cast(x, entry[0]), entry[0])
            return cast(cast(-x, entry[1][0]), entry[0])
        a, b = node.operands
        result, (ta, tb) = binary_entry(a.dtype, node.op, b.dtype)
        x, y = values
        if node.op in COMPARISONS:
            x, y = cast(x, ta), cast(y, tb)
            return np.bool_({"<": x < y, "<=": x <= y, "==": x == y, "!=": x != y, ">": x > y,
                             ">=": x >= y}[node.op])
        if node.op == "/":
            common = result if result.startswith("float") else "float64"
            return cast(np.true_divide(cast(x, common), cast(y, common)), result)
        x, y = cast(x, result), cast(y, result)
        if node.op == "**" and not result.startswith("float"):
            acc = cast(1, result)
            for _ in range(int(y)):
                acc = cast(acc * x, result)
            return acc
        fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "//": python_floordiv, "%": np.remainder,
              "**": np.power, "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor,
              "<<": np.left_shift, ">>": np.right_shift}[node.op]
        return cast(fn(x, y), result)


def defined(node):
    """False where numba's result is not defined (integer division by 0, the
    minimum by -1), so the case is not made."""
    if isinstance(node, Leaf):
        return True
    if not all(defined(o) for o in node.operands):
        return False
    if node.op in ("//", "%", "/") and len(node.operands) == 2:
        a, b = node.operands
        result, _ = binary_entry(a.dtype, node.op, b.dtype)
        if not result.startswith("float") or node.op == "/":
            divisor = cast(evaluate(b), result if node.op != "/" else "float64")
            if divisor == 0:
                return False
            if node.op != "/" and not result.startswith("float") and divisor == -1:
                return False
    return True


def make_cases(n):
    rng = random.Random(SEED)
    cases = []
    while len(cases) < n:
        dtypes = [rng.choice(DTYPES) for _ in range(3)]
        args = {name: (random_value(rng, t), t) for name, t in zip("abc", dtypes)}
        try:
            expr = generate(rng, args, rng.randint(1, 3))
        except TooBig:
            continue
        if isinstance(expr, Leaf) or not defined(expr):
            continue
        cases.append({"id": len(cases), "expr": expr.text, "dtypes": dtypes,
                      "values": [repr(args[n_][0].item()) for n_ in "abc"], "expected_type": expr.dtype,
                      "expected": repr(evaluate(expr).item())})
    return cases


# --- compiling and running them (the child) -----------------------------------------------------------


def module_source(cases):
    lines = ["from cuforge import cuda", ""]
    for case in cases:
        i = case["id"]
        lines += ["@cuda.jit(device=True)", f"def f{i}(a, b, c):", f"    return {case['expr']}", "",
                  "@cuda.jit", f"def k{i}(out, a, b, c):", f"    out[0] = f{i}(a, b, c)", ""]
    return "\n".join(lines)


def run_child(n):
    import importlib.util

    from cuforge import cuda, types

    cases = make_cases(n)
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "fuzz_values_cases.py"
        path.write_text(module_source(cases))
        spec = importlib.util.spec_from_file_location("fuzz_values_cases", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for case in cases:
            print(json.dumps({"start": case["id"]}), flush=True)
            sig = tuple(getattr(types, t) for t in case["dtypes"])
            _, resty = cuda.compile_ptx(getattr(module, f"f{case['id']}").py_func, sig, device=True)
            got_type = str(resty)
            out_dtype = NUMPY[case["expected_type"]]
            out = np.zeros(1, dtype=out_dtype)
            values = [NUMPY[t](eval(v)) for t, v in zip(case["dtypes"], case["values"])]
            getattr(module, f"k{case['id']}")[1, 1](out, *values)
            print(json.dumps({"id": case["id"], "type": got_type, "value": repr(out[0].item())}), flush=True)


def same_value(expected, got, dtype):
    e, g = eval(expected, {"inf": math.inf, "nan": math.nan}), eval(got, {"inf": math.inf, "nan": math.nan})
    if dtype.startswith("float"):
        if math.isnan(e) or math.isnan(g):
            return math.isnan(e) and math.isnan(g)
        if math.isinf(e) or math.isinf(g):
            return e == g
        tolerance = 1e-5 if dtype == "float32" else 1e-12
        return abs(e - g) <= tolerance * max(1.0, abs(e))
    return e == g


def test_random_scalar_expressions_have_numbas_types_and_values():
    n = int(os.environ.get("CUFORGE_FUZZ_VALUES_N", DEFAULT_N))
    cases = {c["id"]: c for c in make_cases(n)}
    done = subprocess.run([sys.executable, __file__, str(n)], capture_output=True, text=True, timeout=1800)
    results, started = {}, None
    for line in done.stdout.splitlines():
        record = json.loads(line)
        if "start" in record:
            started = record["start"]
        else:
            results[record["id"]] = record
    if done.returncode != 0:
        case = cases.get(started)
        pytest.fail(f"the child failed at case {started} ({case}):\n{done.stderr[-3000:]}")
    wrong = []
    for i, case in cases.items():
        got = results[i]
        problems = []
        if got["type"] != case["expected_type"]:
            problems.append(f"type {got['type']}, numba's {case['expected_type']}")
        if not same_value(case["expected"], got["value"], case["expected_type"]):
            problems.append(f"value {got['value']}, expected {case['expected']}")
        if problems:
            args = ", ".join(f"{v}: {t}" for v, t in zip(case["values"], case["dtypes"]))
            wrong.append(f"case {i}: {case['expr']} with a, b, c = {args}: {'; '.join(problems)}")
    assert not wrong, f"{len(wrong)} of {len(cases)} expressions differ from numba:\n" + "\n".join(wrong[:40])


def test_the_expected_values_follow_numbas_rules():
    # The evaluator itself, on cases whose answers are known from numba-cuda.
    i8 = Leaf("a", np.int8(100), "int8")
    u64 = Leaf("b", np.uint64(2 ** 64 - 1), "uint64")
    lit = Leaf("100", np.int64(100), "int64")
    assert evaluate(Node("+", [i8, lit], "int64", "")) == 200  # int8 + literal: int64, no wrap at 127
    assert evaluate(Node("<", [Leaf("x", np.int8(-1), "int8"), u64], "bool", "")) == np.bool_(True)  # as floats
    assert evaluate(Node("//", [Leaf("x", np.int64(-7), "int64"), Leaf("2", np.int64(2), "int64")], "int64", "")) == -4
    assert evaluate(Node("%", [Leaf("x", np.int64(-7), "int64"), Leaf("3", np.int64(3), "int64")], "int64", "")) == 2
    assert evaluate(Node("/", [Leaf("x", np.int8(7), "int8"), Leaf("2", np.int64(2), "int64")], "float64", "")) == 3.5
    u16 = Leaf("c", np.uint16(65535), "uint16")
    assert evaluate(Node("-", [u16], "uint64", "")) == 1  # numba-cuda's njit gives 1: negated in uint16
    big = Leaf("m", np.int64(2 ** 63 - 1), "int64")
    assert evaluate(Node("+", [big, Leaf("1", np.int64(1), "int64")], "int64", "")) == -(2 ** 63)  # wraps


if __name__ == "__main__":
    run_child(int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_N)

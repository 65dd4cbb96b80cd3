"""Fuzzing the kernel compiler: random and mutated Python functions must
compile, or be refused with a TypingError that points at their source; the
interpreter must never crash.

Two seeded sources of functions:

- ``generate(seed)``: a small random kernel (and, often, a device function it
  calls) over the supported language (expressions over int, float, bool,
  complex, tuples and array elements; calls to math, cmath, builtins, cuda.*
  and device functions; if/for/while/assign/augassign/return/break/continue),
  with, now and then, a construct the compiler refuses (try, with,
  comprehensions, lambdas, lists, strings, calls of Python objects, ...).
- ``mutate(seed)``: a kernel of seed_kernels.py with one to three mutations
  (statements deleted, duplicated, swapped or wrapped; names, constants,
  operators, attributes and subexpressions replaced).

Each function is compiled to PTX for sm_90 (``cuda.compile_ptx``) and for the
cpu backend (``kernel.compile(sig)``, then loaded: host code through the ORC
JIT). The allowed outcomes are: compiled, or ``cuda.TypingError`` carrying
the file, a line inside the function's file and that line's text. Nothing
else is allowed, and the reasoning is this: the signatures are valid (the
fuzzer makes them), so the only thing wrong can be the function, and every
refusal of a function must say where (the issue's rule for the compiler's
diagnostics). A bare TypeError/ValueError/NotImplementedError/RuntimeError
from the compiler is an internal error that escaped without a location (a
bug), and the two targets must agree on whether a function compiles, since
they share the typer. A sample of the PTX is also assembled by ptxas.

The batch runs in a subprocess (this file run as a script), which prints each
case's id before compiling it: a segfault or abort shows as the return code,
and the test names the case and prints its source; the batch then resumes
after it. Everything is deterministic (fixed seeds). CUFORGE_FUZZ_N sets the
number of generated functions and of mutants (default 150 each; the 200 or
so hand-picked edge cases of fuzz_edge_cases.py always run); run
``python tests/python/compiler/test_fuzz.py --report N`` for a summary of a
big batch.
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

HERE = pathlib.Path(__file__).resolve().parent
_EXAMPLES = HERE.parents[2] / "examples" / "python"  # where seed_kernels imports some kernels from
DEFAULT_N = 150
PTXAS = "/usr/local/cuda/bin/ptxas"
PTXAS_EVERY = 10  # in the default suite, every 10th compiled PTX goes through ptxas

# --- generated functions -----------------------------------------------------------------------------

# The module every generated function lives in: its globals.
PRELUDE = '''\
import cmath
import math

import numpy as np

from cuforge import cuda
from cuforge.types import boolean, float32, float64, int32, int64, uint8

CONST = np.arange(8, dtype=np.float64)
G = 3
FLAG = True
OBJ = object()


def plain(x):
    return x


class Thing:
    def method(self, x):
        return x


THING = Thing()


@cuda.jit(device=True)
def dev_add(x, y):
    return x + y


@cuda.jit(device=True)
def dev_pair(x, y):
    return x, y


@cuda.jit(device=True)
def dev_twice(x):
    return dev_add(x, x)

'''

# Kernel parameter types: (signature text, kind, dtype kind of the elements, ndim).
ARRAY_TYPES = [
    ("float32[::1]", "float", 1), ("float64[::1]", "float", 1), ("float64[:]", "float", 1),
    ("int32[::1]", "int", 1), ("int64[::1]", "int", 1), ("uint8[::1]", "int", 1), ("boolean[::1]", "bool", 1),
    ("complex128[::1]", "complex", 1), ("float32[:, ::1]", "float", 2), ("int64[:, :]", "int", 2),
    ("float64[::1, :]", "float", 2),
]
SCALAR_TYPES = [("float64", "float"), ("float32", "float"), ("int64", "int"), ("int32", "int"), ("uint8", "int"),
                ("boolean", "bool"), ("complex128", "complex"), ("UniTuple(int64, 2)", "tuple")]

INT_CONSTANTS = ["0", "1", "2", "3", "7", "-1", "-5", "255", "2147483647", "-2147483648", "9223372036854775807",
                 "18446744073709551615", "0x7f", "True"]
FLOAT_CONSTANTS = ["0.0", "0.5", "-1.5", "3.0", "1e300", "1e-300", "-0.0", "math.pi", "math.inf", "-math.inf",
                   "math.nan", "math.e", "1e10"]
MATH_1 = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
          "expm1", "log", "log2", "log10", "log1p", "sqrt", "fabs", "erf", "erfc", "gamma", "lgamma", "radians",
          "degrees"]
MATH_2 = ["pow", "atan2", "hypot", "copysign", "fmod"]
INT_BINOPS = ["+", "-", "*", "//", "%", "**", "<<", ">>", "&", "|", "^"]
FLOAT_BINOPS = ["+", "-", "*", "/", "//", "%", "**"]
CMPOPS = ["<", "<=", ">", ">=", "==", "!="]

# Constructs the compiler refuses, as statements ({v}: a variable, {a}: an
# array, {n}: a fresh name).
UNSUPPORTED = [
    "try:\n    {n} = {v}\nexcept Exception:\n    pass",
    "try:\n    {n} = {v}\nfinally:\n    pass",
    "with {a}:\n    pass",
    "{n} = [q for q in {a}]",
    "{n} = {{q for q in {a}}}",
    "{n} = {{q: q for q in {a}}}",
    "{n} = max(q for q in {a})",
    "{n} = lambda q: q + {v}",
    "class {n}:\n    pass",
    "def {n}(q):\n    return q",
    "{n} = [{v}, {v}]",
    "{n} = {{1: {v}}}",
    "{n} = {{{v}, 2}}",
    "{n} = 'text'",
    "{n} = f'{{{v}}}'",
    "{n} = b'bytes'",
    "{n} = ...",
    "global G\nG = {v}",
    "{n} = {v}\ndel {n}",
    "{n} = plain({v})",
    "{n} = THING.method({v})",
    "{n} = OBJ({v})",
    "{n} = sorted({a})",
    "{n} = isinstance({v}, int)",
    "{n} = {a}.sum()",
    "{n} = np.zeros(3)",
    "{n} = range(3)",
    "print({v})",
    "import os",
    "from math import sin",
    "if ({n} := {v}):\n    pass",
    "{n} = min(*{a})",
    "{n}, *rest = {a}",
    "{a}.flag = {v}",
    "{n} = {v} if {v} is None else {v}",
    "{n} = {v} in ({v}, 1)",
    "{n} = {a} @ {a}",
    "{n} = type({v})",
    "{n} = {a}[None]",
    "{n} = {a}.no_such_attribute",
    "{n} = undefined_name + {v}",
    "{n} = 123456789012345678901234567890",
    "{n} = cuda.grid(4)",
    "{n} = cuda.no_such_function({v})",
    "{n} = math.sqrt({v}, {v})",
    "{n} = cuda.shared.array({v}, float32)",
    "{n} = cuda.local.array(-1, float32)",
    "{n} = cuda.atomic.add({v}, 0, 1)",
    "raise ValueError('bad')",
    "{n} = dev_add({v})",
    "{n} = {a}[1.5]",
    "{a}[0, 0, 0] = {v}",
    "yield {v}",
]


class _Var:
    __slots__ = ("name", "kind", "ndim", "writable")

    def __init__(self, name, kind, ndim=0, writable=True):
        self.name, self.kind, self.ndim, self.writable = name, kind, ndim, writable


class _Generator:
    """One random function (and maybe a device function): source lines and the
    signature to compile with. ``kind`` of a value: int, float, bool, complex,
    tuple (of two ints) or array (then ``ndim`` and its element kind)."""

    def __init__(self, rnd: random.Random):
        self.r = rnd
        self.counter = 0
        self.loop_depth = 0
        self.lines = []
        self.scope = []  # _Var
        self.device = False
        self.return_kind = None
        self.devices = []  # (name, [param kinds], return kind) of the generated device functions
        self.max_depth = rnd.choice([3, 3, 3, 5])  # how deep expressions nest

    # --- helpers ---
    def chance(self, p):
        return self.r.random() < p

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def of_kind(self, kind):
        return [v for v in self.scope if v.kind == kind and v.ndim == 0]

    def arrays(self, ndim=None, writable=False):
        return [v for v in self.scope if v.ndim and (ndim is None or v.ndim == ndim) and (v.writable or not writable)]

    def emit(self, depth, text):
        for line in text.splitlines():
            self.lines.append("    " * depth + line)

    # --- expressions ---
    def index_of(self, arr, depth):
        """An index expression for ``arr``: usually in range, sometimes not."""
        i = self.expr("int", depth + 1)
        if arr.ndim == 1:
            return f"{arr.name}[{i}]" if self.chance(0.3) else f"{arr.name}[({i}) % {arr.name}.size]"
        j = self.expr("int", depth + 1)
        return f"{arr.name}[({i}) % {arr.name}.shape[0], ({j}) % {arr.name}.shape[1]]"

    def expr(self, kind, depth=0):
        if self.chance(0.03):  # now and then, whatever kind
            kind = self.r.choice(["int", "float", "bool", "complex", "tuple"])
        leaf = depth >= self.max_depth or self.chance(0.3)
        method = getattr(self, f"expr_{kind}")
        return method(depth, leaf)

    def leaf_var(self, kind):
        vs = self.of_kind(kind)
        return self.r.choice(vs).name if vs else None

    def array_element(self, kind, depth):
        arrs = [a for a in self.arrays() if a.kind == kind]
        if not arrs:
            return None
        return self.index_of(self.r.choice(arrs), depth)

    def expr_int(self, depth, leaf):
        r = self.r
        if leaf:
            choices = [lambda: r.choice(INT_CONSTANTS), lambda: self.leaf_var("int"), lambda: "cuda.grid(1)",
                       lambda: "cuda.threadIdx.x", lambda: "cuda.blockIdx.y", lambda: "cuda.blockDim.x",
                       lambda: "cuda.gridsize(1)", lambda: "cuda.laneid", lambda: "cuda.warpsize", lambda: "G",
                       lambda: self.array_len()]
            return r.choice(choices)() or "1"
        a, b = (lambda: self.expr("int", depth + 1)), (lambda: self.expr("float", depth + 1))
        choices = [
            lambda: f"({a()} {r.choice(INT_BINOPS)} {a()})",
            lambda: f"({r.choice(['-', '~', '+'])}{a()})",
            lambda: f"int({b()})",
            lambda: f"round({b()})",
            lambda: f"math.{r.choice(['floor', 'ceil', 'trunc'])}({b()})",
            lambda: f"{r.choice(['min', 'max'])}({a()}, {a()})",
            lambda: f"max({a()}, {a()}, {a()})",
            lambda: f"abs({a()})",
            lambda: f"cuda.{r.choice(['popc', 'clz', 'ffs', 'brev'])}({a()})",
            lambda: f"np.{r.choice(['int32', 'uint8', 'int64', 'uint32', 'int16'])}({a()})",
            lambda: f"({a()} if {self.expr('bool', depth + 1)} else {a()})",
            lambda: self.array_element("int", depth),
            lambda: f"{self.expr('tuple', depth + 1)}[{r.choice(['0', '1', '-1'])}]",
            lambda: self.atomic(depth),
            lambda: f"len({self.any_array()})" if self.arrays() else None,
            lambda: f"dev_add({a()}, {a()})",
            lambda: f"dev_twice({a()})",
            lambda: f"cuda.syncthreads_count({self.expr('bool', depth + 1)})",
            lambda: self.call_generated("int", depth),
        ]
        return r.choice(choices)() or self.expr_int(depth, True)

    def array_len(self):
        arrs = self.arrays()
        if not arrs:
            return None
        a = self.r.choice(arrs)
        return self.r.choice([f"len({a.name})", f"{a.name}.size", f"{a.name}.shape[0]", f"{a.name}.ndim",
                              f"{a.name}.shape[{a.ndim - 1}]", f"{a.name}.strides[0]"])

    def any_array(self):
        return self.r.choice(self.arrays()).name

    def atomic(self, depth):
        arrs = [a for a in self.arrays(ndim=1, writable=True) if a.kind in ("int", "float")]
        if not arrs:
            return None
        a = self.r.choice(arrs)
        op = self.r.choice(["add", "sub", "max", "min", "exch", "inc", "dec", "and_", "or_", "xor"])
        return f"cuda.atomic.{op}({a.name}, ({self.expr('int', depth + 1)}) % {a.name}.size, " \
               f"{self.expr(a.kind, depth + 1)})"

    def expr_float(self, depth, leaf):
        r = self.r
        if leaf:
            choices = [lambda: r.choice(FLOAT_CONSTANTS), lambda: self.leaf_var("float"),
                       lambda: self.array_element("float", 2)]
            return r.choice(choices)() or "1.5"
        a, i = (lambda: self.expr("float", depth + 1)), (lambda: self.expr("int", depth + 1))
        choices = [
            lambda: f"({a()} {r.choice(FLOAT_BINOPS)} {a()})",
            lambda: f"({a()} {r.choice(FLOAT_BINOPS)} {i()})",
            lambda: f"(-{a()})",
            lambda: f"math.{r.choice(MATH_1)}({a()})",
            lambda: f"math.{r.choice(MATH_2)}({a()}, {a()})",
            lambda: f"np.{r.choice(['sin', 'sqrt', 'exp', 'fabs', 'arctan2'])}({a()})",
            lambda: f"float({i()})",
            lambda: f"np.float32({a()})",
            lambda: f"float32({i()})",
            lambda: f"abs({a()})",
            lambda: f"{r.choice(['min', 'max'])}({a()}, {i()})",
            lambda: f"round({a()}, {r.choice(['0', '2', '-1'])})",
            lambda: f"math.ldexp({a()}, {i()})",
            lambda: f"cuda.fma({a()}, {a()}, {a()})",
            lambda: f"math.frexp({a()})[0]",
            lambda: f"math.modf({a()})[{r.choice(['0', '1'])}]",
            lambda: f"{self.expr('complex', depth + 1)}.{r.choice(['real', 'imag'])}",
            lambda: f"abs({self.expr('complex', depth + 1)})",
            lambda: f"({a()} if {self.expr('bool', depth + 1)} else {i()})",
            lambda: f"dev_add({a()}, {i()})",
            lambda: f"CONST[({i()}) % 8]",
            lambda: self.array_element("float", depth),
            lambda: self.call_generated("float", depth),
            lambda: f"({i()} / {i()})",
        ]
        return r.choice(choices)() or self.expr_float(depth, True)

    def expr_bool(self, depth, leaf):
        r = self.r
        if leaf:
            choices = [lambda: r.choice(["True", "False", "FLAG"]), lambda: self.leaf_var("bool"),
                       lambda: self.array_element("bool", 2)]
            return r.choice(choices)() or "True"
        k = lambda: r.choice(["int", "float", "int"])  # noqa: E731
        choices = [
            lambda: (lambda kk: f"({self.expr(kk, depth + 1)} {r.choice(CMPOPS)} {self.expr(kk, depth + 1)})")(k()),
            lambda: f"({self.expr('int', depth + 1)} < {self.expr('int', depth + 1)} <= {self.expr('int', depth + 1)})",
            lambda: f"(not {self.expr('bool', depth + 1)})",
            lambda: f"({self.expr('bool', depth + 1)} {r.choice(['and', 'or'])} {self.expr('bool', depth + 1)})",
            lambda: f"({self.expr('int', depth + 1)} {r.choice(['and', 'or'])} {self.expr('float', depth + 1)})",
            lambda: f"math.{r.choice(['isnan', 'isinf', 'isfinite'])}({self.expr('float', depth + 1)})",
            lambda: f"np.isnan({self.expr('float', depth + 1)})",
            lambda: f"bool({self.expr(k(), depth + 1)})",
            lambda: f"({self.expr('bool', depth + 1)} {r.choice(['&', '|', '^'])} {self.expr('bool', depth + 1)})",
            lambda: f"cuda.syncthreads_{r.choice(['and', 'or'])}({self.expr('int', depth + 1)})",
            lambda: self.array_element("bool", depth),
            lambda: f"({self.expr('complex', depth + 1)} == {self.expr('complex', depth + 1)})",
        ]
        return r.choice(choices)() or "True"

    def expr_complex(self, depth, leaf):
        r = self.r
        if leaf:
            choices = [lambda: r.choice(["1j", "(1+2j)", "-0.5j", "complex(1, -1)"]), lambda: self.leaf_var("complex"),
                       lambda: self.array_element("complex", 2)]
            return r.choice(choices)() or "1j"
        a, f = (lambda: self.expr("complex", depth + 1)), (lambda: self.expr("float", depth + 1))
        choices = [
            lambda: f"({a()} {r.choice(['+', '-', '*', '/', '**'])} {a()})",
            lambda: f"({a()} * {f()})",
            lambda: f"complex({f()}, {f()})",
            lambda: f"cmath.{r.choice(['sqrt', 'exp', 'log', 'sin', 'cos', 'tanh'])}({a()})",
            lambda: f"(-{a()})",
            lambda: f"{a()}.conjugate()",
            lambda: self.array_element("complex", depth),
        ]
        return r.choice(choices)() or "1j"

    def expr_tuple(self, depth, leaf):
        r = self.r
        if leaf:
            v = self.leaf_var("tuple")
            return v or r.choice(["(1, 2)", "cuda.grid(2)", "cuda.gridsize(2)"])
        i, f = (lambda: self.expr("int", depth + 1)), (lambda: self.expr("float", depth + 1))
        two = [a for a in self.arrays(ndim=2)]
        choices = [
            lambda: f"({i()}, {i()})",
            lambda: f"dev_pair({i()}, {i()})",
            lambda: f"math.frexp({f()})",
            lambda: f"math.modf({f()})",
            lambda: f"{r.choice(two).name}.shape" if two else None,
            lambda: f"({self.expr('tuple', depth + 1)} if {self.expr('bool', depth + 1)} else ({i()}, {i()}))",
        ]
        return r.choice(choices)() or "(1, 2)"

    def call_generated(self, kind, depth):
        fits = [d for d in self.devices if d[2] == kind]
        if not fits:
            return None
        name, params, _ = self.r.choice(fits)
        return f"{name}({', '.join(self.expr(p, depth + 1) for p in params)})"

    # --- statements ---
    def block(self, depth, n):
        start = len(self.lines)
        for _ in range(n):
            self.stmt(depth)
        if len(self.lines) == start:
            self.emit(depth, "pass")

    def stmt(self, depth):
        r = self.r
        nested = depth < 4
        weights = [
            (self.s_assign, 6), (self.s_store, 4 if self.arrays(writable=True) else 0), (self.s_augassign, 3),
            (self.s_unpack, 1), (self.s_if, 3 if nested else 0), (self.s_for, 2 if nested else 0),
            (self.s_for_array, 1 if nested and self.arrays() else 0), (self.s_while, 1 if nested else 0),
            (self.s_call, 1), (self.s_local_array, 1), (self.s_return, 1 if depth > 1 else 0),
            (self.s_jump, 2 if self.loop_depth else 0), (self.s_assert, 1), (self.s_pass, 1),
        ]
        fns, ws = zip(*[(f, w) for f, w in weights if w])
        r.choices(fns, ws)[0](depth)

    def s_assign(self, depth):
        kind = self.r.choice(["int", "int", "float", "float", "bool", "complex", "tuple"])
        olds = self.of_kind(kind)
        if olds and self.chance(0.4):
            name = self.r.choice(olds).name
        else:
            name = self.fresh()
        self.emit(depth, f"{name} = {self.expr(kind)}")
        if not any(v.name == name for v in self.scope):
            self.scope.append(_Var(name, kind))

    def s_store(self, depth):
        a = self.r.choice(self.arrays(writable=True))
        self.emit(depth, f"{self.index_of(a, 1)} = {self.expr(a.kind, 1)}")

    def s_augassign(self, depth):
        olds = [v for v in self.scope if v.ndim == 0 and v.kind in ("int", "float")]
        arrs = [a for a in self.arrays(writable=True) if a.kind in ("int", "float")]
        if arrs and (not olds or self.chance(0.5)):
            a = self.r.choice(arrs)
            target, kind = self.index_of(a, 1), a.kind
        elif olds:
            v = self.r.choice(olds)
            target, kind = v.name, v.kind
        else:
            return self.s_assign(depth)
        ops = INT_BINOPS if kind == "int" else FLOAT_BINOPS
        self.emit(depth, f"{target} {self.r.choice(ops)}= {self.expr(kind, 1)}")

    def s_unpack(self, depth):
        x, y = self.fresh(), self.fresh()
        self.emit(depth, f"{x}, {y} = {self.expr('tuple')}")
        self.scope += [_Var(x, "int"), _Var(y, "int")]

    def s_if(self, depth):
        self.emit(depth, f"if {self.expr('bool')}:")
        self.block(depth + 1, self.r.randint(1, 3))
        if self.chance(0.3):
            self.emit(depth, f"elif {self.expr('bool')}:")
            self.block(depth + 1, self.r.randint(1, 2))
        if self.chance(0.4):
            self.emit(depth, "else:")
            self.block(depth + 1, self.r.randint(1, 2))

    def s_for(self, depth):
        i = self.fresh("i")
        args = [self.expr("int", 2) for _ in range(self.r.randint(1, 3))]
        if len(args) == 3 and self.chance(0.3):
            args[2] = self.r.choice(["-1", "2", "0"])
        self.emit(depth, f"for {i} in range({', '.join(args)}):")
        self.scope.append(_Var(i, "int"))
        self.loop_depth += 1
        self.block(depth + 1, self.r.randint(1, 3))
        self.loop_depth -= 1

    def s_for_array(self, depth):
        ones = self.arrays(ndim=1)
        a = self.r.choice(self.arrays())
        form = self.r.randint(0, 2)
        x = self.fresh("x")
        if form == 0 or not ones:
            self.emit(depth, f"for {x} in {a.name}:")
            self.scope.append(_Var(x, a.kind) if a.ndim == 1 else _Var(x, a.kind, 1, a.writable))
        elif form == 1:
            b = self.r.choice(ones)
            k = self.fresh("k")
            self.emit(depth, f"for {k}, {x} in enumerate({b.name}):")
            self.scope += [_Var(k, "int"), _Var(x, b.kind)]
        else:
            b, c = self.r.choice(ones), self.r.choice(ones)
            y = self.fresh("y")
            self.emit(depth, f"for {x}, {y} in zip({b.name}, {c.name}):")
            self.scope += [_Var(x, b.kind), _Var(y, c.kind)]
        self.loop_depth += 1
        self.block(depth + 1, self.r.randint(1, 3))
        self.loop_depth -= 1

    def s_while(self, depth):
        c = self.fresh("n")
        self.emit(depth, f"{c} = {self.r.randint(0, 5)}")
        self.emit(depth, f"while {c} > 0 and {self.expr('bool', 2)}:")
        self.emit(depth + 1, f"{c} -= 1")
        self.scope.append(_Var(c, "int"))
        self.loop_depth += 1
        self.block(depth + 1, self.r.randint(1, 2))
        self.loop_depth -= 1

    def s_call(self, depth):
        r = self.r
        choices = ["cuda.syncthreads()", "cuda.threadfence()", "cuda.syncwarp()", "cuda.threadfence_block()",
                   self.atomic(1) or "cuda.syncthreads()", f"dev_add({self.expr('int', 1)}, 1)"]
        self.emit(depth, r.choice(choices))

    def s_local_array(self, depth):
        name = self.fresh("s")
        space = self.r.choice(["shared", "local", "shared", "const"])
        dtype, kind = self.r.choice([("float32", "float"), ("int64", "int"), ("float64", "float"), ("np.int32", "int")])
        if space == "const":
            self.emit(depth, f"{name} = cuda.const.array_like(CONST)")
            self.scope.append(_Var(name, "float", 1, writable=False))
            return
        shape = self.r.choice(["16", "(4, 4)", "(8,)", "G", "(2, G)", "0" if space == "shared" else "4"])
        self.emit(depth, f"{name} = cuda.{space}.array({shape}, {dtype})")
        ndim = 2 if shape.startswith("(") and "," in shape.strip("(),") else 1
        self.scope.append(_Var(name, kind, ndim))

    def s_return(self, depth):
        if self.device:
            self.emit(depth, f"return {self.expr(self.return_kind, 1)}")
        else:
            self.emit(depth, "return")

    def s_jump(self, depth):
        self.emit(depth, self.r.choice(["break", "continue"]))

    def s_assert(self, depth):
        self.emit(depth, f"assert {self.expr('bool', 1)}" + (", 'a message'" if self.chance(0.5) else ""))

    def s_pass(self, depth):
        self.emit(depth, "pass")

    # --- functions ---
    def unsupported(self, depth):
        """One refused construct, as statements, at a random place."""
        template = self.r.choice(UNSUPPORTED)
        vs = [v.name for v in self.scope if v.ndim == 0] or ["1"]
        arrs = [a.name for a in self.arrays()] or ["CONST"]
        text = template.format(v=self.r.choice(vs), a=self.r.choice(arrs), n=self.fresh("u"))
        self.emit(depth, text)

    def body(self, n_stmts):
        inject = self.chance(0.25)
        at = self.r.randrange(n_stmts) if inject else -1
        for k in range(n_stmts):
            if k == at:
                self.unsupported(1)
            self.stmt(1)

    def device_function(self, name):
        self.lines, self.scope, self.counter = [], [], 0
        self.device = True
        kinds = [self.r.choice(["int", "float", "float", "bool", "complex"]) for _ in range(self.r.randint(1, 3))]
        params = [f"p{k}" for k in range(len(kinds))]
        self.scope = [_Var(p, k) for p, k in zip(params, kinds)]
        self.return_kind = self.r.choice(["int", "float", "float", "tuple"])
        self.lines.append(f"def {name}({', '.join(params)}):")
        self.body(self.r.randint(1, 5))
        self.emit(1, f"return {self.expr(self.return_kind, 1)}")
        if self.chance(0.05):  # recursion is refused
            self.lines.insert(1, f"    {name}({', '.join(params)})")
        self.devices.append((name, kinds, self.return_kind))
        return self.lines, kinds

    def kernel(self, name):
        self.lines, self.scope, self.counter = [], [], 0
        self.device = False
        params, sig = [], []
        for k in range(self.r.randint(1, 4)):
            if self.chance(0.65):
                text, kind, ndim = self.r.choice(ARRAY_TYPES)
                self.scope.append(_Var(f"a{k}", kind, ndim))
            else:
                text, kind = self.r.choice(SCALAR_TYPES)
                self.scope.append(_Var(f"a{k}", kind))
            params.append(f"a{k}")
            sig.append(text)
        self.lines.append(f"def {name}({', '.join(params)}):")
        self.body(self.r.randint(2, 8))
        return self.lines, f"void({', '.join(sig)})"


SCALAR_SPEC = {"int": "int64", "float": "float64", "bool": "boolean", "complex": "complex128"}


def generate(seed):
    """A generated case: its module source, the kernel's name and signature,
    and (when the module has one) a device function's name and signature."""
    g = _Generator(random.Random(seed))
    chunks, device = [], None
    if g.chance(0.5):
        lines, kinds = g.device_function("dev_gen")
        chunks.append("\n".join(["@cuda.jit(device=True)"] + lines))
        device = ("dev_gen", "(" + ", ".join(SCALAR_SPEC[k] for k in kinds) + ",)")
    lines, sig = g.kernel("kernel")
    chunks.append("\n".join(lines))
    return {"id": f"gen-{seed}", "source": PRELUDE + "\n\n".join(chunks) + "\n", "entry": "kernel", "sig": sig,
            "device": device}


# --- mutated seed kernels ------------------------------------------------------------------------------

SEED_SIGNATURES = {
    "vector_add": "void(float32[::1], float32[::1], float32[::1])",
    "increment_a_2D_array": "void(float64[:, ::1])",
    "matmul": "void(float64[:, ::1], float64[:, ::1], float64[:, ::1])",
    "fast_matmul": "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
    "normalize": "void(float32[::1], float32[::1])",
    "weigh": "void(float32[::1], float32[::1], float32[::1])",
    "activate": "void(float32[::1], float32[::1])",
    "hypot": "(float32, float32)",
    "polar_to_cartesian": "(float64, float64)",
    "polar_distance": "void(float32[::1], float32[::1], float32[::1], float32[::1], float32[::1])",
    "block_sum": "void(int32[::1], int32[::1])",
    "histogram": "void(float64[::1], float64, float64, int64[::1])",
    "shared_histogram": "void(float64[::1], int32[::1])",
    "nan_compact": "void(float64[::1], float64[::1], int64[::1])",
    "compute_pi": "void(float64[::1], int64, float64[::1])",
    "gpu_round": "void(float64[::1], float64[::1], int64)",
    "add_1": "void(float64[::1])",
    "axpy": "void(float64[::1], float64, float64[::1], float64[::1])",
}

_BINOP_TYPES = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift,
                ast.BitOr, ast.BitXor, ast.BitAnd, ast.MatMult]
_CMP_TYPES = [ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn]
_UNARY_TYPES = [ast.UAdd, ast.USub, ast.Not, ast.Invert]
_CONSTANTS = [0, 1, -1, 2, 16, 255, 2**31, 2**63 - 1, 2**64, 0.0, -0.5, 1e308, float("inf"), True, False, None, 1j,
              "s", b"b", ...]
_ATTRS = ["x", "y", "z", "w", "shape", "size", "strides", "ndim", "grid", "gridsize", "syncthreads", "real",
          "dtype", "T", "add", "max", "array", "sqrt", "nope"]
_GLOBAL_NAMES = ["cuda", "math", "np", "TPB", "NBINS", "float32", "int32", "exp", "rint", "hypot",
                 "polar_to_cartesian", "vector_add", "print", "range", "len", "undefined_xyz", "True", "None"]


def _seed_functions():
    import seed_kernels

    out = {}
    for name, sig in SEED_SIGNATURES.items():
        disp = getattr(seed_kernels, name)
        tree = ast.parse(textwrap.dedent(inspect.getsource(disp.py_func)))
        fn = tree.body[0]
        fn.decorator_list = []
        out[name] = (fn, sig, disp.device, dict(debug=disp.targetoptions["debug"], opt=disp.targetoptions["opt"]))
    return out


def _bodies(fn):
    """Every statement list in ``fn`` (its body, and nested bodies)."""
    found = []
    for node in ast.walk(fn):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                found.append(stmts)
    return found


def _mutate_once(fn, r: random.Random):
    bodies = _bodies(fn)
    names = sorted({n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | {a.arg for a in fn.args.args})
    nodes = list(ast.walk(fn))
    kind = r.choice(["delete", "duplicate", "swap", "wrap", "name", "constant", "operator", "attribute",
                     "subexpr", "index"])
    if kind in ("delete", "duplicate", "swap", "wrap"):
        body = r.choice(bodies)
        k = r.randrange(len(body))
        if kind == "delete":
            del body[k]
            if not body:
                body.append(ast.Pass())
        elif kind == "duplicate":
            body.insert(r.randrange(len(body) + 1), copy.deepcopy(body[k]))
        elif kind == "swap":
            j = r.randrange(len(body))
            body[k], body[j] = body[j], body[k]
        else:
            wrapper = r.choice(["if cuda.threadIdx.x == 0:\n    pass", "for _q in range(2):\n    pass",
                                "while False:\n    pass"])
            node = ast.parse(wrapper).body[0]
            node.body = [body[k]]
            body[k] = node
        return kind
    if kind == "name":
        loads = [n for n in nodes if isinstance(n, ast.Name)]
        if loads:
            r.choice(loads).id = r.choice(names + _GLOBAL_NAMES)
        return kind
    if kind == "constant":
        consts = [n for n in nodes if isinstance(n, ast.Constant) and not isinstance(n.value, str)]
        if consts:
            r.choice(consts).value = r.choice(_CONSTANTS)
        return kind
    if kind == "operator":
        ops = [n for n in nodes if isinstance(n, (ast.BinOp, ast.AugAssign, ast.Compare, ast.BoolOp, ast.UnaryOp))]
        if ops:
            n = r.choice(ops)
            if isinstance(n, (ast.BinOp, ast.AugAssign)):
                n.op = r.choice(_BINOP_TYPES)()
            elif isinstance(n, ast.Compare):
                n.ops = [r.choice(_CMP_TYPES)() for _ in n.ops]
            elif isinstance(n, ast.BoolOp):
                n.op = ast.Or() if isinstance(n.op, ast.And) else ast.And()
            else:
                n.op = r.choice(_UNARY_TYPES)()
        return kind
    if kind == "attribute":
        attrs = [n for n in nodes if isinstance(n, ast.Attribute)]
        if attrs:
            r.choice(attrs).attr = r.choice(_ATTRS)
        return kind
    if kind == "subexpr":
        # Replace one expression by a copy of another of the function's.
        exprs = [n for n in nodes if isinstance(n, ast.expr) and not isinstance(n.ctx if hasattr(n, "ctx") else None,
                                                                                   (ast.Store, ast.Del))]
        if len(exprs) > 1:
            target, source = r.sample(exprs, 2)
            for parent in nodes:
                for field, value in ast.iter_fields(parent):
                    if value is target:
                        setattr(parent, field, copy.deepcopy(source))
                    elif isinstance(value, list):
                        for idx, item in enumerate(value):
                            if item is target:
                                value[idx] = copy.deepcopy(source)
        return kind
    subs = [n for n in nodes if isinstance(n, ast.Subscript)]
    if subs:
        s = r.choice(subs)
        s.slice = r.choice([ast.Tuple([copy.deepcopy(s.slice)] * 2, ast.Load()), ast.Slice(None, None, None),
                            ast.Constant(-1), ast.Constant(0.5), ast.Name("TPB", ast.Load())])
    return kind


def mutate(seed):
    """A mutated seed kernel: its source (run in seed_kernels' globals), name
    and signature."""
    r = random.Random(seed)
    seeds = _seed_functions()
    name = r.choice(sorted(seeds))
    fn, sig, device, options = seeds[name]
    fn = copy.deepcopy(fn)
    done = [_mutate_once(fn, r) for _ in range(r.randint(1, 3))]
    ast.fix_missing_locations(fn)
    source = ast.unparse(ast.Module(body=[fn], type_ignores=[])) + "\n"
    return {"id": f"mut-{seed}", "source": source, "entry": name, "sig": sig, "device": None,
            "is_device": device, "options": options, "globals": "seed_kernels", "mutations": done}


def edge(index):
    """A hand-picked edge case of fuzz_edge_cases.py (its PTX goes through
    ptxas three times as often as the others')."""
    import fuzz_edge_cases

    name, sig, source = fuzz_edge_cases.CASES[index]
    return {"id": f"edge-{index}", "name": name, "source": fuzz_edge_cases.EDGE_PRELUDE + source, "entry": "k",
            "sig": sig, "device": None, "ptxas": True}


def case(case_id):
    kind, seed = case_id.split("-")
    return {"gen": generate, "mut": mutate, "edge": edge}[kind](int(seed))


def case_ids(n_generated, n_mutated, base=0, edges=True):
    import fuzz_edge_cases

    ids = [f"gen-{base + k}" for k in range(n_generated)] + [f"mut-{base + k}" for k in range(n_mutated)]
    return ids + ([f"edge-{k}" for k in range(len(fuzz_edge_cases.CASES))] if edges else [])


# --- the worker (this file as a script) --------------------------------------------------------------------


def _classify(exc, path, n_lines):
    """'typing' for a TypingError that says where, else 'bad: ...'."""
    from cuforge import cuda

    if not isinstance(exc, cuda.TypingError):
        return f"bad: {type(exc).__module__}.{type(exc).__name__}: {exc}"
    if not exc.msg:
        return f"bad: TypingError without a message: {exc}"
    if exc.filename is None or exc.lineno is None:
        return f"bad: TypingError without a location: {exc}"
    if exc.filename == path:
        if not 1 <= exc.lineno <= n_lines:
            return f"bad: TypingError at line {exc.lineno}, outside the file ({n_lines} lines): {exc}"
        want = pathlib.Path(path).read_text().splitlines()[exc.lineno - 1].rstrip()
        if exc.source_line != want:
            return f"bad: TypingError's source line {exc.source_line!r} is not line {exc.lineno}: {want!r}"
    elif not exc.filename.endswith("seed_kernels.py") and pathlib.Path(exc.filename).parent != _EXAMPLES:
        return f"bad: TypingError points at another file {exc.filename}: {exc}"
    if "^" not in str(exc).splitlines()[-1]:
        return f"bad: TypingError without a caret: {exc}"
    return f"typing: {exc.msg}"


def _ptxas(ptx, tmp):
    path = os.path.join(tmp, "check.ptx")
    with open(path, "w") as f:
        f.write(ptx)
    p = subprocess.run([PTXAS, "-arch=sm_90", path, "-o", os.devnull], capture_output=True, text=True)
    return None if p.returncode == 0 else p.stderr.strip()


def _compile_case(c, tmp, check_ptxas):
    """{'ptx': outcome, 'cpu': outcome} of one case."""
    from cuforge import cuda

    path = os.path.join(tmp, c["id"].replace("-", "_") + ".py")
    with open(path, "w") as f:
        f.write(c["source"])
    if c.get("globals") == "seed_kernels":
        import seed_kernels

        namespace = dict(vars(seed_kernels))
        namespace["__name__"] = "fuzz_" + c["id"].replace("-", "_")
    else:
        namespace = {"__name__": "fuzz_" + c["id"].replace("-", "_")}
    try:
        code = compile(c["source"], path, "exec")
    except SyntaxError as e:
        return {"python": f"SyntaxError: {e}"}
    exec(code, namespace)  # noqa: S102
    n_lines = len(c["source"].splitlines())
    fn = namespace[c["entry"]]
    fn = getattr(fn, "py_func", fn)
    device = bool(c.get("is_device"))
    options = c.get("options", {})
    out = {}
    try:
        ptx, _ = cuda.compile_ptx(fn, c["sig"], device=device, cc=(9, 0), **options)
        out["ptx"] = "ok"
        if check_ptxas:
            err = _ptxas(ptx, tmp)
            if err:
                out["ptx"] = f"bad: ptxas refused the PTX: {err[:2000]}"
    except Exception as e:  # noqa: BLE001
        out["ptx"] = _classify(e, path, n_lines)
    try:
        cf = cuda.jit(device=device, **options)(fn).compile(c["sig"])
        if not device:
            cf.load()  # host code through the ORC JIT
        else:
            cf.llvm  # noqa: B018
        out["cpu"] = "ok"
    except Exception as e:  # noqa: BLE001
        out["cpu"] = _classify(e, path, n_lines)
    if c.get("device"):
        name, sig = c["device"]
        dev = namespace[name].py_func
        try:
            cuda.compile_ptx(dev, sig, device=True, cc=(9, 0))
            out["device_ptx"] = "ok"
        except Exception as e:  # noqa: BLE001
            out["device_ptx"] = _classify(e, path, n_lines)
    return out


def _worker(ids, check_every):
    """Compiles the cases, printing 'BEGIN id' before each and one JSON line
    after."""
    import warnings

    warnings.simplefilter("ignore")
    sys.path.insert(0, str(HERE))
    tmp = tempfile.mkdtemp(prefix="cuforge-fuzz-")
    compiled = 0
    try:
        for case_id in ids:
            print("BEGIN", case_id, flush=True)
            c = case(case_id)
            every = max(1, check_every // 3) if c.get("ptxas") else check_every
            check = os.path.exists(PTXAS) and bool(every) and compiled % every == 0
            result = _compile_case(c, tmp, check)
            if result.get("ptx") == "ok":
                compiled += 1
            print("RESULT", json.dumps({"id": case_id, **result}), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_batch(ids, check_every=PTXAS_EVERY, timeout=600):
    """Runs the cases in subprocesses; returns (results by id, crashes): a
    crash is (id, return code, stderr tail); the batch resumes after it."""
    results, crashes = {}, []
    todo = list(ids)
    env = dict(os.environ)
    package = str(pathlib.Path(__import__("cuforge").__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package, str(HERE), env.get("PYTHONPATH")]))
    while todo:
        with tempfile.TemporaryFile("w+") as idfile:
            idfile.write("\n".join(todo))
            idfile.seek(0)
            try:
                proc = subprocess.run([sys.executable, __file__, "--worker", str(check_every)], stdin=idfile,
                                      capture_output=True, text=True, env=env, timeout=timeout)
                stdout, rc, stderr = proc.stdout, proc.returncode, proc.stderr
            except subprocess.TimeoutExpired as e:
                stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
                rc, stderr = "timeout", ""
        begun = None
        for line in stdout.splitlines():
            if line.startswith("BEGIN "):
                begun = line.split()[1]
            elif line.startswith("RESULT "):
                r = json.loads(line[len("RESULT "):])
                results[r.pop("id")] = r
                begun = None
        if rc == 0:
            break
        if begun is None:  # died before or between cases: nothing to blame
            crashes.append(("<worker>", rc, stderr[-3000:]))
            break
        crashes.append((begun, rc, stderr[-3000:]))
        todo = todo[todo.index(begun) + 1:]
    return results, crashes


def _bad(results):
    bad = []
    for case_id, r in results.items():
        for target, outcome in r.items():
            if outcome.startswith("bad"):
                bad.append((case_id, target, outcome))
        outcomes = {r.get("ptx", "")[:6], r.get("cpu", "")[:6]}
        if "python" not in r and outcomes == {"ok", "typing"}:
            bad.append((case_id, "targets", f"the targets disagree: {r}"))
    return bad


def _describe(case_id, what):
    c = case(case_id)
    source = c["source"][len(PRELUDE):] if case_id.startswith("gen") else c["source"]
    return f"--- {case_id} {c.get('name', '')} ({c['entry']}{c['sig']}): {what}\n{source}"


def _n():
    return int(os.environ.get("CUFORGE_FUZZ_N", DEFAULT_N))


# --- the tests ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def batch():
    n = _n()
    ids = case_ids(n, n)
    results, crashes = run_batch(ids)
    return ids, results, crashes


def test_the_interpreter_never_crashes(batch):
    ids, results, crashes = batch
    assert not crashes, "\n\n".join(_describe(i, f"the worker died (return code {rc})\n{err}") if i != "<worker>"
                                    else f"the worker died outside a case (rc {rc}):\n{err}" for i, rc, err in crashes)
    assert set(results) == set(ids)


def test_every_case_compiles_or_raises_a_located_typing_error(batch):
    _, results, _ = batch
    bad = _bad(results)
    assert not bad, f"{len(bad)} cases failed:\n\n" + "\n\n".join(_describe(i, f"{t}: {o}") for i, t, o in bad[:10])


def test_the_batch_is_not_vacuous(batch):
    """Both outcomes occur often, for generated and for mutated functions, and
    Python itself accepts nearly every case."""
    _, results, _ = batch
    for prefix in ("gen", "mut", "edge"):
        mine = [r for i, r in results.items() if i.startswith(prefix)]
        ok = sum(r.get("ptx") == "ok" and r.get("cpu") == "ok" for r in mine)
        refused = sum(r.get("ptx", "").startswith("typing") for r in mine)
        syntax = sum("python" in r for r in mine)
        assert ok >= len(mine) // 5, (prefix, ok, len(mine))
        assert refused >= len(mine) // 10, (prefix, refused, len(mine))
        assert syntax <= len(mine) // 10, (prefix, syntax, len(mine))


def test_generation_is_deterministic():
    assert case("gen-7") == case("gen-7") and case("mut-7") == case("mut-7")
    assert case("gen-7")["source"] != case("gen-8")["source"]


def test_unmutated_seed_kernels_compile():
    """The mutants' starting points compile on both targets (so a refusal of
    a mutant is the mutation's doing)."""
    sys.path.insert(0, str(HERE))
    tmp = tempfile.mkdtemp(prefix="cuforge-fuzz-")
    try:
        for name, (fn, sig, device, options) in _seed_functions().items():
            source = ast.unparse(ast.Module(body=[fn], type_ignores=[])) + "\n"
            c = {"id": f"seed-{name}", "source": source, "entry": name, "sig": sig, "is_device": device,
                 "options": options, "globals": "seed_kernels"}
            got = _compile_case(c, tmp, check_ptxas=False)
            if name == "compute_pi":  # float64 states (a signature string cannot name the record type):
                # cuda.random's generator refuses them at the user's call, saying why
                assert got["ptx"].startswith("typing: cannot call xoroshiro128p_uniform_float32"), got
                assert got["cpu"] == got["ptx"], got
            else:
                assert got == {"ptx": "ok", "cpu": "ok"}, (name, got)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_crash_is_reported_with_its_case(monkeypatch, tmp_path):
    """The harness itself: a worker that aborts in a case is caught, names
    that case, and the batch goes on after it."""
    script = tmp_path / "fake_worker.py"
    script.write_text(textwrap.dedent("""
        import json, os, sys
        for case_id in sys.stdin.read().split():
            print("BEGIN", case_id, flush=True)
            if case_id == "gen-1":
                os.abort()
            print("RESULT", json.dumps({"id": case_id, "ptx": "ok", "cpu": "ok"}), flush=True)
    """))
    monkeypatch.setattr(sys.modules[__name__], "__file__", str(script))
    results, crashes = run_batch(["gen-0", "gen-1", "gen-2"])
    assert [(i, rc) for i, rc, _ in crashes] == [("gen-1", -6)]
    assert set(results) == {"gen-0", "gen-2"}


def test_bad_outcomes_are_caught():
    assert _bad({"gen-0": {"ptx": "ok", "cpu": "bad: RuntimeError: x"}}) == [("gen-0", "cpu", "bad: RuntimeError: x")]
    assert _bad({"gen-0": {"ptx": "ok", "cpu": "typing: x"}})[0][1] == "targets"
    assert _bad({"gen-0": {"ptx": "typing: x", "cpu": "typing: y"}}) == []


# --- a report over a big batch ----------------------------------------------------------------------------


def _report(n, base):
    ids = case_ids(n, n, base, edges=base == 0)
    results, crashes = run_batch(ids, check_every=1, timeout=3600)
    bad = _bad(results)
    counts = {}
    for r in results.values():
        key = (r.get("ptx", r.get("python", ""))[:20], r.get("cpu", "")[:20])
        counts[key] = counts.get(key, 0) + 1
    print(f"{len(ids)} cases, {len(results)} finished; outcomes (ptx, cpu): {counts}")
    for i, rc, err in crashes:
        print(_describe(i, f"CRASH rc={rc}\n{err}") if i != "<worker>" else f"worker died: {rc}\n{err}")
    for i, t, o in bad:
        print(_describe(i, f"{t}: {o}"))
    return 1 if crashes or bad else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker(sys.stdin.read().split(), int(sys.argv[2]))
    elif sys.argv[1:2] == ["--report"]:
        sys.exit(_report(int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0))
    elif sys.argv[1:2] == ["--show"]:
        for case_id in sys.argv[2:]:
            print(_describe(case_id, ""))
    else:
        print(__doc__)

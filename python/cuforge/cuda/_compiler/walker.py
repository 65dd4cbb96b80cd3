"""The Python front of the kernel compiler: a function's source to untyped IR.

The walker parses the function's source with ``ast`` (its bytecode only
where there is no source: bytecode.py rebuilds the tree from the code
object, and the walker walks that), and emits the IR of
frontend/include/cuforge/frontend/ir.hpp through ``_core.IRBuilder``, every
node with its (line, column) in the user's file. Each AST node type has one
method, found through one table (``_TABLE``); a construct the compiler does
not take maps to its description there and raises TypingError with a caret.

Python's sugar is taken out here (docs/compiler.md, "The IR"): ``elif``
nests; augmented assignment becomes assignment (a subscript target's object
and index are evaluated once, into temporaries); chained comparisons become
``and`` of pairs (middle operands into temporaries); ``for`` over
``range(...)`` is ``for_range``; over ``enumerate``, ``zip`` or an array it
is an index loop with assignments at the top of the body; a ``while`` whose
condition needs statements re-evaluates them every iteration.

Expressions that need statements (a temporary for a chained comparison)
emit them into the current block before the statement that uses them; in
short-circuit positions (the right of ``and``/``or``, the arms of ``x if c
else y``, later links of a chain) those statements are guarded by an ``if``
so that they run only when Python would evaluate them.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import linecache
import os
import textwrap
import threading
import weakref

import numpy

from cuforge import _core
from cuforge.cuda._compiler import bytecode as _bytecode
from cuforge.cuda._compiler import resolve as _resolve
from cuforge.cuda import _errors
from cuforge.cuda._errors import TypingError

__all__ = ["build_ir", "build_ir_and_fingerprint"]

_NO = _core.NO_ID

_BINOPS = {
    ast.Add: _core.BinOp.add,
    ast.Sub: _core.BinOp.sub,
    ast.Mult: _core.BinOp.mul,
    ast.Div: _core.BinOp.truediv,
    ast.FloorDiv: _core.BinOp.floordiv,
    ast.Mod: _core.BinOp.mod,
    ast.Pow: _core.BinOp.pow,
    ast.LShift: _core.BinOp.lshift,
    ast.RShift: _core.BinOp.rshift,
    ast.BitOr: _core.BinOp.bitor,
    ast.BitXor: _core.BinOp.bitxor,
    ast.BitAnd: _core.BinOp.bitand,
    ast.MatMult: _core.BinOp.matmul,
}
_UNOPS = {
    ast.USub: _core.UnaryOp.neg,
    ast.UAdd: _core.UnaryOp.pos,
    ast.Invert: _core.UnaryOp.invert,
    ast.Not: _core.UnaryOp.not_,
}
_CMPOPS = {
    ast.Eq: _core.CmpOp.eq,
    ast.NotEq: _core.CmpOp.ne,
    ast.Lt: _core.CmpOp.lt,
    ast.LtE: _core.CmpOp.le,
    ast.Gt: _core.CmpOp.gt,
    ast.GtE: _core.CmpOp.ge,
    ast.Is: _core.CmpOp.is_,
    ast.IsNot: _core.CmpOp.is_not,
    ast.In: _core.CmpOp.in_,
    ast.NotIn: _core.CmpOp.not_in,
}


_INT_BINOPS = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y, ast.Mult: lambda x, y: x * y,
               ast.FloorDiv: lambda x, y: x // y, ast.Mod: lambda x, y: x % y, ast.Pow: lambda x, y: x**y,
               ast.LShift: lambda x, y: x << y, ast.RShift: lambda x, y: x >> y, ast.BitOr: lambda x, y: x | y,
               ast.BitXor: lambda x, y: x ^ y, ast.BitAnd: lambda x, y: x & y}
_INT_UNOPS = {ast.USub: lambda x: -x, ast.UAdd: lambda x: x, ast.Invert: lambda x: ~x}


def _field_key(node):
    """The field name of ``r['name']`` (a subscript by a string constant), else None."""
    sl = node.slice
    if isinstance(sl, ast.Constant) and isinstance(sl.value, str):
        return sl.value
    return None


def _as_tuple(node):
    """A list display, and the lists nested in it, as tuple displays (numpy.array's
    row takes the nesting as tuples). A constant list's elements, which CPython's
    bytecode keeps as one constant tuple spread into the list, are put back one
    by one."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return node
    elts = []
    for e in node.elts:
        if isinstance(e, ast.Starred) and isinstance(e.value, ast.Constant) and isinstance(e.value.value, tuple):
            elts += [ast.copy_location(ast.Constant(value=v), e) for v in e.value.value]
        elif isinstance(e, ast.Starred) and isinstance(e.value, ast.Tuple) and all(
                isinstance(x, ast.Constant) for x in e.value.elts):
            elts += e.value.elts  # (the bytecode front's constant tuple)
        else:
            elts.append(_as_tuple(e))
    return ast.copy_location(ast.Tuple(elts=elts, ctx=ast.Load()), node)


def _int_literal_tree(node):
    """(value, leaves int64) of an expression of Python int literals only,
    else None; OverflowError where the value is too large to compute (it is
    beyond 64 bits). Where Python raises (a zero divisor, a negative shift)
    or gives a float (a negative power) it is None: the typer decides."""
    def outside(v):
        return not -(2**63) <= v < 2**63

    if isinstance(node, ast.Constant):
        return (node.value, outside(node.value)) if type(node.value) is int else None
    if isinstance(node, ast.UnaryOp) and type(node.op) in _INT_UNOPS:
        inner = _int_literal_tree(node.operand)
        if inner is None:
            return None
        v = _INT_UNOPS[type(node.op)](inner[0])
        return v, inner[1] or outside(v)
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_BINOPS:
        left = _int_literal_tree(node.left)
        right = _int_literal_tree(node.right) if left is not None else None
        if right is None:
            return None
        x, y = left[0], right[0]
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and y == 0:
            return None
        if isinstance(node.op, (ast.Pow, ast.LShift, ast.RShift)) and y < 0:
            return None
        if y > 128 and ((isinstance(node.op, ast.Pow) and x not in (0, 1, -1))
                        or (isinstance(node.op, ast.LShift) and x != 0)):
            raise OverflowError
        v = _INT_BINOPS[type(node.op)](x, y)
        return v, left[1] or right[1] or outside(v)
    return None


def _uint64_ints(entry):
    """A global's entry with its ints beyond int64 typed uint64: the IR keeps
    Python ints in int64, so only uint64 holds those (Numba's type for them)."""
    if entry["kind"] == "tuple":
        return dict(entry, elements=[_uint64_ints(e) for e in entry["elements"]])
    v = entry.get("value")
    if entry["kind"] == "constant" and type(v) is int and v >= 2**63 and "typestr" not in entry:
        return dict(entry, typestr="<u8")
    return entry


class _Unsupported:
    """A table entry for a construct kernels cannot contain."""

    def __init__(self, what, hint=""):
        self.what = what
        self.hint = hint

    def message(self):
        return f"Unsupported: {self.what}" + (f" ({self.hint})" if self.hint else "")


def _node(name):
    return getattr(ast, name, None)  # constructs of newer Pythons (Match, TryStar, TypeAlias)


# The one dispatch table: node type -> visitor method name, or why it is refused.
_TABLE = {
    # statements
    ast.Expr: "stmt_expr",
    ast.Assign: "stmt_assign",
    ast.AugAssign: "stmt_augassign",
    ast.AnnAssign: "stmt_annassign",
    ast.If: "stmt_if",
    ast.While: "stmt_while",
    ast.For: "stmt_for",
    ast.Break: "stmt_break",
    ast.Continue: "stmt_continue",
    ast.Return: "stmt_return",
    ast.Pass: "stmt_pass",
    ast.Raise: "stmt_raise",
    ast.Assert: "stmt_assert",
    ast.Try: _Unsupported("try/except/finally", "kernels cannot catch exceptions"),
    _node("TryStar"): _Unsupported("try/except*/finally", "kernels cannot catch exceptions"),
    ast.With: _Unsupported("with statements"),
    ast.AsyncWith: _Unsupported("async with"),
    ast.AsyncFor: _Unsupported("async for"),
    ast.FunctionDef: _Unsupported("nested functions", "define device functions at module level with "
                                  "@cuda.jit(device=True)"),
    ast.AsyncFunctionDef: _Unsupported("async def"),
    ast.ClassDef: _Unsupported("class definitions"),
    ast.Global: _Unsupported("global statements", "kernels cannot assign module globals"),
    ast.Nonlocal: _Unsupported("nonlocal statements"),
    ast.Delete: _Unsupported("del"),
    ast.Import: _Unsupported("import in a kernel", "import at module level"),
    ast.ImportFrom: _Unsupported("import in a kernel", "import at module level"),
    _node("Match"): _Unsupported("match statements"),
    _node("TypeAlias"): _Unsupported("type aliases"),
    # expressions
    ast.Constant: "expr_constant",
    ast.Name: "expr_name",
    ast.Attribute: "expr_attribute",
    ast.Subscript: "expr_subscript",
    ast.Slice: "expr_slice",
    ast.Tuple: "expr_tuple",
    ast.BinOp: "expr_binop",
    ast.UnaryOp: "expr_unaryop",
    ast.BoolOp: "expr_boolop",
    ast.Compare: "expr_compare",
    ast.IfExp: "expr_ifexp",
    ast.Call: "expr_call",
    ast.List: _Unsupported("lists", "use a tuple, or cuda.local.array for an array"),
    ast.Dict: _Unsupported("dicts"),
    ast.Set: _Unsupported("sets"),
    ast.ListComp: _Unsupported("list comprehensions"),
    ast.SetComp: _Unsupported("set comprehensions"),
    ast.DictComp: _Unsupported("dict comprehensions"),
    ast.GeneratorExp: _Unsupported("generator expressions"),
    ast.Lambda: _Unsupported("lambda", "define a device function with @cuda.jit(device=True)"),
    ast.NamedExpr: _Unsupported("assignment expressions (:=)", "assign in a statement of its own"),
    ast.JoinedStr: _Unsupported("f-strings", "strings are not supported in kernels"),
    ast.FormattedValue: _Unsupported("f-strings", "strings are not supported in kernels"),
    ast.Yield: _Unsupported("yield", "kernels are not generators"),
    ast.YieldFrom: _Unsupported("yield from", "kernels are not generators"),
    ast.Await: _Unsupported("await"),
    ast.Starred: _Unsupported("star arguments and starred assignment (*x)"),
}
_TABLE.pop(None, None)

_SIMPLE = (ast.Name, ast.Constant)


def _is_simple(node):
    """A name or a literal: evaluating it twice costs nothing and changes nothing."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, _SIMPLE)


def _first_stores(nodes):
    """The names assigned anywhere in ``nodes`` (Python's rule for locals),
    each with the node of its first assignment, in source order."""
    found = {}
    for top in nodes:
        for n in ast.walk(top):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                if n.id not in found or (n.lineno, n.col_offset) < (found[n.id].lineno, found[n.id].col_offset):
                    found[n.id] = n
    return dict(sorted(found.items(), key=lambda kv: (kv[1].lineno, kv[1].col_offset)))


def _frontend():
    """Which front reads functions (CUFORGE_FRONTEND): "source" (the
    default: the bytecode only where there is no source), "bytecode" (always
    the bytecode), or "compare" (as "source", and each compile is made again
    from the bytecode and compared: jit's _compare_frontends)."""
    mode = os.environ.get("CUFORGE_FRONTEND", "").strip().lower()
    return mode if mode in ("bytecode", "compare") else "source"


def _is_prange(value):
    """Whether ``value`` is ``prange`` (cuforge's, or numba's, which a
    function written for numba may name)."""
    return callable(value) and getattr(value, "__name__", None) == "prange" and \
        getattr(value, "__module__", "").split(".")[0] in ("cuforge", "numba")


class _Source:
    """A function's source, parsed, with the map from the parsed text's
    positions to the file's."""

    def __init__(self, pyfunc, bytecode=False):
        code = pyfunc.__code__
        self.qualname = getattr(pyfunc, "__qualname__", code.co_name)
        self.filename = code.co_filename
        self.file_lines = linecache.getlines(self.filename, pyfunc.__globals__)
        self.frontend = "source"
        if bytecode or _frontend() == "bytecode":
            self._from_bytecode(pyfunc, keep_lines=True)
            return
        if code.co_name == "<lambda>":
            # Found by its position on its line; several alike on one line
            # without columns (Python 3.10), or no source: its bytecode.
            if not self._from_lambda(pyfunc):
                self._from_bytecode(pyfunc)
            return
        carried = getattr(pyfunc, "__cuforge_source__", None)
        try:
            if carried is not None:
                # Sent with a pickled kernel (Dispatcher.__reduce__) to a process
                # that cannot read it: cloudpickle rebuilds functions without a file.
                self.filename, first, lines = carried[0], carried[1], list(carried[2])
                self.file_lines = []
            else:
                lines, first = inspect.getsourcelines(pyfunc)
        except (OSError, TypeError):
            # exec'd or generated, `python -c`, standard input: no source, so its code object.
            self._from_bytecode(pyfunc)
            return
        if first == 0:  # a module's source (getsourcelines of a code object at top level)
            first = 1
        self.text = "".join(lines)
        if not self.file_lines or self.file_lines[first - 1:first - 1 + len(lines)] != lines:
            # The source came from elsewhere (exec with a linecache entry): keep what we have.
            self.file_lines = [""] * (first - 1) + list(lines)
        dedented = textwrap.dedent(self.text)
        self.indent = len(lines[0]) - len(dedented.splitlines(True)[0]) if dedented else 0
        self.line_offset = first - 1
        try:
            tree = ast.parse(dedented)
        except SyntaxError:
            # A line less indented than the def (in a multi-line string)
            # defeats dedent: parse inside a block instead, columns as in the file.
            tree = ast.parse("if 1:\n" + self.text)
            tree = ast.Module(body=tree.body[0].body, type_ignores=[])
            dedented = "\n" + self.text
            self.indent = 0
            self.line_offset = first - 2
        self.parsed_lines = dedented.splitlines()
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not defs or defs[0].name != code.co_name:
            # The lines Python found are not this function's (exec'd code
            # naming a file that holds something else): its code object.
            self._from_bytecode(pyfunc)
            return
        self.tree = defs[0]
        if isinstance(self.tree, ast.AsyncFunctionDef):
            line = self.tree.lineno + self.line_offset
            raise TypingError(_TABLE[ast.AsyncFunctionDef].message(), self.filename, line,
                              self.tree.col_offset + self.indent, self.line(line), self.qualname)

    def _from_bytecode(self, pyfunc, keep_lines=False):
        """The tree of a function without source, rebuilt from its code
        object (bytecode.py); lines and columns are the code object's, and
        errors name the line without showing it. ``keep_lines``: the source
        exists (CUFORGE_FRONTEND=bytecode), so errors may show it."""
        code = pyfunc.__code__
        self.frontend = "bytecode"
        self.filename = code.co_filename
        if not keep_lines:
            self.file_lines = []
        try:
            self.tree = _bytecode.decompile(pyfunc)
        except _bytecode.DecompileError as e:
            line = e.lineno or code.co_firstlineno
            handler = _TABLE.get(e.construct) if e.construct is not None else None
            message = handler.message() if isinstance(handler, _Unsupported) else e.message
            raise TypingError(f"{message} (in {self.qualname}, read from its bytecode: Python cannot find its "
                              "source)", self.filename, line, 0, self.line(line), self.qualname) from None
        self.text = "bytecode " + _bytecode.code_digest(code)
        self.indent = 0
        self.line_offset = 0
        self.parsed_lines = [x.rstrip("\r\n") for x in self.file_lines]

    def _from_lambda(self, pyfunc):
        """A lambda (cuda.reduce(lambda a, b: a + b)): the lambda expression
        found in the statement holding its first line, walked as ``def
        <lambda>(params): return body``. False when the source does not
        single it out (the caller refuses it)."""
        code = pyfunc.__code__
        first = code.co_firstlineno
        if not self.file_lines or first > len(self.file_lines):
            return False
        params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
        # (line, end line, column, end column) of each instruction; RESUME and RETURN have no columns
        positions = code.co_positions() if hasattr(code, "co_positions") else ()  # columns from Python 3.11
        pos = [p for p in positions if p[0] is not None and p[2] is not None and p[3]]
        for start in range(first, max(first - 30, 1) - 1, -1):  # the statement may begin lines before
            for last in range(first, min(first + 40, len(self.file_lines)) + 1):
                lines = self.file_lines[start - 1:last]
                indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
                dedented = "".join(x[indent:] if x.strip() else x.lstrip(" \t") for x in lines)
                try:
                    tree = ast.parse(dedented)
                except SyntaxError:
                    continue
                found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno + start - 1 == first
                         and [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == params]
                if len(found) > 1 and pos:  # several alike: the one whose body holds the code's first position
                    line, col = pos[0][0] - start + 1, pos[0][2] - indent
                    found = [n for n in found if (n.body.lineno, n.body.col_offset) <= (line, col)
                             <= (n.body.end_lineno, n.body.end_col_offset)]
                if not found:
                    continue
                if len(found) > 1:
                    return False
                lam = found[0]
                fn = ast.FunctionDef(name=code.co_name, args=lam.args, body=[ast.Return(value=lam.body)],
                                     decorator_list=[], returns=None, type_comment=None, type_params=[])
                ast.copy_location(fn, lam)
                ast.copy_location(fn.body[0], lam.body)
                ast.fix_missing_locations(fn)
                self.text = "".join(lines)
                self.indent = indent
                self.line_offset = start - 1
                self.parsed_lines = dedented.splitlines()
                self.tree = fn
                return True
        return False

    def line(self, lineno):
        if 0 < lineno <= len(self.file_lines):
            return self.file_lines[lineno - 1].rstrip("\r\n")
        return None

    def loc(self, node):
        """(line, column) of ``node`` in the file (columns in characters)."""
        col = node.col_offset
        if 0 < node.lineno <= len(self.parsed_lines):
            text = self.parsed_lines[node.lineno - 1]
            if not text.isascii():  # ast columns count UTF-8 bytes
                col = len(text.encode()[:col].decode(errors="ignore"))
        return node.lineno + self.line_offset, col + self.indent


class _Walker:
    """Builds one function's IR."""

    def __init__(self, pyfunc, device_ir, bytecode=False, transform=None):
        self.pyfunc = pyfunc
        self.src = _Source(pyfunc, bytecode)
        if transform is not None:  # (comparing the fronts: canonical.py)
            self.src.tree = transform(self.src.tree)
        self.device_ir = device_ir
        code = pyfunc.__code__
        self.cells = dict(zip(code.co_freevars, pyfunc.__closure__ or ()))
        self.func_globals = pyfunc.__globals__
        self.fn = self.src.tree
        def_line, _ = self.src.loc(self.fn)
        self.b = _core.IRBuilder(pyfunc.__name__, self.src.qualname, self.src.filename, def_line)
        self.out = []          # the statements of the block being built
        self.vars = {}         # Python name -> var id
        self.locals = set()
        self.global_by_key = {}  # path or canonical name -> global id
        self.global_texts = []   # "path = what it resolved to", for the fingerprint

    # --- diagnostics and helpers ---------------------------------------------------

    def error(self, node, message):
        line, col = self.src.loc(node)
        raise TypingError(message, self.src.filename, line, col, self.src.line(line), self.src.qualname)

    def at(self, node):
        return self.src.loc(node)

    def too_deep(self):
        """The error for a function nested deeper than Python's recursion
        limit lets the walker go: at the statement holding the deepest node
        (found without recursing)."""
        deepest, depth, todo = self.fn, -1, [(self.fn, 0, self.fn)]
        while todo:
            node, d, stmt = todo.pop()
            stmt = node if isinstance(node, ast.stmt) else stmt
            if d > depth:
                deepest, depth = stmt, d
            todo.extend((child, d + 1, stmt) for child in ast.iter_child_nodes(node))
        self.error(deepest, f"Unsupported: code nested {depth} levels deep (more than the compiler's recursion "
                            "limit allows): split the expression with temporary variables")

    def visit(self, node):
        handler = _TABLE.get(type(node))
        if handler is None:
            self.error(node, f"Unsupported: {type(node).__name__}")
        if isinstance(handler, _Unsupported):
            self.error(node, handler.message())
        return getattr(self, handler)(node)

    def emit(self, stmt):
        self.out.append(stmt)

    def block(self, stmts):
        """The ids of the statements ``stmts`` make (a block of their own)."""
        saved, self.out = self.out, []
        try:
            for s in stmts:
                self.visit(s)
            return self.out
        finally:
            self.out = saved

    def sub(self, fn, *args):
        """(fn(*args), the statements it emitted): for expressions Python may
        not evaluate (short-circuit operands, conditional arms)."""
        saved, self.out = self.out, []
        try:
            return fn(*args), self.out
        finally:
            self.out = saved

    def temp(self, node):
        return self.b.variable("", *self.at(node))

    def name_of(self, var, node):
        return self.b.name(var, *self.at(node))

    def to_temp(self, value, node):
        """A factory for reads of a temporary now assigned ``value``."""
        t = self.temp(node)
        self.emit(self.b.assign(self.name_of(t, node), value, *self.at(node)))
        return lambda: self.name_of(t, node)

    def reusable(self, node):
        """A factory making ``node``'s value again: itself for names and
        literals, else a temporary evaluated once, now."""
        if _is_simple(node):
            return lambda: self.visit(node)
        return self.to_temp(self.visit(node), node)

    def constant(self, value, node):
        if type(value) is int and 2**63 <= value < 2**64:
            # The IR keeps Python ints in int64: one only uint64 holds is a uint64 (Numba's type for it).
            return self.b.typed_constant(value, "<u8", *self.at(node))
        return self.b.constant(value, True, *self.at(node))

    # --- names and globals ----------------------------------------------------------

    def variable(self, name, node):
        v = self.vars.get(name)
        if v is None:
            v = self.vars[name] = self.b.variable(name, *self.at(node))
        return v

    def lookup(self, name):
        """(found, value) of a non-local name: closure cells, globals, builtins."""
        cell = self.cells.get(name)
        if cell is not None:
            try:
                return True, cell.cell_contents
            except ValueError:  # an empty cell: assigned later in the enclosing function
                return False, None
        if name in self.func_globals:
            return True, self.func_globals[name]
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None

    def is_builtin_call(self, node, fn):
        """Whether ``node`` calls the builtin ``fn`` (range, enumerate, zip) by its name."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.func.id in self.locals:
            return False
        found, value = self.lookup(node.func.id)
        if found and fn is range and value is not range:
            return _is_prange(value)  # numba's prange (ours or numba's) is a range here
        return found and value is fn

    def global_expr(self, path, value, node):
        """A reference to the global ``path`` (holding ``value``), resolved once."""
        if path in self.global_by_key:
            return self.b.global_ref(self.global_by_key[path], *self.at(node))
        return self.resolved_expr(path, _resolve.resolve(path, value, self.device_ir), node)

    def resolved_expr(self, path, res, node):
        """A reference to the global ``path``, which resolved to ``res``."""
        gid = self.global_by_key.get(path)
        if gid is None:
            if res.cuda_path is not None:  # grid, threadIdx...: cuda.<path>
                e = self.global_expr("cuforge.cuda", self._cuda_module(), node)
                for attr in res.cuda_path:
                    e = self.b.attribute(e, attr, *self.at(node))
                return e
            canonical = f"{res.kind}:{res.entry['name']}" if res.kind in ("module", "function") else None
            gid = self.global_by_key.get(canonical) if canonical else None
            if gid is None:
                gid = self.b.global_(_uint64_ints(res.entry))
                self.global_texts.append(f"{path} = {res.text}")
                if canonical:
                    self.global_by_key[canonical] = gid
            self.global_by_key[path] = gid
        return self.b.global_ref(gid, *self.at(node))

    def builtin(self, name, node):
        """A reference to a builtin the desugaring uses (len, min)."""
        return self.global_expr(f"builtins.{name}", getattr(builtins, name), node)

    def internal(self, name, node):
        """A reference to a function only the desugaring calls (the typer's
        ``builtins.__range_len__``, say): no Python object stands for it."""
        path = f"builtins.{name}"
        gid = self.global_by_key.get(path)
        if gid is None:
            gid = self.b.global_(_uint64_ints({"kind": "function", "name": path}))
            self.global_texts.append(f"{path} = internal function")
            self.global_by_key[path] = gid
        return self.b.global_ref(gid, *self.at(node))

    @staticmethod
    def _cuda_module():
        import cuforge.cuda

        return cuforge.cuda

    def folded(self, node):
        """(path, value) when ``node`` is a name or an attribute chain the
        compiler reads now (a global, or an attribute of an opaque global);
        None otherwise."""
        if isinstance(node, ast.Name):
            if node.id in self.locals:
                return None
            found, value = self.lookup(node.id)
            return (node.id, value) if found else None
        if isinstance(node, ast.Attribute):
            base = self.folded(node.value)
            if base is None or not _resolve.foldable(base[1]):
                return None
            path, obj = base
            try:
                value = getattr(obj, node.attr)
            except AttributeError:
                self.error(node, f"{path} ({type(obj).__name__}) has no attribute {node.attr!r}")
            return f"{path}.{node.attr}", value
        return None

    # --- the function -----------------------------------------------------------------

    def build(self):
        fn = self.fn
        args = fn.args
        if args.kwarg:
            self.error(args.kwarg, "Unsupported: keyword arguments collected with **kwargs")
        if args.kwonlyargs:
            self.error(args.kwonlyargs[0], "Unsupported: keyword-only arguments")
        for d in args.defaults:  # a call that omits the argument passes the value (expr_call)
            if not _default_constant(d):
                self.error(d, "Unsupported: a default argument value that is not a number, a bool or None")
        params = list(args.posonlyargs) + list(args.args) + ([args.vararg] if args.vararg else [])
        for a in params:
            self.vars[a.arg] = self.b.param(a.arg, *self.at(a))
        if args.vararg:  # *rest: the extra positional arguments, as a tuple
            self.b.set_varargs()
        self.locals = {a.arg for a in params}
        # Variables made in order of first assignment, where they are first assigned.
        for name, node in _first_stores(fn.body).items():
            self.locals.add(name)
            self.variable(name, node)
        body = self.block(fn.body)
        self.b.set_body(body)
        self.b.set_source(list(self.src.file_lines))
        fingerprint = "source:\n" + self.src.text + "\nglobals:\n" + "\n".join(self.global_texts)
        self.b.set_fingerprint(fingerprint)
        return self.b.finish(), fingerprint

    # --- statements ---------------------------------------------------------------------

    def stmt_expr(self, node):
        v = node.value
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return  # a docstring, or a string used as a comment
        if isinstance(v, ast.Constant) and v.value is Ellipsis:
            self.emit(self.b.pass_(*self.at(node)))
            return
        self.emit(self.b.expression(self.visit(v), *self.at(node)))

    def target(self, node):
        """The IR of an assignment target."""
        if isinstance(node, ast.Name):
            return self.name_of(self.variable(node.id, node), node)
        if isinstance(node, ast.Subscript):
            key = _field_key(node)
            if key is not None:
                return self.b.attribute(self.visit(node.value), key, *self.at(node))
            return self.b.subscript(self.visit(node.value), self.visit(node.slice), *self.at(node))
        if isinstance(node, (ast.Tuple, ast.List)):
            return self.b.tuple([self.target(e) for e in node.elts], *self.at(node))
        if isinstance(node, ast.Attribute):
            # A record's field (the typer refuses other attributes).
            return self.b.attribute(self.visit(node.value), node.attr, *self.at(node))
        if isinstance(node, ast.Starred):
            self.error(node, "Unsupported: starred assignment (a, *b = ...)")
        self.error(node, f"Unsupported: assignment to {type(node).__name__}")

    def stmt_assign(self, node):
        if len(node.targets) == 1:
            value = self.visit(node.value)
            self.emit(self.b.assign(self.target(node.targets[0]), value, *self.at(node)))
            return
        # a = b = value: the value once, each target in turn (left to right).
        value = self.reusable(node.value)
        for t in node.targets:
            self.emit(self.b.assign(self.target(t), value(), *self.at(t)))

    def stmt_annassign(self, node):
        if node.value is None:
            return  # `x: float32` alone declares nothing at run time
        value = self.visit(node.value)
        self.emit(self.b.assign(self.target(node.target), value, *self.at(node)))

    def index_factory(self, node):
        """A factory for an index evaluated once: names, literals and bounds
        of slices are re-read, anything else goes into a temporary."""
        if isinstance(node, ast.Tuple):
            parts = [self.index_factory(e) for e in node.elts]
            return lambda: self.b.tuple([p() for p in parts], *self.at(node))
        if isinstance(node, ast.Slice):
            bounds = [None if b is None else self.reusable(b) for b in (node.lower, node.upper, node.step)]
            return lambda: self.b.slice(*[_NO if f is None else f() for f in bounds], *self.at(node))
        return self.reusable(node)

    def stmt_augassign(self, node):
        op = _BINOPS[type(node.op)]
        t = node.target
        if isinstance(t, ast.Name):
            v = self.variable(t.id, t)
            value = self.visit(node.value)
            # In place: an array is updated (numba's a += b), a number rebound.
            result = self.b.binary(op, self.name_of(v, t), value, *self.at(node), True)  # (inplace)
            self.emit(self.b.assign(self.name_of(v, t), result, *self.at(node)))
        elif isinstance(t, ast.Attribute) or (isinstance(t, ast.Subscript) and _field_key(t) is not None):
            # A record's field: r.f += v, r['f'] += v.
            obj = self.reusable(t.value)
            name = t.attr if isinstance(t, ast.Attribute) else _field_key(t)
            value = self.visit(node.value)
            result = self.b.binary(op, self.b.attribute(obj(), name, *self.at(t)), value, *self.at(node))
            self.emit(self.b.assign(self.b.attribute(obj(), name, *self.at(t)), result, *self.at(node)))
        elif isinstance(t, ast.Subscript):
            obj = self.reusable(t.value)
            index = self.index_factory(t.slice)
            value = self.visit(node.value)
            load = self.b.subscript(obj(), index(), *self.at(t))
            result = self.b.binary(op, load, value, *self.at(node))
            self.emit(self.b.assign(self.b.subscript(obj(), index(), *self.at(t)), result, *self.at(node)))
        else:
            self.target(t)  # raises with the reason

    def stmt_if(self, node):
        cond = self.visit(node.test)
        body = self.block(node.body)
        orelse = self.block(node.orelse)  # elif: an if inside the else block
        self.emit(self.b.if_(cond, body, orelse, *self.at(node)))

    def stmt_while(self, node):
        cond, pre = self.sub(self.visit, node.test)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
        at = self.at(node)
        if not pre:
            self.emit(self.b.while_(cond, body, orelse, *at))
            return
        # The condition needs statements: run them every iteration.
        #   while True: <pre>; if not cond: [done = True;] break; <body>
        done = self.temp(node) if orelse else None
        leave = [self.b.break_(*at)]
        if done is not None:
            self.emit(self.b.assign(self.name_of(done, node), self.constant(False, node), *at))
            leave.insert(0, self.b.assign(self.name_of(done, node), self.constant(True, node), *at))
        exit_if = self.b.if_(self.b.unary(_core.UnaryOp.not_, cond, *at), leave, [], *at)
        self.emit(self.b.while_(self.constant(True, node), pre + [exit_if] + body, [], *at))
        if done is not None:
            self.emit(self.b.if_(self.name_of(done, node), orelse, [], *at))

    def stmt_for(self, node):
        if self.is_builtin_call(node.iter, range):
            self.for_range(node)
        else:
            self.for_each(node)

    def loop_variable(self, target, body):
        """(var, assignment to make at the top of the body or None): the
        target itself when it is a name the body does not assign (so the
        loop counts in it), else a hidden counter copied into the target."""
        if isinstance(target, ast.Name) and target.id not in _first_stores(body):
            return self.variable(target.id, target), None
        return self.temp(target), target

    def range_arguments(self, call):
        """The (start, stop, step) nodes of a ``range(...)`` call, checked;
        None where the default (0, 1) applies."""
        if call.keywords:
            self.error(call.keywords[0].value, "range() takes no keyword arguments")
        args = call.args
        if not 1 <= len(args) <= 3 or any(isinstance(a, ast.Starred) for a in args):
            self.error(call, f"range expected 1 to 3 arguments, got {len(args)}")
        if len(args) == 1:
            return None, args[0], None
        return args[0], args[1], args[2] if len(args) == 3 else None

    def for_range(self, node):
        call = node.iter
        start_node, stop_node, step_node = self.range_arguments(call)
        start = self.constant(0, call) if start_node is None else self.visit(start_node)
        stop = self.visit(stop_node)
        step = self.constant(1, call) if step_node is None else self.visit(step_node)
        var, copy_to = self.loop_variable(node.target, node.body)

        def body():
            if copy_to is not None:
                self.emit(self.b.assign(self.target(copy_to), self.name_of(var, copy_to), *self.at(copy_to)))
            for s in node.body:
                self.visit(s)

        _, body_ids = self.sub(body)
        orelse = self.block(node.orelse)
        self.emit(self.b.for_range(var, start, stop, step, body_ids, orelse, *self.at(node)))

    def for_each(self, node):
        """for target in <enumerate/zip/array>: an index loop over its length."""
        source = self.iteration_source(node.iter)
        index = self.temp(node.target)
        length = source.length()

        def body():
            self.assign_element(node.target, source.element(lambda: self.name_of(index, node.target)))
            for s in node.body:
                self.visit(s)

        _, body_ids = self.sub(body)
        orelse = self.block(node.orelse)
        at = self.at(node)
        self.emit(self.b.for_range(index, self.constant(0, node.iter), length, self.constant(1, node.iter),
                                   body_ids, orelse, *at))

    def iteration_source(self, node):
        if self.is_builtin_call(node, enumerate):
            return _Enumerate(self, node)
        if self.is_builtin_call(node, zip):
            return _Zip(self, node)
        if self.is_builtin_call(node, range):
            return _Range(self, node)
        return _Sequence(self, node)

    def assign_element(self, target, element):
        """Assigns an element of an iteration (an expression factory, or a
        tuple of elements for enumerate/zip) to a loop target, unpacking
        tuples of targets pairwise."""
        kind, payload = element
        if isinstance(target, (ast.Tuple, ast.List)) and kind == "tuple":
            if len(target.elts) != len(payload):
                self.error(target, f"cannot unpack {len(payload)} values into {len(target.elts)} targets")
            for t, e in zip(target.elts, payload):
                self.assign_element(t, e)
            return
        self.emit(self.b.assign(self.target(target), self.materialize(element, target), *self.at(target)))

    def materialize(self, element, node):
        kind, payload = element
        if kind == "expr":
            return payload()
        return self.b.tuple([self.materialize(e, node) for e in payload], *self.at(node))

    def stmt_break(self, node):
        self.emit(self.b.break_(*self.at(node)))

    def stmt_continue(self, node):
        self.emit(self.b.continue_(*self.at(node)))

    def stmt_pass(self, node):
        self.emit(self.b.pass_(*self.at(node)))

    def stmt_return(self, node):
        value = _NO if node.value is None else self.visit(node.value)
        self.emit(self.b.return_(value, *self.at(node)))

    def stmt_raise(self, node):
        # What is raised is resolved here, at compile time, as Numba does:
        # an exception class (or a call of one with constant arguments). A
        # kernel reports it under debug=True; the launcher raises it.
        if node.exc is None:
            self.error(node, "Unsupported: a bare 'raise' (kernels have no try statement, so no exception to re-raise)")
        if node.cause is not None:
            self.error(node.cause, "Unsupported: 'raise ... from ...' in a kernel")
        exc, args = node.exc, []
        if isinstance(exc, ast.Call):
            if exc.keywords:
                self.error(exc.keywords[0].value, "Unsupported: keyword arguments to an exception raised in a kernel")
            exc, args = exc.func, exc.args
        cls = self.static_object(exc)
        if isinstance(cls, BaseException) and not args:
            cls, values = type(cls), list(cls.args)  # raise an instance made outside the kernel
        elif not (isinstance(cls, type) and issubclass(cls, BaseException)):
            self.error(exc, f"Unsupported: raise of {ast.unparse(exc)!r}, which is not an exception class")
        else:
            values = [self.constant_argument(a) for a in args]
        if len(values) > 1:
            self.error(args[1] if len(args) > 1 else exc,
                       "Unsupported: an exception raised in a kernel takes at most one argument (its message)")
        key = _errors.register_kernel_exception(cls)
        message = str(values[0]) if values else None
        text = ast.unparse(node.exc)
        gkey = f"raise:{key}:{message!r}"
        gid = self.global_by_key.get(gkey)
        if gid is None:
            gid = self.global_by_key[gkey] = self.b.global_({"kind": "exception", "cls": key, "message": message,
                                                             "name": text})
            self.global_texts.append(f"{gkey} = exception")
        self.emit(self.b.raise_(self.b.global_ref(gid, *self.at(node.exc)), *self.at(node)))

    def static_object(self, node):
        """The Python object a name or a dotted name outside the kernel's
        locals stands for (an exception class, at compile time)."""
        if isinstance(node, ast.Name):
            if node.id in self.locals:
                self.error(node, f"Unsupported: raise of the local variable {node.id!r} (raise an exception class)")
            found, value = self.lookup(node.id)
            if not found:
                self.error(node, f"NameError: name {node.id!r} is not defined")
            return value
        if isinstance(node, ast.Attribute):
            base = self.static_object(node.value)
            try:
                return getattr(base, node.attr)
            except AttributeError:
                self.error(node, f"{ast.unparse(node.value)!r} has no attribute {node.attr!r}")
        self.error(node, f"Unsupported: raise of {ast.unparse(node)!r} (raise an exception class)")

    def constant_argument(self, node):
        """An exception's argument: a constant (a literal or a global holding
        a str, number or bool), as Numba requires."""
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        if isinstance(node, (ast.Name, ast.Attribute)) and not (isinstance(node, ast.Name) and node.id in self.locals):
            value = self.static_object(node)
            if isinstance(value, (str, int, float, bool, complex)) or value is None:
                return value
        self.error(node, f"Unsupported: the exception argument {ast.unparse(node)!r} is not a constant (a kernel's "
                         "exception takes constants only: a message string or a number)")

    def stmt_assert(self, node):
        cond = self.visit(node.test)
        if node.msg is None:
            message = ""
        elif isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str):
            message = node.msg.value
        else:
            message = ast.unparse(node.msg)  # not evaluated: kernels have no strings
        self.emit(self.b.assert_(cond, message, *self.at(node)))

    # --- expressions ---------------------------------------------------------------------

    def expr_constant(self, node):
        v = node.value
        if isinstance(v, str):
            self.error(node, "Unsupported: strings (only print()'s arguments and an assert's message may be strings)")
        if isinstance(v, bytes):
            self.error(node, "Unsupported: bytes")
        if v is Ellipsis:
            self.error(node, "Unsupported: Ellipsis (...)")
        try:
            return self.constant(v, node)
        except (ValueError, TypeError) as e:
            self.error(node, str(e))

    def expr_name(self, node):
        if node.id in self.locals:
            return self.name_of(self.variable(node.id, node), node)
        found, value = self.lookup(node.id)
        if not found and node.id == self.pyfunc.__name__:
            # The function's own name, not bound yet (an eager signature
            # compiles it while it is being decorated): a recursive call.
            return self.resolved_expr(node.id, _resolve.recursive_reference(self.pyfunc), node)
        if not found:
            self.error(node, f"name {node.id!r} is not defined")
        return self.global_expr(node.id, value, node)

    def expr_attribute(self, node):
        folded = self.folded(node)
        if folded is not None:
            return self.global_expr(folded[0], folded[1], node)
        return self.b.attribute(self.visit(node.value), node.attr, *self.at(node))

    def expr_subscript(self, node):
        key = _field_key(node)
        if key is not None:  # r['f']: a record's field, as r.f
            return self.b.attribute(self.visit(node.value), key, *self.at(node))
        return self.b.subscript(self.visit(node.value), self.visit(node.slice), *self.at(node))

    def expr_slice(self, node):
        parts = [_NO if p is None else self.visit(p) for p in (node.lower, node.upper, node.step)]
        return self.b.slice(*parts, *self.at(node))

    def expr_tuple(self, node):
        return self.b.tuple([self.visit(e) for e in node.elts], *self.at(node))

    def int_literals(self, node):
        """The constant for ``node`` when it is an expression of Python int
        literals only whose value, or a partial one, leaves int64 (``2**64 - 1``,
        ``-2**63``): computed here with Python's integers, as the typer folds in
        int64. None for anything else (the typer folds it)."""
        try:
            tree = _int_literal_tree(node)
        except OverflowError:
            tree = (None, True)
        if tree is None or not tree[1]:
            return None
        value = tree[0]
        if value is None or not -(2**63) <= value < 2**64:
            self.error(node, f"the Python integer {ast.unparse(node)} does not fit in 64 bits (kernels keep Python "
                             "integers in int64, and those beyond it below 2**64 in uint64)")
        return self.constant(value, node)

    def expr_binop(self, node):
        folded = self.int_literals(node)
        if folded is not None:
            return folded
        left = self.visit(node.left)
        right = self.visit(node.right)
        return self.b.binary(_BINOPS[type(node.op)], left, right, *self.at(node))

    def expr_unaryop(self, node):
        folded = self.int_literals(node)
        if folded is not None:
            return folded
        operand = node.operand
        # -1 and +2.5 are literals (weak constants), as Python folds them.
        if (isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(operand, ast.Constant)
                and type(operand.value) in (int, float, complex)):
            v = -operand.value if isinstance(node.op, ast.USub) else operand.value
            try:
                return self.constant(v, node)
            except (ValueError, TypeError) as e:
                self.error(node, str(e))
        return self.b.unary(_UNOPS[type(node.op)], self.visit(operand), *self.at(node))

    def short_circuit(self, is_and, left, right, pre, node):
        """``left and right`` (or ``or``) where ``right`` needed the
        statements ``pre``: they run only when Python would evaluate it."""
        at = self.at(node)
        if not pre:
            return self.b.logical(is_and, left, right, *at)
        t = self.temp(node)
        self.emit(self.b.assign(self.name_of(t, node), left, *at))
        test = self.name_of(t, node)
        if not is_and:
            test = self.b.unary(_core.UnaryOp.not_, test, *at)
        self.emit(self.b.if_(test, pre + [self.b.assign(self.name_of(t, node), right, *at)], [], *at))
        return self.name_of(t, node)

    def expr_boolop(self, node):
        is_and = isinstance(node.op, ast.And)

        def chain(values):
            left = self.visit(values[0])
            if len(values) == 1:
                return left
            right, pre = self.sub(chain, values[1:])
            return self.short_circuit(is_and, left, right, pre, node)

        return chain(node.values)

    def expr_compare(self, node):
        operands = [node.left] + list(node.comparators)
        ops = [_CMPOPS[type(op)] for op in node.ops]
        if len(ops) == 1:
            left = self.visit(operands[0])
            return self.b.compare(ops[0], left, self.visit(operands[1]), *self.at(node))
        # a < b < c: (a < $t) and ($t < c), $t = b evaluated once; Python's
        # order is kept (a before b) and c is evaluated only when a < b.
        if not _is_simple(operands[0]) and not _is_simple(operands[1]):
            first = self.to_temp(self.visit(operands[0]), operands[0])
        else:
            first = lambda: self.visit(operands[0])  # noqa: E731

        def link(i, left):
            right_node = operands[i + 1]
            if i == len(ops) - 1:
                lhs = left()
                return self.b.compare(ops[i], lhs, self.visit(right_node), *self.at(operands[i]))
            right = self.reusable(right_node)
            pair = self.b.compare(ops[i], left(), right(), *self.at(operands[i]))
            rest, pre = self.sub(link, i + 1, right)
            return self.short_circuit(True, pair, rest, pre, node)

        return link(0, first)

    def expr_ifexp(self, node):
        cond = self.visit(node.test)
        then, then_pre = self.sub(self.visit, node.body)
        other, other_pre = self.sub(self.visit, node.orelse)
        at = self.at(node)
        if not then_pre and not other_pre:
            return self.b.conditional(cond, then, other, *at)
        t = self.temp(node)
        body = then_pre + [self.b.assign(self.name_of(t, node), then, *at)]
        orelse = other_pre + [self.b.assign(self.name_of(t, node), other, *at)]
        self.emit(self.b.if_(cond, body, orelse, *at))
        return self.name_of(t, node)

    def expr_call(self, node):
        callee = self.visit(node.func)
        args, keywords = [], []
        printing = self.is_builtin_call(node, print)
        lists = self.makes_an_array_of(node)
        for a in node.args:
            if lists and a is node.args[0] and isinstance(a, ast.List):
                args.append(self.visit(_as_tuple(a)))  # np.array([1, 2, n]): the row takes the list as a tuple
                continue
            if isinstance(a, ast.Starred):  # f(*t): the typer spreads the tuple t
                args.append(self.b.call(self.internal("__star__", a), [self.visit(a.value)], [], *self.at(a)))
                continue
            if printing and isinstance(a, ast.Constant) and isinstance(a.value, str):
                args.append(self.string_literal(a.value, a))  # print's constant strings (Numba's StringLiteral)
                continue
            args.append(self.visit(a))
        for k in node.keywords:
            if k.arg is None:
                self.error(k, "Unsupported: star arguments (**kwargs)")
            if printing and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                args.append(self.string_literal(k.value.value, k.value))  # the typer refuses sep= and end=
            else:
                args.append(self.visit(k.value))
            keywords.append(k.arg)
        if not any(isinstance(a, ast.Starred) for a in node.args):
            args, keywords = self.with_defaults(node, args, keywords)
        return self.b.call(callee, args, keywords, *self.at(node))

    def makes_an_array_of(self, node):
        """Whether the call is numpy.array's, whose first argument may be a
        list display (nested ones too): numba's np.array([1, 2, n])."""
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "array":  # np.array (numpy is not folded: the typer's)
            f, want = f.value, numpy
        else:
            want = numpy.array
        if not isinstance(f, ast.Name) or f.id in self.locals:
            return False
        found, value = self.lookup(f.id)
        return found and value is want

    def string_literal(self, text, node):
        """A constant string where the typer takes one (print's arguments)."""
        key = f"str:{text!r}"
        gid = self.global_by_key.get(key)
        if gid is None:
            gid = self.global_by_key[key] = self.b.global_({"kind": "string", "message": text})
            self.global_texts.append(f"{key} = string")
        return self.b.global_ref(gid, *self.at(node))

    def with_defaults(self, node, args, keywords):
        """A call of a jitted function whose parameters have default values, or of a function
        with implementations registered by cuda.extending.overload (the function a name or
        attribute chain names now): its arguments in parameter order, the omitted ones the
        defaults, as Python binds them (an overload's implementations then take them by
        position). Any other call: as written (the typer binds keywords)."""
        folded = self.folded(node.func)
        target = folded[1] if folded else None
        from cuforge.cuda import extending

        if inspect.isfunction(target) and extending.overload_key(target) is not None:
            return self.bind_overloaded(node, target, args, keywords)
        fn = getattr(target, "py_func", None)
        if not inspect.isfunction(fn) or not fn.__defaults__:
            return args, keywords
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
            return args, keywords
        positional = len(args) - len(keywords)
        by_name = dict(zip(keywords, args[positional:]))
        if positional > len(params) or any(k not in {p.name for p in params[positional:]} for k in keywords):
            return args, keywords  # the typer says what is wrong
        bound = list(args[:positional])
        for p in params[positional:]:
            if p.name in by_name:
                bound.append(by_name[p.name])
            elif p.default is not p.empty:
                bound.append(self.constant(p.default, node))
            else:
                return args, keywords  # a required argument is missing: the typer's error
        return bound, []

    def bind_overloaded(self, node, fn, args, keywords):
        """A call of a function with overloads, bound by its signature as Python binds a call
        (its errors word for word): the arguments in parameter order, defaults filled in."""
        from cuforge.cuda.extending import bind_call

        positional = len(args) - len(keywords)
        try:
            how = bind_call(inspect.signature(fn), positional, list(keywords))
        except TypeError as e:
            self.error(node, f"{fn.__name__}(): {e}")
        return [self.constant(h[1], node) if isinstance(h, tuple) else args[h] for h in how], []


def _default_constant(node):
    """Whether a parameter's default (the expression ``node``) is a number, a bool or None."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return False
    return value is None or isinstance(value, (bool, int, float, complex))

# --- what for-loops iterate ------------------------------------------------------------
#
# A source gives the loop's length (an expression, made once) and its element
# at an index: ("expr", factory) for one value, ("tuple", [elements]) for the
# tuples enumerate and zip make (unpacked into tuple targets pairwise).


class _Sequence:
    """An array (or tuple) iterated by index; the expression is evaluated once."""

    def __init__(self, w, node):
        self.w, self.node = w, node
        self.get = w.reusable(node)

    def length(self):
        w, n = self.w, self.node
        return w.b.call(w.builtin("len", n), [self.get()], [], *w.at(n))

    def element(self, index):
        w, n = self.w, self.node
        return "expr", lambda: w.b.subscript(self.get(), index(), *w.at(n))


class _Range:
    """range(start, stop, step) inside enumerate() or zip(): its length and
    items computed (the typer's internal __range_len__ and __range_item__,
    which count in the type a for-range loop would); arguments evaluated
    once."""

    def __init__(self, w, node):
        self.w, self.node = w, node
        self.parts = [(lambda v=default: w.constant(v, node)) if arg is None else w.reusable(arg)
                      for arg, default in zip(w.range_arguments(node), (0, None, 1))]

    def length(self):
        w, n = self.w, self.node
        return w.b.call(w.internal("__range_len__", n), [p() for p in self.parts], [], *w.at(n))

    def element(self, index):
        w, n = self.w, self.node
        return "expr", lambda: w.b.call(w.internal("__range_item__", n), [p() for p in self.parts] + [index()], [],
                                        *w.at(n))


class _Enumerate:
    def __init__(self, w, node):
        self.w, self.node = w, node
        args, start = list(node.args), None
        for k in node.keywords:
            if k.arg != "start":
                w.error(k.value, f"enumerate() got an unexpected keyword argument {k.arg!r}")
            start = k.value
        if not 1 <= len(args) + (start is not None) <= 2 or any(isinstance(a, ast.Starred) for a in args):
            w.error(node, "enumerate() takes an iterable and an optional start")
        if len(args) == 2:
            start = args[1]
        self.inner = w.iteration_source(args[0])
        self.start = None if start is None else w.reusable(start)

    def length(self):
        return self.inner.length()

    def element(self, index):
        w, n = self.w, self.node
        if self.start is None:
            count = index
        else:
            def count():
                return w.b.binary(_core.BinOp.add, index(), self.start(), *w.at(n))
        return "tuple", [("expr", count), self.inner.element(index)]


class _Zip:
    def __init__(self, w, node):
        self.w, self.node = w, node
        if node.keywords:
            w.error(node.keywords[0].value, "Unsupported: zip() keyword arguments")
        if not node.args or any(isinstance(a, ast.Starred) for a in node.args):
            w.error(node, "zip() needs at least one iterable (and no star arguments)")
        self.sources = [w.iteration_source(a) for a in node.args]

    def length(self):
        w, n = self.w, self.node
        lengths = [s.length() for s in self.sources]
        if len(lengths) == 1:
            return lengths[0]
        return w.b.call(w.builtin("min", n), lengths, [], *w.at(n))

    def element(self, index):
        return "tuple", [s.element(index) for s in self.sources]


# --- building, memoised -------------------------------------------------------------------

_lock = threading.RLock()
_built = weakref.WeakKeyDictionary()  # Python function -> (FunctionIR, fingerprint)
_in_progress = set()


def build_ir_and_fingerprint(pyfunc):
    """(untyped IR, fingerprint text) of a Python function, built once per
    function (the IR of the jitted functions it calls built with it).
    ``pyfunc`` may be a @cuda.jit dispatcher."""
    pyfunc = getattr(pyfunc, "py_func", pyfunc)
    with _lock:
        got = _built.get(pyfunc)
        if got is not None:
            return got
        _in_progress.add(pyfunc)
        walker = None
        try:
            walker = _Walker(pyfunc, _callee_ir)
            result = walker.build()
        except RecursionError:
            if walker is None:
                raise
            try:
                walker.too_deep()
            except TypingError as e:
                raise e.with_traceback(None) from None
        except TypingError as e:
            # The message points at the user's source; the walker's frames add nothing.
            raise e.with_traceback(None) from None
        finally:
            _in_progress.discard(pyfunc)
        _built[pyfunc] = result
        return result


def _callee_ir(dispatcher):
    """(IR, fingerprint digest) of a jitted function a kernel calls; None
    when it is being built further up the stack (recursion)."""
    pyfunc = dispatcher.py_func
    if pyfunc in _in_progress:
        return None
    ir, fingerprint = build_ir_and_fingerprint(pyfunc)
    return ir, hashlib.sha256(fingerprint.encode()).hexdigest()


def build_ir(pyfunc):
    """The untyped IR (``_core.FunctionIR``) of a Python function."""
    return build_ir_and_fingerprint(pyfunc)[0]


_built_for_comparing = {}  # (front, canonical) -> WeakKeyDictionary: Python function -> IR
_in_progress_comparing = set()


def build_ir_from_bytecode(pyfunc, canonical=False):
    """The untyped IR of a Python function read from its bytecode even where
    its source exists (and so of the jitted functions it calls): the second
    front, for comparing the two (CUFORGE_FRONTEND=compare). ``canonical``:
    the tree first put in canonical.py's one spelling."""
    return _build_for_comparing(pyfunc, True, canonical)


def build_ir_canonical(pyfunc):
    """The untyped IR of a Python function from its source put in
    canonical.py's one spelling (for comparing the fronts)."""
    return _build_for_comparing(pyfunc, False, True)


def _build_for_comparing(pyfunc, bytecode, canonical):
    from cuforge.cuda._compiler import canonical as _canonical

    pyfunc = getattr(pyfunc, "py_func", pyfunc)
    key = (bytecode, canonical)
    with _lock:
        memo = _built_for_comparing.setdefault(key, weakref.WeakKeyDictionary())
        got = memo.get(pyfunc)
        if got is not None:
            return got
        _in_progress_comparing.add((key, pyfunc))

        def callee_ir(dispatcher):
            callee = dispatcher.py_func
            if (key, callee) in _in_progress_comparing:
                return None
            _, fingerprint = build_ir_and_fingerprint(callee)  # the callee's identity, as the source front gives it
            return _build_for_comparing(callee, bytecode, canonical), hashlib.sha256(fingerprint.encode()).hexdigest()

        try:
            walker = _Walker(pyfunc, callee_ir, bytecode=bytecode,
                             transform=_canonical.canonical if canonical else None)
            ir = walker.build()[0]
        except TypingError as e:
            raise e.with_traceback(None) from None
        finally:
            _in_progress_comparing.discard((key, pyfunc))
        memo[pyfunc] = ir
        return ir

"""The second front of the kernel compiler: a function's bytecode to the
``ast`` tree the walker reads from source.

The walker (walker.py) parses a function's source. A function made by
``exec``, typed at ``python -c`` or piped to ``python -`` has no source
Python can find, only its code object; for those the walker asks
:func:`decompile` for the tree instead and walks it exactly as it walks a
parsed one, so both fronts emit their IR through the one IR builder, with
the same desugaring and the same checks. Line numbers (and, from Python
3.11, columns) come from the code object's positions.

The bytecode of the kernel language is structured: CPython emits each
``if``, ``while`` and ``for`` as a region of basic blocks with one entry and
one join. The decompiler runs the instructions symbolically (a stack of
``ast`` expressions), and rebuilds the statements region by region:

- a conditional jump starts a *cluster*: the blocks that only test values
  (``a and b or c``) are folded into one condition, each test with its true
  and false successor; the ``if`` ends at the cluster's immediate
  post-dominator, and values left on the stack by both arms become ``x if c
  else y``, ``a and b``, ``a or b`` (the arm that leaves the tested value
  itself is the short-circuit) and chained comparisons (two comparisons
  sharing their middle operand);
- ``FOR_ITER`` is a ``for`` loop; a guarded loop whose latch repeats the
  guard's test is a ``while``; a jump back to a loop's start is
  ``continue``, a jump past its end (after its ``else`` clause) is
  ``break``;
- stores made while earlier values still wait on the stack form one
  statement: ``a, b = b, a``, ``a = b = v``, ``x, y = t``; an in-place
  operator stored back where its left operand was read is ``x[i] += v``.

Anything outside the kernel language is refused with the construct and the
line. Each CPython release changes the bytecode: :data:`SUPPORTED` lists
the ones this module knows, and any other is refused by name rather than
decompiled on guesswork (docs/compiler.md, "Adding a CPython version").

This module imports only the standard library, so that its tests can run
under every CPython the package supports without building it there.
"""

from __future__ import annotations

import ast
import copy
import dis
import itertools
import sys

__all__ = ["SUPPORTED", "DecompileError", "code_digest", "decompile", "supported"]

# The CPython releases whose bytecode this module knows (major, minor).
SUPPORTED = ((3, 10), (3, 11), (3, 12), (3, 13))

_PY = sys.version_info[:2]
_SEQ = itertools.count(1)


def supported(version=None):
    """Whether bytecode of ``version`` (default: this interpreter's) can be decompiled."""
    return tuple(version or _PY)[:2] in SUPPORTED


class DecompileError(Exception):
    """Why a code object cannot be read back as the kernel language.

    ``construct`` is the ``ast`` node type of a construct the kernel
    language leaves out (the walker gives its standard message for it);
    ``message`` explains anything else. ``lineno`` is the line in the
    function's file."""

    def __init__(self, message, lineno=None, construct=None):
        super().__init__(message)
        self.message = message
        self.lineno = lineno
        self.construct = construct


# --- instructions -------------------------------------------------------------------------------

_NOOPS = {"NOP", "RESUME", "CACHE", "EXTENDED_ARG", "PRECALL", "COPY_FREE_VARS", "MAKE_CELL", "PUSH_NULL",
          "TO_BOOL", "NOT_TAKEN", "END_FOR", "RESERVED", "INSTRUMENTED_LINE"}
_UNCOND = {"JUMP_FORWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP",
           "JUMP_NO_INTERRUPT"}
_COND = {"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
         "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
         "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NONE",
         "POP_JUMP_BACKWARD_IF_NOT_NONE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"}
_RETURNS = {"RETURN_VALUE", "RETURN_CONST"}
_ENDS = _UNCOND | _COND | _RETURNS | {"RAISE_VARARGS", "RERAISE", "FOR_ITER"}

# Instructions that only constructs outside the kernel language make: the
# construct (its ast node type, for the walker's message) or a message.
_REFUSED = {
    "SETUP_FINALLY": ast.Try, "SETUP_CLEANUP": ast.Try, "POP_EXCEPT": ast.Try, "RERAISE": ast.Try,
    "PUSH_EXC_INFO": ast.Try, "CHECK_EXC_MATCH": ast.Try, "JUMP_IF_NOT_EXC_MATCH": ast.Try,
    "SETUP_WITH": ast.With, "BEFORE_WITH": ast.With, "WITH_EXCEPT_START": ast.With, "SETUP_ASYNC_WITH": ast.AsyncWith,
    "BEFORE_ASYNC_WITH": ast.AsyncWith, "GET_AWAITABLE": ast.Await, "GET_AITER": ast.AsyncFor,
    "GET_ANEXT": ast.AsyncFor, "YIELD_VALUE": ast.Yield, "GEN_START": ast.Yield, "RETURN_GENERATOR": ast.Yield,
    "GET_YIELD_FROM_ITER": ast.YieldFrom, "SEND": ast.YieldFrom, "IMPORT_NAME": ast.Import,
    "IMPORT_FROM": ast.ImportFrom, "IMPORT_STAR": ast.ImportFrom, "STORE_GLOBAL": ast.Global,
    "DELETE_GLOBAL": ast.Global, "LOAD_CLASSDEREF": ast.Nonlocal, "DELETE_FAST": ast.Delete,
    "DELETE_DEREF": ast.Delete, "DELETE_SUBSCR": ast.Delete, "DELETE_ATTR": ast.Delete, "DELETE_NAME": ast.Delete,
    "BUILD_MAP": ast.Dict, "BUILD_CONST_KEY_MAP": ast.Dict, "DICT_UPDATE": ast.Dict, "BUILD_SET": ast.Set,
    "SET_UPDATE": ast.Set, "SET_ADD": ast.SetComp, "MAP_ADD": ast.DictComp,
    "LOAD_FAST_AND_CLEAR": ast.ListComp,
    "DICT_MERGE": ast.Starred,
    "UNPACK_EX": ast.Starred, "MATCH_CLASS": getattr(ast, "Match", None), "MATCH_MAPPING": getattr(ast, "Match", None),
    "MATCH_SEQUENCE": getattr(ast, "Match", None), "MATCH_KEYS": getattr(ast, "Match", None),
    "LOAD_BUILD_CLASS": ast.ClassDef, "LOAD_SUPER_ATTR": "super() in a kernel",
    "SETUP_ANNOTATIONS": "annotations evaluated at run time", "LOAD_LOCALS": "locals()",
}

_BINARY = {  # 3.10's opcodes and 3.11's BINARY_OP symbols -> (ast operator, in place)
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod, "**": ast.Pow,
    "<<": ast.LShift, ">>": ast.RShift, "|": ast.BitOr, "^": ast.BitXor, "&": ast.BitAnd, "@": ast.MatMult,
}
_OLD_BINARY = {"ADD": "+", "SUBTRACT": "-", "MULTIPLY": "*", "TRUE_DIVIDE": "/", "FLOOR_DIVIDE": "//",
               "MODULO": "%", "POWER": "**", "LSHIFT": "<<", "RSHIFT": ">>", "OR": "|", "XOR": "^", "AND": "&",
               "MATRIX_MULTIPLY": "@"}
_COMPARE = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_UNARY = {"UNARY_NEGATIVE": ast.USub, "UNARY_POSITIVE": ast.UAdd, "UNARY_INVERT": ast.Invert, "UNARY_NOT": ast.Not}


class _Ins:
    __slots__ = ("op", "arg", "argval", "argrepr", "offset", "pos", "target", "next")

    def __init__(self, op, arg, argval, argrepr, offset, pos):
        self.op, self.arg, self.argval, self.argrepr, self.offset, self.pos = op, arg, argval, argrepr, offset, pos
        self.target = None   # jump target offset
        self.next = None     # offset of the next instruction

    def __repr__(self):
        return f"{self.offset} {self.op} {self.argval!r}"


def _instructions(code):
    """The code object's instructions, with a position (line, column, end
    line, end column) each, jump targets resolved, and the end of each
    ``for`` loop moved past the instructions that pop its iterator."""
    out = []
    line = code.co_firstlineno
    for i in dis.get_instructions(code):
        p = getattr(i, "positions", None)
        if p is not None and p.lineno is not None:
            line = p.lineno
            pos = (p.lineno, p.col_offset or 0, p.end_lineno or p.lineno, p.end_col_offset or 0)
        else:
            if type(getattr(i, "starts_line", None)) is int:  # 3.10-3.12: the line number
                line = i.starts_line
            ln = getattr(i, "line_number", None)
            if ln is not None:
                line = ln
            pos = (line, 0, line, 0)
        ins = _Ins(i.opname, i.arg, i.argval, i.argrepr, i.offset, pos)
        if i.opname in _UNCOND or i.opname in _COND or i.opname == "FOR_ITER":
            ins.target = i.argval
        if i.opname == "KW_NAMES":  # 3.11's dis cannot show it
            ins.argval = code.co_consts[i.arg]
        out.append(ins)
    # EXTENDED_ARG only widens the next instruction's argument (dis has
    # applied it): dropped, a jump to it goes to the instruction it widens.
    alias, pending = {}, []
    for ins in out:
        if ins.op == "EXTENDED_ARG":
            pending.append(ins.offset)
            continue
        for o in pending:
            alias[o] = ins.offset
        pending = []
    out = [i for i in out if i.op != "EXTENDED_ARG"]
    for ins in out:
        if ins.target in alias:
            ins.target = alias[ins.target]
    for a, b in zip(out, out[1:]):
        a.next = b.offset
    if out:
        out[-1].next = None
    by_offset = {x.offset: k for k, x in enumerate(out)}
    for k, ins in enumerate(out):
        if ins.op == "END_FOR" and _PY >= (3, 13) and k + 1 < len(out) and out[k + 1].op == "POP_TOP":
            out[k + 1].op = "NOP"  # 3.13 ends a loop with END_FOR; POP_TOP (the iterator)
        if ins.op == "FOR_ITER":
            # Where the exhausted loop goes on, past END_FOR (3.12+): the
            # decompiler pops the iterator itself.
            t = by_offset.get(ins.target)
            while t is not None and out[t].op in ("END_FOR", "NOP") and t + 1 < len(out):
                if out[t].op == "NOP" and not (t > 0 and out[t - 1].op == "END_FOR"):
                    break
                t += 1
            if t is not None:
                ins.target = out[t].offset
    return out


class _Block:
    __slots__ = ("start", "ins", "succ", "preds", "end")

    def __init__(self, start):
        self.start = start
        self.ins = []
        self.succ = []
        self.preds = set()
        self.end = None  # the terminating instruction, if any

    def __repr__(self):
        return f"<block {self.start}: {self.ins}>"


class _Resplit(Exception):
    """The blocks must be cut at these offsets too, and the reading begun again."""

    def __init__(self, offsets):
        super().__init__(offsets)
        self.offsets = set(offsets)


def _blocks(ins, extra=()):
    """The basic blocks, by starting offset, with successors and predecessors
    (``extra``: more offsets a block must start at)."""
    leaders = ({ins[0].offset} if ins else set()) | set(extra)
    for i in ins:
        if i.target is not None:
            leaders.add(i.target)
        if i.op in _ENDS and i.next is not None:
            leaders.add(i.next)
        if i.op == "FOR_ITER":  # a loop's start, even one its body never jumps back to
            leaders.add(i.offset)
    blocks, cur = {}, None
    for i in ins:
        if i.offset in leaders:
            cur = blocks[i.offset] = _Block(i.offset)
        cur.ins.append(i)
    for b in blocks.values():
        last = b.ins[-1]
        if last.op in _ENDS:
            b.end = last
        if last.op in _UNCOND:
            b.succ = [last.target]
        elif last.op in _COND or last.op == "FOR_ITER":
            b.succ = [last.next, last.target]
        elif last.op in _RETURNS or last.op in ("RAISE_VARARGS", "RERAISE"):
            b.succ = []
        elif last.next is not None:
            b.succ = [last.next]

    # A jump to a block of NOPs (3.11's `while True:` line) goes where the NOPs lead.
    def skip(off):
        seen = set()
        while off in blocks and off not in seen and blocks[off].end is None and \
                all(i.op in _NOOPS for i in blocks[off].ins) and blocks[off].succ:
            seen.add(off)
            off = blocks[off].succ[0]
        return off

    for b in blocks.values():
        b.succ = [skip(s) for s in b.succ]
        if b.end is not None:
            if b.end.target is not None:
                b.end.target = skip(b.end.target)
            if b.end.next is not None:
                b.end.next = skip(b.end.next)
    for b in blocks.values():
        for s in b.succ:
            if s in blocks:
                blocks[s].preds.add(b.start)
    return blocks


# --- expressions on the symbolic stack ---------------------------------------------------------

class _Marker:
    """A stack entry that is not an expression: a loop's iterator, the value
    FOR_ITER gives each turn, one element of an unpacked sequence."""

    def __init__(self, kind, value=None, index=None, pos=None):
        self.kind, self.value, self.index, self.pos = kind, value, index, pos


def _at(node, pos):
    node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = pos
    return node


def _span(nodes, fallback=None):
    """The position covering ``nodes`` (each with a position)."""
    ps = [(n.lineno, n.col_offset, n.end_lineno, n.end_col_offset) for n in nodes
          if n is not None and getattr(n, "lineno", None) is not None]
    if not ps:
        return fallback
    start = min((p[0], p[1]) for p in ps)
    end = max((p[2], p[3]) for p in ps)
    return start + end


def _constant(value, pos):
    """The ast of a constant CPython folded: tuples and slices are rebuilt
    from their parts, as the walker reads them in source."""
    if type(value) is tuple:
        return _at(ast.Tuple(elts=[_constant(v, pos) for v in value], ctx=ast.Load()), pos)
    if type(value) is slice:
        return _at(ast.Slice(*[None if v is None else _constant(v, pos) for v in (value.start, value.stop, value.step)]),
                   pos)
    if type(value) is frozenset:
        raise DecompileError("Unsupported: sets", pos[0], ast.Set)
    return _at(ast.Constant(value=value), pos)


_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _nots(node):
    return sum(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) for n in ast.walk(node))


def _negate(node):
    """``not node``, written with the fewest ``not``s (De Morgan's laws
    where they save one: CPython compiles ``not a and b`` as ``not (a or not b)``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    plain = _at(ast.UnaryOp(op=ast.Not(), operand=node), _span([node]))
    if isinstance(node, ast.BoolOp):
        flipped = ast.And if isinstance(node.op, ast.Or) else ast.Or
        dual = _at(ast.BoolOp(op=flipped(), values=[_negate(v) for v in node.values]), _span([node]))
        if _nots(dual) < _nots(plain):
            return dual
    return plain


def _boolop(kind, values):
    """``values`` joined by and/or, nested ones of the same kind flattened and
    ``a < b and b < c`` (one middle operand) made a chained comparison."""
    flat = []
    for v in values:
        if isinstance(v, ast.BoolOp) and isinstance(v.op, kind):
            flat.extend(v.values)
        else:
            flat.append(v)
    if kind is ast.And:
        chained = [flat[0]]
        for v in flat[1:]:
            prev = chained[-1]
            if isinstance(prev, ast.Compare) and isinstance(v, ast.Compare) and v.left is prev.comparators[-1]:
                merged = ast.Compare(left=prev.left, ops=prev.ops + v.ops, comparators=prev.comparators + v.comparators)
                chained[-1] = _at(merged, _span([prev, v]))
            else:
                chained.append(v)
        flat = chained
    if len(flat) == 1:
        return flat[0]
    return _at(ast.BoolOp(op=kind(), values=flat), _span(flat))


# --- loops and regions --------------------------------------------------------------------------

class _Loop:
    """What a region inside a loop needs: where ``continue`` and ``break`` go."""

    def __init__(self, kind, continue_to, break_to, latch=None):
        self.kind = kind                # "for" or "while"
        self.continue_to = continue_to  # offsets a jump to which is `continue`
        self.break_to = break_to        # offset a jump to which is `break`
        self.latch = latch              # (body start, exit) of a while loop's repeated test
        self.target = None              # a for loop's target, found at its first store(s)
        self.break_alias = set()        # copies of the code after the loop that a break runs instead

    def breaks(self, off):
        """Whether going to ``off`` is a ``break`` of this loop."""
        return off == self.break_to or off in self.break_alias


class _Test:
    """A conditional jump: ``expr`` true goes to ``t``, false to ``f`` (each
    (offset, stack)); ``lay`` is the offset of the true side before any
    trampoline, to tell which side CPython laid out first."""

    def __init__(self, expr, t, f, lay_t, lay_f, blocks):
        self.expr, self.t, self.f, self.lay_t, self.lay_f, self.blocks = expr, t, f, lay_t, lay_f, blocks


class _Decompiler:
    def __init__(self, func, style=None, cuts=()):
        self.func = func
        self.style = style or _STYLES[0]
        self.cuts = set(cuts)
        self.code = code = func.__code__
        ins = _instructions(code)
        self._refuse_outside_language(ins)
        self.blocks = _blocks(ins, self.cuts)
        self.ins_at = {i.offset: i for i in ins}
        self.order = sorted(self.blocks)
        # back edges: a jump to an offset at or before its own
        self.back = {}
        for b in self.blocks.values():
            for s in b.succ:
                if s is not None and s <= b.ins[-1].offset and b.end is not None and b.end.op != "FOR_ITER":
                    self.back.setdefault(s, []).append(b.start)
        self._followed = {}
        self._keep = []

    # --- errors

    def fail(self, message, line=None, construct=None):
        raise DecompileError(message, line, construct)

    def _refuse_outside_language(self, ins):
        table = getattr(self.code, "co_exceptiontable", b"")
        for i in ins:
            what = _REFUSED.get(i.op)
            if i.op == "MAKE_FUNCTION":
                what = self._made_function(ins, i)
            if i.op == "STORE_DEREF" and i.argval in self.code.co_freevars:
                what = ast.Nonlocal
            if what is not None:
                if isinstance(what, str):
                    self.fail(f"Unsupported: {what}", i.pos[0])
                self.fail(f"Unsupported: {what.__name__}", i.pos[0], what)
        if table:
            line = ins[0].pos[0] if ins else self.code.co_firstlineno
            with_ = any(i.op in ("BEFORE_WITH", "SETUP_WITH") for i in ins)
            self.fail("Unsupported: try", line, ast.With if with_ else ast.Try)

    def _made_function(self, ins, at):
        made = None
        for i in ins:
            if i.offset >= at.offset:
                break
            if i.op == "LOAD_CONST" and hasattr(i.argval, "co_name"):
                made = i.argval.co_name
        return {"<lambda>": ast.Lambda, "<genexpr>": ast.GeneratorExp, "<listcomp>": ast.ListComp,
                "<setcomp>": ast.SetComp, "<dictcomp>": ast.DictComp}.get(made, ast.FunctionDef)

    # --- the function

    def function(self):
        code = self.code
        line = code.co_firstlineno
        names = code.co_varnames
        npos = code.co_posonlyargcount
        nargs = code.co_argcount
        nkw = code.co_kwonlyargcount
        flags = code.co_flags

        def arg(n):
            return _at(ast.arg(arg=n, annotation=None, type_comment=None), (line, 0, line, 0))

        k = nargs + nkw
        vararg = arg(names[k]) if flags & 0x04 else None
        kwarg = arg(names[k + (1 if vararg else 0)]) if flags & 0x08 else None
        defaults = [_constant(v, (line, 0, line, 0)) for v in (getattr(self.func, "__defaults__", None) or ())]
        kwd = getattr(self.func, "__kwdefaults__", None) or {}
        args = ast.arguments(posonlyargs=[arg(n) for n in names[:npos]], args=[arg(n) for n in names[npos:nargs]],
                             vararg=vararg, kwonlyargs=[arg(n) for n in names[nargs:k]],
                             kw_defaults=[_constant(kwd[n], (line, 0, line, 0)) if n in kwd else None
                                          for n in names[nargs:k]],
                             kwarg=kwarg, defaults=defaults)
        body, _ = self.region(self.order[0], [], None, None)
        if self.style["strip_returns"]:
            _strip_tail(body, _is_return_none)
        # A local read but never assigned in the code CPython kept (its
        # assignment was dead code): still a local, as `if False: y = None` says.
        stored = {n.id for st in body for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        read = {n.id for st in body for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        params = set(names[:k]) | {a.arg for a in (vararg, kwarg) if a is not None}
        dead = [v for v in code.co_varnames if v in read and v not in stored and v not in params]
        if dead:
            where = (line, 0, line, 0)
            assigns = [_at(ast.Assign(targets=[_at(ast.Name(id=v, ctx=ast.Store()), where)],
                                      value=_at(ast.Constant(value=None), where), type_comment=None), where)
                       for v in dead]
            body.insert(0, _at(ast.If(test=_at(ast.Constant(value=False), where), body=assigns, orelse=[]), where))
        fn = ast.FunctionDef(name=code.co_name, args=args, body=body, decorator_list=[], returns=None,
                             type_comment=None)
        if sys.version_info >= (3, 12):
            fn.type_params = []
        _at(fn, (line, 0, line, 0))
        return fn

    # --- regions

    def region(self, off, stack, stop, loop, base=None, entry=False):
        """The statements from block ``off`` with ``stack`` until control
        reaches ``stop`` (or leaves: return, raise, break, continue), and the
        stack there (None when control never reaches ``stop``)."""
        out = []
        base = len(stack) if base is None else base
        first = entry
        while True:
            if off is None:
                self.fail("cannot decompile: control falls off the end of the code")
            if off == stop:
                return out, stack
            if not first and loop is not None and off in loop.continue_to:
                out.append(self.jump_stmt(ast.Continue, off))
                return out, None
            if loop is not None and loop.breaks(off):
                out.append(self.jump_stmt(ast.Break, off))
                return out, None
            at_entry, first = first, False
            block = self.blocks.get(off)
            if block is None:
                self.fail(f"cannot decompile: no code at offset {off}")
            if block.ins[0].op == "FOR_ITER":
                off, stack = self.for_loop(block, stack, out, loop)
                if stack is None:
                    return out, None
                continue
            if off in self.back and not at_entry and not (loop is not None and loop.latch and off == loop.latch[0]) \
                    and not self.guards_loop(block, stack, loop):
                # A loop entered without a test first: `while True`.
                off, stack = self.while_loop(None, off, stack, out, loop, block)
                if stack is None:
                    return out, None
                continue
            m = _Machine(self, stack, out, base, loop)
            m.run(block)
            end = block.end
            stack = m.stack
            if end is None or end.op in _UNCOND:
                nxt = block.succ[0] if block.succ else None
                if end is not None and nxt is not None and nxt <= end.offset and nxt != stop and not (
                        loop is not None and (nxt in loop.continue_to or loop.breaks(nxt) or
                                              (loop.latch and nxt == loop.latch[0]))):
                    self.fail("cannot decompile: a loop of a shape the kernel language does not make", end.pos[0])
                if end is not None and loop is not None and loop.latch and nxt == loop.latch[0]:
                    return out, stack  # a while loop's body ends where the latch jumps back
                off = nxt
                continue
            if end.op in _RETURNS:
                value = m.pop() if end.op == "RETURN_VALUE" else _constant(end.argval, end.pos)
                value = m.expr(value, end)
                out.append(_at(ast.Return(value=value), _span([value], end.pos)))
                return out, None
            if end.op == "RAISE_VARARGS":
                out.append(m.raise_(end))
                return out, None
            # a conditional jump
            test = self.cluster(block, m, loop)
            lay_then_first = test.lay_t <= test.lay_f
            expr, neg = test.expr, False
            t, f = test.t, test.f
            if not lay_then_first:
                t, f, neg = f, t, True
            if neg and loop is not None and t[0] in loop.continue_to and f[0] not in loop.continue_to and \
                    self.style["flip_loop_end"]:
                # `if c: x` ending a loop body: 3.12 jumps to x where c holds
                # and falls into the jump back; read it as written, not as
                # `if not c: continue` then x.
                t, f, neg = f, t, False
            # a while loop's latch: its test jumps back to the body or leaves
            if loop is not None and loop.latch is not None:
                if self.through_jumps(test.t[0]) == loop.latch[0]:
                    if self.same_exit(test.f[0], loop.latch[1]):
                        return out, test.t[1]
                    # A test jumping back to the body's start that does not
                    # leave where the loop's own test does: no shape of ours.
                    self.fail("cannot decompile: a loop of a shape the kernel language does not make",
                              block.end.pos[0])
            # a guarded loop: the test falls into a loop's start
            if t[0] in self.back and self.blocks[t[0]].ins[0].op != "FOR_ITER" and not (
                    loop is not None and t[0] in loop.continue_to):
                cond = _negate(expr) if neg else expr
                nxt, stack = self.while_loop((cond, f[0], block.start), t[0], t[1], out, loop, self.blocks[t[0]])
                if stack is None:
                    return out, None
                off = nxt
                continue
            j = self.join(test, stop, loop)
            cond = _negate(expr) if neg else expr
            if j == "EXIT":
                then, ts = self.region(t[0], list(t[1]), stop, loop)
                other, fs = self.region(f[0], list(f[1]), stop, loop)
                if ts is None and fs is None and len(then) == len(other) == 1 and \
                        isinstance(then[0], ast.Return) and isinstance(other[0], ast.Return):
                    # `return a < b < c`: CPython gives each arm its own return
                    value = self.merge_within(expr, neg, then[0].value, other[0].value)
                    if value is not None:
                        out.append(_at(ast.Return(value=value), _span([value])))
                        return out, None
                if ts is None:
                    # The arm that leaves first, then the rest: `if c: return` ...
                    # Statements both end with (CPython copies a short `return x`
                    # into each arm) come once, after an if/else.
                    k = _common_tail(then, other) if self.style["factor_tails"] else 0
                    if k and k < len(then) and (fs is None or k < len(other)):
                        out.append(self.if_stmt(cond, then[:-k], other[:-k]))
                        out.extend(other[-k:])
                    else:
                        out.append(self.if_stmt(cond, then, []))
                        out.extend(other)
                    return out, fs
                out.append(self.if_stmt(cond, then, other))
                return out, ts
            then, ts = self.region(t[0], list(t[1]), j, loop)
            other, fs = self.region(f[0], list(f[1]), j, loop) if f[0] != j else ([], f[1])
            if ts is None and fs is None:
                out.append(self.if_stmt(cond, then, other))
                return out, None
            if ts is None or fs is None:
                out.append(self.if_stmt(cond, then, other))
                stack = fs if ts is None else ts
            elif len(ts) != len(fs):
                self.fail("cannot decompile: the arms of a condition leave different stacks", _line(cond))
            else:
                diff = [k for k in range(len(ts)) if ts[k] is not fs[k]]
                if not diff:
                    out.append(self.if_stmt(cond, then, other))
                    stack = ts
                elif diff == [len(ts) - 1] and not then and not other:
                    stack = ts[:-1] + [self.merge(expr, neg, ts[-1], fs[-1])]
                else:
                    self.fail("cannot decompile: a conditional expression with statements", _line(cond))
            off = j

    def same_exit(self, a, b):
        """Whether offsets ``a`` and ``b`` lead to the same code: one block
        (past blocks that only jump on), or two copies of a `return`."""
        a, b = self.through_jumps(a), self.through_jumps(b)
        return a == b or self.copies(a, b)

    def same_exit_code(self, a, b):
        """Whether states ``a`` and ``b`` (offset, stack) each run one block
        that leaves the function doing the same (copies of a `return`, one
        dropping a value CPython kept on the stack first)."""
        outs = []
        for off, stack in (a, b):
            blk = self.blocks.get(off)
            if blk is None or blk.succ or blk.end is None or blk.end.op not in _RETURNS:
                return False
            m = _Machine(self, list(stack), [], len(stack), None)
            try:
                m.run(blk)
                value = m.pop(blk.end) if blk.end.op == "RETURN_VALUE" else _constant(blk.end.argval, blk.end.pos)
            except DecompileError:
                return False
            outs.append((ast.dump(ast.Module(body=m.out, type_ignores=[])), ast.dump(value)))
        return outs[0] == outs[1]

    def through_jumps(self, off):
        """Where ``off`` leads past blocks holding only a jump (forward or back)."""
        seen = set()
        while off in self.blocks and off not in seen:
            seen.add(off)
            b = self.blocks[off]
            if b.end is None or b.end.op not in _UNCOND or any(i.op not in _NOOPS for i in b.ins if i is not b.end):
                break
            off = b.succ[0]
        return off

    def copies(self, a, b):
        """Whether blocks ``a`` and ``b`` are copies of one block that leaves
        the function (the same instructions, ending in return or raise)."""
        ba, bb = self.blocks.get(a), self.blocks.get(b)
        if ba is None or bb is None or ba.succ or bb.succ or ba.end is None or bb.end is None:
            return False

        def shape(blk):
            return [(i.op, i.argrepr if i.op != "LOAD_CONST" else repr(i.argval)) for i in blk.ins
                    if i.op not in _NOOPS]

        return shape(ba) == shape(bb)

    def dry_run(self, block, stack, loop):
        """A machine that has run ``block``'s instructions on a copy of
        ``stack`` without emitting (its stack, whether it would have written
        a statement), or None where the block cannot be run so."""
        trial = _Machine(self, list(stack), [], -1, loop, dry=True)
        try:
            trial.run(block)
        except DecompileError:
            return None
        return trial

    def guards_loop(self, block, stack, loop):
        """Whether ``block`` (a loop's start: `continue` jumps to it) tests a
        while loop's condition: its test falls into another loop start."""
        if block.end is None or block.end.op not in _COND:
            return False
        trial = self.dry_run(block, stack, loop)
        if trial is None or trial.wrote:
            return False
        try:
            test = self.cluster(block, trial, loop)
        except DecompileError:
            return False
        t = test.t if test.lay_t <= test.lay_f else test.f
        return t[0] in self.back and t[0] != block.start

    def jump_stmt(self, kind, off):
        ins = self.blocks[off].ins[0] if off in self.blocks else None
        node = kind()
        return _at(node, ins.pos if ins is not None else (self.code.co_firstlineno, 0, self.code.co_firstlineno, 0))

    def if_stmt(self, cond, then, other):
        node = ast.If(test=cond, body=then, orelse=other)
        return _at(node, _span([cond]))

    def merge_within(self, expr, neg, a, b, depth=0):
        """``a`` and ``b`` merged where they differ in one place (the rest the
        very same expressions, computed before the test): ``(r, a < b < c)``
        or ``f() + (x if c else y)``, returned from two arms by 3.12. None
        where they do not."""
        if a is b:
            return a
        if a is expr or b is expr:
            return self.merge(expr, neg, a, b)
        if type(a) is not type(b) or not isinstance(a, ast.AST) or isinstance(a, (ast.Name, ast.Constant)):
            # Where they part: `f() + (x if c else y)` (what both share was
            # computed before the test, so it stays outside).
            if depth and isinstance(a, ast.expr) and isinstance(b, ast.expr):
                return self.merge(expr, neg, a, b)
            return None
        out = type(a)()
        diffs = 0
        for field, va in ast.iter_fields(a):
            vb = getattr(b, field, None)
            if isinstance(va, _LEAVES) and type(va) is type(vb):
                setattr(out, field, va)
            elif isinstance(va, list):
                if not isinstance(vb, list) or len(va) != len(vb):
                    return None
                merged = []
                for x, y in zip(va, vb):
                    if x is y or (not isinstance(x, ast.AST) and x == y):
                        merged.append(x)
                        continue
                    diffs += 1
                    m = self.merge_within(expr, neg, x, y, depth + 1)
                    if m is None:
                        return None
                    merged.append(m)
                setattr(out, field, merged)
            elif va is vb or (not isinstance(va, ast.AST) and va == vb):
                setattr(out, field, va)
            else:
                diffs += 1
                m = self.merge_within(expr, neg, va, vb, depth + 1)
                if m is None:
                    return None
                setattr(out, field, m)
        if diffs != 1:
            return None
        return _at(out, (a.lineno, a.col_offset, a.end_lineno, a.end_col_offset)) if hasattr(a, "lineno") else out

    def merge(self, expr, neg, then_value, else_value):
        """The value a conditional leaves: ``then_value`` where ``expr`` (negated
        when ``neg``) holds, else ``else_value``."""
        a, b = then_value, else_value
        if else_value is expr:  # the tested value itself where the test fails: `and` (`or` when negated)
            return _boolop(ast.Or if neg else ast.And, [expr, a])
        if then_value is expr:
            return _boolop(ast.And if neg else ast.Or, [expr, b])
        x, y = (b, a) if neg else (a, b)  # the arms as for `expr` itself
        # `(e and u) or z` is `u or z` where e holds, else z (z's one code, read
        # twice); `(e or u) and z` is z where e holds, else `u and z`.
        if isinstance(x, ast.BoolOp) and isinstance(x.op, ast.Or) and _same_code(x.values[-1], y):
            return _boolop(ast.Or, [_boolop(ast.And, [expr] + x.values[:-1]), x.values[-1]])
        if isinstance(y, ast.BoolOp) and isinstance(y.op, ast.And) and _same_code(y.values[-1], x):
            return _boolop(ast.And, [_boolop(ast.Or, [expr] + y.values[:-1]), y.values[-1]])
        cond = _negate(expr) if neg else expr  # `1 if not x else 2`, as written
        return _at(ast.IfExp(test=cond, body=a, orelse=b), _span([cond, a, b]))

    # --- conditions

    def follow(self, off, stack, loop):
        """(offset, stack) past blocks that only move the stack and jump on
        (the cleanup of a chained comparison, the arm of a conditional
        expression that pushes a value). Each block passed with the same
        stack gives the same expressions (so that two tests jumping into one
        arm are seen to meet)."""
        seen = set()
        stack = list(stack)
        while off not in seen:
            seen.add(off)
            got = self._step(off, stack, loop)
            if got is None:
                break
            off, stack = got[0], list(got[1])
            if got[2]:  # a jump back to this loop's start
                break
        return off, stack

    def _step(self, off, stack, loop):
        """(next offset, stack there, whether it jumped back) past block
        ``off`` where it only moves the stack, else None; memoised."""
        key = (off, tuple(map(id, stack)), id(loop))
        if key in self._followed:
            return self._followed[key]
        self._keep.append((list(stack), loop))  # the ids in the key stay valid
        got = self._followed[key] = self._step_uncached(off, stack, loop)
        return got

    def _step_uncached(self, off, stack, loop):
        if off not in self.blocks or off in self.back:
            return None
        if loop is not None and (off in loop.continue_to or loop.breaks(off)):
            return None
        b = self.blocks[off]
        if (b.end is not None and b.end.op not in _UNCOND) or b.ins[0].op == "FOR_ITER":
            return None
        if len(b.preds) > 1 and not all(i.op in _SHUFFLES for i in b.ins if i is not b.end):
            # Code several paths reach that computes something (the next
            # statement's first values) is where they meet, not an arm.
            return None
        trial = self.dry_run(b, stack, loop)
        if trial is None or trial.wrote:
            return None
        nxt = b.succ[0] if b.succ else None
        if nxt is None:
            return None
        if nxt <= b.ins[-1].offset:
            # a jump back: followed only to this loop's start (its latch or a `continue`)
            if loop is not None and (nxt in loop.continue_to or loop.breaks(nxt) or
                                     (loop.latch and nxt == loop.latch[0])):
                return nxt, trial.stack, True
            return None
        return nxt, trial.stack, False

    def cluster(self, block, m, loop):
        """The condition ``block`` ends with, with the blocks after it that
        only test values folded in (``a and b``, ``a or not b``), as one
        _Test."""
        first = self.test_of(block, m, loop)
        nodes = {block.start: first}
        members = {block.start} | first.blocks
        changed = True
        while changed:
            changed = False
            for start, node in list(nodes.items()):
                for side in ("t", "f"):
                    off, stack = getattr(node, side)
                    if off in nodes or off not in self.blocks or off in self.back:
                        continue
                    b = self.blocks[off]
                    if b.end is None or b.end.op not in _COND or b.end.op.endswith("_OR_POP"):
                        continue
                    if not b.preds <= members:
                        continue
                    trial = self.dry_run(b, stack, loop)
                    if trial is None or trial.wrote:
                        continue
                    nodes[off] = self.test_of(b, trial, loop)
                    members |= {off} | nodes[off].blocks
                    changed = True
        # fold pairs: a test whose only way in is from one other test
        while len(nodes) > 1:
            for y_off, y in list(nodes.items()):
                if y_off == block.start:
                    continue
                into = [(x_off, side) for x_off, x in nodes.items() for side in ("t", "f")
                        if getattr(x, side)[0] == y_off]
                if len(into) != 1:
                    continue
                x_off, side = into[0]
                x = nodes[x_off]
                folded = self.fold(x, side, y)
                if folded is None:
                    continue
                nodes[x_off] = folded
                del nodes[y_off]
                break
            else:
                if not self.fold_diamond(nodes):
                    break  # what is left does not fold: an `elif`, or code after the `if`
        return nodes[block.start]

    def fold_diamond(self, nodes):
        """``(a if c else b)`` tested: a test whose two sides are tests, each
        with no other way in, leading to the same places. Folded into one
        node; False where there is none."""
        for x_off, x in nodes.items():
            y, z = nodes.get(x.t[0]), nodes.get(x.f[0])
            if y is None or z is None or y is z or x.t[0] == x_off or x.f[0] == x_off:
                continue
            ways_in = [(o, side) for o, n in nodes.items() for side in ("t", "f") if getattr(n, side)[0] in
                       (x.t[0], x.f[0])]
            if len(ways_in) != 2:
                continue
            if _same_state(y.t, z.t) and _same_state(y.f, z.f):
                arm = z.expr
            elif _same_state(y.t, z.f) and _same_state(y.f, z.t):
                arm = _negate(z.expr)
            else:
                continue
            expr = _at(ast.IfExp(test=x.expr, body=y.expr, orelse=arm), _span([x.expr, y.expr, arm]))
            nodes[x_off] = _Test(expr, y.t, y.f, y.lay_t, y.lay_f, x.blocks | y.blocks | z.blocks)
            del nodes[x.t[0]], nodes[x.f[0]]
            return True
        return False

    def fold(self, x, side, y):
        tx, fx = x.t, x.f
        ty, fy = y.t, y.f
        # One block, not two copies of a `return`: those are two ifs in the
        # source as often as not; but a chained comparison's links (its middle
        # operand shared) leave through copies of one exit alike.
        last = x.expr.values[-1] if isinstance(x.expr, ast.BoolOp) and isinstance(x.expr.op, ast.And) else x.expr
        chain = isinstance(last, ast.Compare) and isinstance(y.expr, ast.Compare) and \
            y.expr.left is last.comparators[-1]

        def same(a, b):
            return _same_state(a, b) or (chain and self.same_exit_code(a, b))

        if side == "t":
            if same(fx, fy):
                return _Test(_boolop(ast.And, [x.expr, y.expr]), ty, fy, y.lay_t, y.lay_f, x.blocks | y.blocks)
            if same(fx, ty):
                return _Test(_boolop(ast.And, [x.expr, _negate(y.expr)]), fy, ty, y.lay_f, y.lay_t,
                             x.blocks | y.blocks)
        else:
            if same(tx, ty):
                return _Test(_boolop(ast.Or, [x.expr, y.expr]), ty, fy, y.lay_t, y.lay_f, x.blocks | y.blocks)
            if same(tx, fy):
                return _Test(_boolop(ast.Or, [x.expr, _negate(y.expr)]), fy, ty, y.lay_f, y.lay_t,
                             x.blocks | y.blocks)
        return None

    def test_of(self, block, m, loop):
        """The _Test of the conditional jump ending ``block`` (run by ``m``)."""
        end = block.end
        op = end.op
        value = m.pop()
        through, jump = end.next, end.target
        if op.endswith("_OR_POP"):
            # 3.10/3.11 `a and b` as a value: the jump keeps the value on the stack
            expr = m.expr(value, end)
            kept = m.stack + [value]
            if "FALSE" in op:
                t, f, lay_t, lay_f = (through, m.stack), (jump, kept), through, jump
            else:
                t, f, lay_t, lay_f = (jump, kept), (through, m.stack), jump, through
            return self._test(expr, t, f, lay_t, lay_f, loop)
        expr = m.expr(value, end)
        if op.endswith("_NONE"):
            # the test that holds where the code falls through: `x is None` for POP_JUMP_IF_NOT_NONE
            none = _at(ast.Constant(value=None), end.pos)
            is_ = ast.Is() if "NOT_NONE" in op else ast.IsNot()
            expr = _at(ast.Compare(left=expr, ops=[is_], comparators=[none]), _span([expr], end.pos))
            t, f, lay_t, lay_f = (through, m.stack), (jump, m.stack), through, jump
        elif op.endswith("_FALSE"):
            t, f, lay_t, lay_f = (through, m.stack), (jump, m.stack), through, jump
        else:
            t, f, lay_t, lay_f = (jump, m.stack), (through, m.stack), jump, through
        return self._test(expr, t, f, lay_t, lay_f, loop)

    def _test(self, expr, t, f, lay_t, lay_f, loop):
        t0, f0 = t, f
        t = self.follow(t[0], t[1], loop)
        f = self.follow(f[0], f[1], loop)
        blocks = set()
        for start, end in ((t0[0], t[0]), (f0[0], f[0])):
            if start != end:
                blocks.add(start)
        return _Test(expr, t, f, lay_t, lay_f, blocks)

    def join(self, test, stop, loop):
        """The block where both sides of ``test`` meet again (their immediate
        post-dominator), or "EXIT" where they do not before leaving (return,
        raise, break, continue, the enclosing region's end)."""
        start = ("START",)

        def node(n):
            if n == stop:
                return "STOP"
            if n is None or n not in self.blocks or (loop is not None and (n in loop.continue_to or
                                                                           loop.breaks(n))):
                return "EXIT"
            return n

        succ = {start: [node(test.t[0]), node(test.f[0])]}
        todo = [n for n in succ[start] if n not in ("STOP", "EXIT")]
        while todo:
            n = todo.pop()
            if n in succ:
                continue
            b = self.blocks[n]
            nxt = [node(s) for s in b.succ]
            if loop is not None and loop.latch and n != loop.latch[0] and self._is_latch(n, loop):
                nxt = ["EXIT"]  # the body's end: the while loop's repeated test
            succ[n] = nxt or ["EXIT"]
            todo.extend(s for s in succ[n] if s not in ("STOP", "EXIT"))
        succ["STOP"] = ["EXIT"]
        succ["EXIT"] = []
        nodes = list(succ)
        everything = set(nodes)
        pdom = {n: set(everything) for n in nodes}
        pdom["EXIT"] = {"EXIT"}
        changed = True
        while changed:
            changed = False
            for n in nodes:
                if n == "EXIT":
                    continue
                ss = [pdom[s] for s in succ[n] if s in pdom]
                new = {n} | (set.intersection(*ss) if ss else set())
                if new != pdom[n]:
                    pdom[n] = new
                    changed = True
        cands = pdom[start] - {start}
        best = max(cands, key=lambda d: len(pdom[d]))
        if best == "STOP":
            return stop
        if self.style["leave_in_arms"] and best in self.blocks and not self.blocks[best].succ:
            return "EXIT"  # both arms end in code that leaves: each arm leaves (its `return`)
        return best

    def _is_latch(self, off, loop):
        """Whether block ``off`` is the repeated test of the while loop ``loop``."""
        b = self.blocks[off]
        if b.end is None or b.end.op not in _COND or not any(self.same_exit(s, loop.latch[1]) for s in b.succ):
            return False
        back = [s for s in b.succ if not self.same_exit(s, loop.latch[1])]
        return all(s == loop.latch[0] or (s in self.blocks and self.blocks[s].ins[0].op in _UNCOND and
                                          self.blocks[s].succ == [loop.latch[0]]) for s in back)

    # --- loops

    def loop_extent(self, heads):
        """(last offset, exits) of the loop whose starts are ``heads``: the
        blocks from the first start to the last jump back, and the targets
        of edges leaving them."""
        last = max(src for h in heads for src in self.back.get(h, []))
        lo = min(heads)
        inside = [o for o in self.order if lo <= o <= last]
        exits = []
        for o in inside:
            for s in self.blocks[o].succ:
                if s is not None and not (lo <= s <= last):
                    exits.append((o, s))
        return last, exits

    def break_target(self, heads, normal_exit, stack, loop_kind, outer):
        last, exits = self.loop_extent(heads)
        found = set()
        for src, s in exits:
            if normal_exit is not None and self.same_exit(s, normal_exit):
                continue
            st = list(stack) + ([_Marker("iter")] if loop_kind == "for" else [])
            if loop_kind == "for" and src == self.ins_at[heads[0]].next:
                st.append(_Marker("next", st[-1]))  # the body's first block stores the loop's target
            trial = self.dry_run(self.blocks[src], st, None)
            if trial is None:
                continue
            end = self.blocks[src].end
            if end is not None and end.op in _COND and not end.op.endswith("_OR_POP"):
                if not trial.stack:
                    continue
                trial.stack.pop()
            off, after = self.follow(s, trial.stack, None)
            if off is None or (normal_exit is not None and self.same_exit(off, normal_exit)):
                continue
            if loop_kind == "for" and len(after) != len(stack):
                continue  # the iterator is still there: not a break (a return laid out after the loop)
            if off > last or (outer is not None and off in outer.continue_to):
                found.add(off)  # (3.12 jumps from an inner loop's `break` straight back to the outer loop)
        if len(found) > 1:
            # CPython may jump past the else clause to the code after the loop,
            # or straight to where that code jumps: the first is the loop's end.
            found = {min(found)}
        return found.pop() if found else normal_exit

    def for_break_target(self, header, rest, outer):
        """Where a ``break`` of the for loop at ``header`` goes: the target
        of a jump made once the loop's iterator is off the stack (each path
        through the body followed, inner loops too); None if no break."""
        fi = header.ins[0]
        it = _Marker("iter")
        found = set()
        seen = set()
        cuts = set()
        todo = [(fi.next, list(rest) + [it, _Marker("next", it)])]
        while todo:
            off, st = todo.pop()
            if off is None or off in seen or off == header.start or off not in self.blocks:
                continue
            seen.add(off)
            b = self.blocks[off]
            if b.ins[0].op == "FOR_ITER":  # an inner loop: its body, and on past it without its iterator
                todo.append((b.ins[0].next, st + [_Marker("next", st[-1] if st else None)]))
                todo.append((b.ins[0].target, st[:-1]))
                continue
            trial = self.dry_run(b, st, None)
            if trial is None:
                continue
            end, after = b.end, trial.stack
            if end is not None and (end.op in _RETURNS or end.op in ("RAISE_VARARGS", "RERAISE")):
                if self.style["break_copies"]:
                    self._cut_after_pop(b, st, it, len(rest), cuts)
                continue
            if end is not None and end.op in _COND:
                if end.op.endswith("_OR_POP"):
                    todo += [(end.next, after[:-1]), (end.target, after)]
                else:
                    todo += [(end.next, after[:-1]), (end.target, after[:-1])]
                continue
            nxt = b.succ[0] if b.succ else None
            if not any(x is it for x in after):
                found.add(nxt)  # the iterator popped, then a jump: break
                continue
            todo.append((nxt, after))
        if cuts - set(self.blocks):
            raise _Resplit(cuts - set(self.blocks))
        found.discard(None)
        # A break CPython sent to a copy of the code after the loop (a short
        # `return x`): the break goes to that code, the copy is its alias.
        aliases = set()
        for c in list(found):
            original = self.original_of(c, header)
            if original is not None and original != c:
                found.discard(c)
                found.add(original)
                aliases.add(c)
        self._aliases = aliases
        ahead = [o for o in found if o > header.start]
        if ahead:
            return min(ahead)
        return min(found) if found else None

    def _cut_after_pop(self, b, stack, it, depth, cuts):
        """Where block ``b`` pops the loop's iterator and then leaves the
        function, a cut after the pop: the rest is a copy of the code after
        the loop (a `break` CPython replaced with it)."""
        m = _Machine(self, list(stack), [], -1, None, dry=True)
        try:
            for ins in b.ins:
                if ins is b.end:
                    return
                m.step(ins)
                if not any(x is it for x in m.stack):
                    # only the iterator popped, nothing of the statement's own
                    # waiting (as `return x` in the loop leaves x)
                    if ins.op == "POP_TOP" and len(m.stack) == depth:
                        cuts.add(ins.next)
                    return
        except DecompileError:
            return

    def _shape_of(self, ins):
        return [(i.op, repr(i.argval)) for i in ins if i.op not in _NOOPS]

    def original_of(self, c, header):
        """The code after the loop at ``header`` that block ``c`` (which
        leaves the function) is a copy of, found from the loop's exit; None
        where there is none. Cuts a block where the copy starts inside it."""
        blk = self.blocks.get(c)
        if blk is None or blk.succ or blk.end is None:
            return None
        want = self._shape_of(blk.ins)
        start = header.ins[0].target
        seen, todo = set(), [start]
        while todo:
            off = todo.pop(0)
            if off is None or off in seen or off not in self.blocks or off == c:
                continue
            seen.add(off)
            b2 = self.blocks[off]
            for k in range(len(b2.ins)):
                if self._shape_of(b2.ins[k:]) == want:
                    if k == 0:
                        return off
                    raise _Resplit({b2.ins[k].offset})
            todo.extend(sn for sn in b2.succ if sn is not None and sn > header.start)
        return None

    def for_loop(self, header, stack, out, outer):
        """The ``for`` loop at ``header`` (FOR_ITER, the iterator on the
        stack): appended to ``out``; (offset after it, stack there)."""
        fi = header.ins[0]
        if not stack or not (isinstance(stack[-1], _Marker) and stack[-1].kind == "iter"):
            self.fail("cannot decompile: a loop over something that is not an iterator", fi.pos[0])
        it = stack[-1]
        rest = stack[:-1]
        exit_ = fi.target
        self._aliases = set()
        brk = self.for_break_target(header, rest, outer)
        if brk is None:
            brk = exit_
        loop = _Loop("for", {header.start}, brk)
        loop.break_alias = self._aliases
        body, _ = self.region(fi.next, rest + [it, _Marker("next", it)], None, loop, base=len(rest) + 1)
        if loop.target is None:
            self.fail("cannot decompile: a for loop without a target", fi.pos[0])
        _strip_tail(body, lambda s: isinstance(s, ast.Continue))
        orelse = []
        after_stack = rest
        if brk != exit_:
            orelse, after_stack = self.region(exit_, list(rest), brk, outer)
            if after_stack is None:
                after_stack = rest
        node = ast.For(target=loop.target, iter=it.value, body=body, orelse=orelse, type_comment=None)
        out.append(_at(node, _span([loop.target, it.value], fi.pos)))
        return brk, after_stack

    def while_loop(self, guard, start, stack, out, outer, block):
        """A ``while`` loop whose body starts at ``start``: with ``guard`` =
        (test, exit offset, guard block) where a test came first, else
        ``while True``. Appended to ``out``; (offset after it, stack there)."""
        if guard is None:
            test = _at(ast.Constant(value=True), block.ins[0].pos)
            heads = [start]
            brk = self.break_target(heads, None, stack, "while", outer)
            loop = _Loop("while", {start}, brk)
            body, _ = self.region(start, list(stack), None, loop, entry=True)
            _strip_tail(body, lambda s: isinstance(s, ast.Continue))
            node = ast.While(test=test, body=body, orelse=[])
            out.append(_at(node, block.ins[0].pos))
            return brk, (stack if brk is not None else None)
        cond, exit_, gstart = guard
        heads = [start] + ([gstart] if gstart in self.back else [])
        brk = self.break_target(heads, exit_, stack, "while", outer)
        loop = _Loop("while", {gstart}, brk, latch=(start, exit_))
        body, end_stack = self.region(start, list(stack), None, loop)
        _strip_tail(body, lambda s: isinstance(s, ast.Continue))
        orelse = []
        after_stack = stack
        if brk != exit_:
            orelse, s2 = self.region(exit_, list(stack), brk, outer)
        node = ast.While(test=cond, body=body, orelse=orelse)
        out.append(_at(node, _span([cond])))
        return brk, after_stack


def _same_code(a, b):
    """Whether two expressions are one piece of code read twice (the same
    instructions at the same positions)."""
    return ast.dump(a, include_attributes=True) == ast.dump(b, include_attributes=True)


def _same_state(a, b):
    """Whether two (offset, stack) states are one: the same block, the same values waiting."""
    return a[0] == b[0] and len(a[1]) == len(b[1]) and all(x is y for x, y in zip(a[1], b[1]))


def _common_tail(a, b):
    """How many statements ``a`` and ``b`` both end with (the same code, one
    that leaves: a copied ``return x``)."""
    k = 0
    while k < len(a) and k < len(b) and ast.dump(a[-1 - k]) == ast.dump(b[-1 - k]):
        k += 1
    if k and not isinstance(a[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return 0
    return k


def _line(node):
    return getattr(node, "lineno", None)


def _is_return_none(s):
    return isinstance(s, ast.Return) and (s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None))


def _strip_tail(body, redundant, top=True):
    """Drop what ends ``body`` (and the arms of an ``if`` ending it) without
    effect there: ``return None`` at a function's end, ``continue`` at a loop
    body's."""
    while len(body) > 1 and redundant(body[-1]):
        body.pop()
    if len(body) == 1 and redundant(body[0]) and top:
        body.pop()
    if body and isinstance(body[-1], ast.If):
        _strip_tail(body[-1].body, redundant, False)
        _strip_tail(body[-1].orelse, redundant, False)


# --- the symbolic machine -----------------------------------------------------------------------

class _Unpack:
    """One UNPACK_SEQUENCE: the value it unpacked and into how many."""

    def __init__(self, source, n):
        self.source, self.n = source, n


def _unpack_root(group):
    """(value unpacked, target tree) where the stores of ``group`` fill the
    elements of one unpacking (nested ones included) exactly; else None."""
    slots = {}
    for target, value in group:
        if not (isinstance(value, _Marker) and value.kind == "elem"):
            return None
        slots.setdefault(value.unpack, {})[value.index] = target
    # an element unpacked again is a nested target; the unpackings above
    # the stored ones may store nothing themselves
    children = {}
    units = set()
    todo = list(slots)
    while todo:
        u = todo.pop()
        if u in units:
            continue
        units.add(u)
        src = u.source
        if isinstance(src, _Marker) and src.kind == "elem":
            children[(id(src.unpack), src.index)] = u
            todo.append(src.unpack)
    roots = [u for u in units if not (isinstance(u.source, _Marker) and u.source.kind == "elem")]
    if len(roots) != 1:
        return None
    used = set()

    def tree(u):
        used.add(u)
        elts = []
        for k in range(u.n):
            child = children.get((id(u), k))
            if child is not None:
                elts.append(tree(child))
            elif k in slots.get(u, {}):
                elts.append(slots[u][k])
            else:
                return None
        if any(e is None for e in elts):
            return None
        return _at(ast.Tuple(elts=elts, ctx=ast.Store()), _span(elts))

    t = tree(roots[0])
    if t is None or used != units:
        return None
    return roots[0].source, t


# Instructions that only move what is on the stack.
_SHUFFLES = _NOOPS | {"POP_TOP", "SWAP", "COPY", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N", "DUP_TOP", "DUP_TOP_TWO"}

# How deep the stack must be for the instructions that move it.
_DEPTH = {"DUP_TOP": 1, "DUP_TOP_TWO": 2, "ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4, "ROT_N": "arg",
          "COPY": "arg", "SWAP": "arg"}


class _Machine:
    """Runs one block's instructions on a stack of expressions, appending
    the statements they make to ``out``."""

    def __init__(self, dec, stack, out, base, loop, dry=False):
        self.dec = dec
        self.stack = list(stack)
        self.out = out
        self.base = base
        self.loop = loop
        self.dry = dry
        self.wrote = False
        self.kwnames = ()
        self.group = None  # stores of one statement made while values wait on the stack

    # --- stack

    def pop(self, ins=None):
        if not self.stack:
            self.dec.fail("cannot decompile: the stack runs out", ins.pos[0] if ins else None)
        return self.stack.pop()

    def push(self, node):
        if isinstance(node, ast.AST) and not hasattr(node, "_cf_seq"):
            node._cf_seq = next(_SEQ)  # the order values are computed in
        self.stack.append(node)

    def expr(self, v, ins):
        if isinstance(v, _Marker):
            self.dec.fail("cannot decompile: a loop's iterator used as a value", ins.pos[0])
        return v

    def popn(self, n, ins):
        if n == 0:
            return []
        if len(self.stack) < n:
            self.dec.fail("cannot decompile: the stack runs out", ins.pos[0])
        vals = self.stack[-n:]
        del self.stack[-n:]
        return [self.expr(v, ins) for v in vals]

    # --- running

    def run(self, block):
        for ins in block.ins:
            if ins is block.end:
                break
            self.step(ins)
        if self.group is not None and not self.dry:
            line = block.ins[-1].pos[0]
            if len(self.group) == 1 and any(v is self.group[0][1] for v in self.stack):
                # the value stored is still on the stack, to be tested: `if (x := v):`
                self.dec.fail("Unsupported: assignment expressions (:=)", line, ast.NamedExpr)
            self.dec.fail("cannot decompile: an assignment split across blocks", line)

    def step(self, ins):
        op = ins.op
        pos = ins.pos
        if op in _NOOPS:
            return
        need = _DEPTH.get(op)
        if need is not None and len(self.stack) < (ins.arg if need == "arg" else need):
            self.dec.fail("cannot decompile: the stack runs out", pos[0])
        if op == "LOAD_CONST":
            self.push(_constant(ins.argval, pos))
        elif op in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_CLOSURE"):
            self.push(_at(ast.Name(id=ins.argval, ctx=ast.Load()), pos))
        elif op == "LOAD_FAST_LOAD_FAST":
            for n in ins.argval:
                self.push(_at(ast.Name(id=n, ctx=ast.Load()), pos))
        elif op in ("LOAD_ATTR", "LOAD_METHOD"):
            obj = self.expr(self.pop(ins), ins)
            self.push(_at(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Load()), _span([obj], pos)[:2] + pos[2:]))
        elif op == "LOAD_ASSERTION_ERROR":
            n = _at(ast.Name(id="AssertionError", ctx=ast.Load()), pos)
            n._cf_assertion = True
            self.push(n)
        elif op in ("STORE_FAST", "STORE_DEREF", "STORE_NAME"):
            self.store(_at(ast.Name(id=ins.argval, ctx=ast.Store()), pos), self.pop(ins), ins)
        elif op == "STORE_FAST_STORE_FAST":
            for n in ins.argval:
                self.store(_at(ast.Name(id=n, ctx=ast.Store()), pos), self.pop(ins), ins)
        elif op == "STORE_FAST_LOAD_FAST":
            a, b = ins.argval
            self.store(_at(ast.Name(id=a, ctx=ast.Store()), pos), self.pop(ins), ins)
            self.push(_at(ast.Name(id=b, ctx=ast.Load()), pos))
        elif op == "STORE_ATTR":
            obj = self.expr(self.pop(ins), ins)
            value = self.pop(ins)
            self.store(_at(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Store()), _span([obj], pos)), value, ins)
        elif op == "STORE_SUBSCR":
            index = self.expr(self.pop(ins), ins)
            obj = self.expr(self.pop(ins), ins)
            value = self.pop(ins)
            self.store(_at(ast.Subscript(value=obj, slice=index, ctx=ast.Store()), _span([obj, index], pos)), value,
                       ins)
        elif op == "STORE_SLICE":
            hi, lo, obj = (self.expr(self.pop(ins), ins) for _ in range(3))
            value = self.pop(ins)
            sl = self._slice(lo, hi, None, pos)
            self.store(_at(ast.Subscript(value=obj, slice=sl, ctx=ast.Store()), _span([obj], pos)), value, ins)
        elif op == "BINARY_SUBSCR":
            index = self.expr(self.pop(ins), ins)
            obj = self.expr(self.pop(ins), ins)
            self.push(_at(ast.Subscript(value=obj, slice=index, ctx=ast.Load()), _span([obj, index], pos)))
        elif op == "BINARY_SLICE":
            hi, lo, obj = (self.expr(self.pop(ins), ins) for _ in range(3))
            sl = self._slice(lo, hi, None, pos)
            self.push(_at(ast.Subscript(value=obj, slice=sl, ctx=ast.Load()), _span([obj], pos)))
        elif op == "BUILD_SLICE":
            parts = self.popn(ins.arg, ins)
            self.push(self._slice(*(parts + [None] * (3 - len(parts))), pos))
        elif op == "BINARY_OP" or op.startswith("BINARY_") or op.startswith("INPLACE_"):
            if op == "BINARY_OP":
                sym = ins.argrepr
                inplace = sym.endswith("=")
                sym = sym.rstrip("=") if inplace else sym
            else:
                kind, _, name = op.partition("_")
                sym = _OLD_BINARY.get(name)
                inplace = kind == "INPLACE"
            if sym not in _BINARY:
                self.dec.fail(f"Unsupported: bytecode instruction {op}", pos[0])
            right = self.expr(self.pop(ins), ins)
            left = self.expr(self.pop(ins), ins)
            node = _at(ast.BinOp(left=left, op=_BINARY[sym](), right=right), _span([left, right], pos))
            node._cf_inplace = inplace
            self.push(node)
        elif op in _UNARY:
            v = self.expr(self.pop(ins), ins)
            self.push(_at(ast.UnaryOp(op=_UNARY[op](), operand=v), _span([v], pos)))
        elif op == "CALL_INTRINSIC_1" and "LIST_TO_TUPLE" in str(ins.argrepr):
            self.step_list_to_tuple(ins)
        elif op == "CALL_INTRINSIC_1":
            if "UNARY_POSITIVE" not in str(ins.argrepr):
                self.dec.fail("Unsupported: star arguments and starred assignment (*x)", pos[0], ast.Starred)
            v = self.expr(self.pop(ins), ins)
            self.push(_at(ast.UnaryOp(op=ast.UAdd(), operand=v), _span([v], pos)))
        elif op == "LIST_EXTEND":
            # [a, *b]: the list being built (BUILD_LIST) gets b's elements
            v = self.expr(self.pop(ins), ins)
            lst = self.stack[-ins.arg] if len(self.stack) >= ins.arg else None
            if not isinstance(lst, ast.List):
                self.dec.fail("Unsupported: star arguments and starred assignment (*x)", pos[0], ast.Starred)
            lst.elts.append(_at(ast.Starred(value=v, ctx=ast.Load()), _span([v], pos)))
        elif op in ("FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC"):
            # f-strings (the walker decides where they may stand: an assert's message)
            spec = None
            if (op == "FORMAT_VALUE" and ins.arg & 4) or op == "FORMAT_WITH_SPEC":
                spec = self.expr(self.pop(ins), ins)
            v = self.expr(self.pop(ins), ins)
            conversion = {1: ord("s"), 2: ord("r"), 3: ord("a")}.get(ins.arg & 3, -1) if op == "FORMAT_VALUE" \
                else getattr(v, "_cf_conversion", -1)
            if spec is not None and not isinstance(spec, ast.JoinedStr):
                spec = _at(ast.JoinedStr(values=[spec]), _span([spec], pos))
            part = _at(ast.FormattedValue(value=v, conversion=conversion, format_spec=spec), _span([v], pos))
            self.push(_at(ast.JoinedStr(values=[part]), _span([v], pos)))
        elif op == "CONVERT_VALUE":  # 3.13: !s, !r, !a before FORMAT_SIMPLE
            v = self.stack[-1]
            if isinstance(v, ast.AST):
                v._cf_conversion = {1: ord("s"), 2: ord("r"), 3: ord("a")}.get(ins.arg, -1)
        elif op == "BUILD_STRING":
            parts = self.popn(ins.arg, ins)
            values = []
            for p_ in parts:
                values.extend(p_.values if isinstance(p_, ast.JoinedStr) else [p_])
            self.push(_at(ast.JoinedStr(values=values), _span(parts, pos) if parts else pos))
        elif op == "LIST_APPEND":  # f(*a, b): b joins the list of arguments
            v = self.expr(self.pop(ins), ins)
            lst = self.stack[-ins.arg] if len(self.stack) >= ins.arg else None
            if not isinstance(lst, ast.List):
                self.dec.fail("Unsupported: list comprehensions", pos[0], ast.ListComp)
            lst.elts.append(v)
        elif op == "CALL_FUNCTION_EX":
            if ins.arg & 1:
                self.dec.fail("Unsupported: keyword arguments collected with **kwargs", pos[0])
            star = self.expr(self.pop(ins), ins)
            fn = self.expr(self.pop(ins), ins)
            if isinstance(star, ast.Tuple) and getattr(star, "_cf_star", False):
                args = star.elts
            else:
                args = [_at(ast.Starred(value=star, ctx=ast.Load()), _span([star], pos))]
            self.push(_at(ast.Call(func=fn, args=args, keywords=[]), _span([fn], pos)[:2] + pos[2:]))
        elif op == "COMPARE_OP":
            sym = str(ins.argval)
            if sym.startswith("bool("):
                sym = sym[5:-1]
            right = self.expr(self.pop(ins), ins)
            left = self.expr(self.pop(ins), ins)
            self.push(_at(ast.Compare(left=left, ops=[_COMPARE[sym]()], comparators=[right]), _span([left, right], pos)))
        elif op in ("IS_OP", "CONTAINS_OP"):
            right = self.expr(self.pop(ins), ins)
            left = self.expr(self.pop(ins), ins)
            cmp = (ast.IsNot if ins.arg else ast.Is)() if op == "IS_OP" else (ast.NotIn if ins.arg else ast.In)()
            self.push(_at(ast.Compare(left=left, ops=[cmp], comparators=[right]), _span([left, right], pos)))
        elif op in ("BUILD_TUPLE", "BUILD_LIST"):
            elts = self.popn(ins.arg, ins)
            node = ast.Tuple(elts=elts, ctx=ast.Load()) if op == "BUILD_TUPLE" else ast.List(elts=elts, ctx=ast.Load())
            self.push(_at(node, _span(elts, pos) if elts else pos))
        elif op == "LIST_TO_TUPLE":
            self.step_list_to_tuple(ins)
        elif op == "KW_NAMES":
            self.kwnames = tuple(ins.argval)
        elif op in ("CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW", "CALL_KW"):
            kw = self.kwnames
            self.kwnames = ()
            if op in ("CALL_FUNCTION_KW", "CALL_KW"):
                names = self.pop(ins)
                kw = tuple(e.value for e in names.elts) if isinstance(names, ast.Tuple) else (names.value,)
            args = self.popn(ins.arg, ins)
            if _PY >= (3, 11) and len(self.stack) >= 2 and getattr(self.stack[-2], "_cf_assertion", False):
                args.insert(0, self.expr(self.pop(ins), ins))  # `assert c, msg`: the message sits where self would
            fn = self.expr(self.pop(ins), ins)
            npos = len(args) - len(kw)
            keywords = [_at(ast.keyword(arg=k, value=v), _span([v])) for k, v in zip(kw, args[npos:])]
            node = ast.Call(func=fn, args=args[:npos], keywords=keywords)
            self.push(_at(node, _span([fn] + args, pos)[:2] + pos[2:]))
        elif op == "GET_ITER":
            v = self.expr(self.pop(ins), ins)
            self.push(_Marker("iter", v, pos=pos))
        elif op == "UNPACK_SEQUENCE":
            v = self.pop(ins)
            n = ins.arg
            unpack = _Unpack(v, n)
            for k in reversed(range(n)):
                e = _Marker("elem", v, k, pos)
                e.unpack = unpack
                self.push(e)
        elif op == "POP_TOP":
            v = self.pop(ins)
            if isinstance(v, _Marker):
                return
            if getattr(v, "_cf_used", False):
                return  # a copy CPython made (a chained comparison's middle operand)
            if len(self.stack) == self.base or self.base < 0:
                self.emit(_at(ast.Expr(value=v), _span([v], pos)))
        elif op in ("DUP_TOP", "COPY") and (op == "DUP_TOP" or ins.arg >= 1):
            n = 1 if op == "DUP_TOP" else ins.arg
            v = self.stack[-n]
            self._mark_used(v)
            self.push(v)
        elif op == "DUP_TOP_TWO":
            a, b = self.stack[-2:]
            self._mark_used(a)
            self._mark_used(b)
            self.stack.extend([a, b])
        elif op in ("ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"):
            n = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(op, ins.arg)
            top = self.stack.pop()
            self.stack.insert(len(self.stack) - (n - 1), top)
        elif op == "SWAP":
            n = ins.arg
            self.stack[-1], self.stack[-n] = self.stack[-n], self.stack[-1]
        elif op in _REFUSED:
            self.dec.fail(f"Unsupported: bytecode instruction {op}", pos[0])
        else:
            self.dec.fail(f"Unsupported: bytecode instruction {op} (cuforge's bytecode frontend does not know it)",
                          pos[0])

    def step_list_to_tuple(self, ins):
        """(a, *b) and f(a, *b): the list built so far, as a tuple (marked:
        a call spreads its elements as its arguments)."""
        v = self.pop(ins)
        node = _at(ast.Tuple(elts=list(getattr(v, "elts", [v])), ctx=ast.Load()), ins.pos)
        node._cf_star = True
        self.push(node)

    @staticmethod
    def _mark_used(v):
        if isinstance(v, ast.AST):
            v._cf_used = True

    @staticmethod
    def _slice(lo, hi, step, pos):
        def bound(x):
            return None if x is None or (isinstance(x, ast.Constant) and x.value is None) else x
        return _at(ast.Slice(lower=bound(lo), upper=bound(hi), step=bound(step)), pos)

    # --- statements

    def emit(self, stmt):
        self.wrote = True
        if not self.dry:
            self.out.append(stmt)

    def store(self, target, value, ins):
        if self.dry:  # a trial run: only what the stack holds after it matters
            self.wrote = True
            return
        loop = self.loop
        if isinstance(value, _Marker) and value.kind == "next":
            if loop is None or loop.target is not None:
                self.dec.fail("cannot decompile: a loop's value stored twice", ins.pos[0])
            loop.target = target
            return
        self.wrote = True
        unpacked = isinstance(value, _Marker) and value.kind == "elem"
        if self.group is None and len(self.stack) <= self.base and not unpacked:
            self.emit(self.assign(target, value, ins))
            return
        if self.group is None:
            self.group = []
        self.group.append((target, value))
        if len(self.stack) <= self.base:
            group, self.group = self.group, None
            root = _unpack_root(group)
            if root is not None and isinstance(root[0], _Marker) and root[0].kind == "next":
                if loop is None or loop.target is not None:
                    self.dec.fail("cannot decompile: a loop's value stored twice", ins.pos[0])
                loop.target = root[1]
                return
            self.emit(self.multi_assign(group, ins, root))

    def assign(self, target, value, ins):
        if isinstance(value, _Marker):
            self.dec.fail("cannot decompile: an assignment of a loop's iterator", ins.pos[0])
        if isinstance(value, ast.BinOp) and getattr(value, "_cf_inplace", False) and _reads(value.left, target):
            node = ast.AugAssign(target=target, op=value.op, value=value.right)
            return _at(node, _span([target, value.right]))
        node = ast.Assign(targets=[target], value=value, type_comment=None)
        return _at(node, _span([target, value]))

    def multi_assign(self, group, ins, root=None):
        targets = [t for t, _ in group]
        values = [v for _, v in group]
        if all(v is values[0] for v in values) and not isinstance(values[0], _Marker):
            node = ast.Assign(targets=targets, value=values[0], type_comment=None)  # a = b = v
            return _at(node, _span(targets + [values[0]]))
        if root is not None:  # `a, (b, c) = t`
            src = self.expr(root[0], ins)
            return _at(ast.Assign(targets=[root[1]], value=src, type_comment=None), _span([root[1], src]))
        if any(isinstance(v, _Marker) for v in values):
            self.dec.fail("cannot decompile this assignment", ins.pos[0])
        # `a, b = f(), g()`: the values in the order they were computed (3.12
        # stores in another order where that is the same), each target with its own.
        pairs = sorted(group, key=lambda tv: getattr(tv[1], "_cf_seq", 0))
        targets = [t for t, _ in pairs]
        values = [self.expr(v, ins) for _, v in pairs]
        tgt = _at(ast.Tuple(elts=targets, ctx=ast.Store()), _span(targets))
        val = _at(ast.Tuple(elts=values, ctx=ast.Load()), _span(values))
        return _at(ast.Assign(targets=[tgt], value=val, type_comment=None), _span([tgt, val]))

    def raise_(self, ins):
        exc = cause = None
        if ins.arg == 2:
            cause = self.pop(ins)
        if ins.arg >= 1:
            exc = self.expr(self.pop(ins), ins)
        node = _at(ast.Raise(exc=exc, cause=cause), _span([exc], ins.pos) if exc is not None else ins.pos)
        return node


def _reads(load, target):
    """Whether the in-place operator's left operand ``load`` reads ``target``."""
    if isinstance(target, ast.Name):
        return isinstance(load, ast.Name) and load.id == target.id
    if isinstance(target, ast.Subscript):
        return isinstance(load, ast.Subscript) and load.value is target.value and load.slice is target.slice
    if isinstance(target, ast.Attribute):
        return isinstance(load, ast.Attribute) and load.value is target.value and load.attr == target.attr
    return False


def _assertion_of(s):
    """(True, message or None) where ``s`` raises the AssertionError an ``assert`` made, else None."""
    exc = s.exc
    msg = None
    if isinstance(exc, ast.Call) and not exc.keywords and len(exc.args) <= 1:
        msg = exc.args[0] if exc.args else None
        exc = exc.func
    if isinstance(exc, ast.Name) and getattr(exc, "_cf_assertion", False):
        return True, msg
    return None


def _assertions(body):
    """``if not c: raise AssertionError(msg)`` as CPython compiles ``assert``
    back to an assert statement, throughout ``body`` (a bare raise of it is
    ``assert False``: CPython drops a test that always fails)."""
    for k, s in enumerate(body):
        if isinstance(s, ast.If) and not s.orelse and len(s.body) == 1 and isinstance(s.body[0], ast.Raise) and \
                _assertion_of(s.body[0]) is not None:
            body[k] = _at(ast.Assert(test=_negate(s.test), msg=_assertion_of(s.body[0])[1]), _span([s.test]))
            continue
        if isinstance(s, ast.Raise) and _assertion_of(s) is not None:
            body[k] = _at(ast.Assert(test=_at(ast.Constant(value=False), _span([s])), msg=_assertion_of(s)[1]),
                          _span([s]))
            continue
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                _assertions(getattr(s, field))


def _tidy(body):
    """Statement lists as the parser makes them: no empty block."""
    for k, s in enumerate(body):
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                _tidy(getattr(s, field))
        if isinstance(s, ast.If) and not s.body:
            s.body = [_at(ast.Pass(), _span([s.test]))]  # `if c: pass else: ...`, as CPython compiles it
        if isinstance(s, (ast.For, ast.While)) and not s.body:
            s.body = [_at(ast.Pass(), _span([s]))]


def code_digest(code):
    """A digest of what a code object computes and where it says it came
    from (bytecode, constants, names, line table), stable across runs
    (marshal's output is not): the disk cache's key for a function without
    source."""
    import hashlib

    h = hashlib.sha256()

    def add(*parts):
        for p in parts:
            h.update(repr(p).encode("utf-8", "surrogatepass"))
            h.update(b"\0")

    def walk(c):
        add(c.co_name, getattr(c, "co_qualname", c.co_name), c.co_filename, c.co_firstlineno, c.co_argcount,
            c.co_posonlyargcount, c.co_kwonlyargcount, c.co_flags, c.co_names, c.co_varnames, c.co_freevars,
            c.co_cellvars, c.co_code, getattr(c, "co_linetable", None) or getattr(c, "co_lnotab", None))
        for k in c.co_consts:
            if hasattr(k, "co_code"):
                walk(k)
            else:
                add(type(k).__name__, k)

    add(sys.implementation.cache_tag)
    walk(code)
    return h.hexdigest()


def _recompiled(func, tree):
    """The code object Python makes of ``tree`` (in a function giving it the
    same free variables, so that they stay closure cells)."""
    code = func.__code__
    fn = copy.deepcopy(tree)
    if code.co_freevars:
        cells = [ast.Assign(targets=[ast.Name(id=v, ctx=ast.Store())], value=ast.Constant(value=None))
                 for v in code.co_freevars]
        outer = ast.FunctionDef(name="__cuforge_cells", args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                                body=cells + [fn, ast.Return(value=ast.Name(id=fn.name, ctx=ast.Load()))],
                                decorator_list=[], returns=None, type_comment=None)
        if sys.version_info >= (3, 12):
            outer.type_params = []
        module = ast.Module(body=[outer], type_ignores=[])
    else:
        module = ast.Module(body=[fn], type_ignores=[])
    for node in ast.walk(module):  # the wrapper's nodes: at the function's first line
        if isinstance(node, (ast.stmt, ast.expr)) and getattr(node, "lineno", None) is None:
            _at(node, (code.co_firstlineno, 0, code.co_firstlineno, 0))
    ast.fix_missing_locations(module)
    todo = [compile(module, code.co_filename, "exec")]
    while todo:
        c = todo.pop()
        for k in c.co_consts:
            if hasattr(k, "co_code"):
                if k.co_name == code.co_name and k.co_freevars == code.co_freevars:
                    return k
                todo.append(k)
    return None


_LAYOUT_ONLY = {"NOP", "RESUME", "CACHE", "EXTENDED_ARG", "PRECALL", "PUSH_NULL"}
# Spellings the compiler picks from context the tree does not carry (3.11
# loads a method of an imported module with LOAD_ATTR): one name each.
_SAME_AS = {"LOAD_METHOD": "LOAD_ATTR", "CALL_METHOD": "CALL_FUNCTION", "LOAD_FAST_CHECK": "LOAD_FAST"}


def _shape(code):
    """A code object's instructions without what only lays them out: each
    (name, argument), a jump's argument the index of its target."""
    ins = [i for i in dis.get_instructions(code) if i.opname not in _LAYOUT_ONLY]
    index = {i.offset: k for k, i in enumerate(ins)}
    # a jump to a dropped instruction goes to the next kept one
    offsets = sorted(index)
    out = []
    for i in ins:
        arg = i.argval
        if i.opname in _UNCOND or i.opname in _COND or i.opname in ("FOR_ITER", "SEND"):
            nxt = next((o for o in offsets if o >= arg), None)
            arg = ("->", index.get(nxt))
        elif hasattr(arg, "co_code"):
            arg = ("code", arg.co_name)
        elif isinstance(arg, float) and arg != arg:
            arg = ("nan",)
        else:
            arg = (type(arg).__name__, repr(arg))
        out.append((_SAME_AS.get(i.opname, i.opname), arg))
    return _canonical_jumps(out)


def _jump_kind(op):
    """("jump", None) for an unconditional jump, ("if", truth) for a popping
    conditional one (POP_JUMP_[FORWARD_|BACKWARD_]IF_TRUE/FALSE), else None."""
    if op in _UNCOND:
        return "jump", None
    if op.startswith("POP_JUMP_") and op.endswith(("_IF_TRUE", "_IF_FALSE")):
        return "if", op.endswith("_TRUE")
    return None


def _canonical_jumps(shape):
    """A shape with the layouts CPython picks between for one control flow
    made one: jump names without their direction, a jump to a jump going
    straight on, and a conditional jump over a jump (``if not c: goto T``
    then ``goto U``) the inverted jump to U."""
    shape = [(("JUMP" if _jump_kind(op) == ("jump", None) else
               ("POP_JUMP_IF_TRUE" if _jump_kind(op)[1] else "POP_JUMP_IF_FALSE") if _jump_kind(op) else op), arg)
             for op, arg in shape]
    changed = True
    while changed:
        changed = False
        # a conditional jump over a jump
        for k in range(len(shape) - 1):
            op, arg = shape[k]
            if op in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE") and arg == ("->", k + 2) and shape[k + 1][0] == "JUMP":
                other = "POP_JUMP_IF_FALSE" if op == "POP_JUMP_IF_TRUE" else "POP_JUMP_IF_TRUE"
                target = shape[k + 1][1][1]
                shape = [_shifted(e, k + 1) for e in shape[:k] + [(other, ("->", target))] + shape[k + 2:]]
                changed = True
                break
        if changed:
            continue
        # a jump to a jump
        for k, (op, arg) in enumerate(shape):
            if _target(arg) is not None and arg[1] < len(shape):
                seen = set()
                t = arg[1]
                while t < len(shape) and shape[t][0] == "JUMP" and t not in seen and _target(shape[t][1]) is not None:
                    seen.add(t)
                    t = shape[t][1][1]
                if t != arg[1]:
                    shape[k] = (op, ("->", t))
                    changed = True
        # code no jump reaches (CPython leaves some)
        kept = _reachable(shape)
        if len(kept) != len(shape):
            index = {old: new for new, old in enumerate(kept)}
            shape = [(op, ("->", index.get(arg[1], len(kept))) if _target(arg) is not None else arg)
                     for op, arg in (shape[k] for k in kept)]
            changed = True
    return shape


def _target(arg):
    return arg[1] if isinstance(arg, tuple) and arg[:1] == ("->",) and arg[1] is not None else None


_TERMINAL = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP"}


def _reachable(shape):
    """The indices of the instructions control can reach from the first."""
    seen, todo = set(), [0]
    while todo:
        k = todo.pop()
        if k in seen or k >= len(shape):
            continue
        seen.add(k)
        op, arg = shape[k]
        if _target(arg) is not None:
            todo.append(arg[1])
        if op not in _TERMINAL:
            todo.append(k + 1)
    return sorted(seen)


def _shifted(entry, removed):
    """``entry`` with its jump target renumbered after instruction ``removed`` is taken out."""
    op, arg = entry
    if isinstance(arg, tuple) and arg[:1] == ("->",) and arg[1] is not None and arg[1] > removed:
        return op, ("->", arg[1] - 1)
    return entry


def verify(func, tree):
    """Whether ``tree`` compiles back to ``func``'s own instructions (names,
    constants and control flow; not lines): proof that the decompiler read
    it right. None where it cannot be told (Python will not compile the
    tree)."""
    try:
        again = _recompiled(func, tree)
    except (SyntaxError, ValueError, TypeError):
        return None
    if again is None:
        return None
    return _shape(again) == _shape(func.__code__)


def decompile(func):
    """The ``ast.FunctionDef`` of a Python function, rebuilt from its code
    object (a lambda's as ``def <lambda>(...): return <expr>``).
    DecompileError where it is not in the kernel language."""
    code = func.__code__
    if not supported():
        v = ".".join(map(str, _PY))
        known = ", ".join(f"{a}.{b}" for a, b in SUPPORTED)
        raise DecompileError(f"cuforge cannot read the bytecode of Python {v} (it reads Python {known}); define "
                             "the function in a file so that its source can be read", code.co_firstlineno)
    if code.co_flags & 0x20 or code.co_flags & 0x80 or code.co_flags & 0x100 or code.co_flags & 0x200:
        raise DecompileError("Unsupported: yield", code.co_firstlineno, ast.Yield)
    # The first reading whose tree compiles back to these very instructions
    # (verify): a shape read wrong never reaches the compiler.
    first_error, read_any = None, False
    for style in _STYLES:
        try:
            fn = _read(func, style)
        except DecompileError as e:
            if e.construct is not None:  # outside the language: no reading changes that
                raise
            first_error = first_error or e
            continue
        read_any = True
        if verify(func, fn) is not False:
            return fn
    version = ".".join(map(str, _PY))
    if read_any or first_error is None:
        why = f"back exactly (Python {version} compiled it to a shape cuforge does not know)"
        line = code.co_firstlineno
    else:
        why = f"({first_error.message.replace('cannot decompile: ', '')})"
        line = first_error.lineno or code.co_firstlineno
    raise DecompileError(f"cuforge could not read the bytecode of {code.co_name} {why}; define it in a file so "
                         "that its source can be read", line)


# Readings tried in turn, the one most kernels are written as first: `if
# c: x` ending a loop body (else `if not c: continue` then x); no `return`
# where the function ends anyway (else each `return None` CPython kept);
# statements both arms of an `if` end with once, after it (else in each);
# arms meeting at a `return` meet there (else each returns by itself); a
# loop's iterator popped before a `return` is a break to a copy of the code
# after the loop (else the return itself: 3.11 pops first for `return 1.5`).
_STYLES = tuple({"flip_loop_end": flip, "strip_returns": strip, "factor_tails": factor, "leave_in_arms": leave,
                 "break_copies": copies}
                for copies in (True, False) for flip in (True, False) for leave in (False, True)
                for strip in (True, False) for factor in (True, False))


def _read(func, style):
    cuts = set()
    for _ in range(16):
        try:
            fn = _Decompiler(func, style, cuts).function()
            break
        except _Resplit as more:
            if more.offsets <= cuts:
                raise DecompileError("cannot decompile: the blocks will not settle", func.__code__.co_firstlineno)
            cuts |= more.offsets
    else:
        raise DecompileError("cannot decompile: the blocks will not settle", func.__code__.co_firstlineno)
    _assertions(fn.body)
    _tidy(fn.body)
    _refuse_shared(fn)
    for n in ast.walk(fn):  # the decompiler's marks are not part of the tree
        for a in ("_cf_used", "_cf_inplace", "_cf_assertion", "_cf_seq", "_cf_star", "_cf_conversion"):
            if a in n.__dict__:
                delattr(n, a)
    return fn


def _refuse_shared(fn):
    """An expression placed twice in the tree would run twice: never."""
    seen = set()
    for n in ast.walk(fn):
        for child in ast.iter_child_nodes(n):
            if isinstance(child, ast.expr) and not isinstance(child, (ast.Name, ast.Constant)):
                if id(child) in seen:
                    raise DecompileError("cannot decompile: a value CPython computes once would be computed twice",
                                         getattr(child, "lineno", None))
                seen.add(id(child))

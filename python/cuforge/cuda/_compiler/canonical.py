"""One spelling for the programs CPython's bytecode cannot tell apart.

Comparing the two fronts (CUFORGE_FRONTEND=compare; docs/compiler.md,
"Two fronts") needs this: CPython compiles ``if a:`` holding only ``if b:``
and ``if a and b:`` to the same bytecode, drops code after a ``return``,
folds constants, copies the ``return`` after a loop in place of its
``break``, and so on, so the bytecode front cannot give back the source's
shape there. When the typed IR of the two fronts differs, both trees are
rewritten by :func:`canonical` and compared again. Every rewrite keeps
what the program does (each is one of CPython's own):

- constants folded (``-1``, ``2 ** 10``), branches on a constant condition
  replaced by the branch taken, ``while False:`` by its ``else``;
- statements after ``return``/``raise``/``break``/``continue`` (or after an
  ``if`` whose both arms leave) dropped;
- ``if a:`` holding only ``if b:`` (no ``else`` on either) is ``if a and b:``;
- conditions in negation normal form (``not`` on the leaves only);
- an ``if``/``else`` whose first arm leaves is the ``if``, then the ``else``
  code; an ``if`` whose arms end alike (a ``return``) ends once, after it;
  an ``if`` whose body would be empty is turned round;
- a loop's ``else`` without a ``break`` in the loop runs after it; a
  ``break`` of a loop followed by ``return x`` (or ending the function) is
  ``return x``; a ``while`` whose body always leaves (no jump back) is an
  ``if``;
- ``x and True`` tested is ``x`` (operands that cannot change a test's
  outcome dropped; a test fixed by constants is that constant);
- ``if c: continue`` followed by the rest of a loop's body is ``if not c:``
  the rest; ``continue`` ending a loop's body, and ``return None`` ending
  the function, are dropped; at the function's end, ``if c: ...; return``
  then the rest is ``if c: ... else:`` the rest; ``assert False`` ends its
  block as ``raise`` does.

It is used only to compare; nothing compiles from its output otherwise.
"""

from __future__ import annotations

import ast
import copy
import operator

__all__ = ["canonical"]

_LEAVE = (ast.Return, ast.Raise, ast.Break, ast.Continue)

_FOLD_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
             ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
             ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
             ast.BitXor: operator.xor, ast.BitAnd: operator.and_}
_FOLD_UN = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}


def canonical(fn):
    """A copy of the ``ast.FunctionDef`` ``fn`` in the one spelling."""
    fn = copy.deepcopy(fn)
    fn = _Fold().visit(fn)
    for _ in range(8):  # to a fixed point (each pass may expose another rewrite)
        before = ast.dump(fn)
        if fn.body and isinstance(fn.body[-1], (ast.For, ast.While)):
            fn.body.append(ast.Return(value=None))  # what the end of the function is: a loop's break goes there
        fn.body = _block(fn.body, in_loop=False)
        fn.body = _tail_else(fn.body)
        _drop_tail(fn.body, _is_return_none)
        if ast.dump(fn) == before:
            break
    ast.fix_missing_locations(fn)
    return fn


def _is_number(v):
    return type(v) in (int, float, complex, bool)


class _Fold(ast.NodeTransformer):
    """Constants folded as CPython's AST optimiser folds them."""

    def visit_IfExp(self, node):
        self.generic_visit(node)
        t = _truth(node.test)
        return node if t is None else (node.body if t else node.orelse)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.operand, ast.Constant) and _is_number(node.operand.value) and type(node.op) in _FOLD_UN:
            try:
                return ast.copy_location(ast.Constant(value=_FOLD_UN[type(node.op)](node.operand.value)), node)
            except Exception:
                return node
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b = node.left, node.right
        if isinstance(a, ast.Constant) and isinstance(b, ast.Constant) and _is_number(a.value) and \
                _is_number(b.value) and type(node.op) in _FOLD_BIN:
            if isinstance(node.op, (ast.Pow, ast.LShift)) and isinstance(b.value, int) and b.value > 128:
                return node
            try:
                v = _FOLD_BIN[type(node.op)](a.value, b.value)
            except Exception:
                return node
            if isinstance(v, int) and v.bit_length() > 128:
                return node
            return ast.copy_location(ast.Constant(value=v), node)
        return node


def _truth(e):
    """True/False where ``e``'s truth is fixed (constants), else None."""
    if isinstance(e, ast.Constant):
        try:
            return bool(e.value)
        except Exception:
            return None
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        t = _truth(e.operand)
        return None if t is None else not t
    if isinstance(e, ast.BoolOp):
        decisive = isinstance(e.op, ast.Or)  # the truth that ends an `or`; an `and` ends on False
        truths = [_truth(v) for v in e.values]
        for k, t in enumerate(truths):
            if t is decisive and all(_pure(v) for v in e.values[:k]):
                return decisive
        if all(t is (not decisive) for t in truths):
            return not decisive
    return None


def _pure(e):
    """Whether evaluating ``e`` can do nothing but give a value (no calls, no subscripts)."""
    return all(isinstance(n, (ast.Name, ast.Constant, ast.Compare, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Load,
                              ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.expr_context))
               for n in ast.walk(e))


def _condition(e):
    """A condition as CPython tests it: in negation normal form, operands
    whose truth cannot change the outcome (``x and True``) dropped."""
    e = _nnf(e)
    if isinstance(e, ast.BoolOp):
        keep = not isinstance(e.op, ast.Or)  # the truth an operand may have and be dropped
        values = [v for v in (_condition(v) for v in e.values) if _truth(v) is not keep]
        if not values:
            return ast.Constant(value=keep)
        e = values[0] if len(values) == 1 else _flat(ast.BoolOp(op=e.op, values=values))
    return e


def _nnf(e):
    """A condition with ``not`` pushed down to its leaves."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        inner = e.operand
        if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.Not):
            return _nnf(inner.operand)
        if isinstance(inner, ast.BoolOp):
            flipped = ast.Or() if isinstance(inner.op, ast.And) else ast.And()
            return _flat(ast.BoolOp(op=flipped, values=[_nnf(_not(v)) for v in inner.values]))
        return e
    if isinstance(e, ast.BoolOp):
        return _flat(ast.BoolOp(op=e.op, values=[_nnf(v) for v in e.values]))
    return e


def _not(e):
    return ast.UnaryOp(op=ast.Not(), operand=e)


def _flat(e):
    values = []
    for v in e.values:
        if isinstance(v, ast.BoolOp) and type(v.op) is type(e.op):
            values.extend(v.values)
        else:
            values.append(v)
    e.values = values
    return e


def _always_raises(s):
    """``assert False``: CPython drops what follows it."""
    return isinstance(s, ast.Assert) and _truth(s.test) is False


def _leaves(stmts):
    """Whether control never runs past the end of ``stmts``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, _LEAVE) or _always_raises(last):
        return True
    if isinstance(last, ast.If):
        return _leaves(last.body) and _leaves(last.orelse)
    return False


def _has_break(stmts):
    """Whether ``stmts`` break out of the loop they are the body of."""
    for s in stmts:
        if isinstance(s, ast.Break):
            return True
        if isinstance(s, ast.If) and (_has_break(s.body) or _has_break(s.orelse)):
            return True
        if isinstance(s, (ast.For, ast.While)) and _has_break(s.orelse):
            return True
    return False


def _has(stmts, kind):
    """Whether ``stmts`` hold a ``kind`` statement of their own loop (not of loops inside)."""
    for s in stmts:
        if isinstance(s, kind):
            return True
        if isinstance(s, ast.If) and (_has(s.body, kind) or _has(s.orelse, kind)):
            return True
    return False


def _breaks_only_last(stmts):
    """Whether every ``break`` of ``stmts`` (their own loop's) ends them or a final ``if``'s arm."""
    for k, s in enumerate(stmts):
        last = k == len(stmts) - 1
        if isinstance(s, ast.Break) and not last:
            return False
        if isinstance(s, ast.If):
            if not last and (_has(s.body, ast.Break) or _has(s.orelse, ast.Break)):
                return False
            if last and not (_breaks_only_last(s.body) and _breaks_only_last(s.orelse)):
                return False
    return True


def _drop_breaks(stmts):
    """``stmts`` without their final breaks (_breaks_only_last holds)."""
    stmts = [s for s in stmts if not isinstance(s, ast.Break)]
    if stmts and isinstance(stmts[-1], ast.If):
        stmts[-1].body = _drop_breaks(stmts[-1].body)
        stmts[-1].orelse = _drop_breaks(stmts[-1].orelse)
    return stmts


def _replace_breaks(stmts, ret):
    out = []
    for s in stmts:
        if isinstance(s, ast.Break):
            out.append(copy.deepcopy(ret))
            continue
        if isinstance(s, ast.If):
            s.body = _replace_breaks(s.body, ret)
            s.orelse = _replace_breaks(s.orelse, ret)
        if isinstance(s, (ast.For, ast.While)):
            s.orelse = _replace_breaks(s.orelse, ret)
        out.append(s)
    return out


def _block(stmts, in_loop, loop_body=False):
    """``stmts`` rewritten; ``loop_body``: they are a loop's body (its end is the next turn)."""
    out = []
    for s in stmts:
        out.extend(_stmt(s, in_loop))
    stmts = out
    out = []
    for k, s in enumerate(stmts):
        # a loop followed by `return x`: its breaks are that return
        if isinstance(s, (ast.For, ast.While)) and k + 1 < len(stmts) and isinstance(stmts[k + 1], ast.Return):
            s.body = _replace_breaks(s.body, stmts[k + 1])
        # `if c: continue` then the rest of a loop body: `if not c:` the rest
        if loop_body and isinstance(s, ast.If) and not s.orelse and len(s.body) == 1 and \
                isinstance(s.body[0], ast.Continue) and k + 1 < len(stmts):
            rest = stmts[k + 1:]
            out.append(ast.If(test=_nnf(_not(s.test)), body=_block(rest, in_loop, True), orelse=[]))
            return _tidy(out)
        out.append(s)
        if isinstance(s, _LEAVE) or _always_raises(s) or \
                (isinstance(s, ast.If) and _leaves(s.body) and _leaves(s.orelse)):
            break  # what follows never runs
    return _tidy(out)


def _tidy(out):
    # statements both arms of a final `if` end with come once, after it
    if out and isinstance(out[-1], ast.If) and out[-1].body and out[-1].orelse:
        s = out[-1]
        tail = []
        while s.body and s.orelse and ast.dump(s.body[-1]) == ast.dump(s.orelse[-1]) and \
                (tail or isinstance(s.body[-1], _LEAVE)):
            tail.insert(0, s.body.pop())
            s.orelse.pop()
        if tail:
            if not s.body:
                s.body = [ast.Pass()]
            out.extend(tail)
    return out


def _tail_else(body):
    """At the function's end, ``if c: T; return`` then the rest is ``if c: T
    else: rest`` (both end the function): one spelling for the two."""
    for k, s in enumerate(body):
        if isinstance(s, ast.If) and not s.orelse and s.body and _is_return_none(s.body[-1]) and k + 1 < len(body):
            s.body = s.body[:-1] or [ast.Pass()]
            s.orelse = _tail_else(body[k + 1:])
            return body[:k + 1]
    if body and isinstance(body[-1], ast.If):
        body[-1].body = _tail_else(body[-1].body)
        body[-1].orelse = _tail_else(body[-1].orelse)
    return body


def _drop_tail(body, redundant):
    while body and redundant(body[-1]):
        body.pop()
    if body and isinstance(body[-1], ast.If):
        _drop_tail(body[-1].body, redundant)
        _drop_tail(body[-1].orelse, redundant)


def _is_return_none(s):
    return isinstance(s, ast.Return) and (s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None))


def _stmt(s, in_loop):
    """The statements ``s`` becomes."""
    if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
        return []
    if isinstance(s, ast.If):
        s.test = _condition(s.test)
        t = _truth(s.test)
        if t is not None:
            return _block(s.body if t else s.orelse, in_loop)
        s.body = _block(s.body, in_loop)
        s.orelse = _block(s.orelse, in_loop)
        if not s.body and not s.orelse:
            return [ast.Expr(value=s.test)] if not isinstance(s.test, (ast.Name, ast.Constant)) else []
        if not s.body:
            s.test, s.body, s.orelse = _nnf(_not(s.test)), s.orelse, []
        # if a: (if b: x) -> if a and b: x
        if not s.orelse and len(s.body) == 1 and isinstance(s.body[0], ast.If) and not s.body[0].orelse:
            inner = s.body[0]
            s.test = _flat(ast.BoolOp(op=ast.And(), values=[s.test, inner.test]))
            s.body = inner.body
        if _leaves(s.body) and s.orelse:
            rest, s.orelse = s.orelse, []
            return [s] + rest
        return [s]
    if isinstance(s, ast.While):
        s.test = _condition(s.test)
        t = _truth(s.test)
        if t is False:
            return _block(s.orelse, in_loop)
        if t is True:
            s.test = ast.Constant(value=True)
        s.body = _block(s.body, True, True)
        _drop_tail(s.body, lambda x: isinstance(x, ast.Continue))
        s.orelse = _block(s.orelse, in_loop)
        if t is not True and _leaves(s.body) and not _has(s.body, ast.Continue) and _breaks_only_last(s.body):
            # a loop that never turns round (CPython gives it no jump back): an `if`
            return _stmt(ast.If(test=s.test, body=_drop_breaks(s.body), orelse=s.orelse), in_loop)
        if s.orelse and (t is True or not _has_break(s.body)):
            rest, s.orelse = ([] if t is True else s.orelse), []
            return [s] + rest
        return [s]
    if isinstance(s, ast.For):
        s.body = _block(s.body, True, True)
        _drop_tail(s.body, lambda x: isinstance(x, ast.Continue))
        s.orelse = _block(s.orelse, in_loop)
        if s.orelse and not _has_break(s.body):
            rest, s.orelse = s.orelse, []
            return [s] + rest
        return [s]
    if isinstance(s, ast.Assert):
        s.test = _nnf(s.test)
    return [s]

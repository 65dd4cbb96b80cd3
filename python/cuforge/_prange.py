"""``parallel=True`` for the host jit: a top-level ``prange`` loop spread
over the cores (docs/high_level.md).

The function is split at its first top-level ``for v in prange(...)``
into three functions, each compiled as host code by the host jit (the
suffix split again at its own first one, so every top-level prange loop
runs in parallel):

- the *prefix* (the statements before the loop) returns the variables the
  loop and the rest read, and the loop's start, stop and step;
- the *body* runs the iterations ``range(lo, hi, step)`` of one chunk with
  each reduction variable started at its operator's identity, and stores
  the chunk's partial reductions in arrays;
- the *suffix* (the statements after the loop) gets the variables and the
  reductions, combined here in chunk order with their initial values.

Chunks run on the host pool (jit/host_call.hpp). Reductions are numba's:
a variable defined before the loop and only updated in it by ``+= -= *=
|= &= ^=`` or ``x = min(x, e)`` / ``max``. Variables only assigned inside
the loop are private to each iteration. A function that does not fit
(a return or ``break`` inside the loop, a reduction it cannot recognise, the
loop variable or a private read after the loop, a value made before the
loop that a host-jitted function cannot return) runs serially, with the loop as a ``range``, as numba's
``parallel=True`` falls back when it cannot parallelise.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import warnings

import numpy as np

from cuforge import _core
from cuforge import types as cftypes

_REDUCE_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^"}
_IDENTITY = {"+": 0, "-": 0, "*": 1, "|": 0, "^": 0}


class NotParallel(Exception):
    """Why a function runs serially."""


def _names(nodes, ctx):
    found = set()
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ctx):
                found.add(n.id)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and ctx is ast.Load:
                found.add(n.target.id)
    return found


def _is_prange_call(node, pyfunc):
    from cuforge.cuda._compiler.walker import _is_prange

    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    closure = dict(zip(pyfunc.__code__.co_freevars, (c.cell_contents for c in pyfunc.__closure__ or ())))
    value = closure.get(node.func.id, pyfunc.__globals__.get(node.func.id))
    return _is_prange(value)


def _reduction_of(name, body):
    """The operator reducing ``name`` in the loop ``body`` ("+", "min", ...),
    or None when it is not (only) a reduction there: every assignment to it
    an update by one operator, and no other read of it."""
    ops = set()
    allowed = set()  # the Name nodes that read it inside its own min/max update
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
                op = _REDUCE_OPS.get(type(n.op))
                if op is None:
                    return None
                ops.add(op)
            elif isinstance(n, (ast.Assign, ast.AnnAssign)) and name in _names([n], ast.Store):
                v = n.value
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                if (len(targets) == 1 and isinstance(targets[0], ast.Name) and isinstance(v, ast.BinOp)
                        and type(v.op) in _REDUCE_OPS):
                    # x = x op e (or x = e op x for the commutative ones)
                    op = _REDUCE_OPS[type(v.op)]
                    left = isinstance(v.left, ast.Name) and v.left.id == name
                    right = isinstance(v.right, ast.Name) and v.right.id == name and op != "-"
                    if left != right:
                        mine, other = (v.left, v.right) if left else (v.right, v.left)
                        if name not in _names([other], ast.Load):
                            allowed.add(id(mine))
                            ops.add(op)
                            continue
                    return None
                if not (len(targets) == 1 and isinstance(targets[0], ast.Name) and isinstance(v, ast.Call)
                        and isinstance(v.func, ast.Name) and v.func.id in ("min", "max") and len(v.args) == 2
                        and not v.keywords):
                    return None
                mine = [a for a in v.args if isinstance(a, ast.Name) and a.id == name]
                if len(mine) != 1:
                    return None
                allowed.add(id(mine[0]))
                ops.add(v.func.id)
    reads = [n for stmt in body for n in ast.walk(stmt)
             if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if any(id(n) not in allowed for n in reads) or len(ops) != 1:
        return None
    op = ops.pop()
    return "+" if op == "-" else op  # x -= e: each chunk sums -e from 0, and the chunks add


class Plan:
    """The split of one function (see the module comment)."""

    def __init__(self, pyfunc, error_model="python"):
        self.pyfunc = pyfunc
        # The function's own error model outside the loops; inside a prange loop numba's parallel
        # code divides as NumPy does (1.0 / 0.0 is inf there, ZeroDivisionError outside).
        self.error_model = error_model
        try:
            fn = ast.parse(textwrap.dedent(inspect.getsource(pyfunc))).body[0]
        except (OSError, TypeError, SyntaxError, IndexError):
            # No source (exec'd, `python -c`): the tree from its bytecode.
            from cuforge.cuda._compiler import bytecode

            try:
                fn = bytecode.decompile(pyfunc)
            except bytecode.DecompileError as e:
                raise NotParallel(f"no source, and its bytecode: {e.message}") from None
        if not isinstance(fn, ast.FunctionDef):
            raise NotParallel("not a plain function")
        params = [a.arg for a in fn.args.args]
        if fn.args.vararg or fn.args.kwonlyargs or fn.args.kwarg or fn.args.posonlyargs:
            raise NotParallel("its parameters are not plain positional ones")
        k = next((i for i, s in enumerate(fn.body) if isinstance(s, ast.For) and _is_prange_call(s.iter, pyfunc)),
                 None)
        if k is None:
            raise NotParallel("no prange loop at the top level of the function")
        loop = fn.body[k]
        prefix, suffix = fn.body[:k], fn.body[k + 1:]
        if loop.orelse or not isinstance(loop.target, ast.Name):
            raise NotParallel("the prange loop has an else or a tuple target")
        if not 1 <= len(loop.iter.args) <= 3 or loop.iter.keywords:
            raise NotParallel("prange takes 1 to 3 positional arguments")
        if any(isinstance(n, ast.Return) for s in prefix + [loop] for n in ast.walk(s)):
            raise NotParallel("a return before or inside the prange loop")
        if any(isinstance(n, ast.Break) for s in loop.body for n in _own_level(s)):
            raise NotParallel("a break out of the prange loop")
        var = loop.target.id
        before = set(params) | _names(prefix, ast.Store)
        in_loop = _names(loop.body, ast.Store)
        reductions = {}
        for name in sorted(in_loop & before):
            op = _reduction_of(name, loop.body)
            if op is None:
                raise NotParallel(f"{name!r} is assigned in the prange loop but is not a reduction")
            reductions[name] = op
        private = (in_loop - before) | {var}
        suffix_reads = _names(suffix, ast.Load)
        if suffix_reads & private:
            raise NotParallel(f"{sorted(suffix_reads & private)[0]!r} is read after the prange loop, which makes it")
        loop_reads = _names(loop.body, ast.Load) - private
        assigned_before = _names(prefix, ast.Store)
        live = sorted(((loop_reads | suffix_reads) & assigned_before) | (set(reductions) & assigned_before))
        passed = [p for p in params if p not in assigned_before]  # parameters the prefix leaves alone
        self.params, self.passed, self.live, self.reductions, self.var = params, passed, live, reductions, var
        name = pyfunc.__name__
        rng = [ast.unparse(a) for a in loop.iter.args]
        start, stop, step = ("0", rng[0], "1") if len(rng) == 1 else (rng[0], rng[1], "1") if len(rng) == 2 else rng
        prefix_src = "\n".join(ast.unparse(s) for s in prefix) or "pass"
        outs = live + [f"({start})", f"({stop})", f"({step})"]
        self.pre_src = (f"def __prange_pre_{name}({', '.join(params)}):\n"
                        + textwrap.indent(prefix_src, "    ") + f"\n    return ({', '.join(outs)},)\n")
        red_names = list(reductions)
        init = []
        for r in red_names:
            op = reductions[r]
            init.append(f"    {r} = __rinit_{r}" if op in ("min", "max") else
                        f"    {r} = __T_{r}__({_IDENTITY[op]})")
        body_params = ["__lo", "__hi", "__step", *passed, *[x for x in live if x not in reductions],
                       *[f"__rinit_{r}" for r in red_names], *[f"__red_{r}" for r in red_names], "__k"]
        self.body_src = (f"def __prange_body_{name}({', '.join(body_params)}):\n" + "\n".join(init)
                         + ("\n" if init else "")
                         + f"    for {var} in range(__lo, __hi, __step):\n"
                         + textwrap.indent("\n".join(ast.unparse(s) for s in loop.body), "        ") + "\n"
                         + "".join(f"    __red_{r}[__k] = {r}\n" for r in red_names))
        post_params = [*passed, *live, *[r for r in red_names if r not in live]]
        self.post_params = post_params
        self.post_src = (f"def __prange_post_{name}({', '.join(post_params)}):\n"
                         + textwrap.indent("\n".join(ast.unparse(s) for s in suffix) or "pass", "    ") + "\n")
        # A later top-level prange loop: the suffix is planned the same way, when it is called.
        self.post_parallel = any(isinstance(s, ast.For) and _is_prange_call(s.iter, pyfunc) for s in suffix)
        self._by_types = {}

    def _namespace(self, extra=()):
        ns = dict(self.pyfunc.__globals__)
        ns.update(zip(self.pyfunc.__code__.co_freevars, (c.cell_contents for c in self.pyfunc.__closure__ or ())))
        ns.update(extra)
        return ns

    def _dispatcher(self, src, kind, extra=(), parallel=False):
        from cuforge._generate import generated
        from cuforge._host_jit import HostDispatcher

        return HostDispatcher(generated(src, f"__prange_{kind}_{self.pyfunc.__name__}", self._namespace(extra)),
                              parallel=parallel, error_model="numpy" if kind == "body" else self.error_model)

    def run(self, args, types):
        """The function's result for ``args``, computed in parallel; raises
        NotParallel when these types cannot be (arrays made before the loop)."""
        key = tuple(t.spec for t in types)
        fns = self._by_types.get(key)
        pre = fns[0] if fns else self._dispatcher(self.pre_src, "pre")
        try:
            entry = pre._entry_for(list(args), list(types))
        except TypeError as e:  # a value the prefix cannot hand over (a record, a tuple of arrays of tuples)
            if "host-jitted functions return" in str(e):
                raise NotParallel(f"a value made before the prange loop cannot be handed over: {e}") from None
            raise
        outs = pre._run(entry, list(args))
        outs = [v if dt is None else dt.type(v) for dt, v in zip(entry.ret_types, outs)]  # (arrays: as they are)
        *live_vals, start, stop, step = outs
        live = dict(zip(self.live, live_vals))
        by_name = dict(zip(self.params, args))
        red_types = {}
        for r in self.reductions:
            v = live[r] if r in live else by_name[r]
            red_types[r] = cftypes.from_dtype(np.asarray(v).dtype)
        if fns is None:
            extra = {f"__T_{r}__": t for r, t in red_types.items()}
            fns = self._by_types[key] = (pre, self._dispatcher(self.body_src, "body", extra),
                                         self._dispatcher(self.post_src, "post", parallel=self.post_parallel))
        _, body, post = fns
        start, stop, step = int(start), int(stop), int(step)
        if step == 0:
            raise ValueError("prange() arg 3 must not be zero")
        count = len(range(start, stop, step))
        reds = {r: (live[r] if r in live else by_name[r]) for r in self.reductions}
        if count > 0:
            pieces = max(1, min(4 * _core.host_workers(), count))
            per = -(-count // pieces)
            chunks = [(i, min(i + per, count)) for i in range(0, count, per)]
            partial = {r: np.empty(len(chunks), dtype=np.asarray(v).dtype) for r, v in reds.items()}
            passed = [by_name[p] for p in self.passed]
            fixed = passed + [live[x] for x in self.live if x not in self.reductions] + [reds[r] for r in reds] + \
                [partial[r] for r in reds]
            calls, entry = [], None
            for k, (i0, i1) in enumerate(chunks):
                call_args = [np.int64(start + i0 * step), np.int64(start + i1 * step), np.int64(step), *fixed,
                             np.int64(k)]
                if entry is None:
                    from cuforge._host_jit import _typeof

                    entry = body._entry_for(call_args, [_typeof(a, i) for i, a in enumerate(call_args)])
                slots = []
                for pack, a in zip(entry.packers, call_args):
                    pack(a, slots)
                calls.append(slots)
            _core.call_on_host_parallel(entry.compiled, calls)
            with np.errstate(all="ignore"):
                for r, op in self.reductions.items():
                    v = reds[r]
                    for p in partial[r]:
                        v = _combine(op, v, p)
                    reds[r] = v
        final = dict(live)
        final.update(reds)
        post_args = [by_name[p] for p in self.passed] + [final[x] for x in self.live] + \
            [reds[r] for r in self.reductions if r not in self.live]
        return post(*post_args)


def _combine(op, a, b):
    if op == "+":
        return a + b
    if op == "*":
        return a * b
    if op == "|":
        return a | b
    if op == "&":
        return a & b
    if op == "^":
        return a ^ b
    if op == "min":
        return min(a, b)
    return max(a, b)


def _own_level(stmt):
    """The nodes of ``stmt`` outside any loop nested in it (a break there leaves the prange loop)."""
    todo = [stmt]
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
                todo.append(c)


def plan_of(pyfunc, error_model="python"):
    """The function's Plan, or None (with a warning saying why) when it runs serially."""
    try:
        return Plan(pyfunc, error_model)
    except NotParallel as e:
        warnings.warn(f"{pyfunc.__qualname__}: parallel=True runs serially here: {e}", NumbaPerformanceWarning,
                      stacklevel=4)
        return None
    except (OSError, TypeError, SyntaxError):
        return None


class NumbaPerformanceWarning(UserWarning):
    """numba's name for a parallel=True function that could not be parallelised."""

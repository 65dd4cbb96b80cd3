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

A function whose first prange loop sits inside a top-level ``for v in
range(...)`` or ``if`` (a time-step loop around a parallel sweep) is driven
from Python instead (NestedPlan): the statements before that statement one
host-jitted function, the statement's body (each iteration's, or the branch
taken) one with ``parallel=True`` whose prange loop is then at its top level
(or nested again: planned the same way), and the statements after it one
more; the variables the rest reads are passed from one to the next, with the
types the compiled functions give them.

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


def _exposed(stmts, assigned=frozenset()):
    """The names some path through ``stmts`` may read before assigning them
    (a name assigned only in a branch or a loop's body counts as unassigned
    after it): what a later piece of a split function needs handed in."""
    exposed, assigned = set(), set(assigned)
    for st in stmts:
        if isinstance(st, (ast.For, ast.AsyncFor)):
            exposed |= _names([st.iter], ast.Load) - assigned
            inner = assigned | _names([st.target], ast.Store)
            exposed |= _exposed(st.body, inner) | _exposed(st.orelse, assigned)
        elif isinstance(st, ast.While):
            exposed |= (_names([st.test], ast.Load) - assigned) | _exposed(st.body, assigned) | \
                _exposed(st.orelse, assigned)
        elif isinstance(st, ast.If):
            exposed |= (_names([st.test], ast.Load) - assigned) | _exposed(st.body, assigned) | \
                _exposed(st.orelse, assigned)
            assigned |= _names(st.body, ast.Store) & _names(st.orelse, ast.Store)
        else:
            exposed |= _names([st], ast.Load) - assigned
            if not isinstance(st, (ast.With, ast.Try)):
                assigned |= _names([st], ast.Store)
    return exposed


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
            raise NotParallel("no prange loop at the top level of the function", fn)
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
        if _exposed(suffix) & private:
            raise NotParallel(f"{sorted(_exposed(suffix) & private)[0]!r} is read after the prange loop, which "
                              "makes it")
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
        post_params = [*passed, *live, *[r for r in red_names if r not in live and r not in passed]]
        self.post_params = post_params
        self.post_src = (f"def __prange_post_{name}({', '.join(post_params)}):\n"
                         + textwrap.indent("\n".join(ast.unparse(s) for s in suffix) or "pass", "    ") + "\n")
        # A later top-level prange loop: the suffix is planned the same way, when it is called.
        self.post_parallel = any(isinstance(s, ast.For) and _is_prange_call(s.iter, pyfunc) for s in suffix)
        self._by_types = {}

    def _dispatcher(self, src, kind, extra=(), parallel=False):
        from cuforge._generate import generated
        from cuforge._host_jit import HostDispatcher

        return HostDispatcher(generated(src, f"__prange_{kind}_{self.pyfunc.__name__}", _namespace(self.pyfunc, extra)),
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
        *live_vals, start, stop, step = _in_result_types(entry, pre._run(entry, list(args)))
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
                    entry = _entry_of(body, call_args)
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
        # (a parameter reduced in the loop is handed on reduced)
        post_args = [reds[p] if p in reds else by_name[p] for p in self.passed] + [final[x] for x in self.live] + \
            [reds[r] for r in self.reductions if r not in self.live and r not in self.passed]
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


def _contains_prange(stmts, pyfunc):
    return any(isinstance(n, ast.For) and _is_prange_call(n.iter, pyfunc) for s in stmts for n in ast.walk(s))


def _namespace(pyfunc, extra=()):
    """The names a function generated from ``pyfunc``'s statements sees: its globals and closure."""
    ns = dict(pyfunc.__globals__)
    ns.update(zip(pyfunc.__code__.co_freevars, (c.cell_contents for c in pyfunc.__closure__ or ())))
    ns.update(extra)
    return ns


def _entry_of(dispatcher, args):
    """A host-jitted function's entry for ``args`` (compiled if new)."""
    from cuforge._host_jit import _typeof

    return dispatcher._entry_for(list(args), [_typeof(a, i) for i, a in enumerate(args)])


def _in_result_types(entry, outs):
    """Results (a tuple, one value or None) as a list, numbers in the types the
    entry's code gives them (float32 stays float32; arrays as they are)."""
    outs = list(outs) if isinstance(outs, tuple) else [] if outs is None else [outs]
    return [v if dt is None else dt.type(v) for dt, v in zip(entry.ret_types, outs)]


def _typed_results(dispatcher, args):
    """A host-jitted function's results for ``args`` (_in_result_types)."""
    entry = _entry_of(dispatcher, args)
    return _in_result_types(entry, dispatcher._run(entry, list(args)))


class NestedPlan:
    """The split of a function whose first prange loop is inside a top-level
    ``for v in range(...)`` or ``if`` (see the module comment)."""

    def __init__(self, pyfunc, fn, error_model="python"):
        self.pyfunc = pyfunc
        self.error_model = error_model
        params = [a.arg for a in fn.args.args]
        k = next((i for i, st in enumerate(fn.body) if _contains_prange([st], pyfunc)), None)
        if k is None:
            raise NotParallel("no prange loop in the function")
        stmt = fn.body[k]
        prefix, suffix = fn.body[:k], fn.body[k + 1:]
        if any(isinstance(n, ast.Return) for st in prefix + [stmt] for n in ast.walk(st)):
            raise NotParallel("a return before the prange loop or in the statement around it")
        if isinstance(stmt, ast.For):
            it = stmt.iter
            closure = dict(zip(pyfunc.__code__.co_freevars, (c.cell_contents for c in pyfunc.__closure__ or ())))
            is_range = (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                        and closure.get(it.func.id, pyfunc.__globals__.get(it.func.id, range)) is range)
            if not is_range or not 1 <= len(it.args) <= 3 or it.keywords:
                raise NotParallel("the prange loop is inside a loop that is not over range(...)")
            if stmt.orelse or not isinstance(stmt.target, ast.Name):
                raise NotParallel("the loop around the prange loop has an else or a tuple target")
            if any(isinstance(n, (ast.Break, ast.Continue)) for st in stmt.body for n in _own_level(st)):
                raise NotParallel("a break or continue in the loop around the prange loop")
            branches, var, head = [stmt.body], stmt.target.id, [ast.unparse(a) for a in it.args]
        elif isinstance(stmt, ast.If):
            branches, var, head = [stmt.body, stmt.orelse], None, [ast.unparse(stmt.test)]
        else:
            raise NotParallel(f"the prange loop is inside a {type(stmt).__name__.lower()} statement (a for loop "
                              "over a range and an if are split)")
        defined = set(params) | _names(prefix, ast.Store)
        suffix_reads = _names(suffix, ast.Load)
        exposed = _exposed(suffix)
        made = [_names(b, ast.Store) for b in branches]
        # What the statement hands on: variables defined before that it assigns, and those it makes
        # that the rest reads (an if: made in every branch).
        outs = sorted(x for x in set().union(*made) if x in defined or x in exposed)
        for x in outs:
            if x not in defined and (var is not None or not all(x in m for m in made)):
                raise NotParallel(f"{x!r} is read after the statement around the prange loop, which may not make it")
        reads = set().union(*(_names(b, ast.Load) for b in branches))
        ins = sorted(((reads | set(outs)) & defined) - {var})
        live = sorted((set(ins) | suffix_reads) & _names(prefix, ast.Store))
        self.params, self.live, self.ins, self.outs, self.var = params, live, ins, outs, var
        # (the loop's variable read after it: its last value, handed on from here)
        self.post_params = sorted(suffix_reads & (defined | set(outs) | ({var} & exposed if var else set())))
        name = pyfunc.__name__
        prefix_src = "\n".join(ast.unparse(st) for st in prefix) or "pass"
        self.pre_src = (f"def __prange_pre_{name}({', '.join(params)}):\n" + textwrap.indent(prefix_src, "    ")
                        + f"\n    return ({', '.join(live + [f'({h})' for h in head])},)\n")
        self.branch_srcs = []
        for j, b in enumerate(branches):
            body = "\n".join(ast.unparse(st) for st in b) or "pass"
            ret = f"\n    return ({', '.join(outs)},)" if outs else ""
            args = ([var] if var is not None else []) + ins
            self.branch_srcs.append((f"def __prange_stmt{j}_{name}({', '.join(args)}):\n"
                                     + textwrap.indent(body, "    ") + ret + "\n", _contains_prange(b, pyfunc)))
        self.post_src = (f"def __prange_post_{name}({', '.join(self.post_params)}):\n"
                         + textwrap.indent("\n".join(ast.unparse(st) for st in suffix) or "pass", "    ") + "\n")
        self.post_parallel = _contains_prange(suffix, pyfunc)
        self._by_types = {}
        self._fns = None

    def _functions(self):
        from cuforge._generate import generated
        from cuforge._host_jit import HostDispatcher

        def make(src, kind, parallel):
            fn = generated(src, f"__prange_{kind}_{self.pyfunc.__name__}", _namespace(self.pyfunc))
            return HostDispatcher(fn, parallel=parallel, error_model=self.error_model)

        def branch(j, src, parallel):
            # (with its serial twin, which gives the types a parallel one's results have)
            fn = make(src, f"stmt{j}", parallel)
            return fn, make(src, f"stmt{j}", False) if parallel else None

        if self._fns is None:
            self._fns = (make(self.pre_src, "pre", False),
                         [branch(j, src, par) for j, (src, par) in enumerate(self.branch_srcs)],
                         make(self.post_src, "post", self.post_parallel))
        return self._fns

    def run(self, args, types):
        """The function's result for ``args``: the statement around the prange loop driven from here."""
        pre, branches, post = self._functions()
        env = dict(zip(self.params, args))
        outs = _typed_results(pre, args)
        head = outs[len(self.live):]
        env.update(zip(self.live, outs))
        self._by_types.setdefault(tuple(t.spec for t in types), True)

        def run_branch(j, lead):
            fn, twin = branches[j]
            argv = lead + [env[x] for x in self.ins]
            # (a parallel one's results in the types its serial twin's code gives them)
            results = _typed_results(fn, argv) if twin is None else _in_result_types(_entry_of(twin, argv), fn(*argv))
            env.update(zip(self.outs, results))

        if self.var is not None:
            for v in range(*(int(h) for h in head)):
                run_branch(0, [np.int64(v)])
                env[self.var] = np.int64(v)
        else:
            run_branch(0 if head[0] else 1, [])
        missing = [x for x in self.post_params if x not in env]
        if missing:  # the loop's variable after a loop that did not turn
            raise UnboundLocalError(f"cannot access local variable {missing[0]!r} where it is not associated with a "
                                    "value")
        return post(*[env[x] for x in self.post_params])


def plan_of(pyfunc, error_model="python"):
    """The function's Plan, or None (with a warning saying why) when it runs serially."""
    try:
        try:
            return Plan(pyfunc, error_model)
        except NotParallel as e:
            if len(e.args) < 2:
                raise
            return NestedPlan(pyfunc, e.args[1], error_model)  # (no prange loop at the top level)
    except NotParallel as e:
        warnings.warn(f"{pyfunc.__qualname__}: parallel=True runs serially here: {e.args[0]}",
                      NumbaPerformanceWarning, stacklevel=4)
        return None
    except (OSError, TypeError, SyntaxError):
        return None


class NumbaPerformanceWarning(UserWarning):
    """numba's name for a parallel=True function that could not be parallelised."""

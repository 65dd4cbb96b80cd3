"""Checks the bytecode frontend against data/bytecode_corpus.py under the
Python running it, without cuforge built for that Python: bytecode.py is
loaded by its path (it needs only the standard library).

Each corpus function is decompiled, the tree is compiled back by Python
and run beside the original on the same arguments (random ints, the same
for both; a list of them first for ``proc_*`` functions, which write into
it as kernels write into arrays): results, exceptions and what was written
must match. A function the decompiler
refuses, or whose tree Python will not compile, is a failure too.

Run as a file (``python bytecode_corpus_check.py [report.json]``) by
test_bytecode_frontend.py for every CPython it finds; prints a JSON
summary (and writes it to the report path) and exits 1 on any failure.
"""

import ast
import importlib.util
import json
import os
import random
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
BYTECODE = os.path.join(HERE, "..", "..", "..", "python", "cuforge", "cuda", "_compiler", "bytecode.py")
CORPUS = os.path.join(HERE, "data", "bytecode_corpus.py")
TRIALS = 200


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _run(f, args):
    args = [list(a) if isinstance(a, list) else a for a in args]  # each run its own buffer
    try:
        result = "ok", repr(f(*args))
    except Exception as e:  # the same exception from both is agreement
        result = "raised", type(e).__name__
    return result, [a for a in args if isinstance(a, list)]  # and what it wrote there


def _rebuilt(bc, corpus, f):
    """The function compiled back from its decompiled tree (in the corpus's globals)."""
    tree = bc.decompile(f)
    if tree.name == "<lambda>":
        expr = ast.Lambda(args=tree.args, body=tree.body[0].value)
        module = ast.Module(body=[ast.Assign(targets=[ast.Name(id="__rebuilt", ctx=ast.Store())], value=expr)],
                            type_ignores=[])
        name = "__rebuilt"
    else:
        module = ast.Module(body=[tree], type_ignores=[])
        name = tree.name
    ast.fix_missing_locations(module)
    namespace = dict(vars(corpus))
    exec(compile(module, "<decompiled>", "exec"), namespace)
    g = namespace[name]
    g.__defaults__ = f.__defaults__
    return g, tree


def check():
    bc = _load("cuforge_bytecode_under_test", BYTECODE)
    corpus = _load("bytecode_corpus", CORPUS)
    failures, checked = [], []
    for name, f in sorted(vars(corpus).items()):
        if not isinstance(f, types.FunctionType) or f.__module__ != "bytecode_corpus" or name.startswith("_"):
            continue
        checked.append(name)
        try:
            g, tree = _rebuilt(bc, corpus, f)
        except bc.DecompileError as e:
            failures.append({"function": name, "why": f"refused: {e.message} (line {e.lineno})"})
            continue
        except Exception as e:  # the decompiler crashing, or a tree Python will not compile
            failures.append({"function": name, "why": f"{type(e).__name__}: {e}"})
            continue
        rnd = random.Random(name)
        nargs = f.__code__.co_argcount
        for _ in range(TRIALS):
            args = [rnd.randint(-20, 20) for _ in range(nargs)]
            if name.startswith("proc_"):  # proc_*(buf, ...): a list stands for an array written in place
                args[0] = [rnd.randint(-20, 20) for _ in range(8)]
            want, got = _run(f, args), _run(g, args)
            if want != got:
                failures.append({"function": name, "why": f"args {args}: original {want}, decompiled {got}",
                                 "decompiled": ast.unparse(tree) if hasattr(ast, "unparse") else ""})
                break
    return {"python": ".".join(map(str, sys.version_info[:3])), "checked": checked, "failures": failures}


if __name__ == "__main__":
    summary = check()
    text = json.dumps(summary, indent=1)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as out:
            out.write(text)
    print(text)
    sys.exit(1 if summary["failures"] else 0)

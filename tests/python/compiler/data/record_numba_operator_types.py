"""Records numba-cuda's typing of Python's operators on scalars, the facts
test_fuzz_values.py checks our compiler against: for each operator and each
pair (or single) of scalar types, the signature numba-cuda's typing context
resolves (its return type and the argument types the operands are converted
to), or null where numba refuses the types. Needs numba-cuda, no GPU:

    /path/to/numba-cuda-venv/bin/python record_numba_operator_types.py > numba_operator_types.json
"""

import json
import operator

import numpy as np

np.row_stack = getattr(np, "row_stack", np.vstack)  # numba-cuda 0.30 with NumPy 2.x

from numba import types  # noqa: E402
from importlib.metadata import version  # noqa: E402
from numba.cuda.descriptor import cuda_target  # noqa: E402

NAMES = ["boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
          "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
          "<<": operator.lshift, ">>": operator.rshift, "<": operator.lt, "<=": operator.le, "==": operator.eq,
          "!=": operator.ne, ">": operator.gt, ">=": operator.ge}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_, "abs": abs}


def resolve(ctx, fn, args):
    try:
        sig = ctx.resolve_function_type(fn, tuple(getattr(types, a) for a in args), {})
    except Exception:
        return None
    return [str(sig.return_type), [str(t) for t in sig.args]] if sig is not None else None


def main():
    ctx = cuda_target.typing_context
    ctx.refresh()
    table = {
        "source": f"numba-cuda {version('numba-cuda')}: cuda_target.typing_context.resolve_function_type(op, types, {{}})"
                  " -> [return type, [argument types]]; null where numba refuses the types",
        "binary": {f"{a} {sym} {b}": resolve(ctx, fn, (a, b)) for sym, fn in BINARY.items() for a in NAMES
                   for b in NAMES},
        "unary": {f"{sym} {a}": resolve(ctx, fn, (a,)) for sym, fn in UNARY.items() for a in NAMES},
    }
    table["binary"] = dict(sorted(table["binary"].items()))
    table["unary"] = dict(sorted(table["unary"].items()))
    print(json.dumps(table, indent=0))


if __name__ == "__main__":
    main()

"""Child of test_api.py's test of the kept NVPTX code generator (emit.cpp): writes 45
kernels into the folder it is given, kernel i declaring shared float32 arrays of its own
sizes (none for every fifth), compiles them to PTX round after round, and prints, as JSON,
the kernels whose PTX declared other shared arrays than their own and whether every round
gave the first round's code. Run in a child: a printer that remembered a freed kernel's
arrays would crash the process."""

import importlib.util
import json
import pathlib
import re
import sys

from cuforge import cuda

SIG = "void(float32[::1])"


def write_kernels(folder, count):
    sizes, lines = [], ["from cuforge import cuda", "from cuforge.types import float32", ""]
    for i in range(count):
        own = [] if i % 5 == 4 else [8 * (i + 1)] + ([4 * (i + 1) + 3] if i % 2 else [])
        sizes.append(own)
        lines += [f"def k{i}(out):", "    t = cuda.threadIdx.x"]
        for j, n in enumerate(own):
            lines += [f"    s{j} = cuda.shared.array({n}, float32)", f"    s{j}[t] = t + {j}"]
        total = " + ".join(f"s{j}[t ^ 1]" for j in range(len(own))) or "t"
        lines += ["    cuda.syncthreads()" if own else "    pass", f"    out[t] = {total}", ""]
    path = pathlib.Path(folder) / "shared_kernels.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("shared_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return sizes, [getattr(module, f"k{i}") for i in range(count)]


def code(ptx):
    """PTX without its comments (LLVM numbers call sequences per process)."""
    return [line.split("//")[0] for line in ptx.splitlines()]


def main():
    folder, rounds = sys.argv[1], int(sys.argv[2])
    sizes, kernels = write_kernels(folder, 45)
    wrong, first, same = [], None, True
    for r in range(rounds):
        order = range(len(kernels)) if r % 2 == 0 else reversed(range(len(kernels)))
        ptx = {}
        for i in order:
            ptx[i] = cuda.compile_ptx(kernels[i], SIG)[0]
            declared = sorted(int(n) for n in re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\];", ptx[i]))
            if declared != sorted(4 * n for n in sizes[i]):
                wrong.append([i, declared])
        codes = [code(ptx[i]) for i in range(len(kernels))]
        if first is None:
            first = codes
        same = same and codes == first
    print(json.dumps({"compiles": rounds * len(kernels), "wrong": wrong, "same": same}))


if __name__ == "__main__":
    main()

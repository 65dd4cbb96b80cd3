#!/usr/bin/env python3
"""Runs every example (Python, then the C++ one) and says where each ran:
on the GPU when there is one, else on the cpu backend."""

import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(root.parent / "python"))
import cuforge  # noqa: E402

where = f"{cuforge.backend()} backend ({cuforge.backend_reason()})"
print(f"== cuforge examples on the {where}\n")
failed = []
for script in sorted((root / "python").glob("*.py")):
    print(f"-- {script.relative_to(root.parent)}")
    r = subprocess.run([sys.executable, str(script)])
    print(f"   [{'ok' if r.returncode == 0 else 'FAILED'} on the {cuforge.backend()} backend]\n")
    if r.returncode:
        failed.append(script.name)

build = root.parent / "build"
exe = next((p for p in [build / "cuforge/examples/cpp/example_saxpy", build / "dev/examples/cpp/example_saxpy"]
            if p.exists()), None)
if exe:
    print(f"-- examples/cpp/saxpy.cpp (C++ API alone)")
    r = subprocess.run([str(exe)])
    print(f"   [{'ok' if r.returncode == 0 else 'FAILED'} on the {cuforge.backend()} backend]\n")
    if r.returncode:
        failed.append("saxpy (C++)")
else:
    print("-- examples/cpp/saxpy: not built (run scripts/build.sh)")
    failed.append("saxpy (C++, not built)")

print("== all examples ran" if not failed else f"== FAILED: {', '.join(failed)}")
sys.exit(1 if failed else 0)

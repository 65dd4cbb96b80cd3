#!/usr/bin/env python3
"""Regenerates python/cuforge/cuda/_device_attributes.py from cuda.h."""
import pathlib
import re
import sys

header = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda/include/cuda.h").read_text()
body = re.search(r"typedef enum CUdevice_attribute_enum \{(.*?)\} CUdevice_attribute;", header, re.S).group(1)
items = [(n, int(v)) for n, v in re.findall(r"CU_DEVICE_ATTRIBUTE_([A-Z0-9_]+)\s*=\s*(\d+)", body) if n != "MAX"]
out = pathlib.Path(__file__).resolve().parents[1] / "python/cuforge/cuda/_device_attributes.py"
lines = ['"""CUdevice_attribute values by numba\'s attribute names (device.MAX_THREADS_PER_BLOCK).',
         "",
         "Generated from CUDA 13's cuda.h (scripts/gen_device_attributes.py); do not edit.",
         '"""', "", "ATTRIBUTES = {"]
lines += [f'    "{n}": {v},' for n, v in items]
lines += ["}", ""]
out.write_text("\n".join(lines))
print(f"{len(items)} attributes -> {out}")

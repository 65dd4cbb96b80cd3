"""The Python front of the kernel compiler (docs/compiler.md): the walker
that turns a function's source into untyped IR (its bytecode where there
is no source: bytecode.py), and the resolution of its globals."""

from cuforge.cuda._compiler.walker import (build_ir, build_ir_and_fingerprint, build_ir_canonical,
                                            build_ir_from_bytecode)

__all__ = ["build_ir", "build_ir_and_fingerprint", "build_ir_canonical", "build_ir_from_bytecode"]

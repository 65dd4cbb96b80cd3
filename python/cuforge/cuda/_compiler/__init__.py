"""The Python front of the kernel compiler (docs/compiler.md): the walker
that turns a function's source into untyped IR, and the resolution of its
globals."""

from cuforge.cuda._compiler.walker import build_ir, build_ir_and_fingerprint

__all__ = ["build_ir", "build_ir_and_fingerprint"]

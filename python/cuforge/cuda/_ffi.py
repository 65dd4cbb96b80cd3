"""Calling CUDA C/C++ from kernels: ``cuda.declare_device`` and the files
``cuda.jit(link=...)`` names (docs/interop_c.md).

A declared function is a global of the kernel like a jitted device function;
the compiler calls it by Numba's ABI (``int f(T* ret, args...)``, the status
ignored) or C's (``T f(args...)``). The files that define it travel with the
declaration into the typed module, which links them: on a GPU, NVRTC compiles
``.cu`` sources and nvJitLink links everything with the kernel's PTX; on the
cpu backend the host's C++ compiler builds the sources into a library the
kernel's JIT links against (portable code only).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading

import cuforge.types as cftypes

__all__ = ["Archive", "CUSource", "Cubin", "ExternFunction", "Fatbin", "LTOIR", "LinkableCode", "Object",
           "PTXSource", "declare_device", "link_paths"]


class LinkableCode:
    """Code given in memory rather than as a file (numba-cuda's linkable
    code): ``data`` (str or bytes) and an optional ``name`` for messages."""

    kind = ""

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None):
        if setup_callback is not None or teardown_callback is not None:
            raise NotImplementedError(f"{type(self).__name__}: setup_callback and teardown_callback are not supported")
        if isinstance(data, str):
            data = data.encode()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{type(self).__name__} takes str or bytes, not {type(data).__name__}")
        self.data = bytes(data)
        self.name = name or f"<unnamed-{self.kind}>"

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, {len(self.data)} bytes)"


class CUSource(LinkableCode):
    """CUDA C++ source in memory."""

    kind = "cu"


class PTXSource(LinkableCode):
    """PTX in memory."""

    kind = "ptx"


class Cubin(LinkableCode):
    """A cubin in memory."""

    kind = "cubin"


class Fatbin(LinkableCode):
    """A fatbin in memory."""

    kind = "fatbin"


class LTOIR(LinkableCode):
    """LTO-IR in memory."""

    kind = "ltoir"


class Object(LinkableCode):
    """An object file of device code in memory."""

    kind = "o"


class Archive(LinkableCode):
    """An archive of device code in memory."""

    kind = "a"


_dir_lock = threading.Lock()
_dir = None


def _private_dir():
    """A folder of this process's own (0700) for code given in memory."""
    global _dir
    with _dir_lock:
        if _dir is None:
            _dir = tempfile.TemporaryDirectory(prefix="cuforge-link-")
        return _dir.name


def _materialise(code: LinkableCode) -> str:
    digest = hashlib.sha256(code.data).hexdigest()[:24]
    path = os.path.join(_private_dir(), f"{digest}.{code.kind}")
    if not os.path.exists(path):
        with open(path + ".tmp", "wb") as f:
            f.write(code.data)
        os.replace(path + ".tmp", path)
    return path


def link_paths(link, what: str) -> tuple:
    """The files of ``link`` (a path, a LinkableCode, or a list of them) as
    absolute paths, each checked to exist; ``what`` names the owner in
    messages."""
    if link is None:
        return ()
    if isinstance(link, (str, os.PathLike, LinkableCode)):
        link = (link,)
    if not isinstance(link, (list, tuple, set, frozenset)):
        raise TypeError(f"{what}: link must be a path, in-memory code (cuda.CUSource...) or a list of them, "
                        f"not {type(link).__name__}")
    paths = []
    for item in link:
        if isinstance(item, LinkableCode):
            path = _materialise(item)
        elif isinstance(item, (str, os.PathLike)):
            path = os.path.abspath(os.fspath(item))
            if not os.path.isfile(path):
                raise FileNotFoundError(f"{what}: the file to link {os.fspath(item)!r} does not exist")
        else:
            raise TypeError(f"{what}: cannot link {item!r}: give a path or in-memory code (cuda.CUSource, ...)")
        if path not in paths:
            paths.append(path)
    return tuple(paths)


def compiled_for_gpu(path: str, cc: tuple, lto: bool = False):
    """What ``compile_all`` gives for one linked file: a C/C++ source compiled by NVRTC as the GPU
    link compiles it (its PTX, str; with ``lto``, its LTO-IR, bytes), else the file as in-memory code
    of its kind."""
    from cuforge import _core

    kind = _core.link_kind(path)  # (ValueError for an extension no link takes)
    if kind == "source":
        code = _core.compile_cuda_file(path, cc, lto)[0]
        return code if lto else code.decode()
    with open(path, "rb") as f:
        data = f.read()
    cls = next(c for c in LinkableCode.__subclasses__() if c.kind == kind)
    return cls(data, name=path)


def _content_digest(paths) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.encode())
        try:
            with open(p, "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"<unreadable>")
    return h.hexdigest()[:16]


class ExternFunction:
    """A function defined in CUDA C/C++ (or PTX...), declared with
    ``cuda.declare_device``: callable from kernels and device functions."""

    def __init__(self, name, args, restype, link, abi, use_cooperative=False):
        self.name = name
        self.args = tuple(args)
        self.restype = restype
        self.link = link
        self.abi = abi
        self.use_cooperative = use_cooperative

    @property
    def signature(self):
        return cftypes.Signature(self.restype, self.args)

    def __repr__(self):
        return f"<declared device function {self.name} {self.restype}({', '.join(map(str, self.args))})>"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.name} is a device function declared with cuda.declare_device: "
                        "call it from a kernel or device function")

    def resolution(self):
        """The global the compiler's IR builder takes, and its fingerprint text (the files' contents in
        it, so that changing one recompiles what calls it)."""
        entry = {"kind": "external_function", "name": self.name, "args": [a.spec for a in self.args],
                 "ret": self.restype.spec, "abi": self.abi, "link": list(self.link),
                 "cooperative": self.use_cooperative}
        text = (f"external_function {self.name} {self.restype.spec}({', '.join(a.spec for a in self.args)}) "
                f"{self.abi}{' cooperative' if self.use_cooperative else ''} [{_content_digest(self.link)}]")
        return entry, text


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Declares a device function defined elsewhere (CUDA C/C++, PTX, ...),
    as numba.cuda.declare_device: ``name`` its symbol (``extern "C"``),
    ``sig`` its signature (a return type is required; parameters are scalars
    or ``CPointer(T)``/``voidptr``, to which a kernel passes an array's data
    pointer), ``link`` the files defining it (linked into every kernel that
    calls it), ``abi`` ``"numba"`` (``int name(T* ret, args...)``) or ``"c"``
    (``T name(args...)``), ``use_cooperative`` whether its code needs a
    cooperative launch (it synchronises the grid: a kernel calling it is
    launched as one, as with ``cuda.cg.this_grid()``). Returns the function,
    to call from kernels."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"declare_device: the function's name must be a C identifier, not {name!r}")
    if not isinstance(use_cooperative, bool):
        raise TypeError(f"declare_device({name!r}): use_cooperative is True or False, not {use_cooperative!r}")
    args, restype = cftypes.normalize_signature(sig)
    if restype is None:
        raise TypeError("Return type must be provided for device declarations")
    for i, a in enumerate(args):
        if not isinstance(a, (cftypes.CPointer, cftypes.Boolean, cftypes.Integer, cftypes.Float, cftypes.Complex)):
            raise TypeError(f"declare_device({name!r}): parameter {i + 1} is {a}; a declared function takes "
                            "scalars and pointers (CPointer(T), voidptr)")
    if restype != cftypes.none and not isinstance(restype, (cftypes.Boolean, cftypes.Integer, cftypes.Float,
                                                            cftypes.Complex)):
        raise TypeError(f"declare_device({name!r}): returns {restype}; a declared function returns a scalar "
                        "or void")
    return ExternFunction(name, args, restype, link_paths(link, f"declare_device({name!r})"), abi,
                          bool(use_cooperative))

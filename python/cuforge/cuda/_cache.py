"""The disk cache of ``@cuda.jit(cache=True)`` kernels (docs/compiler.md,
"Disk cache").

One file per (kernel, specialisation). Its name comes from the hash of a
*key* computed without running the walker: the function's source text (the
lines of its definition), its file and first line, the argument types, the
compile configuration's key (the target: the GPU's sm_XY, or this CPU's
triple and features; and the options that change the code), the compiler's
stamp (cuforge's version, the libraries' build ids, the
compiler's Python modules) and the Python version. The file holds the key again, the *manifest* of what the walker
resolved at compile time (every global and attribute path with the value
it resolved to, each device function called with its own source and
manifest, the kernel-side ``cuda`` names used directly), the launcher's
facts, and the code: PTX on a GPU, an object file on the cpu backend.

A hit re-resolves the manifest's paths (cheap lookups, no ``ast``) and
compares; any difference, a key mismatch, a bad checksum or an entry that
will not load is a miss: the kernel is compiled and the file replaced.
Files are written to a temporary name in the same folder and renamed into
place, so a reader never sees part of one and concurrent writers both
succeed (the last rename wins; both entries are valid).
"""

from __future__ import annotations

import builtins
import collections
import hashlib
import hmac
import io
import json
import linecache
import os
import stat
import struct
import sys
import threading
import types as pytypes
import warnings
import weakref

from cuforge import _core

__all__ = ["CacheStats", "CacheWarning", "DiskCache", "FORMAT_VERSION", "cache_dir_candidates"]

#: Bumped whenever the file layout or what a key covers changes (2: the key
#: holds the compile configuration's key; the facts list raise sites, whose
#: kernels take the error record's parameter; 3: entries end with a MAC under
#: the user's secret key instead of a plain checksum; 4: the error record
#: grew to 56 bytes, with an index error's axis, index and extent).
FORMAT_VERSION = 5
_MAGIC = b"CUFORGE-KERNEL-CACHE\n"
_SUFFIX = ".cfk"
_PREFIX = struct.Struct("<II")  # format version, header length
_CODE_LEN = struct.Struct("<Q")
_DIGEST = 32  # the MAC of everything before it
_MAX_ENTRY = 1 << 30  # bytes: a larger "entry" is not read
_KEY_BYTES = 32


def _hash(data: bytes):
    # BLAKE2 is CPython's own: no OpenSSL set-up on the first call of a process.
    return hashlib.blake2b(data, digest_size=_DIGEST)


def _mac(data: bytes, key: bytes):
    """BLAKE2b keyed by the user's secret: only someone who can read the key
    (the user) makes an entry that loads."""
    return hashlib.blake2b(data, digest_size=_DIGEST, key=key).digest()


# --- the user's secret key ---------------------------------------------------------------------

_secret = None
_secret_lock = threading.Lock()


def _config_dir():
    """CUFORGE_CONFIG_DIR, else ``$XDG_CONFIG_HOME/cuforge`` (``~/.config/cuforge``)."""
    explicit = os.environ.get("CUFORGE_CONFIG_DIR")
    if explicit:
        return os.path.abspath(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "cuforge")


def _private(st):
    """Whether a stat result is the user's own and writable by nobody else."""
    return st.st_uid == os.getuid() and not (st.st_mode & 0o022)


def secret_key():
    """The per-user key entries are authenticated with: 32 random bytes in
    ``cache.key`` of the user's config folder (_config_dir), made on first use
    (file 0600 in a 0700 folder). Raises OSError when it cannot be made or
    read safely (the cache is then not used)."""
    global _secret
    with _secret_lock:
        if _secret is not None:
            return _secret
        folder = _config_dir()
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.stat(folder)
        if not _private(st):
            raise OSError(f"{folder} is not private to this user (owner {st.st_uid}, mode {st.st_mode & 0o777:o})")
        path = os.path.join(folder, "cache.key")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            fd = None
        if fd is not None:
            try:
                os.fchmod(fd, 0o600)
                os.write(fd, os.urandom(_KEY_BYTES))
            finally:
                os.close(fd)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
                raise OSError(f"{path} is not a private file of this user")
            key = os.read(fd, _KEY_BYTES + 1)
        finally:
            os.close(fd)
        if len(key) != _KEY_BYTES:
            raise OSError(f"{path} is not a cuforge key ({len(key)} bytes)")
        _secret = key
        return key


class CacheWarning(RuntimeWarning):
    """The disk cache cannot be used (no writable folder, a failed write):
    kernels still compile, they are just not stored."""


CacheStats = collections.namedtuple("CacheStats", ["cache_path", "cache_hits", "cache_misses"])
CacheStats.__doc__ = """A dispatcher's disk-cache counters (numba's ``kernel.stats``):
``cache_hits`` and ``cache_misses`` count per argument-type tuple;
``cache_path`` is the folder (None without ``cache=True``)."""


# --- where ---------------------------------------------------------------------------------------


def _user_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cuforge")


def cache_dir_candidates(filename):
    """The folders tried in order: CUFORGE_CACHE_DIR alone when set, else
    ``__pycache__/cuforge`` beside the source file, then the user's cache
    folder (``$XDG_CACHE_HOME/cuforge``, ``~/.cache/cuforge``)."""
    env = os.environ.get("CUFORGE_CACHE_DIR")
    if env:
        return [os.path.abspath(env)]
    found = []
    if filename and os.path.isfile(filename):
        found.append(os.path.join(os.path.dirname(os.path.abspath(filename)), "__pycache__", "cuforge"))
    found.append(_user_cache_dir())
    return found


def _usable(folder):
    """Whether entries may be written to and read from ``folder``: made 0700
    if missing; one the user owns that others may read is made 0700; one
    owned by someone else, or writable by group or others, is not used
    (anyone who could write there could have planted entries, and the folder
    is not ours to change), and neither is a folder that cannot be made."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.stat(folder)
        if not stat.S_ISDIR(st.st_mode) or not _private(st):
            return False
        if st.st_mode & 0o077:
            os.chmod(folder, 0o700)  # ours, readable by others: made private
        return os.access(folder, os.W_OK | os.X_OK)
    except OSError:
        return False


def _why_unusable(folder):
    try:
        st = os.stat(folder)
    except OSError as e:
        return f"{folder} cannot be made ({e.strerror})"
    if st.st_uid != os.getuid():
        return f"{folder} belongs to another user (uid {st.st_uid})"
    return f"{folder} is writable by others (mode {st.st_mode & 0o777:o})"


# --- the compiler's stamp -------------------------------------------------------------------------

_stamp = None


def _file_stamp(path):
    try:
        st = os.stat(path)
        return f"{os.path.basename(path)} {st.st_size} {st.st_mtime_ns}"
    except OSError:
        return f"{os.path.basename(path)} missing"


def _compiler_stamp():
    """What decides the code a kernel compiles to: cuforge's version, this
    format, the build ids of libcuforge and _core (a rebuilt library is
    another compiler), and the size and mtime of the Python modules that
    build the IR (an edited walker is another compiler too)."""
    global _stamp
    if _stamp is None:
        import cuforge

        mods = _modules()
        build = _core.build_id()
        parts = [f"cuforge {cuforge.__version__}", f"format {FORMAT_VERSION}", f"build {build}"]
        from cuforge.cuda._compiler import bytecode

        parts += [_file_stamp(f) for f in (mods.walker.__file__, mods.resolve.__file__, mods.stubs.__file__,
                                           bytecode.__file__)]
        if "" in build.split(" "):  # a library without a build id: its file's size and mtime instead
            lib = os.path.join(os.path.dirname(_core.__file__), "libcuforge.so")
            parts += [_file_stamp(_core.__file__), _file_stamp(lib)]
        _stamp = "; ".join(parts)
    return _stamp


# --- the source and what it resolved to ------------------------------------------------------------

_sources = weakref.WeakKeyDictionary()  # Python function -> (filename, first line, digest) or None


def _file_lines(filename, module_globals):
    """The file's lines without their ends, numbered as the code object's
    line numbers count. Read afresh, as the walker does (inspect checks
    linecache's copy against the file first); linecache only for sources
    that are not files (exec'd code with a linecache entry, a zip import),
    its tokenize-based read costing more than a cache hit should."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError:
        lines = linecache.getlines(filename, module_globals)
        return [line[:-1] if line.endswith("\n") else line for line in lines] or None
    try:
        encoding, _ = _detect_encoding(data)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()  # the end of the last line, not a line
    return lines


def _detect_encoding(data):
    """The source encoding (PEP 263): UTF-8 unless a BOM or a coding
    comment in the first two lines says otherwise."""
    head = data[:data.find(b"\n", data.find(b"\n") + 1) + 1] if b"\n" in data[:4096] else data[:4096]
    if b"coding" not in head and not data.startswith(b"\xef\xbb\xbf"):
        return "utf-8", []
    import tokenize

    return tokenize.detect_encoding(io.BytesIO(data).readline)


def _source_identity(pyfunc):
    """(file, first line, digest of the definition's lines); where the
    source cannot be read, (file, first line, "code " + the code object's
    digest), as the walker then reads the bytecode.

    The lines run from the code object's first line (decorators included)
    to its last line of code, then on through the blank, comment and more
    indented lines that follow (a trailing ``pass`` or string makes no
    code): all the walker parses that can change the IR."""
    got = _sources.get(pyfunc, False)
    if got is not False:
        return got
    code = pyfunc.__code__
    lines = _file_lines(code.co_filename, pyfunc.__globals__)
    first = code.co_firstlineno
    result = None
    if lines and 0 < first <= len(lines):
        last = first
        ends = (p[1] for p in code.co_positions()) if hasattr(code, "co_positions") else \
            (line for _, _, line in code.co_lines())
        for end in ends:
            if end is not None and end > last:
                last = end
        indent = None
        for text in lines[first - 1:last]:
            stripped = text.lstrip()
            if stripped.startswith(("def ", "async def ")):
                indent = len(text) - len(stripped)
                break
        end = min(last, len(lines))
        while indent is not None and end < len(lines):
            text = lines[end]
            stripped = text.strip()
            if stripped and not stripped.startswith("#") and len(text) - len(text.lstrip()) <= indent:
                break
            end += 1
        body = "\n".join(lines[first - 1:end])
        if _defines(body, code.co_name):
            result = (os.path.abspath(code.co_filename), first,
                      _hash(body.encode("utf-8", "surrogatepass")).hexdigest())
    if result is None:
        # No source (exec'd, generated, `python -c`): the walker reads the
        # code object, so the code object is the identity.
        from cuforge.cuda._compiler import bytecode

        file = os.path.abspath(code.co_filename) if os.path.isfile(code.co_filename) else code.co_filename
        result = (file, first, "code " + bytecode.code_digest(code))
    _sources[pyfunc] = result
    return result


def _defines(text, name):
    """Whether source ``text`` holds the definition of function ``name`` (a
    lambda's, for "<lambda>"): ``def``, as a word, then blanks, the name, and
    an opening parenthesis after any blanks. A scan, not a regular
    expression: compiling a pattern for each name cost a tenth of a cache
    hit (bench/compile/bench_cache_hit.py)."""
    if name == "<lambda>":
        return "lambda" in text
    i = text.find("def")
    while i >= 0:
        after = i + 3
        if (i == 0 or not _word_char(text[i - 1])) and after < len(text) and text[after].isspace():
            j = _skip_blanks(text, after)
            if text.startswith(name, j):
                k = _skip_blanks(text, j + len(name))
                if k < len(text) and text[k] == "(":
                    return True
        i = text.find("def", i + 1)
    return False


def _word_char(c):
    return c.isalnum() or c == "_"


def _skip_blanks(text, i):
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _lookup(pyfunc, name):
    """(found, value) of a name as the walker looks it up: closure cells,
    the function's globals, builtins."""
    code = pyfunc.__code__
    if name in code.co_freevars:
        cell = pyfunc.__closure__[code.co_freevars.index(name)]
        try:
            return True, cell.cell_contents
        except ValueError:
            return False, None
    g = pyfunc.__globals__
    if name in g:
        return True, g[name]
    if hasattr(builtins, name):
        return True, getattr(builtins, name)
    return False, None


_MISSING = object()


def _value_at(pyfunc, path):
    """The value a global path names now (``N``, ``cfg.BLOCK``,
    ``builtins.len``, ``cuforge.cuda``), following the walker's rules;
    _MISSING when it no longer resolves the same way."""
    mods = _modules()
    if path == "cuforge.cuda":
        return mods.cuda
    parts = path.split(".")
    if parts[0] == "builtins" and len(parts) == 2:
        return getattr(builtins, parts[1], _MISSING)
    found, value = _lookup(pyfunc, parts[0])
    if not found:
        return _MISSING
    for attr in parts[1:]:
        if not mods.resolve.foldable(value):
            return _MISSING
        try:
            value = getattr(value, attr)
        except Exception:  # noqa: BLE001 - any failing attribute is a changed global
            return _MISSING
    return value


def _is_dispatcher(value):
    return isinstance(value, _modules().Dispatcher)


_mods = None


def _modules():
    """The compiler's modules this one reads (imported on first use: they
    import this one)."""
    global _mods
    if _mods is None:
        import cuforge.cuda
        from cuforge.cuda import _stubs
        from cuforge.cuda._compiler import build_ir_and_fingerprint, resolve, walker
        from cuforge.cuda._jit import Dispatcher

        _mods = pytypes.SimpleNamespace(cuda=cuforge.cuda, stubs=_stubs, resolve=resolve, walker=walker,
                                        Dispatcher=Dispatcher, build_ir_and_fingerprint=build_ir_and_fingerprint)
    return _mods


_stubs_seen = weakref.WeakKeyDictionary()  # Python function -> _stub_names at first sight


def _stub_names(pyfunc):
    """The kernel-side cuda names the function reaches by a bare name
    (``from cuforge.cuda import grid``): the walker reads them as
    ``cuda.<path>`` and records only the module, so they are checked here.
    Read once per function, as the walker builds its IR once."""
    got = _stubs_seen.get(pyfunc)
    if got is None:
        got = _stubs_seen[pyfunc] = _read_stub_names(pyfunc)
    return got


def _read_stub_names(pyfunc):
    cuda_path = _modules().stubs.cuda_path
    code = pyfunc.__code__
    out = []
    for name in sorted(set(code.co_names) | set(code.co_freevars)):
        found, value = _lookup(pyfunc, name)
        path = cuda_path(value) if found else None
        if path is not None:
            out.append([name, ".".join(path)])
    return out


def _manifest(pyfunc, depth=0):
    """What the walker resolved for ``pyfunc`` (from its fingerprint, the
    walker's own record), device functions replaced by their identity and
    manifest so that a hit can check them without building their IR."""
    if depth > 64:
        raise RecursionError("device functions nested too deeply for the disk cache")
    _, fingerprint = _modules().build_ir_and_fingerprint(pyfunc)
    head, sep, tail = fingerprint.rpartition("\nglobals:\n")
    if not sep:
        raise ValueError("a fingerprint without its globals")
    globals_, devices = [], []
    for line in tail.split("\n") if tail else ():
        path, sep, text = line.partition(" = ")
        if not sep:
            raise ValueError(f"an unreadable fingerprint line {line!r}")
        value = _value_at(pyfunc, path)
        if text.startswith("device_function ") and _is_dispatcher(value):
            callee = value.py_func
            _, callee_fingerprint = _modules().build_ir_and_fingerprint(callee)
            if not text.endswith(f"[{hashlib.sha256(callee_fingerprint.encode()).hexdigest()}]"):
                # Rebound since the kernel's IR was built: the stored code would not be this callee's.
                raise ValueError(f"{path} changed since {pyfunc.__qualname__} was compiled")
            devices.append([path, {"qualname": callee.__qualname__, "source": _source_identity(callee),
                                   **_manifest(callee, depth + 1)}])
        else:
            globals_.append([path, text])
    return {"globals": globals_, "devices": devices, "stubs": _stub_names(pyfunc)}


def _no_device_ir(dispatcher):
    return None  # never asked: dispatchers are checked before resolve() sees them


def _manifest_holds(pyfunc, manifest, depth=0):
    """Whether every path of ``manifest`` resolves now to what it did."""
    resolve = _modules().resolve.resolve
    if depth > 64:
        return False
    for path, text in manifest["globals"]:
        value = _value_at(pyfunc, path)
        if value is _MISSING or _is_dispatcher(value):
            return False
        if resolve(path, value, _no_device_ir).text != text:
            return False
    for path, callee in manifest["devices"]:
        value = _value_at(pyfunc, path)
        if not _is_dispatcher(value):
            return False
        fn = value.py_func
        identity = _source_identity(fn)
        if fn.__qualname__ != callee["qualname"] or identity is None or list(identity) != list(callee["source"]):
            return False
        if not _manifest_holds(fn, callee, depth + 1):
            return False
    return _stub_names(pyfunc) == manifest["stubs"]


# --- the files --------------------------------------------------------------------------------------


def _encode(header, code, key):
    head = _canonical(header).encode()
    body = _MAGIC + _PREFIX.pack(FORMAT_VERSION, len(head)) + head + _CODE_LEN.pack(len(code)) + code
    return body + _mac(body, key)


def _decode(blob, key):
    """(header, code) of a file's bytes; ValueError when it is not a whole
    entry of this format made with this user's key (a planted or tampered
    entry, a truncated one)."""
    n = len(_MAGIC)
    if len(blob) < n + _PREFIX.size + _CODE_LEN.size + _DIGEST or not blob.startswith(_MAGIC):
        raise ValueError("not a cuforge cache entry")
    body, digest = blob[:-_DIGEST], blob[-_DIGEST:]
    version, head_len = _PREFIX.unpack_from(blob, n)
    if version != FORMAT_VERSION:
        raise ValueError(f"format {version}, not {FORMAT_VERSION}")
    if not hmac.compare_digest(_mac(body, key), digest):
        raise ValueError("authentication failed (tampered, planted, truncated or corrupted)")
    at = n + _PREFIX.size
    if at + head_len + _CODE_LEN.size > len(body):
        raise ValueError("header length past the end")
    header = json.loads(body[at:at + head_len])
    at += head_len
    (code_len,) = _CODE_LEN.unpack_from(body, at)
    at += _CODE_LEN.size
    if at + code_len != len(body):
        raise ValueError("code length mismatch")
    return header, body[at:]


def _read_header(f):
    """The JSON header of an open entry, without reading its code."""
    n = len(_MAGIC)
    start = f.read(n + _PREFIX.size)
    if len(start) < n + _PREFIX.size or not start.startswith(_MAGIC):
        raise ValueError("not a cuforge cache entry")
    version, head_len = _PREFIX.unpack_from(start, n)
    if version != FORMAT_VERSION:
        raise ValueError(f"format {version}, not {FORMAT_VERSION}")
    return json.loads(f.read(head_len))


def _open_entry(path):
    """A read-only descriptor of the regular file ``path`` and its size;
    OSError for anything else (a symlink, a FIFO, a device: nothing that
    could hang or lead out of the folder) or for one too large."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is not a regular file")
        if st.st_size > _MAX_ENTRY:
            raise OSError(f"{path} is too large to be an entry")
        return fd, st.st_size
    except BaseException:
        os.close(fd)
        raise


def _read_entry(path):
    """The bytes of the entry file ``path``, read up to its size at opening."""
    fd, size = _open_entry(path)
    try:
        chunks, left = [], size
        while left > 0:
            got = os.read(fd, left)
            if not got:
                break
            chunks.append(got)
            left -= len(got)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _unlink_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _safe(name):
    if not name.replace(".", "").replace("-", "").isidentifier():
        name = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
    return name[:100]


class DiskCache:
    """One kernel's entries. ``load`` and ``save`` never raise for a cache
    problem: a miss compiles, a failed write warns (once) and goes on."""

    def __init__(self, pyfunc, device=False):
        self.pyfunc = pyfunc
        self.device = bool(device)
        self.hits = collections.Counter()
        self.misses = collections.Counter()
        self._lock = threading.Lock()
        self._candidates = None
        self._folder = None  # where entries are written, chosen on the first save
        self._found_in = None  # where the last entry read came from
        self._warned = False

    # --- the folder ---

    @property
    def candidates(self):
        if self._candidates is None:
            self._candidates = cache_dir_candidates(self.pyfunc.__code__.co_filename)
        return self._candidates

    @property
    def folder(self):
        """The folder entries are written to (made if needed): the first
        usable candidate; None when none is (warned once)."""
        if self._folder is None:
            chosen = next((c for c in self.candidates if _usable(c)), None)
            if chosen is None:
                why = "; ".join(_why_unusable(c) for c in self.candidates)
                self._warn(f"no private, writable cache folder ({why}): "
                           f"{self.pyfunc.__qualname__} is compiled without storing it")
            self._folder = chosen or ""
        return self._folder or None

    def _warn(self, message):
        if not self._warned:
            self._warned = True
            warnings.warn(message, CacheWarning, stacklevel=5)

    # --- keys ---

    def key(self, specs, ret_spec, config):
        """The entry's key (a JSON-able dict), or None when the function's
        source cannot be read."""
        identity = _source_identity(self.pyfunc)
        if identity is None:
            return None
        file, line, source = identity
        return {
            "format": FORMAT_VERSION,
            "function": self.pyfunc.__qualname__,  # with "file": the module may be imported by any name
            "file": file,
            "line": line,
            "source": source,
            "args": list(specs),
            "return": ret_spec,
            "device": self.device,
            # The compile configuration's key: the target (the GPU's sm_XY, or
            # this CPU) and every option that changes the code.
            "config": config.key,
            "compiler": _compiler_stamp(),
            "python": sys.implementation.cache_tag,
        }

    def file_name(self, key):
        """The entry's file name: the source file's stem, the qualname, and
        the key's hash."""
        # repr, not JSON: the key holds only str, int, bool, None, lists and
        # dicts built in a fixed order, so its repr is canonical (and cheaper).
        digest = _hash(repr(key).encode()).hexdigest()
        stem = os.path.splitext(os.path.basename(key["file"]))[0]
        return f"{_safe(stem)}.{_safe(self.pyfunc.__qualname__)}-{digest[:32]}{_SUFFIX}"

    # --- load and save ---

    def _read(self, name):
        """The bytes of the entry ``name`` from the first candidate folder
        holding it (no folder is made to look), else None."""
        for folder in self.candidates:
            try:
                st = os.stat(folder)
                if not stat.S_ISDIR(st.st_mode) or not _private(st):
                    continue  # a folder others can write to holds nothing we run
                blob = _read_entry(os.path.join(folder, name))
                self._found_in = folder
                return blob
            except OSError:
                continue
        return None

    def load(self, specs, ret_spec, config, rebuild):
        """The cached specialisation, loaded and ready to launch; None on a
        miss (counted). ``rebuild()`` compiles it afresh: what .ptx and
        .llvm of a cpu entry use."""
        counted = tuple(specs)
        cf = None
        try:
            key = self.key(specs, ret_spec, config)
            blob = None if key is None else self._read(self.file_name(key))
            if blob is not None:
                header, code = _decode(blob, secret_key())
                if header["key"] != key:
                    raise ValueError("a different key under the same name")
                if not _manifest_holds(self.pyfunc, header["manifest"]):
                    raise ValueError("a global or a called device function changed")
                cf = _core.load_compiled(header["kind"], header["facts"], code, list(specs), config, self.device)
                cf._set_rebuild(rebuild)
                # links the code now: an entry that will not load is a miss, not a failed launch (host-only
                # code, the host jit's, is linked into this process whatever the backend)
                cf.load_host() if config.host_only else cf.load()
        except Exception:  # noqa: BLE001 - stale, corrupted or unloadable: compile instead
            cf = None
        with self._lock:
            (self.hits if cf is not None else self.misses)[counted] += 1
        return cf

    def save(self, specs, ret_spec, config, cf):
        """Stores ``cf`` (just compiled) atomically; warns once if it cannot."""
        key = self.key(specs, ret_spec, config)
        if key is None or self.folder is None:
            return
        try:
            manifest = _manifest(self.pyfunc)
        except Exception as e:  # noqa: BLE001 - an unexpected global: run, but do not store
            self._warn(f"{self.pyfunc.__qualname__} is not stored in the disk cache: {e}")
            return
        try:
            secret = secret_key()
        except OSError as e:
            self._warn(f"the disk cache's key cannot be used ({e}): {self.pyfunc.__qualname__} is compiled "
                       "without storing it")
            return
        kind, facts, code = cf.cache_payload()
        blob = _encode({"key": key, "manifest": manifest, "kind": kind, "facts": facts}, bytes(code), secret)
        path = os.path.join(self.folder, self.file_name(key))
        # A temporary beside it (the same file system), renamed over it: the
        # rename is atomic, so readers see the old entry or the new one.
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.{os.urandom(4).hex()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            os.fchmod(fd, 0o600)  # whatever the umask
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        except OSError as e:
            _unlink_quietly(tmp)
            self._warn(f"cannot write {self.pyfunc.__qualname__}'s entry to the disk cache ({e}); "
                       "it is compiled without storing it")
            return
        except BaseException:
            _unlink_quietly(tmp)
            raise
        self._prune(path, key)

    def _prune(self, path, key):
        """Removes the entries this one supersedes: the same specialisation
        (file, function, types, configuration, compiler, Python) of an
        earlier source or line. Entries of other compilers stay (two
        installations may share a folder)."""
        folder, name = os.path.split(path)
        prefix = name[:name.rindex("-") + 1]
        same = {k: v for k, v in key.items() if k not in ("source", "line")}
        try:
            siblings = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(_SUFFIX) and n != name]
        except OSError:
            return
        for other in siblings:
            try:
                fd, _ = _open_entry(os.path.join(folder, other))
                with os.fdopen(fd, "rb") as f:
                    theirs = _read_header(f)["key"]
                if {k: v for k, v in theirs.items() if k not in ("source", "line")} == same:
                    os.unlink(os.path.join(folder, other))
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue  # unreadable, or gone already: not ours to judge

    def stats(self, to_types):
        with self._lock:
            hits = collections.Counter({to_types(k): v for k, v in self.hits.items()})
            misses = collections.Counter({to_types(k): v for k, v in self.misses.items()})
        return CacheStats(self._folder or self._found_in or self.candidates[0], hits, misses)

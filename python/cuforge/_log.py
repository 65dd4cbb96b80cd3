"""cuforge's log: ``logging.getLogger("cuforge")``.

Nothing is printed unless the application configures logging (the package
logger has a NullHandler, as libraries should). At INFO: which backend was
chosen and why (once per process). At DEBUG: every compilation, with the
function, the argument types, the target, the time it took and what the disk
cache did (``hit``, ``miss`` then stored, ``off``)::

    import logging
    logging.basicConfig()
    logging.getLogger("cuforge").setLevel(logging.DEBUG)
"""

from __future__ import annotations

import sys
import threading
import time

_logger = None  # made at the first compile: `import logging` costs 5 ms, more than cuforge's import should
_backend_told = False
_backend_lock = threading.Lock()


def logger():
    """The "cuforge" logger (with a NullHandler, as libraries' have)."""
    global _logger
    if _logger is None:
        import logging

        made = logging.getLogger("cuforge")
        if not any(isinstance(h, logging.NullHandler) for h in made.handlers):
            made.addHandler(logging.NullHandler())
        _logger = made
    return _logger


def _silent() -> bool:
    """True while the process has not imported ``logging``: then nobody has configured a handler,
    and a record at INFO or DEBUG would go nowhere (the last-resort handler shows WARNING and up).
    Importing it ourselves costs 5 ms, which a disk-cache hit (about 2) must not pay."""
    return "logging" not in sys.modules


def now() -> float:
    return time.perf_counter()


def target_text(config) -> str:
    """A compile configuration in a few words: "nvptx sm_90", "host", and the options that are on."""
    text = config.target
    if text == "nvptx":
        text += " sm_{}{}".format(*config.cc)
    flags = [name for name in ("fastmath", "lineinfo", "boundscheck") if getattr(config, name, False)]
    if config.debug_level:
        flags.insert(0, "debug")
    if getattr(config, "host_only", False):
        flags.append("host-only")
    return text + (" (" + ", ".join(flags) + ")" if flags else "")


def compiled(kind: str, function, specs, config, started: float, cache: str) -> None:
    """Logs one compilation at DEBUG: `kind` ("kernel", "device function",
    "ufunc loop", ...), the Python function, its argument type specs, the
    configuration, the seconds since `started`, and the disk cache's part."""
    if _silent():
        return
    import logging  # (imported already: a dictionary lookup)

    log = logger()
    if not log.isEnabledFor(logging.DEBUG):
        return
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", repr(function))
    log.debug("compiled %s %s(%s) for %s in %.1f ms (disk cache: %s)", kind, name, ", ".join(specs),
                 target_text(config), (now() - started) * 1e3, cache)


def backend_chosen() -> None:
    """Logs the active backend and why at INFO, the first time it is known."""
    global _backend_told
    if _backend_told or _silent():  # (told at the first compile after logging is configured)
        return
    import logging

    if not logger().isEnabledFor(logging.INFO):
        return
    with _backend_lock:
        if _backend_told:
            return
        _backend_told = True
    from cuforge import _core

    logger().info("cuforge runs on the %s", _core.backend_reason())

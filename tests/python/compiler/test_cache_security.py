"""The disk cache is private and authenticated (issue 15, item 1): folders
0700 and files 0600 whatever the umask; a folder owned by someone else or
writable by others is not used; entries carry a MAC under the user's secret
key, so a planted or tampered entry is recompiled, never run; only regular
files are opened, so a FIFO, a device or a symlink in place of an entry
neither hangs nor leads elsewhere. Each case is run in a fresh process (a
file, as users run kernels) where a hang or a crash would show."""

import os
import pathlib
import stat
import subprocess
import sys

import pytest

from cuforge.cuda import _cache

KERNEL = '''
import json, os, sys
import numpy as np
from cuforge import cuda

os.umask(int(sys.argv[2], 8))
K = 3


@cuda.jit(cache=True)
def add_k(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + K


out = np.zeros(4)
add_k[1, 32](out, np.arange(4.0))
stats = add_k.stats
print(json.dumps({"out": out.tolist(), "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
'''


def run(tmp_path, cache, umask="022", timeout=120):
    import json

    script = tmp_path / "kernel_mod.py"
    if not script.exists():
        script.write_text(KERNEL)
    env = dict(os.environ, CUFORGE_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, str(script), str(tmp_path), umask], capture_output=True, text=True, env=env,
                       timeout=timeout)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["out"] == [3.0, 4.0, 5.0, 6.0]
    return got, r.stderr


def entries(cache):
    return sorted(p for p in pathlib.Path(cache).iterdir() if p.suffix == ".cfk")


@pytest.mark.parametrize("umask", ["000", "022", "077"])
def test_folders_are_0700_and_entries_0600_whatever_the_umask(tmp_path, umask):
    cache = tmp_path / "deep" / "cache"
    got, _ = run(tmp_path, cache, umask)
    assert (got["hits"], got["misses"]) == (0, 1)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    [entry] = entries(cache)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    key = pathlib.Path(os.environ["CUFORGE_CONFIG_DIR"]) / "cache.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and key.stat().st_size == 32
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    got, _ = run(tmp_path, cache, umask)
    assert (got["hits"], got["misses"]) == (1, 0)


def test_a_folder_of_ours_left_open_is_made_private(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o755)
    run(tmp_path, cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and len(entries(cache)) == 1


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_of_another_user_is_not_used(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chown(cache, 4242, -1)
    got, err = run(tmp_path, cache)
    assert (got["hits"], got["misses"]) == (0, 1)
    assert "belongs to another user" in err and entries(cache) == []
    # An entry planted there by that user is not read either.
    os.chown(cache, 0, -1)
    run(tmp_path, cache)
    [entry] = entries(cache)
    os.chown(cache, 4242, -1)
    got, _ = run(tmp_path, cache)
    assert got["misses"] == 1


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_a_folder_writable_by_others_is_not_used_nor_changed(tmp_path, mode):
    cache = tmp_path / "cache"
    cache.mkdir()
    run(tmp_path, cache)  # an entry, made while the folder was private
    cache.chmod(mode)
    got, err = run(tmp_path, cache)
    assert (got["hits"], got["misses"]) == (0, 1)  # its entry is not read
    assert "writable by others" in err and err.count("CacheWarning") == 1
    assert stat.S_IMODE(cache.stat().st_mode) == mode and len(entries(cache)) == 1  # nothing written there


def test_a_tampered_entry_with_a_recomputed_checksum_is_recompiled_not_run(tmp_path):
    cache = tmp_path / "cache"
    run(tmp_path, cache)
    [entry] = entries(cache)
    blob = bytearray(entry.read_bytes())
    body = blob[:-_cache._DIGEST]
    # Change the code (any byte of the object file) and seal it as before the MAC: a plain BLAKE2 checksum.
    body[-10] ^= 0xFF
    entry.write_bytes(bytes(body) + _cache._hash(bytes(body)).digest())
    got, _ = run(tmp_path, cache)
    assert (got["hits"], got["misses"]) == (0, 1)  # and the output is right (run checks it)
    # An entry sealed with another user's key is refused too.
    planted = bytes(body) + _cache._mac(bytes(body), os.urandom(32))
    entry.write_bytes(planted)
    got, _ = run(tmp_path, cache)
    assert (got["hits"], got["misses"]) == (0, 1)
    assert entry.read_bytes() != planted  # replaced by our own


@pytest.mark.parametrize("kind", ["fifo", "symlink to /dev/zero", "symlink out of the folder", "directory"])
def test_what_is_not_a_regular_file_is_a_miss_and_never_hangs(tmp_path, kind):
    cache = tmp_path / "cache"
    run(tmp_path, cache)
    [entry] = entries(cache)
    good = entry.read_bytes()
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "symlink to /dev/zero":
        entry.symlink_to("/dev/zero")
    elif kind == "symlink out of the folder":
        outside = tmp_path / "elsewhere.cfk"
        outside.write_bytes(good)  # a valid entry, but outside the folder: not followed
        entry.symlink_to(outside)
    else:
        entry.mkdir()
    got, _ = run(tmp_path, cache, timeout=60)
    assert (got["hits"], got["misses"]) == (0, 1)


def test_reads_are_bounded_by_the_file(tmp_path):
    # A header that claims more than the file holds is refused without reading past it.
    key = os.urandom(32)
    import json

    head = json.dumps({"key": {}}).encode()
    body = _cache._MAGIC + _cache._PREFIX.pack(_cache.FORMAT_VERSION, len(head) + 10**9) + head
    with pytest.raises(ValueError):
        _cache._decode(body + _cache._mac(body, key), key)
    p = tmp_path / "x.cfk"
    p.write_bytes(b"abc")
    assert _cache._read_entry(str(p)) == b"abc"
    os.mkfifo(tmp_path / "fifo.cfk")
    with pytest.raises(OSError, match="not a regular file"):
        _cache._read_entry(str(tmp_path / "fifo.cfk"))


def test_a_key_file_others_can_read_disables_the_cache(tmp_path):
    config = tmp_path / "config"
    config.mkdir(mode=0o700)
    key = config / "cache.key"
    key.write_bytes(os.urandom(32))
    key.chmod(0o644)
    env = dict(os.environ, CUFORGE_CONFIG_DIR=str(config))
    script = tmp_path / "kernel_mod.py"
    script.write_text(KERNEL)
    r = subprocess.run([sys.executable, str(script), str(tmp_path), "022"], capture_output=True, text=True,
                       env=dict(env, CUFORGE_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1"),
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "not a private file" in r.stderr and entries(tmp_path / "cache") == []

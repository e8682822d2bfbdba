"""Loading compiled artifacts into this process through the ``msjit._msjit_rt`` extension.

The extension is imported on first use, so the rest of the package works without it (eager
execution, capture, inspection). Every load is verified: the artifact's bytes are read, their
SHA-256 compared with the digest the daemon recorded for the key, and exactly those bytes are
loaded (from memory, ``msrt_load_bytes``), so no file swapped after the check can run. The bytes
come from the daemon's cache when it is on this machine, else from this host's client cache
``$MSJIT_HOME/artifacts/<digest>.so`` (shared with the C++ client); otherwise they are fetched
(FetchArtifact), checked and stored there (written to a temp file, then renamed). A fetch the
daemon answers with NOT_FOUND (the one that compiled the graph went away and the next address
never saw it) compiles the graph again there.

A file whose bytes do not match is moved to a ``quarantine/`` directory beside the cache it was in
(``<cache>/quarantine/`` for the daemon's ``<cache>/cas/``, ``$MSJIT_HOME/quarantine/`` for the
client's own copies), a warning names it, and the daemon is asked again: once by compiling again
(the daemon re-verifies its cache and recompiles), then by fetching the bytes. Only bytes that
match are loaded; otherwise MsjitError.
"""
import hashlib
import logging
import os
import re
import tempfile
import time
from pathlib import Path

from .errors import ArtifactNotFoundError, MsjitError, RuntimeUnavailableError
from .rpc import make_private_dir, msjit_home

logger = logging.getLogger(__name__)

_rt = None
_loaded = {}  # artifact digest -> Executable: identical graphs share one loaded artifact


def rt():
    """The runtime extension module."""
    global _rt
    if _rt is None:
        try:
            from . import _msjit_rt
        except ImportError as e:
            raise RuntimeUnavailableError(f"the runtime extension msjit._msjit_rt is not available ({e}); "
                                          "build and stage it with `make stage`") from e
        _rt = _msjit_rt
    return _rt


def load(reply, client, recompile=None):
    """The Executable of a CompileReply, loaded from bytes that hash to ``reply.artifact_digest``
    (once per digest). ``recompile()`` asks the daemon for a fresh CompileReply of the same graph;
    it is called at most once, when a copy on disk does not match its digest."""
    exe = _loaded.get(reply.artifact_digest)
    if exe is None:
        digest, data, _ = _verified(reply, client, recompile)
        exe = _loaded.get(digest)
        if exe is None:
            try:
                exe = rt().Executable(data, name=f"msjit-{digest[:16]}")
            except RuntimeError as e:
                raise MsjitError(f"loading artifact {digest} (key {reply.key}) failed: {e}") from e
            _loaded[digest] = exe
    return exe


def local_artifact(reply, client):
    """A local path holding the artifact of ``reply``, verified now, fetched if needed. (load()
    does not load this path: a file can be swapped after it was checked.)"""
    return _verified(reply, client, None)[2]


def _verified(reply, client, recompile):
    """``(digest, bytes, local path)`` of the artifact of ``reply``: read from a local copy when
    there is one, else fetched; a copy that does not match is quarantined and the daemon asked
    again (see above). The path is None when the bytes exist only in memory."""
    found = _local_bytes(reply)
    if found is _MISMATCH and recompile is not None:
        reply = recompile()
        found = _local_bytes(reply)
    if found not in (None, _MISMATCH):
        return (reply.artifact_digest,) + found
    try:
        data = client.fetch_artifact(reply.key)
    except ArtifactNotFoundError:
        if recompile is None:
            raise
        # The daemon that compiled it went away and the next one of MSJITD_ADDRESS has not seen it.
        reply = recompile()
        return _verified(reply, client, None)
    digest = hashlib.sha256(data).hexdigest()
    if digest != reply.artifact_digest:
        raise MsjitError(f"artifact for key {reply.key} has SHA-256 {digest}, "
                         f"but the daemon announced {reply.artifact_digest}; not loading it")
    logger.debug("fetched artifact %s (%d bytes)", reply.key, len(data))
    path = _client_copy(reply)   # (kept for the next process on this host: it need not fetch)
    _store(path, data)
    return digest, data, path


_MISMATCH = object()
_DIGEST = re.compile(r"[0-9a-f]{64}")


def _local_bytes(reply):
    """``(bytes, path)`` of the first local copy of the artifact (the daemon's file, then the
    client's) whose bytes hash to its digest; _MISMATCH if a copy was there but did not match (it
    is quarantined); None if there is no copy."""
    result = None
    for path in (reply.artifact_path, _client_copy(reply)):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
        except OSError as e:
            logger.warning("cannot read artifact %s (%s); asking the daemon for it", path, e)
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest == reply.artifact_digest:
            return data, path
        logger.warning("artifact %s has SHA-256 %s, but its key %s was compiled to %s: quarantining it",
                       path, digest, reply.key, reply.artifact_digest)
        _quarantine(path)
        result = _MISMATCH
    return result


def _client_copy(reply):
    if not _DIGEST.fullmatch(reply.artifact_digest):   # (it names a file)
        raise MsjitError(f"msjitd announced {reply.artifact_digest!r} as the artifact digest of key {reply.key}; "
                         "not a SHA-256")
    return os.path.join(msjit_home(), "artifacts", f"{reply.artifact_digest}.so")


def _quarantine(path):
    """Move a tampered or corrupt artifact out of the way, kept for inspection: into
    ``<cache>/quarantine/`` for the daemon's ``<cache>/cas/ab/<digest>.so``, else into
    ``$MSJIT_HOME/quarantine/``. If that is not permitted (e.g. another user's cache), log it."""
    p = Path(path)
    directory = p.parents[2] / "quarantine" if p.parent.parent.name == "cas" else Path(msjit_home()) / "quarantine"
    target = directory / f"{p.name}.{time.time_ns()}"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.replace(p, target)
    except OSError as e:
        logger.warning("cannot quarantine %s into %s (%s); not loading it", path, directory, e)
        return
    logger.info("quarantined %s as %s", path, target)


def _store(path, data):
    """Write ``data`` to ``path`` atomically (a temp file renamed): present means complete."""
    directory = os.path.dirname(path)
    make_private_dir(directory)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".fetch-", suffix=".so")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def check_signature(exe, graph):
    """The loaded artifact must take and return exactly what the graph says."""
    want = ([(a.dtype.np, tuple(a.shape)) for _, a in graph.inputs + graph.parameters],
            [(a.dtype.np, tuple(a.shape)) for _, a in graph.outputs])
    got = ([(d, tuple(s)) for d, s in exe.inputs], [(d, tuple(s)) for d, s in exe.outputs])
    if got != want:
        raise MsjitError(f"artifact for {graph.name} has signature {got}, expected {want}")


def fast_call(exe, single):
    """The extension's per-call fast path: ``fast(args)`` returns the result (one Tensor when
    ``single``, else a tuple) or None when ``args`` are not exactly contiguous Tensors of the
    compiled dtypes and shapes. It fills Tensor's ``_array`` slot itself, as ``Tensor._wrap`` does."""
    from .tensor import Tensor
    return rt().FastCall(exe, Tensor, single)

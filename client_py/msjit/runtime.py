"""Loading compiled artifacts into this process through the ``msjit._msjit_rt`` extension.

The extension is imported on first use, so the rest of the package works without it (eager
execution, capture, inspection). Artifacts are used in place when the daemon's cache is on
this machine; otherwise they are fetched, checked against their SHA-256 and stored
content-addressed under ``$MSJIT_HOME/artifacts`` (written to a temp file, then renamed).
"""
import hashlib
import logging
import os
import tempfile

from .errors import MsjitError, RuntimeUnavailableError
from .rpc import msjit_home

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


def local_artifact(reply, client):
    """A local path holding the artifact of ``reply``, fetching it from the daemon if needed."""
    if reply.artifact_path and os.path.exists(reply.artifact_path):
        return reply.artifact_path
    directory = os.path.join(msjit_home(), "artifacts")
    path = os.path.join(directory, f"{reply.artifact_digest}.so")
    if os.path.exists(path):  # content-addressed and written atomically: present means complete
        return path
    data = client.fetch_artifact(reply.key)
    digest = hashlib.sha256(data).hexdigest()
    if digest != reply.artifact_digest:
        raise MsjitError(f"artifact for key {reply.key} has SHA-256 {digest}, "
                         f"but the daemon announced {reply.artifact_digest}; not loading it")
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".fetch-", suffix=".so")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    logger.debug("fetched artifact %s (%d bytes) to %s", reply.key, len(data), path)
    return path


def load(reply, client):
    """The Executable of a CompileReply (loaded once per artifact digest)."""
    exe = _loaded.get(reply.artifact_digest)
    if exe is None:
        path = local_artifact(reply, client)
        try:
            exe = rt().Executable(path)
        except RuntimeError as e:
            raise MsjitError(f"loading artifact {path} failed: {e}") from e
        _loaded[reply.artifact_digest] = exe
    return exe


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

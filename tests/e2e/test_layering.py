"""Layering, in the linker's view: the runtime never depends on the compiler (the shared objects a
client loads link no MLIR, LLVM or protobuf, and the runtime's headers include none of them); the
serving daemon links neither the compiler nor the runtime (untrusted work runs in msjit-worker);
the artifact cache links no compiler."""
import glob
import os
import re
import subprocess

import pytest

from support import ROOT

RUNTIME_SIDE = ["bazel-bin/runtime/libmsjit_runtime.so", "bazel-bin/client_py/_msjit_rt.so"]
FORBIDDEN = re.compile(r"libMLIR|libLLVM|libprotobuf|libgrpc")


@pytest.mark.parametrize("path", RUNTIME_SIDE)
def test_runtime_side_links_no_compiler(path):
    binary = os.path.join(ROOT, path)
    if not os.path.exists(binary):
        pytest.fail(f"{path} is not built: run `make build`")
    needed = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    assert "NEEDED" in needed
    assert not FORBIDDEN.search(needed), needed


def test_runtime_headers_include_no_compiler():
    for header in glob.glob(os.path.join(ROOT, "runtime", "*.h")) + glob.glob(os.path.join(ROOT, "runtime", "*.cpp")):
        includes = re.findall(r'#include [<"]([^>"]+)', open(header).read())
        assert includes, header
        for inc in includes:
            assert not inc.startswith(("mlir", "llvm", "proto/", "google/", "grpc")), (header, inc)


COMPILER = re.compile(r"libMLIR|libLLVM")
RUNTIME_LIBS = re.compile(r"libdnnl|libopenblas|libgomp|libmsjit_runtime")


def needed(path):
    binary = os.path.join(ROOT, path)
    if not os.path.exists(binary):
        pytest.fail(f"{path} is not built: run `make build`")
    return subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout


def defined_symbols(path):
    out = subprocess.run(["nm", "-C", "--defined-only", os.path.join(ROOT, path)],
                         capture_output=True, text=True, check=True).stdout
    return out


def test_daemon_links_neither_compiler_nor_runtime():
    libs = needed("bazel-bin/server/msjitd")
    assert not COMPILER.search(libs), libs
    assert not RUNTIME_LIBS.search(libs), libs
    symbols = defined_symbols("bazel-bin/server/msjitd")
    assert "WorkerPool::run" in symbols  # (the symbol table is there to search)
    assert "msrt_" not in symbols and "mlir::" not in symbols and "compileModel" not in symbols


def test_cache_links_no_compiler():
    # cc_test links //server:cache as its own shared object: its NEEDED list is the cache's.
    libs = needed("bazel-bin/server/libcache.so")
    assert "libcrypto" in libs
    assert not COMPILER.search(libs), libs
    assert not RUNTIME_LIBS.search(libs), libs


def test_worker_links_compiler_and_runtime():  # the checks above can fail: the worker links both
    libs = needed("bazel-bin/server/msjit-worker")
    assert COMPILER.search(libs) and RUNTIME_LIBS.search(libs), libs


def test_runtime_library_exports_the_c_abi():
    exported = subprocess.run(["nm", "-D", "--defined-only", os.path.join(ROOT, "bazel-bin/runtime/libmsjit_runtime.so")],
                              capture_output=True, text=True, check=True).stdout
    for name in ("msrt_load", "msrt_load_bytes", "msrt_run", "msrt_last_error", "msrt_tensor", "msrt_unload"):
        assert re.search(rf"\bT {name}$", exported, re.M), name

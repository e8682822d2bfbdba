"""The runtime never depends on the compiler: the shared objects a client loads link no MLIR,
LLVM or protobuf, and the runtime's headers include none of them."""
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


def test_compiler_does_link_mlir():  # the check above can fail: the daemon does link MLIR
    needed = subprocess.run(["readelf", "-d", os.path.join(ROOT, "bazel-bin/server/msjitd")],
                            capture_output=True, text=True, check=True).stdout
    assert FORBIDDEN.search(needed)

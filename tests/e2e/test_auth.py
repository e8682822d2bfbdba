"""Who may call a TCP msjitd: bearer token, TLS, mutual TLS, the refusal to listen exposed without
a credential, and Execute only with --allow-execute. Real daemons on 127.0.0.1, certificates made
with the openssl CLI at test time; the Python client and msjitctl take credentials from the
environment."""
import os
import shutil
import socket
import subprocess
import sys

import grpc
import numpy as np
import pytest

from hostile import bystander
from mindir_models import F32, mul_add, request
from msjit.proto import mindir_pb2, msjit_pb2
from msjit.rpc import NO_CREDENTIALS, Credentials, make_private_dir
from support import ROOT, msjitd_binary

TOKEN = "t0ken-for-tests"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback():
    return f"127.0.0.1:{free_port()}"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca(name, cwd):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=msjit test {name}",
            cwd=cwd)


def make_cert(name, ca, extensions, cwd):
    """A key and a certificate for `name` signed by `ca`, with the given X.509v3 extensions."""
    with open(os.path.join(cwd, f"{name}.ext"), "w") as f:
        f.write(extensions)
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN=msjit test {name}", cwd=cwd)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=cwd)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """Paths of: ca, a server cert for 127.0.0.1/localhost and a client cert signed by it, and an
    unrelated CA with a client cert of its own."""
    if not shutil.which("openssl"):
        pytest.fail("the openssl CLI is needed (Debian package openssl)")
    d = tmp_path_factory.mktemp("pki")
    make_ca("ca", d)
    make_ca("other_ca", d)
    make_cert("server", "ca", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n", d)
    make_cert("client", "ca", "extendedKeyUsage=clientAuth\n", d)
    make_cert("other_client", "other_ca", "extendedKeyUsage=clientAuth\n", d)
    with open(d / "token", "w") as f:
        f.write(TOKEN + "\n")
    return {name: str(d / name) for name in os.listdir(d)}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def creds(pki=None, token=None, ca="ca.pem", client=None, server_name=None):
    """Client credentials: TLS against `ca` when `pki` is given, a client cert `client` (name)."""
    if pki is None:
        return Credentials(token, None, None, None, None)
    return Credentials(token, read(pki[ca]), client and read(pki[client + ".key"]),
                       client and read(pki[client + ".pem"]), server_name)


def rpc_code(call):
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def stats(stub):
    return stub.Stats(msjit_pb2.StatsRequest(), timeout=10)


def test_token_required_on_every_msjit_call(make_daemon, pki):
    d = make_daemon("--auth-token-file", pki["token"], listen=loopback(), credentials=creds(token=TOKEN)).start()
    with bystander(d):  # a client with the token is served throughout
        for token, message in ((None, "missing bearer token"), ("wrong", "wrong bearer token"),
                               (TOKEN + "x", "wrong bearer token"), (TOKEN[:-1], "wrong bearer token")):
            stub = d.stub(creds(token=token))
            code, details = rpc_code(lambda: stats(stub))
            assert code == grpc.StatusCode.UNAUTHENTICATED and details.startswith(message), details
            code, _ = rpc_code(lambda: stub.Compile(request(mul_add()), timeout=60))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            code, _ = rpc_code(lambda: next(stub.FetchArtifact(msjit_pb2.FetchArtifactRequest(key="0" * 64))))
            assert code == grpc.StatusCode.UNAUTHENTICATED
    stub = d.stub()
    reply = stub.Compile(request(mul_add()), timeout=60)
    assert len(reply.artifact_digest) == 64
    data = b"".join(c.data for c in stub.FetchArtifact(msjit_pb2.FetchArtifactRequest(key=reply.key)))
    assert len(data) == reply.artifact_size
    # The refused Compiles never reached the compiler: only the bystander's graph and ours did.
    assert stats(stub).compiles == 2
    assert stats(stub).auth_failures == 12


def test_tls_refuses_plaintext_and_verifies_the_server(make_daemon, pki):
    d = make_daemon("--tls-cert", pki["server.pem"], "--tls-key", pki["server.key"], listen=loopback(),
                    credentials=creds(pki)).start()
    with bystander(d):
        assert rpc_code(lambda: stats(d.stub(NO_CREDENTIALS)))[0] == grpc.StatusCode.UNAVAILABLE
        # A client trusting another CA does not accept the daemon's certificate.
        assert rpc_code(lambda: stats(d.stub(creds(pki, ca="other_ca.pem"))))[0] == grpc.StatusCode.UNAVAILABLE
    assert d.stub().Compile(request(mul_add()), timeout=60).artifact_size > 0
    assert stats(d.stub(creds(pki, server_name="localhost"))).compiles == 2  # the bystander's and ours


def test_mutual_tls_needs_a_client_certificate_from_the_client_ca(make_daemon, pki):
    d = make_daemon("--tls-cert", pki["server.pem"], "--tls-key", pki["server.key"],
                    "--tls-client-ca", pki["ca.pem"], listen=loopback(), credentials=creds(pki, client="client"))
    d.start()
    with bystander(d):
        for refused in (creds(pki), creds(pki, client="other_client"), NO_CREDENTIALS):
            assert rpc_code(lambda: stats(d.stub(refused)))[0] == grpc.StatusCode.UNAVAILABLE
    assert d.stub().Compile(request(mul_add()), timeout=60).artifact_size > 0
    assert stats(d.stub()).compiles == 2  # the bystander's and ours


def run_daemon_expecting_exit(tmp_path, *args):
    log = tmp_path / "refused.log"
    proc = subprocess.run([msjitd_binary(), "--cache-dir", str(tmp_path / "cache"), "--log-file", str(log), *args],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=15)
    return proc.returncode, proc.stderr + (log.read_text() if log.exists() else "")


def test_an_exposed_address_without_a_credential_is_refused_unless_insecure(make_daemon, tmp_path, pki):
    port = free_port()
    code, output = run_daemon_expecting_exit(tmp_path, "--listen", f"0.0.0.0:{port}")
    assert code != 0
    assert "--insecure" in output and f"0.0.0.0:{port}" in output
    code, output = run_daemon_expecting_exit(tmp_path, "--listen", loopback(), "--auth-token-file",
                                             str(tmp_path / "missing-token"))
    assert code != 0 and "missing-token" in output
    # Started with --insecure, it serves (reached over loopback) and is stopped at once.
    d = make_daemon("--insecure", listen=f"0.0.0.0:{port}")
    d.address = f"127.0.0.1:{port}"
    d.start()
    assert stats(d.stub()).compiles == 0
    d.stop()


def mul_add_inputs():
    a, b, c = (np.full((2, 3), v, np.float32) for v in (1.5, 2.0, 0.25))
    return [mindir_pb2.TensorProto(dtype=F32, dims=[2, 3], raw_data=x.tobytes()) for x in (a, b, c)]


@pytest.mark.parametrize("allow", [False, True])
def test_execute_over_tcp_only_with_allow_execute(make_daemon, pki, allow):
    d = make_daemon("--auth-token-file", pki["token"], *(["--allow-execute"] if allow else []),
                    listen=loopback(), credentials=creds(token=TOKEN)).start()
    stub = d.stub()
    key = stub.Compile(request(mul_add()), timeout=60).key
    execute = lambda: stub.Execute(msjit_pb2.ExecuteRequest(key=key, inputs=mul_add_inputs()), timeout=60)
    if not allow:
        with bystander(d):
            code, details = rpc_code(execute)
        assert code == grpc.StatusCode.PERMISSION_DENIED, details
        assert "--allow-execute" in details
        return
    out = execute().outputs[0]
    np.testing.assert_allclose(np.frombuffer(out.raw_data, np.float32), np.full(6, 3.25, np.float32))


CLIENT = r"""
import numpy as np
import msjit
from msjit import Tensor

def f(x, y):
    return x * y + 1.0

out = msjit.jit(f, fullgraph=True)(Tensor(np.full((2, 3), 2.0, np.float32)), Tensor(np.ones((2, 3), np.float32)))
print(out.asnumpy().ravel().tolist())
print(msjit.rpc.client().stats().compiles)
"""


def run_python_client(tmp_path, env):
    script = tmp_path / "client.py"  # a file: ast capture reads the function's source
    script.write_text(CLIENT)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "client_py"), MSJIT_HOME=str(tmp_path / "home"), **env)
    for variable in ("MSJITD_TOKEN_FILE", "MSJITD_TLS_CA", "MSJITD_TLS_CERT", "MSJITD_TLS_KEY"):
        if not env.get(variable):
            env.pop(variable, None)
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)


def test_python_client_takes_token_and_tls_from_the_environment(make_daemon, tmp_path, pki):
    d = make_daemon("--auth-token-file", pki["token"], "--tls-cert", pki["server.pem"], "--tls-key", pki["server.key"],
                    "--tls-client-ca", pki["ca.pem"], listen=loopback(),
                    credentials=creds(pki, token=TOKEN, client="client")).start()
    env = {"MSJITD_ADDRESS": d.address, "MSJITD_TOKEN_FILE": pki["token"], "MSJITD_TLS_CA": pki["ca.pem"],
           "MSJITD_TLS_CERT": pki["client.pem"], "MSJITD_TLS_KEY": pki["client.key"]}
    proc = run_python_client(tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == [str([3.0] * 6), "1"]

    with open(tmp_path / "wrong-token", "w") as f:
        f.write("not-the-token\n")
    proc = run_python_client(tmp_path, dict(env, MSJITD_TOKEN_FILE=str(tmp_path / "wrong-token")))
    assert proc.returncode != 0
    assert "DaemonError" in proc.stderr and "refused the credentials" in proc.stderr, proc.stderr
    assert "UNAUTHENTICATED" in proc.stderr and "wrong bearer token" in proc.stderr

    proc = run_python_client(tmp_path, dict(env, MSJITD_TLS_CA=str(tmp_path / "no-such-ca.pem")))
    assert proc.returncode != 0
    assert f"MSJITD_TLS_CA={tmp_path / 'no-such-ca.pem'}" in proc.stderr, proc.stderr


def msjitctl(env):
    binary = os.path.join(ROOT, "bazel-bin/client_cpp/msjitctl")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MSJITD_")} | env
    return subprocess.run([binary, "stats"], env=env, capture_output=True, text=True, timeout=30)


def test_msjitctl_takes_credentials_from_the_environment(make_daemon, pki):
    d = make_daemon("--auth-token-file", pki["token"], "--tls-cert", pki["server.pem"], "--tls-key", pki["server.key"],
                    "--tls-client-ca", pki["ca.pem"], listen=loopback(),
                    credentials=creds(pki, token=TOKEN, client="client")).start()
    tls = {"MSJITD_ADDRESS": d.address, "MSJITD_TLS_CA": pki["ca.pem"], "MSJITD_TLS_CERT": pki["client.pem"],
           "MSJITD_TLS_KEY": pki["client.key"]}
    proc = msjitctl(dict(tls, MSJITD_TOKEN_FILE=pki["token"]))
    assert proc.returncode == 0, proc.stderr
    assert "0 compile requests" in proc.stdout
    proc = msjitctl(tls)
    assert proc.returncode != 0
    assert "refused the credentials (UNAUTHENTICATED): missing bearer token" in proc.stderr
    proc = msjitctl({"MSJITD_ADDRESS": d.address, "MSJITD_TOKEN_FILE": pki["token"]})  # no TLS
    assert proc.returncode != 0 and "failed" in proc.stderr
    proc = msjitctl(dict(tls, MSJITD_TLS_KEY="/nonexistent/client.key"))
    assert proc.returncode == 2 and "MSJITD_TLS_KEY=/nonexistent/client.key" in proc.stderr


def test_client_directories_are_private(tmp_path):
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    os.chmod(loose, 0o755)  # whatever the umask
    make_private_dir(str(loose))
    make_private_dir(str(tmp_path / "new" / "home"))
    for path in (loose, tmp_path / "new" / "home"):
        assert oct(os.stat(path).st_mode & 0o777) == oct(0o700), path

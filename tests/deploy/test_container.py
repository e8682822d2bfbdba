"""deploy/Containerfile (no container engine here: its structure) and deploy/runtime-packages.sh
(for real, on the built binaries: ldd, dpkg -S, and where the loader of a slim image would find
each library among the listed packages' files)."""
import json
import os
import re
import shlex
import shutil
import subprocess

import pytest

from deploy_support import DEPLOY, ROOT, built, find, manifests, pod_spec, run

CONTAINERFILE = os.path.join(DEPLOY, "Containerfile")
SCRIPT = os.path.join(DEPLOY, "runtime-packages.sh")
BINARIES = ("server/msjitd", "server/msjit-worker", "client_cpp/msjitctl")
# Where ld.so looks besides RUNPATH on Debian 12 amd64 (ld.so.conf.d and the built-in paths).
LOADER_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/lib", "/usr/lib", "/usr/local/lib")


def stages():
    """[(FROM line, [(INSTRUCTION, arguments)])] of the Containerfile, continuation lines joined."""
    with open(CONTAINERFILE) as f:
        text = re.sub(r"\\\n", " ", f.read())
    out = []
    for line in text.splitlines():
        line = " ".join(line.split())
        if not line or line.startswith("#"):
            continue
        instruction, _, args = line.partition(" ")
        if instruction.upper() == "FROM":
            out.append((args, []))
        else:
            out[-1][1].append((instruction.upper(), args.strip()))
    return out


def instructions(stage, name):
    return [args for instruction, args in stage[1] if instruction == name]


def exec_form(args):
    return json.loads(args)


def test_build_stage_uses_the_project_make_targets():
    (base, build), runtime = stages()[0], stages()[-1]
    assert base.startswith("debian:12 ") and base.endswith(" AS build")
    runs = " ".join(instructions((base, build), "RUN"))
    make = re.search(r"make ((?:[a-z]+ )+)PREFIX=(\S+)", runs)
    assert make and make.group(1).split() == ["deps", "build", "install"], runs
    assert "runtime-packages.sh --check" in runs
    # The targets exist and make accepts the line (dry run: nothing is executed).
    dry = run(["make", "-n", "-C", ROOT, "deps", "build", "install", f"PREFIX={make.group(2)}"], timeout=60)
    assert dry.returncode == 0, dry.stderr


def test_runtime_stage_is_slim_non_root_with_tini_and_a_healthcheck():
    base, runtime = stages()[-1]
    assert base.startswith("debian:12-slim ")
    runs = " ".join(a for i, a in runtime if i == "RUN")
    assert "--no-install-recommends $(/usr/local/share/msjit/runtime-packages.sh)" in runs
    assert "grep 'not found'" in runs  # the image build fails on an unresolved library
    assert "cc -shared -o /tmp/probe.so /tmp/probe.o -lm" in runs  # and if artifacts cannot be linked
    copied = [a for a in instructions((base, runtime), "COPY") if a.startswith("--from=build")]
    assert len(copied) == 1 and copied[0].split()[-1] == "/usr/local/bin/"
    assert {os.path.basename(p) for p in copied[0].split()[1:-1]} == {"msjitd", "msjit-worker", "msjitctl"}
    user = instructions((base, runtime), "USER")[-1]
    uid, gid = (int(x) for x in user.split(":"))
    assert uid > 0 and gid > 0
    entrypoint = exec_form(instructions((base, runtime), "ENTRYPOINT")[-1])
    assert entrypoint == ["/usr/bin/tini", "--", "/usr/local/bin/msjitd"]
    health = instructions((base, runtime), "HEALTHCHECK")[-1]
    assert exec_form(health[health.index("CMD ") + 4:]) == ["/usr/local/bin/msjitctl", "health"]
    # The Deployment runs this image as is: the same user, only args (CMD) replaced, same ports.
    deployment = find(manifests(), "Deployment", "msjitd")
    spec = pod_spec(deployment)
    assert spec["securityContext"]["runAsUser"] == uid and spec["securityContext"]["runAsGroup"] == gid
    container = spec["containers"][0]
    assert "command" not in container
    exposed = {int(p) for p in instructions((base, runtime), "EXPOSE")[-1].split()}
    assert {p["containerPort"] for p in container["ports"]} == exposed
    cmd = exec_form(instructions((base, runtime), "CMD")[-1])
    assert "--auth-token-file" in cmd, "the default command must not serve TCP without a credential"


def test_build_context_leaves_out_local_build_output():
    with open(CONTAINERFILE + ".dockerignore") as f:
        ignored = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    assert {".git", "bazel-*"} <= ignored
    for _, body in stages():
        for args in (a for i, a in body if i == "COPY" and not a.startswith("--from")):
            for src in shlex.split(args)[:-1]:
                assert os.path.exists(os.path.join(ROOT, src)), src


@pytest.fixture(scope="module")
def binaries(tmp_path_factory):
    """Copies of the built binaries: a rebuild replacing bazel-bin's files meanwhile (other work in
    the same checkout) cannot pull them from under ldd."""
    out = tmp_path_factory.mktemp("bin")
    copies = []
    for b in BINARIES:
        copies.append(str(out / os.path.basename(b)))
        shutil.copy2(built(b), copies[-1])
    return copies


def listed():
    out = run([SCRIPT], timeout=30).stdout.split()
    assert out and len(out) == len(set(out))
    return out


def test_runtime_packages_cover_every_library_of_the_binaries(binaries):
    check = run([SCRIPT, "--check", *binaries], timeout=120)
    assert check.returncode == 0, check.stderr
    # It can fail: a list missing one library the binaries load is refused, naming it.
    with open(SCRIPT) as f:
        text = f.read()
    assert " libre2-9 " in text
    trimmed = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"runtime-packages-{os.getpid()}.sh")
    try:
        with open(trimmed, "w") as f:
            f.write(text.replace(" libre2-9 ", " "))
        os.chmod(trimmed, 0o700)
        refused = run([trimmed, "--check", *binaries], timeout=120)
    finally:
        os.unlink(trimmed)
    assert refused.returncode == 1 and "libre2-9" in refused.stderr, refused.stderr


def owned_files(packages):
    out = subprocess.run(["dpkg", "-L", *packages], capture_output=True, text=True, timeout=60)
    return {usr(p) for p in out.stdout.splitlines()}


def usr(path):
    """Debian 12 is usrmerged: /lib/x is /usr/lib/x, and dpkg knows either."""
    return path if path.startswith("/usr/") else "/usr" + path


def test_a_slim_image_with_the_listed_packages_resolves_every_library(binaries):
    # The real check is the image build's ldd; here: for each library ldd shows, the name the
    # binary asks for is a file of a listed package in a directory the loader searches (a -dev
    # package's symlink, like llvm-16-dev's /usr/lib/llvm-16/lib/libLLVM-16.so.1, does not count).
    packages = [p for p in listed() if subprocess.run(["dpkg-query", "-W", p], capture_output=True).returncode == 0]
    files = owned_files(packages)
    for binary in binaries:
        runpath = re.search(r"R(?:UN)?PATH\)\s+Library r(?:un)?path: \[([^\]]*)\]",
                            run(["readelf", "-d", binary], timeout=30).stdout)
        dirs = (runpath.group(1).split(":") if runpath else []) + list(LOADER_DIRS)
        for line in run(["ldd", binary], timeout=30).stdout.splitlines():
            name = line.split()[0]
            if name.startswith("linux-vdso"):
                continue
            soname = os.path.basename(name)
            assert any(usr(os.path.join(d, soname)) in files for d in dirs), (binary, soname)


def test_artifact_linking_tools_are_listed():
    # A compile worker runs `cc -shared -o x.so x.o -lm`: the driver, the linker and libm.so.
    packages = listed()
    assert {"gcc", "libc6-dev", "tini"} <= set(packages)
    files = owned_files(["gcc", "libc6-dev"])
    assert "/usr/bin/gcc" in files and "/usr/lib/x86_64-linux-gnu/libm.so" in files
    with open(os.path.join(ROOT, "passes", "Codegen.cpp")) as f:
        assert '{"cc", "-shared", "-o", soPath, objPath, "-lm"}' in f.read(), "update TOOLS in runtime-packages.sh"


@pytest.mark.parametrize("argv", [["--bogus"], ["--check", CONTAINERFILE], ["--derive", "/nonexistent"]])
def test_runtime_packages_refuses_bad_input(argv):
    assert run([SCRIPT, *argv], timeout=30).returncode == 2


def test_apt_can_install_the_list():
    # What the runtime stage runs, simulated against this Debian 12's package index.
    lists = "/var/lib/apt/lists"
    if not any("_Packages" in name for name in os.listdir(lists)):
        pytest.skip(f"no apt package index in {lists} (apt-get update)")
    result = run(["apt-get", "-s", "-o", "Debug::NoLocking=1", "install", "--no-install-recommends", *listed()],
                 timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr

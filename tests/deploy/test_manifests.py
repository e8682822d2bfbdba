"""deploy/k8s: a strict schema check (kubernetes-validate, a test-time tool installed into a private
dir, never a project dependency) and the cross-references a schema cannot see: Secrets,
ConfigMaps and claims that exist, ports and selectors that meet, probes, msjitd flags that
exist, non-root pods, certificates whose names the clients use."""
import copy
import os
import re
import subprocess

import pytest
import yaml

from deploy_support import (DEPLOY, built, find, generate_secrets, lay_out_volumes, load_docs, manifest_files,
                            memory_bytes, pod_spec, redis_conf, remap, run)

VALIDATOR = "kubernetes-validate==1.37.0"
TOOLS = os.path.expanduser("~/.cache/msjit-test-tools/kubernetes-validate-1.37.0")
# The oldest Kubernetes the manifests are meant for, and the newest the validator knows.
K8S_VERSIONS = ("1.27.0", "1.37.0")
WORKLOADS = ("Deployment", "StatefulSet")


@pytest.fixture(scope="module")
def validator():
    """PYTHONPATH for kubernetes-validate, pip-installed once (Debian's python, --target a cache
    dir, moved into place whole so an interrupted install is never used)."""
    if not os.path.isdir(os.path.join(TOOLS, "kubernetes_validate")):
        staging = TOOLS + f".partial-{os.getpid()}"
        try:
            # Bounded: an unreachable index fails in well under a minute instead of retrying for long.
            result = subprocess.run(["/usr/bin/python3", "-m", "pip", "install", "--quiet", "--timeout", "15",
                                     "--retries", "1", "--disable-pip-version-check", "--no-warn-script-location",
                                     "--target", staging, VALIDATOR],
                                    capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            subprocess.run(["rm", "-rf", staging])
            pytest.skip(f"pip install {VALIDATOR} took over 120 s (PyPI unreachable?)")
        if result.returncode != 0:
            subprocess.run(["rm", "-rf", staging])
            pytest.skip(f"cannot pip install {VALIDATOR} (PyPI unreachable?): {result.stderr.strip()[-300:]}")
        os.rename(staging, TOOLS)
    return TOOLS


def validate(pythonpath, paths, version):
    return subprocess.run(["/usr/bin/python3", "-m", "kubernetes_validate", "--strict", "-k", version, *paths],
                          env=dict(os.environ, PYTHONPATH=pythonpath), capture_output=True, text=True, timeout=120)


def test_schema_strict(validator, tmp_path):
    generated = tmp_path / "secrets.yaml"
    generated.write_bytes(subprocess.run([os.path.join(DEPLOY, "make-secrets.sh"), "--client-namespace", "training"],
                                         capture_output=True, check=True, timeout=60).stdout)
    paths = [*manifest_files(), os.path.join(DEPLOY, "secrets.example.yaml"), str(generated)]
    count = sum(len(load_docs(p)) for p in paths)
    for version in K8S_VERSIONS:
        result = validate(validator, paths, version)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.count(" passed for resource ") == count, result.stdout


def test_schema_check_catches_a_wrong_field(validator, docs, tmp_path):
    # The check can fail: the Deployment with a misspelt field does not validate.
    broken = copy.deepcopy(find(docs, "Deployment", "msjitd"))
    broken["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {"exec": {"command": ["true"]}}
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(broken))
    result = validate(validator, [str(path)], K8S_VERSIONS[-1])
    assert result.returncode != 0 and "readinesProbe" in result.stdout + result.stderr


def workloads(docs):
    return [d for d in docs if d["kind"] in WORKLOADS]


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def test_one_namespace_defined_first(docs):
    assert docs[0]["kind"] == "Namespace"
    namespace = docs[0]["metadata"]["name"]
    assert all(d["metadata"].get("namespace") == namespace for d in docs[1:])


def test_selectors_match_pod_labels(docs):
    for w in workloads(docs):
        assert selects(w["spec"]["selector"]["matchLabels"], w["spec"]["template"]["metadata"]["labels"]), w["kind"]
    pods = [w["spec"]["template"]["metadata"]["labels"] for w in workloads(docs)]
    for d in docs:
        selector = {"Service": lambda s: s["spec"]["selector"],
                    "PodDisruptionBudget": lambda s: s["spec"]["selector"]["matchLabels"],
                    "NetworkPolicy": lambda s: s["spec"]["podSelector"].get("matchLabels")}.get(d["kind"])
        if selector and selector(d) is not None:  # an empty podSelector means every pod
            assert any(selects(selector(d), labels) for labels in pods), f"{d['kind']} {d['metadata']['name']}"
    statefulset = find(docs, "StatefulSet", "redis")
    assert find(docs, "Service", statefulset["spec"]["serviceName"])["spec"]["clusterIP"] == "None"


def container_ports(docs, selector):
    return {(p.get("name"), p["containerPort"]) for w in workloads(docs)
            if selects(selector, w["spec"]["template"]["metadata"]["labels"])
            for c in pod_spec(w)["containers"] for p in c.get("ports", [])}


def test_service_and_policy_ports_exist_on_the_pods(docs):
    for service in (d for d in docs if d["kind"] == "Service"):
        ports = container_ports(docs, service["spec"]["selector"])
        for p in service["spec"]["ports"]:
            target = p.get("targetPort", p["port"])
            assert any(target in (name, number) for name, number in ports), (service["metadata"]["name"], target)
    for policy in (d for d in docs if d["kind"] == "NetworkPolicy" and d["spec"]["podSelector"]):
        ports = {number for _, number in container_ports(docs, policy["spec"]["podSelector"]["matchLabels"])}
        for rule in policy["spec"].get("ingress", []):
            assert {p["port"] for p in rule["ports"]} <= ports, policy["metadata"]["name"]


def test_volumes_reference_what_exists(docs, secrets):
    example = {d["metadata"]["name"]: d for d in load_docs(os.path.join(DEPLOY, "secrets.example.yaml"))}
    for w in workloads(docs):
        spec = pod_spec(w)
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        claims = {t["metadata"]["name"] for t in w["spec"].get("volumeClaimTemplates", [])}
        for c in spec["containers"]:
            for m in c["volumeMounts"]:
                assert m["name"] in volumes or m["name"] in claims, (c["name"], m["name"])
        for v in volumes.values():
            if "configMap" in v:
                keys = set(find(docs, "ConfigMap", v["configMap"]["name"])["data"])
            elif "secret" in v:
                name = v["secret"]["secretName"]
                assert name in secrets and name in example, f"volume {v['name']}: no Secret {name}"
                keys = set(secrets[name])
                assert set(example[name]["stringData"]) == keys, f"secrets.example.yaml vs make-secrets.sh: {name}"
            else:
                continue
            assert {i["key"] for i in v.get("secret", v.get("configMap", {})).get("items", [])} <= keys, v["name"]


def test_example_secrets_hold_placeholders_only():
    with open(os.path.join(DEPLOY, "secrets.example.yaml")) as f:
        text = f.read()
    assert "-----BEGIN" not in text and not re.search(r"\b[0-9a-f]{32,}\b", text)


def test_pods_run_non_root_with_probes_and_limits(docs):
    for w in workloads(docs):
        spec = pod_spec(w)
        assert spec["securityContext"]["runAsNonRoot"] is True and spec["securityContext"]["runAsUser"] > 0
        assert spec["automountServiceAccountToken"] is False
        for c in spec["containers"]:
            sc = c["securityContext"]
            assert sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"] is True
            assert sc["capabilities"]["drop"] == ["ALL"]
            assert c.get("readinessProbe") and c.get("livenessProbe"), c["name"]
            assert c["resources"]["limits"]["memory"] and c["resources"]["requests"]["cpu"]


def msjitd_container(docs):
    return pod_spec(find(docs, "Deployment", "msjitd"))["containers"][0]


def flags(args):
    """{--flag: value} of an argument list in --flag=value or --flag value form."""
    out, i = {}, 0
    while i < len(args):
        flag, eq, value = args[i].partition("=")
        if not eq and i + 1 < len(args) and not args[i + 1].startswith("--"):
            value, i = args[i + 1], i + 1
        out[flag] = value
        i += 1
    return out


def msjitd_flags():
    """The flags `msjitd --help` lists."""
    text = run([built("server/msjitd"), "--help"], timeout=10)
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", text.stdout + text.stderr))


def test_deployment_flags_exist_and_name_mounted_files(docs, secrets, tmp_path):
    c = msjitd_container(docs)
    args = flags(c["args"])
    assert set(args) <= msjitd_flags(), set(args) - msjitd_flags()
    assert {"--shared-cache", "--shared-cache-signing-key-file", "--auth-token-file", "--tls-cert",
            "--metrics-listen"} <= set(args) and "--insecure" not in args
    # Every path a flag names is in a volume: a key of its Secret, or the volume itself.
    laid_out = lay_out_volumes(docs, pod_spec(find(docs, "Deployment", "msjitd")), c, secrets, tmp_path)
    for flag, value in args.items():
        if value.startswith("/"):
            assert os.path.exists(remap(value, laid_out)), (flag, value)
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    # Writable places on a read-only root: the cache and the compile workers' $TMPDIR.
    volumes = {v["name"]: v for v in pod_spec(find(docs, "Deployment", "msjitd"))["volumes"]}
    for path in (args["--cache-dir"], "/tmp"):
        assert "emptyDir" in volumes[mounts[path]["name"]] and not mounts[path].get("readOnly"), path
    size = volumes[mounts[args["--cache-dir"]]["name"]]["emptyDir"]["sizeLimit"]
    assert int(args["--cache-disk-mb"]) < int(size.rstrip("Gi")) * 1024, "the disk tier must evict before the kubelet"


def test_metrics_and_grpc_ports_agree(docs):
    deployment = find(docs, "Deployment", "msjitd")
    c = msjitd_container(docs)
    args = flags(c["args"])
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert int(args["--listen"].rsplit(":", 1)[1]) == ports["grpc"]
    assert int(args["--metrics-listen"].rsplit(":", 1)[1]) == ports["metrics"]
    assert int(deployment["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"]) == ports["metrics"]


def test_redis_memory_and_shared_cache_address(docs):
    conf = redis_conf(docs)
    assert conf["maxmemory-policy"] == "allkeys-lru"
    redis = pod_spec(find(docs, "StatefulSet", "redis"))["containers"][0]
    # Room for a snapshot's copy-on-write pages and buffers above maxmemory.
    assert memory_bytes(conf["maxmemory"]) <= 0.8 * memory_bytes(redis["resources"]["limits"]["memory"])
    url = re.fullmatch(r"rediss://([^:/]+):(\d+)/\d+", flags(msjitd_container(docs)["args"])["--shared-cache"])
    assert url, "the shared tier must use TLS (rediss://)"
    host, port = url.groups()
    service = find(docs, "Service", host.split(".")[0])
    assert host.split(".")[1] == service["metadata"]["namespace"]
    assert int(port) == service["spec"]["ports"][0]["port"] == int(conf["tls-port"]) and conf["port"] == "0"


def san_names(pem, tmp_path):
    path = tmp_path / "cert.pem"
    path.write_bytes(pem)
    text = run(["openssl", "x509", "-in", str(path), "-noout", "-ext", "subjectAltName"], timeout=10).stdout
    return set(re.findall(r"(?:DNS|IP Address):([^,\s]+)", text))


def test_certificates_name_what_clients_dial(docs, secrets, tmp_path):
    c = msjitd_container(docs)
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env["MSJITD_TLS_SERVER_NAME"] in san_names(secrets["msjit-tls"]["tls.crt"], tmp_path)
    assert "msjitd.msjit.svc.cluster.local" in san_names(secrets["msjit-tls"]["tls.crt"], tmp_path)
    redis_host = re.match(r"rediss://([^:/]+)", flags(c["args"])["--shared-cache"]).group(1)
    assert redis_host in san_names(secrets["redis-tls"]["tls.crt"], tmp_path)
    for name in ("msjit-tls", "redis-tls"):
        (tmp_path / "ca.crt").write_bytes(secrets[name]["ca.crt"])
        (tmp_path / "leaf.crt").write_bytes(secrets[name]["tls.crt"])
        verify = run(["openssl", "verify", "-CAfile", str(tmp_path / "ca.crt"), str(tmp_path / "leaf.crt")])
        assert verify.returncode == 0, verify.stdout + verify.stderr


def test_make_secrets_makes_fresh_credentials(secrets, tmp_path):
    again = generate_secrets(tmp_path)
    for name, key in (("msjitd-token", "token"), ("redis-auth", "password"), ("msjitd-signing-key", "signing.key"),
                      ("msjit-tls", "tls.key")):
        assert secrets[name][key] != again[name][key] and len(secrets[name][key].strip()) >= 64, (name, key)
    password = secrets["redis-auth"]["password"].decode().strip()
    assert secrets["redis-auth"]["redis-auth.conf"].decode() == f"requirepass {password}\n"

"""The deployment artefacts, checked offline (part of ``make unit``; no container, no network):
the Kubernetes manifests against the Kubernetes schemas in strict mode and against checkov, the
Dockerfile against hadolint and checkov, and the promises those tools cannot see (probes,
resources, security context, the tunables, one version everywhere, who the NetworkPolicies admit,
what the optional Ingress exposes). Where ``kubectl`` (or ``kustomize``) is installed, the overlay
that docs/deploy.md shows is also built, offline, and checked."""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
K8S = REPO / "k8s"
INGRESS_COMPONENT = K8S / "components" / "ingress-nginx"
DOCKERFILE = REPO / "Dockerfile"
DEPLOY_DOC = REPO / "docs" / "deploy.md"
# The oldest Kubernetes the manifests support (the preStop `sleep` action is on by default since
# 1.30), and the newest whose schemas kubernetes-validate ships.
KUBERNETES_VERSIONS = ("1.30", None)
TUNABLES = (
    "WEB_CONCURRENCY",
    "GUNICORN_TIMEOUT",
    "GUNICORN_GRACEFUL_TIMEOUT",
    "GUNICORN_DRAIN_SECONDS",
    "MAX_BODY_BYTES",
    "MAX_BATCH_HANDS",
    "MAX_ACTIONS",
)
APP = {"app.kubernetes.io/name": "quart-bezique", "app.kubernetes.io/component": "api"}
NAMESPACE_NAME = "kubernetes.io/metadata.name"  # set by the API server on every namespace
# Who may reach the pods, by default: NetworkPolicy name -> the namespace it admits.
CALLERS = {
    "quart-bezique-from-ingress": "ingress-nginx",
    "quart-bezique-from-platform": "platform",
    "quart-bezique-from-monitoring": "monitoring",
}
# Namespaces that must never reach the pods (none of them is a caller above).
STRANGERS = ("default", "kube-system", "kube-public", "quart-bezique", "team-x", "")
# ingress-nginx's default upstream-keepalive-timeout (seconds): gunicorn must keep idle connections
# longer, so that the proxy always closes them first.
NGINX_UPSTREAM_KEEPALIVE_TIMEOUT = 60


def tool(name: str) -> str:
    """A tool installed with the test extras, next to this Python (the project's .venv)."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    assert found, f"{name} is not installed: it comes with `pip install -e '.[test]'`"
    return found


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def kustomization() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    return data


def manifest_files() -> list[Path]:
    return [K8S / name for name in kustomization()["resources"]]


def ingress_component() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((INGRESS_COMPONENT / "kustomization.yaml").read_text())
    return data


def component_files() -> list[Path]:
    return [INGRESS_COMPONENT / name for name in ingress_component()["resources"]]


def load(paths: list[Path]) -> list[dict[str, Any]]:
    return [doc for path in paths for doc in yaml.safe_load_all(path.read_text()) if doc]


def documents() -> Iterator[dict[str, Any]]:
    yield from load(manifest_files())


def resource(kind: str, docs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    found = [doc for doc in (list(documents()) if docs is None else docs) if doc["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


def network_policies(docs: list[dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    found = list(documents()) if docs is None else docs
    return {d["metadata"]["name"]: d for d in found if d["kind"] == "NetworkPolicy"}


def container() -> dict[str, Any]:
    containers = resource("Deployment")["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    result: dict[str, Any] = containers[0]
    return result


def pod_memory() -> str:
    """The Deployment's memory limit as docker's ``--memory`` writes it (``320Mi``: ``320m``):
    every container the tests start is limited like a pod, from the one place that sets it."""
    limit = str(container()["resources"]["limits"]["memory"])
    return limit[:-2] + {"Ki": "k", "Mi": "m", "Gi": "g"}[limit[-2:]]


def project_version() -> str:
    version: str = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    return version


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n(\s*#[^\n]*\n)*", " ", DOCKERFILE.read_text())
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            pairs.append((keyword.upper(), rest.strip()))
    return pairs


# ------------------------------------------------------------------------------ the tools' verdicts


def test_kustomization_lists_every_manifest_and_only_those() -> None:
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization()["resources"]) == on_disk
    component = ingress_component()
    assert component["kind"] == "Component"
    on_disk = {p.name for p in INGRESS_COMPONENT.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(component["resources"]) == on_disk


def kubernetes_validate(version: str | None, *paths: Path) -> None:
    command = [tool("kubernetes-validate"), "--strict", "--quiet"]
    if version:
        command += ["--kubernetes-version", version]
    done = run(*command, *map(str, paths))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow  # a kubernetes-validate run per version: make test, not make check
@pytest.mark.parametrize("version", KUBERNETES_VERSIONS, ids=lambda v: v or "latest")
def test_manifests_match_the_kubernetes_schemas_strictly(version: str | None) -> None:
    kubernetes_validate(version, *manifest_files(), *component_files())


def checkov(*target: str) -> dict[str, Any]:
    done = run(tool("checkov"), *target, "--skip-download", "--output", "json", "--compact")
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def assert_checkov_clean(report: dict[str, Any], minimum_passed: int) -> None:
    summary = report["summary"]
    failed = [
        f"{c['check_id']} {c['check_name']} ({c['resource']})"
        for c in report["results"]["failed_checks"]
    ]
    assert not failed, "checkov failed: " + "; ".join(failed)
    assert summary["parsing_errors"] == 0
    assert summary["passed"] >= minimum_passed, summary  # it really looked at the files
    for skipped in report["results"]["skipped_checks"]:
        reason = (skipped["check_result"].get("suppress_comment") or "").strip()
        assert len(reason) > 20, f"checkov skip of {skipped['check_id']} has no justification"


@pytest.mark.slow  # a checkov run takes seconds: make test, not make check
def test_manifests_pass_checkov() -> None:
    report = checkov("--directory", str(K8S), "--framework", "kubernetes")
    assert_checkov_clean(report, minimum_passed=80)


@pytest.mark.slow  # a checkov run takes seconds: make test, not make check
def test_dockerfile_passes_checkov() -> None:
    report = checkov("--file", str(DOCKERFILE), "--framework", "dockerfile")
    assert_checkov_clean(report, minimum_passed=50)


def test_dockerfile_passes_hadolint() -> None:
    done = run(tool("hadolint"), "--no-color", "--failure-threshold", "style", str(DOCKERFILE))
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------------------ the Dockerfile


def test_dockerfile_is_multi_stage_on_a_configurable_python_base() -> None:
    steps = dockerfile_instructions()
    froms = [i for i, (keyword, _) in enumerate(steps) if keyword == "FROM"]
    assert len(froms) >= 2
    assert all(steps[i][1].startswith("${BASE_IMAGE} AS ") for i in froms)
    (base,) = [a for k, a in steps[: froms[0]] if k == "ARG" and a.startswith("BASE_IMAGE=")]
    assert re.fullmatch(r"BASE_IMAGE=python:3\.(1[1-9])-slim(-\w+)?", base), base
    runtime_copies = [a for k, a in steps[froms[-1] :] if k == "COPY"]
    assert runtime_copies, "the runtime stage copies the built environment"
    assert all(a.startswith("--from=") or a.startswith("gunicorn.conf.py ") for a in runtime_copies)
    assert not [k for k, _ in steps[froms[-1] :] if k in ("RUN", "ADD")], "runtime stage builds"


def test_dockerfile_runs_gunicorn_as_non_root_with_health_check() -> None:
    last = dict(dockerfile_instructions())  # the runtime stage's value of each instruction
    user = last["USER"].split(":")[0]
    assert user.isdigit() and int(user) >= 10000, "numeric, high, non-root UID"
    cmd = json.loads(last["CMD"])  # exec form
    assert cmd[0] == "gunicorn" and "quart_bezique.wsgi:app" in cmd
    assert cmd[cmd.index("--config") + 1] == "/app/gunicorn.conf.py"
    assert "/healthz" in last["HEALTHCHECK"]
    assert last["EXPOSE"] == "8000"
    assert last["STOPSIGNAL"] == "SIGTERM"
    assert re.search(r"\bPORT=8000\b", last["ENV"])


def test_one_version_everywhere() -> None:
    version = project_version()
    args = [a for k, a in dockerfile_instructions() if k == "ARG" and a.startswith("VERSION=")]
    assert args == [f"VERSION={version}"], "the Dockerfile's VERSION default is pyproject's version"
    images = kustomization()["images"]
    assert images == [{"name": "quart-bezique", "newTag": version}]
    assert container()["image"] == f"quart-bezique:{version}"


def test_oci_labels_are_set() -> None:
    labels = " ".join(a for k, a in dockerfile_instructions() if k == "LABEL")
    for key in ("version", "source", "licenses", "revision", "title"):
        assert f"org.opencontainers.image.{key}=" in labels
    licence = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"]["text"]
    assert f'org.opencontainers.image.licenses="{licence}"' in labels


def test_dockerignore_keeps_tests_venvs_and_vcs_out() -> None:
    patterns = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert patterns[0] == "*", "an allow-list: everything is out unless re-included"
    included = {p[1:].rstrip("/") for p in patterns if p.startswith("!")}
    assert not included & {"tests", ".venv", "venv", ".git", "k8s", "docs", "scripts"}
    assert {"pyproject.toml", "constraints.txt", "service", "gunicorn.conf.py"} <= included


# ------------------------------------------------------------------------------ the manifests


def test_deployment_is_highly_available_and_probed() -> None:
    deployment = resource("Deployment")
    spec = deployment["spec"]
    assert spec["replicas"] >= 2
    assert spec["selector"]["matchLabels"] == APP
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    c = container()
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["startupProbe"]["httpGet"]["path"] in ("/healthz", "/readyz")
    assert not c["image"].endswith(":latest") and ":" in c["image"]
    pod = spec["template"]["spec"]
    spread = pod["topologySpreadConstraints"]
    assert "kubernetes.io/hostname" in {s["topologyKey"] for s in spread}
    assert all(s["labelSelector"]["matchLabels"] == APP for s in spread)


def test_container_is_locked_down() -> None:
    pod = resource("Deployment")["spec"]["template"]["spec"]
    context = container()["securityContext"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    assert context["readOnlyRootFilesystem"] is True
    assert context["allowPrivilegeEscalation"] is False
    assert context["capabilities"]["drop"] == ["ALL"]
    assert "add" not in context["capabilities"]
    assert context["runAsUser"] == pod["securityContext"]["runAsUser"] >= 10000
    assert pod["automountServiceAccountToken"] is False
    mounts = {m["mountPath"] for m in container()["volumeMounts"]}
    assert "/tmp" in mounts, "the only writable place"


def test_resources_have_requests_and_limits() -> None:
    resources = container()["resources"]
    for kind in ("cpu", "memory"):
        assert kind in resources["requests"] and kind in resources["limits"]


def test_shutdown_fits_in_the_grace_period() -> None:
    """A terminating pod: the preStop pause (endpoint removal reaches every proxy), SIGTERM and
    the drain (still serving, /readyz 503, every answer closing its connection), then gunicorn's
    graceful stop. All of it must end before the kubelet's SIGKILL."""
    pod = resource("Deployment")["spec"]["template"]["spec"]
    pause = container()["lifecycle"]["preStop"]["sleep"]["seconds"]
    data = resource("ConfigMap")["data"]
    graceful = int(data["GUNICORN_GRACEFUL_TIMEOUT"])
    drain = int(data["GUNICORN_DRAIN_SECONDS"])
    assert pause >= 3, "endpoints need a few seconds to drain before SIGTERM"
    assert drain >= 1, "without the drain, kept-alive callers meet a closing connection"
    assert pod["terminationGracePeriodSeconds"] > pause + drain + graceful
    # The shutdown test (tests/container/test_container_shutdown.py) allows what follows SIGTERM.
    assert pod["terminationGracePeriodSeconds"] - pause > drain + graceful


def test_rollout_never_drops_below_the_serving_count() -> None:
    """A rolling update adds a pod, waits for its /readyz, then retires an old one: never fewer
    ready pods than asked for. The budget lets a drain evict one pod at a time only, and the
    autoscaler never goes below two, so one pod always serves while another is replaced."""
    spec = resource("Deployment")["spec"]
    assert spec["strategy"]["type"] == "RollingUpdate"
    rolling = spec["strategy"]["rollingUpdate"]
    assert rolling["maxUnavailable"] == 0
    surge = rolling["maxSurge"]
    assert surge == 1 or (isinstance(surge, str) and re.fullmatch(r"([1-9]|[1-9]\d)%", surge))
    probe = container()["readinessProbe"]
    assert probe["httpGet"] == {"path": "/readyz", "port": "http"}
    assert probe["periodSeconds"] * probe["failureThreshold"] <= 10
    budget = resource("PodDisruptionBudget")["spec"]
    assert budget.get("maxUnavailable") == 1 and "minAvailable" not in budget
    assert resource("HorizontalPodAutoscaler")["spec"]["minReplicas"] > budget["maxUnavailable"]
    assert spec["replicas"] > budget["maxUnavailable"]


def test_ports_agree() -> None:
    c = container()
    (port,) = c["ports"]
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert port["containerPort"] == int(env["PORT"]) == 8000  # the image's EXPOSE
    service = resource("Service")["spec"]
    assert service["selector"] == APP
    assert [p["targetPort"] for p in service["ports"]] == [port["name"]]


def test_configmap_carries_the_tunables() -> None:
    configmap = resource("ConfigMap")
    assert set(TUNABLES) <= set(configmap["data"])
    assert all(value.isdigit() for value in configmap["data"].values())
    (source,) = container()["envFrom"]
    assert source["configMapRef"]["name"] == configmap["metadata"]["name"]


def test_api_keys_come_from_a_required_secret_file() -> None:
    """Fail closed: without the Secret the pod does not start, and the service refuses to start
    with a configured but missing key file."""
    c = container()
    env = {e["name"]: e.get("value") for e in c["env"]}
    path = Path(env["API_KEYS_FILE"])
    volumes = {v["name"]: v for v in resource("Deployment")["spec"]["template"]["spec"]["volumes"]}
    mount = next(m for m in c["volumeMounts"] if m["mountPath"] == str(path.parent))
    secret = volumes[mount["name"]]["secret"]
    assert mount["readOnly"] is True
    assert secret["optional"] is False
    assert [item["path"] for item in secret["items"]] == [path.name]


SIGNING_ROTATION = K8S / "components" / "signing-rotation"
PRIVATE_KEY_MARKERS = re.compile(
    rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
    rb"|PuTTY-User-Key-File"
    rb"|\"d\"\s*:\s*\"[A-Za-z0-9_-]{20,}"
)
"""PEM private keys of any kind (PKCS#8, RSA, EC, OpenSSH, encrypted), PuTTY keys, and a JWK's
private member ``d``."""


def env_values(c: dict[str, Any]) -> dict[str, str | None]:
    return {e["name"]: e.get("value") for e in c["env"]}


def secret_file(c: dict[str, Any], volumes: list[dict[str, Any]], path: Path) -> dict[str, Any]:
    """The Secret volume ``path`` is a file of: mounted read-only on its directory, the file one
    of the Secret's listed items. Returns the volume's ``secret``."""
    (mount,) = [m for m in c["volumeMounts"] if m["mountPath"] == str(path.parent)]
    assert mount["readOnly"] is True, f"{mount['name']} is mounted writable"
    (volume,) = [v for v in volumes if v["name"] == mount["name"]]
    secret: dict[str, Any] = volume["secret"]
    assert path.name in [item["path"] for item in secret["items"]]
    return secret


def test_signing_key_comes_from_a_required_secret_mounted_read_only() -> None:
    """Every verdict is signed in Kubernetes: ``SIGNING_KEY_FILE`` is the one file of a required
    Secret, on a read-only mount of its own, readable by the service's group and nobody else."""
    c = container()
    pod = resource("Deployment")["spec"]["template"]["spec"]
    env = env_values(c)
    path = Path(str(env["SIGNING_KEY_FILE"]))
    assert path.is_absolute()
    secret = secret_file(c, pod["volumes"], path)
    assert secret["secretName"] == "quart-bezique-signing-key"
    assert secret["optional"] is False, "a missing Secret must stop the pod, not the receipts"
    assert secret["items"] == [{"key": path.name, "path": path.name}]
    assert secret["defaultMode"] & 0o007 == 0, "the private key is not world-readable"
    assert secret["defaultMode"] & 0o040, "the service reads it through fsGroup"
    assert pod["securityContext"]["fsGroup"] == c["securityContext"]["runAsGroup"]
    api_keys = Path(str(env["API_KEYS_FILE"]))
    assert path.parent != api_keys.parent, "one Secret per mount: neither hides the other"
    # The base sets neither of the optional variables: each must name a file that exists.
    assert "SIGNING_PUBLIC_KEYS_FILE" not in env and "SIGNING_KEY_ID" not in env


def test_signing_rotation_component_publishes_earlier_keys_from_the_same_secret(
    tmp_path: Path,
) -> None:
    """k8s/components/signing-rotation: ``SIGNING_PUBLIC_KEYS_FILE`` from the signing Secret,
    the private key still mounted beside it; the result valid against the schemas."""
    built = kustomize_with(SIGNING_ROTATION, tmp_path)
    output = tmp_path / "built.yaml"
    output.write_text(yaml.safe_dump_all(built))
    kubernetes_validate(None, output)
    deployment = resource("Deployment", built)
    (c,) = deployment["spec"]["template"]["spec"]["containers"]
    volumes = deployment["spec"]["template"]["spec"]["volumes"]
    env = env_values(c)
    key = Path(str(env["SIGNING_KEY_FILE"]))
    public = Path(str(env["SIGNING_PUBLIC_KEYS_FILE"]))
    assert public.parent == key.parent
    secret = secret_file(c, volumes, public)
    assert secret == secret_file(c, volumes, key)
    assert sorted(item["path"] for item in secret["items"]) == sorted([key.name, public.name])
    assert secret["optional"] is False
    # Nothing else of the base changed.
    base = {k: v for k, v in by_name(list(documents())).items() if k[0] != "Deployment"}
    assert {k: v for k, v in by_name(built).items() if k[0] != "Deployment"} == base


def private_key_material(data: bytes) -> list[str]:
    return [match.decode("ascii", "replace") for match in PRIVATE_KEY_MARKERS.findall(data)]


def test_no_private_key_material_is_committed_under_k8s() -> None:
    """Keys live in Secrets created by hand (docs/deploy.md), never in the manifests: no file
    under k8s/ holds a private key, and no manifest is a Secret with data."""
    files = [path for path in K8S.rglob("*") if path.is_file()]
    assert len(files) >= len(manifest_files()) + 2
    for path in files:
        assert not private_key_material(path.read_bytes()), f"{path} holds private key material"
        if path.suffix in (".yaml", ".yml"):
            for doc in yaml.safe_load_all(path.read_text()):
                assert not (doc and doc.get("kind") == "Secret"), f"{path} defines a Secret"


def test_the_private_key_check_finds_keys() -> None:
    """The check above is not vacuous: it finds a real key in each form it looks for."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        BestAvailableEncryption,
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    key = Ed25519PrivateKey.generate()
    forms = [
        key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()),
        key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"pw")),
        key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()),
        b'{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}',
    ]
    for form in forms:
        assert private_key_material(b"data:\n  key: |\n" + form), form[:40]
    public = b'{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}'
    assert not private_key_material(public)


def test_autoscaler_is_cpu_based_from_two_replicas() -> None:
    hpa = resource("HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    spec = hpa["spec"]
    assert spec["scaleTargetRef"]["name"] == resource("Deployment")["metadata"]["name"]
    assert spec["minReplicas"] == 2 and spec["minReplicas"] < spec["maxReplicas"] <= 50
    assert [m["resource"]["name"] for m in spec["metrics"]] == ["cpu"]


def test_disruption_budget_selects_the_pods() -> None:
    assert resource("PodDisruptionBudget")["spec"]["selector"]["matchLabels"] == APP


# ------------------------------------------------------------------------------ the NetworkPolicies


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A Kubernetes label selector against a set of labels; ``{}`` selects everything."""
    if any(labels.get(key) != value for key, value in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, values = expression["key"], expression.get("values") or []
        matched = {
            "In": key in labels and labels[key] in values,
            "NotIn": key not in labels or labels[key] not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[expression["operator"]]
        if not matched:
            return False
    return True


def namespace(name: str) -> dict[str, str]:
    """The labels of a namespace nobody labelled: the API server's own."""
    return {NAMESPACE_NAME: name}


def peer_admits(peer: dict[str, Any], home: str, source: dict[str, str]) -> bool:
    """Whether a rule's peer admits some pod of a namespace with the labels ``source`` (a peer's
    podSelector is assumed to match one of its pods; an address range to cover them)."""
    if "ipBlock" in peer:
        return True
    if "namespaceSelector" in peer:
        return selects(peer["namespaceSelector"], source)
    return source.get(NAMESPACE_NAME) == home  # podSelector alone: the policy's own namespace


def admitting(
    policies: dict[str, dict[str, Any]], source: dict[str, str], port: int = 8000
) -> set[str]:
    """The policies that admit a TCP connection to the service's pods on ``port`` from the
    namespace with the labels ``source``. Empty: the connection is refused."""
    named_ports = {p["name"]: p["containerPort"] for p in container()["ports"]}
    names = set()
    for name, policy in policies.items():
        spec = policy["spec"]
        if "Ingress" not in spec.get("policyTypes", ["Ingress"]):
            continue
        if not selects(spec["podSelector"], APP):
            continue
        for rule in spec.get("ingress") or []:
            ports = [
                (named_ports.get(p.get("port"), p.get("port")), p.get("protocol", "TCP"))
                for p in rule.get("ports") or []
            ]
            if ports and not any(number in (port, None) and tcp == "TCP" for number, tcp in ports):
                continue
            peers = rule.get("from") or []
            home = policy["metadata"]["namespace"]
            if not peers or any(peer_admits(peer, home, source) for peer in peers):
                names.add(name)
    return names


def assert_callers_are_named(policies: dict[str, dict[str, Any]]) -> None:
    """Every ingress rule names its callers' namespaces, and opens the service port only: no rule
    without ``from`` (every source), no peer without a namespace selector or with an empty one
    (``{}``: every namespace), no address range."""
    for name, policy in policies.items():
        for rule in policy["spec"].get("ingress") or []:
            assert rule.get("ports") == [{"port": "http", "protocol": "TCP"}], name
            assert rule.get("from"), f"{name}: a rule without `from` admits every source"
            for peer in rule["from"]:
                assert "namespaceSelector" in peer, f"{name}: {peer} names no namespace"
                assert set(peer) <= {"namespaceSelector", "podSelector"}, f"{name}: {peer}"
                selector = peer["namespaceSelector"]
                assert selector.get("matchLabels") or selector.get("matchExpressions"), (
                    f"{name}: an empty namespaceSelector admits every namespace"
                )


def test_pods_are_isolated_in_and_out() -> None:
    policies = network_policies()
    assert set(policies) == {"quart-bezique", *CALLERS}
    for name, policy in policies.items():
        assert policy["spec"]["podSelector"]["matchLabels"] == APP, name
        assert not policy["spec"].get("egress"), f"{name} admits egress: the service needs none"
    isolating = policies["quart-bezique"]["spec"]
    assert set(isolating["policyTypes"]) == {"Ingress", "Egress"}
    assert not isolating.get("ingress")
    assert isolating["egress"] == []


def test_every_rule_names_its_callers_namespaces() -> None:
    assert_callers_are_named(network_policies())


@pytest.mark.parametrize("policy", sorted(CALLERS))
def test_each_caller_is_admitted_by_its_own_policy_only(policy: str) -> None:
    assert admitting(network_policies(), namespace(CALLERS[policy])) == {policy}
    assert admitting(network_policies(), namespace(CALLERS[policy]), port=22) == set()


@pytest.mark.parametrize("stranger", STRANGERS)
def test_no_other_namespace_is_admitted(stranger: str) -> None:
    assert admitting(network_policies(), namespace(stranger)) == set()
    assert admitting(network_policies(), {}) == set()  # a namespace without even its name label


def test_the_policy_checks_catch_an_open_rule() -> None:
    """The checks above fail on the rule this replaced (ports only, no ``from``) and on a
    namespaceSelector ``{}``: both admit every namespace."""
    opened: dict[str, Any]
    for opened in ({}, {"from": [{"namespaceSelector": {}}]}):
        policies = copy.deepcopy(network_policies())
        rule = policies["quart-bezique-from-ingress"]["spec"]["ingress"][0]
        rule.pop("from")
        rule.update(opened)
        assert admitting(policies, namespace("team-x")) == {"quart-bezique-from-ingress"}
        with pytest.raises(AssertionError):
            assert_callers_are_named(policies)


def test_metrics_are_scraped_on_the_port_the_monitoring_namespace_may_reach() -> None:
    """GET /metrics is on the API's port (a NetworkPolicy cannot tell paths apart): the scrape
    annotations name that port, and the monitoring namespace is admitted to it."""
    annotations = resource("Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/path"] == "/metrics"
    port = int(annotations["prometheus.io/port"])
    assert [p["containerPort"] for p in container()["ports"]] == [port]
    monitoring = CALLERS["quart-bezique-from-monitoring"]
    assert admitting(network_policies(), namespace(monitoring), port) == {
        "quart-bezique-from-monitoring"
    }


# --------------------------------------------------------------------------- the Ingress component


PUBLIC_DOCUMENTS = (
    "/openapi.json",
    "/openapi.yaml",
    "/docs",
    "/adjudicate",
    "/.well-known/jwks.json",
)
NGINX = "nginx.ingress.kubernetes.io/"


def ingress(docs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return resource("Ingress", load(component_files()) if docs is None else docs)


def routed(ingress: dict[str, Any], path: str) -> bool:
    """Whether the Ingress passes ``path`` on (Kubernetes' Exact and Prefix path matching)."""
    for rule in ingress["spec"]["rules"]:
        for entry in rule["http"]["paths"]:
            assert entry["pathType"] in ("Exact", "Prefix"), "ImplementationSpecific: unknowable"
            if entry["pathType"] == "Exact" and path == entry["path"]:
                return True
            prefix = entry["path"].rstrip("/").split("/")
            if entry["pathType"] == "Prefix" and path.split("/")[: len(prefix)] == prefix:
                return True
    return False


def nginx_bytes(size: str) -> int:
    units = {"k": 2**10, "m": 2**20, "g": 2**30}
    unit = size[-1].lower()
    return int(size[:-1]) * units[unit] if unit in units else int(size)


def test_ingress_routes_the_api_and_its_documents_only() -> None:
    """/metrics, /healthz and /readyz are never public: every path of the OpenAPI document is
    routed exactly when it is an API call (/v1) or one of the API's documents."""
    entrance = ingress()
    assert entrance["spec"]["ingressClassName"] == "nginx"
    spec = yaml.safe_load((REPO / "openapi.yaml").read_text())
    paths = set(spec["paths"]) | {"/metrics", "/healthz", "/readyz", *PUBLIC_DOCUMENTS}
    assert {"/metrics", "/healthz", "/readyz"} <= set(spec["paths"])
    for path in paths:
        public = path.startswith("/v1/") or path in PUBLIC_DOCUMENTS
        assert routed(entrance, path) == public, path
    for path in ("/metrics/", "/", "/v1x", "/healthz/x"):
        assert not routed(entrance, path), path
    assert routed(entrance, "/docs/static/docs.css")
    assert routed(entrance, "/adjudicate/static/app.js")
    service = resource("Service")
    for rule in entrance["spec"]["rules"]:
        for entry in rule["http"]["paths"]:
            backend = entry["backend"]["service"]
            assert backend["name"] == service["metadata"]["name"]
            assert backend["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}


def test_ingress_limits_agree_with_the_service() -> None:
    annotations = ingress()["metadata"]["annotations"]
    data = resource("ConfigMap")["data"]
    assert nginx_bytes(annotations[NGINX + "proxy-body-size"]) == int(data["MAX_BODY_BYTES"])
    assert nginx_bytes(annotations[NGINX + "client-body-buffer-size"]) >= int(
        data["MAX_BODY_BYTES"]
    )
    assert annotations[NGINX + "proxy-request-buffering"] == "on"
    assert int(annotations[NGINX + "proxy-read-timeout"]) > int(data["GUNICORN_TIMEOUT"])
    assert int(annotations[NGINX + "proxy-send-timeout"]) <= int(data["BODY_READ_TIMEOUT"])
    assert not [key for key in annotations if "snippet" in key], "snippets run arbitrary nginx"


def test_ingress_component_keeps_upstream_connections_alive_longer_than_the_proxy() -> None:
    (patch,) = ingress_component()["patches"]
    assert patch["target"] == {
        "kind": "ConfigMap",
        "name": resource("ConfigMap")["metadata"]["name"],
    }
    (operation,) = yaml.safe_load(patch["patch"])
    assert operation["path"] == "/data/GUNICORN_KEEPALIVE"
    assert int(operation["value"]) > NGINX_UPSTREAM_KEEPALIVE_TIMEOUT


# ------------------------------------------------------------------------------ kustomize builds


def kustomize(directory: Path) -> list[dict[str, Any]]:
    """``kustomize build`` of a directory, offline, by kubectl's built-in kustomize or the
    standalone tool; skips where neither is installed (neither comes with the Python extras)."""
    if kubectl := shutil.which("kubectl"):
        command = [kubectl, "kustomize", str(directory)]
    elif standalone := shutil.which("kustomize"):
        command = [standalone, "build", str(directory)]
    else:
        pytest.skip("neither kubectl nor kustomize is installed: kustomize builds not checked")
    done = run(*command)
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def kustomize_with(component: Path, tmp_path: Path) -> list[dict[str, Any]]:
    """The base with one optional component, built as a user's overlay would build it."""
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": [os.path.relpath(K8S, overlay)],
                "components": [os.path.relpath(component, overlay)],
            }
        )
    )
    return kustomize(overlay)


def by_name(docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in docs}


def test_base_builds_to_its_files() -> None:
    assert by_name(kustomize(K8S)) == by_name(list(documents()))


OVERLAY_BLOCK = re.compile(r"```yaml\n# (overlays/production/[\w.-]+)\n(.*?)```", re.S)
REMOTE = re.compile(r"https://github\.com/yourorg/quart-bezique//([\w./-]+)\?ref=\S+")


def local_path(match: re.Match[str], here: Path) -> str:
    """A reference to this repository on GitHub, as a path from ``here`` to the working tree."""
    return os.path.relpath(REPO / match[1], here)


def documented_overlay(root: Path) -> Path:
    """The overlay docs/deploy.md shows, written under ``root``, its remote references to this
    repository replaced by relative paths to the working tree (kustomize refuses absolute ones)."""
    blocks = OVERLAY_BLOCK.findall(DEPLOY_DOC.read_text())
    assert blocks, "docs/deploy.md shows no overlay"
    for name, text in blocks:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(REMOTE.sub(functools.partial(local_path, here=target.parent), text))
    return root / "overlays" / "production"


def namespaces_named(selector: dict[str, Any]) -> set[str]:
    names = {selector.get("matchLabels", {}).get(NAMESPACE_NAME)} - {None}
    for expression in selector.get("matchExpressions") or []:
        if expression["key"] == NAMESPACE_NAME and expression["operator"] == "In":
            names |= set(expression["values"])
    return names


def test_documented_overlay_admits_the_namespaces_it_names(tmp_path: Path) -> None:
    overlay = documented_overlay(tmp_path)
    built = kustomize(overlay)
    output = tmp_path / "built.yaml"
    output.write_text(yaml.safe_dump_all(built))
    for version in KUBERNETES_VERSIONS:
        kubernetes_validate(version, output)

    # What the overlay asks for: the base's callers, some of them replaced.
    wanted = {name: {"matchLabels": {NAMESPACE_NAME: ns}} for name, ns in CALLERS.items()}
    for patch in yaml.safe_load((overlay / "kustomization.yaml").read_text())["patches"]:
        if patch["target"]["kind"] == "NetworkPolicy":
            for operation in yaml.safe_load(patch["patch"]):
                assert operation["path"] == "/spec/ingress/0/from/0/namespaceSelector"
                wanted[patch["target"]["name"]] = operation["value"]
    replaced = {
        name for name, selector in wanted.items() if namespaces_named(selector) != {CALLERS[name]}
    }
    assert replaced, "the documented overlay shows how to change a caller's namespace"

    # What the build applied.
    policies = network_policies(built)
    assert set(policies) == {"quart-bezique", *CALLERS}
    assert_callers_are_named(policies)
    for name, selector in wanted.items():
        (rule,) = policies[name]["spec"]["ingress"]
        assert rule["from"] == [{"namespaceSelector": selector}], name
        for ns in namespaces_named(selector):
            assert admitting(policies, namespace(ns)) == {name}, ns
    for name in replaced:
        assert admitting(policies, namespace(CALLERS[name])) == set(), "the default is gone"
    for stranger in STRANGERS:
        assert admitting(policies, namespace(stranger)) == set(), stranger

    # The optional Ingress came along, with the keep-alive that goes with it.
    entrance = ingress(built)
    assert not routed(entrance, "/metrics") and routed(entrance, "/v1/hands/score")
    assert int(resource("ConfigMap", built)["data"]["GUNICORN_KEEPALIVE"]) > (
        NGINX_UPSTREAM_KEEPALIVE_TIMEOUT
    )

"""The deployment artefacts, checked offline (part of ``make unit``; no container, no network):
the Kubernetes manifests against the Kubernetes schemas in strict mode and against checkov, the
Dockerfile against hadolint and checkov, and the promises of issue 4 that those tools cannot see
(probes, resources, security context, the tunables, one version everywhere)."""

from __future__ import annotations

import json
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
DOCKERFILE = REPO / "Dockerfile"
# The oldest Kubernetes the manifests support (the preStop `sleep` action is on by default since
# 1.30), and the newest whose schemas kubernetes-validate ships.
KUBERNETES_VERSIONS = ("1.30", None)
TUNABLES = (
    "WEB_CONCURRENCY",
    "GUNICORN_TIMEOUT",
    "GUNICORN_GRACEFUL_TIMEOUT",
    "MAX_BODY_BYTES",
    "MAX_BATCH_HANDS",
    "MAX_ACTIONS",
)
APP = {"app.kubernetes.io/name": "quart-bezique", "app.kubernetes.io/component": "api"}


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


def documents() -> Iterator[dict[str, Any]]:
    for path in manifest_files():
        yield from (doc for doc in yaml.safe_load_all(path.read_text()) if doc)


def resource(kind: str) -> dict[str, Any]:
    found = [doc for doc in documents() if doc["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


def container() -> dict[str, Any]:
    containers = resource("Deployment")["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    result: dict[str, Any] = containers[0]
    return result


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


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS, ids=lambda v: v or "latest")
def test_manifests_match_the_kubernetes_schemas_strictly(version: str | None) -> None:
    command = [tool("kubernetes-validate"), "--strict", "--quiet"]
    if version:
        command += ["--kubernetes-version", version]
    done = run(*command, *map(str, manifest_files()))
    assert done.returncode == 0, done.stdout + done.stderr


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


def test_manifests_pass_checkov() -> None:
    report = checkov("--directory", str(K8S), "--framework", "kubernetes")
    assert_checkov_clean(report, minimum_passed=80)


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
    assert cmd[0] == "gunicorn" and "service.wsgi:app" in cmd
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
    pod = resource("Deployment")["spec"]["template"]["spec"]
    pause = container()["lifecycle"]["preStop"]["sleep"]["seconds"]
    graceful = int(resource("ConfigMap")["data"]["GUNICORN_GRACEFUL_TIMEOUT"])
    assert pause >= 3, "endpoints need a few seconds to drain before SIGTERM"
    assert pod["terminationGracePeriodSeconds"] > pause + graceful


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
    """Fail closed (issue 6): without the Secret the pod does not start, and the service refuses
    to start with a configured but missing key file."""
    c = container()
    env = {e["name"]: e.get("value") for e in c["env"]}
    path = Path(env["API_KEYS_FILE"])
    volumes = {v["name"]: v for v in resource("Deployment")["spec"]["template"]["spec"]["volumes"]}
    mount = next(m for m in c["volumeMounts"] if m["mountPath"] == str(path.parent))
    secret = volumes[mount["name"]]["secret"]
    assert mount["readOnly"] is True
    assert secret["optional"] is False
    assert [item["path"] for item in secret["items"]] == [path.name]


def test_autoscaler_is_cpu_based_from_two_replicas() -> None:
    hpa = resource("HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    spec = hpa["spec"]
    assert spec["scaleTargetRef"]["name"] == resource("Deployment")["metadata"]["name"]
    assert spec["minReplicas"] == 2 and spec["minReplicas"] < spec["maxReplicas"] <= 50
    assert [m["resource"]["name"] for m in spec["metrics"]] == ["cpu"]


def test_disruption_budget_and_network_policy_select_the_pods() -> None:
    assert resource("PodDisruptionBudget")["spec"]["selector"]["matchLabels"] == APP
    policy = resource("NetworkPolicy")["spec"]
    assert policy["podSelector"]["matchLabels"] == APP
    assert set(policy["policyTypes"]) == {"Ingress", "Egress"}
    (rule,) = policy["ingress"]
    assert rule["ports"] == [{"port": "http", "protocol": "TCP"}]
    assert policy["egress"] == []

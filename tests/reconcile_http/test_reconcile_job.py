"""k8s/components/reconcile-job: the Indexed Job and its merge, built with the base and valid
against the Kubernetes schemas; merge.py merging real shard reports of ``quart-bezique
reconcile`` into the report an unsharded run writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.container.test_deploy_manifests import (
    K8S,
    KUBERNETES_VERSIONS,
    by_name,
    kubernetes_validate,
    kustomize_with,
)
from tests.reconcile_http.support import EXAMPLES, REPO, jsonl, records

COMPONENT = K8S / "components" / "reconcile-job"
MERGE = COMPONENT / "merge.py"


def test_the_component_lists_its_files() -> None:
    component = yaml.safe_load((COMPONENT / "kustomization.yaml").read_text())
    assert component["kind"] == "Component"
    on_disk = {p.name for p in COMPONENT.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(component["resources"]) == on_disk
    assert component["configMapGenerator"][0]["files"] == ["merge.py"]


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS, ids=lambda v: v or "latest")
def test_the_jobs_shard_the_archive_and_merge_it(tmp_path: Path, version: str | None) -> None:
    docs = kustomize_with(COMPONENT, tmp_path)
    output = tmp_path / "built.yaml"
    output.write_text(yaml.safe_dump_all(docs))
    kubernetes_validate(version, output)
    found = by_name(docs)
    job = found[("Job", "quart-bezique-reconcile")]
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    shards = spec["completions"]
    assert spec["parallelism"] == shards > 1
    (pod,) = spec["template"]["spec"]["containers"]
    args = pod["args"]
    assert pod["command"] == ["quart-bezique"] and args[0] == "reconcile"
    assert args[args.index("--shard") + 1] == f"$(JOB_COMPLETION_INDEX)/{shards}"
    assert args[args.index("--out") + 1] == "/data/reports/shard-$(JOB_COMPLETION_INDEX)"
    assert any(e["name"] == "JOB_COMPLETION_INDEX" for e in pod["env"])
    deployment = found[("Deployment", "quart-bezique")]
    (service,) = deployment["spec"]["template"]["spec"]["containers"]
    merge = found[("Job", "quart-bezique-reconcile-merge")]
    (merger,) = merge["spec"]["template"]["spec"]["containers"]
    assert pod["image"] == merger["image"] == service["image"]  # the service's image
    assert merger["args"][:2] == ["/data/reports", str(shards)]
    for container, template in ((pod, spec), (merger, merge["spec"])):
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert container["resources"]["limits"]
        volumes = {v["name"]: v for v in template["template"]["spec"]["volumes"]}
        claim = volumes["data"]["persistentVolumeClaim"]["claimName"]
        assert claim == "quart-bezique-reconcile"
        assert template["template"]["spec"]["restartPolicy"] == "Never"
    configmaps = [d for d in docs if d["kind"] == "ConfigMap" and "merge.py" in d.get("data", {})]
    (configmap,) = configmaps
    assert configmap["data"]["merge.py"] == MERGE.read_text()
    mounted = {v["name"]: v for v in merge["spec"]["template"]["spec"]["volumes"]}["merge"]
    assert mounted["configMap"]["name"] == configmap["metadata"]["name"]


def reconcile(archive: Path, out: Path, *more: str) -> None:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'service'}{os.pathsep}{REPO}"}
    command = [sys.executable, "-m", "quart_bezique", "reconcile", str(archive), "--out", str(out)]
    done = subprocess.run(
        [*command, "--workers", "1", *more], env=env, capture_output=True, timeout=120
    )
    assert done.returncode in (0, 1), done.stderr


def report(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def merge(*argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, str(MERGE), *argv], capture_output=True, timeout=60, check=False
    )


def test_the_merged_shards_are_the_unsharded_report(tmp_path: Path) -> None:
    lines = records() * 3
    lines.insert(4, b"{not json")
    archive = tmp_path / "archive.jsonl"
    archive.write_bytes(jsonl(lines))
    reports = tmp_path / "reports"
    for index in range(3):
        reconcile(archive, reports / f"shard-{index}", "--shard", f"{index}/3")
    reconcile(archive, tmp_path / "whole")
    done = merge(str(reports), "3", "--out", str(reports / "merged"))
    assert done.returncode == 0, done.stderr
    merged = report(reports / "merged" / "report.jsonl")
    whole = report(tmp_path / "whole" / "report.jsonl")
    findings = [e for e in whole if e["type"] not in ("run", "summary")]
    assert [e for e in merged if e["type"] not in ("run", "summary")] == findings
    assert [e["line"] for e in findings] == sorted(e["line"] for e in findings)
    counts = ("records", "matching", "disagreeing", "unreadable", "unclaimed", "differences")
    assert {k: merged[-1][k] for k in counts} == {k: whole[-1][k] for k in counts}
    assert merged[-1]["shards"] == 3
    assert EXAMPLES.exists()


def test_a_shard_without_its_summary_fails_the_merge(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    shard = reports / "shard-0"
    shard.mkdir(parents=True)
    (shard / "report.jsonl").write_bytes(b'{"type": "run"}\n{"type": "unreadable", "line": 1}\n')
    done = merge(str(reports), "2", "--out", str(reports / "merged"), "--wait", "0.2")
    assert done.returncode == 2
    assert b"not every one of 2 shards" in done.stderr
    assert not (reports / "merged").exists()

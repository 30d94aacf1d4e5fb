"""The build manifest: one digest per build, the same from the running process and from the
files, moved by any change to code, data, dependencies or ruleset, and by nothing else."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from service.integrity import (
    FORMAT,
    ManifestError,
    build_digest,
    current_manifest,
    installed_root,
    tree_manifest,
)
from service.integrity import manifest as manifest_module
from tests.receipts.tree_support import dist_info, site_packages


def test_installed_root_holds_the_running_package() -> None:
    assert (installed_root() / "service" / "integrity" / "manifest.py").is_file()


def test_cached_once_per_process() -> None:
    assert current_manifest() is current_manifest()
    assert build_digest() == current_manifest().digest


def test_running_and_tree_manifests_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = site_packages(tmp_path)
    monkeypatch.setattr(manifest_module, "installed_root", lambda: tree)
    running = manifest_module.installed_manifest()  # this process's metadata, the copy's files
    from_files = tree_manifest(tree)  # the tree's metadata only
    assert running == from_files
    assert running.digest == from_files.digest
    assert running.files.keys() == {
        p.relative_to(tree).as_posix() for p in (tree / "service").rglob("*") if p.is_file()
    }


def test_canonical_form_is_documented(tmp_path: Path) -> None:
    manifest = tree_manifest(site_packages(tmp_path))
    data = manifest.canonical()
    document = json.loads(data)
    assert data == json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    assert document["format"] == FORMAT
    assert list(document["files"]) == sorted(document["files"])
    assert (
        document["files"]["service/__init__.py"]
        == hashlib.sha256((tmp_path / "service" / "__init__.py").read_bytes()).hexdigest()
    )
    assert manifest.digest == hashlib.sha256(data).hexdigest()


def test_derived_files_are_left_out(tmp_path: Path) -> None:
    tree = site_packages(tmp_path)
    before = tree_manifest(tree).digest
    (tree / "service" / "__pycache__").mkdir()
    (tree / "service" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (tree / "service" / "stray.pyc").write_bytes(b"\0")
    assert tree_manifest(tree).digest == before


def test_any_change_moves_the_digest(tmp_path: Path) -> None:
    tree = site_packages(tmp_path)
    digests = {tree_manifest(tree).digest}
    rules = tree / "service" / "game" / "scoring.py"
    rules.write_bytes(rules.read_bytes() + b"#")
    digests.add(tree_manifest(tree).digest)
    (tree / "service" / "api" / "endpoints" / "static" / "extra.js").write_text("")
    digests.add(tree_manifest(tree).digest)
    assert len(digests) == 3


def test_ruleset_is_read_from_the_tree(tmp_path: Path) -> None:
    tree = site_packages(tmp_path)
    path = tree / "service" / "game" / "ruleset.py"
    path.write_text(
        path.read_text().replace("RULESET_VERSION: Final = 1", "RULESET_VERSION: Final = 2")
    )
    assert tree_manifest(tree).ruleset == "classic/2"
    path.write_text("RULESET = compute()\n")
    with pytest.raises(ManifestError, match="RULESET_NAME"):
        tree_manifest(tree)


def test_dependencies(tmp_path: Path) -> None:
    requires = [
        "PyYAML>=6.0",
        "Flask_Login[x]>=1; python_version >= '3'",
        'pytest>=8; extra == "test"',
        "absent>=1",
    ]
    tree = site_packages(
        tmp_path, requires=requires, versions={"pyyaml": "6.0.1", "flask-login": "0.6"}
    )
    assert dict(tree_manifest(tree).dependencies) == {
        "absent": None,
        "flask-login": "0.6",
        "pyyaml": "6.0.1",
    }


def test_dependency_version_moves_the_digest(tmp_path: Path) -> None:
    one = tree_manifest(
        site_packages(tmp_path / "a", requires=["orjson"], versions={"orjson": "3.9"})
    )
    two = tree_manifest(
        site_packages(tmp_path / "b", requires=["orjson"], versions={"orjson": "3.10"})
    )
    assert one.files == two.files and one.digest != two.digest


def test_unusable_trees(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no 'service' package"):
        tree_manifest(tmp_path)
    tree = site_packages(tmp_path / "site")
    for info in tree.glob("quart_bezique-*.dist-info"):
        for child in info.iterdir():
            child.unlink()
        info.rmdir()
    dist_info(tree, "other", "1.0")
    with pytest.raises(ManifestError, match="distribution metadata"):
        tree_manifest(tree)

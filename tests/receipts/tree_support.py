"""A throwaway ``site-packages``: a copy of the ``service`` package beside ``*.dist-info``
metadata, the layout an image holds (a module of its own, see ``receipt_keys``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

from service.integrity import installed_root


def dist_info(root: Path, name: str, version: str, requires: Iterable[str] = ()) -> None:
    folder = root / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (folder / "METADATA").write_text("\n".join(lines) + "\n")


def site_packages(
    root: Path, *, requires: Iterable[str] | None = None, versions: Mapping[str, str] | None = None
) -> Path:
    """``root`` holding a copy of the running ``service`` package and metadata: by default the
    installed distribution's requirements and the installed versions of its dependencies."""
    shutil.copytree(
        installed_root() / "service",
        root / "service",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    installed = metadata.distribution("quart-bezique")
    requires = list(installed.requires or ()) if requires is None else list(requires)
    dist_info(root, "quart-bezique", installed.version, requires)
    if versions is None:
        versions = {}
        for requirement in requires:
            if "extra ==" in requirement:
                continue
            name = requirement.split(";")[0].split(">")[0].split("=")[0].split("[")[0].strip()
            versions[name] = metadata.version(name)
    for name, version in versions.items():
        dist_info(root, name, version)
    return root

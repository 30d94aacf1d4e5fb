"""Throwaway trees for the build manifest: a bare ``site-packages`` (a copy of the ``quart_bezique``
package beside hand-written ``*.dist-info`` metadata) and a whole copy of this installation in
the layout an image holds (``<venv>/lib/pythonX.Y/site-packages`` and the ``pyvenv.cfg``)."""

from __future__ import annotations

import importlib.util
import marshal
import re
import shutil
import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

from quart_bezique.integrity.manifest import installed_root, running_manifest, running_python

RENDER = Path("quart_bezique/wire/render.py")
HONEST = '"score": hand.score,'
TAMPERED = '"score": hand.score + 100,'


def timestamp_pyc(source: Path, text: str) -> bytes:
    """Bytecode of ``text`` under the header of ``source`` as it is on disk (its mtime and
    size): the interpreter runs it in place of ``source``, whatever ``source`` says."""
    stat = source.stat()
    header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
    header += (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
    header += (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    return header + marshal.dumps(compile(text, str(source), "exec"))


def dist_info(
    root: Path,
    name: str,
    version: str,
    requires: Iterable[str] = (),
    files: Mapping[str, bytes] | None = None,
) -> None:
    """Metadata for ``name`` in ``root``; with ``files``, those files too, and a RECORD naming
    them (hashes left out: the manifest hashes the files themselves)."""
    folder = root / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (folder / "METADATA").write_text("\n".join(lines) + "\n")
    if files is not None:
        for relative, data in files.items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_bytes(data)
        record = [f"{relative},," for relative in files]
        record += [f"{folder.name}/METADATA,,", f"{folder.name}/RECORD,,"]
        (folder / "RECORD").write_text("\n".join(record) + "\n")


def site_packages(
    root: Path, *, requires: Iterable[str] | None = None, versions: Mapping[str, str] | None = None
) -> Path:
    """``root`` holding a copy of the running ``quart_bezique`` package (sources only) and metadata:
    by default the installed distribution's requirements and the installed versions of its
    dependencies, as bare metadata (no files of theirs)."""
    shutil.copytree(
        installed_root() / "quart_bezique",
        root / "quart_bezique",
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
            found = re.match(r"\s*([A-Za-z0-9._-]+)", requirement)
            assert found is not None, requirement
            name = found.group(1)
            versions[name] = metadata.version(name)
    for name, version in versions.items():
        dist_info(root, name, version)
    return root


def venv_site_packages(venv: Path) -> Path:
    """Where a virtual environment at ``venv`` keeps its packages (this interpreter's layout)."""
    return venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def write_pyvenv(venv: Path, version: str | None = None) -> None:
    venv.mkdir(parents=True, exist_ok=True)
    (venv / "pyvenv.cfg").write_text(
        f"home = /usr/local/bin\ninclude-system-site-packages = false\n"
        f"version = {version or running_python()}\n"
    )


def installed_tree(venv: Path) -> Path:
    """Every file the running manifest lists, copied byte for byte (times kept) to where an
    image holds it under the virtual environment ``venv``, with its ``pyvenv.cfg``: the tree
    an auditor copies out of an image. Returns its ``site-packages``."""
    root = venv_site_packages(venv)
    root.mkdir(parents=True)
    write_pyvenv(venv)
    for path, key in running_manifest(installed_root()).located.items():
        target = root / key
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return root

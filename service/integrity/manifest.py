"""The build manifest: what code and data decide outcomes, as digests an outsider can recompute.

Regulated gaming asks that the software deciding outcomes be authenticated by a digest that an
independent party can check against the files it was given. The manifest names every file of the
``service`` package (``__pycache__`` directories and ``.pyc``/``.pyo`` files excluded: they are
derived, and differ between machines and interpreter runs), the versions of the runtime
dependencies and the ruleset; the **build digest** is the SHA-256 of its canonical form::

    {"dependencies":{"apispec":"6.8.1",...},"files":{"service/__init__.py":"<sha256 hex>",...},
     "format":"quart-bezique-manifest/1","ruleset":"classic/1","version":"1.0.0"}

Canonical form: JSON, keys sorted by code point at every level, no whitespace, UTF-8, nothing
escaped but what JSON requires. File paths are relative to the directory holding ``service/``,
with ``/`` separators. Dependencies are the distribution's ``Requires-Dist`` entries without an
``extra`` marker, named in PEP 503 normal form (lower case, runs of ``-_.`` as ``-``), each with
the version installed beside it (``null`` when it is missing).

The same manifest comes from the running process (``installed_manifest``) and from a directory
tree such as an image's ``site-packages`` (``tree_manifest``), so the two can be compared.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final

FORMAT: Final = "quart-bezique-manifest/1"
DISTRIBUTION: Final = "quart-bezique"
PACKAGE: Final = "service"
UNKNOWN_VERSION: Final = "0+unknown"
_SKIPPED_DIRS: Final = frozenset({"__pycache__"})
_SKIPPED_SUFFIXES: Final = (".pyc", ".pyo")
_NAME: Final = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_EXTRA_MARKER: Final = re.compile(r";.*\bextra\s*==")
_CHUNK: Final = 1 << 16
RULESET_FILE: Final = "game/ruleset.py"


class ManifestError(ValueError):
    """The tree cannot be described: no ``service`` package, or no distribution metadata."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a build is made of; ``digest`` is the build digest."""

    version: str
    ruleset: str
    """``RULESET_NAME/RULESET_VERSION`` as the tree's ``service/game/ruleset.py`` sets them."""
    files: Mapping[str, str]
    """Relative path (``service/...``) to the SHA-256 hex of the file's bytes."""
    dependencies: Mapping[str, str | None]
    """Runtime dependency (normalised name) to its installed version."""

    def canonical(self) -> bytes:
        """The bytes the build digest is taken over (see the module docstring)."""
        document = {
            "dependencies": dict(self.dependencies),
            "files": dict(self.files),
            "format": FORMAT,
            "ruleset": self.ruleset,
            "version": self.version,
        }
        return json.dumps(
            document, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode("utf-8")

    @property
    def digest(self) -> str:
        """The build digest: SHA-256 (hex) of ``canonical()``."""
        return hashlib.sha256(self.canonical()).hexdigest()


def normalise(name: str) -> str:
    """PEP 503 normal form, so ``PyYAML`` and ``pyyaml`` are one dependency."""
    return re.sub(r"[-_.]+", "-", name).lower()


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _package_files(package_dir: Path) -> Iterator[Path]:
    for path in package_dir.rglob("*"):
        relative = path.relative_to(package_dir)
        if _SKIPPED_DIRS.intersection(relative.parts[:-1]) or path.name in _SKIPPED_DIRS:
            continue
        if path.suffix in _SKIPPED_SUFFIXES or not path.is_file():
            continue
        yield path


def package_files(root: Path) -> dict[str, str]:
    """Every file of ``root/service``, by relative POSIX path (sorted), with its SHA-256."""
    package_dir = root / PACKAGE
    if not (package_dir / "__init__.py").is_file():
        raise ManifestError(f"{root} holds no {PACKAGE!r} package ({package_dir}/__init__.py)")
    found = {
        path.relative_to(root).as_posix(): file_digest(path) for path in _package_files(package_dir)
    }
    return dict(sorted(found.items()))


def ruleset_of(root: Path) -> str:
    """The ruleset the tree's code implements, read from its ``ruleset.py`` without importing it
    (a tree under inspection is data, not code to run): ``RULESET_NAME/RULESET_VERSION``."""
    path = root / PACKAGE / RULESET_FILE
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        raise ManifestError(f"{path} cannot be read as Python") from None
    values: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    values[target.id] = node.value.value
    name, version = values.get("RULESET_NAME"), values.get("RULESET_VERSION")
    if not isinstance(name, str) or not isinstance(version, int):
        raise ManifestError(f"{path} does not set RULESET_NAME and RULESET_VERSION literally")
    return f"{name}/{version}"


def _runtime_requirements(distribution: metadata.Distribution) -> list[str]:
    names = []
    for requirement in distribution.requires or ():
        if _EXTRA_MARKER.search(requirement):
            continue
        match = _NAME.match(requirement)
        if match is not None:
            names.append(normalise(match.group(1)))
    return sorted(set(names))


def _find(name: str, path: list[str] | None) -> metadata.Distribution | None:
    """The first distribution called ``name`` on ``path`` (``sys.path`` when None)."""
    found = (
        metadata.distributions(name=name)
        if path is None
        else metadata.distributions(name=name, path=path)
    )
    return next(iter(found), None)


def _manifest(root: Path, path: list[str] | None) -> Manifest:
    files = package_files(root)
    distribution = _find(DISTRIBUTION, path)
    if distribution is None:
        where = "this environment" if path is None else str(root)
        raise ManifestError(f"no {DISTRIBUTION} distribution metadata (*.dist-info) in {where}")
    dependencies: dict[str, str | None] = {}
    for name in _runtime_requirements(distribution):
        found = _find(name, path)
        dependencies[name] = None if found is None else found.version
    return Manifest(
        version=distribution.version or UNKNOWN_VERSION,
        ruleset=ruleset_of(root),
        files=files,
        dependencies=dependencies,
    )


def installed_root() -> Path:
    """The directory holding the ``service`` package this process runs."""
    return Path(__file__).resolve().parent.parent.parent


def installed_manifest() -> Manifest:
    """The manifest of the running code: its files, and the dependencies this process imports."""
    return _manifest(installed_root(), None)


def tree_manifest(root: Path) -> Manifest:
    """The manifest of a directory tree holding ``service/`` and the ``*.dist-info`` metadata
    (an image's ``site-packages``): independent of whatever this process has installed."""
    return _manifest(root, [str(root)])

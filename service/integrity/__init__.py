"""Build integrity: a digest of the code, data and dependencies that decide outcomes.

``build_digest()`` is computed once per process (the first call hashes the package's files and
reads the dependency metadata, too much to repeat per receipt) and cached; receipts carry it, and
``quart-bezique build-digest --root DIR`` recomputes it from an image's files for comparison.
"""

from __future__ import annotations

from functools import cache

from .manifest import (
    FORMAT,
    Manifest,
    ManifestError,
    installed_manifest,
    installed_root,
    tree_manifest,
)

__all__ = [
    "FORMAT",
    "Manifest",
    "ManifestError",
    "build_digest",
    "current_manifest",
    "installed_root",
    "service_version",
    "tree_manifest",
]


@cache
def current_manifest() -> Manifest:
    """The running build's manifest, computed on first use: the files do not change under a
    running process (an image is immutable), so once is enough."""
    return installed_manifest()


@cache
def build_digest() -> str:
    """The running build's digest (``Manifest.digest`` of ``current_manifest``)."""
    return current_manifest().digest


def service_version() -> str:
    """The installed distribution's version, as the manifest records it."""
    return current_manifest().version

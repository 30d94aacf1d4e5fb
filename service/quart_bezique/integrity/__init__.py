"""Build integrity: a digest of every file that can run and decide outcomes.

``build_digest()`` is computed once per process (the first call hashes the package, its bytecode,
the gunicorn configuration and the installed dependencies' files: too much to repeat per receipt)
and cached; with gunicorn's preload that is once, in the master, before the workers are forked.
Receipts carry it, and ``quart-bezique build-digest --root DIR`` recomputes it from an image's
files for comparison.
"""

from __future__ import annotations

from functools import cache

from .manifest import (
    FORMAT,
    Manifest,
    ManifestError,
    differences,
    installed_manifest,
    installed_root,
    running_manifest,
    source_checkout,
    tree_manifest,
)

__all__ = [
    "FORMAT",
    "Manifest",
    "ManifestError",
    "build_digest",
    "current_manifest",
    "differences",
    "installed_root",
    "running_manifest",
    "service_version",
    "source_checkout",
    "tree_manifest",
]


@cache
def current_manifest() -> Manifest:
    """The running build's manifest, computed on first use: the files do not change under a
    running process (an image is immutable), so once is enough. ``ManifestError`` when a loaded
    module ran from a file the manifest does not list (the build cannot say what it is)."""
    return installed_manifest()


@cache
def build_digest() -> str:
    """The running build's digest (``Manifest.digest`` of ``current_manifest``)."""
    return current_manifest().digest


def service_version() -> str:
    """The installed distribution's version, as the manifest records it."""
    return current_manifest().version

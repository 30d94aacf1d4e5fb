"""The container's start (target 5c), quoted from the container test.

The bench runs no Docker: starting a private daemon, building the image and running containers
is the container test's work (``make container-test``, which ``make test`` runs). Its start-up
series (``scripts/container_start.py``) leaves its figures beside its logs, with the revision the
image was built from and when; the bench reports them side by side with its own, saying which
revision they are for, so a figure of an older image is never mistaken for this one's.
"""

from __future__ import annotations

import json
from pathlib import Path

from scripts.bench.config import CONTAINER_START_JSON
from scripts.bench.records import ContainerStart, decode


def quoted_start(path: Path = CONTAINER_START_JSON) -> tuple[ContainerStart | None, list[str]]:
    """The last series' figures, or None (with a warning when the file is there but unreadable)."""
    if not path.exists():
        return None, []
    try:
        return decode(ContainerStart, json.loads(path.read_text(encoding="utf-8"))), []
    except (OSError, ValueError, TypeError) as error:
        return None, [f"{path} cannot be read ({error}): the container's start is not quoted"]


def provenance(start: ContainerStart, commit: str) -> str:
    """Which image the quoted figures are for, next to the commit the bench runs."""
    same = bool(commit) and (start.revision.startswith(commit) or commit.startswith(start.revision))
    image = "this revision's image" if same else f"the image of revision {start.revision[:12]}"
    return f"quoted from make container-test, {start.measured_at}, {image}"

"""The report of a run, written as it goes: ``report.jsonl`` for programs, ``summary.txt`` for
people (docs/reconcile.md, "The report").

``report.jsonl`` is opened unbuffered and each chunk's lines reach the file in one ``write``
as soon as the chunk is judged, so a run killed at any moment leaves every line written so far
in the file (the operating system keeps it, the process need not close anything); only a last
line without its newline can be cut. The ``summary`` line is written last and only by a run
that read its whole input: its absence is how a reader knows the run was cut. ``summary.txt``
is written at the end too (a stale one is removed when a run starts), through a temporary file
renamed into place, so it is never half written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

import orjson

from .engine import Shard
from .judge import Tally

FORMAT: Final = "quart-bezique-reconcile/1"
"""The report's format (the ``run`` line's ``format``): a later format gets a new name."""
REPORT: Final = "report.jsonl"
SUMMARY: Final = "summary.txt"


class ReportWriter:
    """A run's report folder: ``start`` (the ``run`` line), ``write`` (judged lines, in input
    order), ``finish`` (the ``summary`` line and ``summary.txt``)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        (folder / SUMMARY).unlink(missing_ok=True)
        self._fd = os.open(folder / REPORT, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)

    def start(self, **members: Any) -> None:
        self.write(_line({"type": "run", "format": FORMAT, **members}))

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    def finish(self, summary: dict[str, Any], text: str) -> None:
        self.write(_line(summary))
        self.close()
        partial = self.folder / (SUMMARY + ".part")
        partial.write_text(text + "\n", encoding="utf-8")
        partial.replace(self.folder / SUMMARY)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def summary_line(
    tally: Tally, *, lines: int, seconds: float, shard: Shard | None, ruleset: object
) -> dict[str, Any]:
    """The report's last line: the counts, how long it took, and what was judged."""
    return {
        "type": "summary",
        "records": tally.records,
        "matching": tally.matching,
        "disagreeing": tally.disagreeing,
        "unreadable": tally.unreadable,
        "unclaimed": tally.unclaimed,
        "differences": tally.differences,
        "lines": lines,
        "seconds": round(seconds, 3),
        "rounds_per_second": round(tally.records / seconds, 1) if seconds > 0 else None,
        "shard": None if shard is None else str(shard),
        "ruleset": ruleset,
    }


def _line(entry: dict[str, Any]) -> bytes:
    return orjson.dumps(entry) + b"\n"

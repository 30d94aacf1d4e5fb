"""One whole run: the engine over an input, the report written as it goes, and at the end its
summary line and ``summary.txt``. Shared by the command (``quart-bezique reconcile``) and the
tests, so what they check is what the command does."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from . import summary
from .engine import Engine, Progress, Shard
from .judge import Tally
from .report import REPORT, ReportWriter, summary_line
from .words import Words


@dataclass(frozen=True, slots=True)
class Finished:
    tally: Tally
    summary: dict[str, Any]
    """The report's ``summary`` line."""
    text: str
    """``summary.txt``."""
    engine: Engine
    """The engine, for what it measured (``peak_in_flight``)."""


def reconcile(
    source: IO[bytes],
    folder: Path,
    *,
    name: str,
    workers: int = 1,
    ruleset: str | dict[str, Any] | None = None,
    shard: Shard | None = None,
    language: str = "en",
    progress: Callable[[Progress], None] | None = None,
    chunk_lines: int | None = None,
    window: int | None = None,
) -> Finished:
    """Judge every record of ``source`` (``name``: how the report names it) into ``folder``."""
    sizes = {} if chunk_lines is None else {"chunk_lines": chunk_lines}
    engine = Engine(
        workers=workers, ruleset=ruleset, shard=shard, window=window, progress=progress, **sizes
    )
    writer = ReportWriter(folder)
    try:
        writer.start(
            input=name,
            shard=None if shard is None else str(shard),
            ruleset=ruleset,
            workers=workers,
        )
        started = time.monotonic()
        tally = engine.run(source, writer.write)
        seconds = time.monotonic() - started
        line = summary_line(
            tally, lines=engine.lines, seconds=seconds, shard=shard, ruleset=ruleset
        )
        text = summary.text(line, name, str(folder / REPORT), Words(language))
        writer.finish(line, text)
    finally:
        writer.close()
    return Finished(tally, line, text, engine)

"""How a run shows that it is moving, on standard error: a bar redrawn in place on a terminal,
plain lines (every so many records or seconds) anywhere else, such as a job's log."""

from __future__ import annotations

import time
from typing import Final, TextIO

from .engine import Progress
from .summary import progress_line
from .words import Words

BAR_WIDTH: Final = 30
BAR_EVERY_SECONDS: Final = 0.2
"""A terminal's bar is redrawn at most this often."""
LINE_EVERY_RECORDS: Final = 100_000
LINE_EVERY_SECONDS: Final = 30.0


class ProgressDisplay:
    """Called by the engine after each chunk (``__call__``); ``done`` ends the bar's line."""

    def __init__(
        self,
        stream: TextIO,
        words: Words,
        *,
        total_bytes: int | None = None,
        terminal: bool | None = None,
        every_records: int = LINE_EVERY_RECORDS,
        every_seconds: float = LINE_EVERY_SECONDS,
    ) -> None:
        self.stream = stream
        self.words = words
        self.total_bytes = total_bytes
        """The input's size when known (a file, not a pipe): the bar then shows how much."""
        self.terminal = stream.isatty() if terminal is None else terminal
        self.every_records = every_records
        self.every_seconds = every_seconds
        self._shown_records = 0
        self._shown_at = time.monotonic()
        self._drawn = False

    def __call__(self, now: Progress) -> None:
        clock = time.monotonic()
        records = now.tally.records
        if self.terminal:
            if clock - self._shown_at >= BAR_EVERY_SECONDS:
                self._bar(now)
                self._shown_at = clock
        elif (
            records - self._shown_records >= self.every_records
            or clock - self._shown_at >= self.every_seconds
        ):
            self.stream.write(self._line(now) + "\n")
            self.stream.flush()
            self._shown_records, self._shown_at = records, clock

    def done(self, now: Progress | None = None) -> None:
        """The last state: the bar drawn full and its line ended; nothing for plain lines (the
        summary follows)."""
        if self.terminal and (now is not None or self._drawn):
            if now is not None:
                self._bar(now)
            self.stream.write("\n")
            self.stream.flush()

    def _line(self, now: Progress) -> str:
        rate = now.tally.records / now.seconds if now.seconds > 0 else 0.0
        return progress_line(
            now.tally.records, now.tally.disagreeing, now.tally.unreadable, rate, self.words
        )

    def _bar(self, now: Progress) -> None:
        if self.total_bytes:
            share = min(1.0, now.bytes_read / self.total_bytes)
            filled = int(share * BAR_WIDTH)
            head = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {share * 100:5.1f}% "
        else:
            head = ""
        self.stream.write("\r\x1b[K" + head + self._line(now))
        self.stream.flush()
        self._drawn = True

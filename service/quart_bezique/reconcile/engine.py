"""The streaming engine: an archive of any size read line by line, judged in chunks on every
core, and its report written in input order, with a bounded number of lines in memory.

``multiprocessing.Pool.imap`` would consume its whole input ahead of the workers (its feeder
thread reads as fast as it can), so the window is kept here: at most ``window`` chunks are
submitted and not yet written, and the next chunk is read only when the oldest one has been
written. The lines in flight are therefore never more than ``window * chunk_lines``, whatever
the file's size, and ``Engine.peak_in_flight`` says how many there were at most (the tests
check it). With one worker nothing is forked: chunks are judged in this process, one at a time.
"""

from __future__ import annotations

import collections
import ctypes
import ctypes.util
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import IO, Any, Final

from .judge import MAX_LINE_BYTES, Judged, Line, Tally, judge_chunk

CHUNK_LINES: Final = 200
"""Lines sent to a worker at once: enough to make the cost of sending them small next to
judging them, few enough that progress and the report move often."""
CHUNK_BYTES: Final = 4 * 1024 * 1024
"""A chunk is also closed at this many bytes, so long lines cannot make one chunk huge."""
WINDOW_PER_WORKER: Final = 3
"""Chunks in flight per worker: one being judged, one waiting, one being sent back."""
READ_PIECE: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class Shard:
    """``I/N``: only the lines whose number modulo ``count`` is ``index`` (numbers from 1)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.count:
            raise ValueError(f"a shard is I/N with 0 <= I < N, not {self.index}/{self.count}")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, number: int) -> bool:
        return number % self.count == self.index


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a run is, after a chunk was written."""

    lines: int
    """Lines of the input read so far (every line, in the shard or not)."""
    bytes_read: int
    tally: Tally
    seconds: float


def numbered_lines(
    source: IO[bytes], limit: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, bytes | None]]:
    """Every line with its number (from 1); a line longer than ``limit`` bytes is given as None
    and read past in pieces, never held whole."""
    number = 0
    while True:
        text = source.readline(limit + 1)
        if not text:
            return
        number += 1
        if len(text) > limit and not text.endswith(b"\n"):
            while True:
                rest = source.readline(READ_PIECE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, None
        else:
            yield number, text


class Engine:
    """One run over one input (``run``), writing each judged chunk through ``write``."""

    def __init__(
        self,
        *,
        workers: int = 1,
        ruleset: str | dict[str, Any] | None = None,
        shard: Shard | None = None,
        chunk_lines: int = CHUNK_LINES,
        window: int | None = None,
        progress: Callable[[Progress], None] | None = None,
    ) -> None:
        if workers < 1 or chunk_lines < 1 or (window is not None and window < 1):
            raise ValueError("workers, chunk_lines and window must be 1 or more")
        self.workers = workers
        self.ruleset = ruleset
        self.shard = shard
        self.chunk_lines = chunk_lines
        self.window = window if window is not None else WINDOW_PER_WORKER * workers
        self.progress = progress
        self.in_flight = 0
        """Lines read and not yet written."""
        self.peak_in_flight = 0
        self.lines = 0
        self.bytes_read = 0

    @property
    def bound(self) -> int:
        """The most lines ever in flight: the window's chunks, full."""
        return (self.window if self.workers > 1 else 1) * self.chunk_lines

    def run(self, source: IO[bytes], write: Callable[[bytes], None]) -> Tally:
        """Judge every record of ``source`` (of the shard), ``write`` each chunk's report
        lines in input order; the counts of the whole run."""
        started = time.monotonic()
        tally = Tally()
        chunks = self._chunks(numbered_lines(source))
        for judged, size in self._judged(chunks):
            write(judged.report)
            self.in_flight -= size
            tally += judged.tally
            if self.progress is not None:
                seconds = time.monotonic() - started
                self.progress(Progress(self.lines, self.bytes_read, tally, seconds))
        return tally

    def _chunks(self, lines: Iterable[tuple[int, bytes | None]]) -> Iterator[list[Line]]:
        """The shard's non-blank lines in chunks; blank lines (a trailing newline, a separator)
        are no records and are skipped."""
        chunk: list[Line] = []
        size = 0
        for number, text in lines:
            self.lines = number
            self.bytes_read += MAX_LINE_BYTES if text is None else len(text)
            if self.shard is not None and not self.shard.holds(number):
                continue
            if text is not None and not text.strip():
                continue
            chunk.append((number, text))
            size += 0 if text is None else len(text)
            if len(chunk) >= self.chunk_lines or size >= CHUNK_BYTES:
                yield self._sent(chunk)
                chunk, size = [], 0
        if chunk:
            yield self._sent(chunk)

    def _sent(self, chunk: list[Line]) -> list[Line]:
        self.in_flight += len(chunk)
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        return chunk

    def _judged(self, chunks: Iterator[list[Line]]) -> Iterator[tuple[Judged, int]]:
        if self.workers == 1:
            for chunk in chunks:
                yield judge_chunk(chunk, self.ruleset), len(chunk)
            return
        with ProcessPoolExecutor(self.workers, initializer=_worker_start) as pool:
            pending: collections.deque[tuple[Future[Judged], int]] = collections.deque()
            for chunk in chunks:
                pending.append((pool.submit(judge_chunk, chunk, self.ruleset), len(chunk)))
                del chunk
                if len(pending) >= self.window:
                    future, size = pending.popleft()
                    yield future.result(), size
            while pending:
                future, size = pending.popleft()
                yield future.result(), size


def _worker_start() -> None:
    """A worker dies with the process that started it (Linux: ``PR_SET_PDEATHSIG``), so a run
    killed outright (``kill -9``, the out-of-memory killer) leaves no worker waiting forever on
    a queue nobody feeds; and it ignores Ctrl-C, which its parent handles."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    name = ctypes.util.find_library("c")
    if name is None:
        return
    try:
        ctypes.CDLL(name).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl (not Linux): nothing to ask for
        return


PR_SET_PDEATHSIG: Final = 1
"""``prctl``'s option number (linux/prctl.h)."""

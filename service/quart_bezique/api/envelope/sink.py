"""Where audit lines go: a bounded buffer in front of stdout, so a stalled log pipeline refuses
verdicts (fail closed) instead of freezing every worker thread.

A blocking ``write(2)`` to stdout on the request path ties the service's liveness to whoever
reads the container's output: once the pipe is full, every thread that finishes a request waits,
and soon ``/healthz`` does too. So the blocking write moves to one writer thread per process, fed
through a buffer bounded in bytes; a request thread waits only for room, within a bound, and a
verdict whose line is not taken is not released (a verdict without its audit record is exactly
what the record exists to prevent). ``AuditSink`` states the bounds; docs/operations.md, "When
stdout does not keep up", what an operator sees.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import logging
import os
import select
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from typing import Final

from quart_bezique.api.config import env_int

log = logging.getLogger("quart_bezique.api.audit")

WAIT_SECONDS: Final = 0.05
"""Default longest wait for room in the buffer before a line is refused."""
LOCK_SECONDS: Final = 1.0
"""Longest wait for the buffer's lock (held only to append or take lines, but GIL scheduling on a
loaded machine can delay its holder by several switch intervals)."""
EXIT_FLUSH_SECONDS: Final = 2.0
"""How long interpreter exit waits for the buffer to drain, when nothing closed the sink first
(outside gunicorn: a worker closes it in ``worker_exit``)."""
MIN_DRAIN_RATE_ENV: Final = "AUDIT_MIN_DRAIN_RATE"
MIN_DRAIN_RATE: Final = 8192
"""Default of the slowest stdout reading (bytes per second, per worker) the capacity is sized
for: below it, lines held at a stop may not all be written (then counted, and the exit fails)."""
GRACEFUL_ENV: Final = "GUNICORN_GRACEFUL_TIMEOUT"
GRACEFUL_TIMEOUT: Final = 20
"""gunicorn.conf.py's default of ``GUNICORN_GRACEFUL_TIMEOUT`` (seconds)."""
EXIT_SHARE: Final = 0.5
"""Share of the graceful timeout a stopping worker gives its audit lines (``exit_budget``); the
rest is for its in-flight requests before it, and its exit after it."""
EXIT_STATUS: Final = 74
"""Exit status (EX_IOERR) of a worker, and then of the master, when audit lines were lost."""
CHUNK: Final = select.PIPE_BUF
"""Most bytes joined into one write: up to this, a write to a pipe is never split or interleaved."""
RETRY_SECONDS: Final = 0.5
"""Pause after a write error that may pass (not EPIPE or EBADF), so the writer never spins."""
_GONE: Final = frozenset((errno.EPIPE, errno.EBADF))


def exit_budget(graceful_timeout: float) -> float:
    """Seconds a stopping worker waits for its audit lines to be written: a fixed share of the
    graceful timeout after which gunicorn's master kills it."""
    return max(0.0, graceful_timeout * EXIT_SHARE)


_UNBOUNDED: Final = 2**31
"""No upper bound worth stating (the rate and the timeout are the operator's)."""


def default_capacity(env: Mapping[str, str] | None = None) -> int:
    """Bytes a worker's buffer may hold: what the slowest reader allowed (``AUDIT_MIN_DRAIN_RATE``
    bytes/s) writes within ``exit_budget`` of the graceful timeout (``GUNICORN_GRACEFUL_TIMEOUT``),
    so that a stopping worker can always write what it holds. At least one ``CHUNK``."""
    env = os.environ if env is None else env
    rate = env_int(env, MIN_DRAIN_RATE_ENV, MIN_DRAIN_RATE, low=1, high=_UNBOUNDED)
    graceful = env_int(env, GRACEFUL_ENV, GRACEFUL_TIMEOUT, low=0, high=_UNBOUNDED)
    return max(CHUNK, int(exit_budget(graceful) * rate))


class AuditSink:
    """``sink(line) -> bool``: True when ``line`` was taken for writing to ``fd``, False when not
    (buffer full for ``wait`` seconds, or ``fd`` gone). Thread-safe; one writer per process.

    Bounds (per worker process):

    - ``capacity`` (the lines' bytes): how much may be waiting for the pipe; by default
      ``default_capacity``, so whatever a worker holds when it stops can always be written before
      it must exit, and a verdict is refused rather than released with a line that might be lost;
    - ``wait`` (``WAIT_SECONDS``): how long a caller waits for room before it is refused, apart
      from getting the GIL back. It is ten of the interpreter's default switch intervals, not
      one, so that a busy machine (every thread wanting the GIL, the writer among them) is not
      mistaken for a stalled log pipeline: a full buffer means a long backlog, and one more wait
      changes nothing for a client;
    - the buffer's lock is held only to append or take lines; a caller waits for it up to
      ``LOCK_SECONDS``, which only a starved process reaches (then it is refused as well);
    - readiness (``ready``), with hysteresis so that ``/readyz`` does not flap: not ready from the
      first refusal or once more than ``high_water`` of the capacity is waiting, ready again once
      the writer has brought it down to ``low_water``.

    Lines stay whole and in order: the writer joins whole lines into writes of at most ``CHUNK``
    (``PIPE_BUF``, which the kernel keeps whole on a pipe shared by every worker), a longer line
    gets a write of its own, and a partial write is continued with the rest of the same line
    before anything else. A line that was taken lives in memory until written, so a stopping
    worker ``close``s its sink (``gunicorn.conf.py``, ``worker_exit``): it waits up to the flush
    budget, then counts what is left as lost, exits non-zero and tells the master
    (``StopReports``), which then exits non-zero too. ``flush`` also runs at interpreter exit.

    If ``fd`` is gone (``EPIPE``, ``EBADF``) the writer counts it, drops what it held (``lost``),
    stops, and every later line is refused: the worker stays not-ready until it is replaced.
    Other write errors (``ENOSPC``, ``EIO``) are counted and retried after ``RETRY_SECONDS``;
    meanwhile the buffer fills and callers are refused as with a stalled reader.

    Forking: gunicorn builds the app (and this sink) in the master, then forks. A child starts
    from an empty buffer with fresh locks (``os.register_at_fork``; whatever the parent held is
    the parent's to write), and its writer thread is started on its first line (threads do not
    survive ``fork``), as ``deadline.BodyDeadlines`` does."""

    def __init__(
        self,
        fd: int = 1,
        *,
        capacity: int | None = None,
        wait: float = WAIT_SECONDS,
        high_water: float = 0.75,
        low_water: float = 0.25,
    ) -> None:
        if capacity is None:
            capacity = default_capacity()
        if capacity <= 0 or wait < 0 or not 0 <= low_water <= high_water <= 1:
            raise ValueError("capacity > 0, wait >= 0 and 0 <= low_water <= high_water <= 1")
        self.fd = fd
        self.capacity = capacity
        self.wait = wait
        self.high = int(capacity * high_water)
        self.low = int(capacity * low_water)
        self._reset()
        ref = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: _call(ref, AuditSink._reset))
        atexit.register(lambda: _call(ref, AuditSink._flush_at_exit))

    def _reset(self) -> None:
        """A fresh, empty state: at creation and in a forked child, whose inherited locks may have
        been held by a thread that no longer exists."""
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        """Notified when the writer has written (room in the buffer, or drained)."""
        self._work = threading.Condition(self._lock)
        """Notified when a line is added."""
        self._lines: deque[bytes] = deque()
        self._queued = 0
        """Bytes taken and not yet written (including the ones being written)."""
        self._writing = 0
        """Lines the writer has taken from the buffer and not yet written."""
        self._congested = False
        self._gone = False
        self._closed = False
        """Closed by a stopping worker: every later line is refused."""
        self._idle = False
        """The writer waits for lines (only then is it worth waking)."""
        self._pid = 0
        self.accepted = 0
        """Lines taken."""
        self.refused = 0
        """Lines refused (buffer full, or ``fd`` gone)."""
        self.write_errors = 0
        """Failed writes (each EPIPE/EBADF, and each other error before a retry)."""
        self.lost = 0
        """Lines taken but never written (``fd`` gone)."""

    def __call__(self, line: bytes) -> bool:
        if not self._pid:  # first line in this process (a forked child starts from 0)
            self._start()
        size = len(line)
        if not (self._lock.acquire(False) or self._lock.acquire(timeout=LOCK_SECONDS)):
            self.refused += 1  # a starved process; the count may then be off by a few
            return False
        try:
            if (
                self._gone or self._closed or size + self._queued > self.capacity
            ) and not self._room_for(size):
                self.refused += 1
                if self._queued > self.low:  # else nothing would ever clear it: ready as it is
                    self._congested = True
                return False
            self._lines.append(line)
            self._queued += size
            self.accepted += 1
            if self._queued > self.high:
                self._congested = True
            if self._idle:
                self._work.notify()
            return True
        finally:
            self._lock.release()

    def _room_for(self, size: int) -> bool:
        """Wait (holding the lock, which waiting releases) up to ``wait`` seconds for room."""
        if size > self.capacity or self._closed:
            return False
        deadline = time.monotonic() + self.wait
        while not self._gone and size + self._queued > self.capacity:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._room.wait(left)
        return not self._gone

    def ready(self) -> bool:
        """False from a refusal (or above the high-water mark) until drained to the low-water
        mark, and for good once ``fd`` is gone. Two attribute reads: cheap enough for probes."""
        return not (self._congested or self._gone)

    @property
    def queued(self) -> int:
        """Bytes waiting to be written."""
        return self._queued

    @property
    def pending(self) -> int:
        """Lines taken and not yet written (the one being written included)."""
        return len(self._lines) + self._writing

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every taken line to be written (a worker's exit).
        True when all were; False if some remain (stalled reader) or were lost (``fd`` gone)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._queued and not self._gone:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._room.wait(left)
            return not self._gone or self.lost == 0

    def close(self, timeout: float) -> int:
        """A stopping worker's last word: wait up to ``timeout`` seconds for every taken line to be
        written, then refuse every later line and drop what is still waiting. The number of lines
        taken and never written (0 when all were): dropped now, lost earlier to a vanished
        ``fd``, and any being written at this moment (their write may not finish before exit)."""
        self.flush(timeout)
        with self._lock:
            self._closed = True
            dropped = len(self._lines)
            self._queued -= sum(map(len, self._lines))
            self._lines.clear()
            self._room.notify_all()
            return dropped + self._writing + self.lost

    def _flush_at_exit(self) -> None:
        if self._pid and not self._closed and self._queued and not self.flush(EXIT_FLUSH_SECONDS):
            log.error("audit: %d bytes of audit lines not written at exit", self._queued)

    def _start(self) -> None:
        with self._lock:
            if self._pid:
                return
            self._pid = os.getpid()
        threading.Thread(target=self._run, name="audit-writer", daemon=True).start()

    # ------------------------------------------------------------------------------ the writer

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._lines:
                    self._idle = True
                    self._work.wait()
                    self._idle = False
                chunk = [self._lines.popleft()]
                size = len(chunk[0])
                while self._lines and size + len(self._lines[0]) <= CHUNK:
                    line = self._lines.popleft()
                    chunk.append(line)
                    size += len(line)
                self._writing = len(chunk)
            data = chunk[0] if len(chunk) == 1 else b"".join(chunk)
            if not self._write(data, len(chunk)):
                return
            with self._lock:
                self._queued -= size
                self._writing = 0
                if self._congested and self._queued <= self.low:
                    self._congested = False
                self._room.notify_all()

    def _write(self, data: bytes, lines: int) -> bool:
        """Write all of ``data``, continuing a partial write; False once ``fd`` is gone."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.fd, view) :]
            except BlockingIOError:  # stdout inherited in non-blocking mode: wait until writable
                writable = select.poll()
                writable.register(self.fd, select.POLLOUT)
                writable.poll(RETRY_SECONDS * 1000)
            except OSError as error:
                self.write_errors += 1
                if error.errno in _GONE:
                    self._give_up(error, lines)
                    return False
                log.error("audit: cannot write to fd %d (%s); retrying", self.fd, error)
                time.sleep(RETRY_SECONDS)
        return True

    def _give_up(self, error: OSError, writing: int) -> None:
        with self._lock:
            self._gone = True
            self.lost += len(self._lines) + writing
            self._lines.clear()
            self._queued = 0
            self._writing = 0
            self._room.notify_all()
        log.error("audit: fd %d is gone (%s); refusing every verdict from now on", self.fd, error)


class StopReports:
    """What stopping workers tell their master about audit lines they could not write (gunicorn
    hands a hook the worker, never its exit status). A pipe made in the master before it forks:
    a worker holding lines at its exit writes ``<pid> pending <lines>``, then ``<pid> written 0``
    or ``<pid> lost <lines>``; each record is one write of less than ``PIPE_BUF`` (never split
    or interleaved). Both ends are non-blocking: a full pipe drops a record, never stalls a
    worker. A ``pending`` never concluded is a worker killed while writing: its lines count as
    lost."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._open: dict[int, int] = {}
        """Workers whose last record was ``pending``, with their lines (the master's reading)."""
        self.lost = 0
        """Lines lost, by the records read so far (the master's reading)."""
        self.workers = 0
        """Workers that lost lines, by the records read so far."""

    def report(self, pid: int, state: str, lines: int) -> None:
        with contextlib.suppress(OSError):
            os.write(self._write, b"%d %s %d\n" % (pid, state.encode(), lines))

    def collect(self) -> tuple[int, int]:
        """In the master: read every record so far; (lines lost, workers that lost some), with a
        worker left ``pending`` counted as having lost all it held."""
        data = bytearray()
        with contextlib.suppress(OSError):
            while chunk := os.read(self._read, 65536):
                data += chunk
        for record in bytes(data).splitlines():
            pid_text, state, lines_text = record.split()
            pid, lines = int(pid_text), int(lines_text)
            held = self._open.pop(pid, None)
            if state == b"pending":
                self._close_record(held)  # a pid reused after its worker was killed
                self._open[pid] = lines
            elif state == b"lost":
                self._close_record(lines)
        unfinished = list(self._open.values())
        return self.lost + sum(unfinished), self.workers + len(unfinished)

    def _close_record(self, lost: int | None) -> None:
        if lost:
            self.lost += lost
            self.workers += 1


_stop_reports: StopReports | None = None


def stop_reports() -> StopReports:
    """This process's ``StopReports``, made on first call: the master calls it before it forks
    (``gunicorn.conf.py`` at load), so that its workers inherit the same pipe."""
    global _stop_reports
    if _stop_reports is None:
        _stop_reports = StopReports()
    return _stop_reports


def _call(ref: weakref.ref[AuditSink], method: Callable[[AuditSink], None]) -> None:
    """Run a fork or exit hook on a sink that may have been collected since (tests make many)."""
    sink = ref()
    if sink is not None:
        method(sink)

"""Where audit lines go: a bounded buffer in front of stdout, so a stalled log pipeline refuses
verdicts (fail closed) instead of freezing every worker thread.

A blocking ``write(2)`` to stdout on the request path ties the service's liveness to whoever
reads the container's output: once the pipe is full, every thread that finishes a request waits,
and soon ``/healthz`` does too. ``AuditSink`` keeps the blocking write but moves it to one native
thread per process (the *writer*), fed through a buffer bounded in bytes. A request thread only
ever waits for room in that buffer, and for at most ``wait`` seconds: it gets True when its line
was taken, False when not, and the envelope must then refuse to release the verdict (a verdict
without its audit record is exactly what the record exists to prevent).

Bounds (per worker process):

- ``capacity`` (default 2 MiB, counted as the lines' bytes: thousands of audit lines, a long
  backlog even for a busy worker): how much may be waiting for the pipe;
- ``wait`` (default 50 ms): how long a caller waits for room before it is refused. It never waits
  longer, apart from getting the GIL back (the interpreter's switch interval, 5 ms by default).
  It is ten switch intervals, not one, so that a busy machine (every thread wanting the GIL, the
  writer among them) is not mistaken for a stalled log pipeline: a full buffer means a long
  backlog, and one more wait changes nothing for a client;
- the buffer's lock is held only to append or take lines; a caller waits for it up to
  ``LOCK_SECONDS`` (1 s), which only a starved process reaches (then it is refused as well);
- readiness (``ready``), with hysteresis so that ``/readyz`` does not flap: not ready from the
  first refusal or once more than ``high_water`` (3/4) of the capacity is waiting, ready again
  once the writer has brought it down to ``low_water`` (1/4).

Lines stay whole and in order: the writer joins whole lines into writes of at most ``PIPE_BUF``
(4 KiB, which the kernel keeps whole on a pipe shared by every worker), a longer line gets a
write of its own, and a partial write is continued with the rest of the same line before anything
else. A line that was taken lives in memory until written: it is lost if the process is killed
first, hence ``flush`` for a worker's orderly exit (also run at interpreter exit).

If stdout is gone (``EPIPE``, ``EBADF``) the writer counts it, drops what it held (``lost``),
stops, and every later line is refused: the worker stays not-ready until it is replaced. Other
write errors (``ENOSPC``, ``EIO``) are counted and retried after a pause; meanwhile the buffer
fills and callers are refused as with a stalled reader.

Forking: gunicorn builds the app (and this sink) in the master, then forks. A child starts from
an empty buffer with fresh locks (``os.register_at_fork``; whatever the parent held is the
parent's to write), and its writer thread is started on its first line (threads do not survive
``fork``), as ``deadline.BodyDeadlines`` does.
"""

from __future__ import annotations

import atexit
import errno
import logging
import os
import select
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Final

log = logging.getLogger("service.api.audit")

CAPACITY: Final = 2 * 1024 * 1024
"""Default bound of the buffer, in bytes of lines waiting to be written (per worker process)."""
WAIT_SECONDS: Final = 0.05
"""Default longest wait for room in the buffer before a line is refused."""
LOCK_SECONDS: Final = 1.0
"""Longest wait for the buffer's lock (held only to append or take lines, but GIL scheduling on a
loaded machine can delay its holder by several switch intervals)."""
EXIT_FLUSH_SECONDS: Final = 2.0
"""How long interpreter exit waits for the buffer to drain (less than gunicorn's graceful stop)."""
CHUNK: Final = select.PIPE_BUF
"""Most bytes joined into one write: up to this, a write to a pipe is never split or interleaved."""
RETRY_SECONDS: Final = 0.5
"""Pause after a write error that may pass (not EPIPE or EBADF), so the writer never spins."""
_GONE: Final = frozenset((errno.EPIPE, errno.EBADF))


class AuditSink:
    """``sink(line) -> bool``: True when ``line`` was taken for writing to ``fd``, False when not
    (buffer full for ``wait`` seconds, or ``fd`` gone). Thread-safe; one writer per process."""

    def __init__(
        self,
        fd: int = 1,
        *,
        capacity: int = CAPACITY,
        wait: float = WAIT_SECONDS,
        high_water: float = 0.75,
        low_water: float = 0.25,
    ) -> None:
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
        self._congested = False
        self._gone = False
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
            if (self._gone or size + self._queued > self.capacity) and not self._room_for(size):
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
        if size > self.capacity:
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

    def _flush_at_exit(self) -> None:
        if self._pid and self._queued and not self.flush(EXIT_FLUSH_SECONDS):
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
            data = chunk[0] if len(chunk) == 1 else b"".join(chunk)
            if not self._write(data, len(chunk)):
                return
            with self._lock:
                self._queued -= size
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
            self._room.notify_all()
        log.error("audit: fd %d is gone (%s); refusing every verdict from now on", self.fd, error)


def _call(ref: weakref.ref[AuditSink], method: Callable[[AuditSink], None]) -> None:
    """Run a fork or exit hook on a sink that may have been collected since (tests make many)."""
    sink = ref()
    if sink is not None:
        method(sink)

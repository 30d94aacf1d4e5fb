"""gunicorn's logger, changed so that writing a log line can never stop the server, nor put a
secret or a client's raw bytes into the log.

Stock gunicorn writes its logs (stderr, and stdout for the access log) with blocking writes from
whichever thread logs, the worker's poller included: once nobody reads the pipe, the next
malformed request freezes a worker. Here a line is formatted by its caller and handed to a
bounded buffer per descriptor (``LineQueue``) that one thread per process writes; when full, the
line is dropped and counted, and the count logged once the pipe moves again. Every record is
cleaned first (``Redactor``): keys redacted, control characters escaped, client text clipped.
"""

from __future__ import annotations

import atexit
import errno
import logging
import os
import re
import select
import sys
import threading
import time
import traceback
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from quart_bezique.server.gunicorn_internals import (
    AccessAtoms,
    GunicornLogger,
    is_gunicorns,
    mark_as_gunicorns,
)

CAPACITY: Final = 256 * 1024
"""Bytes of lines that may wait for one descriptor, per process; more are dropped."""
CHUNK: Final = select.PIPE_BUF
"""Most bytes joined into one write: up to this, a pipe shared by every process keeps it whole."""
EXIT_FLUSH_SECONDS: Final = 2.0
"""How long a stopping process waits for its lines to be written (no longer, if nobody reads)."""
RETRY_SECONDS: Final = 0.5
"""Pause after a write error that may pass (not EPIPE or EBADF), so the writer never spins."""
CLIP: Final = 200
"""Longest piece of client-supplied text kept in a message: a quoted span, an unbroken run, or a
formatting argument (a request line, a header in the access log)."""
MESSAGE_MAX: Final = 10 * CLIP
"""Longest message (the access log's line included), after the clipping above."""
REDACTED: Final = "[redacted]"
KEY_MIN_LENGTH: Final = 16
"""Shorter strings are never redacted as configured keys (``config.py`` refuses such keys)."""
_GONE: Final = frozenset((errno.EPIPE, errno.EBADF))

_NAME = r"[\w.%\-\[\]]"
_PARAMETER = re.compile(rf"(?<!{_NAME})({_NAME}++)=([^&;\s'\"#]+)")
"""A query (or form) parameter: its name, then its value."""
_SECRET_NAME = re.compile(r"key|token|secret|auth|passw|pwd|sig", re.IGNORECASE)
"""What a parameter whose value is redacted is named like (``sig`` covers ``signature``)."""
_CREDENTIALS = re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9\-._~+/%]+=*")
"""An ``Authorization`` value."""
_KEYISH = re.compile(rf"[A-Za-z0-9\-._~+/=%]{{{KEY_MIN_LENGTH},}}")
"""A run that may hold a key (RFC 6750's alphabet, ``%`` for percent-encoding): keys are only
looked for inside these."""
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""Characters that end a log line, rewrite a terminal, or reorder what a reader sees."""
_CONTROL_BUT_NEWLINE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_SPAN = re.compile(r"""'(?:[^'\\]|\\.)*+'|"(?:[^"\\]|\\.)*+"|\S+""")
"""A quoted span (as ``%r`` writes a request line) or a run without white space."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _redact_parameter(match: re.Match[str]) -> str:
    name = match.group(1)
    return f"{name}={REDACTED}" if _SECRET_NAME.search(name) else match.group()


def _clip_span(match: re.Match[str]) -> str:
    span = match.group()
    return span if len(span) <= CLIP else f"{span[:CLIP]} [+{len(span) - CLIP}]"


def _any_encoding(key: str) -> str:
    """A pattern for ``key`` with any of its characters written as is or percent-encoded."""
    return "".join(f"(?:{re.escape(char)}|%{ord(char):02x})" for char in key)


class Redactor:
    """Cleans text for the log: ``clean(text)``, for one message; ``clean_lines(text)``, for a
    traceback (its line breaks kept). ``keys``: the configured API keys, replaced wherever they
    appear (as written, or with characters percent-encoded; in any case, to be safe)."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        patterns = {_any_encoding(key) for key in keys if len(key) >= KEY_MIN_LENGTH}
        alternatives = "|".join(sorted(patterns, key=len, reverse=True))
        self._keys = re.compile(alternatives, re.IGNORECASE) if alternatives else None

    def redact(self, text: str) -> str:
        keys = self._keys
        if keys is not None:
            text = _KEYISH.sub(lambda run: keys.sub(REDACTED, run.group()), text)
        if "=" in text:
            text = _PARAMETER.sub(_redact_parameter, text)
        lowered = text.lower()
        if "bearer" in lowered or "basic" in lowered:
            text = _CREDENTIALS.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
        return text

    def clean(self, text: str, limit: int = MESSAGE_MAX) -> str:
        """Redacted, then escaped (one line), then clipped: every span at most ``CLIP``
        characters (and a marker), the whole at most ``limit``."""
        text = _CONTROL.sub(_escape, self.redact(text))
        if len(text) > limit:
            text = f"{text[:limit]} [+{len(text) - limit}]"
        return _SPAN.sub(_clip_span, text) if len(text) > CLIP else text

    def clean_lines(self, text: str) -> str:
        """As ``clean``, line by line (a traceback), at most ``MESSAGE_MAX`` per line."""
        lines = _CONTROL_BUT_NEWLINE.sub(_escape, self.redact(text)).split("\n")
        return "\n".join(self.clean(line) for line in lines)

    def argument(self, value: object) -> object:
        """A formatting argument: numbers as they are; anything else as clean text of at most
        ``CLIP`` characters (an argument is where request lines, paths and headers go)."""
        if value is None or isinstance(value, (bool, int, float)):
            return value
        return self.clean(value if isinstance(value, str) else str(value), CLIP)


class CleaningFilter(logging.Filter):
    """Applied by every handler the server writes through: replaces a record's message (and its
    traceback) by their clean text, once, before any handler formats it."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "quart_bezique_clean", False):
            return True
        redactor = self.redactor
        args = record.args
        try:
            if isinstance(args, CleanAtoms):
                pass  # the access log's atoms, cleaned as they are read
            elif isinstance(args, Mapping):
                record.args = _CleanMapping(args, redactor)
            elif isinstance(args, tuple):
                record.args = tuple(redactor.argument(arg) for arg in args)
            message = record.getMessage()
        except Exception:  # a bad format string: log what there is rather than fail the caller
            message = f"unformattable log message: {record.msg!r} % {record.args!r}"
        record.msg = redactor.clean(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if record.exc_text:
            record.exc_text = redactor.clean_lines(record.exc_text)
        if record.stack_info:
            record.stack_info = redactor.clean_lines(record.stack_info)
        setattr(record, "quart_bezique_clean", True)  # noqa: B010  # not a LogRecord field
        return True


class _CleanMapping(dict[str, object]):
    """A record's mapping arguments, each cleaned as ``%(name)s`` reads it."""

    def __init__(self, args: Mapping[str, object], redactor: Redactor) -> None:
        super().__init__(args)
        self.redactor = redactor

    def __getitem__(self, key: str) -> object:
        return self.redactor.argument(super().__getitem__(key))


class CleanAtoms(AccessAtoms):  # type: ignore[misc]
    """The access log's atoms (request line, headers, environ...), each cleaned when the format
    reads it: only the few the format names are cleaned, not every header and environ entry."""

    redactor = Redactor()

    def __getitem__(self, key: str) -> object:
        return self.redactor.argument(super().__getitem__(key))


# ---------------------------------------------------------------------------------- the writer


class LineQueue:
    """``put(line) -> bool``: never waits for the descriptor ``fd``; True when the line was taken,
    False when dropped (more than ``capacity`` bytes waiting, or ``fd`` gone). One writer thread
    per process writes the lines in order, whole, joined up to ``CHUNK`` bytes a write. After a
    write that follows drops, ``report(count)`` is called (on the writer thread)."""

    def __init__(self, fd: int, report: Callable[[int], None], *, capacity: int = CAPACITY) -> None:
        self.fd = fd
        self.report = report
        self.capacity = capacity
        self._reset()
        ref = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: _call(ref, LineQueue._reset))
        atexit.register(lambda: _call(ref, LineQueue._flush_at_exit))

    def _reset(self) -> None:
        """Empty, with fresh locks: at creation and in a forked child (the parent's lines are the
        parent's to write, and its writer thread does not exist here)."""
        self._lock = threading.RLock()  # the master logs from signal handlers, maybe inside put
        self._written = threading.Condition(self._lock)
        self._work = threading.Condition(self._lock)
        self._lines: deque[bytes] = deque()
        self._queued = 0
        self._gone = False
        self._pid = 0
        self.dropped = 0
        """Lines dropped in this process."""
        self._unreported = 0

    def put(self, line: bytes, *, report: bool = False) -> bool:
        """``report``: a drop report, taken even over capacity (it is the only trace of the lines
        it counts; at most one follows each write)."""
        if self._pid != os.getpid():
            self._start()
        with self._lock:
            if self._gone or (not report and self._queued + len(line) > self.capacity):
                self.dropped += 1
                self._unreported += 1
                return False
            self._lines.append(line)
            self._queued += len(line)
            self._work.notify()
            return True

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the lines taken so far to be written."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._queued and not self._gone:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._written.wait(left)
            return not self._queued and not self._gone

    def _flush_at_exit(self) -> None:
        if self._pid == os.getpid():
            self.flush(EXIT_FLUSH_SECONDS)

    def _start(self) -> None:
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
        name = f"log-writer-{self.fd}"
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._lines:
                    self._work.wait()
                chunk = [self._lines.popleft()]
                size = len(chunk[0])
                while self._lines and size + len(self._lines[0]) <= CHUNK:
                    chunk.append(self._lines.popleft())
                    size += len(chunk[-1])
            if not self._write(b"".join(chunk)):
                with self._lock:
                    self.dropped += len(chunk)  # taken, then lost with the descriptor
                return
            with self._lock:
                unreported, self._unreported = self._unreported, 0
            if unreported:  # logged before the buffer may look empty to ``flush``
                self.report(unreported)
            with self._lock:
                self._queued -= size
                self._written.notify_all()

    def _write(self, data: bytes) -> bool:
        """Write all of ``data``; False once ``fd`` is gone (every later line is dropped)."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.fd, view) :]
            except BlockingIOError:  # inherited in non-blocking mode: wait until writable
                writable = select.poll()
                writable.register(self.fd, select.POLLOUT)
                writable.poll(RETRY_SECONDS * 1000)
            except OSError as error:
                if error.errno not in _GONE:
                    time.sleep(RETRY_SECONDS)
                    continue
                with self._lock:
                    self._gone = True
                    self.dropped += len(self._lines)
                    self._lines.clear()
                    self._queued = 0
                    self._written.notify_all()
                return False
        return True


def _call(ref: weakref.ref[LineQueue], method: Callable[[LineQueue], None]) -> None:
    queue = ref()
    if queue is not None:
        method(queue)


_queues: dict[int, LineQueue] = {}


_REPORT: Final = "quart_bezique_drop_report"
"""Marks a drop report's record (``QueueHandler`` never drops it)."""


def _report_drops(count: int) -> None:
    logging.getLogger("gunicorn.error").warning(
        "%d log lines dropped: the log's reader did not keep up", count, extra={_REPORT: True}
    )


def queue_for(fd: int) -> LineQueue:
    """The one queue of descriptor ``fd`` (1, 2) in this process, shared by every logger."""
    queue = _queues.get(fd)
    if queue is None:
        queue = _queues[fd] = LineQueue(fd, _report_drops)
    return queue


class QueueHandler(logging.Handler):
    """Formats a record in the caller's thread and hands the line to ``queue``: never blocks."""

    def __init__(self, queue: LineQueue) -> None:
        super().__init__()
        self.queue = queue

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record).encode("utf-8", "backslashreplace") + b"\n"
        except Exception:  # never write to stderr from here (``handleError`` would)
            self.queue.dropped += 1
            return
        self.queue.put(line, report=getattr(record, _REPORT, False))


# ---------------------------------------------------------------------------------- the logger


def configured_keys(environ: Mapping[str, str]) -> list[str]:
    """The API keys the service is configured with (``API_KEYS``, ``API_KEYS_FILE``), to redact.
    A file that cannot be read gives none: the service refuses to start in that case anyway."""
    keys = [key.strip() for key in environ.get("API_KEYS", "").split(",")]
    path = environ.get("API_KEYS_FILE", "").strip()
    if path:
        try:
            with open(path, encoding="utf-8") as file:
                keys += [line.strip() for line in file.read(1024 * 1024).splitlines()]
        except (OSError, UnicodeDecodeError):
            pass
    return [key for key in keys if key and not key.startswith("#")]


class ServerLogger(GunicornLogger):  # type: ignore[misc]
    """gunicorn's ``logger_class``: its handlers for ``-`` (stderr, and stdout for the access
    log) become ``QueueHandler``s, the app's loggers (the root logger) write through one too, and
    every handler cleans each record. Files and syslog keep gunicorn's own handlers, cleaned."""

    atoms_wrapper_class = CleanAtoms
    _ROOT_MARK = "quart_bezique_root"

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        redactor = Redactor(configured_keys(os.environ))
        CleanAtoms.redactor = redactor
        cleaning = CleaningFilter(redactor)
        for log in (self.error_log, self.access_log):
            for handler in list(log.handlers):
                if not is_gunicorns(handler):
                    continue
                replacement = _queued(handler)
                if replacement is not None:
                    log.removeHandler(handler)
                    log.addHandler(replacement)
                    handler = replacement
                handler.addFilter(cleaning)
        root = logging.getLogger()
        for handler in list(root.handlers):
            if getattr(handler, self._ROOT_MARK, False):
                root.removeHandler(handler)
        if not cfg.logconfig_dict and not cfg.logconfig_json and not cfg.logconfig:
            handler = QueueHandler(queue_for(2))
            handler.setFormatter(logging.Formatter(self.error_fmt, self.datefmt))
            handler.addFilter(cleaning)
            setattr(handler, self._ROOT_MARK, True)
            root.addHandler(handler)
            logging.captureWarnings(True)


def _queued(handler: logging.Handler) -> QueueHandler | None:
    """A ``QueueHandler`` in place of gunicorn's handler of ``-`` (a stream on stdout/stderr)."""
    if type(handler) is not logging.StreamHandler:
        return None
    try:
        fd = (handler.stream if handler.stream is not None else sys.stderr).fileno()
    except (AttributeError, OSError, ValueError):
        return None
    replacement = QueueHandler(queue_for(fd))
    replacement.setFormatter(handler.formatter)
    mark_as_gunicorns(replacement)  # replaced on the next setup
    return replacement

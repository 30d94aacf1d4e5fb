"""The streaming road: a JSON Lines body read a piece at a time, and an answer written as it goes.

A platform piping a file of records wants each verdict as soon as its record is judged, and the
service must hold neither the whole file nor all the answers to give them. ``BodyLines`` reads
the body in bounded pieces (its digest taken as it passes); ``Streamed``, the WSGI iterable,
judges a line only when the server asks for more of the answer. The audit line cannot precede
the answer (its counts and digests are not known yet): it is written at the end, before the
summary line, and a run whose line the sink refuses gets no summary (docs/reconcile-http.md).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import orjson
from werkzeug.exceptions import ClientDisconnected
from werkzeug.wsgi import get_input_stream

from quart_bezique.api.contract.i18n import N_
from quart_bezique.api.contract.problems import (
    HTTP_ERROR,
    REQUEST_TIMEOUT,
    UNSUPPORTED_MEDIA_TYPE,
    Problem,
    quoting,
)
from quart_bezique.api.contract.reading import too_large
from quart_bezique.api.envelope.exchange import Exchange

StreamAnswer = tuple[str, list[tuple[str, str]], "Iterable[bytes]"]
"""A WSGI status line, headers and body: a ``Streamed`` body, or a refusal's one piece."""
StreamRoad = Callable[[dict[str, Any], Exchange], StreamAnswer]
"""A streaming endpoint's road (``RouteDeclaration.stream``): called with the request's environ
and exchange, it answers at once; a ``Streamed`` body is judged as the server iterates it."""

log = logging.getLogger("quart_bezique.api")

NDJSON: Final = "application/x-ndjson"
"""The answer's media type, and the first the request may be sent as."""
LINES_MEDIA: Final = (NDJSON, "application/jsonl")
"""The media types a body of JSON Lines may be sent as."""
STREAM_HEADERS: Final = (
    ("Cache-Control", "no-store"),
    ("Content-Type", NDJSON),
    ("X-Accel-Buffering", "no"),  # a proxy (ingress-nginx) passes each line on, not the whole
)
_LINE_END: Final = b"\n"
PIECE_BYTES: Final = 64 * 1024
EAGER_BYTES: Final = 64 * 1024
"""A body declared this long or shorter is read when the answer starts, not as it streams: the
head-first worker discards, between the app's return and the answer, what is left unread of a
body that small (``server/settle.py``, keep-alive honesty), and holds it whole already."""
"""Bytes read from the body at once: a stock worker's read waits for them (or the body's end),
so a line is judged at most this many bytes after it arrives."""


def _nothing() -> None:
    return None


def _taken() -> bool:
    return True


@dataclass(slots=True)
class Hooks:
    """What the envelope lends a stream once the answer has started (``middleware``)."""

    arm: Callable[[], None] = _nothing
    """Give the body another ``BODY_READ_TIMEOUT`` (before each line; nothing under the
    head-first worker, which has the whole body before the app reads it)."""
    disarm: Callable[[], None] = _nothing
    """The body is read: no deadline any more."""
    audit: Callable[[], bool] = _taken
    """Write the request's audit line and metrics from the exchange; False: the sink refused it."""


def media_problem(environ: dict[str, Any]) -> Problem | None:
    """A 415 for a body not sent as JSON Lines; None when it is."""
    media = environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower()
    if media in LINES_MEDIA:
        return None
    if media:
        detail = N_("the body must be sent as {expected}; it was sent as {media}")
    else:
        detail = N_("the body must be sent as {expected}; no Content-Type header was sent")
    return Problem(
        UNSUPPORTED_MEDIA_TYPE,
        quoting(detail, {"expected": NDJSON, "media": media}),
        headers={"Accept-Post": ", ".join(LINES_MEDIA)},
    )


def declared_excess(environ: dict[str, Any], max_bytes: int) -> Problem | None:
    """A 413 for a ``Content-Length`` over ``max_bytes``: refused from the head, never read (the
    head-first worker hands such a request over without its body)."""
    length: str = environ.get("CONTENT_LENGTH", "") or ""
    if length.isascii() and length.isdigit() and int(length) > max_bytes:
        return too_large(max_bytes)
    return None


class BodyLines:
    """The body's lines, numbered from 1, read in pieces and given one at a time: a line longer
    than ``max_line`` bytes is given as None and read past (never held whole); blank lines are
    counted, not given. Reading stops at ``max_bytes`` (one byte more tells a longer body), at
    the body deadline, or at a framing the server cannot read: ``stopped`` then holds the
    problem, which the stream reports as its last error line."""

    __slots__ = ("_exchange", "_hooks", "_sha", "_stream", "declared", "eager", "max_bytes",
                 "max_line", "received", "stopped")  # fmt: skip

    def __init__(
        self,
        environ: dict[str, Any],
        exchange: Exchange,
        hooks: Hooks,
        *,
        max_bytes: int,
        max_line: int,
    ) -> None:
        self._stream = get_input_stream(environ, max_content_length=None)
        self._exchange = exchange
        self._hooks = hooks
        self._sha = hashlib.sha256()
        self.max_bytes = max_bytes
        self.max_line = max_line
        self.received = 0
        self.stopped: Problem | None = None
        length: str = environ.get("CONTENT_LENGTH", "") or ""
        self.declared = int(length) if length.isascii() and length.isdigit() else None
        self.eager = b""
        if self.declared is not None and self.declared <= EAGER_BYTES:
            self.eager = self._piece()

    @property
    def sha256(self) -> str:
        """The digest of the body's bytes read so far (all of them once it is read)."""
        return self._sha.hexdigest()

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        number = 0
        held = bytearray(self.eager)
        self.eager = b""
        skipping = False  # inside a line too long, already given as None
        while True:
            end = held.find(_LINE_END)
            if end >= 0:
                line = bytes(held[: end + 1])
                del held[: end + 1]
                if skipping:
                    skipping = False
                    continue
                number += 1
                if len(line) - 1 > self.max_line:
                    yield number, None
                elif line.strip():
                    yield number, line
                continue
            if len(held) > self.max_line:
                if not skipping:
                    number += 1
                    skipping = True
                    yield number, None
                held.clear()
            piece = self._piece()
            if not piece:
                break
            held += piece
        if held.strip() and not skipping and self.stopped is None:  # a last line, unended
            number += 1
            yield number, None if len(held) > self.max_line else bytes(held)
        self._exchange.received = True
        self._hooks.disarm()

    def _piece(self) -> bytes:
        """The next bytes of the body (up to ``PIECE_BYTES``); b"" at its end or when reading
        must stop (``stopped`` says why). Read in pieces, not lines: gunicorn's ``readline``
        reads a few bytes at a time, each read copying the rest of a body it holds whole."""
        if self.stopped is not None:
            return b""
        room = self.max_bytes - self.received
        self._hooks.arm()
        try:
            piece: bytes = self._stream.read(min(PIECE_BYTES, room + 1))
        except ClientDisconnected:
            piece = b""
        except (
            Exception
        ):  # the server's reader refused the framing (a chunk size that is no number)
            log.info("request %s: the body's framing is unreadable", self._exchange.request_id)
            self.stopped = Problem(
                HTTP_ERROR,
                N_("the body could not be read: its chunked transfer coding is malformed"),
                status=400,
                title=N_("Bad Request"),
            )
            return b""
        if len(piece) > room:
            self.stopped = too_large(self.max_bytes)
            piece = piece[:room]
        self.received += len(piece)
        self._sha.update(piece)
        if not piece and self.stopped is None:
            self._ended()
        return piece

    def _ended(self) -> None:
        """The stream gave no more: the body's end, or the deadline, or a body cut short."""
        if self._exchange.timed_out:
            self.stopped = Problem(REQUEST_TIMEOUT, N_("the body did not arrive in time"))
        elif self.declared is not None and self.received < self.declared:
            self.stopped = Problem(
                HTTP_ERROR,
                N_("the body ended after {received} of the {declared} bytes its Content-Length "
                   "declares").format(received=self.received, declared=self.declared),
                status=400,
                title=N_("Bad Request"),
            )  # fmt: skip


@dataclass(slots=True)
class Ending:
    """What a stream says when its lines are done: the summary line's payload, the audit
    line's ``verdict``, hands scored (the metrics)."""

    summary: dict[str, Any]
    verdict: dict[str, Any]
    hands: int = 0


@dataclass(slots=True)
class Streamed:
    """A streaming answer: the WSGI iterable the envelope returns. ``lines`` makes the
    records' lines (reading the body through ``hooks``, which the envelope fills); ``ending`` is
    asked at the end, or when the stream is closed before its end (``complete`` False: the
    client went away).

    Its facts go to the exchange before the audit line: ``body_sha256`` the body's bytes,
    ``response_sha256`` every line before the summary (the summary line names both)."""

    exchange: Exchange
    lines: Callable[[], Iterator[bytes]]
    ending: Callable[[bool], Ending]
    unaudited: Callable[[], bytes]
    """The last line when the audit sink refuses the run's line (instead of the summary)."""
    body_sha256: Callable[[], str]
    hooks: Hooks = field(default_factory=Hooks)
    _audited: bool = False
    _running: Iterator[bytes] | None = None
    _sha: Any = field(default_factory=hashlib.sha256)

    def bind(self, hooks: Hooks) -> None:
        """Take the envelope's hooks (into the one ``Hooks`` the body's reader holds too)."""
        self.hooks.arm, self.hooks.disarm, self.hooks.audit = hooks.arm, hooks.disarm, hooks.audit

    def __iter__(self) -> Iterator[bytes]:
        self._running = self.lines()
        for line in self._running:
            self._sha.update(line)
            yield line
        self.exchange.response_digest = self._sha.hexdigest()
        ending = self.ending(True)
        if self._audit(ending):
            yield orjson.dumps({"summary": ending.summary}) + _LINE_END
        else:
            yield self.unaudited()

    def close(self) -> None:
        """Called by the server after the last piece, or when it stops early: a stream cut
        before its end is audited with what was done (``complete`` False)."""
        if self._running is not None:
            close = getattr(self._running, "close", None)
            if close is not None:
                close()
        if not self._audited:
            self.exchange.response_digest = self._sha.hexdigest()
            self._audit(self.ending(False))

    def _audit(self, ending: Ending) -> bool:
        self._audited = True
        ex = self.exchange
        ex.judged = True
        ex.hands = ending.hands
        ex.body_digest = self.body_sha256()
        if ex.audit:
            ex.summary = ending.verdict
        try:
            return self.hooks.audit()
        except Exception:
            log.exception("could not record request %s", ex.request_id)
            return False

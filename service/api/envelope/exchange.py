"""What one request leaves behind for its audit record and metrics, gathered as it is served.

The WSGI wrapper (``middleware.py``) opens an ``Exchange`` per request and makes it current for the
thread serving it; the request's two ends (``body.read_json`` and ``body.json_response``) and the
problem renderer drop what they already hold into it (parsed body, its key-sorted serialisation,
the problem code). Nothing is copied on the request path.

A verdict is settled in ``answered``, called by ``http.json_response`` while the view still runs:
the body's digest, the summary and the hands count are taken there, and the exchange lets go of
the parsed body at once. Keeping a 10,000-hand body alive past the view would hand its 20,000
containers to the garbage collector (which the batch view pauses while it builds them): the first
allocation after the view would then walk them all, for nothing.

A thread-local is the cheapest handle there is (one attribute lookup, where Flask's ``request``
proxy resolves a context variable on every access) and it is exact here: gunicorn's gthread
worker and Flask's test client serve each request start to finish on one thread. This module
imports only ``audit`` (which imports nothing from the package), so every module can use it
without an import cycle.
"""

from __future__ import annotations

import threading
from typing import Any

from service.api.envelope import audit

local = threading.local()
"""``local.exchange``: the current request's ``Exchange`` (set and cleared by ``middleware``)."""


class Exchange:
    """One request's facts, filled in as they become known (``None`` until then)."""

    __slots__ = (
        "audit",
        "body",
        "body_digest",
        "code",
        "hands",
        "judged",
        "key_id",
        "kind",
        "raw",
        "reason",
        "receipt",
        "received",
        "request_id",
        "residue",
        "response_digest",
        "sorted_body",
        "status",
        "summary",
        "timed_out",
    )

    def __init__(self, request_id: str, kind: audit.Kind, audit_log: bool) -> None:
        self.request_id = request_id
        self.kind = kind
        """How this route's bodies are canonicalised and its answers summarised."""
        self.audit = audit_log
        """Whether digests and summaries are wanted, for the audit line or a receipt (the metrics
        always are)."""
        self.status: str | None = None
        """The WSGI status line, as passed to ``start_response``."""
        self.body: Any = None
        """The parsed JSON body (``None``: not read, not JSON, or let go once answered)."""
        self.sorted_body: bytes | None = None
        """The parsed body serialised with sorted keys (canonical unless a card alias is used)."""
        self.residue: bytes | None = None
        """``sorted_body`` minus the bytes canonical card codes are made of (batches only)."""
        self.raw: bytes | None = None
        """The raw body, kept only when it was not JSON (its digest is then of these bytes)."""
        self.code: str | None = None
        """The problem code of a refusal."""
        self.key_id: str | None = None
        """Which API key authenticated the request (a digest prefix, never the key)."""
        self.judged = False
        """A verdict was answered (``answered`` ran)."""
        self.body_digest: str | None = None
        self.response_digest: str | None = None
        self.summary: dict[str, Any] | None = None
        self.hands = 0
        """Hands scored by the answer (for the metrics)."""
        self.reason: str | None = None
        """A betting verdict's reason label (for the metrics)."""
        self.received = False
        """The whole body has been read (``http.read_json``): no deadline applies any more."""
        self.timed_out = False
        """The body did not arrive in time (``deadline.py`` cut the connection's read side)."""
        self.receipt: str | None = None
        """The verdict's signed receipt, when a signing key is configured."""

    def reset(self) -> None:
        """Forget what reading and answering left behind, keeping who asked (id, kind, key, status,
        deadline flags): a declined pre-dispatch hands the request to Flask as if fresh."""
        self.body = self.sorted_body = self.residue = self.raw = None
        self.received = self.judged = False
        self.hands = 0
        self.reason = None
        self.summary = None
        self.body_digest = self.response_digest = None

    def answered(self, payload: Any, data: bytes) -> None:
        """Settle the verdict's audit facts from the payload and its bytes, then let go of the
        parsed body (see the module docstring)."""
        kind = self.kind
        self.judged = True
        self.hands = audit.hands_scored(kind, self.body, payload)
        if kind.betting:
            self.reason = audit.betting_reason(payload)
        if self.audit:
            self.response_digest = audit.sha256(data)
            self.summary = audit.summary(kind, self.body, payload)
            if self.sorted_body is not None:
                self.body_digest = audit.body_digest(
                    kind, self.body, self.sorted_body, self.residue, True
                )
        self.body = self.sorted_body = self.residue = None


def current() -> Exchange | None:
    """The exchange of the request this thread is serving, if any (none outside the wrapper)."""
    found: Exchange | None = getattr(local, "exchange", None)
    return found

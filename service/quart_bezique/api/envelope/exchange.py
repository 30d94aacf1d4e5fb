"""What one request leaves behind for its audit record and metrics, gathered as it is served.

The WSGI wrapper (``middleware.py``) opens an ``Exchange`` per request and makes it current for the
thread serving it; the JSON road (``road.py``) and the problem renderer write what they learn into
it. A thread-local is exact here: gunicorn's threads and Flask's test client serve each request
start to finish on one thread.
"""

from __future__ import annotations

import threading
from typing import Any

from quart_bezique.api.envelope import audit

local = threading.local()
"""``local.exchange``: the current request's ``Exchange`` (set and cleared by ``middleware``)."""


class Exchange:
    """One request's facts, filled in as they become known (``None`` until then)."""

    __slots__ = (
        "audit",
        "body_digest",
        "code",
        "hands",
        "judged",
        "key_id",
        "kind",
        "reason",
        "receipt",
        "received",
        "request_id",
        "response_digest",
        "ruleset",
        "ruleset_sha256",
        "status",
        "summary",
        "timed_out",
    )

    def __init__(self, request_id: str, kind: audit.Kind, audit_log: bool) -> None:
        self.request_id = request_id
        self.kind = kind
        """How this route's answers are summarised."""
        self.audit = audit_log
        """Whether digests and summaries are wanted, for the audit line or a receipt (the metrics
        always are)."""
        self.status: str | None = None
        """The WSGI status line, as passed to ``start_response``."""
        self.body_digest: str | None = None
        """The request body's digest: of its canonical form when it is JSON, else of its bytes."""
        self.code: str | None = None
        """The problem code of a refusal."""
        self.key_id: str | None = None
        """Which API key authenticated the request (a digest prefix, never the key)."""
        self.judged = False
        """A verdict was answered (``answered`` ran)."""
        self.response_digest: str | None = None
        self.summary: dict[str, Any] | None = None
        self.hands = 0
        """Hands scored by the answer (for the metrics)."""
        self.reason: str | None = None
        """A betting verdict's reason label (for the metrics)."""
        self.received = False
        """The whole body has been read: no deadline applies any more."""
        self.timed_out = False
        """The body did not arrive in time (``deadline.py`` cut the connection's read side)."""
        self.receipt: str | None = None
        """The verdict's signed receipt, when a signing key is configured."""
        self.ruleset: str | None = None
        """The id of the ruleset the verdict followed, as its answer names it (docs/rules.md
        §13.6): the audit line and the receipt name the same one."""
        self.ruleset_sha256: str | None = None
        """Its digest, when the answer carries it (the request named a ruleset)."""

    def answered(self, payload: Any, data: bytes) -> None:
        """Settle the verdict's audit facts from the payload and its bytes."""
        kind = self.kind
        self.judged = True
        self.hands = audit.hands_scored(kind, payload)
        if type(payload) is dict:  # a verdict's rendering: its ids are strings when present
            self.ruleset = payload.get("ruleset")
            self.ruleset_sha256 = payload.get("ruleset_sha256")
        if kind.betting:
            self.reason = audit.betting_reason(payload)
        if self.audit:
            self.response_digest = audit.sha256(data)
            self.summary = audit.summary(kind, payload)


def current() -> Exchange | None:
    """The exchange of the request this thread is serving, if any (none outside the wrapper)."""
    found: Exchange | None = getattr(local, "exchange", None)
    return found

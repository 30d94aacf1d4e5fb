"""The one road of a JSON verdict request: read once, parse once, check once, judge once.

The envelope (``middleware.py``) hands every ``POST`` on a JSON endpoint to its ``Road``, never to
Flask. The body is read once (``body.read``), its values bounded once (``budget.refuse_excess``,
before any decoder sees it) and parsed once (``body.parse``); the endpoint's derived check looks
at the parsed object and, only when it refuses, the schema explains the refusal on that same
object (a 422 naming each field). The rules core runs once, on the accepted body. A
problem becomes the answer here, in the client's language; nothing is put back for a second reader.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson
from marshmallow import Schema

from quart_bezique.api.contract.checks import Check
from quart_bezique.api.contract.i18n import ENGLISH, N_, negotiate
from quart_bezique.api.contract.i18n.translations import localize
from quart_bezique.api.contract.problems import INTERNAL_ERROR, Problem
from quart_bezique.api.contract.reading import load
from quart_bezique.api.envelope import body
from quart_bezique.api.envelope.audit import PLAIN
from quart_bezique.api.envelope.budget import refuse_excess
from quart_bezique.api.envelope.collector import CollectorPause
from quart_bezique.api.envelope.exchange import Exchange
from quart_bezique.wire.canonical import Form, digest, sha256, spelled_canonically

log = logging.getLogger("quart_bezique.api")

JSON_HEADERS: Final = (("Cache-Control", "no-store"), ("Content-Type", body.JSON_MEDIA_TYPE))
"""A verdict's headers before its length: JSON, never cached (each is about one request)."""
_INTERNAL: Final = Problem(INTERNAL_ERROR, N_("the server could not answer; the error is logged"))
Answer = tuple[str, list[tuple[str, str]], bytes]
"""A WSGI status line, headers and body."""


@dataclass(frozen=True, slots=True)
class Judged:
    """A verdict's payload."""

    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Typed:
    """A body a typed decoder accepted: its verdict and its canonical text."""

    judged: Judged
    text: bytes
    """The body's canonical form, serialised (its digest is the request digest)."""


@dataclass(frozen=True, slots=True)
class Handler:
    """What a JSON endpoint gives its road."""

    schema: Schema
    """The request's validator: it explains every refusal (and loads bodies when ``check`` is
    None)."""
    check: Check | None
    """The schema's derived check, or None when every body goes through the schema."""
    judge: Callable[[Any], Judged] | None
    """The verdict on an accepted body; raises a ``Problem`` (the core's refusal, anchored in the
    body). None when ``typed`` judges every body the schema accepts."""
    pause_collector: bool = False
    """Hold the garbage collector off while the body is parsed and judged (large bodies)."""
    typed: Callable[[bytes], Typed | None] | None = None
    """A typed decoder derived from the contract: decodes, checks and judges an accepted body in
    one pass over its bytes; None for any other body, which is then parsed for the schema to
    explain (a typed decoder keeps nothing of a body it refuses)."""


class Road:
    """One JSON endpoint's road, built once per app."""

    __slots__ = ("_budget", "_form", "_handler", "_max_body")

    def __init__(self, handler: Handler, form: Form, *, max_body: int, budget: int) -> None:
        self._handler = handler
        self._form = form
        self._max_body = max_body
        self._budget = budget

    def __call__(self, environ: dict[str, Any], exchange: Exchange) -> Answer:
        try:
            data = body.read(environ, exchange, self._max_body)
        except Problem as problem:
            return _refused(problem, exchange, environ)
        pause = CollectorPause() if self._handler.pause_collector else None
        try:
            return self._answer(data, exchange, environ)
        finally:
            if pause is not None:
                pause.end()

    def _answer(self, data: bytes, exchange: Exchange, environ: dict[str, Any] | None) -> Answer:
        typed = self._handler.typed
        try:
            refuse_excess(data, self._budget)  # once, before either decoder sees the body
            if typed is not None:
                found = typed(data)
                if found is not None:
                    return self._typed(found, exchange)
            parsed, sorted_text = body.parse(data)
        except Problem as problem:
            if exchange.audit:  # not JSON: named by its bytes
                exchange.body_digest = sha256(data)
            return _refused(problem, exchange, environ)
        del data
        return self._respond(parsed, sorted_text, exchange, environ)

    def _respond(
        self, parsed: Any, sorted_text: bytes, exchange: Exchange, environ: dict[str, Any] | None
    ) -> Answer:
        try:
            judged = self.judge(parsed)
        except Problem as problem:
            if exchange.audit:
                exchange.body_digest = digest(self._form, parsed, sorted_text=sorted_text)
            return _refused(problem, exchange, environ)
        except Exception:
            log.exception("unhandled error on %s", exchange.request_id)
            return _refused(_INTERNAL, exchange, environ)

        def digest_of_body() -> str:
            canonical = spelled_canonically(self._form, parsed)
            return digest(self._form, parsed, sorted_text=sorted_text, canonical=canonical)

        return _ok(judged.payload, exchange, digest_of_body, environ)

    def _typed(self, found: Typed, exchange: Exchange) -> Answer:
        return _ok(found.judged.payload, exchange, lambda: sha256(found.text), None)

    def judge(self, parsed: Any) -> Judged:
        """Check once; explain only a refusal, on the same object; judge once."""
        handler = self._handler
        judge = handler.judge
        if judge is None:  # the typed decoder refused the body: the schema says why
            load(handler.schema, parsed)
            raise RuntimeError("the schema accepts a body its typed decoder refuses")
        check = handler.check
        if check is not None and check(parsed):
            return judge(parsed)
        return judge(load(handler.schema, parsed))

    def replay(self, request: Any, language: str = ENGLISH) -> tuple[int, bytes, bool]:
        """The status and exact body a direct ``POST`` of the parsed ``request`` gets when asked
        in ``language`` (it was parsed with an enclosing body: no key repeated, within every
        limit), under an exchange of its own that leaves no mark on the current request's audit
        record; and whether that body depends on the language (a sentence for people in it)."""
        exchange = Exchange("replay", PLAIN, audit_log=False)
        environ = {"HTTP_ACCEPT_LANGUAGE": language}
        status, headers, answer = self._answer(orjson.dumps(request), exchange, environ)
        spoken = any(name == "Content-Language" for name, _ in headers)
        return int(status[:3]), answer, spoken


def _ok(
    payload: Any,
    exchange: Exchange,
    digest_of_body: Callable[[], str],
    environ: dict[str, Any] | None,
) -> Answer:
    """The 200 answer of either road: the payload rendered, its audit facts settled (the body's
    digest, computed by ``digest_of_body`` only when the audit or a receipt wants it), its
    headers. A verdict holding a sentence for people (a betting sequence's reason) says it in the
    client's language, and its headers say which."""
    headers: tuple[tuple[str, str], ...] = JSON_HEADERS
    if environ is not None:
        language = negotiate(environ.get("HTTP_ACCEPT_LANGUAGE"))
        payload, spoken = localize(payload, language)
        if spoken:
            headers = (*JSON_HEADERS, ("Content-Language", language), ("Vary", "Accept-Language"))
    answer = orjson.dumps(payload)
    exchange.answered(payload, answer)
    if exchange.audit:
        exchange.body_digest = digest_of_body()
    return "200 OK", [*headers, ("Content-Length", str(len(answer)))], answer


def _refused(problem: Problem, exchange: Exchange, environ: dict[str, Any] | None) -> Answer:
    exchange.code = problem.code
    language = ENGLISH if environ is None else negotiate(environ.get("HTTP_ACCEPT_LANGUAGE"))
    return problem.prepared(language)

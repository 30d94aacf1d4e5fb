"""The envelope of every request: request id, API keys, security headers, audit line, metrics.

One WSGI wrapper around the Flask app rather than Flask hooks: it sees every answer (404s, 405s,
413s, the 401s it gives itself, errors), it starts timing before Flask does anything, and its work
is plain dictionary and list operations on the WSGI environ and header list. Per request it:

1. takes the client's ``X-Request-ID`` if sane, else makes one (``audit.request_id``);
2. on ``/v1`` with API keys configured, checks ``Authorization`` (``auth.py``) and answers a
   prepared 401 itself, without entering Flask; under gunicorn, gives a POST's body a deadline
   (``deadline.py``);
3. calls the app (or first the route's shortcut, if it has one: ``shortcut.JsonShortcut``, for
   the score and betting endpoints, answers the happy path byte for byte as the app would, or
   declines), appending to whatever headers it answers with ``X-Request-ID`` and the route's
   security headers: ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer`` on
   everything; the docs page and its assets get ``docs.DOCS_CSP`` (this origin only), every other
   answer ``Content-Security-Policy: default-src 'none'; frame-ancestors 'none'``, so that no
   answer can ever run as a page. ``Cache-Control: no-store`` is set by the verdicts and
   problems themselves (``http.json_response``, ``Problem.response``);
4. once the answer is ready (before it is sent), records the metrics and writes the audit line.
   A failure there is logged and counted, never turned into an error for the client, whose
   answer is already decided.

Routes are resolved by exact path against the table built from the app's URL map at start-up (the
docs assets by prefix), so the metrics' ``endpoint`` label can only take known values.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Any, Final

from flask import Flask

from . import audit, auth
from .audit import KINDS, PLAIN, Kind
from .deadline import BodyDeadlines
from .docs import DOCS_CSP
from .exchange import Exchange, local
from .problems import UNAUTHORIZED

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

    from .metrics import Metrics

Shortcut = Callable[["WSGIEnvironment", Exchange], "tuple[list[tuple[str, str]], bytes] | None"]
"""Given the environ and the exchange: the answer's headers and body, or None to call the app."""

log = logging.getLogger("service.api.audit")

UNMATCHED: Final = "unmatched"
DOCS_PAGE: Final = "/docs"
DOCS_ASSETS: Final = "/docs/static"
NOSNIFF: Final = ("X-Content-Type-Options", "nosniff")
API_CSP: Final = ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
REFERRER: Final = ("Referrer-Policy", "no-referrer")
API_HEADERS: Final = (NOSNIFF, API_CSP, REFERRER)
DOCS_HEADERS: Final = (NOSNIFF, ("Content-Security-Policy", DOCS_CSP), REFERRER)


@dataclass(frozen=True, slots=True)
class Route:
    """What the wrapper knows about a path before calling the app."""

    label: str
    kind: Kind
    headers: tuple[tuple[str, str], ...]
    protected: bool
    shortcut: Shortcut | None = None
    """Serves the route's happy path without entering the app (``shortcut.JsonShortcut``)."""


class Observer:
    """The WSGI wrapper (``app.wsgi_app``); ``sink`` receives each audit line (tests swap it)."""

    def __init__(
        self,
        app: WSGIApplication,
        routes: dict[str, Route],
        *,
        metrics: Metrics,
        keys: auth.ApiKeys | None,
        audit_log: bool,
        version: str,
        ruleset: str,
        sink: Callable[[bytes], None] | None = None,
        deadlines: BodyDeadlines | None = None,
    ) -> None:
        self.app = app
        self.deadlines = deadlines
        self.routes = routes
        self.metrics = metrics
        self.keys = keys
        self.audit_log = audit_log
        self.version = version
        self.ruleset = ruleset
        self.sink = sink if sink is not None else audit.fd_sink(1)
        self._docs_assets = Route(DOCS_ASSETS, PLAIN, DOCS_HEADERS, False)
        self._unmatched = Route(UNMATCHED, PLAIN, API_HEADERS, False)
        self._unmatched_v1 = Route(UNMATCHED, PLAIN, API_HEADERS, True)

    def route(self, path: str) -> Route:
        found = self.routes.get(path)
        if found is not None:
            return found
        if path.startswith(DOCS_ASSETS + "/"):
            return self._docs_assets
        return self._unmatched_v1 if auth.is_protected(path) else self._unmatched

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        started = perf_counter()
        path: str = environ.get("PATH_INFO", "")
        route = self.route(path)
        ex = Exchange(
            audit.request_id(environ.get("HTTP_X_REQUEST_ID")), route.kind, self.audit_log
        )
        extra = (*route.headers, (audit.REQUEST_ID_HEADER, ex.request_id))

        def respond(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], object]:
            ex.status = status
            headers.extend(extra)
            return start_response(status, headers, exc_info)

        local.exchange = ex
        deadlines = self.deadlines
        watched = (
            deadlines is not None
            and environ.get("REQUEST_METHOD") == "POST"
            and "gunicorn.socket" in environ
        )
        if watched:
            deadlines.watch(ex, environ["gunicorn.socket"])  # type: ignore[union-attr]
        try:
            if route.protected and self.keys is not None:
                ex.key_id, denial = self.keys.check(environ.get("HTTP_AUTHORIZATION"))
                if denial is not None:
                    ex.code = UNAUTHORIZED.code
                    respond(denial.status, list(denial.headers))
                    return [denial.body]
            shortcut = route.shortcut
            if shortcut is not None:
                answer = shortcut(environ, ex)
                if answer is not None:
                    headers, data = answer
                    respond("200 OK", headers)
                    return [data]
            return self.app(environ, respond)
        finally:
            local.exchange = None
            if watched:
                deadlines.forget(ex)  # type: ignore[union-attr]
            try:
                self._finish(ex, route, environ, path, perf_counter() - started)
            except Exception:  # the answer is decided: a broken log sink must not change it
                self.metrics.audit_failures.inc()
                log.exception("could not record request %s", ex.request_id)

    def _finish(
        self, ex: Exchange, route: Route, environ: WSGIEnvironment, path: str, seconds: float
    ) -> None:
        status = int(ex.status[:3]) if ex.status else 500
        judged = ex.judged and status == 200
        if judged:
            self.metrics.record(route.label, status, seconds, ex.hands, ex.reason)
        else:
            self.metrics.record(route.label, status, seconds)
        if not self.audit_log:
            return
        record: dict[str, Any] = {
            "ts": audit.now(),
            "request_id": ex.request_id,
            "method": environ.get("REQUEST_METHOD", ""),
            "endpoint": route.label,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "version": self.version,
            "ruleset": self.ruleset,
        }
        if route.label == UNMATCHED:
            record["path"] = path[: audit.MAX_PATH_LOGGED]
        if ex.key_id is not None:
            record["key_id"] = ex.key_id
        if ex.body_digest is not None:
            record["body_sha256"] = ex.body_digest
        elif ex.sorted_body is not None:  # refused after parsing: the same canonical form
            record["body_sha256"] = audit.body_digest(
                route.kind, ex.body, ex.sorted_body, ex.residue, False
            )
        elif ex.raw is not None:
            record["body_sha256"] = audit.sha256(ex.raw)
        if ex.response_digest is not None:
            record["response_sha256"] = ex.response_digest
        if judged and ex.summary is not None:
            record["verdict"] = ex.summary
        elif ex.code is not None:
            record["verdict"] = {"code": ex.code}
        self.sink(audit.line(record))


def install(
    app: Flask,
    *,
    metrics: Metrics,
    keys: auth.ApiKeys | None,
    audit_log: bool,
    version: str,
    ruleset: str,
    body_timeout: float | None = None,
    shortcuts: dict[str, Shortcut] | None = None,
) -> Observer:
    """Wrap ``app.wsgi_app``; call once every route is registered (the route table is built from
    the URL map, so a route added later would be labelled ``unmatched``)."""
    routes: dict[str, Route] = {}
    for rule in app.url_map.iter_rules():
        if rule.arguments:  # only the docs assets take arguments; matched by prefix instead
            continue
        path = rule.rule
        headers = DOCS_HEADERS if path == DOCS_PAGE else API_HEADERS
        routes[path] = Route(
            path,
            KINDS.get(path, PLAIN),
            headers,
            auth.is_protected(path),
            (shortcuts or {}).get(path),
        )
    observer = Observer(
        app.wsgi_app,
        routes,
        metrics=metrics,
        keys=keys,
        audit_log=audit_log,
        version=version,
        ruleset=ruleset,
        deadlines=BodyDeadlines(body_timeout) if body_timeout else None,
    )
    app.wsgi_app = observer  # type: ignore[method-assign]
    return observer

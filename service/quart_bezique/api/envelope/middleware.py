"""The envelope of every request: route, request id, API keys, security headers, audit, metrics.

One WSGI wrapper around the Flask app rather than Flask hooks, because it must see every answer
(404s, 405s, 413s, the 401s it gives itself, errors, the roads' verdicts), start timing before
Flask does anything, and hold each answer back until its audit line is taken: a verdict whose
line the sink refuses is never released (``503 AUDIT_UNAVAILABLE`` instead, docs/operations.md,
"The audit record"). Its work is plain dictionary and list operations on the environ and the
header list; ``Observer.__call__`` lists its steps. A ``HEAD`` answer never carries a body.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from time import perf_counter
from typing import TYPE_CHECKING, Any, Final

from flask import Flask

from quart_bezique.api.contract.i18n import LANGUAGES, N_, negotiate
from quart_bezique.api.contract.problems import AUDIT_UNAVAILABLE, UNAUTHORIZED, Problem
from quart_bezique.api.envelope import audit, auth
from quart_bezique.api.envelope.audit import PLAIN
from quart_bezique.api.envelope.cors import Cors
from quart_bezique.api.envelope.deadline import BodyDeadlines
from quart_bezique.api.envelope.exchange import Exchange, local
from quart_bezique.api.envelope.routes import RESOLUTION_KEY, Route, RouteDeclaration, Router
from quart_bezique.api.envelope.stream import Hooks, Streamed
from quart_bezique.receipts.header import RECEIPT_HEADER

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

    from quart_bezique.api.envelope.metrics import Metrics
    from quart_bezique.receipts import Signer

log = logging.getLogger("quart_bezique.api.audit")

MAX_METHOD_LOGGED: Final = 16
Sink = Callable[[bytes], "bool | None"]
"""Takes one audit line; ``False`` (or an exception) means it was not taken."""


_UNAUDITED_PROBLEM: Final = Problem(
    AUDIT_UNAVAILABLE,
    N_("the audit log is not keeping up: no verdict is given without its record; retry shortly"),
    headers={"Retry-After": "1"},
)
_UNAUDITED: Final = {language: _UNAUDITED_PROBLEM.prepared(language) for language in LANGUAGES}
"""The withheld verdict's 503, prepared once per served language."""


class _Held:
    """The status line and headers the app answered with, held until the audit line is taken."""

    __slots__ = ("exc_info", "headers", "status")

    def __init__(self) -> None:
        self.status = "500 Internal Server Error"
        self.headers: list[tuple[str, str]] = []
        self.exc_info: Any = None


def _no_write(data: bytes) -> None:  # pragma: no cover - Flask never uses the legacy write()
    raise RuntimeError("the envelope does not support the WSGI write() callable")


class Observer:
    """The WSGI wrapper (``app.wsgi_app``); ``sink`` receives each audit line (tests swap it)."""

    def __init__(
        self,
        app: WSGIApplication,
        router: Router,
        *,
        metrics: Metrics,
        keys: auth.ApiKeys | None,
        audit_log: bool,
        version: str,
        ruleset: str,
        sink: Sink,
        deadlines: BodyDeadlines | None = None,
        cors: Cors | None = None,
        signer: Signer | None = None,
    ) -> None:
        self.app = app
        self.cors = cors
        self.signer = signer
        self.digests = audit_log or signer is not None
        """Whether verdicts' digests are taken: for the audit line, the receipt, or both."""
        self.router = router
        self.deadlines = deadlines
        self.metrics = metrics
        self.keys = keys
        self.audit_log = audit_log
        self.version = version
        self.ruleset = ruleset
        self.sink = sink

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        """One request, in order:

        1. resolve the route once (``routes.Router``) and leave the resolution in the environ,
           where Flask dispatches on it: protection, the audit kind and label, the metrics
           label, the security headers, the road and the view all come from that one match;
        2. take the client's ``X-Request-ID`` if sane, else make one (``audit.request_id``);
        3. on a protected route (all of ``/v1``, and anything unmatched) with API keys
           configured, check ``Authorization`` (``auth.py``) and answer a prepared 401 without
           entering Flask; under gunicorn, give a POST's body a deadline (``deadline.py``);
        4. send a JSON endpoint's ``POST`` down its road (``road.py``), anything else to Flask,
           and hold back the status and headers, appending ``X-Request-ID``, the route's
           security headers (``routes.py``) and, for an allowed origin, the CORS headers
           (``cors.py``, which also answers a preflight here, before the key check);
        5. write the audit line, record the metrics, and only then release the answer: a
           verdict whose line the sink does not take is answered ``503 AUDIT_UNAVAILABLE``
           with ``Retry-After``, at once (the sink refuses within a bound, ``sink.py``); other
           answers (probes, refusals, the docs) are released even then, their lost lines
           counted."""
        started = perf_counter()
        resolution = self.router.resolve(environ)
        environ[RESOLUTION_KEY] = resolution
        route = resolution.route
        ex = Exchange(audit.request_id(environ.get("HTTP_X_REQUEST_ID")), route.kind, self.digests)
        held = _Held()

        def respond(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], object]:
            ex.status = held.status = status
            held.headers = headers
            held.exc_info = exc_info
            return _no_write

        local.exchange = ex
        deadlines = self.deadlines
        watched = (
            deadlines is not None
            and environ.get("REQUEST_METHOD") == "POST"
            and "gunicorn.socket" in environ
        )
        if watched:
            deadlines.watch(ex, environ["gunicorn.socket"])  # type: ignore[union-attr]
        body: Iterable[bytes] = ()
        try:
            body = self._answer(environ, route, ex, respond)
        finally:
            local.exchange = None
            if watched:
                deadlines.forget(ex)  # type: ignore[union-attr]
        if isinstance(body, Streamed):  # judged as the server reads it: audited at its end
            body.bind(self._hooks(ex, route, environ, started, watched))
        elif self.signer is not None and ex.judged and route.kind is not PLAIN:
            self._sign(ex, route, held)
        refused = not isinstance(body, Streamed) and not self._record(
            ex, route, environ, perf_counter() - started
        )
        if refused and ex.judged:
            _close(body)
            unaudited = _UNAUDITED[negotiate(environ.get("HTTP_ACCEPT_LANGUAGE"))]
            ex.status = held.status = unaudited[0]
            held.headers = list(unaudited[1])
            body = [unaudited[2]]
            self.metrics.record(route.label, 503, perf_counter() - started)
        held.headers.extend(route.headers)
        held.headers.append((audit.REQUEST_ID_HEADER, ex.request_id))
        if self.cors is not None and resolution.rule is not None and not _preflight(environ):
            origin = environ.get("HTTP_ORIGIN")
            if origin is not None and self.cors.allows(origin):
                held.headers.extend(self.cors.headers(origin))
        start_response(held.status, held.headers, held.exc_info)
        if environ.get("REQUEST_METHOD") == "HEAD":
            _close(body)
            return []
        return body

    def refuses_unread(self, method: str, path: str, authorization: str | None) -> bool:
        """Whether a request is refused from its head alone (no key, or a wrong one on a
        protected route): the server then never invites its body with ``100 Continue``."""
        if self.keys is None:
            return False
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "SERVER_NAME": "localhost",
            "SERVER_PORT": "80",
            "wsgi.url_scheme": "http",
        }
        if not self.router.resolve(environ).route.protected:
            return False
        return self.keys.check(authorization)[1] is not None

    def _hooks(
        self, ex: Exchange, route: Route, environ: WSGIEnvironment, started: float, watched: bool
    ) -> Hooks:
        """What a streaming answer needs of the envelope: its audit line at its end, and the
        body deadline armed again before each line it reads."""

        def audit() -> bool:
            return self._record(ex, route, environ, perf_counter() - started)

        hooks = Hooks(audit=audit)
        deadlines = self.deadlines
        if watched and deadlines is not None:
            sock = environ["gunicorn.socket"]
            hooks.arm = lambda: deadlines.watch(ex, sock)
            hooks.disarm = lambda: deadlines.forget(ex)
        return hooks

    def _sign(self, ex: Exchange, route: Route, held: _Held) -> None:
        """The verdict's receipt, in its header; its identifiers go to the audit line."""
        if ex.status is None or not ex.status.startswith("200"):
            return
        if ex.body_digest is None or ex.response_digest is None:  # pragma: no cover - always set
            raise RuntimeError(f"verdict {ex.request_id} has no digests to sign")
        receipt = self.signer.sign_digests(  # type: ignore[union-attr]
            route.label, ex.body_digest, ex.response_digest, ruleset=ex.ruleset
        )
        held.headers.append((RECEIPT_HEADER, receipt))
        ex.receipt = receipt

    def _answer(
        self,
        environ: WSGIEnvironment,
        route: Route,
        ex: Exchange,
        respond: Callable[..., Callable[[bytes], object]],
    ) -> Iterable[bytes]:
        cors = self.cors
        if cors is not None and _preflight(environ):
            rule = environ[RESOLUTION_KEY].rule
            if rule is not None:  # a preflight carries no key: answered before the check
                requested = environ["HTTP_ACCESS_CONTROL_REQUEST_METHOD"]
                origin = environ.get("HTTP_ORIGIN")
                respond("204 No Content", cors.preflight(origin, requested, rule.methods or ()))
                return []
        if route.protected and self.keys is not None:
            ex.key_id, denial = self.keys.check(environ.get("HTTP_AUTHORIZATION"))
            if denial is not None:
                ex.code = UNAUTHORIZED.code
                denial = denial.in_language(negotiate(environ.get("HTTP_ACCEPT_LANGUAGE")))
                respond(denial.status, list(denial.headers))
                return [denial.body]
        stream = route.stream
        if stream is not None and environ.get("REQUEST_METHOD") == "POST":
            status, headers, answer = stream(environ, ex)
            respond(status, headers)
            return answer
        road = route.road
        if road is not None and environ.get("REQUEST_METHOD") == "POST":
            status, headers, data = road(environ, ex)
            respond(status, headers)
            return [data]
        return self.app(environ, respond)

    def _record(self, ex: Exchange, route: Route, environ: WSGIEnvironment, seconds: float) -> bool:
        """Write the audit line, then the metrics (unless the verdict is withheld: the caller
        records its 503). Whether the audit line was taken (always true with the audit off)."""
        status = int(ex.status[:3]) if ex.status else 500
        judged = ex.judged and status == 200
        taken = True
        if self.audit_log:
            try:
                line = self._line(ex, route, environ, status, judged, seconds)
                taken = self.sink(line) is not False
            except Exception:  # a broken sink is a sink that did not take the line
                log.exception("could not record request %s", ex.request_id)
                taken = False
            if not taken:
                self.metrics.audit_failures.inc()
                if judged:
                    return False
        if judged:
            self.metrics.record(route.label, status, seconds, ex.hands, ex.reason)
        else:
            self.metrics.record(route.label, status, seconds)
        return taken

    def _line(
        self,
        ex: Exchange,
        route: Route,
        environ: WSGIEnvironment,
        status: int,
        judged: bool,
        seconds: float,
    ) -> bytes:
        record: dict[str, Any] = {
            "ts": audit.now(),
            "request_id": ex.request_id,
            "method": environ.get("REQUEST_METHOD", "")[:MAX_METHOD_LOGGED],
            "endpoint": route.label,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "version": self.version,
            "ruleset": ex.ruleset or self.ruleset,
        }
        if ex.ruleset_sha256 is not None:
            record["ruleset_sha256"] = ex.ruleset_sha256
        if not route.matched and ex.code != UNAUTHORIZED.code:
            # Never for a refused request: a key pasted into a URL must not reach the log.
            record["path"] = environ.get("PATH_INFO", "")[: audit.MAX_PATH_LOGGED]
        if ex.key_id is not None:
            record["key_id"] = ex.key_id
        if ex.receipt is not None:
            record["receipt"] = {
                "kid": self.signer.kid,  # type: ignore[union-attr]
                "sha256": audit.sha256(ex.receipt.encode("ascii")),
            }
        if ex.body_digest is not None:
            record["body_sha256"] = ex.body_digest
        if ex.response_digest is not None:
            record["response_sha256"] = ex.response_digest
        if judged and ex.summary is not None:
            record["verdict"] = ex.summary
        elif ex.code is not None:
            record["verdict"] = {"code": ex.code}
        return audit.line(record)


def _preflight(environ: WSGIEnvironment) -> bool:
    return (
        environ.get("REQUEST_METHOD") == "OPTIONS"
        and "HTTP_ACCESS_CONTROL_REQUEST_METHOD" in environ
    )


def _close(body: Iterable[bytes]) -> None:
    close = getattr(body, "close", None)
    if close is not None:
        close()


def install(
    app: Flask,
    *,
    sink: Sink,
    metrics: Metrics,
    keys: auth.ApiKeys | None,
    audit_log: bool,
    version: str,
    ruleset: str,
    body_timeout: float | None = None,
    declarations: Mapping[str, RouteDeclaration],
    cors_origins: tuple[str, ...] = (),
    signer: Signer | None = None,
) -> Observer:
    """Wrap ``app.wsgi_app``; call once every route is registered (the router is built from the
    URL map, so a route added later would be unmatched)."""
    observer = Observer(
        app.wsgi_app,
        Router(app.url_map, declarations),
        sink=sink,
        metrics=metrics,
        keys=keys,
        audit_log=audit_log,
        version=version,
        ruleset=ruleset,
        deadlines=BodyDeadlines(body_timeout) if body_timeout else None,
        cors=Cors(cors_origins) if cors_origins else None,
        signer=signer,
    )
    app.wsgi_app = observer  # type: ignore[method-assign]
    return observer

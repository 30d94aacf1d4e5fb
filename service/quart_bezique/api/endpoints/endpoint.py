"""The endpoint as the unit of change: one declarative record per route.

An endpoint module exports ``ENDPOINTS``, a tuple of ``Endpoint`` records, read by everything
else: ``create_app`` gives a JSON endpoint its road (``envelope.road``) and registers every other
view with Flask; the envelope takes the audit kind and page policy from them; the OpenAPI builder
documents each operation. A handler or view is built once per app from its ``Resources``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson
from flask import Blueprint, Flask, Response
from flask.typing import ResponseReturnValue

from quart_bezique.api.config import Config
from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.contract.schemas import RequestSchemas
from quart_bezique.api.envelope.audit import PLAIN, Kind
from quart_bezique.api.envelope.budget import value_budget
from quart_bezique.api.envelope.draining import is_draining
from quart_bezique.api.envelope.road import Handler, Road
from quart_bezique.api.envelope.routes import RouteDeclaration
from quart_bezique.api.envelope.stream import StreamRoad
from quart_bezique.integrity import Manifest
from quart_bezique.wire.canonical import form_of

if TYPE_CHECKING:
    from quart_bezique.api.envelope.metrics import Metrics
    from quart_bezique.receipts import Keyring

View = Callable[..., ResponseReturnValue]
ReadyCheck = tuple[Callable[[], bool], str]
"""A readiness condition and the detail ``/readyz`` gives while it is False."""


class Spec:
    """The OpenAPI document, built on first use and then kept: building it (apispec walking
    every schema) is the largest part of an app's start-up, and most workers never serve it.
    Built from the registered endpoints, which serve it, so it is handed its builder once they
    exist (``create_app``)."""

    def __init__(self) -> None:
        self._build: Callable[[], dict[str, Any]] | None = None
        self._lock = threading.Lock()
        self._document: dict[str, Any] | None = None
        self._yaml = b""
        self._json = b""

    def built_by(self, build: Callable[[], tuple[dict[str, Any], str]]) -> None:
        """``build`` returns the document and its YAML text."""

        def document() -> dict[str, Any]:
            found, text = build()
            self._yaml = text.encode("utf-8")
            self._json = orjson.dumps(found)
            return found

        self._build = document

    @property
    def document(self) -> dict[str, Any]:
        if self._document is None:
            with self._lock:
                if self._document is None:
                    if self._build is None:
                        raise RuntimeError("the OpenAPI document has no builder yet")
                    self._document = self._build()
        return self._document

    @property
    def yaml(self) -> bytes:
        self.document  # noqa: B018 - builds it on first use
        return self._yaml

    @property
    def json(self) -> bytes:
        self.document  # noqa: B018 - builds it on first use
        return self._json


@dataclass(frozen=True)
class Resources:
    """What the application prepared that a view factory may need."""

    config: Config
    schemas: RequestSchemas
    version: str = ""
    manifest: Manifest | None = None
    keyring: Keyring | None = None
    metrics: Metrics | None = None
    """None only in a partial app (a test serving a few endpoints without ``/metrics``)."""
    spec: Spec = field(default_factory=lambda: Spec())
    ready_checks: Sequence[ReadyCheck] = ()
    draining: Callable[[], bool] = is_draining
    """Whether this worker was asked to stop (``/readyz`` then says so); an example app never is."""
    roads: Callable[[str], Road] = field(default=lambda path: _no_road(path))
    """The road of a JSON endpoint by path (for re-adjudication), known once all are built."""


def _no_road(path: str) -> Road:
    raise RuntimeError(f"no road is built for {path} yet")


@dataclass(frozen=True)
class Endpoint:
    """One route: what it serves, by which dispatcher, and how it is documented and audited."""

    method: str
    path: str
    operation: Operation
    """Its OpenAPI operation; ``operation_id`` also names the route in Flask."""
    view: Callable[[Resources], View] | None = None
    """A Flask view (pages, documents, probes); None for a JSON endpoint."""
    handler: Callable[[Resources], Handler] | None = None
    """A JSON endpoint's handler: its ``POST`` goes down its road, never through Flask."""
    stream: Callable[[Resources], StreamRoad] | None = None
    """A streaming endpoint (JSON Lines in and out, ``envelope.stream``): its ``POST`` is
    served by the envelope as it is read, never by Flask."""
    audit: Kind = PLAIN
    """How its answers are summarised: a verdict kind makes it a verdict endpoint (signed
    receipts, ``Verdict-Receipt`` in the contract); ``PLAIN`` for everything else."""
    page_csp: str | None = None
    """An HTML page: the Content-Security-Policy of the page and of its assets."""
    assets: Path | None = None
    """A folder served under ``<path>/static/<file>`` (the page's scripts, styles, images)."""

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.view, self.handler, self.stream)) != 1:
            raise ValueError(f"{self.path}: give exactly one of a view, a handler and a stream")

    @property
    def name(self) -> str:
        return self.operation.operation_id

    @property
    def is_verdict(self) -> bool:
        return self.audit is not PLAIN

    def road(self, resources: Resources) -> Road | None:
        """A JSON endpoint's road, built from its handler (None for a Flask view)."""
        if self.handler is None:
            return None
        config = resources.config
        return Road(
            self.handler(resources),
            form_of(self.path),
            max_body=config.max_body_bytes,
            budget=value_budget(config),
        )

    def declaration(
        self, road: Road | None, resources: Resources | None = None
    ) -> RouteDeclaration:
        """What the envelope needs to know about this route (a stream's road is built from
        ``resources``)."""
        stream = None
        if self.stream is not None:
            if resources is None:
                raise ValueError(f"{self.path}: a stream's road needs the app's resources")
            stream = self.stream(resources)
        return RouteDeclaration(kind=self.audit, page_csp=self.page_csp, road=road, stream=stream)


def unique(endpoints: Sequence[Endpoint]) -> tuple[Endpoint, ...]:
    """The registry as given, refused if two records claim one route or one operation id."""
    routes: set[tuple[str, str]] = set()
    names: set[str] = set()
    for endpoint in endpoints:
        route = (endpoint.method, endpoint.path)
        if route in routes or endpoint.name in names:
            raise ValueError(f"{endpoint.method} {endpoint.path} ({endpoint.name}) declared twice")
        routes.add(route)
        names.add(endpoint.name)
    return tuple(endpoints)


def serve(app: Flask, endpoints: Sequence[Endpoint], resources: Resources) -> None:
    """Register each endpoint's route on ``app`` (named by its operation id), with its view if it
    has one (a JSON endpoint's rule only answers ``OPTIONS`` and refusals of other methods), and
    each page's assets under ``<path>/static/``."""
    for endpoint in endpoints:
        app.add_url_rule(
            endpoint.path,
            endpoint=endpoint.name,
            view_func=endpoint.view(resources) if endpoint.view is not None else None,
            methods=[endpoint.method],
        )
        if endpoint.assets is not None:
            app.register_blueprint(
                Blueprint(
                    endpoint.path.strip("/"),
                    __name__,
                    static_folder=str(endpoint.assets),
                    static_url_path=endpoint.path + ASSETS,
                )
            )


ASSETS: Final = "/static"
"""Where a page's assets are served, below the page's own path."""


def static_json(body: bytes, *, no_store: bool = False) -> Response:
    """A pre-serialised JSON document (rules, health, build); ``no_store`` for answers that may
    change (a probe's)."""
    headers = (("Cache-Control", "no-store"),) if no_store else None
    return Response(body, headers=headers, content_type="application/json")

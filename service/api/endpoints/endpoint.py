"""The endpoint as the unit of change: one declarative record per route.

An endpoint module exports ``ENDPOINTS``, a tuple of ``Endpoint`` records. Everything else reads
those records: ``create_app`` registers each view under its path and method, the envelope takes
the audit kind, the page policy and the pre-dispatch from them (through the route declarations
the app hands it, so the envelope never imports an endpoint), and the OpenAPI builder documents
each operation. Nothing about a route is written twice, so nothing about it can disagree.

A view is built by a factory from the app's ``Resources`` (its configuration, schemas, keys and
so on): work that can be done once per app is done in the factory, never per request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson
from flask import Blueprint, Flask
from flask.typing import ResponseReturnValue

from service.api.config import Config
from service.api.contract.operation import Operation
from service.api.contract.schemas import RequestSchemas
from service.api.envelope.audit import PLAIN, Kind
from service.api.envelope.routes import RouteDeclaration, Shortcut
from service.integrity import Manifest

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

    from service.api.envelope.metrics import Metrics
    from service.receipts import Keyring

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
    inner: Callable[[], WSGIApplication] = field(default=lambda: _no_app())
    """The Flask app inside the envelope (for re-adjudication), known once the envelope is on."""


def _no_app() -> WSGIApplication:
    raise RuntimeError("the envelope is not installed yet")


@dataclass(frozen=True)
class Endpoint:
    """One route: what it serves, how it is documented, audited and pre-dispatched."""

    method: str
    path: str
    operation: Operation
    """Its OpenAPI operation; ``operation_id`` also names the route in Flask."""
    view: Callable[[Resources], View]
    audit: Kind = PLAIN
    """How its body and answer are audited: a verdict kind makes it a verdict endpoint (signed
    receipts, ``Verdict-Receipt`` in the contract); ``PLAIN`` for everything else."""
    shortcut: Callable[[Resources], Shortcut] | None = None
    """Serves its happy path before Flask is entered (``fastpath.shortcut``), if it has one."""
    page_csp: str | None = None
    """An HTML page: the Content-Security-Policy of the page and of its assets."""
    assets: Path | None = None
    """A folder served under ``<path>/static/<file>`` (the page's scripts, styles, images)."""

    @property
    def name(self) -> str:
        return self.operation.operation_id

    @property
    def is_verdict(self) -> bool:
        return self.audit is not PLAIN

    def declaration(self, resources: Resources) -> RouteDeclaration:
        """What the envelope needs to know about this route."""
        return RouteDeclaration(
            kind=self.audit,
            page_csp=self.page_csp,
            shortcut=self.shortcut(resources) if self.shortcut is not None else None,
        )


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
    """Register each endpoint's view on ``app`` (named by its operation id), and each page's
    assets under ``<path>/static/``."""
    for endpoint in endpoints:
        app.add_url_rule(
            endpoint.path,
            endpoint=endpoint.name,
            view_func=endpoint.view(resources),
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

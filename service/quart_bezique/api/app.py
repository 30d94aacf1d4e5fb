"""The Flask application factory: ``create_app(config)``, where the layers are assembled.

The endpoints (``registry.ENDPOINTS``, one record per route) are assembled here: each JSON
endpoint gets its road, every other view is registered with Flask, and the envelope
(``envelope.middleware``, installed last, once every route exists) wraps the app, learning each
route's audit kind, page policy and road from the same records. Everything that can be done once
is done here, before gunicorn forks (``preload_app``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from flask import Flask

from quart_bezique.api import errors
from quart_bezique.api.config import Config, service_version
from quart_bezique.api.contract.i18n.translations import load_all
from quart_bezique.api.contract.schemas import RequestSchemas, request_schemas
from quart_bezique.api.endpoints.endpoint import Resources, Spec, serve
from quart_bezique.api.endpoints.health import AUDIT_LAGGING
from quart_bezique.api.envelope import metrics, middleware
from quart_bezique.api.envelope.auth import ApiKeys
from quart_bezique.api.envelope.flask_dispatch import ResolvedFlask
from quart_bezique.api.envelope.middleware import Sink
from quart_bezique.api.envelope.sink import AuditSink
from quart_bezique.api.registry import ENDPOINTS
from quart_bezique.game.messages import N_
from quart_bezique.game.odds import ensure_odds_tables
from quart_bezique.game.ruleset import RULESET
from quart_bezique.game.scoring import ensure_tables
from quart_bezique.integrity import Manifest, current_manifest
from quart_bezique.receipts import signer_from_env

if TYPE_CHECKING:
    from quart_bezique.api.envelope.road import Road
    from quart_bezique.receipts import Keyring, Signer

log = logging.getLogger("quart_bezique.api")

EXTENSION = "quart_bezique"
Signing: TypeAlias = "tuple[Signer, Keyring]"
"""The receipt signer and every key receipts verify with (``quart_bezique.receipts``)."""


def _manifest() -> Manifest | None:
    """The running build's manifest, or None when it cannot be computed (``/readyz`` then
    fails: a build that cannot say what it is must not take traffic)."""
    try:
        return current_manifest()
    except Exception:
        log.exception("the build manifest cannot be computed")
        return None


@dataclass(frozen=True)
class AppState:
    """What the factory prepared, for tests and tools (``app.extensions["quart_bezique"]``)."""

    config: Config
    schemas: RequestSchemas
    openapi: Spec
    observer: middleware.Observer
    """The per-request envelope: audit line, metrics, API keys, security headers."""

    @property
    def spec(self) -> dict[str, Any]:
        return self.openapi.document

    @property
    def spec_yaml(self) -> bytes:
        return self.openapi.yaml

    @property
    def spec_json(self) -> bytes:
        return self.openapi.json


def create_app(
    config: Config | None = None,
    *,
    audit_sink: Sink | None = None,
    signing: Signing | None = None,
) -> Flask:
    """Build the service. ``config`` defaults to the environment (``Config.from_env``), and so
    does ``signing`` then (``SIGNING_KEY_FILE``...: ``quart_bezique.receipts.signer_from_env``); an
    explicit ``config`` signs only with an explicit ``signing``. ``audit_sink`` receives each
    audit line (default: an ``AuditSink`` on stdout, whose readiness ``/readyz`` reports)."""
    if config is None:
        config = Config.from_env()
        signing = signer_from_env() if signing is None else signing
    if config.build_tables:
        ensure_tables()
        ensure_odds_tables()

    load_all()  # a missing or broken catalog stops the start, not a later answer
    app = ResolvedFlask("quart_bezique.api", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = config.max_body_bytes
    app.url_map.strict_slashes = True

    schemas = request_schemas(config)
    sink: Sink = AuditSink() if audit_sink is None else audit_sink
    ready_checks = [(sink.ready, AUDIT_LAGGING)] if isinstance(sink, AuditSink) else []
    manifest = _manifest()
    if manifest is None:
        ready_checks.append((lambda: False, N_("the build manifest cannot be computed")))
    version = service_version()
    roads: dict[str, Road] = {}
    app_metrics = metrics.Metrics(version, RULESET)
    resources = Resources(
        config=config,
        schemas=schemas,
        version=version,
        manifest=manifest,
        keyring=signing[1] if signing is not None else None,
        metrics=app_metrics,
        ready_checks=tuple(ready_checks),
        roads=roads.__getitem__,
    )
    for endpoint in ENDPOINTS:
        road = endpoint.road(resources)
        if road is not None:
            roads[endpoint.path] = road
    serve(app, ENDPOINTS, resources)
    errors.register(app, config)

    resources.spec.built_by(lambda: _openapi_document(app, schemas, manifest, version))
    observer = middleware.install(
        app,
        sink=sink,
        metrics=app_metrics,
        keys=ApiKeys(config.api_keys) if config.api_keys else None,
        audit_log=config.audit_log,
        version=version,
        ruleset=RULESET,
        body_timeout=config.body_read_timeout,
        cors_origins=config.cors_origins,
        signer=signing[0] if signing is not None else None,
        declarations={e.path: e.declaration(roads.get(e.path), resources) for e in ENDPOINTS},
    )
    app.extensions[EXTENSION] = AppState(config, schemas, resources.spec, observer)
    return app


def _openapi_document(
    app: Flask, schemas: RequestSchemas, manifest: Manifest | None, version: str
) -> tuple[dict[str, Any], str]:
    """The contract and its YAML text, its answer examples made by this app's own code
    (``openapi.answers``). Imported here, on first use: the builder and its libraries (apispec,
    PyYAML) are a good part of a worker's start-up and memory, and most workers never serve the
    document."""
    from quart_bezique.api import openapi

    answered = openapi.answers(ENDPOINTS, app, manifest, version)
    document = openapi.build_spec(ENDPOINTS, schemas, answered)
    return document, openapi.render_yaml(document)

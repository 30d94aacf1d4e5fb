"""The Flask application factory: ``create_app(config)``.

Plain Flask, no extension on the request path: each view reads the body (``http.read_json``),
checks it (``fastcheck``, falling back to the marshmallow schema to explain a refusal), calls the
core, and renders a dict with orjson. Everything that can be done once is done here: request
schemas built, scoring tables built (before gunicorn forks, with ``preload_app``), the OpenAPI
document and the rules document serialised.

Around the Flask app, one WSGI wrapper (``observe.py``, installed last, once every route exists)
gives every request its id, API-key check, security headers, metrics and audit line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson
from flask import Flask

from service.api import errors, openapi
from service.api.config import Config
from service.api.contract.schemas import RequestSchemas, request_schemas
from service.api.endpoints import (
    adjudicate,
    betting,
    docs,
    hands,
    index,
    odds,
    rounds,
    showdown,
    verdicts,
)
from service.api.endpoints import health as meta
from service.api.envelope import metrics
from service.api.envelope import middleware as observe
from service.api.envelope.auth import ApiKeys
from service.api.envelope.middleware import Sink
from service.api.envelope.routes import ResolvedFlask
from service.api.envelope.sink import AuditSink
from service.game.odds import ensure_odds_tables
from service.game.ruleset import RULESET
from service.game.scoring import ensure_tables
from service.integrity import Manifest, current_manifest
from service.receipts import Keyring, Signer, signer_from_env

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

log = logging.getLogger("service.api")

EXTENSION = "quart_bezique"
Signing = tuple[Signer, Keyring]
"""The receipt signer and every key receipts verify with (``service.receipts``)."""


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
    spec: dict[str, object]
    spec_yaml: bytes
    spec_json: bytes
    observer: observe.Observer
    """The per-request envelope: audit line, metrics, API keys, security headers."""


def create_app(
    config: Config | None = None,
    *,
    audit_sink: Sink | None = None,
    signing: Signing | None = None,
) -> Flask:
    """Build the service. ``config`` defaults to the environment (``Config.from_env``), and so
    does ``signing`` then (``SIGNING_KEY_FILE``...: ``service.receipts.signer_from_env``); an
    explicit ``config`` signs only with an explicit ``signing``. ``audit_sink`` receives each
    audit line (default: an ``AuditSink`` on stdout, whose readiness ``/readyz`` reports)."""
    if config is None:
        config = Config.from_env()
        signing = signer_from_env() if signing is None else signing
    if config.build_tables:
        ensure_tables()
        ensure_odds_tables()

    app = ResolvedFlask("service.api", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = config.max_body_bytes
    app.url_map.strict_slashes = True

    schemas = request_schemas(config)
    spec_bytes = docs.SpecBytes()
    app.register_blueprint(hands.blueprint(schemas, config))
    app.register_blueprint(odds.blueprint(schemas))
    app.register_blueprint(showdown.blueprint(schemas))
    app.register_blueprint(betting.blueprint(schemas, config))
    app.register_blueprint(rounds.blueprint(schemas, config))
    sink: Sink = AuditSink() if audit_sink is None else audit_sink
    ready_checks = [(sink.ready, meta.AUDIT_LAGGING)] if isinstance(sink, AuditSink) else []
    manifest = _manifest()
    if manifest is None:
        ready_checks.append((lambda: False, "the build manifest cannot be computed"))
    app.register_blueprint(meta.blueprint(config, ready_checks))
    app.register_blueprint(docs.blueprint(spec_bytes))
    app.register_blueprint(adjudicate.blueprint())
    version = openapi.service_version()
    build = manifest.digest if manifest is not None else None
    app.register_blueprint(index.blueprint(version, build))
    inner: list[WSGIApplication] = []
    app.register_blueprint(
        verdicts.blueprint(
            signing[1] if signing is not None else None, manifest, version, lambda: inner[0]
        )
    )
    app_metrics = metrics.Metrics(version, RULESET)
    app.register_blueprint(metrics.blueprint(app_metrics))
    errors.register(app, config)

    spec = openapi.build_spec(app, schemas)
    spec_bytes.yaml = openapi.render_yaml(spec).encode("utf-8")
    spec_bytes.json = orjson.dumps(spec)
    observer = observe.install(
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
        shortcuts={
            hands.SCORE_PATH: hands.ScoreShortcut(config.max_body_bytes),
            betting.VALIDATE_PATH: betting.BettingShortcut(
                config.max_body_bytes, config.max_actions
            ),
        },
    )
    inner.append(observer.app)
    app.extensions[EXTENSION] = AppState(
        config, schemas, spec, spec_bytes.yaml, spec_bytes.json, observer
    )
    return app

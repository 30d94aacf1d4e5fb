"""``GET /``: what this service is and where its contract lives, for whoever finds its address.

An integrator (or a probe, or a curious operator) pointing a client at the bare host gets a small
JSON index instead of a 404: the service, its version and ruleset, and links to the docs page,
the contract and the rules. It is prepared once, served as bytes, and open (no key): it says
nothing the public contract does not.
"""

from __future__ import annotations

import orjson
from flask import Response, request
from marshmallow import fields

from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.contract.schemas import BaseSchema
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources, View, static_json
from quart_bezique.game.ruleset import RULESET

SERVICE_NAME = "quart-bezique"
PAGE = "/adjudicate"
LINKS = {
    "docs": "/docs",
    "openapi_json": "/openapi.json",
    "openapi_yaml": "/openapi.yaml",
    "rules": "/v1/rules",
    "rulesets": "/v1/rulesets",
    "health": "/healthz",
    "ready": "/readyz",
    "build": "/v1/build",
    "jwks": "/.well-known/jwks.json",
}


class IndexLinksSchema(BaseSchema):
    docs = fields.String(required=True, metadata={"description": "The interactive docs page."})
    openapi_json = fields.String(required=True, metadata={"description": "The contract, JSON."})
    openapi_yaml = fields.String(required=True, metadata={"description": "The contract, YAML."})
    rules = fields.String(
        required=True, metadata={"description": "The ruleset as data (needs a key if keys are on)."}
    )
    rulesets = fields.String(
        required=True,
        metadata={"description": "The presets and switches a request may name as its ruleset."},
    )
    health = fields.String(required=True)
    ready = fields.String(required=True)
    build = fields.String(required=True)
    jwks = fields.String(
        required=True, metadata={"description": "The keys that verify verdict receipts."}
    )


class IndexSchema(BaseSchema):
    service = fields.String(required=True)
    version = fields.String(required=True, metadata={"description": "The service's version."})
    ruleset = fields.String(required=True, metadata={"description": "The ruleset adjudicated."})
    build = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The running build's digest (`GET /v1/build` has its manifest)."},
    )
    links = fields.Nested(IndexLinksSchema, required=True)


INDEX = Operation(
    operation_id="index",
    summary="What this service is",
    tag="operations",
    description="The service's name, version and ruleset, and links to its docs, contract and "
    "rules. Open (no API key). A browser (`Accept: text/html` preferred) is sent to the "
    "adjudicator's page, `/adjudicate`, with a 303.",
    response=IndexSchema,
    other_responses={303: "A browser: see `/adjudicate`."},
    answer_example="api_client",
)


def _prefers_html() -> bool:
    """A browser navigating here (``Accept: text/html`` ranked above JSON); an API client that
    sends no Accept, ``*/*`` or ``application/json`` gets the index."""
    accept = request.accept_mimetypes
    return accept.quality("text/html") > accept.quality("application/json")


def _index_view(resources: Resources) -> View:
    manifest = resources.manifest
    body = orjson.dumps(
        {
            "service": SERVICE_NAME,
            "version": resources.version,
            "ruleset": RULESET,
            "build": manifest.digest if manifest is not None else None,
            "links": LINKS,
        }
    )

    def index() -> Response:
        if _prefers_html():
            # A person with a browser: the adjudicator's page. The Location is a path, never
            # built from the request's Host.
            return Response(status=303, headers={"Location": PAGE, "Cache-Control": "no-store"})
        return static_json(body)

    return index


ENDPOINTS = (Endpoint("GET", "/", INDEX, _index_view),)

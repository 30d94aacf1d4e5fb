"""``GET /openapi.yaml``, ``GET /openapi.json`` and the human docs page ``GET /docs``.

The page is Swagger UI, vendored under ``static/swagger-ui`` and served by the service itself, so
it works on clusters with no way out (no CDN). Its Content-Security-Policy allows nothing but this
origin, which both protects the page and proves (in the browser test) that it needs nothing else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from flask import Response

from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources, View

SWAGGER_UI_VERSION: Final = "5.35.0"
YAML_MEDIA_TYPE: Final = "application/yaml"
HTML_MEDIA_TYPE: Final = "text/html; charset=utf-8"

DOCS_PAGE: Final = "/docs"
DOCS_CSP: Final = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",  # Swagger UI sets style attributes at run time
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)

PAGE: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Quart-Bezique adjudication service: API</title>
<link rel="stylesheet" href="docs/static/swagger-ui/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/static/swagger-ui/favicon-32x32.png">
</head>
<body>
<noscript>This page needs JavaScript; the contract itself is at
<a href="openapi.yaml">openapi.yaml</a>.</noscript>
<div id="swagger-ui"></div>
<script src="docs/static/swagger-ui/swagger-ui-bundle.js"></script>
<script src="docs/static/docs.js"></script>
</body>
</html>
"""

OPENAPI_YAML = Operation(
    operation_id="getOpenApiYaml",
    summary="This document (YAML)",
    tag="operations",
    description="The OpenAPI 3.1 contract, byte for byte the committed `openapi.yaml`.",
    response_media=YAML_MEDIA_TYPE,
    raw_response={"type": "string", "description": "The OpenAPI document, as YAML text."},
)
OPENAPI_JSON = Operation(
    operation_id="getOpenApiJson",
    summary="This document (JSON)",
    tag="operations",
    description="The same OpenAPI 3.1 document as JSON.",
    raw_response={
        "type": "object",
        "description": "The OpenAPI document: any JSON object (a client generator must not "
        "narrow it to an empty record).",
        "additionalProperties": True,
    },
)
DOCS = Operation(
    operation_id="getDocs",
    summary="The docs page",
    tag="operations",
    description="This document rendered by Swagger UI; every asset is served by the service.",
    response_media="text/html",
    raw_response={"type": "string"},
)


def _yaml_view(resources: Resources) -> View:
    spec = resources.spec

    def openapi_yaml() -> Response:
        return Response(spec.yaml, content_type=YAML_MEDIA_TYPE)

    return openapi_yaml


def _json_view(resources: Resources) -> View:
    spec = resources.spec

    def openapi_json() -> Response:
        return Response(spec.json, content_type="application/json")

    return openapi_json


def _page_view(resources: Resources) -> View:
    page = PAGE.encode("utf-8")

    def docs() -> Response:
        return Response(page, content_type=HTML_MEDIA_TYPE)

    return docs


ENDPOINTS = (
    Endpoint("GET", "/openapi.yaml", OPENAPI_YAML, _yaml_view),
    Endpoint("GET", "/openapi.json", OPENAPI_JSON, _json_view),
    Endpoint(
        "GET",
        DOCS_PAGE,
        DOCS,
        _page_view,
        page_csp=DOCS_CSP,
        assets=Path(__file__).resolve().parent / "static",
    ),
)
"""The routes. Their security headers (``DOCS_CSP`` on the page and its assets, nosniff,
no-referrer) are added by the envelope, like every other answer's."""

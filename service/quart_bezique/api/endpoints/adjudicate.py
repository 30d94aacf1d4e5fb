"""``GET /adjudicate``: the page people use to settle a dispute at the table.

Dispute staff, floor managers and players type or click the cards, bets and hands of a dispute and
get the service's verdict explained in Russian, Ukrainian or English, with the rule sections
applied, and a one-page sheet to print and sign. The page is plain HTML, CSS and JavaScript modules
served from ``static/adjudicate`` by this blueprint (no build step, no CDN): it must work on a
cluster with no way out, under a Content-Security-Policy that allows this origin only and nothing
inline (set by the envelope for the page and its assets, ``ENDPOINTS``). It calls the public
``/v1`` API like any client, with the API key the user types (kept in the tab's
``sessionStorage``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from flask import Response

from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources, View

PAGE_PATH: Final = "/adjudicate"
STATIC_FOLDER: Final = Path(__file__).resolve().parent / "static" / "adjudicate"
PAGE_FILE: Final = "page.html"
HTML_MEDIA_TYPE: Final = "text/html; charset=utf-8"

ADJUDICATE = Operation(
    operation_id="getAdjudicatePage",
    summary="The adjudication page",
    tag="operations",
    description=(
        "A page for people, in Russian, Ukrainian and English: score a hand, compare two hands, "
        "replay a betting round action by action, settle a round, a hand's odds, and print a "
        "one-page dispute sheet (inputs, verdict, rule sections, request id, SHA-256 digests). "
        "It calls the `/v1` operations of this service with the API key typed into it; every "
        "asset is served by the service."
    ),
    response_media="text/html",
    raw_response={"type": "string"},
)


PAGE_CSP: Final = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
"""The page and its assets: its own scripts and styles only, nothing inline, calls to this
origin."""


def _page_view(resources: Resources) -> View:
    """The page, read once at start-up; its assets are served under ``/adjudicate/static/``."""
    page = (STATIC_FOLDER / PAGE_FILE).read_bytes()

    def adjudicate() -> Response:
        return Response(page, content_type=HTML_MEDIA_TYPE)

    return adjudicate


ENDPOINTS = (
    Endpoint("GET", PAGE_PATH, ADJUDICATE, _page_view, page_csp=PAGE_CSP, assets=STATIC_FOLDER),
)

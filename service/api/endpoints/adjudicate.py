"""``GET /adjudicate``: the page people use to settle a dispute at the table.

Dispute staff, floor managers and players type or click the cards, bets and hands of a dispute and
get the service's verdict explained in Russian or English, with the rule sections applied, and a
one-page sheet to print and sign. The page is plain HTML, CSS and JavaScript modules served from
``static/adjudicate`` by this blueprint (no build step, no CDN): it must work on a cluster with no
way out, under a Content-Security-Policy that allows this origin only and nothing inline (set by
the envelope for the page and its assets, ``observe.PAGES``). It calls the public ``/v1`` API
like any client, with the API key the user types (kept in the tab's ``sessionStorage``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from flask import Blueprint, Response

from service.api.contract.operation import Operation, documented

PAGE_PATH: Final = "/adjudicate"
STATIC_FOLDER: Final = Path(__file__).resolve().parent / "static" / "adjudicate"
PAGE_FILE: Final = "page.html"
HTML_MEDIA_TYPE: Final = "text/html; charset=utf-8"

ADJUDICATE = Operation(
    operation_id="getAdjudicatePage",
    summary="The adjudication page",
    tag="operations",
    description=(
        "A page for people, in Russian and English: score a hand, compare two hands, replay a "
        "betting round action by action, settle a round, a hand's odds, and print a one-page "
        "dispute sheet (inputs, verdict, rule sections, request id, SHA-256 digests). It calls "
        "the `/v1` operations of this service with the API key typed into it; every asset is "
        "served by the service."
    ),
    response_media="text/html",
    raw_response={"type": "string"},
)


def blueprint() -> Blueprint:
    """The page and its assets (``/adjudicate/static/<path>``), read once at start-up."""
    bp = Blueprint(
        "adjudicate",
        __name__,
        static_folder=str(STATIC_FOLDER),
        static_url_path=PAGE_PATH + "/static",
    )
    page = (STATIC_FOLDER / PAGE_FILE).read_bytes()

    @bp.get(PAGE_PATH)
    @documented(ADJUDICATE)
    def adjudicate() -> Response:
        return Response(page, content_type=HTML_MEDIA_TYPE)

    return bp

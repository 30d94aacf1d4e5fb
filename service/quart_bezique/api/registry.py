"""Every endpoint of the service, in one place: the list ``create_app`` serves, the envelope
protects and audits, and the OpenAPI document describes. Adding an endpoint is a new module under
``endpoints/`` exporting ``ENDPOINTS``, plus its line here."""

from __future__ import annotations

from typing import Final

from quart_bezique.api.endpoints import (
    adjudicate,
    betting,
    docs,
    hands,
    health,
    index,
    metrics,
    odds,
    reconcile,
    round_records,
    rounds,
    rulesets,
    showdown,
    verdicts,
)
from quart_bezique.api.endpoints.endpoint import Endpoint, unique

ENDPOINTS: Final[tuple[Endpoint, ...]] = unique(
    (
        *hands.ENDPOINTS,
        *odds.ENDPOINTS,
        *showdown.ENDPOINTS,
        *betting.ENDPOINTS,
        *rounds.ENDPOINTS,
        *round_records.ENDPOINTS,
        *reconcile.ENDPOINTS,
        *health.ENDPOINTS,
        *rulesets.ENDPOINTS,
        *docs.ENDPOINTS,
        *adjudicate.ENDPOINTS,
        *index.ENDPOINTS,
        *verdicts.ENDPOINTS,
        *metrics.ENDPOINTS,
    )
)

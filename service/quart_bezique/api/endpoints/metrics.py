"""``GET /metrics``: the Prometheus exposition of every worker's counts (``envelope.metrics``)."""

from __future__ import annotations

from flask import Response
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources, View

METRICS = Operation(
    operation_id="getMetrics",
    summary="Prometheus metrics",
    tag="operations",
    description=(
        "Request counts and latency by endpoint and status, hands scored, betting verdicts by "
        "reason code and build info, in the Prometheus text format (0.0.4), summed over every "
        "worker. Open even when API keys are configured."
    ),
    response_media="text/plain",
    raw_response={"type": "string"},
)


def _scrape_view(resources: Resources) -> View:
    metrics = resources.metrics
    if metrics is None:
        raise ValueError("/metrics needs the app's metrics")
    headers = {"Cache-Control": "no-store"}

    def scrape() -> Response:
        return Response(
            metrics.exposition(), content_type=CONTENT_TYPE_PLAIN_0_0_4, headers=headers
        )

    return scrape


ENDPOINTS = (Endpoint("GET", "/metrics", METRICS, _scrape_view),)

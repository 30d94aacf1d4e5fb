"""The endpoints the HTTP tests cover, read from the registry the app serves: an endpoint added to
it is covered by every test parametrised from here, with no list of paths to edit. A valid body
for a JSON endpoint is one of its operation's request examples: the bodies the documentation
shows, each answered 200 (``test_api_examples`` compares the answers with the documented ones)."""

from __future__ import annotations

import copy
from typing import Any, Final

from quart_bezique.api.endpoints.endpoint import Endpoint
from quart_bezique.api.registry import ENDPOINTS

JSON_ENDPOINTS: Final = tuple(e for e in ENDPOINTS if e.handler is not None)
"""The endpoints served by their road: a ``POST`` of a JSON body, judged."""
VERDICT_ENDPOINTS: Final = tuple(e for e in ENDPOINTS if e.is_verdict)
"""The endpoints whose answers are verdicts: audited by kind, signed when a key is configured."""
VIEW_ENDPOINTS: Final = tuple(e for e in ENDPOINTS if e.view is not None)
"""Pages, documents and probes: Flask views."""


def examples(endpoint: Endpoint) -> dict[str, Any]:
    """The endpoint's request examples by name (copies: a test may change them)."""
    found = endpoint.operation.request_examples
    if not found:
        raise LookupError(f"{endpoint.path}: its operation declares no request example")
    return copy.deepcopy(dict(found))


def example(endpoint: Endpoint) -> Any:
    """The endpoint's first request example (a copy)."""
    return next(iter(examples(endpoint).values()))


def all_examples(endpoints: tuple[Endpoint, ...]) -> dict[str, tuple[str, Any]]:
    """Every request example of ``endpoints``, as ``"<path> <name>"``: (path, body)."""
    return {
        f"{endpoint.path} {name}": (endpoint.path, body)
        for endpoint in endpoints
        for name, body in examples(endpoint).items()
    }


def paths(endpoints: tuple[Endpoint, ...]) -> list[str]:
    return [endpoint.path for endpoint in endpoints]

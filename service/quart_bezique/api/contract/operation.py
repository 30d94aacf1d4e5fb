"""An operation of the OpenAPI document, as its endpoint record declares it (``endpoints``):
the OpenAPI builder turns each into a path item, so no route can exist undocumented.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from marshmallow import Schema

if TYPE_CHECKING:
    from quart_bezique.api.contract.schemas import RequestSchemas

BODY_ERRORS: Final = (400, 413, 415, 422)
"""Statuses every endpoint that reads a JSON body may answer with a problem document."""


@dataclass(frozen=True)
class Operation:
    """One operation of the OpenAPI document."""

    operation_id: str
    summary: str
    tag: str
    description: str = ""
    request: type[Schema] | Callable[[RequestSchemas], type[Schema]] | None = None
    """The request body's schema: the class itself, or, for a schema whose limits come from the
    configuration, the function picking it from the app's ``RequestSchemas``."""
    request_media: str = "application/json"
    """The request body's media type (JSON Lines for a streaming endpoint)."""
    response: type[Schema] | None = None
    """Schema of the 200 answer (JSON), if it is JSON."""
    response_media: str = "application/json"
    response_description: str = "OK"
    problems: tuple[int, ...] = ()
    """Statuses answered with a problem document."""
    request_examples: Mapping[str, Any] = field(default_factory=dict)
    """Named examples of request bodies (shown on the docs page, tried by schemathesis). The
    document shows the service's answer to each, by the same name: made by sending it down the
    endpoint's road when the document is built (``openapi.answers``), never written by hand."""
    answer_example: str | None = None
    """For an operation without a body: the name under which the document shows its answer,
    fetched from its view when the document is built; None for no example (a page, counters, the
    document itself)."""
    other_responses: Mapping[int, str] = field(default_factory=dict)
    """Other answers without a body (a redirect), by status, with their description."""
    raw_response: Mapping[str, Any] | None = None
    """A literal response content schema when ``response`` is not a marshmallow schema."""
    parameters: tuple[Mapping[str, Any], ...] = ()
    """Query parameters (OpenAPI parameter objects), besides ``Accept-Language``."""

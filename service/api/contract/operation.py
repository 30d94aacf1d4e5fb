"""How a view declares its place in the OpenAPI document, at no cost per request.

``@documented(...)`` only attaches an ``Operation`` to the view function; ``openapi`` walks the
app's URL map and builds each path item from it: no route can exist undocumented.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from marshmallow import Schema

View = TypeVar("View", bound=Callable[..., Any])

ATTRIBUTE: Final = "openapi_operation"

BODY_ERRORS: Final = (400, 413, 415, 422)
"""Statuses every endpoint that reads a JSON body may answer with a problem document."""


@dataclass(frozen=True)
class Operation:
    """One operation of the OpenAPI document."""

    operation_id: str
    summary: str
    tag: str
    description: str = ""
    request: str | type[Schema] | None = None
    """The request body's schema: the class itself, or the attribute of
    ``schemas.RequestSchemas`` naming one whose limits come from the configuration."""
    response: type[Schema] | None = None
    """Schema of the 200 answer (JSON), if it is JSON."""
    response_media: str = "application/json"
    response_description: str = "OK"
    problems: tuple[int, ...] = ()
    """Statuses answered with a problem document."""
    request_examples: Mapping[str, Any] = field(default_factory=dict)
    """Named examples of request bodies (shown on the docs page, tried by schemathesis)."""
    response_examples: Mapping[str, Any] = field(default_factory=dict)
    """Named examples of the 200 answer: for an operation with a body, the service's actual
    answer to the request example of the same name (``tests/api/test_api_examples.py`` posts each
    one and compares). Data, not computed at start-up, so the document stays cheap and stable."""
    other_responses: Mapping[int, str] = field(default_factory=dict)
    """Other answers without a body (a redirect), by status, with their description."""
    raw_response: Mapping[str, Any] | None = None
    """A literal response content schema when ``response`` is not a marshmallow schema."""


def documented(operation: Operation) -> Callable[[View], View]:
    def mark(view: View) -> View:
        setattr(view, ATTRIBUTE, operation)
        return view

    return mark


def operation_of(view: Callable[..., Any]) -> Operation | None:
    found = getattr(view, ATTRIBUTE, None)
    return found if isinstance(found, Operation) else None

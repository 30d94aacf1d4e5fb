"""Bounded refusals: what marshmallow must not be asked to explain item by item.

Marshmallow deserialises every item of a list before its length validator runs, and builds an
error for each bad item and each unknown field. A 1 MiB body holding a 500,000-item list where a
schema allows 4 or 10,000 would cost it tens of seconds and hundreds of MiB: past the worker
timeout and the pod's memory limit, from one request. ``guard`` walks the schema's fields over the
body first (no object per item) and refuses, with the very message the length validator would
give, any list more than ``SLACK`` items over its limit, and any object with more unknown fields
than a problem document reports. Smaller mistakes still go to marshmallow, whose full error list
is cheap for them and more helpful.

The walk descends only where the schema does (nested schemas, lists of lists, hands by player),
so its cost is bounded by the limits it enforces.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import Schema, ValidationError, fields, validate

from .fields import HandsByPlayer
from .problems import MAX_REPORTED_ERRORS

SLACK: Final = 64
"""A list at most this much longer than allowed is cheap to explain in full: left to marshmallow."""

Messages = dict[Any, Any]


def guard(schema: Schema, body: Any) -> Messages | None:
    """Marshmallow-shaped messages for the first gross excess in ``body``, else ``None``."""
    return _object(schema, body)


def _object(schema: Schema, data: Any) -> Messages | None:
    if type(data) is not dict:
        return None
    known = schema.fields
    if len(data) > len(known) + MAX_REPORTED_ERRORS:
        keys = {field.data_key or name for name, field in known.items()}
        unknown = sorted(k for k in data if k not in keys)
        if len(unknown) > MAX_REPORTED_ERRORS:
            message = schema.error_messages["unknown"]
            return {key: [message] for key in unknown[:MAX_REPORTED_ERRORS]}
    for name, field in known.items():
        key = field.data_key or name
        if key in data:
            found = _field(field, data[key])
            if found is not None:
                return {key: found}
    return None


def _field(field: fields.Field[Any], value: Any) -> Any:
    if isinstance(field, fields.List):
        return _list(field, value)
    if isinstance(field, fields.Nested) and isinstance(field.schema, Schema):
        return _object(field.schema, value)
    if isinstance(field, HandsByPlayer) and type(value) is dict:
        for player, cards in value.items():
            found = _list(field.hand, cards)
            if found is not None:
                return {player: found}
    return None


def _list(field: fields.List[Any], value: Any) -> Any:
    if type(value) is not list:
        return None
    for validator in field.validators:
        if isinstance(validator, validate.Length):
            limit = validator.equal if validator.equal is not None else validator.max
            if limit is not None and len(value) > limit + SLACK:
                try:
                    validator(value)
                except ValidationError as error:
                    return error.messages
    inner = field.inner
    if isinstance(inner, fields.List | fields.Nested):
        for index, item in enumerate(value):
            found = _field(inner, item)
            if found is not None:
                return {index: found}
    return None

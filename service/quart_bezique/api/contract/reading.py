"""Reading a JSON request body and loading it through its schema, without the HTTP machinery.

The service's body reader (``envelope/body.py``) and the command line (``quart_bezique.cli``) both
read bodies here, so a text one of them refuses (a key repeated in an object, NaN, nesting past
``MAX_DEPTH``, a body over the size limit) the other refuses too, with the same problem document;
and both load a body through the same schema, guarded the same way (``guard.py``).
"""

from __future__ import annotations

from typing import Any, Final, NoReturn

import orjson
from marshmallow import Schema, ValidationError

from quart_bezique.api.contract.guard import explain, guard
from quart_bezique.api.contract.i18n import N_
from quart_bezique.api.contract.problems import (
    BODY_TOO_LARGE,
    MALFORMED_JSON,
    Problem,
    validation_problem,
)
from quart_bezique.api.contract.repeats import escaped_colons, refuse_repeated_key

MAX_DEPTH: Final = 254
"""Deepest nesting accepted (orjson serialises no deeper; no request comes within 250 of it)."""
_SORT_KEYS: Final = orjson.OPT_SORT_KEYS
_ESCAPED_COLON: Final = b"\\u003"
"""Prefix of the only way (``\\u003a``) a JSON text can spell a colon that is not a colon."""


def too_large(limit: int) -> Problem:
    """The 413 of a body over ``limit`` bytes (``MAX_BODY_BYTES``)."""
    return Problem(
        BODY_TOO_LARGE,
        N_("the body is larger than the limit of {limit} bytes").format(limit=limit),
    )


def decode(data: bytes) -> tuple[Any, bytes]:
    """The parsed body and its re-serialisation with sorted keys, or a 400: not valid JSON (not
    UTF-8, NaN/Infinity, integers beyond 64 bits, ...) or nested deeper than ``MAX_DEPTH``."""
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        # The parser's own words are English: a person is told where, in any language.
        detail = N_("the body is not valid JSON: the error is at line {line}, column {column}")
        detail = detail.format(line=exc.lineno, column=exc.colno)
        raise Problem(MALFORMED_JSON, detail) from None
    try:
        sorted_body = orjson.dumps(body, option=_SORT_KEYS)
    except orjson.JSONEncodeError:
        raise Problem(
            MALFORMED_JSON,
            N_("the body nests arrays and objects deeper than {depth} levels").format(
                depth=MAX_DEPTH
            ),
        ) from None
    return body, sorted_body


def repeats_a_key(data: bytes, colons: int) -> bool:
    """Whether the text ``data`` repeats a key in an object, given the colons of its sorted
    re-serialisation (``decode``): orjson keeps the last value silently, and every key/value pair
    of a text has one colon outside strings, so the text has more colons than its
    re-serialisation exactly when a pair was dropped -- counting the colons a string spells as an
    escape (``repeats.py``)."""
    text_colons = data.count(b":")
    # (A backslash first: one memchr, where the escape's search is a far slower pass.)
    if b"\\" in data and _ESCAPED_COLON in data:
        text_colons += escaped_colons(data)
    return text_colons != colons


def refuse_repeated(data: bytes) -> NoReturn:
    """The 400 naming the first key ``data`` repeats (``repeats_a_key`` said it does)."""
    refuse_repeated_key(data)
    raise Problem(MALFORMED_JSON, N_("the body repeats a key in one object"))  # pragma: no cover


def parse(data: bytes) -> Any:
    """The body ``data`` holds, or the 400 problem the service answers it with."""
    body, sorted_body = decode(data)
    if repeats_a_key(data, sorted_body.count(b":")):
        del body, sorted_body
        refuse_repeated(data)
    return body


def load(schema: Schema, body: Any) -> Any:
    """Validate ``body`` with a marshmallow schema: the loaded data, or a 422 naming each field.

    ``guard`` first refuses lists far over their length limit (and floods of unknown fields)
    without looking at their items: marshmallow would build an object and an error for each.
    ``explain`` then has long lists explained by their refused items only, and stops at
    ``MAX_EXPLAINED_ERRORS``; the schema sees the whole body only when neither applies.
    """
    refused = guard(schema, body)
    if refused is not None:
        raise validation_problem(refused)
    bounded = explain(schema, body)
    if bounded is not None:
        raise validation_problem(bounded.messages, truncated=bounded.truncated)
    try:
        return schema.load(body)
    except ValidationError as error:
        raise validation_problem(error.messages) from None

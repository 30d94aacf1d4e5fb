"""The stored-exchange record ``quart-bezique verify`` reads.

A platform keeps, for each verdict it may have to prove, one JSON object::

    {"endpoint": "/v1/hands/score",
     "request": {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"},
     "response": "{\\"cards\\":[\\"KS\\",...],\\"ruleset\\":\\"classic/1\\"}",
     "receipt": "eyJhbGciOiJFZERTQSIs..."}

- ``endpoint``: the path the request was sent to.
- ``request``: the request body as JSON (any key order, spacing or card spelling: the receipt
  covers its canonical form), or ``request_base64``: the body's exact bytes, base64.
- ``response``: the response body's exact text (a JSON string holding it), or
  ``response_base64``: its exact bytes, base64. Exact: the receipt covers these bytes.
- ``receipt``: the ``Verdict-Receipt`` header's value.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any, Final

from .problems import CliError

_FIELDS: Final = frozenset(
    {"endpoint", "request", "request_base64", "response", "response_base64", "receipt"}
)


@dataclass(frozen=True, slots=True)
class Record:
    endpoint: str
    request: Any
    """The parsed body, or its exact bytes."""
    response: bytes
    receipt: str


def _invalid(detail: str) -> CliError:
    return CliError.input("INVALID_RECORD", detail)


def _base64(value: object, name: str) -> bytes:
    if not isinstance(value, str):
        raise _invalid(f"{name} must be a base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _invalid(f"{name} is not valid base64") from None


def _one_of(record: dict[str, Any], plain: str) -> str:
    coded = f"{plain}_base64"
    if (plain in record) == (coded in record):
        raise _invalid(f"the record needs exactly one of {plain} and {coded}")
    return plain if plain in record else coded


def parse_record(record: Any) -> Record:
    if not isinstance(record, dict):
        raise _invalid("a record is a JSON object")
    unknown = sorted(set(record) - _FIELDS)
    if unknown:
        raise _invalid(f"unknown member {unknown[0]!r}")
    endpoint, receipt = record.get("endpoint"), record.get("receipt")
    if not isinstance(endpoint, str) or not endpoint.startswith("/"):
        raise _invalid("endpoint must be the request's path, such as /v1/hands/score")
    if not isinstance(receipt, str):
        raise _invalid("receipt must be the Verdict-Receipt header's value (a string)")
    if _one_of(record, "request") == "request":
        request = record["request"]
    else:
        request = _base64(record["request_base64"], "request_base64")
    if _one_of(record, "response") == "response":
        if not isinstance(record["response"], str):
            raise _invalid("response must be the response body's exact text (a string)")
        response = record["response"].encode("utf-8")
    else:
        response = _base64(record["response_base64"], "response_base64")
    return Record(endpoint, request, response, receipt)

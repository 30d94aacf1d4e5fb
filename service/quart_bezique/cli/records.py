"""The stored-exchange record ``quart-bezique verify`` reads.

A platform that may have to prove a verdict keeps, per exchange, the endpoint, the request (as
JSON, or its exact bytes in base64), the response's exact bytes and the receipt; ``verify``
needs all of them and nothing else, so a record holding anything more or less is refused
(``INVALID_RECORD``) rather than guessed at. docs/verification.md, "The record ``verify``
reads", defines each member.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any, Final

from quart_bezique.game.messages import N_

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
        raise _invalid(N_("{name} must be a base64 string").format(name=name))
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _invalid(N_("{name} is not valid base64").format(name=name)) from None


def _one_of(record: dict[str, Any], plain: str) -> str:
    coded = f"{plain}_base64"
    if (plain in record) == (coded in record):
        raise _invalid(
            N_("the record needs exactly one of {plain} and {coded}").format(
                plain=plain, coded=coded
            )
        )
    return plain if plain in record else coded


def parse_record(record: Any) -> Record:
    if not isinstance(record, dict):
        raise _invalid(N_("a record is a JSON object"))
    unknown = sorted(set(record) - _FIELDS)
    if unknown:
        raise _invalid(N_("unknown member {name}").format(name=repr(unknown[0])))
    endpoint, receipt = record.get("endpoint"), record.get("receipt")
    if not isinstance(endpoint, str) or not endpoint.startswith("/"):
        raise _invalid(N_("endpoint must be the request's path, such as /v1/hands/score"))
    if not isinstance(receipt, str):
        raise _invalid(N_("receipt must be the Verdict-Receipt header's value (a string)"))
    if _one_of(record, "request") == "request":
        request = record["request"]
    else:
        request = _base64(record["request_base64"], "request_base64")
    if _one_of(record, "response") == "response":
        if not isinstance(record["response"], str):
            raise _invalid(N_("response must be the response body's exact text (a string)"))
        response = record["response"].encode("utf-8")
    else:
        response = _base64(record["response_base64"], "response_base64")
    return Record(endpoint, request, response, receipt)

"""The API's contract applied to the command line's input: the very reading, schemas and
problems the service uses (``quart_bezique.api.contract``), not a copy, so a body the service
refuses is refused here with the same problem document, and one it judges is judged the same.

The limits are the service's defaults (``Config()``: ``MAX_ACTIONS``, ``MAX_BODY_BYTES``, ...).
The schemas need marshmallow (the ``server`` extra): this module is imported only when a command
judges a body or reads a JSON file, so ``import quart_bezique.cli`` stays free of it.
"""

from __future__ import annotations

from typing import Any, Final

from quart_bezique.api.config import Config
from quart_bezique.api.contract.checks import check_for
from quart_bezique.api.contract.error_codes import coded
from quart_bezique.api.contract.problems import Problem, rules_problem, validation_problem
from quart_bezique.api.contract.reading import load, parse, too_large
from quart_bezique.api.contract.schemas import BaseSchema, RequestSchemas, request_schemas
from quart_bezique.game.errors import RulesError

from .problems import CliError

CONFIG: Final = Config()
SCHEMAS: Final[RequestSchemas] = request_schemas(CONFIG)


def refused(problem: Problem, where: str = "") -> CliError:
    """The service's problem as the command line's error (``where``: which input)."""
    return CliError(problem, where=where)


def read_body(data: bytes, where: str = "") -> Any:
    """A request body read as the service reads it: over ``MAX_BODY_BYTES``, not JSON, NaN, too
    deep, a key repeated in one object: the service's 413 or 400."""
    if len(data) > CONFIG.max_body_bytes:
        raise refused(too_large(CONFIG.max_body_bytes), where)
    return parse_json_input(data, where)


def parse_json_input(data: bytes, where: str = "") -> Any:
    """Any JSON input (a record, a JWKS) read with the service's strictness, without its size
    limit: a repeated key is refused, never resolved by keeping one of its values."""
    try:
        return parse(data)
    except Problem as problem:
        raise refused(problem, where) from None


def accepted(schema_class: type[BaseSchema], body: Any) -> Any:
    """``body`` as the endpoint takes it: as sent when the schema's derived check accepts it,
    else loaded by the schema (or its 422)."""
    if check_for(schema_class)(body):
        return body
    return loaded(schema_class, body)


def loaded(schema_class: type[BaseSchema], body: Any) -> Any:
    """``body`` loaded by the schema (its defaults filled in), or its 422."""
    try:
        return load(schema_class(), body)
    except Problem as problem:
        raise refused(problem) from None


def rules_refusal(error: RulesError) -> CliError:
    """The 422 the service answers when the core refuses a body the schema accepted."""
    return refused(rules_problem(error))


def field_refusal(error: RulesError) -> CliError:
    """The 422 the service answers when a field's loader refuses its value with the core's error
    (a ruleset, read by the core's resolver): the core's code, a pointer along ``error.path``."""
    messages: object = [coded(error.message, error.code)]
    for key in reversed(error.path):
        messages = {str(key): messages}
    return refused(validation_problem(messages))

"""The OpenAPI 3.1 document, generated from the app's routes and marshmallow schemas.

``python -m service.api.openapi`` prints it as YAML for the default configuration; ``make openapi``
writes that to ``openapi.yaml``, the committed contract. The app serves the very same bytes at
``/openapi.yaml`` (and the same document at ``/openapi.json``); a test fails when they differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from marshmallow import Schema, fields

from service.api.config import service_version
from service.api.contract.fields import (
    CARD_CODES,
    CARD_DESCRIPTION,
    CARD_PATTERN,
    SUIT_CODES,
    TRUMP_DESCRIPTION,
    TRUMP_PATTERN,
    HandsByPlayer,
    JsonSchemaMixin,
)
from service.api.contract.operation import Operation
from service.api.contract.problems import (
    PROBLEM_MEDIA_TYPE,
    PROBLEM_TYPES,
    problems_by_status,
    shown_code,
)
from service.api.contract.schemas import (
    ACTION_TYPES,
    FOLD,
    ActionSchema,
    ProblemSchema,
    RequestSchemas,
)
from service.api.endpoints.endpoint import Endpoint
from service.api.envelope.body import JSON_MEDIA_TYPE
from service.api.envelope.routes import is_protected_template
from service.game.betting import ReasonCode
from service.game.ruleset import RULESET
from service.game.scoring import CombinationType

OPENAPI_VERSION: Final = "3.1.0"
TITLE: Final = "Quart-Bezique adjudication service"


def _problem_rows() -> str:
    """The error table of the document's description, from the one table (``PROBLEM_TYPES``)."""
    rows = ["| status | code | when |", "|---|---|---|"]
    rows.extend(f"| {kind.status} | {shown_code(kind)} | {kind.when} |" for kind in PROBLEM_TYPES)
    return "\n".join(rows)


DESCRIPTION: Final = f"""\
The reference adjudicator for Quart-Bezique (Кварт-Безик): scores hands, compares them at a
showdown, judges betting sequences and settles rounds, exactly as its rules specification says
(`docs/rules.md` in the source repository, ruleset `classic/1`; served as data at `/v1/rules`).
Stateless: every answer depends only on the request body.

Every request body is JSON (`Content-Type: application/json`). Every refusal is an RFC 9457
problem document (`application/problem+json`) with `type`, `title`, `status`, `detail` and a
stable `code`; validation problems add `errors`, each a JSON pointer into the body and a message.

{_problem_rows()}
Money is an integer number of chips from 1 to 2^53-1: floats, booleans and strings are refused.
A betting sequence that breaks a rule is not an error: it is a 200 answer with `valid: false`.

When the deployment configures API keys, every `/v1` request needs `Authorization: Bearer <key>`;
health, readiness, metrics and these documents never do. Every answer carries `X-Request-ID` (the
client's own when it sends a sane one, else a generated one): it names the request's audit record.
"""

TAGS: Final = (
    {"name": "hands", "description": "Scoring hands (docs/rules.md §3-§7)."},
    {"name": "showdown", "description": "Comparing two hands (section 8)."},
    {"name": "betting", "description": "Judging betting sequences (section 9)."},
    {"name": "rounds", "description": "Settling rounds (section 10)."},
    {"name": "rules", "description": "The ruleset as data."},
    {
        "name": "verification",
        "description": "Receipt keys, the running build and re-adjudication of stored verdicts "
        "(`docs/verification.md`).",
    },
    {
        "name": "operations",
        "description": "Health, readiness, metrics, this document, the docs page.",
    },
)

PROBLEM_RESPONSES: Final[Mapping[int | str, tuple[str, tuple[int, ...]]]] = {
    400: ("MalformedJson", (400,)),
    401: ("Unauthorized", (401,)),
    413: ("BodyTooLarge", (413,)),
    415: ("UnsupportedMediaType", (415,)),
    422: ("Unprocessable", (422,)),
    503: ("NotReady", (503,)),
    "4XX": ("ClientError", (404, 405, 408, 413)),
    "5XX": ("ServerError", (500, 503)),
}
"""Each problem response component: its name and the statuses whose problem types (with their
codes and when each is given, from ``PROBLEM_TYPES``) its description lists. The 4XX and 5XX
ranges cover what any route can answer beyond the statuses it names."""
"""Problem responses by status; the ``4XX`` and ``5XX`` ranges are on every operation, because
every route can be refused that way (a client generator needs them to type the error)."""
RANGES: Final = ("4XX", "5XX")

PROBLEM_EXAMPLES: Final[Mapping[str, Mapping[str, Mapping[str, Any]]]] = {
    "MalformedJson": {
        "truncated_body": {
            "type": "urn:quart-bezique:problem:malformed-json",
            "title": "Malformed JSON",
            "status": 400,
            "detail": (
                "the body is not valid JSON: unexpected end of data: line 1 column 2 (char 1)"
            ),
            "code": "MALFORMED_JSON",
        }
    },
    "Unauthorized": {
        "no_key": {
            "type": "urn:quart-bezique:problem:unauthorized",
            "title": "Unauthorized",
            "status": 401,
            "detail": "this service needs an API key: send Authorization: Bearer <key>",
            "code": "UNAUTHORIZED",
        }
    },
    "BodyTooLarge": {
        "too_many_bytes": {
            "type": "urn:quart-bezique:problem:body-too-large",
            "title": "Content Too Large",
            "status": 413,
            "detail": "the body is larger than the limit of 1048576 bytes",
            "code": "BODY_TOO_LARGE",
        }
    },
    "UnsupportedMediaType": {
        "text_plain": {
            "type": "urn:quart-bezique:problem:unsupported-media-type",
            "title": "Unsupported Media Type",
            "status": 415,
            "detail": "the body must be sent as application/json; it was sent as text/plain",
            "code": "UNSUPPORTED_MEDIA_TYPE",
        }
    },
    "Unprocessable": {
        "validation_error": {
            "type": "urn:quart-bezique:problem:validation-error",
            "title": "Invalid request",
            "status": 422,
            "detail": "/cards: a hand holds exactly 4 cards, got 1",
            "code": "VALIDATION_ERROR",
            "errors": [
                {
                    "pointer": "/cards",
                    "message": "a hand holds exactly 4 cards, got 1",
                    "code": "WRONG_HAND_SIZE",
                }
            ],
        },
        "rules_violation": {
            "type": "urn:quart-bezique:problem:rules-violation",
            "title": "Refused by the rules",
            "status": 422,
            "detail": "the hands hold KS 7 times together; one shoe has only 6",
            "code": "SHOE_EXCEEDED",
            "errors": [
                {
                    "pointer": "/hands",
                    "message": "the hands hold KS 7 times together; one shoe has only 6",
                    "code": "SHOE_EXCEEDED",
                }
            ],
        },
    },
    "NotReady": {
        "shutting_down": {
            "type": "urn:quart-bezique:problem:not-ready",
            "title": "Service Unavailable",
            "status": 503,
            "detail": "shutting down",
            "code": "NOT_READY",
        }
    },
    "ClientError": {
        "not_found": {
            "type": "urn:quart-bezique:problem:not-found",
            "title": "Not Found",
            "status": 404,
            "detail": "no resource at /v1/hand/score",
            "code": "NOT_FOUND",
        },
        "method_not_allowed": {
            "type": "urn:quart-bezique:problem:method-not-allowed",
            "title": "Method Not Allowed",
            "status": 405,
            "detail": "GET is not allowed on /v1/hands/score; allowed: OPTIONS, POST",
            "code": "METHOD_NOT_ALLOWED",
        },
    },
    "ServerError": {
        "shutting_down": {
            "type": "urn:quart-bezique:problem:not-ready",
            "title": "Service Unavailable",
            "status": 503,
            "detail": "shutting down",
            "code": "NOT_READY",
        },
        "audit_unavailable": {
            "type": "urn:quart-bezique:problem:audit-unavailable",
            "title": "Service Unavailable",
            "status": 503,
            "detail": "the audit log is not keeping up: no verdict is given without its record; "
            "retry shortly",
            "code": "AUDIT_UNAVAILABLE",
        },
    },
}
"""Each problem response's examples: documents the service really sends (the test of the
examples makes each one's request and compares the answer)."""


SECURITY_SCHEME: Final = "apiKey"
PROTECTED_PREFIX: Final = "/v1/"
SECURITY: Final[tuple[dict[str, list[str]], ...]] = ({SECURITY_SCHEME: []}, {})
"""A key, or none: whether keys are needed is the deployment's choice (``API_KEYS``)."""
SERVERS: Final = ({"url": "/"},)
"""Relative: the operations are wherever the document was fetched from (a generated client
takes its base URL from here)."""
REQUEST_ID_HEADER: Final = {
    "description": "The request's id in the audit log: the client's `X-Request-ID` when it sent "
    "a sane one (1 to 128 of `A-Z a-z 0-9 . _ ~ : / + = @ -`), else a generated one.",
    "schema": {"type": "string"},
}


RECEIPT_HEADER: Final = {
    "description": "The verdict's signed receipt (a compact JWS, EdDSA), when the deployment "
    "configures a signing key: who answered, under which ruleset and build, for which request "
    "and which exact response bytes. Verify it with `/.well-known/jwks.json`; the format is in "
    "`docs/verification.md`.",
    "schema": {"type": "string"},
}


def _field_extras(
    self: FieldConverterMixin, field: fields.Field[Any], **kwargs: Any
) -> dict[str, Any]:
    """JSON Schema keywords apispec does not derive itself (see ``fields.JsonSchemaMixin``)."""
    extra: dict[str, Any] = {}
    if isinstance(field, HandsByPlayer):
        extra["additionalProperties"] = self.field2property(field.hand)
    if isinstance(field, JsonSchemaMixin):
        extra.update(field.metadata.get("json_schema", {}))
    return extra


def _problem_responses() -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status, (name, statuses) in PROBLEM_RESPONSES.items():
        description = problems_by_status(statuses)
        headers: dict[str, Any] = {"X-Request-ID": {"$ref": "#/components/headers/RequestId"}}
        if status == "4XX":
            headers["Allow"] = {
                "description": "On a 405: the methods this path supports.",
                "schema": {"type": "string"},
            }
        if status == 401:
            headers["WWW-Authenticate"] = {
                "description": 'The Bearer challenge; `error="invalid_token"` when a key was '
                "sent but is not valid.",
                "schema": {"type": "string"},
            }
        if status in (503, "5XX"):
            headers["Retry-After"] = {
                "description": "On a 503: seconds to wait before retrying.",
                "schema": {"type": "string"},
            }
        headers["Content-Language"] = {"$ref": "#/components/headers/ContentLanguage"}
        headers["Vary"] = {
            "description": "`Accept-Language`: the problem's language follows the request's.",
            "schema": {"type": "string"},
        }
        content: dict[str, Any] = {"schema": {"$ref": "#/components/schemas/Problem"}}
        examples = PROBLEM_EXAMPLES.get(name, {})
        if examples:
            content["examples"] = {key: {"value": dict(doc)} for key, doc in examples.items()}
        responses[name] = {
            "description": description,
            "headers": headers,
            "content": {PROBLEM_MEDIA_TYPE: content},
        }
    return responses


def _json_body(schema: type[Schema] | None, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    return {"schema": schema if schema is not None else dict(raw or {"type": "object"})}


def _operation(
    op: Operation, schemas: RequestSchemas, protected: bool, signed: bool
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "operationId": op.operation_id,
        "summary": op.summary,
        "tags": [op.tag],
    }
    # Explicit either way: an open operation says so (``[]``), so a generated client never
    # applies a document-wide default to it.
    doc["security"] = [dict(requirement) for requirement in SECURITY] if protected else []
    doc["parameters"] = ["AcceptLanguage"]  # apispec resolves a component name to its $ref
    if op.description:
        doc["description"] = op.description
    if op.request is not None:
        schema = op.request if isinstance(op.request, type) else op.request(schemas)
        content: dict[str, Any] = {"schema": schema}
        if op.request_examples:
            content["examples"] = {
                name: {"value": value} for name, value in op.request_examples.items()
            }
        doc["requestBody"] = {"required": True, "content": {JSON_MEDIA_TYPE: content}}
    ok: dict[str, Any] = {
        "description": op.response_description,
        "headers": {"X-Request-ID": {"$ref": "#/components/headers/RequestId"}},
    }
    if signed:
        ok["headers"]["Verdict-Receipt"] = {"$ref": "#/components/headers/VerdictReceipt"}
    if op.response is not None or op.raw_response is not None:
        body = _json_body(op.response, op.raw_response)
        if op.response_examples:
            body["examples"] = {
                name: {"value": value} for name, value in op.response_examples.items()
            }
        ok["content"] = {op.response_media: body}
    responses: dict[str, Any] = {"200": ok}
    for status, description in op.other_responses.items():
        responses[str(status)] = {"description": description}
    explicit = sorted({401, *op.problems}) if protected else op.problems
    for problem in (*explicit, *RANGES):
        name = PROBLEM_RESPONSES[problem][0]
        responses[str(problem)] = {"$ref": f"#/components/responses/{name}"}
    doc["responses"] = responses
    return doc


# ------------------------------------------------------------------------------------------------
# Shared schemas: one named component per value set, referenced wherever it is used
# ------------------------------------------------------------------------------------------------

SHARED_ENUMS: Final[Mapping[str, tuple[str, tuple[str, ...]]]] = {
    "CardCode": (
        "A card in the canonical form every answer uses: rank (`9 10 J Q K A`) then suit "
        "(`S C H D`), Latin, upper case.",
        CARD_CODES,
    ),
    "SuitCode": ("A suit in canonical form: `S`, `C`, `H` or `D`.", SUIT_CODES),
    "ActionType": ("A betting action's kind (docs/rules.md §9).", ACTION_TYPES),
    "CombinationType": (
        "A scoring combination (docs/rules.md §4).",
        tuple(t.value for t in CombinationType),
    ),
    "ReasonCode": (
        "Why a betting action is illegal (docs/rules.md §9).",
        tuple(c.value for c in ReasonCode),
    ),
    "Ruleset": ("The ruleset an answer follows (docs/rules.md).", (RULESET,)),
}
"""Enumerations apispec would repeat inline at every use (and a client generator would turn into
one type per use): each becomes a component, and every schema whose ``enum`` lists exactly its
values (``null`` aside) refers to it instead."""
SHARED_PATTERNS: Final[Mapping[str, tuple[str, str, tuple[str, ...]]]] = {
    "CardSpelling": (CARD_DESCRIPTION, CARD_PATTERN, ("KS", "10h", "T♦", "КП")),
    "TrumpSpelling": (TRUMP_DESCRIPTION, TRUMP_PATTERN, ("H", "♥", "Ч")),
}
"""The request spellings of a card and a trump, by their ``pattern`` (``fields.CardField``,
``fields.TrumpField``)."""
_REPLACEABLE: Final = frozenset({"type", "enum", "pattern", "description", "example", "default"})
"""What a schema replaced by a reference may hold: anything else would be lost, so it fails."""


def _shared_components() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for name, (description, values) in SHARED_ENUMS.items():
        found[name] = {"type": "string", "enum": list(values), "description": description}
    for name, (description, pattern, examples) in SHARED_PATTERNS.items():
        found[name] = {
            "type": "string",
            "pattern": pattern,
            "description": description,
            "examples": list(examples),
        }
    return found


def _shared_name(node: Mapping[str, Any]) -> str | None:
    pattern = node.get("pattern")
    for name, (_, shared, _) in SHARED_PATTERNS.items():
        if pattern == shared:
            return name
    if "enum" in node:
        values = tuple(v for v in node["enum"] if v is not None)
        for name, (_, shared_values) in SHARED_ENUMS.items():
            if values == shared_values:
                return name
    return None


def _share(node: Any, components: Mapping[str, Mapping[str, Any]]) -> Any:
    """``node`` with every shared value set replaced by a ``$ref`` (``anyOf`` with ``null`` when
    the value may be null), keeping the use's own description and default."""
    if isinstance(node, list):
        return [_share(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    name = _shared_name(node)
    if name is None:
        return {
            key: value if key in ("example", "examples") else _share(value, components)
            for key, value in node.items()
        }
    extra = set(node) - _REPLACEABLE
    if extra:
        raise ValueError(f"{name}: a shared schema's use also has {sorted(extra)}")
    kinds = node.get("type")
    nullable = None in node.get("enum", ()) or (isinstance(kinds, list) and "null" in kinds)
    ref = {"$ref": f"#/components/schemas/{name}"}
    kept = {
        key: node[key]
        for key in ("description", "default")
        if key in node and node[key] != components[name].get(key)
    }
    if nullable:
        return {"anyOf": [ref, {"type": "null"}], **kept}
    return {**ref, **kept}


def _action_variants(derived: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``Action`` as one schema per kind, discriminated by ``type``: what a client generator
    turns into a tagged union. The document only: ``schemas.ActionSchema`` still validates, and
    this says exactly what it accepts (``amount`` for every kind but ``FOLD``, never for it)."""
    properties = derived["properties"]
    variants: dict[str, dict[str, Any]] = {}
    mapping: dict[str, str] = {}
    for kind in ACTION_TYPES:
        name = "".join(part.capitalize() for part in kind.split("_")) + "Action"
        mapping[kind] = f"#/components/schemas/{name}"
        own: dict[str, Any] = {
            "player": properties["player"],
            "type": {"type": "string", "const": kind},
        }
        required = ["player", "type"]
        if kind == FOLD:
            description = "`fold`: `player` leaves the round; it takes no `amount`."
        else:
            own["amount"] = {**properties["amount"], "description": f"Chips put in by the {kind}."}
            required.append("amount")
            description = f"`{kind}`: `player` puts `amount` chips in the pot."
        variants[name] = {
            "type": "object",
            "description": description,
            "properties": own,
            "required": required,
            "additionalProperties": False,
        }
    union = {
        "description": "One betting action, by `type`: `fold` takes no `amount`, every other "
        "type needs one (docs/rules.md §9).",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    return {"Action": union, **variants}


def _finish(spec: dict[str, Any]) -> dict[str, Any]:
    """The one pass over apispec's output: ``Action`` becomes a discriminated union, then shared
    value sets become references to their components (added after the derived schemas)."""
    schemas: dict[str, Any] = {}
    for name, schema in spec["components"]["schemas"].items():
        if name == "Action":
            schemas.update(_action_variants(schema))
        else:
            schemas[name] = schema
    shared = _shared_components()
    spec["components"]["schemas"] = schemas
    spec = _share(spec, shared)
    spec["components"]["schemas"].update(shared)
    return spec


def build_spec(endpoints: Sequence[Endpoint], schemas: RequestSchemas) -> dict[str, Any]:
    """The OpenAPI document of the service serving ``endpoints`` (each record carries its
    operation: no route can exist undocumented)."""
    plugin = MarshmallowPlugin()
    spec = APISpec(
        title=TITLE,
        version=service_version(),
        openapi_version=OPENAPI_VERSION,
        plugins=[plugin],
        info={
            "description": DESCRIPTION,
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        servers=[dict(server) for server in SERVERS],
        tags=list(TAGS),
    )
    assert plugin.converter is not None
    converter: Any = plugin.converter  # apispec's converter methods are untyped
    converter.map_to_openapi_type(HandsByPlayer, "object", None)
    converter.add_attribute_function(_field_extras)
    spec.components.schema("Problem", schema=ProblemSchema)
    spec.components.schema("Action", schema=ActionSchema)
    for name, response in _problem_responses().items():
        spec.components.response(name, response)
    spec.components.header("RequestId", REQUEST_ID_HEADER)
    spec.components.header("VerdictReceipt", RECEIPT_HEADER)
    spec.components.header(
        "ContentLanguage",
        {
            "description": "The language of the problem's `title`, `detail` and messages.",
            "schema": {"type": "string", "enum": ["en", "ru"]},
        },
    )
    spec.components.parameter(
        "AcceptLanguage",
        "header",
        {
            "name": "Accept-Language",
            "required": False,
            "description": "Prefer `ru` for problem documents in Russian (`title`, `detail`, "
            "`errors[].message`); codes, pointers and types never change. Default: English.",
            "schema": {"type": "string", "example": "ru-RU,ru;q=0.9,en;q=0.8"},
        },
    )
    spec.components.security_scheme(
        SECURITY_SCHEME,
        {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key, when the deployment configures them (`API_KEYS` or "
            "`API_KEYS_FILE`); `/v1` only.",
        },
    )

    paths: dict[str, dict[str, Any]] = {}
    for endpoint in sorted(endpoints, key=lambda e: (e.path, e.method)):
        protected = is_protected_template(endpoint.path)
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = _operation(
            endpoint.operation, schemas, protected, endpoint.is_verdict
        )
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    return _finish(spec.to_dict())


class _Dumper(yaml.SafeDumper):
    """Block YAML without anchors/aliases, multi-line strings as literal blocks."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)

TOP_LEVEL_ORDER: Final = ("openapi", "info", "servers", "tags", "paths", "components")


def render_yaml(spec: Mapping[str, Any]) -> str:
    """The committed form: block YAML, keys in generation order, Unicode kept literal."""
    ordered = {key: spec[key] for key in TOP_LEVEL_ORDER if key in spec}
    ordered.update({key: value for key, value in spec.items() if key not in ordered})
    return yaml.dump(ordered, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)

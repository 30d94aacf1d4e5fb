"""The OpenAPI 3.1 document, generated from the app's routes, marshmallow schemas and answers.

``python -m quart_bezique.api`` prints it for the default configuration; ``make openapi`` writes
that to ``openapi.yaml``, the committed contract, and the app serves the same bytes (a test compares
them). No answer example is written by hand: when the document is first built, each request example
goes down its endpoint's road and each fetched answer comes from its view, in-process (``answers``),
under the default configuration, unsigned and ready, so no deployment's limits, keys or state show.
The build manifest is the one fact that differs by machine: its example keeps three files whose
bytes are fixed and a stand-in interpreter (``example_manifest``), so the bytes match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from flask import Flask
from marshmallow import Schema, fields
from werkzeug.test import EnvironBuilder

from quart_bezique.api.config import DEFAULT_MAX_BODY_BYTES, Config, service_version
from quart_bezique.api.contract.fields import (
    CARD_CODES,
    CARD_DESCRIPTION,
    CARD_PATTERN,
    RULESET_CHOICE,
    RULESET_IDS,
    SUIT_CODES,
    TRUMP_DESCRIPTION,
    TRUMP_PATTERN,
    HandsByPlayer,
    JsonSchemaMixin,
    ruleset_choice_schema,
)
from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.contract.problems import (
    AUDIT_UNAVAILABLE,
    MALFORMED_JSON,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    NOT_READY,
    PROBLEM_MEDIA_TYPE,
    PROBLEM_TYPES,
    UNAUTHORIZED,
    UNSUPPORTED_MEDIA_TYPE,
    VALIDATION_ERROR,
    Problem,
    problems_by_status,
    rules_problem,
    shown_code,
)
from quart_bezique.api.contract.reading import too_large
from quart_bezique.api.contract.schemas import (
    ACTION_TYPES,
    FOLD,
    ActionSchema,
    ProblemSchema,
    RequestSchemas,
    request_schemas,
)
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources
from quart_bezique.api.envelope.audit import PLAIN
from quart_bezique.api.envelope.body import JSON_MEDIA_TYPE
from quart_bezique.api.envelope.exchange import Exchange
from quart_bezique.api.envelope.road import Road
from quart_bezique.api.envelope.routes import is_protected_template
from quart_bezique.game.betting import ReasonCode
from quart_bezique.game.errors import RulesError
from quart_bezique.game.scoring import CombinationType, ensure_tables
from quart_bezique.integrity import Manifest

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

_SHUTTING_DOWN: Final = Problem(NOT_READY, "the service is shutting down")
PROBLEM_EXAMPLES: Final[Mapping[str, Mapping[str, Problem]]] = {
    "MalformedJson": {
        "truncated_body": Problem(
            MALFORMED_JSON,
            "the body is not valid JSON: the error is at line 1, column 2",
        )
    },
    "Unauthorized": {
        "no_key": Problem(
            UNAUTHORIZED, "this service needs an API key: send Authorization: Bearer <key>"
        )
    },
    "BodyTooLarge": {"too_many_bytes": too_large(DEFAULT_MAX_BODY_BYTES)},
    "UnsupportedMediaType": {
        "text_plain": Problem(
            UNSUPPORTED_MEDIA_TYPE,
            "the body must be sent as application/json; it was sent as text/plain",
        )
    },
    "Unprocessable": {
        "validation_error": Problem(
            VALIDATION_ERROR,
            "/cards: a hand holds exactly 4 cards, not 1",
            errors=[
                {
                    "pointer": "/cards",
                    "message": "a hand holds exactly 4 cards, not 1",
                    "code": "WRONG_HAND_SIZE",
                }
            ],
        ),
        "rules_violation": rules_problem(
            RulesError(
                "the hands hold KS 7 times together; a shoe holds each card only 6 times",
                code="SHOE_EXCEEDED",
                path=("hands",),
            )
        ),
    },
    "NotReady": {"shutting_down": _SHUTTING_DOWN},
    "ClientError": {
        "not_found": Problem(NOT_FOUND, "no resource at /v1/hand/score"),
        "method_not_allowed": Problem(
            METHOD_NOT_ALLOWED, "GET is not allowed on /v1/hands/score; allowed: OPTIONS, POST"
        ),
    },
    "ServerError": {
        "shutting_down": _SHUTTING_DOWN,
        "audit_unavailable": Problem(
            AUDIT_UNAVAILABLE,
            "the audit log is not keeping up: no verdict is given without its record; "
            "retry shortly",
        ),
    },
}
"""Each problem response's examples: the type, title, status and code come from the problem
types; each detail is what the service says to the request that the test of the examples makes
(``tests/api/test_api_examples.py``), where each document is compared with the real answer."""


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
            content["examples"] = {
                key: {"value": problem.document()} for key, problem in examples.items()
            }
        responses[name] = {
            "description": description,
            "headers": headers,
            "content": {PROBLEM_MEDIA_TYPE: content},
        }
    return responses


def _json_body(schema: type[Schema] | None, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    return {"schema": schema if schema is not None else dict(raw or {"type": "object"})}


def _operation(
    op: Operation,
    schemas: RequestSchemas,
    protected: bool,
    signed: bool,
    shown: Mapping[str, Any],
) -> dict[str, Any]:
    """``shown``: the answer examples, by name (``_shown``)."""
    doc: dict[str, Any] = {
        "operationId": op.operation_id,
        "summary": op.summary,
        "tags": [op.tag],
    }
    # Explicit either way: an open operation says so (``[]``), so a generated client never
    # applies a document-wide default to it.
    doc["security"] = [dict(requirement) for requirement in SECURITY] if protected else []
    # apispec resolves a component name to its $ref
    doc["parameters"] = ["AcceptLanguage", *(dict(p) for p in op.parameters)]
    if op.description:
        doc["description"] = op.description
    if op.request is not None:
        schema = op.request if isinstance(op.request, type) else op.request(schemas)
        content: dict[str, Any] = {"schema": schema}
        if op.request_examples:
            content["examples"] = {
                name: {"value": value} for name, value in op.request_examples.items()
            }
        doc["requestBody"] = {"required": True, "content": {op.request_media: content}}
    ok: dict[str, Any] = {
        "description": op.response_description,
        "headers": {"X-Request-ID": {"$ref": "#/components/headers/RequestId"}},
    }
    if signed:
        ok["headers"]["Verdict-Receipt"] = {"$ref": "#/components/headers/VerdictReceipt"}
    if op.response is not None or op.raw_response is not None:
        body = _json_body(op.response, op.raw_response)
        if shown:
            body["examples"] = {name: {"value": value} for name, value in shown.items()}
        ok["content"] = {op.response_media: body}
    elif shown:
        raise ValueError(f"{op.operation_id}: answer examples, but no answer content to show them")
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
    "RulesetId": (
        "A ruleset's canonical id (docs/rules.md §13.6): a preset's name, or `classic/1:` and the "
        "switches that differ from it, sorted by name.",
        RULESET_IDS,
    ),
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


def build_spec(
    endpoints: Sequence[Endpoint], schemas: RequestSchemas, answered: Answers
) -> dict[str, Any]:
    """The OpenAPI document of the service serving ``endpoints`` (each record carries its
    operation: no route can exist undocumented), showing the answers ``answered`` to each of
    their examples (``answers``)."""
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
    spec.components.schema(RULESET_CHOICE, component=ruleset_choice_schema())
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
        operation = endpoint.operation
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = _operation(
            operation, schemas, protected, endpoint.is_verdict, _shown(operation, answered)
        )
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    return _finish(spec.to_dict())


# ------------------------------------------------------------------------------------------------
# Answer examples: the service's own answers to the examples, made in-process
# ------------------------------------------------------------------------------------------------

EXAMPLE_CONFIG: Final = Config(build_tables=False)
"""The configuration every example is answered under: the defaults, the committed document's."""
EXAMPLE_FILES: Final = ("flask/__init__.py", "marshmallow/__init__.py", "quart_bezique/py.typed")
"""The files the build's example keeps of the manifest: two dependencies' (their bytes are fixed by
``constraints.txt``) and the package's type marker (empty). The others differ by machine (bytecode,
an editable install's extras) or change with the package's code."""
EXAMPLE_PYTHON: Final = "3.11.7"
"""Stands for the interpreter's version in the build's example: each machine has its own."""
EXAMPLE_IMPLEMENTATION: Final = "cpython 3.11"
"""Stands for the interpreter's implementation in the build's example (``EXAMPLE_PYTHON``'s)."""
DOCUMENTED_STATUS: Final = 200
"""The status every example's answer is shown under."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What the service answered to one example."""

    status: int
    body: Any
    """The JSON body (a problem document when the example was refused)."""


Answers = Mapping[str, Mapping[str, Answer]]
"""The answers to the examples, by operation id, then example name."""


def example_manifest(manifest: Manifest) -> Manifest:
    """``manifest`` as the examples show it: ``EXAMPLE_FILES`` only, ``EXAMPLE_PYTHON`` and
    ``EXAMPLE_IMPLEMENTATION`` for the interpreter, the dependencies' versions as installed
    (``constraints.txt`` pins them). Its digest is the ``build`` the examples show."""
    missing = [name for name in EXAMPLE_FILES if name not in manifest.files]
    if missing:
        raise ValueError(f"the build manifest lists no {', '.join(missing)}")
    return Manifest(
        version=manifest.version,
        ruleset=manifest.ruleset,
        python=EXAMPLE_PYTHON,
        implementation=EXAMPLE_IMPLEMENTATION,
        files={name: manifest.files[name] for name in EXAMPLE_FILES},
        dependencies=manifest.dependencies,
    )


def answers(
    endpoints: Sequence[Endpoint], app: Flask, manifest: Manifest | None, version: str
) -> dict[str, dict[str, Answer]]:
    """The service's answer to each example of ``endpoints``: each request example sent down its
    endpoint's road, each ``answer_example`` fetched from its view (in a request context of
    ``app``), all built afresh from example resources: ``EXAMPLE_CONFIG``, no signing key, no
    readiness check but the process's own, ``example_manifest(manifest)``. Nothing passes
    through the envelope, so no example leaves an audit line or a metric."""
    if manifest is None:
        raise RuntimeError("the build manifest cannot be computed, so neither can its examples")
    ensure_tables()  # the answers of a ready service: /readyz says so once the tables are built
    roads: dict[str, Road] = {}
    resources = Resources(
        config=EXAMPLE_CONFIG,
        schemas=request_schemas(EXAMPLE_CONFIG),
        version=version,
        manifest=example_manifest(manifest),
        roads=roads.__getitem__,
        draining=lambda: False,  # the answers of a serving worker, even if this one is stopping
    )
    for endpoint in endpoints:
        road = endpoint.road(resources)
        if road is not None:
            roads[endpoint.path] = road
    found: dict[str, dict[str, Answer]] = {}
    for endpoint in endpoints:
        operation = endpoint.operation
        if endpoint.handler is not None:
            road = roads[endpoint.path]
            found[operation.operation_id] = {
                name: _posted(road, endpoint.path, body)
                for name, body in operation.request_examples.items()
            }
        elif operation.answer_example is not None:
            answer = _fetched(app, endpoint, resources)
            found[operation.operation_id] = {operation.answer_example: answer}
    return found


def _posted(road: Road, path: str, body: Any) -> Answer:
    environ = EnvironBuilder(
        path=path, method="POST", data=orjson.dumps(body), content_type=JSON_MEDIA_TYPE
    ).get_environ()
    status, _, answer = road(environ, Exchange("example", PLAIN, audit_log=False))
    return Answer(int(status[:3]), orjson.loads(answer))


def _fetched(app: Flask, endpoint: Endpoint, resources: Resources) -> Answer:
    if endpoint.view is None:
        raise ValueError(f"{endpoint.path}: an answer example needs a view to fetch it from")
    view = endpoint.view(resources)
    headers = {"Accept": JSON_MEDIA_TYPE}
    with app.test_request_context(endpoint.path, method=endpoint.method, headers=headers):
        try:
            response = app.make_response(view())
        except Problem as problem:
            return Answer(problem.status, problem.document())
    return Answer(response.status_code, orjson.loads(response.get_data()))


def _shown(operation: Operation, answered: Answers) -> dict[str, Any]:
    """The bodies the document shows as ``operation``'s answer examples: one per request example
    (by its name) or its ``answer_example``, each answered ``DOCUMENTED_STATUS``."""
    names = list(operation.request_examples)
    if operation.answer_example is not None:
        names.append(operation.answer_example)
    got = answered.get(operation.operation_id, {})
    if set(got) != set(names):
        raise ValueError(f"{operation.operation_id}: examples {names}, answers to {list(got)}")
    shown: dict[str, Any] = {}
    for name in names:
        answer = got[name]
        if answer.status != DOCUMENTED_STATUS:
            raise ValueError(
                f"{operation.operation_id}: its example {name!r} is answered {answer.status}, "
                f"not {DOCUMENTED_STATUS}: {answer.body}"
            )
        shown[name] = answer.body
    return shown


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

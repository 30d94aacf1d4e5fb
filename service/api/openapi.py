"""The OpenAPI 3.1 document, generated from the app's routes and marshmallow schemas.

``python -m service.api.openapi`` prints it as YAML for the default configuration; ``make openapi``
writes that to ``openapi.yaml``, the committed contract. The app serves the very same bytes at
``/openapi.yaml`` (and the same document at ``/openapi.json``); a test fails when they differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import Any, Final

import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from flask import Flask
from marshmallow import Schema, fields

from .audit import SIGNED_ROUTES
from .fields import HandsByPlayer, JsonSchemaMixin
from .http import JSON_MEDIA_TYPE
from .problems import PROBLEM_MEDIA_TYPE
from .routing import Operation, operation_of
from .schemas import ActionSchema, BaseSchema, ProblemSchema, RequestSchemas

OPENAPI_VERSION: Final = "3.1.0"
TITLE: Final = "Quart-Bezique adjudication service"
UNDOCUMENTED_ENDPOINTS: Final = frozenset({"docs.static", "adjudicate.static"})
"""Routes that are not operations: the docs page's own assets."""

DESCRIPTION: Final = """\
The reference adjudicator for Quart-Bezique (Кварт-Безик): scores hands, compares them at a
showdown, judges betting sequences and settles rounds, exactly as its rules specification says
(`docs/rules.md` in the source repository, ruleset `classic/1`; served as data at `/v1/rules`).
Stateless: every answer depends only on the request body.

Every request body is JSON (`Content-Type: application/json`). Every refusal is an RFC 9457
problem document (`application/problem+json`) with `type`, `title`, `status`, `detail` and a
stable `code`; validation problems add `errors`, each a JSON pointer into the body and a message.

| status | when | code |
|---|---|---|
| 400 | the body is not valid JSON (or not UTF-8, or NaN/Infinity, or an integer beyond 64 bits, \
or nested deeper than 254 levels, or repeats a key within one object) | `MALFORMED_JSON` |
| 401 | API keys are configured and the request has none, or not a valid one \
(`WWW-Authenticate` says which) | `UNAUTHORIZED` |
| 404 | no such path | `NOT_FOUND` |
| 408 | the body did not arrive within the deadline (10 s by default); the connection is closed \
| `REQUEST_TIMEOUT` |
| 405 | the path exists, the method does not (the `Allow` header lists the methods) \
| `METHOD_NOT_ALLOWED` |
| 413 | the body is larger than the limit (1 MiB by default), or holds more JSON values \
 than the largest valid request | `BODY_TOO_LARGE` |
| 415 | the body is not sent as `application/json` | `UNSUPPORTED_MEDIA_TYPE` |
| 422 | the JSON does not match the request schema | `VALIDATION_ERROR` |
| 422 | the request is well formed but the rules refuse it | the rules' code, e.g. \
`SHOE_EXCEEDED`, `DEALER_NOT_SEATED`, `ROUND_NOT_FINISHED` |

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

PROBLEM_RESPONSES: Final[Mapping[int, tuple[str, str]]] = {
    400: ("MalformedJson", "The body is not valid JSON."),
    401: (
        "Unauthorized",
        "API keys are configured and the request carries none, or not a valid one.",
    ),
    404: ("NotFound", "No such path."),
    405: (
        "MethodNotAllowed",
        "The path does not support this method; `Allow` lists those it does.",
    ),
    413: (
        "BodyTooLarge",
        "The body is larger than the configured limit, or holds more JSON values than the "
        "largest valid request.",
    ),
    415: ("UnsupportedMediaType", "The body is not sent as `application/json`."),
    422: (
        "Unprocessable",
        "The body does not match the schema (`VALIDATION_ERROR`), or the rules refuse it (their "
        "code). `errors` points at each refused field.",
    ),
    503: ("NotReady", "Not ready to serve (starting or shutting down)."),
}


SECURITY_SCHEME: Final = "apiKey"
PROTECTED_PREFIX: Final = "/v1/"
SECURITY: Final[tuple[dict[str, list[str]], ...]] = ({SECURITY_SCHEME: []}, {})
"""A key, or none: whether keys are needed is the deployment's choice (``API_KEYS``)."""
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


def service_version() -> str:
    """The installed package's version (the audit log, build info and the document carry it)."""
    try:
        return metadata.version("quart-bezique")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


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
    for status, (name, description) in PROBLEM_RESPONSES.items():
        headers: dict[str, Any] = {"X-Request-ID": {"$ref": "#/components/headers/RequestId"}}
        if status == 405:
            headers["Allow"] = {
                "description": "The methods this path supports.",
                "schema": {"type": "string"},
            }
        if status == 401:
            headers["WWW-Authenticate"] = {
                "description": 'The Bearer challenge; `error="invalid_token"` when a key was '
                "sent but is not valid.",
                "schema": {"type": "string"},
            }
        responses[name] = {
            "description": description,
            "headers": headers,
            "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
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
    if protected:
        doc["security"] = [dict(requirement) for requirement in SECURITY]
    if op.description:
        doc["description"] = op.description
    if op.request is not None:
        schema = op.request if isinstance(op.request, type) else getattr(schemas, op.request)
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
        ok["content"] = {op.response_media: _json_body(op.response, op.raw_response)}
    responses: dict[str, Any] = {"200": ok}
    for status, description in op.other_responses.items():
        responses[str(status)] = {"description": description}
    for status in sorted({401, *op.problems}) if protected else op.problems:
        name = PROBLEM_RESPONSES[status][0]
        responses[str(status)] = {"$ref": f"#/components/responses/{name}"}
    doc["responses"] = responses
    return doc


def build_spec(app: Flask, schemas: RequestSchemas) -> dict[str, Any]:
    """The OpenAPI document of ``app``: every route must carry an ``Operation``."""
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
        tags=list(TAGS),
    )
    assert plugin.converter is not None
    converter: Any = plugin.converter  # apispec's converter methods are untyped
    converter.map_to_openapi_type(HandsByPlayer, "object", None)
    converter.add_attribute_function(_field_extras)
    spec.components.schema("Problem", schema=ProblemSchema)
    for cls in (ActionSchema,):
        spec.components.schema(_name(cls), component=dict(cls.OPENAPI_EXTRA), schema=cls)
    for name, response in _problem_responses().items():
        spec.components.response(name, response)
    spec.components.header("RequestId", REQUEST_ID_HEADER)
    spec.components.header("VerdictReceipt", RECEIPT_HEADER)
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
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if rule.endpoint in UNDOCUMENTED_ENDPOINTS:
            continue
        op = operation_of(app.view_functions[rule.endpoint])
        if op is None:
            raise LookupError(f"route {rule.rule} ({rule.endpoint}) has no documented operation")
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            protected = rule.rule.startswith(PROTECTED_PREFIX)
            signed = rule.rule in SIGNED_ROUTES
            paths.setdefault(rule.rule, {})[method.lower()] = _operation(
                op, schemas, protected, signed
            )
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    return spec.to_dict()


def _name(cls: type[BaseSchema]) -> str:
    name = cls.__name__
    return name[: -len("Schema")] if name.endswith("Schema") else name


class _Dumper(yaml.SafeDumper):
    """Block YAML without anchors/aliases, multi-line strings as literal blocks."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)

TOP_LEVEL_ORDER: Final = ("openapi", "info", "tags", "paths", "components")


def render_yaml(spec: Mapping[str, Any]) -> str:
    """The committed form: block YAML, keys in generation order, Unicode kept literal."""
    ordered = {key: spec[key] for key in TOP_LEVEL_ORDER if key in spec}
    ordered.update({key: value for key, value in spec.items() if key not in ordered})
    return yaml.dump(ordered, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)

"""``GET /v1/rulesets``: every preset and switch a request may name (docs/rules.md §13).

The document is built by ``wire.rulesets`` from the core's own switches and presets (the command
line's ``rulesets --json`` prints the same bytes), once per app, and served as bytes.
"""

from __future__ import annotations

import orjson
from flask import Response
from marshmallow import fields, validate

from quart_bezique.api.contract.fields import RULESET_IDS
from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.contract.schemas import BaseSchema
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources, View, static_json
from quart_bezique.game.ruleset import SWITCHES
from quart_bezique.wire.rulesets import rulesets_document


class SwitchSchema(BaseSchema):
    name = fields.String(required=True, validate=validate.OneOf([s.name for s in SWITCHES]))
    values = fields.List(
        fields.Raw(), required=True, metadata={"description": "The first is classic/1's."}
    )
    default = fields.Raw(required=True, metadata={"description": "classic/1's value."})
    anchor = fields.String(
        required=True, metadata={"description": "Where docs/rules.md states it."}
    )


class PresetSchema(BaseSchema):
    id = fields.String(required=True, validate=validate.OneOf(RULESET_IDS))
    sha256 = fields.String(
        required=True,
        validate=validate.Regexp("^[0-9a-f]{64}$"),
        metadata={"description": "SHA-256 (hex) of its switch values as canonical JSON."},
    )
    switches = fields.Dict(keys=fields.String(), values=fields.Raw(), required=True)
    anchor = fields.String(required=True)


class RulesetsSchema(BaseSchema):
    """The rulesets a request may name."""

    default = fields.String(required=True, validate=validate.OneOf(RULESET_IDS))
    switches = fields.List(fields.Nested(SwitchSchema), required=True)
    presets = fields.List(fields.Nested(PresetSchema), required=True)


RULESETS = Operation(
    operation_id="getRulesets",
    summary="The rulesets a request may name",
    tag="rules",
    description="The presets (id, digest, switch values) and the switches (values, default), each "
    "with the rule of docs/rules.md §13 that defines it. Any verdict request may name a preset, "
    "a ruleset id, or an object of switches as its `ruleset`.",
    response=RulesetsSchema,
    answer_example="presets_and_switches",
)


def _rulesets_view(resources: Resources) -> View:
    body = orjson.dumps(rulesets_document())

    def rulesets() -> Response:
        return static_json(body)

    return rulesets


ENDPOINTS = (Endpoint("GET", "/v1/rulesets", RULESETS, _rulesets_view),)

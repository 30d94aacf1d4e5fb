"""``service/quart_bezique/api/contract/marshmallow_hooks.py`` on the installed marshmallow: the
private ``Schema._hooks`` it reads still exists, with the shape it expects, and still says which
hooks a schema has. A marshmallow that changes any of it fails here, by name, before the derived
checks or the bounded refusals go wrong."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from marshmallow import Schema, decorators, fields, post_load, pre_load, validates, validates_schema
from quart_bezique.api.contract.marshmallow_hooks import hook_names

LOAD_KINDS = (
    decorators.PRE_LOAD,
    decorators.POST_LOAD,
    decorators.VALIDATES,
    decorators.VALIDATES_SCHEMA,
)


class Plain(Schema):
    n = fields.Integer()


class Checked(Schema):
    n = fields.Integer()

    @validates_schema
    def both_sides(self, data: dict[str, Any], **kwargs: Any) -> None:
        pass


class Inherits(Checked):
    m = fields.Integer()


class EveryLoadHook(Schema):
    n = fields.Integer()

    @pre_load
    def before(self, data: Any, **kwargs: Any) -> Any:
        return data

    @post_load
    def after(self, data: Any, **kwargs: Any) -> Any:
        return data

    @validates("n")
    def n_is_fine(self, value: int, **kwargs: Any) -> None:
        pass

    @validates_schema
    def whole(self, data: Any, **kwargs: Any) -> None:
        pass


def test_a_schema_validator_is_found_and_a_plain_schema_has_none() -> None:
    assert hook_names(Checked(), decorators.VALIDATES_SCHEMA) == ("both_sides",)
    assert hook_names(Plain(), decorators.VALIDATES_SCHEMA) == ()
    for kind in LOAD_KINDS:
        assert hook_names(Plain(), kind) == (), kind


def test_an_inherited_schema_validator_is_found() -> None:
    assert hook_names(Inherits(), decorators.VALIDATES_SCHEMA) == ("both_sides",)


def test_each_load_hook_is_found_under_its_own_kind() -> None:
    schema = EveryLoadHook()
    found = {kind: hook_names(schema, kind) for kind in LOAD_KINDS}
    assert found == {
        decorators.PRE_LOAD: ("before",),
        decorators.POST_LOAD: ("after",),
        decorators.VALIDATES: ("n_is_fine",),
        decorators.VALIDATES_SCHEMA: ("whole",),
    }


def test_the_private_hook_table_keeps_its_shape() -> None:
    """``Schema._hooks``: per kind, a list of (method name, pass_collection, options)."""
    table = Checked._hooks
    assert isinstance(table, dict), f"marshmallow {version('marshmallow')}: {type(table)}"
    entries = table[decorators.VALIDATES_SCHEMA]
    assert isinstance(entries, list) and len(entries) == 1, entries
    name, many, options = entries[0]
    assert (name, many, type(options)) == ("both_sides", False, dict)
    assert not Plain._hooks.get(decorators.VALIDATES_SCHEMA)


def test_the_hook_kinds_are_the_ones_the_contract_knows() -> None:
    """``checks.py`` refuses a schema with any load-time hook it cannot mirror: a hook kind
    added by a new marshmallow would pass unseen."""
    kinds = {
        getattr(decorators, name)
        for name in dir(decorators)
        if name.isupper() and isinstance(getattr(decorators, name), str)
    }
    assert kinds == {*LOAD_KINDS, decorators.PRE_DUMP, decorators.POST_DUMP}

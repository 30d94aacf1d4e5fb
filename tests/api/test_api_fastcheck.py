"""The checks derived from the marshmallow schemas (``checks.derive``) accept exactly what the
schemas accept, and every schema a fast path uses compiles.

Bodies are generated valid, then mutated at random (values swapped for arbitrary JSON, keys dropped
or added, lists grown or shrunk), so both sides of every boundary get exercised.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema
from quart_bezique.api.config import Config
from quart_bezique.api.contract import checks
from quart_bezique.api.contract.checks import NotCompilable, derive
from quart_bezique.api.contract.schemas import ActionSchema, HandSchema, request_schemas
from quart_bezique.game.betting import MAX_MONEY
from quart_bezique.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING

LIMIT = 3  # small limits so that generated bodies cross them
SCHEMAS = request_schemas(Config(max_batch_hands=LIMIT, max_actions=LIMIT, build_tables=False))
KEYS = [
    "cards", "trump", "hands", "breakdown", "player", "players", "dealer", "ante",
    "minimum_stake", "maximum_stake", "actions", "type", "amount", "extra",
]  # fmt: skip

json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.sampled_from([0, 1, MAX_MONEY, MAX_MONEY + 1, 1.0, 2.5, -1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=4),
    st.sampled_from(["KS", "10h", "T♦", "S", "♥", "x", "", "fold", "stake", "ann", "a" * 65]),
)
json_values = st.recursive(
    json_leaves,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=8,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*path, index)))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replace(value[head], tuple(rest), new)
    return copy


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """``value`` itself half the time, else ``value`` with one node broken in one way."""
    if draw(st.booleans()):
        return value
    path = draw(st.sampled_from(_paths(value)))
    node = value
    for step in path:
        node = node[step]
    how = draw(st.integers(0, 3))
    if how == 0 or not isinstance(node, dict | list):
        new = draw(json_values)
    elif isinstance(node, dict):
        new = dict(node)
        if how == 1 and new:
            del new[draw(st.sampled_from(sorted(new)))]
        else:
            new[draw(st.sampled_from(KEYS))] = draw(json_values)
    else:
        new = list(node)
        if how == 1 and new:
            new.pop()
        elif how == 2 and new:
            new.append(new[0])
        else:
            new.append(draw(json_values))
    return _replace(value, path, new)


def mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``good`` nine times in ten: keeps whole bodies valid often enough to test acceptance."""
    return st.integers(0, 9).flatmap(lambda n: bad if n == 0 else good)


cards = st.sampled_from(sorted(CARD_BY_SPELLING))
trumps = st.none() | st.sampled_from(sorted(SUIT_BY_SPELLING))
players = mostly(
    st.sampled_from(["ann", "bob", "cid", "dan", "a" * 64, "Ω"]), st.sampled_from(["a" * 65, ""])
)
seats = mostly(
    st.lists(players, min_size=2, max_size=4, unique=True), st.lists(players, max_size=5)
)
money = mostly(
    st.integers(min_value=1, max_value=50) | st.just(MAX_MONEY),
    st.sampled_from([MAX_MONEY + 1, 0, -3]),
)
hands = mostly(st.lists(cards, min_size=4, max_size=4), st.lists(cards, min_size=3, max_size=5))


hand_bodies = st.fixed_dictionaries({"cards": hands}, optional={"trump": trumps})
batch_bodies = st.fixed_dictionaries(
    {"hands": st.lists(hand_bodies, min_size=1, max_size=LIMIT)},
    optional={"breakdown": st.booleans()},
)
showdown_bodies = st.fixed_dictionaries(
    {
        "hands": st.tuples(players, players, hands, hands).map(
            lambda t: [{"player": t[0], "cards": t[2]}, {"player": t[1], "cards": t[3]}]
        )
    },
    optional={"trump": trumps},
)
actions = st.one_of(
    st.fixed_dictionaries({"player": players, "type": st.just("fold")}),
    st.fixed_dictionaries(
        {"player": players, "type": st.sampled_from(["stake", "top_up", "open"]), "amount": money}
    ),
)
betting_fields = {
    "players": seats,
    "dealer": players,
    "ante": money,
}
betting_optional = {
    "minimum_stake": st.none() | money,
    "maximum_stake": st.none() | money,
    "actions": st.lists(actions, max_size=LIMIT),
}
betting_bodies = st.fixed_dictionaries(betting_fields, optional=betting_optional)
odds_bodies = st.fixed_dictionaries(
    {"cards": hands},
    optional={
        "trump": trumps,
        "seen": st.lists(cards, max_size=3),
        "opponents": mostly(st.integers(1, 3), st.sampled_from([0, 4, True, 1.0])),
        "samples": mostly(st.integers(1, 20_000), st.sampled_from([0, 20_001])),
        "seed": mostly(st.integers(0, 2**32), st.sampled_from([-1, 2**64])),
    },
)
settle_bodies = st.fixed_dictionaries(
    betting_fields,
    optional={
        **betting_optional,
        "trump": trumps,
        "hands": st.none() | st.dictionaries(players, hands, max_size=5),
    },
)


def schema_accepts(schema: Schema, body: Any) -> bool:
    try:
        schema.load(body)
    except ValidationError:
        return False
    return True


def check(fast: Callable[[Any], bool], schema: Schema, body: Any) -> None:
    assert fast(body) == schema_accepts(schema, body), (body, checks.source_of(fast))


DERIVED = {
    name: derive(getattr(SCHEMAS, name)())
    for name in ("hand", "batch", "showdown", "betting", "settle", "odds")
}


PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(hand_bodies.flatmap(mutated))
def test_hand(body: Any) -> None:
    check(DERIVED["hand"], SCHEMAS.hand(), body)


@PROPERTY
@given(batch_bodies.flatmap(mutated))
def test_batch(body: Any) -> None:
    check(DERIVED["batch"], SCHEMAS.batch(), body)


@PROPERTY
@given(showdown_bodies.flatmap(mutated))
def test_showdown(body: Any) -> None:
    check(DERIVED["showdown"], SCHEMAS.showdown(), body)


@PROPERTY
@given(betting_bodies.flatmap(mutated))
def test_betting(body: Any) -> None:
    check(DERIVED["betting"], SCHEMAS.betting(), body)


@PROPERTY
@given(settle_bodies.flatmap(mutated))
def test_settle(body: Any) -> None:
    check(DERIVED["settle"], SCHEMAS.settle(), body)


@PROPERTY
@given(odds_bodies.flatmap(mutated))
def test_odds(body: Any) -> None:
    check(DERIVED["odds"], SCHEMAS.odds(), body)


@PROPERTY
@given(json_values)
def test_arbitrary_json_is_judged_alike(body: Any) -> None:
    for name, derived in DERIVED.items():
        check(derived, getattr(SCHEMAS, name)(), body)


def test_the_shared_checks_are_the_schemas() -> None:
    three = request_schemas(Config(max_actions=3, build_tables=False))
    showdown_ok = checks.check_for(three.showdown)
    betting_ok = checks.check_for(three.betting)
    settle_ok = checks.check_for(three.settle)
    assert showdown_ok(
        {"hands": [{"player": "a", "cards": ["KS"] * 4}, {"player": "b", "cards": ["9S"] * 4}]}
    )
    assert not showdown_ok(
        {"hands": [{"player": "a", "cards": ["KS"] * 4}, {"player": "a", "cards": ["9S"] * 4}]}
    )
    assert betting_ok({"players": ["a", "b"], "dealer": "b", "ante": 1})
    assert not betting_ok({"players": ["a", "b"], "dealer": "b", "ante": 1, "trace": 1})
    assert settle_ok({"players": ["a", "b"], "dealer": "b", "ante": 1, "hands": None})
    assert checks.check_for(three.betting) is betting_ok  # compiled once, shared


# --- every schema a fast path uses compiles; what cannot be compiled is refused -----------------


def test_every_fast_path_schema_compiles() -> None:
    """The request schemas of the app (their derived checks serve the score and betting
    pre-dispatch, the views' fast checks and the batch loop), under the default limits too."""
    for schemas in (SCHEMAS, request_schemas(Config(build_tables=False))):
        for name in ("hand", "batch", "showdown", "betting", "settle", "odds"):
            derive(getattr(schemas, name)())
    for item in (HandSchema(), ActionSchema()):  # the item checks of ``guard.explain``
        derive(item)


def test_what_the_compiler_does_not_know_is_not_compiled() -> None:
    from marshmallow import EXCLUDE, fields, validate, validates, validates_schema

    class Loose(Schema):
        class Meta:
            unknown = EXCLUDE

        a = fields.Integer()

    class Email(Schema):
        a = fields.Email()

    class Pattern(Schema):
        a = fields.String(validate=validate.Regexp("x"))

    class FieldHook(Schema):
        a = fields.Integer()

        @validates("a")
        def _a(self, value: Any, **kwargs: Any) -> None:
            pass

    class SchemaHook(Schema):
        a = fields.Integer()

        @validates_schema
        def _a(self, data: Any, **kwargs: Any) -> None:
            pass

    class Sub(fields.String):
        pass

    class Subclassed(Schema):
        a = Sub()

    for schema in (Loose, Email, Pattern, FieldHook, SchemaHook, Subclassed):
        try:
            derive(schema())
        except NotCompilable:
            continue
        raise AssertionError(f"{schema.__name__} compiled")


# --- every rule the compiler knows, on a schema of its own ---------------------------------------

LETTERS = frozenset("ab")


class Letter(fields.String):
    """A custom field with a fast check (two of them share its constant in the generated code)."""

    def fast_check(self) -> checks.FastCheck:
        return checks.Member(LETTERS)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if text not in LETTERS:
            raise ValidationError("not a letter")
        return text


class Tag(Schema):
    name = fields.String(required=True)


class Toy(Schema):
    """The rules no request schema of the service happens to use, each once."""

    flag = fields.Boolean(required=True)
    some = fields.List(
        fields.Integer(strict=True, validate=validate.Range(min=0)),
        validate=validate.Length(min=1),
    )
    few = fields.List(
        fields.String(validate=validate.OneOf(["a", "b"])), validate=validate.Length(max=2)
    )
    below = fields.Integer(strict=True, validate=validate.Range(max=10, max_inclusive=False))
    above = fields.Integer(strict=True, validate=validate.Range(min=0, min_inclusive=False))
    anything = fields.Integer(strict=True, validate=validate.Range())
    named = fields.String(validate=validate.Length())
    first = Letter()
    second = Letter()
    tags = fields.List(fields.Nested(Tag))

    @validates_schema
    @checks.fast_rule(checks.Distinct("tags", "name"))
    def _distinct_tags(self, data: dict[str, Any], **kwargs: Any) -> None:
        tags = data.get("tags")
        if tags is not None and len({tag["name"] for tag in tags}) != len(tags):
            raise ValidationError({"tags": ["tag names repeat"]})


TOY = Toy()
TOY_CHECK = derive(TOY)
TOY_ACCEPTED = [
    {"flag": True},
    {"flag": False, "some": [0, 3], "few": ["a", "b"], "below": 9, "above": 1},
    {"flag": True, "anything": -(10**30), "named": "", "first": "a", "second": "b"},
    {"flag": True, "tags": [{"name": "x"}, {"name": "y"}, {"name": "z"}], "few": []},
]
TOY_REFUSED = [
    {},
    {"flag": None},
    {"flag": True, "some": []},
    {"flag": True, "some": [-1]},
    {"flag": True, "some": [True]},
    {"flag": True, "few": ["a", "b", "a"]},
    {"flag": True, "few": ["c"]},
    {"flag": True, "below": 10},
    {"flag": True, "above": 0},
    {"flag": True, "anything": 1.5},
    {"flag": True, "named": 3},
    {"flag": True, "first": "z"},
    {"flag": True, "second": None},
    {"flag": True, "tags": [{"name": "x"}, {"name": "y"}, {"name": "x"}]},
    {"flag": True, "tags": [{"name": "x", "colour": "red"}]},
    {"flag": True, "tags": {"name": "x"}},
    {"flag": True, "extra": 1},
]


def test_the_compiled_rules_accept_exactly_what_the_schema_accepts() -> None:
    schema, fast = TOY, TOY_CHECK
    for body in TOY_ACCEPTED:
        assert fast(body) and schema_accepts(schema, body), body
    for body in TOY_REFUSED:
        assert not fast(body) and not schema_accepts(schema, body), body
    # The two Letter fields share one constant, bound once as a default of the predicate.
    defaults = cast(FunctionType, fast).__defaults__ or ()
    assert sum(value is LETTERS for value in defaults) == 1


@pytest.mark.parametrize("flag", [1, 0, "yes", "true"])
def test_what_json_spells_otherwise_is_a_false_refusal_never_an_acceptance(flag: object) -> None:
    """marshmallow's Boolean also takes 1 and "yes": the check refuses them and lets the schema
    explain (accept, here): slower for that body, never wrong."""
    body = {"flag": flag}
    assert not TOY_CHECK(body)
    assert schema_accepts(TOY, body)


@PROPERTY
@given(
    st.fixed_dictionaries(
        {"flag": st.booleans()},
        optional={
            "some": st.lists(st.integers(-2, 3), max_size=3),
            "few": st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
            "below": st.integers(8, 11),
            "above": st.integers(-1, 2),
            "first": st.sampled_from(["a", "b", "c"]),
            "tags": st.lists(st.fixed_dictionaries({"name": st.sampled_from("xyz")}), max_size=3),
        },
    ).flatmap(mutated)
)
def test_the_compiled_rules_never_accept_what_the_schema_refuses(body: Any) -> None:
    """Generated near misses: never a false acceptance; and on bodies whose booleans are JSON's
    own, exactly the schema's verdict."""
    accepted = schema_accepts(TOY, body)
    if TOY_CHECK(body):
        assert accepted, body
    elif accepted:
        assert type(body) is dict and type(body.get("flag")) is not bool, body


def test_a_plain_function_has_no_generated_source() -> None:
    assert checks.source_of(lambda body: True) == ""
    assert checks.source_of(TOY_CHECK).startswith("def check(v0")


class _NotAFastCheck(fields.String):
    def fast_check(self) -> object:
        return "strings only"


class _SchemaRuleOnAField(fields.String):
    def fast_check(self) -> checks.FastCheck:
        return checks.Distinct("a", "b")


class _DistinctOverAString(Schema):
    name = fields.String()

    @validates_schema
    @checks.fast_rule(checks.Distinct("name", "x"))
    def _rule(self, data: dict[str, Any], **kwargs: Any) -> None:
        pass


class _OptionalSelector(Schema):
    kind = fields.String()
    amount = fields.Integer(strict=True)

    @validates_schema
    @checks.fast_rule(checks.PresentUnless("amount", "kind", frozenset({"fold"})))
    def _rule(self, data: dict[str, Any], **kwargs: Any) -> None:
        pass


class _FieldCheckAsRule(Schema):
    name = fields.String()

    @validates_schema
    @checks.fast_rule(checks.Member(frozenset({"a"})))
    def _rule(self, data: dict[str, Any], **kwargs: Any) -> None:
        pass


def _one_field(field: fields.Field[Any]) -> Schema:
    return Schema.from_dict({"a": field})()


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda: _one_field(_NotAFastCheck()), "fast_check is not a fast check"),
        (lambda: _one_field(fields.String(pre_load=[str.strip])), "field-level load functions"),
        (lambda: _one_field(fields.Integer(post_load=[abs])), "field-level load functions"),
        (lambda: _one_field(fields.Nested(Tag, many=True)), "many or unknown"),
        (lambda: _one_field(fields.Nested(Tag, unknown=EXCLUDE)), "many or unknown"),
        (lambda: _one_field(fields.Integer(validate=validate.OneOf([1, 2]))), "choices other"),
        (lambda: _one_field(_SchemaRuleOnAField()), "is a schema rule, not a field's"),
        (_DistinctOverAString, "not a list field of the schema"),
        (_OptionalSelector, "the selector must be a required field"),
        (_FieldCheckAsRule, "is a field's fast check, not a schema rule"),
    ],
)
def test_a_rule_misused_is_refused_with_its_reason(make: Callable[[], Schema], reason: str) -> None:
    with pytest.raises(NotCompilable, match=reason):
        derive(make())

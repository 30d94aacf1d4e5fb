"""Bounded refusals: what marshmallow must not be asked to explain item by item.

Marshmallow deserialises every item of a list before its length validator runs, and builds an
error for each bad item and each unknown field: one body under the size limit, holding a list far
longer than its schema allows, would cost it more time than the worker timeout and more memory
than the pod's limit. ``guard`` refuses such gross excess first, with the very message the length
validator would give; ``explain`` has marshmallow explain only the items of a long list that the
item schema's derived check refuses. The messages and pointers stay the schema's own
(docs/operations.md, "Hostile input", has the bounds and what they bought).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from marshmallow import Schema, ValidationError, fields, validate
from marshmallow.decorators import VALIDATES_SCHEMA

from quart_bezique.api.contract.checks import NotCompilable, derive
from quart_bezique.api.contract.fields import HandsByPlayer
from quart_bezique.api.contract.marshmallow_hooks import hook_names
from quart_bezique.api.contract.problems import MAX_EXPLAINED_ERRORS, MAX_REPORTED_ERRORS

SLACK: Final = 64
"""Items beyond the limits, over the whole body, that are cheap to explain in full: left to
marshmallow."""
LONG_LIST: Final = SLACK
"""A list of objects longer than this is explained by its refused items only (``explain``)."""

Messages = dict[Any, Any]
Path = tuple[Any, ...]


def guard(schema: Schema, body: Any) -> Messages | None:
    """Marshmallow-shaped messages for the first gross excess in ``body`` (or for every list over
    its limit, once they exceed ``SLACK`` items in all), else ``None``.

    The schema's fields are walked over the body (no object per item; ``budget.py`` has already
    bounded how many values the body holds at all). Refused: any list more than ``SLACK`` items
    over its limit, any object with more unknown fields than a problem document reports, and any
    body whose lists are over their limits by more than ``SLACK`` items *in all*, since a
    per-list slack alone multiplies with nesting. Smaller mistakes still go to marshmallow, whose
    full error list is cheap for them and more helpful."""
    walk = _Walk()
    try:
        return walk.object(schema, body, ())
    except _Exceeded:
        return _nest(walk.over[:MAX_REPORTED_ERRORS])


class _Exceeded(Exception):
    """The lists over their limits hold more than ``SLACK`` excess items between them."""


class _Walk:
    """One walk over a body: counts the items its lists hold beyond their limits."""

    __slots__ = ("excess", "over")

    def __init__(self) -> None:
        self.excess = 0
        self.over: list[tuple[Path, Any]] = []
        """Each list over its limit (by ``SLACK`` or less): where, and its length message."""

    def object(self, schema: Schema, data: Any, path: Path) -> Messages | None:
        if type(data) is not dict:
            return None
        known = schema.fields
        if len(data) > len(known) + MAX_REPORTED_ERRORS:
            keys = {field.data_key or name for name, field in known.items()}
            unknown = sorted(k for k in data if k not in keys)
            if len(unknown) > MAX_REPORTED_ERRORS:
                message = schema.error_messages["unknown"]
                return {key: [message] for key in unknown[:MAX_REPORTED_ERRORS]}
        for key, field, short in _walked_fields(schema):
            if key in data:
                value = data[key]
                if short is not None and type(value) is list and len(value) <= short:
                    continue  # within its limit, and no items to walk: nothing to find
                found = self.field(field, value, (*path, key))
                if found is not None:
                    return {key: found}
        return None

    def field(self, field: fields.Field[Any], value: Any, path: Path) -> Any:
        if isinstance(field, fields.List):
            return self.list(field, value, path)
        if isinstance(field, fields.Nested) and isinstance(field.schema, Schema):
            return self.object(field.schema, value, path)
        if isinstance(field, HandsByPlayer) and type(value) is dict:
            for player, cards in value.items():
                found = self.list(field.hand, cards, (*path, player))
                if found is not None:
                    return {player: found}
        return None

    def list(self, field: fields.List[Any], value: Any, path: Path) -> Any:
        if type(value) is not list:
            return None
        plan = _list_plan(field)
        for validator, limit in plan.limits:
            if len(value) > limit:
                try:
                    validator(value)
                except ValidationError as error:
                    if len(value) > limit + SLACK:
                        return error.messages
                    self.over.append((path, error.messages))
                self.excess += len(value) - limit
                if self.excess > SLACK:
                    raise _Exceeded
        if plan.walked:
            inner, check, schema = field.inner, plan.check, plan.schema
            for index, item in enumerate(value):
                if check(item):  # an item its schema accepts exceeds nothing: not walked
                    continue
                if schema is not None:
                    found = self.object(schema, item, (*path, index))
                else:
                    found = self.field(inner, item, (*path, index))
                if found is not None:
                    return {index: found}
        return None


@dataclass(frozen=True, slots=True)
class _ListPlan:
    limits: tuple[tuple[validate.Length, int], ...]
    """Each length validator with a maximum, and that maximum."""
    walked: bool
    """Items are lists or objects, walked in turn."""
    check: Callable[[Any], bool]
    """Accepts the items that need no walk (``_never`` when the items' schema has no derived
    check)."""
    schema: Schema | None
    """The items' schema, when they are objects (``Nested.schema`` is a property that works)."""


_PLANS: dict[int, tuple[object, Any]] = {}
"""Per schema and list field (by identity, each kept alive here with its plan), what the walk
needs of it: worked out once, not per item."""


def _planned(owner: object) -> Any:
    found = _PLANS.get(id(owner))
    return found[1] if found is not None and found[0] is owner else None


_Walked = tuple[tuple[str, fields.Field[Any], int | None], ...]


def _walked_fields(schema: Schema) -> _Walked:
    """The fields whose values the walk descends into, by their key in the body; for a list of
    scalars, also the length up to which it is skipped (its smallest limit)."""
    plan: _Walked | None = _planned(schema)
    if plan is None:
        walked = (fields.List, fields.Nested, HandsByPlayer)
        plan = tuple(
            (field.data_key or name, field, _short(field))
            for name, field in schema.fields.items()
            if isinstance(field, walked)
        )
        _PLANS[id(schema)] = (schema, plan)
    return plan


def _short(field: fields.Field[Any]) -> int | None:
    if not isinstance(field, fields.List):
        return None
    plan = _list_plan(field)
    if plan.walked:
        return None
    return min((limit for _, limit in plan.limits), default=None)


def _list_plan(field: fields.List[Any]) -> _ListPlan:
    plan: _ListPlan | None = _planned(field)
    if plan is None:
        limits = []
        for validator in field.validators:
            if isinstance(validator, validate.Length):
                limit = validator.equal if validator.equal is not None else validator.max
                if limit is not None:
                    limits.append((validator, limit))
        inner = field.inner
        schema = inner.schema if isinstance(inner, fields.Nested) else None
        plan = _ListPlan(
            tuple(limits),
            isinstance(inner, fields.List | fields.Nested),
            _item_check(field) or _never,
            schema if isinstance(schema, Schema) else None,
        )
        _PLANS[id(field)] = (field, plan)
    return plan


def _never(item: Any) -> bool:
    return False


def _nest(found: list[tuple[Path, Any]]) -> Messages:
    """Marshmallow's nesting of messages found at paths: ``{"hands": {3: {"cards": [...]}}}``.
    A list's items' messages replace its own length message, as in marshmallow (which validates
    a list's length only once its items pass)."""
    out: Messages = {}
    for path, messages in found:
        node = out
        for key in path[:-1]:
            child = node.get(key)
            if type(child) is not dict:
                child = node[key] = {}
            node = child
        if type(node.get(path[-1])) is not dict:
            node[path[-1]] = messages
    return out


# ------------------------------------------------------------------------------------------------
# Long lists, explained by their refused items
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Explained:
    messages: Messages
    truncated: bool
    """Some refused item was left unexplained: the problem says the errors are not all listed."""


def explain(schema: Schema, body: Any) -> Explained | None:
    """The schema's messages for ``body``, built without walking its long lists of objects item by
    item; None when it has none (or nothing to explain there): the schema then loads it whole.

    A long list of objects (a batch's hands, a sequence's actions) is explained by the items the
    item schema's derived check (``checks.derive``) refuses, in order, until
    ``MAX_EXPLAINED_ERRORS`` are found. The problem document is the schema's own but for a body
    with more errors than that: its detail then says the count is incomplete (and the errors it
    reports are the first by pointer of those found).

    The rest of the body is loaded with ``[]`` in place of each such list, and what marshmallow
    says of that stand-in is dropped. This is exact because the schemas holding these lists
    (batch, betting, settlement) have no schema-level validator that could read them."""
    if type(body) is not dict or hook_names(schema, VALIDATES_SCHEMA):
        return None  # a schema-level rule might read the lists explained here: load it whole
    rest: dict[str, Any] | None = None
    explained: list[str] = []
    listed: Messages = {}
    room = MAX_EXPLAINED_ERRORS
    truncated = False
    for name, field in schema.fields.items():
        key = field.data_key or name
        value = body.get(key)
        check = _item_check(field)
        if check is None or type(value) is not list or len(value) <= LONG_LIST:
            continue
        assert isinstance(field, fields.List)
        if rest is None:
            rest = dict(body)
        rest[key] = []  # explained here: marshmallow sees the rest of the body only
        explained.append(key)
        items, count, cut = _refused_items(field, value, check, room)
        room -= count
        truncated = truncated or cut
        found: Any = items
        if not items:
            try:  # the items pass: what marshmallow would say next is the list's own validators
                validate.And(*field.validators)(value)  # what ``Field._validate`` runs
            except ValidationError as error:
                found = error.messages
        if found:
            listed[key] = found
    if rest is None:
        return None
    try:
        schema.load(rest)
        others: Messages = {}
    except ValidationError as error:
        others = error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
    for key in explained:  # what marshmallow said of the stand-in ``[]`` is not about the body
        others.pop(key, None)
    messages = {**others, **listed}
    return Explained(messages, truncated) if messages else None


def _item_check(field: fields.Field[Any]) -> Callable[[Any], bool] | None:
    """The derived check of a list's item schema (derived once per list field), if any."""
    if not isinstance(field, fields.List) or not isinstance(field.inner, fields.Nested):
        return None
    found = _ITEM_CHECKS.get(id(field))
    if found is not None and found[0] is field:
        return found[1]
    inner = field.inner.schema
    owner = field.parent
    check: Callable[[Any], bool] | None = None
    # Only in schemas without schema-level rules, which might read the list ``explain`` replaces.
    if isinstance(inner, Schema) and not (
        isinstance(owner, Schema) and hook_names(owner, VALIDATES_SCHEMA)
    ):
        try:
            check = derive(inner)
        except NotCompilable:
            check = None
    _ITEM_CHECKS[id(field)] = (field, check)
    return check


_ITEM_CHECKS: dict[int, tuple[object, Callable[[Any], bool] | None]] = {}
"""Per list field (by identity, kept alive here), its items' derived check."""


def _refused_items(
    field: fields.List[Any], items: list[Any], check: Callable[[Any], bool], room: int
) -> tuple[Messages, int, bool]:
    """The schema's messages for the items ``check`` refuses, by index, until ``room`` errors are
    found; their count; whether a refused item was left unexplained."""
    messages: Messages = {}
    count = 0
    for index, item in enumerate(items):
        if check(item):
            continue
        if count >= room:
            return messages, count, True
        try:
            field.inner.deserialize(item)
        except ValidationError as error:
            messages[index] = error.messages
            count += _leaves(error.messages)
    return messages, count, False


def _leaves(messages: Any) -> int:
    """How many errors a problem document lists for ``messages`` (``problems._flatten``)."""
    if isinstance(messages, dict):
        return sum(_leaves(value) for value in messages.values())
    if isinstance(messages, list | tuple):
        return sum(_leaves(item) for item in messages)
    return 1

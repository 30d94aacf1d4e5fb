"""Request checks derived from the marshmallow schemas, so that the contract is written once.

Every body must be checked, and marshmallow loading each one would cost far more than a
hand-written check; a hand-written check, though, is a second copy of the rules of the wire,
which drifts. ``derive`` compiles, once at start-up, a predicate that accepts exactly what
``schema.load`` accepts, and the schema is left only to explain a refusal: a false refusal costs
speed, never correctness. A false acceptance would be a bug, so the compiler refuses
(``NotCompilable``) whatever it cannot reproduce exactly (``derive`` lists what it knows), and
``tests/api/test_api_fastcheck.py`` checks the equivalence on generated bodies and near misses.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import FunctionType
from typing import Any, Final, TypeVar

from marshmallow import RAISE, Schema, fields, validate
from marshmallow.decorators import POST_LOAD, PRE_LOAD, VALIDATES, VALIDATES_SCHEMA

from quart_bezique.api.contract.error_codes import CountOf
from quart_bezique.api.contract.marshmallow_hooks import hook_names

Check = Callable[[Any], bool]


class NotCompilable(Exception):
    """The schema holds something whose acceptance the compiler cannot reproduce exactly."""


# ------------------------------------------------------------------------------------------------
# The fast-check vocabulary: what a custom field, validator or schema rule accepts
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Member:
    """A ``str`` that is one of ``values`` (a card spelling, a suit spelling)."""

    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class Identical:
    """One of ``values`` by identity (``True``/``False``: no 1, no "yes")."""

    values: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class Mapping:
    """A dict of at most ``max_items`` items whose keys have ``key_min`` to ``key_max``
    characters and whose values the field ``value`` accepts."""

    max_items: int
    key_min: int
    key_max: int
    value: fields.Field[Any]


@dataclass(frozen=True, slots=True)
class Distinct:
    """Schema rule: the items of the list under ``key`` differ in their ``item_key`` member."""

    key: str
    item_key: str


@dataclass(frozen=True, slots=True)
class PresentUnless:
    """Schema rule: ``key`` is present exactly when the value of ``selector`` is not one of
    ``values`` (a discriminated union: a fold has no amount, every other action has one)."""

    key: str
    selector: str
    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class AllDifferent:
    """Validator: the list's items are all different (JSON Schema ``uniqueItems``)."""


@dataclass(frozen=True, slots=True)
class Resolves:
    """A value that ``resolve`` takes without raising ``refusal``: the field's own loader, called
    as it is, where what it accepts is a small finite set better stated by the function that
    defines it (a ruleset: a name, or an object of a few switches)."""

    resolve: Callable[[Any], object]
    refusal: type[Exception]


FastCheck = Member | Identical | Mapping | Distinct | PresentUnless | AllDifferent | Resolves
_FAST_CHECKS: Final = (
    Member,
    Identical,
    Mapping,
    Distinct,
    PresentUnless,
    AllDifferent,
    Resolves,
)


def fast_check_of(owner: object) -> FastCheck | None:
    """What ``owner`` declares of itself, if anything: a field's or validator's ``fast_check``
    method, defined on its exact class (a subclass that inherits it may accept otherwise, so it
    must declare its own), or the rule a schema method was marked with (``fast_rule``)."""
    if isinstance(owner, FunctionType):
        declared = getattr(owner, FAST_RULE, None)
    else:
        method = type(owner).__dict__.get("fast_check")
        declared = method(owner) if callable(method) else None
    if declared is not None and not isinstance(declared, _FAST_CHECKS):
        raise NotCompilable(f"{owner!r}: fast_check is not a fast check")
    return declared


FAST_RULE: Final = "fast_check"
Method = TypeVar("Method", bound=Callable[..., Any])


def fast_rule(rule: FastCheck) -> Callable[[Method], Method]:
    """Marks a schema-level validation method with the fast check saying what it accepts."""

    def mark(method: Method) -> Method:
        setattr(method, FAST_RULE, rule)
        return method

    return mark


# ------------------------------------------------------------------------------------------------
# The compiler
# ------------------------------------------------------------------------------------------------


class _Source:
    """The compiled predicate's source, its constants (bound as the function's defaults, so they
    are local variables) and fresh names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, object] = {}
        self._ids = itertools.count()
        self._constants: dict[int, str] = {}

    def var(self, stem: str) -> str:
        return f"{stem}{next(self._ids)}"

    def const(self, value: object) -> str:
        if type(value) is int:
            return repr(value)
        found = self._constants.get(id(value))
        if found is not None and self.names[found] is value:
            return found
        name = self.var("K")
        self.names[name] = value
        self._constants[id(value)] = name
        return name

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def close(self, depth: int, mark: int) -> None:
        """End a block opened at ``mark`` lines: a ``pass`` if nothing was emitted in it."""
        if len(self.lines) == mark:
            self.emit(depth, "pass")


def derive(schema: Schema, *, items_elsewhere: Iterable[str] = ()) -> Check:
    """The predicate accepting exactly what ``schema.load`` accepts. ``items_elsewhere`` names
    list fields whose *items* the caller checks itself (the batch's table loop checks its hands
    as it scores them): their type and length are still checked here.

    The predicate is straight-line Python (``type(...) is`` tests, dictionary lookups, inlined
    loops; no object per field). What the compiler knows:

    - schemas: required and optional keys, ``allow_none``, ``data_key``, ``Meta.exclude``
      (through ``load_fields``), unknown keys refused; ``load_default`` needs no check (it is
      never validated);
    - ``List`` (of anything it knows), ``Nested`` (inlined), ``String``, ``Integer``
      (``strict``), ``Boolean``;
    - validators ``Length`` (and ``CountOf``), ``Range``, ``OneOf``;
    - anything carrying a **fast check**, saying in the small vocabulary above (``Member``,
      ``Identical``, ``Mapping``, ``AllDifferent``, ``Distinct``, ``PresentUnless``,
      ``Resolves``) what it
      accepts: a field or validator as a ``fast_check`` method of its own class, a
      ``validates_schema`` method marked ``@fast_rule(...)``. The fast twin sits next to the
      validation it mirrors.

    Anything else raises ``NotCompilable``: a field class, a validator or a schema hook it has no
    rule for, ``unknown`` other than ``RAISE``, field-level pre/post-load functions. JSON bodies
    hold only dicts, lists, str, int, float, bool and None, so the checks test exact types:
    marshmallow's leniencies that JSON cannot reach (tuples as lists, bytes as strings) are
    refused, which is a false refusal at worst."""
    source = _Source()
    _schema(source, schema, "v0", 1, frozenset(items_elsewhere))
    source.emit(1, "return True")
    defaults = "".join(f", {name}={name}" for name in source.names)
    text = "\n".join([f"def check(v0{defaults}):", *source.lines])
    namespace: dict[str, Any] = dict(source.names)
    exec(text, namespace)  # our own source, generated from the schema above
    check: Check = namespace["check"]
    check.__doc__ = f"Accepts exactly what {type(schema).__name__}.load accepts (derived)."
    check.source = text  # type: ignore[attr-defined]
    return check


def source_of(check: Check) -> str:
    """The generated source of a derived check (for reading, and for the tests)."""
    return str(getattr(check, "source", ""))


def _schema(
    src: _Source, schema: Schema, v: str, d: int, elsewhere: frozenset[str] = frozenset()
) -> None:
    if schema.unknown != RAISE:
        raise NotCompilable(f"{type(schema).__name__}: unknown={schema.unknown!r}")
    for kind in (PRE_LOAD, POST_LOAD, VALIDATES):
        if hook_names(schema, kind):
            raise NotCompilable(f"{type(schema).__name__}: a {kind} hook")
    rules = []
    for attr in hook_names(schema, VALIDATES_SCHEMA):
        rule = fast_check_of(getattr(type(schema), attr))
        if rule is None:
            raise NotCompilable(f"{type(schema).__name__}.{attr}: no fast check")
        rules.append(rule)
    src.emit(d, f"if type({v}) is not dict: return False")
    loaded = {(f.data_key or name): f for name, f in schema.load_fields.items()}
    required = {key: src.var("x") for key, f in loaded.items() if f.required}
    if required:  # one lookup each: a missing key raises, which costs nothing otherwise
        src.emit(d, "try:")
        for key, x in required.items():
            src.emit(d + 1, f"{x} = {v}[{key!r}]")
        src.emit(d, "except KeyError: return False")
    n = src.var("n")
    src.emit(d, f"{n} = len({v}) - {len(required)}")
    bound = dict(required)
    for key, field in loaded.items():  # optional ones: present or not, and checked if present
        if field.required:
            continue
        x = bound[key] = src.var("x")
        src.emit(d, f"if {key!r} in {v}:")
        src.emit(d + 1, f"{n} -= 1")
        src.emit(d + 1, f"{x} = {v}[{key!r}]")
        _field(src, field, x, d + 1, skip_items=key in elsewhere)
    src.emit(d, f"if {n}: return False")  # a key no field takes: refused (unknown=RAISE)
    for key, x in required.items():
        _field(src, loaded[key], x, d, skip_items=key in elsewhere)
    for rule in rules:
        _schema_rule(src, rule, v, d, loaded, bound)


def _field(
    src: _Source, field: fields.Field[Any], x: str, d: int, *, skip_items: bool = False
) -> None:
    """Statements returning False unless ``field`` accepts ``x`` (a present value)."""
    if getattr(field, "pre_load", None) or getattr(field, "post_load", None):
        raise NotCompilable(f"{field!r}: field-level load functions")
    if field.allow_none:
        src.emit(d, f"if {x} is not None:")
        d += 1
    mark = len(src.lines)
    kind = type(field)
    custom = fast_check_of(field)
    if custom is not None:
        _custom(src, custom, x, d)
        _validators(src, field, x, d)
    elif kind is fields.List:
        assert isinstance(field, fields.List)
        src.emit(d, f"if type({x}) is not list: return False")
        _validators(src, field, x, d, lengths=True)  # cheap, and bounds the loop below
        if not skip_items:
            y = src.var("y")
            src.emit(d, f"for {y} in {x}:")
            inner = len(src.lines)
            _field(src, field.inner, y, d + 1)
            src.close(d + 1, inner)
        _validators(src, field, x, d, lengths=False)  # on the items' values, as marshmallow
    elif kind is fields.Nested:
        assert isinstance(field, fields.Nested)
        if field.many or getattr(field, "unknown", None) not in (None, RAISE):
            raise NotCompilable(f"{field!r}: many or unknown")
        nested = field.schema
        if not isinstance(nested, Schema):
            raise NotCompilable(f"{field!r}: not a schema")
        _schema(src, nested, x, d)
        _validators(src, field, x, d)
    elif kind is fields.String:
        src.emit(d, f"if type({x}) is not str: return False")
        _validators(src, field, x, d)
    elif kind is fields.Integer:
        # strict or not: an int (never a bool) is accepted; a non-strict field also takes
        # "12" or 1.0, refused here (a false refusal: the schema accepts them after all).
        src.emit(d, f"if type({x}) is not int: return False")
        _validators(src, field, x, d)
    elif kind is fields.Boolean:
        # marshmallow also takes "yes", 1, ... : refused here (a false refusal, never an accept)
        src.emit(d, f"if not ({x} is True or {x} is False): return False")
        _validators(src, field, x, d)
    else:
        raise NotCompilable(f"{kind.__name__}: no rule and no fast check")
    src.close(d, mark)


def _validators(
    src: _Source, field: fields.Field[Any], x: str, d: int, *, lengths: bool | None = None
) -> None:
    """The field's validators (``lengths``: only the length ones, or all but those)."""
    for validator in field.validators:
        custom = fast_check_of(validator)
        kind = type(validator)
        is_length = custom is None and kind in (validate.Length, CountOf)
        if lengths is not None and lengths != is_length:
            continue
        if custom is not None:
            _custom(src, custom, x, d)
        elif is_length:
            assert isinstance(validator, validate.Length)
            if validator.equal is not None:
                src.emit(d, f"if len({x}) != {validator.equal!r}: return False")
            elif validator.min is not None and validator.max is not None:
                src.emit(
                    d, f"if not {validator.min!r} <= len({x}) <= {validator.max!r}: return False"
                )
            elif validator.min is not None:
                src.emit(d, f"if len({x}) < {validator.min!r}: return False")
            elif validator.max is not None:
                src.emit(d, f"if len({x}) > {validator.max!r}: return False")
        elif kind is validate.Range:
            assert isinstance(validator, validate.Range)
            test = []
            if validator.min is not None:
                op = "<=" if validator.min_inclusive else "<"
                test.append(f"{src.const(validator.min)} {op} {x}")
            if validator.max is not None:
                op = "<=" if validator.max_inclusive else "<"
                test.append(f"{x} {op} {src.const(validator.max)}")
            if test:
                src.emit(d, f"if not ({' and '.join(test)}): return False")
        elif kind is validate.OneOf:
            assert isinstance(validator, validate.OneOf)
            choices = list(validator.choices)
            if not all(type(c) is str for c in choices):
                raise NotCompilable(f"{validator!r}: choices other than strings")
            src.emit(d, f"if {x} not in {src.const(frozenset(choices))}: return False")
        else:
            raise NotCompilable(f"{kind.__name__}: no rule and no fast check")


def _custom(src: _Source, rule: FastCheck, x: str, d: int) -> None:
    if isinstance(rule, Member):
        values = src.const(rule.values)
        src.emit(d, f"if type({x}) is not str or {x} not in {values}: return False")
    elif isinstance(rule, Identical):
        test = " or ".join(f"{x} is {src.const(value)}" for value in rule.values) or "False"
        src.emit(d, f"if not ({test}): return False")
    elif isinstance(rule, Mapping):
        k, y = src.var("k"), src.var("y")
        src.emit(d, f"if type({x}) is not dict or len({x}) > {rule.max_items}: return False")
        src.emit(d, f"for {k}, {y} in {x}.items():")
        src.emit(d + 1, f"if not {rule.key_min} <= len({k}) <= {rule.key_max}: return False")
        _field(src, rule.value, y, d + 1)
    elif isinstance(rule, AllDifferent):
        src.emit(d, f"if len(set({x})) != len({x}): return False")
    elif isinstance(rule, Resolves):
        src.emit(d, "try:")
        src.emit(d + 1, f"{src.const(rule.resolve)}({x})")
        src.emit(d, f"except {src.const(rule.refusal)}: return False")
    else:
        raise NotCompilable(f"{rule!r} is a schema rule, not a field's")


def _schema_rule(
    src: _Source,
    rule: FastCheck,
    v: str,
    d: int,
    loaded: dict[str, fields.Field[Any]],
    bound: dict[str, str],
) -> None:
    """Schema-level validators run on the loaded data, and only once every field passed: which
    is where the generated code is when it reaches them (loading keeps these values as sent).
    ``bound`` names the variables holding the fields' values (optional ones: when present)."""
    if isinstance(rule, Distinct):
        field = loaded.get(rule.key)
        if not isinstance(field, fields.List) or rule.key not in bound:
            raise NotCompilable(f"{rule!r}: not a list field of the schema")
        items, key = bound[rule.key], repr(rule.item_key)
        pairs = [v for v in field.validators if isinstance(v, validate.Length) and v.equal == 2]
        guard = "" if field.required else f"{rule.key!r} in {v} and "
        if pairs:  # exactly two items: one comparison
            src.emit(d, f"if {guard}{items}[0][{key}] == {items}[1][{key}]: return False")
        else:
            distinct = f"len({{i[{key}] for i in {items}}}) != len({items})"
            src.emit(d, f"if {guard}{distinct}: return False")
    elif isinstance(rule, PresentUnless):
        selector = loaded.get(rule.selector)
        if selector is None or not selector.required or rule.key not in loaded:
            raise NotCompilable(f"{rule!r}: the selector must be a required field")
        src.emit(
            d,
            f"if ({rule.key!r} in {v}) == ({bound[rule.selector]} in "
            f"{src.const(rule.values)}): return False",
        )
    else:
        raise NotCompilable(f"{rule!r} is a field's fast check, not a schema rule")


# ------------------------------------------------------------------------------------------------
# Derived checks by schema class: compiled once, shared by every reader of the schema
# ------------------------------------------------------------------------------------------------


@functools.cache
def check_for(schema_class: type[Schema]) -> Check:
    """The derived check of ``schema_class``, compiled once per class: an endpoint's road and the
    command line share it (each app's configured schemas are classes of their own)."""
    return derive(schema_class())

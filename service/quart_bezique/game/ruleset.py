"""Rulesets: which reading of the rules a verdict follows (docs/rules.md "Conventions", §13).

The sources leave points open that real tables settle differently. Each such point is a *switch*
with a fixed set of values; a ``Ruleset`` is one value per switch. Presets are named, versioned
rulesets (``classic/1`` is the default and the reading of §1-§12); a custom ruleset is a preset
with some switches changed. Every verdict names its ruleset by ``Ruleset.id``, which depends only
on the switch values (never on how the caller spelled them), and by ``Ruleset.digest``, so a
stored verdict always points at the exact reading that produced it. The engine is one: scoring,
showdown, settlement and odds read the switches, nothing is copied per ruleset.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from .errors import PathElement, RulesError
from .messages import N_

RULESET_NAME: Final = "classic"
RULESET_VERSION: Final = 1
RULESET: Final = f"{RULESET_NAME}/{RULESET_VERSION}"
"""The default ruleset's id. Bump the version whenever any rule's outcome under it changes."""


@dataclass(frozen=True, slots=True)
class Switch:
    """One open point of the rules: its values (the first is ``classic/1``'s) and where
    docs/rules.md states it."""

    name: str
    values: tuple[int | str, ...]
    anchor: str
    scoring: bool
    """Whether the switch changes what a hand scores (and so needs its own score tables)."""


SWITCHES: Final[tuple[Switch, ...]] = (
    Switch("three_aces", (6, 0), "s13-1", scoring=True),
    Switch("coronka", ("consecutive", "from_king"), "s13-2", scoring=True),
    Switch("trump_doubles", ("pure_trump", "any_trump_card"), "s13-3", scoring=True),
    Switch("tie", ("split", "carry"), "s13-4", scoring=False),
)
SWITCH_BY_NAME: Final = {switch.name: switch for switch in SWITCHES}


class RulesetError(RulesError):
    """A ruleset that cannot be resolved. Codes: INVALID_RULESET, UNKNOWN_RULESET,
    UNKNOWN_SWITCH, INVALID_SWITCH_VALUE."""

    code = "INVALID_RULESET"


_SCORINGS: dict[tuple[int, str, str], ScoringRules] = {}


@dataclass(frozen=True, slots=True)
class ScoringRules:
    """The switches a hand's score depends on: the key of the score and odds tables, so rulesets
    that differ only in how a pot is paid share their tables."""

    three_aces: int = 6
    coronka: str = "consecutive"
    trump_doubles: str = "pure_trump"
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.three_aces, self.coronka, self.trump_doubles)))

    def __hash__(self) -> int:
        """Worked out once: every table lookup of a request hashes it."""
        return self._hash


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One value per switch (``SWITCHES``); the defaults are ``classic/1``. Its scoring part, id
    and digest are worked out once per instance: every verdict asks for them."""

    three_aces: int = 6
    coronka: str = "consecutive"
    trump_doubles: str = "pure_trump"
    tie: str = "split"
    _scoring: ScoringRules = field(init=False, repr=False, compare=False)
    _id: str = field(init=False, repr=False, compare=False, default="")
    _digest: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        for name, value in self.switches().items():
            if value not in SWITCH_BY_NAME[name].values or isinstance(value, bool):
                raise _invalid_value(name, value, ())
        key = (self.three_aces, self.coronka, self.trump_doubles)
        scoring = _SCORINGS.get(key)
        if scoring is None:
            scoring = _SCORINGS[key] = ScoringRules(*key)
        object.__setattr__(self, "_scoring", scoring)

    def switches(self) -> dict[str, int | str]:
        """Switch name to value, in ``SWITCHES`` order."""
        return {switch.name: getattr(self, switch.name) for switch in SWITCHES}

    @property
    def scoring(self) -> ScoringRules:
        """The scoring switches: one shared instance per combination, so the tables' caches
        find it by identity first."""
        return self._scoring

    @property
    def id(self) -> str:
        """The canonical id: a preset's name, or ``classic/1:`` and the switches that differ
        from it, sorted by name (``classic/1:coronka=from_king,tie=carry``)."""
        if not self._id:
            object.__setattr__(self, "_id", _ID_OF.get(self) or _custom_id(self))
        return self._id

    @property
    def digest(self) -> str:
        """SHA-256 (hex) of the switch values as canonical JSON (keys sorted, no spaces)."""
        if not self._digest:
            canonical = json.dumps(self.switches(), sort_keys=True, separators=(",", ":"))
            digest = hashlib.sha256(canonical.encode("ascii")).hexdigest()
            object.__setattr__(self, "_digest", digest)
        return self._digest

    @property
    def preset(self) -> str | None:
        """The preset with exactly these values, if any."""
        return _ID_OF.get(self)


CLASSIC: Final = Ruleset()
LITERAL: Final = Ruleset(
    three_aces=0, coronka="from_king", trump_doubles="any_trump_card", tie="carry"
)
PRESETS: Final[dict[str, Ruleset]] = {RULESET: CLASSIC, "literal/1": LITERAL}
"""Named rulesets, docs/rules.md §13.5. A preset's values never change: a changed reading is a new
version (``literal/2``), so an old verdict's id still means what it meant."""
_ID_OF: Final = {ruleset: name for name, ruleset in PRESETS.items()}


def _custom_id(ruleset: Ruleset) -> str:
    base = CLASSIC.switches()
    changed = sorted((k, v) for k, v in ruleset.switches().items() if base[k] != v)
    return RULESET + ":" + ",".join(f"{k}={v}" for k, v in changed)


def _invalid_value(name: str, value: object, path: tuple[PathElement, ...]) -> RulesetError:
    choices = ", ".join(json.dumps(v) for v in _values(name))
    return RulesetError(
        N_("the switch {switch} takes one of {choices}, not {value}").format(
            switch=name, choices=choices, value=_shown(value)
        ),
        code="INVALID_SWITCH_VALUE",
        path=(*path, name),
    )


def _values(name: str) -> tuple[int | str, ...]:
    return SWITCH_BY_NAME[name].values


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if _is_json(value) else type(value).__name__
    return text if len(text) <= 40 else text[:39] + "…"


def _is_json(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool | list | dict)


def _preset(name: object, path: tuple[PathElement, ...]) -> Ruleset:
    """A ruleset written as a string: a preset's name or a canonical id, exactly as an answer
    names it (so the id a receipt names can be sent again as it is). Only those: a finite set
    that a JSON Schema ``enum`` states exactly."""
    if not isinstance(name, str):
        raise RulesetError(
            N_("a ruleset is a preset's name, a ruleset id or an object of switches"),
            code="INVALID_RULESET",
            path=path,
        )
    found = BY_ID.get(name)
    if found is not None:
        return found
    raise RulesetError(
        N_("there is no ruleset {name}; the presets are {presets}").format(
            name=_shown(name), presets=", ".join(PRESETS)
        ),
        code="UNKNOWN_RULESET",
        path=path,
    )


def _combined(
    base: Ruleset, values: Mapping[str, object], path: tuple[PathElement, ...]
) -> Ruleset:
    changes: dict[str, int | str] = {}
    for name, value in values.items():
        if name not in SWITCH_BY_NAME:
            raise RulesetError(
                N_("there is no switch {switch}; the switches are {switches}").format(
                    switch=_shown(name), switches=", ".join(SWITCH_BY_NAME)
                ),
                code="UNKNOWN_SWITCH",
                path=(*path, name),
            )
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise _invalid_value(name, value, path)
        if value not in _values(name):
            raise _invalid_value(name, value, path)
        changes[name] = int(value) if isinstance(value, float) else value  # JSON's 6.0 is 6
    return replace(base, **changes)  # type: ignore[arg-type]


def resolve_ruleset(
    spec: Ruleset | str | Mapping[str, object] | None,
    path: tuple[PathElement, ...] = ("ruleset",),
) -> Ruleset:
    """A ruleset from what a caller may write (docs/rules.md §13.6): nothing (``classic/1``), a
    ``Ruleset``, a preset's name or a canonical id, or ``{"base": preset, switch: value, …}``
    (``base`` defaults to ``classic/1``). Refusals point into ``spec`` under ``path``."""
    if spec is None:
        return CLASSIC
    if isinstance(spec, Ruleset):
        return spec
    if isinstance(spec, Mapping):
        switches = {k: v for k, v in spec.items() if k != "base"}
        if not all(isinstance(k, str) for k in switches):
            raise RulesetError(
                N_("a ruleset's switches are named by strings"), code="INVALID_RULESET", path=path
            )
        base = _preset(spec.get("base", RULESET), (*path, "base"))
        return _combined(base, switches, path)
    return _preset(spec, path)


def _every_ruleset() -> tuple[Ruleset, ...]:
    combinations: list[dict[str, int | str]] = [{}]
    for switch in SWITCHES:
        combinations = [{**c, switch.name: v} for c in combinations for v in switch.values]
    return tuple(Ruleset(**c) for c in combinations)  # type: ignore[arg-type]


EVERY_RULESET: Final = _every_ruleset()
"""Every combination of switch values (16), classic/1 first."""
BY_ID: Final[dict[str, Ruleset]] = {r.id: r for r in EVERY_RULESET}
"""Every ruleset by its canonical id: the strings a request may name a ruleset by."""

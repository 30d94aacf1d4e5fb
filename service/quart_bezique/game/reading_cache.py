"""What a process keeps per scoring reading (docs/rules.md §13.7): one policy for every cache.

Score tables, odds models and the batch's tables are each derived per scoring reading, and a
worker stays within its memory budget (docs/performance.md, "House rules") only if all of them
keep the same readings: ``classic/1``'s, which ships, loaded once and kept, and at most
``BUILT_TABLES_KEPT`` others, built on first use, the least recently used dropped first. Written
once, here, the policy and its locking cannot drift apart between the caches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final, Generic, TypeVar

from .ruleset import ScoringRules

BUILT_TABLES_KEPT: Final = 2
"""How many other scoring readings' tables a process keeps at once: a table's build is paid by the
request that first needs it, so the readings a table actually plays stay built, while a process
asked for all seven in turn rebuilds at most one per request within a stated memory budget
(docs/performance.md, "House rules", has the build time and memory of each)."""

T = TypeVar("T")


class ReadingCache(Generic[T]):
    """One value per scoring reading: ``classic``'s from ``load``, on first use and for good;
    another's from ``build``, on first use and kept while it is among the ``kept`` most recently
    used (the least recently used is dropped when a new one is built).

    ``get`` answers ``classic`` and the most recently used built reading by identity, without a
    lock (every ``Ruleset`` shares one ``ScoringRules`` per reading, so a request under either
    costs the same). Anything else takes the lock: two threads asking for the same new reading
    build it once, and neither ``load`` nor ``build`` may ask this cache for a value.
    """

    __slots__ = ("_build", "_built", "_classic", "_classic_rules", "_kept", "_load", "_lock")

    def __init__(
        self,
        classic: ScoringRules,
        load: Callable[[], T],
        build: Callable[[ScoringRules], T],
        kept: int = BUILT_TABLES_KEPT,
    ) -> None:
        if kept < 1:
            raise ValueError(f"a reading cache keeps at least one built reading, not {kept}")
        self._classic_rules: Final = classic
        self._load: Final = load
        self._build: Final = build
        self._kept: Final = kept
        self._classic: tuple[T] | None = None
        """``classic``'s value once loaded (in a tuple: the value itself may be anything)."""
        self._built: tuple[tuple[ScoringRules, T], ...] = ()
        """The built readings and their values, most recently used first. Replaced whole, under
        the lock, so a reader without it always sees a consistent one."""
        self._lock: Final = threading.Lock()

    def get(self, rules: ScoringRules) -> T:
        """The value for ``rules``, loaded or built if need be."""
        if rules is self._classic_rules:
            loaded = self._classic
            if loaded is not None:
                return loaded[0]
        else:
            built = self._built
            if built and built[0][0] is rules:  # the most recent: no reordering, no lock
                return built[0][1]
        if rules == self._classic_rules:
            return self._loaded()
        with self._lock:
            built = self._built
            position = next((i for i, (r, _) in enumerate(built) if r == rules), None)
            if position is None:
                value = self._build(rules)
                built = ((rules, value), *built[: self._kept - 1])
            else:
                value = built[position][1]
                built = ((rules, value), *built[:position], *built[position + 1 :])
            self._built = built
            return value

    def _loaded(self) -> T:
        loaded = self._classic
        if loaded is None:
            with self._lock:
                loaded = self._classic
                if loaded is None:
                    loaded = self._classic = (self._load(),)
        return loaded[0]

    @property
    def classic_loaded(self) -> bool:
        """Whether ``classic``'s value is loaded (a ready server has it before its first
        request)."""
        return self._classic is not None

    def built(self) -> tuple[ScoringRules, ...]:
        """The built readings kept, most recently used first."""
        return tuple(rules for rules, _ in self._built)

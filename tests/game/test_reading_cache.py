"""The one cache policy for what is derived per scoring reading (``ReadingCache``): ``classic/1``'s
value loaded once and never dropped, at most ``BUILT_TABLES_KEPT`` others kept, the least recently
used dropped first, each built once while kept, even when threads ask for it at the same time.

The policy is checked with stand-ins for the load and the build (counting their calls), so every
scoring reading can be asked for in any order at no cost; the last test checks that the core's
caches (score tables, their compact batch form, odds models) are held by it.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
import weakref
from collections.abc import Iterator

import pytest
from quart_bezique.game import odds, scoring
from quart_bezique.game.reading_cache import BUILT_TABLES_KEPT, ReadingCache
from quart_bezique.game.ruleset import CLASSIC, EVERY_RULESET, LITERAL, ScoringRules

READINGS = list(dict.fromkeys(ruleset.scoring for ruleset in EVERY_RULESET))
"""The eight scoring readings, ``classic/1``'s first, each the instance every ``Ruleset`` shares."""
OTHERS = READINGS[1:]
A, B, C = OTHERS[:3]
WAIT = 10.0
"""Seconds a test waits for another thread before failing (instead of hanging)."""


class Value:
    """A stand-in for a reading's tables: which reading it was made for, and a weak reference
    can tell whether anything still holds it."""

    def __init__(self, rules: ScoringRules) -> None:
        self.rules = rules


class Stand:
    """A cache with a counting load and build."""

    def __init__(self, kept: int = BUILT_TABLES_KEPT) -> None:
        self.loads = 0
        self.builds: list[ScoringRules] = []
        self.cache: ReadingCache[Value] = ReadingCache(CLASSIC.scoring, self.load, self.build, kept)

    def load(self) -> Value:
        self.loads += 1
        return Value(CLASSIC.scoring)

    def build(self, rules: ScoringRules) -> Value:
        self.builds.append(rules)
        return Value(rules)


def test_readings_are_the_eight_scoring_combinations() -> None:
    assert len(READINGS) == 8 and READINGS[0] is CLASSIC.scoring
    assert BUILT_TABLES_KEPT == 2 < len(OTHERS)


def test_classic_is_loaded_on_first_use_once_and_never_dropped() -> None:
    stand = Stand()
    assert not stand.cache.classic_loaded and stand.loads == 0
    classic = stand.cache.get(CLASSIC.scoring)
    assert stand.cache.classic_loaded and stand.loads == 1 and classic.rules is CLASSIC.scoring
    for _ in range(2):
        for rules in OTHERS:
            assert stand.cache.get(rules).rules is rules
            assert stand.cache.get(CLASSIC.scoring) is classic
            assert CLASSIC.scoring not in stand.cache.built()
    assert stand.loads == 1
    assert CLASSIC.scoring not in stand.builds
    # An equal ScoringRules that is not the shared instance is classic/1 all the same.
    assert ScoringRules() is not CLASSIC.scoring
    assert stand.cache.get(ScoringRules()) is classic and stand.loads == 1


def test_at_most_built_tables_kept_are_kept_and_the_dropped_are_freed() -> None:
    stand = Stand()
    alive: list[weakref.ref[Value]] = []
    for rules in OTHERS * 2:
        alive.append(weakref.ref(stand.cache.get(rules)))
        kept = stand.cache.built()
        assert len(kept) == min(len(alive), BUILT_TABLES_KEPT)
        gc.collect()
        held = [value.rules for value in (ref() for ref in alive) if value is not None]
        assert sorted(map(READINGS.index, held)) == sorted(map(READINGS.index, kept))
    assert stand.builds == OTHERS * 2  # each dropped before it came round again


def test_the_least_recently_used_is_dropped_first() -> None:
    stand = Stand()
    a, b = stand.cache.get(A), stand.cache.get(B)
    assert stand.cache.built() == (B, A)  # most recently used first
    assert stand.cache.get(A) is a
    assert stand.cache.built() == (A, B)
    stand.cache.get(C)
    assert stand.cache.built() == (C, A)  # B was used least recently
    assert stand.builds == [A, B, C]
    assert stand.cache.get(A) is a and stand.builds == [A, B, C]
    assert stand.cache.get(B) is not b and stand.builds == [A, B, C, B]
    assert stand.cache.built() == (B, A)


def test_classic_uses_no_built_place() -> None:
    stand = Stand()
    stand.cache.get(A), stand.cache.get(B)
    stand.cache.get(CLASSIC.scoring)
    assert stand.cache.built() == (B, A)


def test_a_reading_is_built_once_while_kept() -> None:
    stand = Stand()
    first = {rules: stand.cache.get(rules) for rules in (A, B)}
    for _ in range(5):
        for rules in (A, CLASSIC.scoring, B, B, A):
            found = stand.cache.get(rules)
            assert found is first.get(rules, found)
    assert stand.builds == [A, B]
    # An equal ScoringRules that is not the shared instance finds the kept value too.
    twin = ScoringRules(A.three_aces, A.coronka, A.trump_doubles)
    assert twin is not A and stand.cache.get(twin) is first[A] and stand.builds == [A, B]


def test_a_cache_keeping_one_reading_keeps_the_last() -> None:
    stand = Stand(kept=1)
    for rules in (A, B, B, A):
        stand.cache.get(rules)
        assert stand.cache.built() == (rules,)
    assert stand.builds == [A, B, A]


def test_a_cache_keeps_at_least_one_built_reading() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Stand(kept=0)


def test_a_failed_build_keeps_nothing_and_is_tried_again() -> None:
    calls: list[ScoringRules] = []

    def build(rules: ScoringRules) -> Value:
        calls.append(rules)
        if len(calls) == 2:
            raise RuntimeError("no room")
        return Value(rules)

    cache = ReadingCache(CLASSIC.scoring, lambda: Value(CLASSIC.scoring), build)
    a = cache.get(A)
    with pytest.raises(RuntimeError, match="no room"):
        cache.get(B)
    assert cache.built() == (A,) and cache.get(A) is a
    assert cache.get(B).rules is B and cache.built() == (B, A)
    assert calls == [A, B, B]


def _together(count: int, ask: ScoringRules, cache: ReadingCache[Value]) -> list[Value]:
    """What ``count`` threads get when they ask for ``ask`` at the same moment."""
    start = threading.Barrier(count)
    found: list[Value] = []

    def run() -> None:
        start.wait(WAIT)
        found.append(cache.get(ask))

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert not any(thread.is_alive() for thread in threads)
    return found


class Slow(Stand):
    """A stand whose load and build take long enough for every thread to arrive meanwhile,
    and which records how many ran at once."""

    def __init__(self) -> None:
        super().__init__()
        self.running = 0
        self.most_at_once = 0
        self.guard = threading.Lock()

    @contextlib.contextmanager
    def _working(self) -> Iterator[None]:
        with self.guard:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            time.sleep(0.05)
            yield
        finally:
            with self.guard:
                self.running -= 1

    def load(self) -> Value:
        with self._working():
            return super().load()

    def build(self, rules: ScoringRules) -> Value:
        with self._working():
            return super().build(rules)


@pytest.mark.parametrize("ask", [A, CLASSIC.scoring], ids=["built", "classic"])
def test_threads_asking_for_a_new_reading_at_once_make_it_once(ask: ScoringRules) -> None:
    stand = Slow()
    found = _together(8, ask, stand.cache)
    assert len(found) == 8 and all(value is found[0] for value in found)
    assert found[0].rules is ask
    assert stand.most_at_once == 1
    assert (stand.loads, stand.builds) == ((1, []) if ask is CLASSIC.scoring else (0, [A]))


def test_classic_and_the_most_recent_are_served_while_another_builds() -> None:
    """The lock is taken only to reorder or build: a request under ``classic/1`` or under the
    reading used last does not wait for another reading's build."""
    building, release = threading.Event(), threading.Event()
    kept: dict[ScoringRules, Value] = {}

    def build(rules: ScoringRules) -> Value:
        if rules is B:
            building.set()
            release.wait(WAIT)
        return Value(rules)

    cache = ReadingCache(CLASSIC.scoring, lambda: Value(CLASSIC.scoring), build)
    kept[CLASSIC.scoring], kept[A] = cache.get(CLASSIC.scoring), cache.get(A)
    builder = threading.Thread(target=cache.get, args=(B,))
    builder.start()
    try:
        assert building.wait(WAIT)
        served: list[Value] = []
        reader = threading.Thread(
            target=lambda: served.extend(cache.get(r) for r in (CLASSIC.scoring, A))
        )
        reader.start()
        reader.join(WAIT)
        assert not reader.is_alive(), "a kept reading waited for another's build"
        assert served == [kept[CLASSIC.scoring], kept[A]]
    finally:
        release.set()
        builder.join(WAIT)
    assert cache.built() == (B, A)


def test_the_core_s_caches_follow_the_policy() -> None:
    """Score tables, their compact batch form and odds models each keep ``literal/1``'s
    reading as the most recent once asked for, and serve it again without a rebuild."""
    rules = LITERAL.scoring
    asked = (
        (scoring._TABLES, lambda: scoring.table(None, rules)),
        (scoring._BATCH_TABLES, lambda: scoring.batch_table(rules)),
        (odds._MODELS, lambda: odds._model(None, rules)),
    )
    for cache, ask in asked:
        first = ask()
        assert cache.built()[0] is rules and len(cache.built()) <= BUILT_TABLES_KEPT
        assert ask() is first

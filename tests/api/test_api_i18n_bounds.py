"""The pattern translator follows a message only so deep and tries only so many templates: a text
shaped like messages nested in one another (``ten: ten: ten: ...``, where "{where}: {message}"
takes each ``ten`` for a message and the rest for another) stays English past the bounds, and is
never a RecursionError. Work is counted, not timed: ``Translator.attempts`` counts expressions."""

from __future__ import annotations

import itertools
import string
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from quart_bezique.api.contract.i18n import RUSSIAN
from quart_bezique.api.contract.i18n.catalog import (
    MAX_ATTEMPTS,
    MAX_DEPTH,
    MAX_TEXT,
    Translator,
    entries,
    translator,
)

CATALOG = entries(RUSSIAN)
NESTING = "a variation selector U+1 after x: "
"""The beginning of a message whose last placeholder is a message of its own ("{kind} variation
selector U+{code} after {before}: {fix}")."""


def fresh() -> Translator:
    """A translator with nothing cached: every message is matched, its attempts counted."""
    return Translator(CATALOG)


def tens(count: int) -> str:
    return ": ".join(["ten"] * count)


def test_messages_nested_within_the_depth_are_translated() -> None:
    translate = fresh()
    assert translate.message(tens(MAX_DEPTH)) == ": ".join(["десятка"] * MAX_DEPTH)
    assert translate.attempts <= MAX_ATTEMPTS


@pytest.mark.parametrize("count", [MAX_DEPTH + 2, 50, 150, MAX_TEXT // 5])
def test_messages_nested_past_the_depth_stay_english(count: int) -> None:
    translate = fresh()
    text = tens(count)
    assert len(text) <= MAX_TEXT
    assert translate.message(text) == text
    assert translate.attempts <= MAX_ATTEMPTS
    # The same answer again (cached or not): the bounds depend on the message alone.
    assert translate.message(text) == text
    assert fresh().message(text) == text


def test_nesting_deeper_than_the_interpreter_allows_is_no_recursion_error() -> None:
    """Under the interpreter's own limit: the nesting the old translator followed one frame
    per level (and more) is stopped long before, however low that limit."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        text = NESTING + "ten: " * 150
        assert fresh().message(text) == text
    finally:
        sys.setrecursionlimit(limit)


def test_a_text_longer_than_the_limit_is_not_matched() -> None:
    translate = fresh()
    text = NESTING + "ten: " * (MAX_TEXT // 5)
    assert len(text) > MAX_TEXT
    assert translate.message(text) == text
    assert translate.attempts == 0


RANKS = ("nine", "ten", "jack", "queen", "king", "ace")


def looks(count: int) -> str:
    """A card look-alike message listing ``count`` different parts, each a nested message
    ("nine: ten: jack: queen", ...) that takes several templates' attempts to translate."""
    parts = [": ".join(ranks) for ranks in itertools.permutations(RANKS, 4)][:count]
    return (
        f"mixes Latin and Cyrillic letters ({' with '.join(parts)}): "
        "write KS or КП for the king of spades"
    )


def test_a_message_over_the_attempts_budget_stays_english() -> None:
    """Within the budget the message translates; with more parts of the same kind it would take
    more attempts than the budget allows: it stays English, having tried no more than that."""
    within = fresh()
    assert within.message(looks(2)).startswith("смешаны")
    assert within.attempts <= MAX_ATTEMPTS
    over = fresh()
    text = looks(8)
    assert len(text) <= MAX_TEXT
    assert over.message(text) == text
    assert over.attempts == MAX_ATTEMPTS


FRAGMENTS = sorted(
    {
        literal
        for msgid in CATALOG
        for literal, *_ in string.Formatter().parse(msgid)
        if literal and len(literal) < 40
    }
)
"""The literal pieces of the catalog's templates: texts built of them match many templates."""


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.sampled_from(["ten", "x", "1", "KS", "spades", "Latin s", "(", ")", ": ", ", or "]),
        ),
        max_size=120,
    )
)
def test_any_text_costs_at_most_the_budget(pieces: list[str]) -> None:
    text = "".join(pieces)
    translate = fresh()
    found = translate.message(text)
    assert isinstance(found, str)
    assert translate.attempts <= MAX_ATTEMPTS


def test_the_shared_translator_counts_its_attempts() -> None:
    ru = translator(RUSSIAN)
    before = ru.attempts
    ru.message("invalid card 'XQ' at position 9: unknown rank 'X': expected one of " + "x" * 7)
    assert ru.attempts > before

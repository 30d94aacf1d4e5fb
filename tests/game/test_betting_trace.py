"""docs/rules.md §9: the round's timeline. ``validate_betting(..., trace=True)`` gives the state
after each accepted action; it must be the very state a replay of each prefix ends in."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from quart_bezique import validate_betting

PLAYERS = ["ann", "bob", "cid", "dan"]


def _round(seed: int, length: int) -> list[dict[str, Any]]:
    """A random sequence of legal actions, with an illegal one appended on odd seeds."""
    rng = random.Random(seed)
    done: list[dict[str, Any]] = []
    for _ in range(length):
        state = validate_betting(PLAYERS, "dan", 10, done).state
        if not state.legal_actions or state.to_act is None:
            break
        choice = rng.choice(state.legal_actions)
        action: dict[str, Any] = {"player": state.to_act, "type": choice.type.value}
        if choice.amount is not None:
            action["amount"] = choice.amount
        elif choice.min is not None:
            action["amount"] = choice.min
        done.append(action)
    if seed % 2:
        done.append({"player": "nobody", "type": "fold"})
    return done


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(0, 25))
def test_section_9_trace_is_the_state_after_each_prefix(seed: int, length: int) -> None:
    actions = _round(seed, length)
    result = validate_betting(PLAYERS, "dan", 10, actions, trace=True)
    assert result.trace is not None
    accepted = len(actions) if result.valid else result.error.index  # type: ignore[union-attr]
    assert len(result.trace) == accepted
    for index, state in enumerate(result.trace):
        assert state == validate_betting(PLAYERS, "dan", 10, actions[: index + 1]).state
    if result.trace:
        assert result.trace[-1] == result.state


def test_section_9_no_trace_unless_asked() -> None:
    assert validate_betting(PLAYERS, "dan", 10, _round(2, 5)).trace is None
    assert validate_betting(PLAYERS, "dan", 10, [], trace=True).trace == ()

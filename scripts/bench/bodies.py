"""The request bodies, generated at run time from a fixed seed into a temporary directory, so
that every run (and every server in it) is sent exactly the same bytes."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from quart_bezique.game.betting import validate_betting

from scripts.bench.config import BATCH_HANDS, BETTING_ACTIONS, SEED

SCORE_BODY: Final[dict[str, Any]] = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}
"""The ``/v1/hands/score`` body, also sent to the baselines (coronka, bezique, trumps)."""

RANKS: Final = ("A", "K", "Q", "J", "10", "9")
SUITS: Final = ("S", "C", "H", "D")
CODES: Final = tuple(r + s for s in SUITS for r in RANKS)
TRUMPS: Final[tuple[str | None, ...]] = (None, "S", "C", "H", "D")


def random_hands(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` hands as the API takes them: four canonical codes (repeats allowed, as from a
    six-deck shoe) and a trump in four hands out of five."""
    rng = random.Random(seed)
    hands = []
    for _ in range(n):
        hand: dict[str, Any] = {"cards": [rng.choice(CODES) for _ in range(4)]}
        trump = rng.choice(TRUMPS)
        if trump is not None:
            hand["trump"] = trump
        hands.append(hand)
    return hands


def betting_sequence(n_actions: int, seed: int) -> dict[str, Any]:
    """A valid, unfinished ``/v1/betting/validate`` body of ``n_actions`` actions: stakes (some
    raising), the top-ups they cause, one fold. Built by asking the core for the legal actions,
    so it stays valid whatever the rules become."""
    rng = random.Random(seed)
    players, dealer, ante = ["ann", "bob", "cid", "dan"], "dan", 10
    actions: list[dict[str, Any]] = []
    folded = False
    for i in range(n_actions):
        result = validate_betting(players, dealer, ante, actions)
        state = result.state
        if not result.valid or state.to_act is None:
            raise RuntimeError(f"betting sequence broke at action {i}: {result.error}")
        legal = {str(a.type): a for a in state.legal_actions}
        who = state.to_act
        if "top_up" in legal and not folded and i > n_actions // 2:
            actions.append({"player": who, "type": "fold"})
            folded = True
        elif "top_up" in legal:
            actions.append({"player": who, "type": "top_up", "amount": legal["top_up"].amount})
        else:
            stake = legal["stake"]
            low = int(stake.min or ante)
            amount = low if rng.random() < 0.7 else low + 10 * rng.randint(1, 3)
            if stake.max is not None:
                amount = min(amount, int(stake.max))
            actions.append({"player": who, "type": "stake", "amount": amount})
    final = validate_betting(players, dealer, ante, actions)
    if not final.valid:
        raise RuntimeError(f"generated betting sequence is not valid: {final.error}")
    return {"players": players, "dealer": dealer, "ante": ante, "actions": actions}


def odds_bodies(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` distinct one-opponent odds bodies: half with nothing seen, half with a shown hand."""
    rng = random.Random(seed)
    seen_keys: set[tuple[tuple[str, ...], str | None, tuple[str, ...]]] = set()
    bodies: list[dict[str, Any]] = []
    while len(bodies) < n:
        cards = [rng.choice(CODES) for _ in range(4)]
        trump = rng.choice(TRUMPS)
        seen = [rng.choice(CODES) for _ in range(4)] if rng.random() < 0.5 else []
        everything = cards + seen
        if any(everything.count(c) > 6 for c in everything):
            continue
        key = (tuple(sorted(cards)), trump, tuple(sorted(seen)))
        if key in seen_keys:
            continue
        seen_keys.add(key)
        body: dict[str, Any] = {"cards": cards}
        if trump is not None:
            body["trump"] = trump
        if seen:
            body["seen"] = seen
        bodies.append(body)
    return bodies


def dumps(obj: Any) -> bytes:
    """Compact: no whitespace, as a client that asks for it (or orjson) writes."""
    return json.dumps(obj, separators=(",", ":")).encode()


def dumps_default(obj: Any) -> bytes:
    """``json.dumps``' default layout (``", "`` and ``": "``): what ``requests``' ``json=`` and
    most Python clients send."""
    return json.dumps(obj).encode()


@dataclass(frozen=True)
class Bodies:
    score: Path
    batch: Path
    """Scores only, compact."""
    batch_dumps: Path
    """The same batch in ``json.dumps``' default layout."""
    batch_breakdown: Path
    validate: Path
    odds: Path
    """One body per line."""
    hands: Path
    """The batch's hands, for the in-process measurements."""


def write_bodies(tmp: Path, odds_pool: int) -> Bodies:
    hands = random_hands(BATCH_HANDS, SEED)
    paths = Bodies(
        score=tmp / "score.json",
        batch=tmp / "batch.json",
        batch_dumps=tmp / "batch_dumps.json",
        batch_breakdown=tmp / "batch_breakdown.json",
        validate=tmp / "validate.json",
        odds=tmp / "odds.jsonl",
        hands=tmp / "hands.json",
    )
    paths.score.write_bytes(dumps(SCORE_BODY))
    paths.batch.write_bytes(dumps({"hands": hands, "breakdown": False}))
    paths.batch_dumps.write_bytes(dumps_default({"hands": hands, "breakdown": False}))
    paths.batch_breakdown.write_bytes(dumps({"hands": hands, "breakdown": True}))
    paths.validate.write_bytes(dumps(betting_sequence(BETTING_ACTIONS, SEED)))
    paths.odds.write_bytes(b"\n".join(dumps(b) for b in odds_bodies(odds_pool, SEED)) + b"\n")
    paths.hands.write_bytes(dumps(hands))
    return paths

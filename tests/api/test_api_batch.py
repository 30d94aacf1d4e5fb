"""The batch endpoint's fast path (``hands._batch_results``) against the slow path it replaces.

The fast path checks and scores in one pass and answers with pre-encoded fragments. It must accept
exactly what ``fastcheck.batch_ok`` (and so the schema) accepts, answer byte for byte what the
rendering of ``score_hand`` answers, and leave every refusal to the schema, so that the problem
document and its pointers are those of the schema alone.
"""

from __future__ import annotations

import gc
import itertools
import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from api_support import ok, pointers, problem
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from test_api_fastcheck import LIMIT, batch_bodies, mutated

from service.api.contract import render
from service.api.contract.checks import batch_ok
from service.api.endpoints import hands
from service.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING
from service.game.ruleset import RULESET
from service.game.scoring import score_hand

BATCH = "/v1/hands/batch-score"
SPELLINGS = sorted(CARD_BY_SPELLING)
TRUMPS: list[str | None] = [None, *sorted(SUIT_BY_SPELLING)]


def reference(hands_: list[dict[str, Any]], breakdown: bool) -> list[dict[str, Any]]:
    """What the batch answered before the fast path: the core's breakdown, rendered."""
    scored = [score_hand(h["cards"], h.get("trump")) for h in hands_]
    if breakdown:
        return [render.scored_hand(s) for s in scored]
    return [{"score": s.score} for s in scored]


def reference_body(hands_: list[dict[str, Any]], breakdown: bool) -> bytes:
    return orjson.dumps({"results": reference(hands_, breakdown), "ruleset": RULESET})


def random_hands(n: int, seed: int) -> list[dict[str, Any]]:
    """Any spelling (aliases, lower case, symbols), trump absent, null or any spelling."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(n):
        hand: dict[str, Any] = {"cards": [rng.choice(SPELLINGS) for _ in range(4)]}
        trump = rng.choice([*TRUMPS, "absent"])
        if trump != "absent":
            hand["trump"] = trump
        out.append(hand)
    return out


@pytest.fixture()
def slow_client(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    """The app with the fast path refusing every body the first time: the schema judges all."""
    real = hands._batch_results
    refuse = itertools.cycle([True, False])

    def first_refused(body: Any, max_hands: int) -> Any:
        return None if next(refuse) else real(body, max_hands)

    monkeypatch.setattr(hands, "_batch_results", first_refused)
    with app.test_client() as client:
        yield client


# --- acceptance: exactly batch_ok -------------------------------------------------------------


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_bodies.flatmap(mutated))
def test_fast_path_accepts_exactly_what_batch_ok_accepts(body: Any) -> None:
    results = hands._batch_results(body, LIMIT)
    assert (results is not None) == batch_ok(body, LIMIT), body
    if results is not None:
        breakdown = body.get("breakdown", True)
        assert orjson.dumps(results) == orjson.dumps(reference(body["hands"], breakdown))


@pytest.mark.parametrize(
    "body",
    [
        {"hands": [{"cards": {"KS": 1, "QS": 2, "JS": 3, "JC": 4}}]},  # four valid keys, no list
        {"hands": [{"cards": "KSQS"}]},
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"], "trump": "S", "x": 1}]},
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"], "x": 1}]},
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"], "trump": True}]},
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"], "trump": 1}]},
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"], "trump": ["S"]}]},
        {"hands": [{"cards": ["KS", "QS", "JS", 1]}]},
        {"hands": [{"cards": ["KS", "QS", "JS", ["JC"]]}]},
        {"hands": [{"cards": ["KS", "QS", "JS"]}]},
        {"hands": [{"trump": "S"}]},
        {"hands": [["KS", "QS", "JS", "JC"]]},
        {"hands": [None]},
        {"hands": []},
        {"hands": {}},
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"]}], "breakdown": 1},
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"]}], "x": False},
        {"breakdown": False},
        [{"cards": ["KS", "QS", "JS", "JC"]}],
    ],
)
def test_fast_path_refuses_what_batch_ok_refuses(body: Any) -> None:
    assert not batch_ok(body, LIMIT)
    assert hands._batch_results(body, LIMIT) is None


# --- answers: byte for byte the slow path's --------------------------------------------------


@pytest.mark.parametrize("breakdown", [False, True])
def test_aliases_cases_symbols_and_trumps_answer_like_the_slow_path(
    client: FlaskClient, slow_client: FlaskClient, breakdown: bool
) -> None:
    batch = random_hands(3_000, seed=5)
    body = {"hands": batch, "breakdown": breakdown}
    fast = client.post(BATCH, json=body)
    assert fast.status_code == 200
    assert fast.get_data() == reference_body(batch, breakdown)
    assert fast.get_data() == slow_client.post(BATCH, json=body).get_data()


def test_default_is_breakdown(client: FlaskClient) -> None:
    batch = random_hands(50, seed=6)
    assert client.post(BATCH, json={"hands": batch}).get_data() == reference_body(batch, True)


def test_every_distinct_hand_under_every_trump(client: FlaskClient) -> None:
    codes = sorted({c.code for c in CARD_BY_SPELLING.values()})
    batch = [
        {"cards": list(cards), "trump": trump}
        for cards in itertools.combinations_with_replacement(codes, 4)
        for trump in (None, "S", "C", "H", "D")
    ]
    for start in range(0, len(batch), 10_000):
        chunk = batch[start : start + 10_000]
        for breakdown in (False, True):
            answer = client.post(BATCH, json={"hands": chunk, "breakdown": breakdown})
            assert answer.get_data() == reference_body(chunk, breakdown)


def test_breakdowns_past_the_kept_limit(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hands, "_TAIL_LIMIT", 0)  # nothing more kept: every new hand rendered
    batch = random_hands(500, seed=7)
    assert client.post(BATCH, json={"hands": batch}).get_data() == reference_body(batch, True)


def test_scores_function_agrees_with_the_core() -> None:
    batch = random_hands(2_000, seed=8)
    assert hands._scores(batch) == [r["score"] for r in reference(batch, False)]


# --- refusals: the schema's problem, pointing into the last hand ------------------------------

GOOD = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}
BAD_HANDS: list[tuple[Any, list[str]]] = [
    ({"cards": ["KS", "QS", "JS", "JX"]}, ["/hands/9999/cards/3"]),
    ({"cards": ["KS", "QS", "JS", 7]}, ["/hands/9999/cards/3"]),
    ({"cards": ["KS", "QS", "JS", None]}, ["/hands/9999/cards/3"]),
    ({"cards": ["KS", "QS", "JS"]}, ["/hands/9999/cards"]),
    ({"cards": ["KS", "QS", "JS", "JC", "9S"]}, ["/hands/9999/cards"]),
    ({"cards": "KS QS JS JC"}, ["/hands/9999/cards"]),
    ({"cards": {"KS": 1, "QS": 1, "JS": 1, "JC": 1}}, ["/hands/9999/cards"]),
    ({"cards": None}, ["/hands/9999/cards"]),
    ({"trump": "S"}, ["/hands/9999/cards"]),
    ({"cards": ["KS", "QS", "JS", "JC"], "trump": "X"}, ["/hands/9999/trump"]),
    ({"cards": ["KS", "QS", "JS", "JC"], "trump": 1}, ["/hands/9999/trump"]),
    ({"cards": ["KS", "QS", "JS", "JC"], "trump": False}, ["/hands/9999/trump"]),
    ({"cards": ["KS", "QS", "JS", "JC"], "trump": "SS"}, ["/hands/9999/trump"]),
    ({"cards": ["KS", "QS", "JS", "JC"], "suit": "S"}, ["/hands/9999/suit"]),
    ({"cards": ["KS", "QS", "JS", "JC"], "trump": "S", "x": 1}, ["/hands/9999/x"]),
    (["KS", "QS", "JS", "JC"], ["/hands/9999"]),
    ("KS", ["/hands/9999"]),
    (None, ["/hands/9999"]),
]


@pytest.mark.parametrize("breakdown", [False, True])
@pytest.mark.parametrize(("bad", "expected"), BAD_HANDS)
def test_a_bad_last_hand_gets_the_schemas_problem(
    client: FlaskClient, bad: Any, expected: list[str], breakdown: bool
) -> None:
    # A refusal by the fast path always goes to the schema, so its problem is the schema's own:
    # what matters is that the fast path refuses (the slow path would answer 200 otherwise).
    body = {"hands": [GOOD] * 9_999 + [bad], "breakdown": breakdown}
    doc = problem(client.post(BATCH, json=body), 422, "VALIDATION_ERROR")
    assert pointers(doc) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"hands": [GOOD] * 10_001, "breakdown": False}, ["/hands"]),
        ({"hands": [GOOD], "breakdown": "false"}, ["/breakdown"]),
        ({"hands": [GOOD], "breakdown": None}, ["/breakdown"]),
        ({"hands": [GOOD], "extra": True}, ["/extra"]),
        ({"hand": [GOOD]}, ["/hand", "/hands"]),
    ],
)
def test_top_level_refusals_are_the_schemas(
    client: FlaskClient, slow_client: FlaskClient, body: Any, expected: list[str]
) -> None:
    answer = client.post(BATCH, json=body)
    assert sorted(pointers(problem(answer, 422, "VALIDATION_ERROR"))) == expected
    assert answer.get_data() == slow_client.post(BATCH, json=body).get_data()


# --- the collector ------------------------------------------------------------------------------


def test_the_collector_runs_again_after_each_batch(client: FlaskClient) -> None:
    assert gc.isenabled()
    assert ok(client.post(BATCH, json={"hands": [GOOD], "breakdown": False}))["results"] == [
        {"score": 16}
    ]
    assert gc.isenabled()
    refused = client.post(BATCH, json={"hands": [{"cards": ["XX"]}]})
    assert refused.status_code == 422
    assert gc.isenabled()
    malformed = client.post(BATCH, data=b"{", content_type="application/json")
    assert malformed.status_code == 400
    assert gc.isenabled()


def test_pause_for_batches_holds_the_collector_for_the_whole_call() -> None:
    seen: list[bool] = []

    def inner(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(gc.isenabled())
        if environ.get("boom"):
            raise RuntimeError("boom")
        return [b"{}"]

    wrapped = hands.pause_for_batches(inner)
    assert wrapped({"PATH_INFO": BATCH}, lambda *a: None) == [b"{}"]
    assert gc.isenabled()
    wrapped({"PATH_INFO": "/v1/hands/score"}, lambda *a: None)
    with pytest.raises(RuntimeError):
        wrapped({"PATH_INFO": BATCH, "boom": True}, lambda *a: None)
    assert seen == [False, True, False]
    assert gc.isenabled()


def test_the_served_app_pauses_for_batches_and_freezes_what_it_built() -> None:
    code = (
        "import gc, service.wsgi as w; "
        "print(w.app.wsgi_app.__qualname__, gc.get_freeze_count() > 10_000, gc.isenabled())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["pause_for_batches.<locals>.serve", "True", "True"]


def test_overlapping_pauses_resume_once_all_end() -> None:
    assert gc.isenabled()
    first, second = hands.CollectorPause(), hands.CollectorPause()
    first.end()
    assert not gc.isenabled()
    first.end()  # idempotent
    assert not gc.isenabled()
    with second:
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_disabled_by_someone_else_stays_disabled() -> None:
    gc.disable()
    try:
        hands.CollectorPause().end()
        assert not gc.isenabled()
    finally:
        gc.enable()

"""The batch endpoint's fast path (``hands._batch_results``) against the slow path it replaces.

The fast path checks and scores in one pass and answers with pre-encoded fragments. It must accept
exactly what the schema accepts, answer byte for byte what the
rendering of ``score_hand`` answers, and leave every refusal to the schema, so that the problem
document and its pointers are those of the schema alone.
"""

from __future__ import annotations

import gc
import itertools
import json
import random
import subprocess
import sys
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.contract.schemas import request_schemas
from quart_bezique.api.envelope.collector import CollectorPause
from quart_bezique.api.envelope.road import Typed
from quart_bezique.api.fastpath import batch
from quart_bezique.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING
from quart_bezique.game.ruleset import RULESET
from quart_bezique.game.scoring import score_hand
from quart_bezique.wire import render
from quart_bezique.wire.canonical import (
    canonical_text,
    form_of,
    request_digest,
    sha256,
)

from tests.api.api_support import ok, pointers, problem
from tests.api.test_api_fastcheck import LIMIT, SCHEMAS, batch_bodies, mutated, schema_accepts

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


def batch_ok(body: Any, limit: int) -> bool:
    assert limit == LIMIT
    return schema_accepts(SCHEMAS.batch(), body)


# --- acceptance: exactly the schema's ----------------------------------------------------------


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_bodies.flatmap(mutated))
def test_the_road_accepts_exactly_what_the_schema_accepts(body: Any) -> None:
    answer = _client().post(BATCH, data=orjson.dumps(body), content_type="application/json")
    assert (answer.status_code == 200) == batch_ok(body, LIMIT), body
    if answer.status_code == 200:
        breakdown = body.get("breakdown", True)
        assert answer.get_data() == reference_body(body["hands"], breakdown)
    else:
        assert answer.status_code == 422


_CLIENTS: list[FlaskClient] = []


def _client() -> FlaskClient:
    """One app for every example (hypothesis tests take no function-scoped fixtures)."""
    if not _CLIENTS:
        _CLIENTS.append(create_app(Config(max_batch_hands=LIMIT)).test_client())
    return _CLIENTS[0]


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
    ],
)
def test_the_typed_decoder_refuses_every_hand_the_schema_refuses(body: Any) -> None:
    assert not batch_ok(body, LIMIT)
    for breakdown in (False, True):
        assert _decode({**body, "breakdown": breakdown}) is None


_DECODERS: dict[int, Any] = {}


def _decode(body: Any, layout: Any = orjson.dumps, limit: int = LIMIT) -> Typed | None:
    """The typed decoder of the batch schema for ``limit`` hands, on ``body`` as ``layout``
    writes it."""
    if limit not in _DECODERS:
        schemas = request_schemas(Config(max_batch_hands=limit, build_tables=False))
        _DECODERS[limit] = batch.typed_decoder(schemas.batch())
    found: Typed | None = _DECODERS[limit](layout(body))
    return found


def _spaced(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_bodies.flatmap(mutated), st.sampled_from([orjson.dumps, _spaced]))
def test_the_typed_decoder_accepts_exactly_what_the_schema_accepts(body: Any, layout: Any) -> None:
    """Equivalence on generated bodies, in either layout: the typed decoder accepts a body exactly
    when the schema does, answers it as the core does, and writes its canonical text."""
    found = _decode(body, layout)
    assert (found is not None) == batch_ok(body, LIMIT), body
    if found is not None:
        breakdown = body.get("breakdown", True)
        assert orjson.dumps(found.judged.payload) == reference_body(body["hands"], breakdown)
        assert found.text == canonical_text(form_of(BATCH), body)


# --- answers: byte for byte the core's, rendered ----------------------------------------------


@pytest.mark.parametrize("breakdown", [False, True])
def test_aliases_cases_symbols_and_trumps_answer_as_the_core_does(
    client: FlaskClient, breakdown: bool
) -> None:
    hands_ = random_hands(3_000, seed=5)
    answer = client.post(BATCH, json={"hands": hands_, "breakdown": breakdown})
    assert answer.status_code == 200
    assert answer.get_data() == reference_body(hands_, breakdown)


def test_default_is_breakdown(client: FlaskClient) -> None:
    batch = random_hands(50, seed=6)
    assert client.post(BATCH, json={"hands": batch}).get_data() == reference_body(batch, True)


@pytest.mark.slow  # exhaustive: 87,750 hands through the app
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
    monkeypatch.setattr(batch, "_TAIL_LIMIT", 0)  # nothing more kept: every new hand rendered
    hands_ = random_hands(500, seed=7)
    assert client.post(BATCH, json={"hands": hands_}).get_data() == reference_body(hands_, True)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=40), st.integers(min_value=0))
def test_the_canonical_text_holds_no_alias(size: int, seed: int) -> None:
    """The batch's canonical text is the decoded record itself when the loop met no alias, else
    rebuilt: on any mix of spellings it must be the canonical form's own text."""
    rng = random.Random(seed)
    hands_ = random_hands(size, seed) if rng.random() < 0.5 else _canonical_hands(size, seed)
    for breakdown in (False, True):
        body = {"hands": hands_, "breakdown": breakdown}
        found = _decode(body, limit=100)
        assert found is not None
        assert found.text == canonical_text(form_of(BATCH), body)
        assert orjson.dumps(found.judged.payload["results"]) == orjson.dumps(
            reference(hands_, breakdown)
        )


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
    client: FlaskClient, body: Any, expected: list[str]
) -> None:
    answer = client.post(BATCH, json=body)
    assert sorted(pointers(problem(answer, 422, "VALIDATION_ERROR"))) == expected


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


def test_the_collector_is_paused_while_a_batch_is_judged(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    real = batch._judge_records

    def watched(records: Any, breakdown: bool, tables: Any) -> Any:
        seen.append(gc.isenabled())
        return real(records, breakdown, tables)

    monkeypatch.setattr(batch, "_judge_records", watched)
    assert client.post(BATCH, json={"hands": [GOOD]}).status_code == 200
    assert seen == [False]
    assert gc.isenabled()


def test_the_served_app_freezes_what_it_built() -> None:
    code = (
        "import gc, quart_bezique.wsgi as w; print(gc.get_freeze_count() > 10_000, gc.isenabled())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["True", "True"]


def test_overlapping_pauses_resume_once_all_end() -> None:
    assert gc.isenabled()
    first, second = CollectorPause(), CollectorPause()
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
        CollectorPause().end()
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- digests: the canonical form's, whatever the layout ----------------------------------------


class _Audited:
    """An app whose audit lines land in a list."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.app = create_app(Config(), audit_sink=self.lines.append)

    def post(self, data: bytes) -> tuple[int, bytes, dict[str, Any]]:
        with self.app.test_client() as client:
            answer = client.post(BATCH, data=data, content_type="application/json")
        return answer.status_code, answer.get_data(), orjson.loads(self.lines[-1])


@pytest.fixture(scope="module")
def audited() -> _Audited:
    return _Audited()


def _spellings(rng: random.Random, hands_: list[dict[str, Any]], aliases: bool) -> str:
    """``hands_`` as JSON text written by hand: keys in either order, spacing, escapes, aliases."""
    parts = []
    for hand in hands_:
        cards = [rng.choice(_ALIASES[c]) if aliases else c for c in hand["cards"]]
        members = [f'"cards":[{",".join(_string(rng, c, aliases) for c in cards)}]']
        if "trump" in hand:
            trump = hand["trump"]
            members.append(f'"trump":{"null" if trump is None else _string(rng, trump, aliases)}')
        if aliases and rng.random() < 0.3:
            members.reverse()
        parts.append("{" + ",".join(members) + "}")
    return "[" + ",".join(parts) + "]"


def _string(rng: random.Random, text: str, escapes: bool) -> str:
    if escapes and rng.random() < 0.1:
        return '"' + "".join(f"\\u{ord(ch):04x}" for ch in text) + '"'
    return orjson.dumps(text).decode()


_ALIASES: dict[str, list[str]] = {}
for _spelling, _card in CARD_BY_SPELLING.items():
    _ALIASES.setdefault(_card.code, []).append(_spelling)


def _canonical_hands(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    codes = sorted(_ALIASES)
    out: list[dict[str, Any]] = []
    for _ in range(n):
        hand: dict[str, Any] = {"cards": [rng.choice(codes) for _ in range(4)]}
        trump = rng.choice([None, "S", "C", "H", "D", "absent"])
        if trump != "absent":
            hand["trump"] = trump
        out.append(hand)
    return out


LAYOUTS = [
    '{{"hands":{hands}}}',
    '{{"hands":{hands},"breakdown":{flag}}}',
    '{{"breakdown":{flag},"hands":{hands}}}',
    '{{ "hands": {hands}, "breakdown": {flag} }}',
    '{{"hands":{hands},\n"breakdown":{flag}}}',
    '{{"h\\u0061nds":{hands},"breakdown":{flag}}}',
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("flag", ["false", "true"])
@pytest.mark.parametrize("aliases", [False, True])
def test_any_layout_answers_and_digests_alike(
    audited: _Audited, layout: str, flag: str, aliases: bool
) -> None:
    rng = random.Random(f"{layout}{flag}{aliases}")
    for size in (1, 7, 300):
        hands_ = _canonical_hands(size, size)
        data = layout.format(hands=_spellings(rng, hands_, aliases), flag=flag).encode()
        status, answer, record = audited.post(data)
        breakdown = flag == "true" or "flag" not in layout
        shown: dict[str, Any] = {"hands": hands_}
        if "flag" in layout:
            shown["breakdown"] = breakdown
        compact = orjson.dumps(shown)
        _, compact_answer, compact_record = audited.post(compact)
        assert status == 200, answer
        assert answer == compact_answer == reference_body(hands_, breakdown)
        assert record["body_sha256"] == compact_record["body_sha256"]
        assert record["body_sha256"] == request_digest(BATCH, orjson.loads(data))
        assert record["verdict"] == {"hands": size}


REPEATED = [
    b'{"hands":[{"cards":["KS","QS","JS","JC"],"cards":["KS","QS","JS","9C"]}]}',
    b'{"hands":[{"cards":["KS","QS","JS","JC"],"trump":"S","trump":"H"}]}',
    b'{"hands":[{"trump":"S","cards":["KS","QS","JS","JC"],"trump":null}]}',
    b'{"hands":[],"hands":[{"cards":["KS","QS","JS","JC"]}]}',
    b'{"hands":{"a:b":1},"hands":[{"cards":["KS","QS","JS","JC"]}]}',
    b'{"breakdown":true,"hands":[{"cards":["KS","QS","JS","JC"]}],"breakdown":false}',
    b'{"hands":[{"cards":{"x":1},"cards":["KS","QS","JS","JC"]}],"breakdown":false}',
    b'{"hands":[{"cards":["KS","QS","JS","JC"],"tr\\u0075mp":"S","trump":"S"}]}',
]


@pytest.mark.parametrize("data", REPEATED)
def test_a_repeated_key_is_refused_and_named_by_the_bytes(audited: _Audited, data: bytes) -> None:
    status, answer, record = audited.post(data)
    assert status == 400
    assert b"repeats the key" in answer
    assert record["body_sha256"] == sha256(data)


@pytest.mark.parametrize(
    "data",
    [
        b'{"hands":[{"trump":"S","cards":["KS","QS","JS","JC"]}]}',
        b'{"hands":[{"cards":["KS","QS","JS","JC"]},{"trump":null,"cards":["9S","9S","9S","9S"]}]}',
        b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","J\\u0043"],"trump":"H"}]}',
        b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","JC"],"trump":"h"}]}',
        b'{"hands":[{"cards":["KS","QS","JS","JC"],"trump":null}],"breakdown":true}',
        b'{"hands":[{"cards":["10S","QS","JS","TS"]}],"breakdown":false}',
        b'{"hands":[{"cards":["10S","QS","JS","JC"]}],"breakdown":false}\n',
    ],
)
def test_the_digest_of_near_canonical_bodies(audited: _Audited, data: bytes) -> None:
    status, _, record = audited.post(data)
    assert status == 200
    assert record["body_sha256"] == request_digest(BATCH, orjson.loads(data))

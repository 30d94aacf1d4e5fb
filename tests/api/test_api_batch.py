"""The batch endpoint's fast path (``hands._batch_results``) against the slow path it replaces.

The fast path checks and scores in one pass and answers with pre-encoded fragments. It must accept
exactly what the schema accepts, answer byte for byte what the
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
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.app import create_app
from service.api.config import Config
from service.api.contract import render
from service.api.endpoints import hands
from service.api.envelope import audit
from service.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING
from service.game.ruleset import RULESET
from service.game.scoring import score_hand
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


@pytest.fixture()
def slow_client(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    """The app with the fast path refusing every body the first time (and the raw-bytes path
    off): the schema judges all."""
    real = hands._judge
    refuse = itertools.cycle([True, False])

    def first_refused(body: Any, top_ok: Any) -> Any:
        return None if next(refuse) else real(body, top_ok)

    monkeypatch.setattr(hands, "_judge", first_refused)
    monkeypatch.setattr(hands, "_answer_raw", lambda *args: None)
    with app.test_client() as client:
        yield client


def batch_ok(body: Any, limit: int) -> bool:
    assert limit == LIMIT
    return schema_accepts(SCHEMAS.batch(), body)


# --- acceptance: exactly the schema's ----------------------------------------------------------


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

    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        return None

    wrapped = hands.pause_for_batches(inner)
    assert wrapped({"PATH_INFO": BATCH}, start) == [b"{}"]
    assert gc.isenabled()
    wrapped({"PATH_INFO": "/v1/hands/score"}, start)
    with pytest.raises(RuntimeError):
        wrapped({"PATH_INFO": BATCH, "boom": True}, start)
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


# --- the raw-bytes path: same answers, same digests, same refusals as the ordinary read ---------


class _Audited:
    """An app whose audit lines land in a list, and its twin with the raw-bytes path off."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.app = create_app(Config(), audit_sink=self.lines.append)

        self.raw_answers = 0
        """Requests the raw-bytes path answered."""
        self.spans = 0
        """Digests taken over the raw text."""

    def post(self, data: bytes, raw: bool) -> tuple[int, bytes, dict[str, Any]]:
        real, span = hands._answer_raw, audit._canonical_hands

        def answer_raw(*args: Any) -> Any:
            answered = real(*args)
            self.raw_answers += answered is not None
            return answered

        def canonical_hands(*args: Any) -> Any:
            found = span(*args)
            self.spans += found is not None
            return found

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(audit, "_canonical_hands", canonical_hands)
            patch.setattr(hands, "_answer_raw", answer_raw if raw else lambda *args: None)
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
def test_raw_path_answers_and_digests_as_the_ordinary_read(
    audited: _Audited, layout: str, flag: str, aliases: bool
) -> None:
    from service.api.envelope.audit import canonical_body, sha256

    rng = random.Random(f"{layout}{flag}{aliases}")
    answered, spans = audited.raw_answers, audited.spans
    for size in (1, 7, 300):
        text = layout.format(
            hands=_spellings(rng, _canonical_hands(size, size), aliases), flag=flag
        )
        data = text.encode()
        status, answer, record = audited.post(data, raw=True)
        slow_status, slow_answer, slow_record = audited.post(data, raw=False)
        assert status == slow_status == 200, answer
        assert answer == slow_answer
        assert record["body_sha256"] == slow_record["body_sha256"]
        assert record["body_sha256"] == sha256(canonical_body(BATCH, orjson.loads(data)))
        assert record["response_sha256"] == slow_record["response_sha256"]
        assert record["verdict"] == slow_record["verdict"] == {"hands": size}
    assert audited.raw_answers == answered + 3  # every one answered by the raw path
    canonical = not aliases and layout.count(" ") + layout.count("\n") + layout.count("\\") == 0
    assert audited.spans == spans + (3 if canonical else 0)  # hashed as sent when canonical


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
def test_raw_path_leaves_repeated_keys_to_the_ordinary_read(audited: _Audited, data: bytes) -> None:
    status, answer, record = audited.post(data, raw=True)
    slow_status, slow_answer, slow_record = audited.post(data, raw=False)
    assert status == slow_status == 400
    assert answer == slow_answer
    assert b"repeats the key" in answer
    assert record["body_sha256"] == slow_record["body_sha256"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_bodies.flatmap(mutated))
def test_raw_path_is_the_ordinary_read_on_any_body(body: Any) -> None:
    if not _AUDITED:  # hypothesis tests take no function-scoped fixtures
        _AUDITED.append(_Audited())
    audited = _AUDITED[0]
    data = orjson.dumps(body)
    status, answer, record = audited.post(data, raw=True)
    slow_status, slow_answer, slow_record = audited.post(data, raw=False)
    assert (status, answer) == (slow_status, slow_answer)
    assert record.get("body_sha256") == slow_record.get("body_sha256")


_AUDITED: list[_Audited] = []


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
def test_raw_path_digest_of_near_canonical_bodies(audited: _Audited, data: bytes) -> None:
    from service.api.envelope.audit import canonical_body, sha256

    status, answer, record = audited.post(data, raw=True)
    slow_status, slow_answer, slow_record = audited.post(data, raw=False)
    assert status == slow_status == 200
    assert answer == slow_answer
    assert record["body_sha256"] == slow_record["body_sha256"]
    assert record["body_sha256"] == sha256(canonical_body(BATCH, orjson.loads(data)))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | st.text(alphabet=',[{:]}"ab ', max_size=200).map(str.encode))
def test_the_raw_paths_value_bound_is_the_budgets(data: bytes) -> None:
    from service.api.envelope.budget import values_bound

    marks = audit.structure(data)
    assert len(marks) - marks.count(b":") + 1 == values_bound(data)

"""The audit record: one JSON line per request, and the same body always gives the same digest and
the same verdict. Lines are captured through the app's ``audit_sink``."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.api.envelope import audit
from quart_bezique.api.envelope.sink import AuditSink
from quart_bezique.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING
from quart_bezique.wire.canonical import canonical_text, form_of

from tests.api.api_support import problem

SCORE = "/v1/hands/score"
BATCH = "/v1/hands/batch-score"
HEX64 = set("0123456789abcdef")
HANDS = {"bob": ["KH", "QH", "KD", "10D"], "dan": ["QS", "JC", "QH", "JD"]}
SPELLINGS: dict[str, list[str]] = {}
for _spelling, _card in CARD_BY_SPELLING.items():
    SPELLINGS.setdefault(_card.code, []).append(_spelling)
SUIT_SPELLINGS: dict[str, list[str]] = {}
for _spelling, _suit in SUIT_BY_SPELLING.items():
    SUIT_SPELLINGS.setdefault(_suit.value, []).append(_spelling)


class Audited:
    """An app whose audit lines land in a list."""

    def __init__(self, **config: Any) -> None:
        self.lines: list[bytes] = []
        self.app: Flask = create_app(Config(**config), audit_sink=self.lines.append)
        self.client = self.app.test_client()

    def post(self, path: str, body: bytes, **headers: str) -> tuple[Any, dict[str, Any]]:
        before = len(self.lines)
        response = self.client.post(
            path, data=body, headers={"Content-Type": "application/json", **headers}
        )
        return response, self.last(before)

    def get(self, path: str, **headers: str) -> tuple[Any, dict[str, Any]]:
        before = len(self.lines)
        response = self.client.get(path, headers=headers)
        return response, self.last(before)

    def last(self, before: int) -> dict[str, Any]:
        assert len(self.lines) == before + 1, "exactly one audit line per request"
        line = self.lines[-1]
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        record: dict[str, Any] = orjson.loads(line)
        return record


@pytest.fixture(scope="module")
def audited() -> Audited:
    return Audited()


def digest_of(canonical: Any) -> str:
    """The documented definition, computed independently of the service."""
    return hashlib.sha256(orjson.dumps(canonical, option=orjson.OPT_SORT_KEYS)).hexdigest()


def test_a_verdict_line_has_every_field(audited: Audited) -> None:
    body = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}
    response, record = audited.post(SCORE, orjson.dumps(body))
    assert response.status_code == 200
    assert set(record) == {
        "ts",
        "request_id",
        "method",
        "endpoint",
        "status",
        "duration_ms",
        "version",
        "ruleset",
        "body_sha256",
        "response_sha256",
        "verdict",
    }
    assert record["ts"].endswith("Z") and record["ts"][10] == "T"
    assert record["method"] == "POST" and record["endpoint"] == SCORE
    assert record["status"] == 200 and 0 < record["duration_ms"] < 10_000
    assert record["ruleset"] == "classic/1" and record["version"]
    assert record["verdict"] == {"score": orjson.loads(response.get_data())["score"]}
    assert record["response_sha256"] == hashlib.sha256(response.get_data()).hexdigest()
    assert record["body_sha256"] == digest_of(body)
    assert response.headers["X-Request-ID"] == record["request_id"]


def test_request_ids_sane_ones_are_kept_others_replaced(audited: Audited) -> None:
    body = orjson.dumps({"cards": ["KS", "QS", "JS", "JC"]})
    response, record = audited.post(SCORE, body, **{"X-Request-ID": "trace-42:a/b=c"})
    assert record["request_id"] == response.headers["X-Request-ID"] == "trace-42:a/b=c"
    seen = set()
    for sent in ("", "has space", "x" * 129, "é-accent", "line\tbreak", "<script>"):
        response, record = audited.post(SCORE, body, **{"X-Request-ID": sent})
        rid = record["request_id"]
        assert rid == response.headers["X-Request-ID"] != sent
        assert len(rid) == 32 and set(rid) <= HEX64
        seen.add(rid)
    response, record = audited.get("/healthz")
    assert len(record["request_id"]) == 32
    seen.add(record["request_id"])
    assert len(seen) == 7, "generated ids are unique"


def test_same_body_same_digest_and_verdict(audited: Audited) -> None:
    bodies = [
        (SCORE, {"cards": ["KH", "QH", "KD", "10D"], "trump": "H"}),
        (BATCH, {"hands": [{"cards": c} for c in HANDS.values()], "breakdown": False}),
        ("/v1/showdown", {"hands": [{"player": p, "cards": c} for p, c in HANDS.items()]}),
        ("/v1/betting/validate", EXAMPLE_ROUND),
        ("/v1/rounds/settle", {**EXAMPLE_ROUND, "trump": "H", "hands": HANDS}),
    ]
    for path, body in bodies:
        first_response, first = audited.post(path, orjson.dumps(body))
        again_response, again = audited.post(path, orjson.dumps(body))
        assert first["status"] == again["status"] == 200, path
        assert first["body_sha256"] == again["body_sha256"] == digest_of(body), path
        assert first["verdict"] == again["verdict"] and first["verdict"], path
        assert first["response_sha256"] == again["response_sha256"], path
        assert first_response.get_data() == again_response.get_data()
        assert first["request_id"] != again["request_id"]


def test_key_order_spacing_escapes_and_aliases_do_not_change_the_digest(audited: Audited) -> None:
    plain = b'{"cards":["10S","QS","JS","JC"],"trump":"S"}'
    variants = [
        b'{"trump": "S", "cards": ["10S", "QS", "JS", "JC"]}',
        b'{"cards":["TS","qs","j\\u2660","Jc"],"trump":"\\u2660"}',
        b'{"cards":["10s","Q\xe2\x99\xa0","js","JC"],\n "trump": "s"}',
        b'{"cards":["\\u0054S","QS","JS","JC"],"trump":"S"}',
        b'{"cards":["\\u0031\\u0030S","QS","JS","JC"],"trump":"S"}',  # the exact duplicate check
    ]
    _, reference = audited.post(SCORE, plain)
    for body in variants:
        _, record = audited.post(SCORE, body)
        assert record["body_sha256"] == reference["body_sha256"], body
        assert record["verdict"] == reference["verdict"]
    for different in (
        b'{"cards":["10S","QS","JS","JC"],"trump":"H"}',
        b'{"cards":["10S","QS","JS","JC"]}',  # absent and null trump are kept apart
        b'{"cards":["10S","QS","JS","JC"],"trump":null}',
        b'{"cards":["QS","10S","JS","JC"],"trump":"S"}',  # order of cards is kept
    ):
        _, record = audited.post(SCORE, different)
        assert record["body_sha256"] != reference["body_sha256"], different


def test_player_ids_are_never_taken_for_cards(audited: Audited) -> None:
    """A player may be called "ts": only card positions are canonicalised."""

    def showdown(a: str, b: str) -> bytes:
        return orjson.dumps(
            {"hands": [{"player": a, "cards": HANDS["bob"]}, {"player": b, "cards": HANDS["dan"]}]}
        )

    _, one = audited.post("/v1/showdown", showdown("ts", "x"))
    _, other = audited.post("/v1/showdown", showdown("10S", "x"))
    assert one["body_sha256"] != other["body_sha256"]
    assert one["verdict"] == {"winner": "x", "tie": False, "scores": [6, 9]}


def test_settle_and_showdown_hands_are_canonicalised(audited: Audited) -> None:
    body = {**EXAMPLE_ROUND, "trump": "H", "hands": HANDS}
    aliased = {
        **EXAMPLE_ROUND,
        "trump": "♥",
        "hands": {"bob": ["kh", "QH", "K♦", "Td"], "dan": ["qs", "jc", "QH", "JD"]},
    }
    _, plain = audited.post("/v1/rounds/settle", orjson.dumps(body))
    _, other = audited.post("/v1/rounds/settle", orjson.dumps(aliased))
    assert plain["body_sha256"] == other["body_sha256"] == digest_of(body)
    assert plain["verdict"] == {
        "pot": 120,
        "winners": ["bob"],
        "payouts": {"ann": 0, "bob": 120, "cid": 0, "dan": 0},
    }
    assert canonical_text(form_of("/v1/rounds/settle"), aliased) == orjson.dumps(
        body, option=orjson.OPT_SORT_KEYS
    )


def test_betting_verdict_summary(audited: Audited) -> None:
    _, record = audited.post("/v1/betting/validate", orjson.dumps(EXAMPLE_ROUND))
    assert record["verdict"] == {"valid": True, "code": None, "index": None, "pot": 120}
    illegal = {
        "players": ["ann", "bob"],
        "dealer": "bob",
        "ante": 10,
        "minimum_stake": 20,
        "actions": [{"player": "ann", "type": "stake", "amount": 5}],
    }
    _, record = audited.post("/v1/betting/validate", orjson.dumps(illegal))
    assert record["verdict"]["valid"] is False
    assert record["verdict"]["index"] == 0 and record["verdict"]["code"]


def _batch(rng: random.Random, size: int, aliases: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """A batch as sent (aliases or not) and its canonical form."""
    codes = sorted(SPELLINGS)
    sent, canonical = [], []
    for _ in range(size):
        cards = [rng.choice(codes) for _ in range(4)]
        hand: dict[str, Any] = {
            "cards": [rng.choice(SPELLINGS[c]) if aliases else c for c in cards]
        }
        canon: dict[str, Any] = {"cards": cards}
        roll = rng.random()
        if roll < 0.6:
            suit = rng.choice("SCHD")
            hand["trump"] = rng.choice(SUIT_SPELLINGS[suit]) if aliases else suit
            canon["trump"] = suit
        elif roll < 0.8:
            hand["trump"] = canon["trump"] = None
        sent.append(hand)
        canonical.append(canon)
    return {"hands": sent}, {"hands": canonical}


@pytest.mark.parametrize("breakdown", [None, True, False])
def test_batch_digest_with_and_without_aliases(audited: Audited, breakdown: bool | None) -> None:
    rng = random.Random(6)
    sent, canonical = _batch(rng, 500, aliases=True)
    plain = {"hands": canonical["hands"]}
    if breakdown is not None:
        sent["breakdown"] = plain["breakdown"] = canonical["breakdown"] = breakdown
    response_a, a = audited.post(BATCH, orjson.dumps(sent))
    response_b, b = audited.post(BATCH, orjson.dumps(plain))
    assert a["status"] == b["status"] == 200
    assert a["body_sha256"] == b["body_sha256"] == digest_of(canonical)
    assert a["verdict"] == b["verdict"] == {"hands": 500}
    assert a["response_sha256"] == hashlib.sha256(response_a.get_data()).hexdigest()
    if breakdown is False:  # scores only: the same answer whatever the spelling
        assert response_a.get_data() == response_b.get_data()


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(1, 40),
    share=st.sampled_from([0.0, 0.02, 0.5, 1.0]),
    breakdown=st.sampled_from([None, True, False]),
)
def test_batch_alias_test_is_exact(
    seed: int, size: int, share: float, breakdown: bool | None
) -> None:
    """The batch's digest over the road (its sorted text hashed as sent when the table loop met no
    alias, else rebuilt) is the documented canonical form's, whatever mix of spellings it uses."""
    rng = random.Random(seed)
    sent, canonical = _batch(rng, size, aliases=False)
    for hand in sent["hands"]:
        if rng.random() < share:
            hand["cards"] = [rng.choice(SPELLINGS[c]) for c in hand["cards"]]
            if hand.get("trump") is not None and rng.random() < 0.5:
                hand["trump"] = rng.choice(SUIT_SPELLINGS[hand["trump"]])
    if breakdown is not None:
        sent["breakdown"] = canonical["breakdown"] = breakdown
    if not _AUDITED_BATCH:  # hypothesis tests take no function-scoped fixtures
        _AUDITED_BATCH.append(Audited())
    _, record = _AUDITED_BATCH[0].post(BATCH, orjson.dumps(sent))
    assert record["body_sha256"] == digest_of(canonical)


_AUDITED_BATCH: list[Audited] = []


def test_refusals_are_recorded_with_their_code(audited: Audited) -> None:
    bad = b'{"cards": ["KS", "QS", "JS"]}'
    response, record = audited.post(SCORE, bad)
    problem(response, 422, "VALIDATION_ERROR")
    assert record["verdict"] == {"code": "VALIDATION_ERROR"}
    assert record["body_sha256"] == digest_of({"cards": ["KS", "QS", "JS"]})
    assert "response_sha256" not in record

    broken = b'{"cards": ['
    response, record = audited.post(SCORE, broken)
    problem(response, 400, "MALFORMED_JSON")
    assert record["body_sha256"] == hashlib.sha256(broken).hexdigest()  # not JSON: raw bytes

    response, record = audited.post("/v1/showdown", orjson.dumps({"hands": [
        {"player": "a", "cards": ["KS"] * 4}, {"player": "b", "cards": ["KS"] * 4}]}))  # fmt: skip
    problem(response, 422, "SHOE_EXCEEDED")
    assert record["verdict"] == {"code": "SHOE_EXCEEDED"}

    response = audited.client.post(SCORE, data=b"{}", content_type="text/plain")
    record = audited.last(len(audited.lines) - 1)
    assert record["status"] == 415 and "body_sha256" not in record


def test_unmatched_paths_are_recorded_clipped_and_escaped(audited: Audited) -> None:
    path = "/nowhere/" + "a" * 500 + "%0A%22injected%22"
    response, record = audited.get(path)
    assert response.status_code == 404
    assert record["endpoint"] == "unmatched"
    assert len(record["path"]) == audit.MAX_PATH_LOGGED
    response, record = audited.get("/x%0A{%22forged%22:1}")
    assert record["path"] == '/x\n{"forged":1}'  # still one line: orjson escapes the newline


def test_get_endpoints_are_recorded_without_digests(audited: Audited) -> None:
    for path in ("/healthz", "/readyz", "/v1/rules", "/metrics", "/openapi.json", "/docs"):
        response, record = audited.get(path)
        assert response.status_code == 200
        assert record["endpoint"] == path and record["method"] == "GET"
        assert "body_sha256" not in record and "verdict" not in record
    response, record = audited.get("/docs/static/docs.js")
    response.close()
    assert record["endpoint"] == "/docs/static"


def test_audit_can_be_switched_off() -> None:
    quiet = Audited(audit_log=False, build_tables=False)
    assert quiet.client.get("/healthz").status_code == 200
    assert quiet.lines == []


@pytest.fixture()
def broken_sink(audited: Audited) -> Iterator[Audited]:
    observer = audited.app.extensions["quart_bezique"].observer
    saved = observer.sink

    def fail(line: bytes) -> None:
        raise OSError("stdout is gone")

    observer.sink = fail
    yield audited
    observer.sink = saved


def test_a_broken_log_withholds_verdicts_but_not_probes(broken_sink: Audited) -> None:
    """Fail closed: a verdict whose audit line could not be written is not given (503, retry);
    an answer that is no verdict (a probe, a refusal) still is, and every lost line is counted."""
    response = broken_sink.client.post(SCORE, json={"cards": ["KS", "QS", "JS", "JC"]})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "1"
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.get_json()["code"] == "AUDIT_UNAVAILABLE"
    assert b"score" not in response.get_data()
    assert broken_sink.client.get("/healthz").status_code == 200
    refused = broken_sink.client.post(SCORE, json={"cards": ["KS"]})
    assert refused.status_code == 422
    metrics = broken_sink.client.get("/metrics").get_data(as_text=True)
    assert "quart_bezique_audit_write_failures_total 3.0" in metrics


def test_default_sink_writes_one_line_per_request_to_stdout(
    capfd: pytest.CaptureFixture[str],
) -> None:
    app = create_app(Config(build_tables=False))
    client = app.test_client()
    for _ in range(3):
        client.get("/healthz")
    sink = app.extensions["quart_bezique"].observer.sink
    assert isinstance(sink, AuditSink)
    assert sink.flush(30), "the writer thread drains the buffer"
    out = capfd.readouterr().out.splitlines()
    records = [orjson.loads(line) for line in out if line.startswith("{")]
    assert [r["endpoint"] for r in records] == ["/healthz"] * 3


# --- one line whatever the text: C0/C1 controls, DEL and U+2028/U+2029 are escaped -------------

LINE_BREAKERS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character ``str.splitlines`` cuts at."""
CONTROLS = "".join(map(chr, [*range(0x20), *range(0x7F, 0xA0)])) + "\u2028\u2029"
TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from(CONTROLS), max_size=30)
"""Any text (surrogates aside, which JSON cannot carry as UTF-8), controls made frequent."""
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(fields=st.dictionaries(TEXT, VALUES, max_size=6))
def test_any_text_in_any_field_stays_one_line_and_reads_back(fields: dict[str, Any]) -> None:
    data = audit.line(fields)
    text = data.decode()
    assert text.endswith("\n") and len(text.splitlines()) == 1
    assert not any(ch in CONTROLS for ch in text[:-1])  # only escapes, no raw control
    assert json.loads(text) == fields


def test_every_control_and_separator_is_escaped_as_json_does() -> None:
    for ch in CONTROLS:
        data = audit.line({"player": f"a{ch}b", f"k{ch}": 1})
        text = data.decode()
        assert len(text.splitlines()) == 1 and text.isascii(), repr(text)
        assert json.loads(text) == {"player": f"a{ch}b", f"k{ch}": 1}
        if ch not in "\b\t\n\f\r":  # the ones JSON has short escapes for
            assert f"\\u{ord(ch):04x}" in text
    assert set(LINE_BREAKERS) <= set(CONTROLS)


def test_a_printable_ascii_line_is_orjsons_own() -> None:
    fields = {"path": "/x y~", "verdict": {"code": "NOT_FOUND"}, "n": 1}
    assert audit.line(fields) == orjson.dumps(fields, option=orjson.OPT_APPEND_NEWLINE)
    fields = {"player": "ann é"}  # non-ASCII without controls: unchanged too
    assert audit.line(fields) == orjson.dumps(fields, option=orjson.OPT_APPEND_NEWLINE)


def test_a_player_id_or_path_with_c1_controls_stays_one_line(audited: Audited) -> None:
    player = "b\x85o\u2028b\x9f"
    body = orjson.dumps({**EXAMPLE_ROUND, "hands": HANDS}).replace(b'"bob"', orjson.dumps(player))
    response, record = audited.post("/v1/rounds/settle", body)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert player in record["verdict"]["payouts"]
    assert len(audited.lines[-1].decode().splitlines()) == 1
    response, record = audited.get("/x%C2%85y%E2%80%A8")
    assert response.status_code == 404 and record["endpoint"] == "unmatched"
    assert "\x85" in record["path"]
    assert len(audited.lines[-1].decode().splitlines()) == 1

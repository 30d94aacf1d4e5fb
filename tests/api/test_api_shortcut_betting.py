"""The betting pre-dispatch (``betting.BettingShortcut``) answers exactly what Flask would: the
same status, headers, bytes, audit line and metrics for every body it takes (every well-formed
request with a sound setup, its verdict legal or not), and it takes nothing else."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from service.api.endpoints.betting import EXAMPLE_ROUND, VALIDATE_PATH
from service.game.betting import validate_betting
from tests.api.test_api_shortcut import VERDICT_HEADERS, Twin, environ

MAX_MONEY = 2**53 - 1
PLAYERS = ["ann", "bob", "cid", "dan"]


@pytest.fixture(scope="module")
def twin() -> Iterator[Twin]:
    yield Twin(VALIDATE_PATH, api_keys=(hashlib.sha256(b"k" * 32).digest(),))


def seq(*actions: dict[str, Any], **setup: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"players": ["ann", "bob"], "dealer": "bob", "ante": 10}
    base.update(setup)
    base["actions"] = list(actions)
    return base


def act(player: str, kind: str, amount: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"player": player, "type": kind}
    if amount is not None:
        out["amount"] = amount
    return out


def long_sequence(n: int) -> dict[str, Any]:
    """A valid, unfinished sequence of ``n`` actions (stakes and the top-ups they cause)."""
    actions: list[dict[str, Any]] = []
    for i in range(n):
        state = validate_betting(PLAYERS, "dan", 10, actions).state
        assert state.to_act is not None
        legal = {str(a.type): a for a in state.legal_actions}
        if "top_up" in legal:
            actions.append(act(state.to_act, "top_up", legal["top_up"].amount))
        else:
            low = int(legal["stake"].min or 10)
            actions.append(act(state.to_act, "stake", low + 10 * (i % 3 == 0)))
    return {"players": PLAYERS, "dealer": "dan", "ante": 10, "actions": actions}


def without_actions() -> dict[str, Any]:
    body = seq()
    del body["actions"]
    return body


TAKEN: list[tuple[str, dict[str, Any], str | None]] = [
    ("no actions yet", seq(), None),
    ("actions omitted", without_actions(), None),
    ("unfinished", seq(act("ann", "stake", 20)), None),
    ("showdown", EXAMPLE_ROUND, None),
    ("uncontested", seq(act("ann", "stake", 20), act("bob", "fold")), None),
    ("minimum given", seq(act("ann", "stake", 30), minimum_stake=30), None),
    ("maximum given", seq(act("ann", "stake", 40), maximum_stake=40), None),
    ("both given", seq(act("ann", "stake", 25), minimum_stake=20, maximum_stake=30), None),
    ("largest money", seq(ante=1, maximum_stake=MAX_MONEY, minimum_stake=MAX_MONEY - 2), None),
    ("100 actions", long_sequence(100), None),
    ("unknown player", seq(act("zed", "fold")), "UNKNOWN_PLAYER"),
    ("not your turn", seq(act("ann", "stake", 20), act("ann", "stake", 20)), "NOT_YOUR_TURN"),
    ("below minimum", seq(act("ann", "stake", 5), minimum_stake=20), "STAKE_BELOW_MINIMUM"),
    ("above maximum", seq(act("ann", "stake", 50), maximum_stake=30), "STAKE_ABOVE_MAXIMUM"),
    ("no top-up owed", seq(act("ann", "top_up", 10)), "NO_TOP_UP_OWED"),
    ("open not allowed", seq(act("ann", "open", 10)), "OPEN_NOT_ALLOWED"),
    (
        "round over",
        seq(act("ann", "stake", 20), act("bob", "fold"), act("ann", "fold")),
        "ROUND_OVER",
    ),
    ("1000 folds", seq(*[act("zed", "fold")] * 1000), "UNKNOWN_PLAYER"),
]


@pytest.mark.parametrize(("name", "payload", "code"), TAKEN, ids=[t[0] for t in TAKEN])
def test_verdicts_same_answer_from_the_shortcut(
    twin: Twin, name: str, payload: dict[str, Any], code: str | None
) -> None:
    for text in (orjson.dumps(payload), b" \n" + orjson.dumps(payload, option=orjson.OPT_INDENT_2)):
        for media in ("application/json", "Application/JSON; charset=utf-8"):
            env = environ(text, PATH_INFO=VALIDATE_PATH, CONTENT_TYPE=media)
            (status, headers, body, record), taken = twin.both(env, text)
            assert (status, taken) == ("200 OK", 1), name
            assert [name for name, _ in headers] == VERDICT_HEADERS
            verdict = orjson.loads(body)
            assert verdict["valid"] is (code is None)
            assert (verdict["error"] or {}).get("code") == code
            assert record["verdict"]["valid"] is (code is None)
            assert record["verdict"]["code"] == code
            assert "body_sha256" in record and "response_sha256" in record
            assert record["key_id"]
    phase = {"showdown": "showdown", "uncontested": "uncontested", "round over": "uncontested"}.get(
        name, "betting"
    )
    assert verdict["state"]["phase"] == phase


DEFERRED: list[tuple[str, bytes, str]] = [
    ("dealer not seated", orjson.dumps(seq(dealer="zed")), "422"),
    ("max below min", orjson.dumps(seq(minimum_stake=50, maximum_stake=20)), "422"),
    ("antes beyond the pot limit", orjson.dumps(seq(ante=MAX_MONEY)), "422"),
    ("duplicate players", orjson.dumps(seq(players=["ann", "ann"], dealer="ann")), "422"),
    ("one player", orjson.dumps(seq(players=["ann"], dealer="ann")), "422"),
    ("fold with amount", orjson.dumps(seq(act("ann", "fold", 10))), "422"),
    ("stake without amount", orjson.dumps(seq(act("ann", "stake"))), "422"),
    ("amount 0", orjson.dumps(seq(act("ann", "stake", 0))), "422"),
    ("float amount", orjson.dumps(seq(act("ann", "stake", 10.0))), "422"),
    ("bool amount", orjson.dumps(seq(act("ann", "stake", True))), "422"),
    ("string amount", orjson.dumps(seq(act("ann", "stake", "10"))), "422"),
    ("float ante", orjson.dumps(seq(ante=10.0)), "422"),
    ("unknown type", orjson.dumps(seq(act("ann", "raise", 10))), "422"),
    ("unknown action field", orjson.dumps(seq({**act("ann", "fold"), "note": "x"})), "422"),
    ("unknown field", orjson.dumps({**seq(), "hands": {}}), "422"),
    ("actions null", orjson.dumps({**seq(), "actions": None}), "422"),
    ("too many actions", orjson.dumps(seq(*[act("zed", "fold")] * 1001)), "422"),
    ("not an object", b"[]", "422"),
    (
        "duplicate key",
        b'{"players": ["ann", "bob"], "dealer": "bob", "dealer": "ann", "ante": 10}',
        "400",
    ),
    (
        "escaped colon key",
        b'{"players": ["ann", "bob"], "dealer": "bob", "ante": 10, "x\\u003a": 1}',
        "422",
    ),
    ("not JSON", b'{"players": ["ann", "bob"]', "400"),
    ("empty", b"", "400"),
]


@pytest.mark.parametrize(("name", "text", "status"), DEFERRED, ids=[d[0] for d in DEFERRED])
def test_refused_bodies_are_flasks_problems(
    twin: Twin, name: str, text: bytes, status: str
) -> None:
    (seen, _, _, record), taken = twin.both(environ(text, PATH_INFO=VALIDATE_PATH), text)
    assert (seen[:3], taken) == (status, 0), name
    assert "code" in record["verdict"]


@pytest.mark.parametrize(
    "extra",
    [
        {"CONTENT_TYPE": "text/plain"},
        {"CONTENT_TYPE": None},
        {"CONTENT_LENGTH": None},
        {"CONTENT_LENGTH": "abc"},
        {"HTTP_TRANSFER_ENCODING": "chunked", "CONTENT_LENGTH": None},
        {"REQUEST_METHOD": "GET"},
        {"HTTP_AUTHORIZATION": None},
        {"HTTP_AUTHORIZATION": "Bearer wrong"},
    ],
)
def test_unusual_requests_are_flasks(twin: Twin, extra: dict[str, Any]) -> None:
    text = orjson.dumps(seq(act("ann", "stake", 20)))
    (status, _, _, _), taken = twin.both(environ(text, PATH_INFO=VALIDATE_PATH, **extra), text)
    assert taken == 0
    assert not status.startswith("200"), status


def test_short_and_long_bodies_are_flasks(twin: Twin) -> None:
    text = orjson.dumps(seq(act("ann", "stake", 20)))
    short = environ(text, PATH_INFO=VALIDATE_PATH, CONTENT_LENGTH=str(len(text) + 10))
    (status, _, _, _), taken = twin.both(short, text)
    assert (status[:3], taken) == ("400", 0)
    terminated = environ(text, PATH_INFO=VALIDATE_PATH, **{"wsgi.input_terminated": True})
    (status, _, _, _), taken = twin.both(terminated, text + b"  ")
    assert (status[:3], taken) == ("200", 0)
    (status, _, _, _), taken = twin.both(terminated, text)
    assert (status[:3], taken) == ("200", 1)


def _samples(twin: Twin) -> dict[str, float]:
    """The betting verdicts and the endpoint's request counts of ``/metrics`` (not latency)."""
    text = twin.app.test_client().get("/metrics").get_data(as_text=True)
    out = {}
    for line in text.splitlines():
        verdicts = line.startswith("quart_bezique_betting_verdicts_total")
        requests = line.startswith("quart_bezique_http_requests_total") and VALIDATE_PATH in line
        if verdicts or requests:
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


@pytest.mark.parametrize(
    "payload",
    [
        seq(act("ann", "stake", 20)),
        seq(act("ann", "stake", 20), act("ann", "fold")),
        seq(dealer="zed"),
    ],
)
def test_the_shortcut_counts_in_the_metrics_as_flask_does(payload: dict[str, Any]) -> None:
    twin = Twin(VALIDATE_PATH)
    text = orjson.dumps(payload)
    deltas = []
    before = _samples(twin)
    for shortcut in (False, True):
        twin.call(
            shortcut, {**environ(text, PATH_INFO=VALIDATE_PATH), "wsgi.input": io.BytesIO(text)}
        )
        after = _samples(twin)
        deltas.append({k: v - before.get(k, 0.0) for k, v in after.items() if v != before.get(k)})
        before = after
    assert deltas[0] == deltas[1]
    assert twin.taken == (0 if payload["dealer"] == "zed" else 1)
    verdicts = [k for k in deltas[1] if k.startswith("quart_bezique_betting_verdicts_total")]
    assert len(verdicts) == (0 if payload["dealer"] == "zed" else 1), deltas
    if verdicts:
        reason = "valid" if len(payload["actions"]) == 1 else "NOT_YOUR_TURN"
        assert f'reason="{reason}"' in verdicts[0], verdicts
    assert any("http_requests_total" in k for k in deltas[1]), deltas

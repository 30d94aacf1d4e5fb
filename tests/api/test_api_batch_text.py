"""The compact-text batch reader (``batch_text.read``) against the ordinary read it stands in for.

It must take every scores-only batch written compactly with canonical codes (or it would not
serve its purpose), and whatever it takes it must answer as parsing, the schema and the batch
loop do: same results, same canonical digest. Every other text it must decline, so that the
ordinary read answers or refuses it exactly as before; the mutation test below throws texts a
byte or two away from the layout at it, which is where a byte-level reader could be fooled.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.app import create_app
from service.api.config import Config
from service.api.contract.schemas import request_schemas
from service.api.endpoints import batch_text, hands
from service.api.envelope import audit, budget
from service.game.cards import CARD_BY_SPELLING

BATCH = "/v1/hands/batch-score"
LIMIT = 40
SCHEMA = request_schemas(Config(max_batch_hands=LIMIT, build_tables=False)).batch()
CODES = sorted({card.code for card in CARD_BY_SPELLING.values()})
SUITS = ["S", "C", "H", "D"]


def _hand(cards: list[str], trump: str | None) -> dict[str, Any]:
    return {"cards": cards} if trump is None else {"cards": cards, "trump": trump}


compact_hands = st.lists(
    st.builds(
        _hand,
        st.lists(st.sampled_from(CODES), min_size=4, max_size=4),
        st.sampled_from([None, *SUITS]),
    ),
    min_size=1,
    max_size=LIMIT,
)
"""Hands as a client builds them: cards first, then the trump if any."""


def compact_text(hands_: list[dict[str, Any]], sorted_keys: bool) -> bytes:
    """The batch as JSON libraries write it compactly: key-sorted or hands first."""
    if sorted_keys:
        return orjson.dumps({"breakdown": False, "hands": hands_})
    return orjson.dumps({"hands": hands_, "breakdown": False})


def read(data: bytes) -> batch_text.Compact | None:
    return batch_text.read(data, hands._batch_tables().compact, hands._top_check(LIMIT))


def ordinary(data: bytes) -> tuple[list[orjson.Fragment], str] | None:
    """What parsing, the schema and the batch loop make of ``data``: the results and the
    canonical digest, or None where the schema (or JSON) refuses it."""
    try:
        body = orjson.loads(data)
        SCHEMA.load(body)
    except Exception:
        return None
    results = hands._batch_results(body, LIMIT)
    assert results is not None  # the schema accepted it, so does the loop
    return results, audit.sha256(audit.canonical_body(BATCH, body))


@settings(max_examples=400, deadline=None)
@given(compact_hands, st.booleans())
def test_every_compact_scores_only_batch_is_read_as_text(
    hands_: list[dict[str, Any]], sorted_keys: bool
) -> None:
    data = compact_text(hands_, sorted_keys)
    found = read(data)
    assert found is not None
    assert (found.results, found.digest()) == ordinary(data)
    if sorted_keys:  # the text is the canonical form itself
        assert found.digest() == hashlib.sha256(data).hexdigest()


_NOISE = b'{}[]":,cardstrumpbkwnfl019TJQKASCHDshx \n\\u0'


@st.composite
def near_compact_texts(draw: st.DrawFn) -> bytes:
    """A compact batch with one to three bytes replaced, inserted, deleted or doubled."""
    data = bytearray(compact_text(draw(compact_hands), draw(st.booleans())))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data) - 1))
        how = draw(st.sampled_from(["replace", "insert", "delete", "double"]))
        noise = draw(st.sampled_from(list(_NOISE)))
        if how == "replace":
            data[at] = noise
        elif how == "insert":
            data.insert(at, noise)
        elif how == "delete" and len(data) > 1:
            del data[at]
        else:
            span = draw(st.integers(1, 12))
            data[at:at] = data[at : at + span]
    return bytes(data)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_compact_texts())
def test_whatever_is_read_as_text_is_what_the_ordinary_read_makes_of_it(data: bytes) -> None:
    found = read(data)
    if found is not None:
        assert (found.results, found.digest()) == ordinary(data)


DECLINED = {
    "no hands": b'{"breakdown":false,"hands":[]}',
    "breakdowns wanted": b'{"breakdown":true,"hands":[{"cards":["KS","QS","JS","JC"]}]}',
    "breakdown by default": b'{"hands":[{"cards":["KS","QS","JS","JC"]}]}',
    "a null trump": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","JC"],"trump":null}]}',
    "trump first": b'{"breakdown":false,"hands":[{"trump":"S","cards":["KS","QS","JS","JC"]}]}',
    "a space": b'{"breakdown":false, "hands":[{"cards":["KS","QS","JS","JC"]}]}',
    "a newline at the end": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","JC"]}]}\n',
    "an escape": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","J\\u0043"]}]}',
    "an alias": b'{"breakdown":false,"hands":[{"cards":["TS","QS","JS","JC"]}]}',
    "lower case": b'{"breakdown":false,"hands":[{"cards":["ks","QS","JS","JC"]}]}',
    "a lone 1": b'{"breakdown":false,"hands":[{"cards":["1S","QS","JS","JC"]}]}',
    "a lone 0": b'{"breakdown":false,"hands":[{"cards":["0S","QS","JS","JC"]}]}',
    "100": b'{"breakdown":false,"hands":[{"cards":["100S","QS","JS","JC"]}]}',
    "1010": b'{"breakdown":false,"hands":[{"cards":["1010","QS","JS","JC"]}]}',
    "01": b'{"breakdown":false,"hands":[{"cards":["01S","QS","JS","JC"]}]}',
    "a card too long": b'{"breakdown":false,"hands":[{"cards":["KSS","QS","JS","J"]}]}',
    "an empty card": b'{"breakdown":false,"hands":[{"cards":["","QS","JS","JCJC"]}]}',
    "three cards": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS"]}]}',
    "a suit for a trump, twice": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","JC"],'
    b'"trump":"SS"}]}',
    "a repeated trump": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","JC"],'
    b'"trump":"S","trump":"H"}]}',
    "a repeated top key": b'{"hands":[{"cards":["KS","QS","JS","JC"]}],"breakdown":false,'
    b'"breakdown":false}',
    "hands twice": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","JC"]}],'
    b'"hands":[{"cards":["KS","QS","JS","JC"]}]}',
    "an unknown key": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","JC"],"card":"S"}]}',
    "a nested hand": b'{"breakdown":false,"hands":[{"cards":["KS","QS","JS","JC"{"cards":'
    b'["KS","QS","JS","JC"]}]}]}',
    "too many hands": b'{"breakdown":false,"hands":['
    + b",".join([b'{"cards":["KS","QS","JS","JC"]}'] * (LIMIT + 1))
    + b"]}",
}


@pytest.mark.parametrize("data", DECLINED.values(), ids=DECLINED.keys())
def test_anything_else_is_left_to_the_ordinary_read(data: bytes) -> None:
    assert read(data) is None


def test_a_full_compact_batch_is_within_the_value_budget() -> None:
    """The reader counts no values because no batch the schema accepts can exceed the budget:
    the largest compact one, every hand with a trump, stays within it."""
    config = Config()
    hand = {"cards": ["10S", "10S", "10S", "10S"], "trump": "S"}
    data = compact_text([hand] * config.max_batch_hands, sorted_keys=False)
    assert budget.values_bound(data) <= budget.value_budget(config)


def test_the_served_answer_and_audit_line_are_the_ordinary_reads() -> None:
    """Through the app: the compact text and the same batch spaced out (read the ordinary way)
    get the same bytes, the same body digest and the same verdict summary."""
    lines: list[bytes] = []
    app = create_app(Config(), audit_sink=lines.append)
    rng = random.Random(5)
    batch = [
        {"cards": [rng.choice(CODES) for _ in range(4)], **({"trump": "H"} if i % 3 else {})}
        for i in range(500)
    ]
    compact = compact_text(batch, sorted_keys=False)
    spaced = orjson.dumps({"hands": batch, "breakdown": False}, option=orjson.OPT_INDENT_2)
    top_ok = hands._top_check(Config().max_batch_hands)
    assert batch_text.read(compact, hands._batch_tables().compact, top_ok) is not None
    answers = []
    with app.test_client() as client:
        for data in (compact, spaced):
            answer = client.post(BATCH, data=data, content_type="application/json")
            assert answer.status_code == 200
            answers.append((answer.get_data(), orjson.loads(lines[-1])))
    (fast, fast_line), (slow, slow_line) = answers
    assert fast == slow
    assert fast_line["body_sha256"] == slow_line["body_sha256"]
    assert fast_line["response_sha256"] == slow_line["response_sha256"]
    assert fast_line["verdict"] == slow_line["verdict"] == {"hands": 500}

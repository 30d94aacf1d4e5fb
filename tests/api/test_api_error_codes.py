"""One error vocabulary: every ``errors[]`` item has a stable machine code, the library's where
the rules decide, and a message saying what was expected and what was got."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError
from quart_bezique import parse_cards
from quart_bezique.api.contract.error_codes import INVALID_VALUE, CountOf, code_of, coded
from quart_bezique.api.contract.worded import SCHEMA_MESSAGES
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.game.errors import RulesError
from quart_bezique.game.messages import N_, NP_, Message

from tests.api.api_support import mutate, problem
from tests.api.registry_support import JSON_ENDPOINTS, all_examples

SCORE = "/v1/hands/score"

CASES: list[tuple[str, dict[str, Any], str, str, str | None]] = [
    (SCORE, {"cards": ["KS", "QS", "JS"]}, "/cards", "WRONG_HAND_SIZE",
     "a hand holds exactly 4 cards, not 3"),
    (SCORE, {"cards": ["KS", "QS", "JS", "1C"]}, "/cards/3", "INVALID_CARD", None),
    (SCORE, {"cards": ["KS", "QS", "JS", "JC"], "extra": 1}, "/extra", "UNKNOWN_FIELD", None),
    (SCORE, {}, "/cards", "MISSING_FIELD", None),
    (SCORE, {"cards": "KS"}, "/cards", "NOT_AN_ARRAY", None),
    (SCORE, {"cards": ["KS", "QS", "JS", 7]}, "/cards/3", "NOT_A_STRING", None),
    (SCORE, {"cards": ["KS", "QS", "JS", "JC"], "trump": "X"}, "/trump", "INVALID_TRUMP", None),
    (SCORE, {"cards": ["КS", "QS", "JS", "JC"]}, "/cards/0", "INVALID_CARD", "Cyrillic"),
    (SCORE, {"cards": ["K♠\ufe0f", "QS", "JS", "JC"]}, "/cards/0", "INVALID_CARD",
     "an invisible emoji-style mark after ♠: write K♠"),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "ante": 1.5}, "/ante", "NOT_AN_INTEGER", None),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "ante": 0}, "/ante", "OUT_OF_RANGE", None),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "players": ["ann", "ann"], "dealer": "ann",
     "actions": []}, "/players", "DUPLICATE_VALUE", None),
    ("/v1/betting/validate",
     {**EXAMPLE_ROUND, "actions": [{"player": "ann", "type": "fold", "amount": 5}]},
     "/actions/0/amount", "INVALID_AMOUNT", None),
    ("/v1/betting/validate",
     {**EXAMPLE_ROUND, "actions": [{"player": "ann", "type": "bluff"}]},
     "/actions/0/type", "NOT_ONE_OF", None),
    ("/v1/showdown", {"hands": [{"player": "a", "cards": ["KS", "QS", "JS", "JC"]},
                                {"player": "a", "cards": ["KS", "QS", "JS", "JC"]}]},
     "/hands/1/player", "DUPLICATE_PLAYER", None),
    ("/v1/hands/odds", {"cards": ["KS", "QS", "JS", "JC"], "opponents": 9}, "/opponents",
     "OUT_OF_RANGE", None),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "pointer", "code", "says"), CASES)
def test_each_refused_field_has_its_code(
    client: FlaskClient, path: str, body: dict[str, Any], pointer: str, code: str, says: str | None
) -> None:
    doc = problem(client.post(path, json=body), 422)
    found = {e["pointer"]: e for e in doc["errors"]}
    assert found[pointer]["code"] == code, doc
    if says is not None:
        assert says in found[pointer]["message"], found[pointer]


def test_a_card_code_is_the_librarys() -> None:
    """HTTP and library users branch on the same names."""
    with pytest.raises(RulesError) as raised:
        parse_cards(["KS", "QS", "JS", "1C"])
    assert raised.value.code == "INVALID_CARD"


@pytest.mark.parametrize(
    ("bounds", "words", "within", "message"),
    [
        ({"equal": 2}, ("exactly {equal} card", "exactly {equal} cards", "equal"), 2,
         "a pair holds exactly 2 cards, not 3"),
        ({"equal": 1}, ("exactly {equal} card", "exactly {equal} cards", "equal"), 1,
         "a pair holds exactly 1 card, not 3"),
        ({"min": 4, "max": 6}, ("{min} to {max} card", "{min} to {max} cards", "max"), 5,
         "a pair holds 4 to 6 cards, not 3"),
        ({"min": 4}, ("at least {min} card", "at least {min} cards", "min"), 9,
         "a pair holds at least 4 cards, not 3"),
        ({"max": 2}, ("at most {max} card", "at most {max} cards", "max"), 0,
         "a pair holds at most 2 cards, not 3"),
    ],
)  # fmt: skip
def test_a_count_says_what_was_expected_and_what_was_got(
    bounds: dict[str, int], words: tuple[str, str, str], within: int, message: str
) -> None:
    """The caller words the count (one plural template); ``CountOf`` fills in the bounds and the
    length it got, and the refusal keeps its code and template for other languages."""
    singular, plural, counted_by = words
    said = NP_(f"a pair holds {singular}, not {{count}}", f"a pair holds {plural}, not {{count}}",
               counted_by)  # fmt: skip
    count = CountOf(words=said, code="WRONG_COUNT", **bounds)
    with pytest.raises(ValidationError) as caught:
        count(["KS", "QS", "JS"])
    (refusal,) = caught.value.messages
    assert (refusal, code_of(refusal)) == (message, "WRONG_COUNT")
    assert isinstance(refusal, Message)
    assert (refusal.template, refusal.plural) == (said.template, said.plural)
    assert refusal.params["count"] == 3
    assert count(["KS"] * within) == ["KS"] * within


def test_unknown_messages_fall_back_and_coded_ones_keep_their_code() -> None:
    """A code travels with the message it was raised with; nothing reads one out of wording."""
    assert code_of("something nobody wrote") == INVALID_VALUE
    assert code_of(N_("something nobody coded")) == INVALID_VALUE
    # marshmallow's old English, even word for word, is no longer recognised by its text.
    assert code_of("Unknown field.") == INVALID_VALUE
    assert code_of(Message("Unknown field.")) == INVALID_VALUE
    # Its replacement carries the code itself.
    assert code_of(SCHEMA_MESSAGES["unknown"]) == "UNKNOWN_FIELD"
    assert code_of(coded("x", "SOME_CODE")) == "SOME_CODE"
    # Binding values keeps code and template; re-coding keeps template and values.
    bound = N_("{what} is wrong").coded("SOME_CODE").format(what="this")
    assert (str(bound), bound.template, code_of(bound)) == (
        "this is wrong",
        "{what} is wrong",
        "SOME_CODE",
    )
    recoded = coded(bound, "OTHER_CODE")
    assert (str(recoded), recoded.template, dict(recoded.params), code_of(recoded)) == (
        "this is wrong",
        "{what} is wrong",
        {"what": "this"},
        "OTHER_CODE",
    )


EXAMPLES = all_examples(JSON_ENDPOINTS)
"""The bodies mutated: every request example of every JSON endpoint of the registry."""


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(sorted(EXAMPLES)), st.integers(0, 2**32), st.integers(1, 3))
def test_no_refusal_goes_without_a_known_code(
    client: FlaskClient, example: str, seed: int, changes: int
) -> None:
    """Whatever a body gets wrong, each error item names it with a code other than the fallback."""
    rng = random.Random(seed)
    path, body = EXAMPLES[example]
    for _ in range(changes):
        body = mutate(body, rng)
    response = client.post(path, json=body)
    if response.status_code != 422:
        return
    doc = response.get_json()
    assert doc.get("errors"), doc
    for error in doc["errors"]:
        assert error["code"] != INVALID_VALUE, (path, body, error)
        assert error["code"].isupper() and " " not in error["code"], error

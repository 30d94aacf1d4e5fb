"""``--ruleset`` on the command line (docs/rules.md §13): every verdict command sends it as the
body's ``ruleset`` member and prints what the API answers for such a body (the ruleset's id and
digest, a settlement's ``carried``); without it every output is what it was before rulesets; a bad
SPEC is refused with the core's code and a pointer into ``/ruleset``; ``rulesets`` lists the
presets and switches; ``verify --ruleset`` compares canonical ids."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from flask.testing import FlaskClient
from quart_bezique import compare_hands, hand_odds, score_hand, settle_round, validate_betting
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.cli import ExitCode
from quart_bezique.game.ruleset import CLASSIC, LITERAL, PRESETS, SWITCHES, resolve_ruleset
from quart_bezique.receipts import Keyring, Signer, SigningKey, request_digest
from quart_bezique.wire import render
from quart_bezique.wire.rulesets import rulesets_document

from tests.cli.cli_support import Run, run

ROUND: dict[str, Any] = EXAMPLE_ROUND
TIE = {  # bob and dan each score a marriage (4): a tie at the showdown
    **ROUND,
    "trump": "H",
    "hands": {"bob": ["KS", "QS", "9C", "9D"], "dan": ["KC", "QC", "9S", "9D"]},
}
OBJECT = '{"base": "literal/1", "tie": "split"}'
OBJECT_ID = "classic/1:coronka=from_king,three_aces=0,trump_doubles=any_trump_card"
SPECS = [
    pytest.param("literal/1", LITERAL, id="preset"),
    pytest.param("classic/1:three_aces=0,tie=carry", "classic/1:three_aces=0,tie=carry", id="id"),
    pytest.param(OBJECT, json.loads(OBJECT), id="object"),
]
"""Each way to write ``--ruleset``, and what the core is given for it."""


def _file(tmp_path: Path, body: object) -> str:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(body))
    return str(path)


def _argv(command: tuple[str, ...], tmp_path: Path) -> list[str]:
    """A command's words, ``ROUND`` and ``TIE`` written to a file as its body."""
    files = {"ROUND": ROUND, "TIE": TIE}
    return [_file(tmp_path, files[a]) if a in files else a for a in command]


def _bytes(payload: object) -> str:
    return orjson.dumps(payload).decode() + "\n"


def _json(result: Run) -> dict[str, Any]:
    found = result.json()
    assert isinstance(found, dict)
    return found


def _answer(
    capsys: pytest.CaptureFixture[str], argv: Sequence[str], spec: str, expected: object
) -> dict[str, Any]:
    """``--json ARGV --ruleset SPEC`` succeeds and prints exactly ``expected``; what it printed."""
    result = run(capsys, "--json", *argv, "--ruleset", spec)
    assert result.code == ExitCode.OK
    assert result.out == _bytes(expected)
    return _json(result)


def _head(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The first line the command prints for people."""
    return run(capsys, *argv).out.splitlines()[0]


def _refused(result: Run, code: str, pointer: str) -> dict[str, Any]:
    """The command refused its input for exactly one reason, ``code`` at ``pointer``; the
    problem it printed."""
    assert result.code == ExitCode.INPUT_ERROR
    problem = _json(result)
    assert [(e["code"], e["pointer"]) for e in problem["errors"]] == [(code, pointer)]
    return problem


# --- each command with each way of naming a ruleset ---------------------------------------------


@pytest.mark.parametrize(("spec", "core"), SPECS)
def test_score_json_is_the_answer_for_a_named_ruleset(
    capsys: pytest.CaptureFixture[str], spec: str, core: Any
) -> None:
    hand = score_hand(["AS", "AC", "AH", "KD"], None, core)
    expected = render.stamped(render.scored_hand(hand), hand.ruleset, True)
    answer = _answer(capsys, ("score", "AS,AC,AH,KD"), spec, expected)
    assert answer["ruleset"] == resolve_ruleset(core).id
    assert answer["ruleset_sha256"] == resolve_ruleset(core).digest
    assert answer["score"] == 1  # three_aces is 0 in all three


@pytest.mark.parametrize(("spec", "core"), SPECS)
def test_compare_json_is_the_answer_for_a_named_ruleset(
    capsys: pytest.CaptureFixture[str], spec: str, core: Any
) -> None:
    argv = ("compare", "QS,JC,9D,9H", "KS,QS,9C,10D", "--trump", "S", "--players", "bob", "dan")
    shown = compare_hands(["QS", "JC", "9D", "9H"], ["KS", "QS", "9C", "10D"], "S", core)
    expected = render.stamped(render.showdown(shown, ("bob", "dan")), shown.ruleset, True)
    _answer(capsys, argv, spec, expected)
    assert _head(capsys, *argv, "--ruleset", spec).endswith(f"(rules {resolve_ruleset(core).id})")


@pytest.mark.parametrize(("spec", "core"), SPECS)
def test_validate_json_is_the_answer_for_a_named_ruleset(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, spec: str, core: Any
) -> None:
    argv = ("validate", _file(tmp_path, ROUND))
    judged = validate_betting(
        ROUND["players"], ROUND["dealer"], ROUND["ante"], ROUND["actions"], ruleset=core
    )
    _answer(capsys, argv, spec, render.stamped(render.betting(judged), judged.ruleset, True))
    head = _head(capsys, *argv, "--ruleset", spec)
    assert head == f"the betting is valid (rules {resolve_ruleset(core).id})"


@pytest.mark.parametrize(("spec", "core"), SPECS)
def test_settle_json_is_the_answer_for_a_named_ruleset(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, spec: str, core: Any
) -> None:
    settled = _settled(core)
    expected = render.stamped(render.settlement(settled, True), settled.ruleset, True)
    assert "carried" in _answer(capsys, ("settle", _file(tmp_path, TIE)), spec, expected)


def _settled(ruleset: Any) -> Any:
    return settle_round(
        TIE["players"],
        TIE["dealer"],
        TIE["ante"],
        TIE["actions"],
        TIE["hands"],
        trump=TIE["trump"],
        ruleset=ruleset,
    )


@pytest.mark.parametrize(("spec", "core"), SPECS)
def test_odds_json_is_the_answer_for_a_named_ruleset(
    capsys: pytest.CaptureFixture[str], spec: str, core: Any
) -> None:
    argv = ("odds", "9S", "10S", "JS", "KD", "--seen", "AS", "--samples", "300", "--seed", "7")
    found = hand_odds(["9S", "10S", "JS", "KD"], None, ["AS"], 1, samples=300, seed=7, ruleset=core)
    answer = _answer(capsys, argv, spec, render.odds(found, True))
    assert answer["ruleset_sha256"] == resolve_ruleset(core).digest


@pytest.fixture(scope="module")
def api() -> Iterator[FlaskClient]:
    with create_app(Config(audit_log=False)).test_client() as client:
        yield client


AS_SENT = [
    pytest.param(("score", "AS,AC,AH,KD"), "/v1/hands/score", {"cards": ["AS", "AC", "AH", "KD"]}),
    pytest.param(
        ("compare", "KS,QS,9C,9D", "KC,QC,9S,9D"),
        "/v1/showdown",
        {
            "hands": [
                {"player": "first", "cards": ["KS", "QS", "9C", "9D"]},
                {"player": "second", "cards": ["KC", "QC", "9S", "9D"]},
            ]
        },
    ),
    pytest.param(("validate", "ROUND"), "/v1/betting/validate", ROUND),
    pytest.param(("settle", "TIE"), "/v1/rounds/settle", TIE),
    pytest.param(("odds", "KS,QS,JS,JC"), "/v1/hands/odds", {"cards": ["KS", "QS", "JS", "JC"]}),
]


@pytest.mark.parametrize(
    "spec", ["literal/1", "classic/1:tie=carry", {"tie": "carry"}, {"tie": "never"}, "nope"]
)
@pytest.mark.parametrize(("command", "endpoint", "body"), AS_SENT)
def test_json_is_the_http_answer_to_the_body_with_its_ruleset(
    api: FlaskClient,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: tuple[str, ...],
    endpoint: str,
    body: dict[str, Any],
    spec: str | dict[str, str],
) -> None:
    written = spec if isinstance(spec, str) else json.dumps(spec)
    result = run(capsys, "--json", *_argv(command, tmp_path), "--ruleset", written)
    answer = api.post(endpoint, json={**body, "ruleset": spec})
    assert result.out.encode() == answer.data + b"\n"
    assert (result.code == ExitCode.INPUT_ERROR) == (answer.status_code == 422)


def test_rulesets_json_is_the_http_answer(
    api: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "--json", "rulesets").out.encode() == api.get("/v1/rulesets").data + b"\n"


# --- what the switches change, seen from the command line ----------------------------------------


def test_rules_13_1_three_aces_score_nothing_under_literal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    classic = _head(capsys, "score", "AS,AC,AH,KD")
    literal = _head(capsys, "score", "AS,AC,AH,KD", "--ruleset", "literal/1")
    assert classic == "A♠ A♣ A♥ K♦; no trump; 7 points (rules classic/1)"
    assert literal == "A♠ A♣ A♥ K♦; no trump; 1 point (rules literal/1)"


def test_rules_13_2_from_king_refuses_a_coronka_without_the_king(
    capsys: pytest.CaptureFixture[str],
) -> None:
    consecutive = _json(run(capsys, "--json", "score", "9S,10S,JS,KD"))
    from_king = _json(
        run(capsys, "--json", "score", "9S,10S,JS,KD", "--ruleset", '{"coronka": "from_king"}')
    )
    assert [c["type"] for c in consecutive["combinations"]] == ["coronka"]
    assert from_king["combinations"] == []
    assert from_king["ruleset"] == "classic/1:coronka=from_king"


def test_rules_13_3_any_trump_card_doubles_a_bezique_with_one_trump(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("--json", "score", "QS,JC,9D,9H", "--trump", "S")
    pure = _json(run(capsys, *argv))
    anyone = _json(run(capsys, *argv, "--ruleset", "classic/1:trump_doubles=any_trump_card"))
    assert (pure["score"], anyone["score"]) == (4, 8)


def test_rules_13_4_settle_under_tie_carry_pays_nobody(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _file(tmp_path, TIE)
    answer = _json(run(capsys, "--json", "settle", path, "--ruleset", "classic/1:tie=carry"))
    assert answer["carried"] == answer["pot"] == 120
    assert answer["winners"] == []
    assert {p["payout"] for p in answer["players"]} == {0}
    assert _head(capsys, "settle", path, "--ruleset", "classic/1:tie=carry") == (
        "settled: a tie; nobody was paid, the pot of 120 is carried to the next round "
        "(rules classic/1:tie=carry)"
    )
    split = _json(run(capsys, "--json", "settle", path, "--ruleset", "classic/1"))
    assert (split["carried"], split["winners"]) == (0, ["bob", "dan"])
    assert "paid to bob, dan (rules classic/1)" in run(capsys, "settle", path).out


def test_rules_13_4_carried_pot_in_russian_names_the_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = run(capsys, "--lang", "ru", "settle", _file(tmp_path, TIE), "--ruleset", "literal/1")
    assert table.code == ExitCode.OK
    assert "(правила literal/1)" in table.out
    assert "120" in table.out.splitlines()[0]


def test_rules_13_6_every_spelling_of_one_ruleset_answers_the_same(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spellings = (
        OBJECT,
        OBJECT_ID,
        '{"three_aces": 0, "trump_doubles": "any_trump_card", "coronka": "from_king"}',
        '  {"base": "' + OBJECT_ID + '"}',
    )
    outs = {run(capsys, "--json", "score", "AS,AC,QS,JC", "--ruleset", s).out for s in spellings}
    assert len(outs) == 1
    assert json.loads(outs.pop())["ruleset"] == OBJECT_ID


def test_rules_13_6_the_file_s_ruleset_is_replaced_by_the_option(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _file(tmp_path, {**TIE, "ruleset": "classic/1"})
    answer = _json(run(capsys, "--json", "settle", path, "--ruleset", "literal/1"))
    assert (answer["ruleset"], answer["carried"]) == ("literal/1", 120)


# --- without --ruleset nothing changes ------------------------------------------------------------


def test_without_ruleset_answers_are_those_of_classic_1_unnamed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outputs = [
        run(capsys, "--json", "score", "AS,AC,AH,KD"),
        run(capsys, "--json", "compare", "KS,QS,9C,9D", "KC,QC,9S,9D"),
        run(capsys, "--json", "validate", _file(tmp_path, ROUND)),
        run(capsys, "--json", "settle", _file(tmp_path, TIE)),
        run(capsys, "--json", "odds", "KS,QS,JS,JC", "--trump", "S"),
    ]
    for result in outputs:
        answer = _json(result)
        assert result.code == ExitCode.OK
        assert answer["ruleset"] == "classic/1"
        assert "ruleset_sha256" not in answer and "carried" not in answer
    hand = score_hand(["AS", "AC", "AH", "KD"])
    assert outputs[0].out == _bytes({**render.scored_hand(hand), "ruleset": "classic/1"})
    settled = _settled(None)
    assert outputs[3].out == _bytes({**render.settlement(settled), "ruleset": "classic/1"})


def test_without_ruleset_tables_name_classic_1(capsys: pytest.CaptureFixture[str]) -> None:
    head = _head(capsys, "score", "KS", "QS", "JS", "JC", "--trump", "S")
    assert head == "K♠ Q♠ J♠ J♣; trump: spades ♠; 16 points (rules classic/1)"


# --- a bad SPEC -----------------------------------------------------------------------------------

BAD = [
    pytest.param("classic/9", "UNKNOWN_RULESET", "/ruleset", id="preset"),
    pytest.param('{"base": "house/1"}', "UNKNOWN_RULESET", "/ruleset/base", id="base"),
    pytest.param('{"aces": 0}', "UNKNOWN_SWITCH", "/ruleset/aces", id="switch"),
    pytest.param('{"tie": "never"}', "INVALID_SWITCH_VALUE", "/ruleset/tie", id="value"),
    pytest.param('{"three_aces": true}', "INVALID_SWITCH_VALUE", "/ruleset/three_aces", id="bool"),
    pytest.param('{"tie": ', "INVALID_RULESET", "/ruleset", id="not-json"),
]
COMMANDS = [
    pytest.param(("score", "KS,QS,JS,JC"), id="score"),
    pytest.param(("compare", "KS,QS,JS,JC", "9S,9C,9D,9H"), id="compare"),
    pytest.param(("validate", "ROUND"), id="validate"),
    pytest.param(("settle", "TIE"), id="settle"),
    pytest.param(("odds", "KS,QS,JS,JC"), id="odds"),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("spec", "code", "pointer"), BAD)
def test_a_bad_spec_is_refused_with_its_code_and_pointer(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: tuple[str, ...],
    spec: str,
    code: str,
    pointer: str,
) -> None:
    result = run(capsys, "--json", *_argv(command, tmp_path), "--ruleset", spec)
    assert _refused(result, code, pointer)["status"] == 422


@pytest.mark.parametrize("language", ["en", "ru", "uk"])
def test_a_bad_spec_is_refused_in_the_chosen_language(
    capsys: pytest.CaptureFixture[str], language: str
) -> None:
    result = run(capsys, "--lang", language, "score", "KS,QS,JS,JC", "--ruleset", "classic/9")
    assert result.code == ExitCode.INPUT_ERROR and result.out == ""
    label = {"en": "error", "ru": "ошибка", "uk": "помилка"}[language]
    assert result.err.startswith(f"quart-bezique: {label} VALIDATION_ERROR: /ruleset: ")
    assert "classic/9" in result.err


def test_a_spec_that_starts_like_json_but_is_not_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = run(capsys, "score", "KS,QS,JS,JC", "--ruleset", "{tie: carry}")
    assert result.code == ExitCode.INPUT_ERROR
    assert "--ruleset starts like a JSON object but cannot be read as one" in result.err
    repeated = run(
        capsys, "--json", "score", "KS,QS,JS,JC", "--ruleset", '{"tie": "split", "tie": "carry"}'
    )
    assert repeated.code == ExitCode.INPUT_ERROR
    assert _json(repeated)["errors"][0]["pointer"] == "/ruleset"


# --- rulesets -------------------------------------------------------------------------------------


def test_rulesets_json_is_the_rulesets_document(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "--json", "rulesets")
    assert result.code == ExitCode.OK
    assert result.out == _bytes(rulesets_document())
    answer = _json(result)
    assert answer["default"] == "classic/1"
    assert [s["name"] for s in answer["switches"]] == [s.name for s in SWITCHES]
    assert answer["switches"][3] == {
        "name": "tie",
        "values": ["split", "carry"],
        "default": "split",
        "anchor": "docs/rules.md#s13-4",
    }
    assert answer["presets"][1] == {
        "id": "literal/1",
        "sha256": LITERAL.digest,
        "switches": LITERAL.switches(),
        "anchor": "docs/rules.md#s13-5",
    }
    assert [p["id"] for p in answer["presets"]] == list(PRESETS)


def test_rulesets_table_lists_presets_and_switches(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "rulesets")
    assert result.code == ExitCode.OK
    lines = result.out.splitlines()
    assert lines[0] == "presets (the default is classic/1)"
    assert lines[1].split() == ["preset", "three_aces", "coronka", "trump_doubles", "tie", "sha256"]
    assert lines[2].split() == [
        "classic/1",
        "6",
        "consecutive",
        "pure_trump",
        "split",
        CLASSIC.digest,
    ]
    assert lines[3].split() == [
        "literal/1",
        "0",
        "from_king",
        "any_trump_card",
        "carry",
        LITERAL.digest,
    ]
    coronka = next(line for line in lines if line.split()[:1] == ["coronka"])
    assert coronka.split() == [
        "coronka",
        "consecutive,",
        "from_king",
        "consecutive",
        "docs/rules.md#s13-2",
    ]


def test_rulesets_in_ukrainian_keeps_ids_and_digests(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "--lang", "uk", "rulesets")
    assert result.code == ExitCode.OK
    assert LITERAL.digest in result.out and "docs/rules.md#s13-1" in result.out


# --- verify --ruleset -----------------------------------------------------------------------------

ENDPOINT = "/v1/hands/score"
REQUEST: dict[str, Any] = {"cards": ["AS", "AC", "AH", "KD"], "ruleset": {"tie": "carry"}}


@pytest.fixture(scope="module")
def signing_key() -> SigningKey:
    return SigningKey("2026-11", Ed25519PrivateKey.generate())


@pytest.fixture
def stored(tmp_path: Path, signing_key: SigningKey) -> tuple[str, str]:
    """A record whose receipt names ``classic/1:tie=carry``, and the JWKS to check it with."""
    hand = score_hand(REQUEST["cards"], None, REQUEST["ruleset"])
    response = orjson.dumps(render.stamped(render.scored_hand(hand), hand.ruleset, True))
    signer = Signer(signing_key, version="1.0.0", build="0" * 64, ruleset=hand.ruleset.id)
    record = {
        "endpoint": ENDPOINT,
        "request": REQUEST,
        "response": response.decode(),
        "receipt": signer.sign(ENDPOINT, request_digest(ENDPOINT, REQUEST), response),
    }
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(Keyring(signing_key, (signing_key.public,)).jwks()))
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return str(path), str(jwks)


def _verify(capsys: pytest.CaptureFixture[str], stored: tuple[str, str], spec: str) -> Run:
    """``--json verify`` of the stored record with its JWKS and ``--ruleset SPEC``."""
    record, jwks = stored
    return run(capsys, "--json", "verify", record, "--jwks", jwks, "--ruleset", spec)


@pytest.mark.parametrize(
    "spec", ["classic/1:tie=carry", '{"tie": "carry"}', '{"base": "classic/1", "tie": "carry"}']
)
def test_verify_ruleset_compares_canonical_ids(
    capsys: pytest.CaptureFixture[str], stored: tuple[str, str], spec: str
) -> None:
    result = _verify(capsys, stored, spec)
    assert result.code == ExitCode.OK, result.out
    assert _json(result)["claims"]["ruleset"] == "classic/1:tie=carry"


@pytest.mark.parametrize(
    "spec", ["classic/1", "literal/1", '{"base": "literal/1", "tie": "carry"}']
)
def test_verify_ruleset_refuses_another_ruleset(
    capsys: pytest.CaptureFixture[str], stored: tuple[str, str], spec: str
) -> None:
    result = _verify(capsys, stored, spec)
    assert result.code == ExitCode.REFUSED
    assert _json(result)["reason"] == "RULESET_MISMATCH"


@pytest.mark.parametrize(("spec", "code", "pointer"), BAD)
def test_verify_refuses_a_bad_ruleset_spec(
    capsys: pytest.CaptureFixture[str], stored: tuple[str, str], spec: str, code: str, pointer: str
) -> None:
    _refused(_verify(capsys, stored, spec), code, pointer)


# --- help -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["score", "compare", "validate", "settle", "odds", "verify"])
def test_every_verdict_command_documents_ruleset(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    result = run(capsys, command, "--help")
    assert result.code == ExitCode.OK
    assert "--ruleset SPEC" in result.out
    assert "rulesets" in run(capsys, "--help").out

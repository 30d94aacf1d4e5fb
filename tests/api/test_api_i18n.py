"""Problem documents in Russian when ``Accept-Language`` prefers it, English (unchanged) otherwise.

Every ``detail``, ``title`` and ``errors[].message`` a Russian client can provoke must come back
translated: a table drives each problem type and each refusal of the core reachable over HTTP,
and random mutations of valid bodies (as in ``test_api_error_codes``) drive the schemas' messages.
"Translated" is checked against the same request in English: the texts differ and the Russian one
adds Cyrillic letters (cards may already be spelt in Cyrillic in the English text)."""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.contract.i18n import ENGLISH, RUSSIAN, negotiate
from quart_bezique.api.contract.i18n.catalog import LOCALE_DIR, Translator, entries, translator
from quart_bezique.api.contract.problems import (
    HTTP_ERROR,
    INTERNAL_ERROR,
    NOT_READY,
    PROBLEM_TYPES,
    REQUEST_TIMEOUT,
    Problem,
)
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.api.endpoints.endpoint import Endpoint
from quart_bezique.api.envelope import auth
from werkzeug.wrappers import Response

from tests.api.api_support import mutate, problem
from tests.api.registry_support import (
    JSON_ENDPOINTS,
    VERDICT_ENDPOINTS,
    all_examples,
    example,
    paths,
)

RU = {"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.8"}
SCORE = "/v1/hands/score"
HAND = ["KS", "QS", "JS", "JC"]
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
PO = LOCALE_DIR / "ru" / "LC_MESSAGES" / "messages.po"


# --- negotiation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "language"),
    [
        (None, ENGLISH),
        ("", ENGLISH),
        ("*", ENGLISH),
        ("en", ENGLISH),
        ("en-US,en;q=0.9", ENGLISH),
        ("ru", RUSSIAN),
        ("RU", RUSSIAN),
        ("ru-RU,ru;q=0.9,en;q=0.8", RUSSIAN),
        ("en;q=0.8, ru", RUSSIAN),
        ("en, ru", ENGLISH),  # a tie: the first listed wins
        ("de, ru;q=0.5", RUSSIAN),  # German is not served: the next best is
        ("ru;q=0, en;q=0.1", ENGLISH),  # q=0: "not Russian"
        ("ru;q=0.5, *;q=0.9", ENGLISH),  # anything (the default) is preferred
        ("ru;q=banana", ENGLISH),  # a malformed weight drops its range
        ("fr-CA, run", ENGLISH),  # "run" is no Russian tag
        ("uk, ru-UA;q=0.7", RUSSIAN),
    ],
)
def test_accept_language_is_ranked_by_quality(header: str | None, language: str) -> None:
    assert negotiate(header) == language


# --- the catalog ----------------------------------------------------------------------------------


def _names(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_every_message_of_the_catalog_is_translated() -> None:
    """A new N_() template arrives in the .po untranslated (``make catalogs``): this fails until
    someone translates it, and a translation may only use the template's own placeholders."""
    with PO.open("rb") as file:
        catalog = read_po(file, locale="ru")
    untranslated = [m.id for m in catalog if m.id and (not m.string or m.fuzzy)]
    assert untranslated == []
    for message in catalog:
        if message.id:
            assert isinstance(message.id, str) and isinstance(message.string, str)
            assert _names(message.string) <= _names(message.id), message.id


def test_the_catalog_holds_every_marked_template_of_the_source() -> None:
    """The .po is in step with the code: every N_() of ``service/quart_bezique/api`` is in it (run
    ``make catalogs`` after adding one), and nothing in it is a template the code no longer has."""
    api = LOCALE_DIR.parents[1]
    marked = {
        message
        for _, _, message, _, _ in extract_from_dir(
            str(api), keywords={"N_": None}, comment_tags=()
        )
    }
    with PO.open("rb") as file:
        in_catalog = {m.id for m in read_po(file, locale="ru") if m.id}
    assert marked - in_catalog == set()
    assert in_catalog - marked == set()


def test_a_message_nobody_translated_stays_english() -> None:
    translate = Translator({"the body": "тело", "not a card: {reason}": "не карта: {reason}"})
    assert translate.message("something new") == "something new"
    # A nested message the catalog does not know: no half-Russian sentence, the whole stays.
    assert translate.message("not a card: brand new reason") == "not a card: brand new reason"
    assert translate.message("the body") == "тело"


def test_card_look_alikes_are_explained_in_russian() -> None:
    ru = translator(RUSSIAN).message
    assert ru(
        "invalid card 'Кs': mixes Latin and Cyrillic letters (Cyrillic К (U+041A, король = king) "
        "with Latin s (spades)): write KS or КП for the king of spades"
    ) == (
        "недопустимая карта 'Кs': смешаны латинские и кириллические буквы (кириллическая К "
        "(U+041A, король = king) и латинская s (пики)): пишите KS или КП — король пик"
    )
    assert ru("not a card: unknown rank '1': expected one of 9 10 T J Q K A, or 9 10 В Д К Т") == (
        "это не карта: неизвестное достоинство '1': "
        "ожидается одно из 9 10 T J Q K A или 9 10 В Д К Т"
    )


# --- over HTTP ------------------------------------------------------------------------------------


def _pair(client: FlaskClient, method: str, path: str, **kwargs: Any) -> tuple[Any, Any]:
    english = client.open(path, method=method, **kwargs)
    headers = {**kwargs.pop("headers", {}), **RU}
    russian = client.open(path, method=method, headers=headers, **kwargs)
    return english, russian


ENGLISH_WORDS = re.compile(
    r"\b(?:the|is|are|must|not|of|and|or|with|write|looks|like|got|more|than|Latin|Cyrillic"
    r"|Unknown|Missing|Invalid|Length|Must|Not|String|Field|Number)\b"
)
"""Words of the English templates that no Russian text should keep (outside quoted values)."""
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
PARSER = re.compile(r"(?<=JSON: ).*$")
"""The JSON parser's own account of a syntax error (orjson's words) is quoted as it is."""


def _translated(english: str, russian: str) -> bool:
    """Russian: not the English text, more Cyrillic than it (cards may be spelt in Cyrillic), and
    no English template words left outside the values the client sent (quoted)."""
    return (
        russian != english
        and len(CYRILLIC.findall(russian)) > len(CYRILLIC.findall(english))
        and ENGLISH_WORDS.search(PARSER.sub("", QUOTED.sub("", russian))) is None
    )


def assert_russian(english: Response, russian: Response) -> dict[str, Any]:
    """``russian`` is ``english`` translated: same status, type, code and pointers; its title,
    detail and every message in Russian; the headers say so."""
    assert russian.status_code == english.status_code
    assert russian.headers["Content-Language"] == RUSSIAN
    assert english.headers["Content-Language"] == ENGLISH
    for response in (english, russian):
        assert "Accept-Language" in response.headers.getlist("Vary")
    en: dict[str, Any] = orjson.loads(english.get_data())
    ru: dict[str, Any] = orjson.loads(russian.get_data())
    for key in ("type", "status", "code"):
        assert ru[key] == en[key]
    assert _translated(en["title"], ru["title"]), (en["title"], ru["title"])
    assert _translated(en["detail"], ru["detail"]), (en["detail"], ru["detail"])
    assert len(ru.get("errors", [])) == len(en.get("errors", []))
    for en_error, ru_error in zip(en.get("errors", []), ru.get("errors", []), strict=True):
        assert {**ru_error, "message": None} == {**en_error, "message": None}
        assert _translated(en_error["message"], ru_error["message"]), (en_error, ru_error)
    return ru


SETTLE = "/v1/rounds/settle"
SHOWDOWN_HANDS = {"bob": ["KH", "QH", "KD", "10D"], "dan": ["QS", "JC", "QH", "JD"]}
BAD_BODIES: list[tuple[str, Any, str]] = [
    (SCORE, {"cards": ["KS", "QS", "JS"]}, "WRONG_HAND_SIZE"),
    (SCORE, {"cards": ["KS", "QS", "JS", "1C"]}, "INVALID_CARD"),
    (SCORE, {"cards": ["КS", "QS", "JS", "JC"]}, "INVALID_CARD"),
    (SCORE, {"cards": ["Т♠", "QS", "JS", "JC"]}, "INVALID_CARD"),
    (SCORE, {"cards": ["K♠\ufe0f", "QS", "JS", "JC"]}, "INVALID_CARD"),
    (SCORE, {"cards": ["ＫＳ", "QS", "JS", "JC"]}, "INVALID_CARD"),
    (SCORE, {"cards": ["", "QS", "KSSS", "JC"]}, "INVALID_CARD"),
    (SCORE, {"cards": HAND, "trump": "X"}, "INVALID_TRUMP"),
    (SCORE, {"cards": HAND, "extra": 1}, "UNKNOWN_FIELD"),
    (SCORE, {}, "MISSING_FIELD"),
    (SCORE, {"cards": "KS"}, "NOT_AN_ARRAY"),
    (SCORE, {"cards": ["KS", "QS", "JS", 7]}, "NOT_A_STRING"),
    (SCORE, {"cards": None}, "NULL_NOT_ALLOWED"),
    (SCORE, [], "NOT_AN_OBJECT"),
    ("/v1/hands/batch-score", {"hands": []}, "WRONG_LENGTH"),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "ante": 1.5}, "NOT_AN_INTEGER"),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "ante": 0}, "OUT_OF_RANGE"),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "players": ["ann", "ann"], "dealer": "ann",
                              "actions": []}, "DUPLICATE_VALUE"),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "players": ["a" * 65, "bob"]}, "WRONG_LENGTH"),
    ("/v1/betting/validate",
     {**EXAMPLE_ROUND, "actions": [{"player": "ann", "type": "fold", "amount": 5}]},
     "INVALID_AMOUNT"),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "actions": [{"player": "ann", "type": "stake"}]},
     "MISSING_FIELD"),
    ("/v1/betting/validate", {**EXAMPLE_ROUND, "actions": [{"player": "ann", "type": "bluff"}]},
     "NOT_ONE_OF"),
    ("/v1/showdown", {"hands": [{"player": "a", "cards": HAND}, {"player": "a", "cards": HAND}]},
     "DUPLICATE_PLAYER"),
    ("/v1/showdown", {"hands": [{"player": "a", "cards": ["KS"] * 4},
                                {"player": "b", "cards": ["KS", "KS", "KS", "JC"]}]},
     "SHOE_EXCEEDED"),
    ("/v1/hands/odds", {"cards": HAND, "opponents": 9}, "OUT_OF_RANGE"),
    ("/v1/hands/odds", {"cards": ["KS"] * 4, "seen": ["KS"] * 3}, "SHOE_EXCEEDED"),
    (SETTLE, {**EXAMPLE_ROUND, "hands": {**SHOWDOWN_HANDS, "x" * 70: HAND}}, "INVALID_PLAYER"),
    (SETTLE, {**EXAMPLE_ROUND, "hands": {"bob": SHOWDOWN_HANDS["bob"]}}, "HANDS_MISMATCH"),
    (SETTLE, {**EXAMPLE_ROUND, "hands": {**SHOWDOWN_HANDS, "ann": HAND}}, "HANDS_MISMATCH"),
    (SETTLE, {**EXAMPLE_ROUND, "actions": EXAMPLE_ROUND["actions"][:2], "hands": {}},
     "ROUND_NOT_FINISHED"),
    (SETTLE, {**EXAMPLE_ROUND, "actions": [{"player": "ann", "type": "stake", "amount": 1}],
              "hands": {}}, "ROUND_INVALID"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "code"), BAD_BODIES)
def test_each_refusal_is_translated(client: FlaskClient, path: str, body: Any, code: str) -> None:
    english, russian = _pair(client, "POST", path, json=body)
    ru = assert_russian(english, russian)
    codes = {ru["code"], *(e["code"] for e in ru.get("errors", []))}
    assert code in codes, ru


def test_every_refusal_of_a_long_list_is_translated(client: FlaskClient) -> None:
    """A body with many errors: the count in the detail and each of the 50 messages."""
    body = {"hands": [{"cards": ["KS", "QS", "JS", "1C"]}] * 80}
    english, russian = _pair(client, "POST", "/v1/hands/batch-score", json=body)
    ru = assert_russian(english, russian)
    assert "(и ещё 79)" in ru["detail"]


RAW: list[tuple[str, str, dict[str, Any], str]] = [
    ("POST", SCORE, {"data": b"{", "content_type": "application/json"}, "MALFORMED_JSON"),
    ("POST", SCORE, {"data": b'{"cards": 1, "cards": 2}', "content_type": "application/json"},
     "MALFORMED_JSON"),
    ("POST", SCORE, {"data": b"[" * 300 + b"]" * 300, "content_type": "application/json"},
     "MALFORMED_JSON"),
    ("POST", SCORE, {"data": b"{}", "content_type": "text/plain"}, "UNSUPPORTED_MEDIA_TYPE"),
    ("POST", SCORE, {"data": b"{}"}, "UNSUPPORTED_MEDIA_TYPE"),
    ("POST", SCORE, {"data": b"[" + b"[]," * 400_000 + b"[]]", "content_type": "application/json"},
     "BODY_TOO_LARGE"),
    ("POST", SCORE, {"data": b" " * (2 << 20), "content_type": "application/json"},
     "BODY_TOO_LARGE"),
    ("GET", "/v1/nowhere", {}, "NOT_FOUND"),
    ("GET", "/V1/RULES", {}, "NOT_FOUND"),
    ("DELETE", SCORE, {}, "METHOD_NOT_ALLOWED"),
]  # fmt: skip


@pytest.mark.parametrize(("method", "path", "kwargs", "code"), RAW)
def test_each_http_refusal_is_translated(
    client: FlaskClient, method: str, path: str, kwargs: dict[str, Any], code: str
) -> None:
    english, russian = _pair(client, method, path, **kwargs)
    assert assert_russian(english, russian)["code"] == code


@pytest.mark.parametrize(
    "made",
    [
        Problem(REQUEST_TIMEOUT, "the body did not arrive in time"),
        Problem(HTTP_ERROR, "the body could not be read: its chunked transfer coding is malformed",
                status=400, title="Bad Request"),
        Problem(INTERNAL_ERROR, "the server could not answer; the error is logged"),
        Problem(INTERNAL_ERROR, "the server could not answer", status=502),
        Problem(NOT_READY, "shutting down"),
        Problem(NOT_READY, "the scoring tables are not built yet"),
        Problem(NOT_READY, "the audit log is not keeping up"),
        Problem(NOT_READY, "the build manifest cannot be computed"),
    ],
)  # fmt: skip
def test_refusals_hard_to_provoke_render_in_russian(app: Flask, made: Problem) -> None:
    """The texts the server gives on timeouts, crashes and readiness, rendered as it does."""
    with app.test_request_context(headers=RU):
        russian = made.response()
    with app.test_request_context():
        english = made.response()
    assert_russian(english, russian)


def test_every_problem_type_has_a_russian_title() -> None:
    ru = translator(RUSSIAN)
    for kind in PROBLEM_TYPES:
        assert ru.translated(kind.title) is not None, kind


# --- English stays as it was ----------------------------------------------------------------------


@pytest.mark.parametrize("header", ["en", "*", "en-GB,en;q=0.9", "de", "ru;q=0"])
def test_english_answers_are_byte_identical(client: FlaskClient, header: str) -> None:
    for path, body, _ in BAD_BODIES[:12]:
        plain = client.post(path, json=body)
        asked = client.post(path, json=body, headers={"Accept-Language": header})
        assert asked.get_data() == plain.get_data()
        assert asked.headers["Content-Language"] == ENGLISH


def test_english_detail_is_the_same_text_as_before(client: FlaskClient) -> None:
    doc = problem(client.post(SCORE, json={"cards": ["KS", "QS", "JS"]}), 422)
    assert doc["detail"] == "/cards: a hand holds exactly 4 cards, got 3"
    doc = problem(client.get("/V1/RULES"), 404)
    assert doc["detail"] == "no resource at /V1/RULES; did you mean /v1/rules?"


# --- the envelope's prepared answers --------------------------------------------------------------


@pytest.fixture(scope="module")
def keyed() -> FlaskClient:
    config = Config.from_env({"API_KEYS": "alpha-0123456789abcdef", "BUILD_TABLES": "false"})
    return create_app(config, audit_sink=lambda line: None).test_client()


@pytest.mark.parametrize("endpoint", JSON_ENDPOINTS, ids=paths(JSON_ENDPOINTS))
@pytest.mark.parametrize("authorization", [None, "Bearer wrong-key-0123456789"])
def test_the_401_is_prepared_in_russian(
    keyed: FlaskClient, authorization: str | None, endpoint: Endpoint
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    english, russian = _pair(keyed, "POST", endpoint.path, json=example(endpoint), headers=headers)
    assert russian.status_code == 401
    assert_russian(english, russian)
    # The challenge stays ASCII (RFC 6750), and the English 401 is the very bytes prepared before.
    assert russian.headers["WWW-Authenticate"] == english.headers["WWW-Authenticate"]
    denial = auth.MISSING if authorization is None else auth.INVALID
    assert english.get_data() == denial.body


@pytest.fixture()
def unaudited() -> Iterator[FlaskClient]:
    def refuse(line: bytes) -> bool:
        return False

    app = create_app(Config(build_tables=False), audit_sink=refuse)
    yield app.test_client()


@pytest.mark.parametrize("endpoint", VERDICT_ENDPOINTS, ids=paths(VERDICT_ENDPOINTS))
def test_the_withheld_verdict_is_prepared_in_russian(
    unaudited: FlaskClient, endpoint: Endpoint
) -> None:
    english, russian = _pair(unaudited, "POST", endpoint.path, json=example(endpoint))
    assert russian.status_code == 503
    assert assert_russian(english, russian)["code"] == "AUDIT_UNAVAILABLE"
    assert russian.headers["Retry-After"] == "1"


# --- whatever a body gets wrong -------------------------------------------------------------------

EXAMPLES = all_examples(JSON_ENDPOINTS)
"""The bodies mutated: every request example of every JSON endpoint of the registry."""


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(sorted(EXAMPLES)), st.integers(0, 2**32), st.integers(1, 3))
def test_every_mutated_body_is_refused_in_russian(
    client: FlaskClient, example: str, seed: int, changes: int
) -> None:
    rng = random.Random(seed)
    path, body = EXAMPLES[example]
    for _ in range(changes):
        body = mutate(body, rng)
    english, russian = _pair(client, "POST", path, json=body)
    if english.status_code == 200:
        return
    assert_russian(english, russian)


def test_the_catalog_is_read_from_the_po_file() -> None:
    assert entries(RUSSIAN)["Unknown field."] == "Неизвестное поле."

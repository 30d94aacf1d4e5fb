"""Problem documents in Russian or Ukrainian when ``Accept-Language`` prefers one, else English.

Every ``detail``, ``title`` and ``errors[].message`` a client can provoke must come back in one
language: a table drives each problem type and each refusal of the core reachable over HTTP, and
random mutations of valid bodies drive the schemas' messages. Each is checked against the same
request in English: the texts differ, no English word is left outside the values the client sent,
and no letter of the other Cyrillic language appears."""

from __future__ import annotations

import gettext
import random
import re
import string
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.contract.i18n import ENGLISH, RUSSIAN, UKRAINIAN, negotiate
from quart_bezique.api.contract.i18n.translations import LOCALE_DIR, catalog_path, translations
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
from quart_bezique.game.cards import parse_card
from quart_bezique.game.errors import RulesError
from quart_bezique.game.messages import N_, render
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
UK = {"Accept-Language": "uk-UA,uk;q=0.9,en;q=0.8"}
HEADERS = {RUSSIAN: RU, UKRAINIAN: UK}
TRANSLATED = (RUSSIAN, UKRAINIAN)
SCORE = "/v1/hands/score"
HAND = ["KS", "QS", "JS", "JC"]
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
ONLY_RUSSIAN = re.compile("[ыэъё]", re.IGNORECASE)
ONLY_UKRAINIAN = re.compile("[іїєґ]", re.IGNORECASE)


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
        ("uk, ru-UA;q=0.7", UKRAINIAN),
        ("UK-ua", UKRAINIAN),
        ("ru, uk", RUSSIAN),
        ("ru;q=0.5, uk;q=0.6", UKRAINIAN),
        ("duke", ENGLISH),  # "uk" inside another tag is no Ukrainian
    ],
)
def test_accept_language_is_ranked_by_quality(header: str | None, language: str) -> None:
    assert negotiate(header) == language


# --- the catalog ----------------------------------------------------------------------------------


def _names(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _ids(message: Any) -> tuple[str, ...]:
    return (message.id,) if isinstance(message.id, str) else tuple(message.id)


def _strings(message: Any) -> tuple[str, ...]:
    return (message.string,) if isinstance(message.string, str) else tuple(message.string)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_of_the_catalog_is_translated(language: str) -> None:
    """A new N_() template arrives in the .po untranslated (``make catalogs``): this fails until
    someone translates it, and a translation uses exactly the template's placeholders (a plural
    form may leave out the count)."""
    with catalog_path(language, ".po").open("rb") as file:
        catalog = read_po(file, locale=language)
    untranslated = [m.id for m in catalog if m.id and (not all(_strings(m)) or m.fuzzy)]
    assert untranslated == []
    for message in catalog:
        if message.id:
            wanted = set().union(*map(_names, _ids(message)))
            for text in _strings(message):
                assert _names(text) <= wanted, message.id
                if len(_ids(message)) == 1:
                    assert _names(text) == wanted, message.id


def _marked() -> set[str]:
    package = LOCALE_DIR.parents[2]
    found = extract_from_dir(str(package), keywords={"N_": None, "NP_": (1, 2)}, comment_tags=())
    return {message if isinstance(message, str) else message[0] for _, _, message, _, _ in found}


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalog_holds_every_marked_template_of_the_source(language: str) -> None:
    """The .po is in step with the code: every N_() and NP_() of the package is in it (run ``make
    catalogs`` after adding one), and nothing in it is a template the code no longer has."""
    with catalog_path(language, ".po").open("rb") as file:
        in_catalog = {_ids(m)[0] for m in read_po(file, locale=language) if m.id}
    marked = _marked()
    assert marked - in_catalog == set()
    assert in_catalog - marked == set()


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_shipped_mo_is_the_compiled_po(language: str) -> None:
    """The service reads the .mo (stdlib gettext); a .po edited without ``make catalogs`` fails."""
    with catalog_path(language, ".po").open("rb") as file:
        po = {(_ids(m), _strings(m)) for m in read_po(file, locale=language) if m.id}
    with catalog_path(language, ".mo").open("rb") as file:
        mo = {(_ids(m), _strings(m)) for m in read_mo(file) if m.id}
    assert mo == po


def test_the_service_reads_the_mo_with_gettext() -> None:
    ru = translations(RUSSIAN)
    assert isinstance(ru, gettext.GNUTranslations)
    assert ru.gettext("is required") != "is required"
    assert translations(ENGLISH).gettext("is required") == "is required"


def test_card_look_alikes_are_explained_in_each_language() -> None:
    """The deepest message the service makes (four levels of nested messages) renders whole."""
    try:
        parse_card("Кs")
    except RulesError as error:
        message = error.message
    english = render(message, translations(ENGLISH))
    assert english == str(message)
    assert "Cyrillic К (king) with Latin s (spades)" in english
    for language in TRANSLATED:
        text = render(message, translations(language))
        assert _translated(english, text, language), text


# --- over HTTP ------------------------------------------------------------------------------------


def _pair(
    client: FlaskClient, method: str, path: str, language: str = RUSSIAN, **kwargs: Any
) -> tuple[Any, Any]:
    english = client.open(path, method=method, **kwargs)
    headers = {**kwargs.pop("headers", {}), **HEADERS[language]}
    other = client.open(path, method=method, headers=headers, **kwargs)
    return english, other


ENGLISH_WORDS = re.compile(
    r"\b(?:the|is|are|must|not|of|and|or|with|write|looks|like|got|more|than|Latin|Cyrillic"
    r"|Unknown|Missing|Invalid|Length|Must|Not|String|Field|Number|turn|stake|fold|top_up|open"
    r"|shutting|null|list|text|object)\b"
)
"""Words of the English templates that no translated text should keep (outside quoted values)."""
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|/[^\s:]*")
"""What the client sent, quoted as it is, and the pointers into its body."""
PARSER = re.compile(r"(?<=JSON: ).*$")
"""The JSON parser's own account of a syntax error (orjson's words) is quoted as it is."""
LITERAL = re.compile(r"\bnull\b|\b[a-z]+/[a-z0-9.+-]+|Content-Length|Authorization: Bearer \S+")
"""Literal values a sentence names as they must be written (JSON's null, a media type, a header)."""


def _translated(english: str, text: str, language: str) -> bool:
    """``text`` is ``english`` in ``language``: not the English text, more Cyrillic than it (cards
    may be spelt in Cyrillic), no English word left outside what the client sent, and no letter
    only the other Cyrillic language has."""
    bare = PARSER.sub("", QUOTED.sub("", LITERAL.sub("", text)))
    other = ONLY_UKRAINIAN if language == RUSSIAN else ONLY_RUSSIAN
    return (
        text != english
        and len(CYRILLIC.findall(text)) > len(CYRILLIC.findall(english))
        and ENGLISH_WORDS.search(bare) is None
        and other.search(bare) is None
    )


def assert_translated(
    english: Response, other: Response, language: str = RUSSIAN
) -> dict[str, Any]:
    """``other`` is ``english`` in ``language``: same status, type, code and pointers; its title,
    detail and every message in that language alone; the headers say so."""
    assert other.status_code == english.status_code
    assert other.headers["Content-Language"] == language
    assert english.headers["Content-Language"] == ENGLISH
    for response in (english, other):
        assert "Accept-Language" in response.headers.getlist("Vary")
    en: dict[str, Any] = orjson.loads(english.get_data())
    doc: dict[str, Any] = orjson.loads(other.get_data())
    for key in ("type", "status", "code"):
        assert doc[key] == en[key]
    assert _translated(en["title"], doc["title"], language), (en["title"], doc["title"])
    assert _translated(en["detail"], doc["detail"], language), (en["detail"], doc["detail"])
    assert len(doc.get("errors", [])) == len(en.get("errors", []))
    for en_error, error in zip(en.get("errors", []), doc.get("errors", []), strict=True):
        assert {**error, "message": None} == {**en_error, "message": None}
        assert _translated(en_error["message"], error["message"], language), (en_error, error)
    return doc


assert_russian = assert_translated


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


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize(("path", "body", "code"), BAD_BODIES)
def test_each_refusal_is_translated(
    client: FlaskClient, path: str, body: Any, code: str, language: str
) -> None:
    english, other = _pair(client, "POST", path, language, json=body)
    ru = assert_translated(english, other, language)
    codes = {ru["code"], *(e["code"] for e in ru.get("errors", []))}
    assert code in codes, ru


def test_every_refusal_of_a_long_list_is_translated(client: FlaskClient) -> None:
    """A body with many errors: the count in the detail and each of the 50 messages."""
    body = {"hands": [{"cards": ["KS", "QS", "JS", "1C"]}] * 80}
    english, russian = _pair(client, "POST", "/v1/hands/batch-score", json=body)
    ru = assert_russian(english, russian)
    assert "79" in ru["detail"]


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


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize(("method", "path", "kwargs", "code"), RAW)
def test_each_http_refusal_is_translated(
    client: FlaskClient, method: str, path: str, kwargs: dict[str, Any], code: str, language: str
) -> None:
    english, other = _pair(client, method, path, language, **kwargs)
    assert assert_translated(english, other, language)["code"] == code


@pytest.mark.parametrize(
    "made",
    [
        Problem(REQUEST_TIMEOUT, N_("the body did not arrive in time")),
        Problem(HTTP_ERROR, N_("the request could not be read"), status=400,
                title=N_("Bad Request")),
        Problem(INTERNAL_ERROR, N_("the server could not answer; the error is logged")),
        Problem(INTERNAL_ERROR, N_("the server could not answer"), status=502),
        Problem(NOT_READY, N_("the service is shutting down")),
        Problem(NOT_READY, N_("the scoring tables are not built yet")),
        Problem(NOT_READY, N_("the audit log is not keeping up")),
        Problem(NOT_READY, N_("the build manifest cannot be computed")),
    ],
)  # fmt: skip
@pytest.mark.parametrize("language", TRANSLATED)
def test_refusals_hard_to_provoke_render_in_each_language(
    app: Flask, made: Problem, language: str
) -> None:
    """The texts the server gives on timeouts, crashes and readiness, rendered as it does."""
    with app.test_request_context(headers=HEADERS[language]):
        other = made.response()
    with app.test_request_context():
        english = made.response()
    assert_translated(english, other, language)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_problem_type_has_a_title_in_each_language(language: str) -> None:
    words = translations(language)
    for kind in PROBLEM_TYPES:
        assert render(kind.title, words) != kind.title, kind


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
    assert doc["detail"] == "/cards: a hand holds exactly 4 cards, not 3"
    doc = problem(client.get("/V1/RULES"), 404)
    assert doc["detail"] == "no resource at /V1/RULES; did you mean /v1/rules?"


# --- the envelope's prepared answers --------------------------------------------------------------


@pytest.fixture(scope="module")
def keyed() -> FlaskClient:
    config = Config.from_env({"API_KEYS": "alpha-0123456789abcdef", "BUILD_TABLES": "false"})
    return create_app(config, audit_sink=lambda line: None).test_client()


@pytest.mark.parametrize("endpoint", JSON_ENDPOINTS, ids=paths(JSON_ENDPOINTS))
@pytest.mark.parametrize("authorization", [None, "Bearer wrong-key-0123456789"])
def test_the_401_is_prepared_in_each_language(
    keyed: FlaskClient, authorization: str | None, endpoint: Endpoint
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    english, russian = _pair(keyed, "POST", endpoint.path, json=example(endpoint), headers=headers)
    assert russian.status_code == 401
    assert_russian(english, russian)
    _, ukrainian = _pair(
        keyed, "POST", endpoint.path, UKRAINIAN, json=example(endpoint), headers=headers
    )
    assert_translated(english, ukrainian, UKRAINIAN)
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
def test_every_mutated_body_is_refused_in_one_language(
    client: FlaskClient, example: str, seed: int, changes: int
) -> None:
    rng = random.Random(seed)
    path, body = EXAMPLES[example]
    for _ in range(changes):
        body = mutate(body, rng)
    language = TRANSLATED[seed % len(TRANSLATED)]
    english, other = _pair(client, "POST", path, language, json=body)
    if english.status_code == 200:
        return
    assert_translated(english, other, language)


# --- a verdict's sentence -------------------------------------------------------------------------

OUT_OF_TURN = {
    "players": ["Аня", "Боря", "Вася"],
    "dealer": "Вася",
    "ante": 10,
    "actions": [{"player": "Боря", "type": "stake", "amount": 20}],
}


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_betting_reason_is_given_in_the_asked_language(
    client: FlaskClient, language: str
) -> None:
    """The one sentence of a verdict names the offender and the player whose turn it was, in one
    language; the verdict's data (code, index, state) is the English answer's, and the answer
    says its language."""
    english = client.post("/v1/betting/validate", json=OUT_OF_TURN)
    other = client.post("/v1/betting/validate", json=OUT_OF_TURN, headers=HEADERS[language])
    en, doc = orjson.loads(english.get_data()), orjson.loads(other.get_data())
    assert en["error"]["message"] == "Боря acted out of turn: it is Аня's turn"
    assert {**doc, "error": None} == {**en, "error": None}
    assert {**doc["error"], "message": None} == {**en["error"], "message": None}
    message = doc["error"]["message"]
    assert _translated(en["error"]["message"], message, language), message
    assert message.index("Боря") < message.index("Аня")  # the offender first
    assert other.headers["Content-Language"] == language
    assert english.headers["Content-Language"] == ENGLISH
    assert "Accept-Language" in other.headers.getlist("Vary")


def test_a_verdict_without_a_sentence_does_not_vary_with_the_language(client: FlaskClient) -> None:
    body = {**OUT_OF_TURN, "actions": []}
    english = client.post("/v1/betting/validate", json=body)
    russian = client.post("/v1/betting/validate", json=body, headers=RU)
    assert russian.get_data() == english.get_data()
    assert "Content-Language" not in russian.headers

"""The adjudication page's three string catalogs
(service/quart_bezique/api/endpoints/static/adjudicate/i18n): every key in every language, the same
placeholders everywhere, each language's own letters and game terms, every key the scripts ask for
present, every code the service can answer with named, and every rule section the page cites a real
section of docs/rules.md under its real English name. No browser needed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from quart_bezique.api.endpoints.adjudicate import STATIC_FOLDER
from quart_bezique.game.betting import ActionType, ReasonCode
from quart_bezique.game.scoring import CombinationType

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = {lang: json.loads((STATIC_FOLDER / "i18n" / f"{lang}.json").read_text("utf-8"))
            for lang in ("en", "ru", "uk")}  # fmt: skip
SCRIPTS = {p.name: p.read_text("utf-8") for p in STATIC_FOLDER.glob("*.js")}
PAGE = (STATIC_FOLDER / "page.html").read_text("utf-8")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
RANK_CODES = ("A", "K", "Q", "J", "10", "9")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
ONLY = {"uk": re.compile(r"[іїєґІЇЄҐ]"), "ru": re.compile(r"[ыэъёЫЭЪЁ]")}
ACRONYMS = {"API", "SHA", "UTC", "HTTPS", "PDF", "QR"}


def test_all_catalogs_have_exactly_the_same_keys() -> None:
    assert set(CATALOGS["en"]) == set(CATALOGS["ru"]) == set(CATALOGS["uk"])
    assert len(CATALOGS["en"]) > 150


@pytest.mark.parametrize("key", sorted(CATALOGS["en"]))
def test_every_key_is_translated_with_the_same_placeholders(key: str) -> None:
    en, ru, uk = CATALOGS["en"][key], CATALOGS["ru"][key], CATALOGS["uk"][key]
    assert en.strip() and ru.strip() and uk.strip()
    assert (
        set(PLACEHOLDER.findall(en)) == set(PLACEHOLDER.findall(ru)) == set(PLACEHOLDER.findall(uk))
    )
    assert not CYRILLIC.search(en)  # English strings are English


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_cyrillic_catalogs_hold_no_other_language(lang: str) -> None:
    """No Latin word but acronyms, and none of the letters only the other language has."""
    other = "uk" if lang == "ru" else "ru"
    latin = {w for v in CATALOGS[lang].values() for w in LATIN_WORD.findall(PLACEHOLDER.sub("", v))}
    latin -= ACRONYMS
    assert latin == set()
    assert [k for k, v in CATALOGS[lang].items() if ONLY[other].search(v)] == []


def test_ukrainian_and_russian_game_terms() -> None:
    uk, ru = CATALOGS["uk"], CATALOGS["ru"]
    assert [uk[f"suit.{s}"] for s in "SCHD"] == ["піки", "трефи", "чирви", "бубни"]
    assert [ru[f"suit.{s}"] for s in "SCHD"] == ["пики", "трефы", "червы", "бубны"]
    assert [uk[f"rank.{r}"] for r in ("A", "K", "Q", "J")] == ["туз", "король", "дама", "валет"]
    assert uk["combo.bezique"] == "Безик" and uk["combo.coronka"] == "Коронка"
    assert uk["combo.marriage"] == "Мар\u02bcяж"
    assert uk["breakdown.points"] == "Очки" and uk["score"].startswith("Очки")
    assert not any("окуляр" in v.lower() for v in uk.values())
    # Counts of points in the forms each language has (1 очко, 2 очки/очка, 5 очок/очков).
    assert [uk[f"unit.points.{f}"] for f in ("one", "few", "many")] == ["очко", "очки", "очок"]
    assert [ru[f"unit.points.{f}"] for f in ("one", "few", "many")] == ["очко", "очка", "очков"]


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_the_card_hint_offers_no_latin_t(lang: str) -> None:
    """The hint shows the ace as the page does (Т♠, Cyrillic) and no spelling in Latin letters,
    whose T before a suit symbol would be a ten that looks like the ace."""
    hint = CATALOGS[lang]["cards.hint"]
    assert "Т♠" in hint and not re.search(r"[A-Za-z]", hint)


def test_the_language_switch_offers_ukrainian() -> None:
    assert 'id="lang-uk" lang="uk">Українська<' in PAGE


def test_every_key_the_page_asks_for_exists() -> None:
    asked = set(re.findall(r'data-i18n="([\w.]+)"', PAGE))
    for source in SCRIPTS.values():
        asked |= set(re.findall(r'\bt\("([\w.]+)"', source))
        asked |= set(re.findall(r'"data-i18n": "([\w.]+)"', source))
    asked |= {f"betting.{name}" for name in ("player", "type", "amount")}
    missing = sorted(asked - set(CATALOGS["en"]))
    assert missing == []
    assert len(asked) > 100


def test_every_code_and_name_built_at_run_time_exists() -> None:
    keys = set(CATALOGS["en"])
    built = (
        {f"combo.{kind.value}" for kind in CombinationType}
        | {f"reason.{code.value}" for code in ReasonCode}
        | {f"action.{kind.value}" for kind in ActionType}
        | {f"legal.{kind.value}" for kind in ActionType if kind is not ActionType.FOLD}
        | {f"phase.{phase}" for phase in ("betting", "showdown", "uncontested")}
        | {f"{part}.{rank}" for part in ("rank", "rank.short") for rank in RANK_CODES}
        | {f"{part}.{suit}" for part in ("suit", "suit.of") for suit in "SCHD"}
    )  # fmt: skip
    assert sorted(built - keys) == []


def rules_headings() -> dict[str, str]:
    text = (ROOT / "docs" / "rules.md").read_text("utf-8")
    found = {}
    for number, title in re.findall(r'<a id="s\d+-\d+"></a>\*\*(\d+\.\d+) ?([^*]*)\*\*', text):
        found[number] = title.rstrip(".:").strip()
    for number, title in re.findall(r'^## <a id="s\d+"></a>(\d+)\. (.+)$', text, re.MULTILINE):
        found[number] = title.strip()
    return found


def test_every_cited_section_exists_under_its_english_name() -> None:
    headings = rules_headings()
    cited = set()
    for source in SCRIPTS.values():
        cited |= set(re.findall(r'"(\d{1,2}\.\d{1,2})"', source))
    assert {"4.3", "5.5", "6.2", "9.11", "10.2", "12.6"} <= cited
    for number in sorted(cited):
        assert number in headings, f"§{number} is not a section of docs/rules.md"
        en = CATALOGS["en"][f"sec.{number}"]
        expected = headings[number] or headings[number.split(".")[0]]
        assert en == expected, number


PAST_SINGULAR = {
    "ru": re.compile(r"(?:л|ла|лся|лась)$"),
    "uk": re.compile(r"(?:[аеиіоуя]в|ла|вся|лася)$"),
}
"""A verb in the singular past tense, whose ending is a man's or a woman's: 'остался',
'лишився', 'сыграла'."""
SINGULAR_DATIVE = re.compile(r"(?:ому|ему)$")
"""An adjective or participle agreeing with a man ('первому', 'першому')."""


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_a_players_name_is_never_given_a_gender(lang: str) -> None:
    """A seat's name may be anyone's (Аня, Дима, Оксана): a string that names a player uses the
    present tense or impersonal wording, never a past tense or an adjective that agrees with the
    player's sex."""
    gendered = {}
    for key, text in CATALOGS[lang].items():
        if "{player}" not in text:
            continue
        words = re.findall(r"[^\W\d_]+", PLACEHOLDER.sub("", text).lower())
        found = [w for w in words if PAST_SINGULAR[lang].search(w) or SINGULAR_DATIVE.search(w)]
        if found:
            gendered[key] = found
    assert gendered == {}


def test_the_pages_own_game_terms_stay() -> None:
    """The page's terms, kept whatever the service's catalogs say: ru 'доставить разницу' (the
    game's term for a top-up, not 'доплатить'), uk 'розкриття' for the showdown."""
    ru, uk = CATALOGS["ru"], CATALOGS["uk"]
    assert ru["legal.top_up"].startswith("доставить") and "разницу" in ru["action.top_up"]
    assert not [k for k, v in ru.items() if "доплат" in v.lower()]
    assert uk["nav.showdown"] == "Розкриття" and uk["phase.showdown"] == "розкриття"
    assert not [k for k, v in uk.items() if "відкритт" in v.lower()]


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_the_latin_t_advice_has_the_suit_typed(lang: str) -> None:
    """'T♥' is answered with Т♥ and 10♥, not a fixed ♠: cards.js fills {suit} with the suit
    typed."""
    advice = CATALOGS[lang]["card.latin.t"]
    assert "{suit}" in advice and "♠" not in advice
    assert "suit: typed.slice(-1)" in SCRIPTS["cards.js"]


def test_every_language_name_exists() -> None:
    """The sheet names the language of its exchange, and the note says it stays in it."""
    for lang in CATALOGS:
        assert all(f"lang.{form}.{other}" in CATALOGS[lang]
                   for form in ("name", "in") for other in CATALOGS)  # fmt: skip

"""The adjudication page's two string catalogs
(service/quart_bezique/api/endpoints/static/adjudicate/i18n): every key in both languages, the same
placeholders on both sides, every key the scripts ask for present, every code the service can answer
with named, and every rule section the page cites a real section of docs/rules.md under its real
English name. No browser needed.
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
            for lang in ("en", "ru")}  # fmt: skip
SCRIPTS = {p.name: p.read_text("utf-8") for p in STATIC_FOLDER.glob("*.js")}
PAGE = (STATIC_FOLDER / "page.html").read_text("utf-8")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
RANK_CODES = ("A", "K", "Q", "J", "10", "9")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def test_both_catalogs_have_exactly_the_same_keys() -> None:
    assert set(CATALOGS["en"]) == set(CATALOGS["ru"])
    assert len(CATALOGS["en"]) > 150


@pytest.mark.parametrize("key", sorted(CATALOGS["en"]))
def test_every_key_is_translated_with_the_same_placeholders(key: str) -> None:
    en, ru = CATALOGS["en"][key], CATALOGS["ru"][key]
    assert en.strip() and ru.strip()
    assert set(PLACEHOLDER.findall(en)) == set(PLACEHOLDER.findall(ru))
    assert not CYRILLIC.search(en) or "ТП" in en  # English strings are English (one example aside)


def test_russian_strings_are_russian() -> None:
    untranslated = [k for k, v in CATALOGS["ru"].items() if v == CATALOGS["en"][k]
                    and re.search(r"[A-Za-z]{3}", PLACEHOLDER.sub("", v))]  # fmt: skip
    assert untranslated == []


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

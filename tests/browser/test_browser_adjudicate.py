"""The adjudication page in a real browser against the real gunicorn server, network closed.

Each of the five views is used with real input in Russian and in English (typed notation, Latin
and Russian, the card grid, the action list), its verdict checked against what the API itself
answers, its screenshot kept in docs/screenshots/, and axe-core run on it (no serious or
critical violation). Bad input must be explained next to the input it is about; a keyed server
must be usable with the key typed into the page; nothing may be fetched from anywhere but the
service, and the dispute sheet's digests must be those of the exact bytes exchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.api.api_support import LiveServer
from tests.api.chromium_cdp import Browser, browser
from tests.browser.adjudicate_page import Page, js

pytestmark = pytest.mark.browser

STATUS_LOGS = re.compile(r"the server responded with a status of (401|422)")
"""Chromium logs every refused fetch; those are the refusals the tests provoke on purpose."""


def outside(page: Browser, server: LiveServer) -> list[str]:
    own = (server.url + "/", "data:", "about:")
    return [u for u in page.requested_urls() if not u.startswith(own)]


def unexpected_problems(page: Browser) -> list[str]:
    return [p for p in page.problems() if not STATUS_LOGS.search(p)]


def api(server: LiveServer, path: str, payload: object, key: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    status, _, body = server.request("POST", path, json.dumps(payload).encode(), headers)
    assert status == 200, body
    return json.loads(body)


def digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def net_text(text: str) -> str:
    """A signed amount as the page writes it, without its language's group separators."""
    return re.sub(r"[\s\u202f\u00a0]", "", text).replace("\u2212", "-")


def shoot(page: Page, screenshots: Path, name: str, selector: str | None = None) -> None:
    if selector:
        page.eval(f"document.querySelector({js(selector)}).scrollIntoView({{block: 'start'}})")
    png = page.screenshot()
    assert png.startswith(b"\x89PNG")
    (screenshots / f"{name}.png").write_bytes(png)


def assert_accessible(page: Page, axe: str, where: str) -> None:
    violations = page.axe_violations(axe)
    assert violations == [], f"{where}: {json.dumps(violations, ensure_ascii=False, indent=1)}"


WORDS: dict[str, dict[str, Any]] = {
    "en": {"title": "Quart-Bezique adjudication", "bezique": "Bezique", "coronka": "Coronka of 3",
           "doubled": "×2 trump", "wins": "wins", "odd": "odd chip goes to ann",
           "stake_low": "the stake is below the current stake", "fold": "fold",
           "receipt": "None: the service sent no Verdict-Receipt header.",
           "hand": ["KS", "qs", "J♠", "jc"], "trump": "S", "odds": ["KH", "qh", "9♠", "TD"]},
    "ru": {"title": "Кварт-Безик: судейство", "bezique": "Безик", "coronka": "Коронка из 3",
           "doubled": "×2 козырь", "wins": "Выигрывает", "odd": "лишняя фишка достаётся игроку ann",
           "stake_low": "ставка меньше текущей", "fold": "пас",
           "receipt": "Нет: сервис не прислал заголовок Verdict-Receipt.",
           "hand": ["КП", "дп", "В♠", "вт"], "trump": "S", "odds": ["КЧ", "дч", "9п", "10Б"]},
}  # fmt: skip


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_view_in_both_languages(
    lang: str, chromium: str, open_server: LiveServer, axe_source: str, screenshots: Path
) -> None:
    words = WORDS[lang]
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language(lang)
        assert page.text("h1") == words["title"]

        # 1. Hand: typed in this language's notation, trump spades: coronka doubled, bezique not.
        page.cards("hand", words["hand"])
        page.select("hand-trump", words["trump"])
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result table.breakdown')")
        result = page.text("#hand-result")
        expected = api(
            open_server, "/v1/hands/score", {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}
        )
        assert expected["score"] == 16
        assert str(expected["score"]) in page.text("#hand-result .score")
        assert words["bezique"] in result and words["coronka"] in result
        assert page.eval("document.querySelectorAll('#hand-result .badge').length") == 1
        assert words["doubled"] in page.text("#hand-result tr.mark-2")
        assert "§4.4" in result and "§4.6" in result and "§6.2" in result
        shoot(page, screenshots, f"hand-{lang}")
        assert_accessible(page, axe_source, f"hand ({lang})")

        # The grid: clicks fill the empty inputs in turn.
        for i in range(4):
            page.type(f"hand-card-{i}", "")
        for code in ("AH", "AH", "AD", "9C"):
            page.click(f'.grid-card[data-code="{code}"]')
        values = page.eval("[0,1,2,3].map(i => document.getElementById('hand-card-' + i).value)")
        assert values == ["AH", "AH", "AD", "9C"]

        # 2. Showdown: the page shows the API's winner and both breakdowns.
        page.view("showdown")
        page.click("#showdown-form button[type=submit]")
        page.wait("document.querySelector('#showdown-result .verdict')")
        duel = api(open_server, "/v1/showdown", {"hands": [
            {"player": "A", "cards": ["KH", "QH", "KD", "10D"]},
            {"player": "B", "cards": ["QS", "JC", "QH", "JD"]}]})  # fmt: skip
        assert not duel["tie"]
        verdict = page.text("#showdown-result .verdict")
        assert words["wins"] in verdict and duel["winner"] in verdict
        assert (
            page.eval("document.querySelectorAll('#showdown-result table.breakdown').length") == 2
        )
        shoot(page, screenshots, f"showdown-{lang}")
        assert_accessible(page, axe_source, f"showdown ({lang})")

        # 3. Betting: bob stakes 3 after ann's 5: illegal, with bob's legal alternatives.
        page.view("betting")
        page.select("act-1-type", "stake")
        page.type("act-1-amount", "3")
        page.click("#betting-form button[type=submit]")
        page.wait("document.querySelector('#betting-result .illegal-box')")
        box = page.text("#betting-result .illegal-box")
        assert words["stake_low"] in box and "STAKE" not in box.split("(")[0]
        assert words["fold"] in box and "§9.3" in box
        assert page.eval("document.querySelectorAll('#betting-result tbody tr').length") == 3
        assert page.eval("document.querySelectorAll('#betting-result tr.illegal').length") == 1
        shoot(page, screenshots, f"betting-{lang}", "#betting-form h3")
        assert_accessible(page, axe_source, f"betting ({lang})")
        page.select("act-1-type", "fold")
        page.click("#betting-form button[type=submit]")
        page.wait("document.querySelector('#betting-result p.verdict.win')")
        assert page.eval("document.querySelectorAll('#betting-result tbody tr').length") == 4

        # 4. Settlement (a tie on an odd pot: the odd chip) and odds.
        page.view("settle")
        for seat, cards in ((0, ["KS", "QS", "JS", "JC"]), (1, ["", "", "", ""]),
                            (2, ["КЧ", "дч", "ВЧ", "вб"])):  # fmt: skip
            page.cards(f"st{seat}", cards)
        page.click("#settle-form button[type=submit]")
        page.wait("document.querySelector('#settle-result table.payouts')")
        settled = api(open_server, "/v1/rounds/settle", {
            "players": ["ann", "bob", "dan"], "dealer": "dan", "ante": 5,
            "actions": [{"player": "ann", "type": "stake", "amount": 5},
                        {"player": "bob", "type": "fold"},
                        {"player": "dan", "type": "open", "amount": 5}],
            "hands": {"ann": ["KS", "QS", "JS", "JC"],
                      "dan": ["KH", "QH", "JH", "JD"]}})  # fmt: skip
        rows = page.eval("[...document.querySelectorAll('#settle-result table.payouts tbody tr')]"
                         ".map(r => [...r.children].map(c => c.innerText))")  # fmt: skip
        assert [[r[0], digits(r[1]), net_text(r[2])] for r in rows] == [
            [p["player"], str(p["payout"]), f"{p['net']:+d}" if p["net"] else "0"]
            for p in settled["players"]
        ]
        assert settled["winners"] == ["ann", "dan"] and settled["pot"] == 25
        assert words["odd"] in page.text("#settle-result")
        page.cards("odds", words["odds"])
        page.select("odds-opponents", "2")
        page.click("#odds-form button[type=submit]")
        page.wait("document.querySelector('#odds-result .bar')")
        odds = api(
            open_server, "/v1/hands/odds", {"cards": ["KH", "QH", "9S", "10D"], "opponents": 2}
        )
        shown = digits(page.text("#odds-result ul.odds"))
        assert all(str(odds[k]) in shown for k in ("wins", "ties", "losses", "total"))
        assert digits(f"{odds['percentile']:.1f}") in digits(page.text("#odds-result"))
        assert page.eval("document.querySelectorAll('#odds-result .bar span').length") == 3
        width = "parseFloat(getComputedStyle(document.querySelector('.bar-{}')).width)"
        assert page.eval(f"{width.format('win')} > {width.format('tie')}")
        shoot(page, screenshots, f"settle-{lang}", "#settle-result")
        shoot(page, screenshots, f"odds-{lang}", "#odds-h")
        assert_accessible(page, axe_source, f"settlement and odds ({lang})")

        # 5. Dispute sheet of the last verdict (the odds): digests of the exact bytes exchanged.
        page.view("sheet")
        sheet = page.text("#sheet")
        sent = page.text("#sheet pre")
        assert json.loads(sent)["cards"] == words["odds"]
        assert hashlib.sha256(sent.encode()).hexdigest() in sheet
        _, _, again = open_server.request("POST", "/v1/hands/odds", sent.encode(),
                                          {"Content-Type": "application/json"})  # fmt: skip
        assert hashlib.sha256(again).hexdigest() in sheet
        request_ids = [e["params"]["response"]["headers"].get("X-Request-ID")
                       for e in cdp.events if e["method"] == "Network.responseReceived"
                       and e["params"]["response"]["url"].endswith("/v1/hands/odds")]  # fmt: skip
        assert request_ids and request_ids[-1] in sheet
        assert "classic/1" in sheet and "quart-bezique" in sheet
        assert words["receipt"] in sheet
        assert "§12.6" in sheet
        cdp.send("Emulation.setEmulatedMedia", {"media": "print"})
        shoot(page, screenshots, f"sheet-{lang}")
        cdp.send("Emulation.setEmulatedMedia", {"media": ""})
        assert_accessible(page, axe_source, f"dispute sheet ({lang})")
        pdf = base64.b64decode(cdp.send("Page.printToPDF", {"preferCSSPageSize": True})["data"])
        assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1, "the sheet must fit one page"
        media = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)", pdf)
        assert media and abs(float(media[1]) - 595.3) < 2 and abs(float(media[2]) - 841.9) < 2

        # Switching language re-renders the verdicts already on the page.
        other = "en" if lang == "ru" else "ru"
        page.language(other)
        assert page.text("h1") == WORDS[other]["title"]
        assert WORDS[other]["receipt"] in page.text("#sheet")
        assert WORDS[other]["odd"] in page.text("#settle-result")
        assert WORDS[other]["coronka"] in page.text("#hand-result")

        assert outside(cdp, open_server) == []
        assert unexpected_problems(cdp) == []


@pytest.mark.parametrize(
    ("accept", "lang"), [("ru-RU,ru;q=0.9,en;q=0.5", "ru"), ("de-DE,en;q=0.8", "en")]
)
def test_the_browser_language_is_the_default(
    accept: str, lang: str, chromium: str, open_server: LiveServer
) -> None:
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open(accept_language=accept)
        assert cdp.evaluate("document.documentElement.lang") == lang
        assert page.text("h1") == WORDS[lang]["title"]
        assert cdp.evaluate("document.getElementById('lang-' + document.documentElement.lang)"
                            ".getAttribute('aria-pressed')") == "true"  # fmt: skip


def test_bad_input_is_explained_next_to_it(chromium: str, open_server: LiveServer) -> None:
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language("en")
        # A Cyrillic Т (ace) with a Latin S: refused naming both readings, next to card 3.
        page.cards("hand", ["KS", "QS", "ТS", "JC"])
        page.click("#hand-form button[type=submit]")
        page.wait("document.getElementById('hand-card-2-err').textContent")
        message = page.text("#hand-card-2-err")
        assert "mixes Latin and Cyrillic" in message and "ТП" in message and "10S" in message
        assert (
            cdp.evaluate("document.getElementById('hand-card-2').getAttribute('aria-invalid')")
            == "true"
        )
        assert page.text("#hand-card-0-err") == ""
        page.language("ru")  # a refusal shown stays shown across a language switch
        assert message == page.text("#hand-card-2-err")
        page.language("en")
        # An emoji variation selector after a suit symbol.
        page.cards("hand", ["K♠\ufe0f", "QS", "JS", "JC"])
        page.click("#hand-form button[type=submit]")
        page.wait("document.getElementById('hand-card-0-err').textContent")
        assert "variation selector U+FE0F after ♠" in page.text("#hand-card-0-err")

        # Seven king of spades between two hands: no shoe holds them.
        page.view("showdown")
        page.cards("sd0", ["KS", "KS", "KS", "KS"])
        page.cards("sd1", ["KS", "KS", "KS", "QH"])
        page.click("#showdown-form button[type=submit]")
        page.wait("document.querySelector('#showdown-result .explain')")
        assert "No shoe can hold these hands" in page.text("#showdown-result")
        assert "7 times" in page.text("#showdown-err")
        assert "§1.7" in page.text("#showdown-result")

        # A bad ante is pointed at the ante field; an unknown card in the odds at its card.
        page.view("betting")
        page.type("bet-ante", "0")
        page.click("#betting-form button[type=submit]")
        page.wait("document.getElementById('bet-ante-err').textContent")
        assert page.text("#bet-ante-err")
        page.view("settle")
        page.cards("odds", ["1S", "QS", "JS", "JC"])
        page.click("#odds-form button[type=submit]")
        page.wait("document.getElementById('odds-card-0-err').textContent")
        assert "unknown rank" in page.text("#odds-card-0-err")
        assert outside(cdp, open_server) == []
        assert unexpected_problems(cdp) == []


def test_a_keyed_server_needs_the_key_typed_into_the_page(
    chromium: str, keyed_server: LiveServer, api_key: str
) -> None:
    with browser(chromium) as cdp:
        page = Page(cdp, keyed_server.url)
        page.open()
        page.language("en")
        page.click("#hand-form button[type=submit]")
        page.wait("document.getElementById('hand-err')?.textContent")
        assert "needs an API key" in page.text("#hand-err")
        page.type("api-key", api_key)
        page.click("#key-form button[type=submit]")
        assert cdp.evaluate("sessionStorage.getItem('qb-api-key')") == api_key
        assert cdp.evaluate("localStorage.length") == 0
        assert cdp.evaluate("document.getElementById('api-key').value") == ""
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result table.breakdown')")
        assert "10" in page.text("#hand-result .score")
        sent = [e["params"]["request"]["headers"].get("Authorization")
                for e in cdp.events if e["method"] == "Network.requestWillBeSent"
                and e["params"]["request"]["url"].endswith("/v1/hands/score")]  # fmt: skip
        assert sent == [None, f"Bearer {api_key}"]
        page.click("#key-forget")
        assert cdp.evaluate("sessionStorage.getItem('qb-api-key')") is None
        assert outside(cdp, keyed_server) == []
        assert unexpected_problems(cdp) == []


def test_the_sheet_shows_the_signed_receipt_when_the_service_sends_one(
    chromium: str, signed_server: LiveServer
) -> None:
    with browser(chromium) as cdp:
        page = Page(cdp, signed_server.url)
        page.open()
        page.language("en")
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result table.breakdown')")
        page.view("sheet")
        receipts = [e["params"]["response"]["headers"].get("Verdict-Receipt")
                    for e in cdp.events if e["method"] == "Network.responseReceived"
                    and e["params"]["response"]["url"].endswith("/v1/hands/score")]  # fmt: skip
        assert len(receipts) == 1 and receipts[0] and receipts[0].count(".") == 2  # a JWS
        assert receipts[0] in page.text("#sheet").replace("\n", "")
        assert "no Verdict-Receipt" not in page.text("#sheet")
        assert unexpected_problems(cdp) == []

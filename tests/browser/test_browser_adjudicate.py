"""The adjudication page in a real browser against the real gunicorn server, network closed.

Each of the five views is used with real input in Russian, Ukrainian and English (typed in the
page's notation, the card grid, the action list), its verdict checked against what the API itself
answers, its screenshot kept in docs/screenshots/ (desktop and phone), axe-core run on it, and
its words checked to be of the chosen language only, with nothing wider than a phone's screen.
The dispute sheet's one request digest must be the signed receipt's.
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
from tests.browser.adjudicate_page import (
    DESKTOP,
    PHONE,
    TABLET,
    WIDTHS,
    Page,
    foreign_words,
    js,
)

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


def signed(value: int) -> str:
    """A net amount as the page must write it: its sign always, a true minus (U+2212)."""
    return f"+{value}" if value > 0 else f"\u2212{-value}" if value < 0 else "0"


def shown_share(value: float) -> str:
    """The digits of a share of 0..100 as the page must write it: two decimals at most, never
    rounded onto 100 (or 0) it is not."""
    shown = round(value * 100)
    if shown >= 10000 and value < 100:
        shown = int(value * 100)
    return digits(f"{shown / 100:.2f}".rstrip("0").rstrip("."))


def shoot(page: Page, screenshots: Path, name: str, selector: str | None = None) -> None:
    for width, suffix in ((DESKTOP, ""), (PHONE, "-phone")):
        page.width(width)
        if selector:
            page.eval(f"document.querySelector({js(selector)}).scrollIntoView({{block: 'start'}})")
        png = page.screenshot(width, 820 if width == DESKTOP else 844)
        assert png.startswith(b"\x89PNG")
        (screenshots / f"{name}{suffix}.png").write_bytes(png)
    page.width(DESKTOP)


def one_language(page: Page, lang: str, where: str, names: tuple[str, ...] = ()) -> list[str]:
    """At a phone's, a tablet's and a desktop's width: nothing wider than the screen (asserted),
    and the words of another language, returned to be asserted once the walk is done (so one
    view's stray word does not hide the rest)."""
    found = []
    for width in (PHONE, TABLET, DESKTOP):
        page.width(width)
        assert page.sideways() <= 0, f"{where} ({lang}) scrolls sideways at {width} px"
        found += [
            f"{where} at {width}: {w}" for w in foreign_words(page.visible_text(), lang, names)
        ]
    page.width(DESKTOP)
    return sorted(set(found))


def assert_accessible(page: Page, axe: str, where: str) -> None:
    for width in (PHONE, DESKTOP):
        page.width(width)
        violations = page.axe_violations(axe)
        assert violations == [], f"{where}: {json.dumps(violations, ensure_ascii=False, indent=1)}"
    page.width(DESKTOP)


WORDS: dict[str, dict[str, Any]] = {
    "en": {"title": "Quart-Bezique adjudication", "bezique": "Bezique",
           "coronka": "Coronka of\u00a03",
           "double": "Double bezique",
           "three": "Three of a kind",
           "doubled": "trump, ×2", "wins": "wins", "odd": "odd chip goes to Ann",
           "stake_low": "a stake must be at least the current stake 5, not 3", "fold": "fold",
           "and": "and",
           "receipt": "None: the service did not sign this verdict.", "kept": "stays in ",
           "names": ("Ann", "Bob", "Dan"), "grid": ["A♥", "A♥", "A♦", "9♣"],
           "hand": ["KS", "qs", "J♠", "jc"], "odds": ["KH", "qh", "9♠", "10D"],
           "settle": [["K♠", "Q♠", "J♠", "J♣"], ["KH", "QH", "JH", "JD"]]},
    "ru": {"title": "Кварт-Безик: судейство", "bezique": "Безик", "coronka": "Коронка из\u00a03",
           "double": "Два безика",
           "three": "Тройка",
           "doubled": "козырь, ×2", "wins": "Выигрывает",
           "odd": "Лишняя фишка: Аня (среди равных по очкам",
           "stake_low": "ставка должна быть не меньше текущей ставки 5, а не 3", "fold": "пас",
           "and": "и",
           "receipt": "Нет: сервис не подписал это решение.", "kept": "Протокол остаётся на ",
           "names": ("Аня", "Боря", "Дима"), "grid": ["Т♥", "Т♥", "Т♦", "9♣"],
           "hand": ["КП", "дп", "В♠", "вт"], "odds": ["КЧ", "дч", "9п", "10Б"],
           "settle": [["К♠", "Д♠", "В♠", "В♣"], ["КЧ", "дч", "ВЧ", "вб"]]},
    "uk": {"title": "Кварт-Безик: суддівство", "bezique": "Безик", "coronka": "Коронка з\u00a03",
           "double": "Подвійний безик",
           "three": "Трійка",
           "doubled": "козир, ×2", "wins": "Виграє",
           "odd": "Зайва фішка: Оксана (серед рівних за очками",
           "stake_low": "ставка має бути не меншою за поточну ставку 5, а не 3", "fold": "пас",
           "and": "і",
           "receipt": "Немає: сервіс не підписав це рішення.", "kept": "Протокол лишається ",
           "names": ("Оксана", "Богдан", "Тарас"), "grid": ["Т♥", "Т♥", "Т♦", "9♣"],
           "hand": ["К♠", "д♠", "В♠", "вт"], "odds": ["К♥", "дч", "9п", "10♦"],
           "settle": [["К♠", "Д♠", "В♠", "В♣"], ["К♥", "Д♥", "В♥", "В♦"]]},
}  # fmt: skip
CANONICAL = {"hand": ["KS", "QS", "JS", "JC"], "odds": ["KH", "QH", "9S", "10D"],
             "grid": ["AH", "AH", "AD", "9C"]}  # fmt: skip


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_every_view_in_every_language(
    lang: str, chromium: str, open_server: LiveServer, axe_source: str, screenshots: Path
) -> None:
    words = WORDS[lang]
    names: tuple[str, ...] = words["names"]
    foreign: list[str] = []
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open(accept_language="de-DE,de;q=0.9")
        page.language(lang)
        assert page.text("h1") == words["title"]
        assert page.eval("document.getElementById('bet-players').value") == ", ".join(names)

        # 1. Hand: typed in this language's notation, trump spades: coronka doubled, bezique not.
        page.cards("hand", words["hand"])
        page.select("hand-trump", "S")
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result table.breakdown')")
        result = page.text("#hand-result")
        expected = api(open_server, "/v1/hands/score", {"cards": CANONICAL["hand"], "trump": "S"})
        assert expected["score"] == 16
        assert str(expected["score"]) in page.text("#hand-result .score")
        assert page.text("#hand-result .trump-note")  # its own line, not run on after the score
        assert words["bezique"] in result and words["coronka"] in result
        assert page.eval("document.querySelectorAll('#hand-result .badge').length") == 1
        assert words["doubled"] in page.text("#hand-result tr.mark-2")
        assert "§4.4" in result and "§4.6" in result and "§6.2" in result
        shoot(page, screenshots, f"hand-{lang}")
        foreign += one_language(page, lang, "hand", names)
        assert_accessible(page, axe_source, f"hand ({lang})")

        # The grid writes the page's notation, and what it writes is accepted back.
        for i in range(4):
            page.type(f"hand-card-{i}", "")
        for code in CANONICAL["grid"]:
            page.click(f'.grid-card[data-code="{code}"]')
        values = page.eval("[0,1,2,3].map(i => document.getElementById('hand-card-' + i).value)")
        assert values == words["grid"]
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result table.breakdown') && "
                  "document.querySelector('#sheet pre')?.textContent.includes('AD')")  # fmt: skip
        assert (
            json.loads(page.eval("document.querySelector('#sheet pre').textContent"))["cards"]
            == CANONICAL["grid"]
        )

        # 2. Showdown: the page shows the API's winner and both breakdowns.
        page.view("showdown")
        assert page.eval("document.getElementById('sd-player-0').value") == names[0]
        page.click("#showdown-form button[type=submit]")
        page.wait("document.querySelector('#showdown-result .verdict')")
        duel = api(open_server, "/v1/showdown", {"hands": [
            {"player": names[0], "cards": ["KH", "QH", "KD", "10D"]},
            {"player": names[1], "cards": ["QS", "JC", "QH", "JD"]}]})  # fmt: skip
        assert not duel["tie"]
        verdict = page.text("#showdown-result .verdict")
        assert words["wins"] in verdict and duel["winner"] in verdict
        assert (
            page.eval("document.querySelectorAll('#showdown-result table.breakdown').length") == 2
        )
        shoot(page, screenshots, f"showdown-{lang}")
        foreign += one_language(page, lang, "showdown", names)
        assert_accessible(page, axe_source, f"showdown ({lang})")

        # 3. Betting: the second seat stakes 3 after 5: illegal, with the legal alternatives.
        page.view("betting")
        page.select("act-1-type", "stake")
        page.type("act-1-amount", "3")
        page.click("#betting-form button[type=submit]")
        page.wait("document.querySelector('#betting-result .illegal-box')")
        box = page.text("#betting-result .illegal-box")
        # The service's own sentence (asked in the page's language), and no wire code.
        assert words["stake_low"] in box and "STAKE" not in box
        assert "9007199254740" not in box  # a ceiling that is no rule reads as no upper limit
        assert words["fold"] in box and "§9.3" in box
        assert page.eval("document.querySelectorAll('#betting-result tbody tr').length") == 3
        assert page.eval("document.querySelectorAll('#betting-result tr.illegal').length") == 1
        shoot(page, screenshots, f"betting-{lang}", "#betting-form h3")
        foreign += one_language(page, lang, "betting", names)  # with the server's own message
        assert_accessible(page, axe_source, f"betting ({lang})")
        page.select("act-1-type", "fold")
        page.click("#betting-form button[type=submit]")
        page.wait("document.querySelector('#betting-result p.verdict.win')")
        assert page.eval("document.querySelectorAll('#betting-result tbody tr').length") == 4

        # 4. Settlement (a tie on an odd pot: the odd chip): hands only of the two at the showdown.
        page.view("settle")
        legends = page.eval("[...document.querySelectorAll('#settle-hands legend')]"
                            ".map(l => l.textContent)")  # fmt: skip
        assert len(legends) == 2 and names[0] in legends[0] and names[2] in legends[1]
        for seat, cards in enumerate(words["settle"]):
            page.cards(f"st{seat}", cards)
        page.click("#settle-form button[type=submit]")
        page.wait("document.querySelector('#settle-result table.payouts')")
        settled = api(open_server, "/v1/rounds/settle", {
            "players": list(names), "dealer": names[2], "ante": 5,
            "actions": [{"player": names[0], "type": "stake", "amount": 5},
                        {"player": names[1], "type": "fold"},
                        {"player": names[2], "type": "open", "amount": 5}],
            "hands": {names[0]: ["KS", "QS", "JS", "JC"],
                      names[2]: ["KH", "QH", "JH", "JD"]}})  # fmt: skip
        rows = page.eval("[...document.querySelectorAll('#settle-result table.payouts tbody tr')]"
                         ".map(r => [...r.children].map(c => c.innerText))")  # fmt: skip
        assert [[r[0], digits(r[1]), net_text(r[2])] for r in rows] == [
            [p["player"], str(p["payout"]), f"{p['net']:+d}" if p["net"] else "0"]
            for p in settled["players"]
        ]
        assert settled["winners"] == [names[0], names[2]] and settled["pot"] == 25
        assert words["odd"] in page.text("#settle-result")
        # Two winners joined as the language joins them; every net with its sign, a true minus.
        both = f"{names[0]} {words['and']} {names[2]}"
        assert both in page.text("#settle-result .verdict"), page.text("#settle-result .verdict")
        assert [r[2] for r in rows] == [signed(p["net"]) for p in settled["players"]]
        assert [p["net"] for p in settled["players"]] == [3, -5, 2]
        page.cards("odds", words["odds"])
        page.select("odds-opponents", "2")
        page.click("#odds-form button[type=submit]")
        page.wait("document.querySelector('#odds-result .bar')")
        odds = api(open_server, "/v1/hands/odds", {"cards": CANONICAL["odds"], "opponents": 2})
        shown = digits(page.text("#odds-result ul.odds"))
        assert all(str(odds[k]) in shown for k in ("wins", "ties", "losses", "total"))
        assert shown_share(odds["percentile"]) in digits(page.text("#odds-result"))
        assert page.eval("document.querySelectorAll('#odds-result .bar span').length") == 3
        width = "parseFloat(getComputedStyle(document.querySelector('.bar-{}')).width)"
        assert page.eval(f"{width.format('win')} > {width.format('tie')}")
        shoot(page, screenshots, f"settle-{lang}", "#settle-result")
        shoot(page, screenshots, f"odds-{lang}", "#odds-h")
        foreign += one_language(page, lang, "settlement and odds", names)
        assert_accessible(page, axe_source, f"settlement and odds ({lang})")

        # 5. Dispute sheet of the last verdict (the odds): cards as faces in the page's notation,
        # the request as sent (canonical codes), and no digest of the raw bytes sent.
        page.view("sheet")
        sheet = page.text("#sheet")
        sent = page.text("#sheet pre")
        assert json.loads(sent)["cards"] == CANONICAL["odds"]
        assert hashlib.sha256(sent.encode()).hexdigest() not in sheet
        _, _, again = open_server.request("POST", "/v1/hands/odds", sent.encode(),
                                          {"Content-Type": "application/json"})  # fmt: skip
        assert hashlib.sha256(again).hexdigest() in sheet
        faces = page.eval("[...document.querySelectorAll('#sheet .verdict-lines li:first-child "
                          ".chip .face')].map(f => f.textContent)")  # fmt: skip
        assert faces == [page.eval(f"document.querySelector('.grid-card[data-code=\"{c}\"] "
                                   ".face').textContent") for c in odds["cards"]]  # fmt: skip
        red = page.eval("[...document.querySelectorAll('#sheet .verdict-lines li:first-child "
                        ".chip')].map(c => c.classList.contains('red'))")  # fmt: skip
        assert odds["cards"] == ["9S", "KH", "QH", "10D"] and red == [False, True, True, True]
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
        foreign += one_language(page, lang, "dispute sheet", names)
        assert_accessible(page, axe_source, f"dispute sheet ({lang})")
        pdf = base64.b64decode(cdp.send("Page.printToPDF", {"preferCSSPageSize": True})["data"])
        assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1, "the sheet must fit one page"
        media = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)", pdf)
        assert media and abs(float(media[1]) - 595.3) < 2 and abs(float(media[2]) - 841.9) < 2

        # Switching language re-renders the verdicts and renames the example's players; the
        # sheet, the record of an exchange made in `lang`, stays as it was, and says so.
        recorded = page.text("#sheet")
        assert page.eval("document.getElementById('sheet-kept').hidden")
        for other in (x for x in ("ru", "uk", "en") if x != lang):
            page.language(other)
            theirs = WORDS[other]
            assert page.text("h1") == theirs["title"]
            assert page.text("#sheet") == recorded
            assert page.eval("document.getElementById('sheet').lang") == lang
            assert theirs["kept"] in page.text("#sheet-kept")
            assert theirs["three"] in page.text("#hand-result")  # the grid's hand: three aces
            assert page.eval("document.getElementById('bet-players').value") == ", ".join(
                theirs["names"]
            )
            page.view("hand")
            foreign += one_language(page, other, "hand after a switch", names + theirs["names"])
            page.view("sheet")

        assert outside(cdp, open_server) == []
        assert unexpected_problems(cdp) == []
    assert foreign == []


@pytest.mark.parametrize(
    ("accept", "lang"),
    [("ru-RU,ru;q=0.9,en;q=0.5", "ru"), ("uk-UA,uk;q=0.9", "uk"), ("de-DE,en;q=0.8", "en")],
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
        assert page.eval("document.getElementById('hand-card-0').value") == (
            "K♠" if lang == "en" else "К♠"
        )


def sent_headers(cdp: Browser, path: str, name: str) -> list[str | None]:
    return [e["params"]["request"]["headers"].get(name)
            for e in cdp.events if e["method"] == "Network.requestWillBeSent"
            and e["params"]["request"]["url"].endswith(path)]  # fmt: skip


def refusal(server: LiveServer, path: str, payload: object, lang: str) -> dict[str, Any]:
    """The problem document the service answers to ``payload`` in ``lang``."""
    status, headers, body = server.request("POST", path, json.dumps(payload).encode(),
                                           {"Content-Type": "application/json",
                                            "Accept-Language": lang})  # fmt: skip
    assert status == 422 and headers["Content-Language"] == lang, body
    problem: dict[str, Any] = json.loads(body)
    return problem


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_the_chosen_language_is_asked_of_the_service(
    lang: str, chromium: str, open_server: LiveServer
) -> None:
    """The browser prefers German; the page asks for the language chosen in it, and the
    service's explanation of a bad card comes back in that language, shown as it is."""
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open(accept_language="de-DE,de;q=0.9")
        page.language(lang)
        page.cards("hand", ["1♠", "Д♠", "В♠", "В♣"])
        page.click("#hand-form button[type=submit]")
        page.wait("document.getElementById('hand-card-0-err').textContent")
        assert sent_headers(cdp, "/v1/hands/score", "Accept-Language") == [lang]
        message = page.text("#hand-card-0-err")
        bad = {"cards": ["1♠", "QS", "JS", "JC"], "trump": None}
        assert message == refusal(open_server, "/v1/hands/score", bad, lang)["errors"][0]["message"]
        if lang != "en":  # the server's own words, in the chosen language
            english = refusal(open_server, "/v1/hands/score", bad, "en")["errors"][0]["message"]
            assert message != english and re.search("[а-яіїєґ]", message), message
        assert foreign_words(page.visible_text(), lang) == []


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_every_card_shown_is_accepted_back(
    lang: str, chromium: str, open_server: LiveServer
) -> None:
    """Each of the 24 cards of the grid, typed back as the page shows it, is scored as that card;
    so is every card of the completion list."""
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language(lang)
        grid = page.eval("[...document.querySelectorAll('.grid-card')].map(b => "
                         "[b.dataset.code, b.querySelector('.face').textContent])")  # fmt: skip
        options = page.eval("[...document.querySelectorAll('#card-options option')]"
                            ".map(o => o.value)")  # fmt: skip
        assert len(grid) == 24 and options == [face for _, face in grid]
        for start in range(0, 24, 4):
            group = grid[start : start + 4]
            page.cards("hand", [face for _, face in group])
            page.click("#hand-form button[type=submit]")
            codes = [code for code, _ in group]
            body = json.dumps({"cards": codes, "trump": None}, separators=(",", ":"))
            page.wait(f"document.querySelector('#sheet pre')?.textContent === {js(body)}")
            assert page.eval("document.querySelector('#hand-result table.breakdown') !== null")
            shown = page.eval("[...document.querySelectorAll('#hand-result .hand-row .face')]"
                              ".map(f => f.textContent)")  # fmt: skip
            assert sorted(shown) == sorted(face for _, face in group)
        hint = page.text("#view-hand .hint")
        if lang != "en":
            assert not re.search(r"[A-Za-z]", hint), hint  # no Latin T that looks like the ace
        assert unexpected_problems(cdp) == []


def test_a_latin_t_before_a_suit_symbol_is_refused_where_т_is_the_ace(
    chromium: str, open_server: LiveServer
) -> None:
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language("ru")
        page.cards("hand", ["T♠", "Д♠", "В♠", "Т♦"])  # a Latin T, then a Cyrillic Т
        page.click("#hand-form button[type=submit]")
        page.wait("document.getElementById('hand-card-0-err').textContent")
        assert "10♠" in page.text("#hand-card-0-err") and "Т♠" in page.text("#hand-card-0-err")
        assert page.text("#hand-card-3-err") == ""
        # What to write instead is in the suit typed.
        for lang, suit, typed in (("ru", "♥", "t♥"), ("uk", "♦", "T♦")):
            page.language(lang)
            page.cards("hand", [typed, "Д♠", "В♠", "Т♦"])
            page.click("#hand-form button[type=submit]")
            page.wait(
                f"document.getElementById('hand-card-0-err').textContent.includes({js(suit)})"
            )
            said = page.text("#hand-card-0-err")
            assert f"Т{suit} (туз)" in said and f"10{suit} (десятка)" in said, said
            assert "♠" not in said
        assert sent_headers(cdp, "/v1/hands/score", "Accept-Language") == []  # nothing sent
        page.language("en")  # in English T is ten, as in the API
        page.cards("hand", ["T♠", "Q♠", "J♠", "J♣"])
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result table.breakdown')")
        assert "10♠" in page.text("#hand-result .hand-row")


def test_bad_input_is_explained_next_to_it(chromium: str, open_server: LiveServer) -> None:
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language("en")
        # A Cyrillic Т (ace) with a Latin S: the service's refusal, naming both readings.
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
        # An emoji variation selector after a suit symbol.
        page.cards("hand", ["K♠\ufe0f", "QS", "JS", "JC"])
        page.click("#hand-form button[type=submit]")
        page.wait("document.getElementById('hand-card-0-err').textContent")
        assert "K♠" in page.text("#hand-card-0-err")  # the service says what to write instead

        # Seven king of spades between two hands: no shoe holds them.
        page.view("showdown")
        page.cards("sd0", ["KS", "KS", "KS", "KS"])
        page.cards("sd1", ["KS", "KS", "KS", "QH"])
        page.click("#showdown-form button[type=submit]")
        page.wait("document.querySelector('#showdown-result .explain')")
        assert "No shoe can hold these hands" in page.text("#showdown-result")
        assert "7" in page.text("#showdown-err")
        assert "§1.7" in page.text("#showdown-result")

        # The betting form shows every error at once: a bad ante and a bad action amount.
        page.view("betting")
        page.type("bet-ante", "0")
        page.type("act-0-amount", "-3")
        page.click("#betting-form button[type=submit]")
        page.wait("document.getElementById('bet-ante-err').textContent")
        assert page.text("#bet-ante-err")
        assert page.text("#act-0-amount-err")
        page.type("bet-ante", "5")
        page.type("act-0-amount", "5")

        # Settlement: no hand boxes while three are still in; a bad card pointed at its input.
        page.view("settle")
        assert page.eval("document.querySelectorAll('#settle-hands fieldset').length") == 2
        page.view("betting")
        page.select("act-1-type", "stake")
        page.type("act-1-amount", "5")
        page.view("settle")
        assert page.eval("document.querySelectorAll('#settle-hands fieldset').length") == 0
        assert page.text("#settle-note")
        page.cards("odds", ["1S", "QS", "JS", "JC"])
        page.click("#odds-form button[type=submit]")
        page.wait("document.getElementById('odds-card-0-err').textContent")
        assert "unknown rank" in page.text("#odds-card-0-err")
        assert outside(cdp, open_server) == []
        assert unexpected_problems(cdp) == []


def test_percentiles_never_round_onto_100(chromium: str, open_server: LiveServer) -> None:
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language("ru")
        shares = page.browser.send("Runtime.evaluate", {
            "expression": "import('./adjudicate/static/i18n.js').then(m => "
                          "[99.95, 99.999, 100, 0.001, 0, 50].map(m.share))",
            "awaitPromise": True, "returnByValue": True})["result"]["value"]  # fmt: skip
        assert shares == ["99,95", "99,99", "100", "0,01", "0", "50"]
        page.view("settle")
        page.click("#odds-form button[type=submit]")
        page.wait("document.querySelector('#odds-result .bar')")
        assert "seed" not in page.text("#odds-result")
        assert foreign_words(page.visible_text(), "ru", WORDS["ru"]["names"]) == []


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
        # A wrong key: the page says it was refused, not that none is set.
        page.type("api-key", "not-the-key")
        page.click("#key-form button[type=submit]")
        page.click("#hand-form button[type=submit]")
        page.wait("document.getElementById('hand-err')?.textContent.includes('refused')")
        assert "needs an API key" not in page.text("#hand-err")
        assert "refused" in page.text("#key-status")
        page.type("api-key", api_key)
        page.click("#key-form button[type=submit]")
        assert page.text("#key-status") == "key set for this tab"
        assert cdp.evaluate("sessionStorage.getItem('qb-api-key')") == api_key
        assert cdp.evaluate("localStorage.length") == 0
        assert cdp.evaluate("document.getElementById('api-key').value") == ""
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result table.breakdown')")
        assert "10" in page.text("#hand-result .score")
        sent = sent_headers(cdp, "/v1/hands/score", "Authorization")
        assert sent == [None, "Bearer not-the-key", f"Bearer {api_key}"]
        page.click("#key-forget")
        assert cdp.evaluate("sessionStorage.getItem('qb-api-key')") is None
        assert outside(cdp, keyed_server) == []
        assert unexpected_problems(cdp) == []


CELL_BOXES = """[...document.querySelector('#betting-result table.timeline tbody tr').children]
  .map((c) => c.getBoundingClientRect()).map((r) => [Math.round(r.left), Math.round(r.top)])"""
"""Where each cell of the timeline's first step sits: [left, top] in CSS pixels."""

READ_WHOLE = {
    "hand": "#view-hand",
    "showdown": "#view-showdown",
    "betting": "#view-betting",
    "settle": "#settle-h, #view-settle > .hint, #settle-form, #settle-result",
    "odds": "#odds-h, #odds-form, #odds-result",
    "sheet": "#view-sheet",
}
"""Where each view's words are, by the view's name in the navigation (odds share settle's)."""
BOXES = ".result, .two > *, .breakdown-box, .card-inputs, #bet-actions tr"
"""The boxes a verdict or a form row is laid out in: what they hold stays inside them (a table
wider than a hand's box passes its frame, even when the page does not scroll sideways)."""


def read_whole(page: Page, view: str) -> list[str]:
    """At each of the widths: the words of ``view`` split inside a word, the page scrolling
    sideways, and a verdict's or an action's box that its content spills out of, one line each
    (returned, so one width's fault does not hide the rest)."""
    found = []
    page.view("settle" if view == "odds" else view)
    for width in WIDTHS:
        page.width(width)
        broken = page.broken_words(READ_WHOLE[view])
        if broken:
            found.append(f"{view} at {width} px breaks {sorted(set(broken))}")
        if page.sideways() > 0:
            found.append(f"{view} at {width} px scrolls sideways by {page.sideways()} px")
        spilling = page.overflowing(BOXES)
        if spilling:
            found.append(f"{view} at {width} px spills out of its box: {spilling}")
    page.width(DESKTOP)
    return found


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_a_phone_and_a_tablet_read_every_view_whole(
    lang: str, chromium: str, open_server: LiveServer, axe_source: str
) -> None:
    """At 390, 700, 768 and 1100 px no view breaks a word in two ("Ко|ронка", "Подвій|ний") nor
    scrolls sideways: a hand's breakdown, a showdown's two (long combination names, a trump's
    badge), the betting form and its timeline, a settlement with its hands, the odds, the sheet.
    On a phone each step of the betting timeline is a block of its own, the illegal step still
    marked, and each action row of the form shows the whole of its player's name and its action
    (a table of four columns squeezed into the screen cut them: "Оксан", "ставит"); from a tablet
    up both are tables. The dispute sheet's header cuts and spills nothing: a request id wraps
    inside its cell, on the screen and in print."""
    names: tuple[str, ...] = WORDS[lang]["names"]
    found: list[str] = []
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language(lang)

        # A hand with a doubled coronka and a bezique.
        page.cards("hand", WORDS[lang]["hand"])
        page.select("hand-trump", "S")
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result .badge')")
        found += read_whole(page, "hand")

        # Two hands with the longest names: a double bezique, a doubled coronka of three.
        page.view("showdown")
        page.cards("sd0", ["QS", "QS", "JC", "JC"])
        page.cards("sd1", ["KS", "QS", "JS", "JC"])
        page.select("showdown-trump", "S")
        page.click("#showdown-form button[type=submit]")
        page.wait("document.querySelectorAll('#showdown-result table.breakdown').length === 2")
        assert page.eval("document.querySelector('#showdown-result tr.mark-1 td:nth-child(2)')"
                         ".textContent") == WORDS[lang]["double"]  # fmt: skip
        found += read_whole(page, "showdown")

        # The example round settled (two hands shown), and the odds of a hand.
        page.view("settle")
        settle_now(page)
        assert page.eval("document.querySelectorAll('#settle-result table.breakdown').length") == 2
        page.click("#odds-form button[type=submit]")
        page.wait("document.querySelector('#odds-result .bar')")
        found += read_whole(page, "settle") + read_whole(page, "odds")

        # The betting form, then its timeline with an illegal step.
        page.view("betting")
        fields = "#bet-actions [data-field=player], #bet-actions [data-field=type]"
        assert page.eval(f"document.querySelectorAll({js(fields)}).length") == 6
        assert page.eval("document.getElementById('act-0-player').value") == names[0]
        for width in WIDTHS:
            page.width(width)
            cut = page.cut_fields(fields)
            if cut:
                found.append(f"action rows at {width} px cut {cut}")
        page.width(PHONE)
        # Every action the select offers fits it, not only the example's.
        for action in ("stake", "fold", "top_up", "open"):
            page.select("act-2-type", action)
            found += [f"at {PHONE} px: {cut}" for cut in page.cut_fields("#act-2-type")]
        page.select("act-2-type", "open")
        page.select("act-1-type", "stake")
        page.type("act-1-amount", "3")
        page.click("#betting-form button[type=submit]")
        page.wait("document.querySelector('#betting-result .illegal-box')")
        found += read_whole(page, "betting")
        timeline = "#betting-result table.timeline"
        for width in WIDTHS:
            page.width(width)
            cells = page.eval(CELL_BOXES)
            assert len(cells) == 7
            if width == PHONE:
                # A block: the step's number and action on its first line, its state below.
                assert cells[0][1] == cells[1][1] < cells[2][1] <= cells[6][1], cells
            else:
                # The table: the seven cells of a step side by side, left to right.
                assert len({top for _, top in cells}) == 1, cells
                assert [left for left, _ in cells] == sorted(left for left, _ in cells), cells
            illegal = page.eval(f"[...document.querySelectorAll('{timeline} tbody tr')]"
                                ".map(r => [r.classList.contains('illegal'), "
                                "getComputedStyle(r).backgroundColor])")  # fmt: skip
            assert [marked for marked, _ in illegal] == [False, False, True]
            assert illegal[2][1] not in (illegal[0][1], "rgba(0, 0, 0, 0)"), illegal
        page.width(PHONE)
        violations = page.axe_violations(axe_source)
        assert violations == [], json.dumps(violations, ensure_ascii=False, indent=1)

        page.view("sheet")
        page.wait("document.querySelector('#sheet table.meta')")
        found += read_whole(page, "sheet")
        header = "#sheet table.meta th, #sheet table.meta td, #sheet pre"
        for media in ("", "print"):
            cdp.send("Emulation.setEmulatedMedia", {"media": media})
            page.width(PHONE)
            assert page.overflowing(header) == [], f"cut at {PHONE} px ({media or 'screen'})"
            assert page.sideways() <= 0
        cdp.send("Emulation.setEmulatedMedia", {"media": ""})
        assert unexpected_problems(cdp) == []
    assert found == [], "\n".join(found)


def receipt_claims(receipt: str) -> dict[str, Any]:
    payload = receipt.split(".")[1]
    claims: dict[str, Any] = json.loads(
        base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    )
    return claims


def test_the_sheet_shows_the_receipt_and_its_request_digest(
    chromium: str, signed_server: LiveServer
) -> None:
    with browser(chromium) as cdp:
        page = Page(cdp, signed_server.url)
        page.open()
        page.language("ru")
        page.click("#hand-form button[type=submit]")
        page.wait("document.querySelector('#hand-result table.breakdown')")
        page.view("sheet")
        receipts = [e["params"]["response"]["headers"].get("Verdict-Receipt")
                    for e in cdp.events if e["method"] == "Network.responseReceived"
                    and e["params"]["response"]["url"].endswith("/v1/hands/score")]  # fmt: skip
        assert len(receipts) == 1 and receipts[0] and receipts[0].count(".") == 2  # a JWS
        sheet = page.text("#sheet")
        assert receipts[0] in sheet.replace("\n", "")
        claims = receipt_claims(receipts[0])
        digests = re.findall(r"\b[0-9a-f]{64}\b", sheet)
        assert page.text("#sheet td.digest") == claims["request_sha256"]
        # and the ruleset's (classic/1's, docs/rules.md §13.6), the one other digest on the sheet
        classic = "320d6499549929986ec6c9f0f71fb1c62c62dc53be1025d263366f6e8f9b5d4d"
        assert page.text("#sheet td.ruleset-sha") == classic
        assert sorted(digests) == sorted(
            [claims["request_sha256"], claims["response_sha256"], classic]
        )
        qr = page.eval("(() => { const s = document.querySelector('#sheet svg.qr'); return s "
                       "&& [s.getAttribute('role'), s.querySelector('path').getAttribute('d')"
                       ".length]; })()")  # fmt: skip
        assert qr and qr[0] == "img" and qr[1] > 1000
        assert foreign_words(page.visible_text(), "ru", WORDS["ru"]["names"]) == []
        # On a phone the request id, the digests and the receipt wrap inside their cells.
        page.width(PHONE)
        assert page.overflowing("#sheet th, #sheet td, #sheet pre") == []
        assert page.sideways() <= 0
        assert unexpected_problems(cdp) == []


def answer(server: LiveServer, path: str, payload: object, lang: str, status: int = 422) -> Any:
    """What the service answers to ``payload`` in ``lang`` (a problem document for 422)."""
    got, headers, body = server.request("POST", path, json.dumps(payload).encode(),
                                        {"Content-Type": "application/json",
                                         "Accept-Language": lang})  # fmt: skip
    assert got == status and headers["Content-Language"] == lang, body
    return json.loads(body)


def sentence(message: str) -> str:
    return message[:1].upper() + message[1:]


def messages(problem: dict[str, Any]) -> dict[str, str]:
    return {e["pointer"]: e["message"] for e in problem["errors"]}


WHERE = {"ru": "раздел «Торговля»", "uk": "розділ «Торгівля»", "en": "in the Betting round view"}
"""How a line names the view that holds the round's setup and actions."""
FIELDS = {
    "ru": {"/players": "Места", "/dealer": "Сдающий", "/ante": "Анте"},
    "uk": {"/players": "Місця", "/dealer": "Роздавач", "/ante": "Анте"},
    "en": {"/players": "Seats", "/dealer": "Dealer", "/ante": "Ante"},
}  # fmt: skip
STRANGER = {"ru": "Петя", "uk": "Петро", "en": "Pete"}


def example_round(names: tuple[str, ...]) -> dict[str, Any]:
    """The page's example round, as the page sends it."""
    return {"players": list(names), "dealer": names[2], "ante": 5,
            "actions": [{"player": names[0], "type": "stake", "amount": 5},
                        {"player": names[1], "type": "fold"},
                        {"player": names[2], "type": "open", "amount": 5}]}  # fmt: skip


def settle_now(page: Page) -> None:
    """Press Settle and wait for its answer (a table or a refusal)."""
    page.click("#settle-form button[type=submit]")
    page.wait("document.getElementById('settle-err').textContent "
              "|| document.querySelector('#settle-result table.payouts')")  # fmt: skip


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_refusals_say_it_once_and_name_their_field(
    lang: str, chromium: str, open_server: LiveServer
) -> None:
    """Each refusal is the service's own message once (no title or code name in front of a
    message that already says it); where its field has no input in the view shown, the line
    names the field and the view that holds it; several refusals are several lines. A verdict
    of a round that has since changed is taken away."""
    names: tuple[str, ...] = WORDS[lang]["names"]
    where = WHERE[lang]
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language(lang)
        rules = example_round(names)

        # Next to their inputs: the message alone.
        page.view("betting")
        page.type("bet-min", "10")
        page.type("bet-max", "5")
        page.click("#betting-form button[type=submit]")
        page.wait("document.getElementById('bet-max-err').textContent")
        limits = answer(open_server, "/v1/betting/validate",
                        {**rules, "minimum_stake": 10, "maximum_stake": 5}, lang)  # fmt: skip
        assert page.text("#bet-max-err") == messages(limits)["/maximum_stake"]
        page.type("bet-min", "")
        page.type("bet-max", "")
        page.type("bet-dealer", STRANGER[lang])
        page.click("#betting-form button[type=submit]")
        page.wait("document.getElementById('bet-dealer-err').textContent")
        stranger = answer(open_server, "/v1/betting/validate",
                          {**rules, "dealer": STRANGER[lang]}, lang)  # fmt: skip
        assert page.text("#bet-dealer-err") == messages(stranger)["/dealer"]
        page.type("bet-dealer", names[2])

        # A settled round, then the round changed in the Betting round view: the verdict goes.
        page.view("settle")
        settle_now(page)
        assert page.eval("document.querySelector('#settle-result table.payouts') !== null")
        page.view("betting")
        page.select("act-1-type", "stake")
        page.type("act-1-amount", "5")
        page.view("settle")
        assert page.text("#settle-note")
        assert page.text("#settle-result") == ""

        # Settling an unfinished round: the service's sentence once, and where to finish it.
        page.view("betting")
        page.click("#bet-actions tr:nth-child(3) button.remove")
        page.view("settle")
        settle_now(page)
        unfinished = {
            **rules,
            "actions": [
                {"player": names[0], "type": "stake", "amount": 5},
                {"player": names[1], "type": "stake", "amount": 5},
            ],
        }
        problem = answer(open_server, "/v1/rounds/settle",
                         {**unfinished, "trump": None, "hands": {}}, lang)  # fmt: skip
        assert problem["code"] == "ROUND_NOT_FINISHED"
        message = messages(problem)["/actions"]
        assert page.text("#settle-err") == f"{sentence(message)} ({where})"

        # The round finished again: the old refusal goes too.
        page.view("betting")
        page.select("act-1-type", "fold")
        page.click("#bet-add")
        page.type("act-2-player", names[2])
        page.select("act-2-type", "open")
        page.type("act-2-amount", "5")
        page.view("settle")
        assert page.text("#settle-err") == ""
        assert page.eval("document.querySelectorAll('#settle-hands fieldset').length") == 2

        # A hand missing: the sentence alone, next to that hand's cards.
        page.cards("st1", ["", "", "", ""])
        page.click("#settle-form button[type=submit]")
        page.wait("document.getElementById('st1-card-0-err').textContent")
        one_hand = answer(open_server, "/v1/rounds/settle", {
            **rules, "trump": None,
            "hands": {names[0]: ["KS", "QS", "JS", "JC"]}}, lang)  # fmt: skip
        assert one_hand["code"] == "HANDS_MISMATCH"
        assert page.text("#st1-card-0-err") == messages(one_hand)[f"/hands/{names[2]}"]
        assert page.text("#settle-err") == ""
        # Both missing: the sentence alone on the form's line (the hands are in this view).
        page.cards("st0", ["", "", "", ""])
        settle_now(page)
        no_hands = answer(open_server, "/v1/rounds/settle",
                          {**rules, "trump": None, "hands": {}}, lang)  # fmt: skip
        assert no_hands["code"] == "HANDS_MISMATCH"
        assert page.text("#settle-err") == sentence(messages(no_hands)["/hands"])

        # The ante left empty in the Betting round view: the field and the view are named.
        page.view("betting")
        page.type("bet-ante", "")
        page.view("settle")
        settle_now(page)
        no_ante = {k: v for k, v in rules.items() if k != "ante"}
        problem = answer(open_server, "/v1/rounds/settle",
                         {**no_ante, "trump": None, "hands": {}}, lang)  # fmt: skip
        assert list(messages(problem)) == ["/ante"]
        expected = f"{FIELDS[lang]['/ante']} ({where}): {messages(problem)['/ante']}"
        assert page.text("#settle-err") == expected

        # No seats and no dealer: one line for each, naming its field.
        page.view("betting")
        page.type("bet-ante", "5")
        page.type("bet-players", "")
        page.type("bet-dealer", "")
        page.view("settle")
        settle_now(page)
        problem = answer(open_server, "/v1/rounds/settle",
                         {**rules, "players": [], "dealer": "", "trump": None, "hands": {}},
                         lang)  # fmt: skip
        found = messages(problem)
        assert set(found) == {"/players", "/dealer"}
        lines = page.text("#settle-err").split("\n")
        assert sorted(lines) == sorted(
            f"{FIELDS[lang][pointer]} ({where}): {message}" for pointer, message in found.items()
        )

        # Seven kings of spades: the service's sentence, not the code's name before it.
        page.view("showdown")
        page.cards("sd0", ["KS", "KS", "KS", "KS"])
        page.cards("sd1", ["KS", "KS", "KS", "QH"])
        page.click("#showdown-form button[type=submit]")
        page.wait("document.getElementById('showdown-err').textContent")
        shoe = answer(open_server, "/v1/showdown", {"trump": None, "hands": [
            {"player": names[0], "cards": ["KS", "KS", "KS", "KS"]},
            {"player": names[1], "cards": ["KS", "KS", "KS", "QH"]}]}, lang)  # fmt: skip
        assert shoe["code"] == "SHOE_EXCEEDED"
        assert page.text("#showdown-err") == sentence(messages(shoe)["/hands"])
        page.view("sheet")  # the refusal's record says it the same way
        assert sentence(messages(shoe)["/hands"]) in page.text("#sheet .verdict-lines")
        assert unexpected_problems(cdp) == []


def test_a_language_switch_takes_old_refusals_away(chromium: str, open_server: LiveServer) -> None:
    """A refusal is the service's words in the language it was asked in; after a switch none
    is left in the old language (the next request is answered in the new one)."""
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language("ru")
        page.cards("hand", ["1♠", "Д♠", "В♠", "В♣"])
        page.click("#hand-form button[type=submit]")
        page.wait("document.getElementById('hand-card-0-err').textContent")
        page.view("showdown")
        page.cards("sd0", ["KS", "KS", "KS", "KS"])
        page.cards("sd1", ["KS", "KS", "KS", "QH"])
        page.click("#showdown-form button[type=submit]")
        page.wait("document.getElementById('showdown-err').textContent")
        assert page.text("#showdown-result .explain")
        page.view("betting")
        page.type("bet-ante", "")
        page.view("settle")
        settle_now(page)
        assert page.text("#settle-err")

        page.language("en")
        assert page.text("#settle-err") == ""
        foreign = foreign_words(page.visible_text(), "en", WORDS["ru"]["names"])
        page.view("showdown")
        assert page.text("#showdown-err") == "" and page.text("#showdown-result") == ""
        foreign += foreign_words(page.visible_text(), "en", WORDS["ru"]["names"])
        page.view("hand")
        assert page.text("#hand-card-0-err") == ""
        assert page.eval("document.querySelectorAll('[aria-invalid]').length") == 0
        foreign += foreign_words(page.visible_text(), "en", WORDS["ru"]["names"])
        assert foreign == []


def test_the_sheet_keeps_the_verdict_of_its_exchange(
    chromium: str, open_server: LiveServer
) -> None:
    """A verdict recorded in Ukrainian (the service's own sentence, naming the offender) reads
    the same after a switch to Russian: the sheet is a record of that exchange, in its language,
    and says which; a note in the page's language says why it did not change."""
    names: tuple[str, ...] = WORDS["uk"]["names"]
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language("uk")
        page.view("betting")
        page.type("act-0-player", names[1])  # Богдан acts out of turn
        page.click("#betting-form button[type=submit]")
        page.wait("document.querySelector('#betting-result .illegal-box')")
        sent = {**example_round(names), "trace": True}
        sent["actions"][0]["player"] = names[1]
        verdict = answer(open_server, "/v1/betting/validate", sent, "uk", status=200)
        said = verdict["error"]["message"]
        assert names[1] in said
        page.view("sheet")
        recorded = page.text("#sheet")
        assert said in recorded and "Мова протоколу\tукраїнська (Content-Language: uk)" in recorded
        assert page.eval("document.getElementById('sheet-kept').hidden")

        page.language("ru")
        assert page.text("#sheet") == recorded
        assert page.eval("document.getElementById('sheet').lang") == "uk"
        assert page.text("#sheet-kept").startswith("Протокол остаётся на украинском языке")
        assert foreign_words(page.visible_text(), "ru", names) == []
        page.language("en")
        assert page.text("#sheet") == recorded
        assert "stays in Ukrainian" in page.text("#sheet-kept")
        page.language("uk")
        assert page.text("#sheet") == recorded
        assert page.eval("document.getElementById('sheet-kept').hidden")


@pytest.mark.parametrize(("lang", "left"), [("ru", "В игре остаётся только"),
                                            ("uk", "У грі лишається тільки"),
                                            ("en", "Only")])  # fmt: skip
def test_the_last_player_left_is_told_without_gender(
    lang: str, left: str, chromium: str, open_server: LiveServer
) -> None:
    """The first seat (Аня, Оксана: women) is the only one left: the note fits any name."""
    names: tuple[str, ...] = WORDS[lang]["names"]
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language(lang)
        page.view("betting")
        page.select("act-2-type", "fold")
        page.view("settle")
        assert page.text("#settle-note").startswith(f"{left} {names[0]}")

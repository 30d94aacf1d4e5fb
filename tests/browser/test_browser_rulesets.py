"""The adjudication page's rules picker (docs/rules.md §13) in a real browser against the real
gunicorn server: one picker for the whole page, whose choice every verdict request carries.

The request bodies are read as Chromium sent them (the protocol's ``Network.requestWillBeSent``);
a refusal of the ruleset is provoked by rewriting a request on its way (``Fetch``), and a service
that lists no rulesets by answering ``GET /v1/rulesets`` in the browser with a 503.
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from quart_bezique.api.endpoints.adjudicate import STATIC_FOLDER

from tests.api.api_support import LiveServer
from tests.api.chromium_cdp import Browser, browser
from tests.browser.adjudicate_page import DESKTOP, PHONE, TABLET, Page, foreign_words, js

pytestmark = pytest.mark.browser

CATALOGS = {lang: json.loads((STATIC_FOLDER / "i18n" / f"{lang}.json").read_text("utf-8"))
            for lang in ("en", "ru", "uk")}  # fmt: skip

HAND = ["KS", "QS", "JS", "JC"]
LITERAL = {"three_aces": "0", "coronka": "from_king", "trump_doubles": "any_trump_card",
           "tie": "carry"}  # fmt: skip
CLASSIC = {"three_aces": "6", "coronka": "consecutive", "trump_doubles": "pure_trump",
           "tie": "split"}  # fmt: skip
CLASSIC_SHA = "320d6499549929986ec6c9f0f71fb1c62c62dc53be1025d263366f6e8f9b5d4d"
"""The digest docs/rules.md §13.6 gives for classic/1."""
NAMES = {"en": ("Ann", "Bob", "Dan"), "ru": ("Аня", "Боря", "Дима"),
         "uk": ("Оксана", "Богдан", "Тарас")}  # fmt: skip


def api(server: LiveServer, path: str, payload: object) -> Any:
    status, _, body = server.request(
        "POST", path, json.dumps(payload).encode(), {"Content-Type": "application/json"}
    )
    assert status == 200, body
    return json.loads(body)


def sent(cdp: Browser, path: str) -> list[str]:
    """The bodies of the POST requests to ``path`` the page has sent, in order, as sent."""
    found = []
    for event in cdp.events:
        if event["method"] != "Network.requestWillBeSent":
            continue
        request = event["params"]["request"]
        if request["method"] == "POST" and request["url"].endswith(path):
            found.append(request.get("postData", ""))
    return found


def last_sent(cdp: Browser, path: str) -> dict[str, Any]:
    bodies = sent(cdp, path)
    assert bodies, f"no request to {path}"
    body: dict[str, Any] = json.loads(bodies[-1])
    return body


@contextlib.contextmanager
def english_page(chromium: str, server: LiveServer) -> Iterator[tuple[Browser, Page]]:
    """Chromium on the adjudication page, in English."""
    with browser(chromium) as cdp:
        page = Page(cdp, server.url)
        page.open(accept_language="en")
        yield cdp, page


def preset(page: Page) -> str:
    """The picker's preset: a preset's id, or ``custom``."""
    return str(page.eval("document.getElementById('rules-preset').value"))


def texts(page: Page, selector: str, field: str = "textContent") -> list[Any]:
    """``field`` of every element ``selector`` matches, in document order."""
    found = page.eval(f"[...document.querySelectorAll({js(selector)})].map(e => e[{js(field)}])")
    return list(found)


def submit(page: Page, form: str) -> None:
    """Send the ``form`` form as it is and wait for its verdict's ruleset note."""
    page.click(f"#{form}-form button[type=submit]")
    page.wait(f"document.querySelector('#{form}-result .ruleset-note')")


def sheet(page: Page) -> str:
    """The sheet's text, its view opened."""
    page.view("sheet")
    return page.text("#sheet")


def open_picker(page: Page) -> None:
    page.eval("document.getElementById('rules-box').open = true")


def switches(page: Page) -> dict[str, str]:
    return dict(
        page.eval(
            "[...document.querySelectorAll('#rules-switches select')]"
            ".map(s => [s.dataset.switch, s.value])"
        )
    )


def score(page: Page, ruleset_id: str, trump: str = "S") -> str:
    """Score the example hand and wait for the verdict named ``ruleset_id``; its score line."""
    page.view("hand")
    page.cards("hand", HAND)
    page.select("hand-trump", trump)
    page.eval("document.getElementById('hand-result').replaceChildren()")
    page.click("#hand-form button[type=submit]")
    note = "document.querySelector('#hand-result .ruleset-note code')?.textContent"
    page.wait(f"{note} === {js(ruleset_id)}")
    return page.text("#hand-result .score")


def test_rules_13_5_literal_scores_ks_qs_js_jc_trump_spades_20_where_classic_gives_16(
    chromium: str, open_server: LiveServer
) -> None:
    literal = api(open_server, "/v1/hands/score",
                  {"cards": HAND, "trump": "S", "ruleset": "literal/1"})  # fmt: skip
    assert literal["score"] == 20 and literal["ruleset"] == "literal/1"
    with english_page(chromium, open_server) as (cdp, page):
        assert preset(page) == "classic/1"
        assert switches(page) == CLASSIC
        assert "16" in score(page, "classic/1")

        page.select("rules-preset", "literal/1")
        assert switches(page) == LITERAL  # the preset sets every switch
        assert page.text("#rules-summary-id") == "literal/1"
        assert "20" in score(page, "literal/1")
        assert last_sent(cdp, "/v1/hands/score") == {
            "cards": HAND, "trump": "S", "ruleset": "literal/1"}  # fmt: skip
        # The verdict names its ruleset and the digest the service gave, shortened; whole in
        # the tooltip.
        digest = page.eval("document.querySelectorAll('#hand-result .ruleset-note code')[1].title")
        assert digest == literal["ruleset_sha256"]
        assert literal["ruleset_sha256"][:12] in page.text("#hand-result .ruleset-note")
        # Any trump card doubles (§13.3): the bezique Q♠ J♣ is marked doubled as well.
        assert page.eval("document.querySelectorAll('#hand-result .badge').length") == 2

        page.select("rules-preset", "classic/1")
        assert switches(page) == CLASSIC
        assert "16" in score(page, "classic/1")
        assert "ruleset" not in last_sent(cdp, "/v1/hands/score")


def test_rules_13_6_a_changed_switch_sends_only_the_difference_from_its_preset(
    chromium: str, open_server: LiveServer
) -> None:
    with english_page(chromium, open_server) as (cdp, page):
        open_picker(page)

        page.select("rules-tie", "carry")
        assert preset(page) == "custom"
        assert page.text("#rules-summary-id") == "classic/1:tie=carry"
        score(page, "classic/1:tie=carry")
        assert last_sent(cdp, "/v1/hands/score")["ruleset"] == {"base": "classic/1", "tie": "carry"}

        page.select("rules-preset", "literal/1")
        page.select("rules-three_aces", "6")
        expected = "classic/1:coronka=from_king,tie=carry,trump_doubles=any_trump_card"
        assert page.text("#rules-summary-id") == expected
        score(page, expected)
        assert last_sent(cdp, "/v1/hands/score")["ruleset"] == {
            "base": "literal/1", "three_aces": 6}  # fmt: skip
        answer = api(open_server, "/v1/hands/score", last_sent(cdp, "/v1/hands/score"))
        assert answer["ruleset"] == expected

        # Back at the preset's values: the preset again, sent by its name.
        page.select("rules-three_aces", "0")
        assert preset(page) == "literal/1"
        score(page, "literal/1")
        assert last_sent(cdp, "/v1/hands/score")["ruleset"] == "literal/1"

        # The keyboard alone: the switch's select takes arrow keys, the choice is custom again.
        page.eval("document.getElementById('rules-coronka').focus()")
        up = {"key": "ArrowUp", "code": "ArrowUp", "windowsVirtualKeyCode": 38}
        for kind in ("keyDown", "keyUp"):
            cdp.send("Input.dispatchKeyEvent", {"type": kind, **up})
        page.wait("document.getElementById('rules-coronka').value === 'consecutive'")
        assert page.eval("document.activeElement.id") == "rules-coronka"
        assert preset(page) == "custom"

        # The choice is the tab's, as its language is: kept over a reload.
        cdp.events[:] = [e for e in cdp.events if e["method"] != "Page.loadEventFired"]
        page.open()
        assert (
            page.text("#rules-summary-id")
            == "classic/1:three_aces=0,tie=carry,trump_doubles=any_trump_card"
        )
        assert switches(page) == {**LITERAL, "coronka": "consecutive"}


def test_the_default_sends_no_ruleset(chromium: str, open_server: LiveServer) -> None:
    """classic/1 unchanged: every view's requests are what they were before rulesets, with no
    ``ruleset`` member; the verdicts still name classic/1 and its digest."""
    with english_page(chromium, open_server) as (cdp, page):
        page.select("rules-preset", "literal/1")
        page.select("rules-preset", "classic/1")  # there and back: the default again

        score(page, "classic/1", trump="")
        assert sent(cdp, "/v1/hands/score") == ['{"cards":["KS","QS","JS","JC"],"trump":null}']
        assert CLASSIC_SHA[:12] in page.text("#hand-result .ruleset-note")

        page.view("showdown")
        submit(page, "showdown")
        page.view("betting")
        submit(page, "betting")
        page.view("settle")
        submit(page, "settle")
        submit(page, "odds")  # on the settle view too
        paths = ("/v1/showdown", "/v1/betting/validate", "/v1/rounds/settle", "/v1/hands/odds")
        for path in paths:
            bodies = [json.loads(body) for body in sent(cdp, path)]
            assert bodies and all("ruleset" not in body for body in bodies), path
        for box in ("showdown", "betting", "settle", "odds"):
            assert "classic/1" in page.text(f"#{box}-result .ruleset-note"), box


def test_rules_13_4_a_tied_settlement_under_tie_carry_carries_the_pot(
    chromium: str, open_server: LiveServer
) -> None:
    with english_page(chromium, open_server) as (cdp, page):
        page.select("rules-tie", "carry")
        page.view("settle")
        page.cards("st0", ["KS", "QS", "JS", "JC"])
        page.cards("st1", ["KH", "QH", "JH", "JD"])
        page.click("#settle-form button[type=submit]")
        page.wait("document.querySelector('#settle-result .verdict.carried')")
        body = last_sent(cdp, "/v1/rounds/settle")
        assert body["ruleset"] == {"base": "classic/1", "tie": "carry"}
        answer = api(open_server, "/v1/rounds/settle", body)
        assert answer["carried"] == 25 and answer["winners"] == []
        verdict = page.text("#settle-result .verdict")
        assert "nobody is paid" in verdict and "25" in verdict
        assert "carried to the next round" in verdict
        assert "odd chip" not in page.text("#settle-result")
        payouts = texts(page, "#settle-result table.payouts tbody tr td:nth-child(2)")
        assert payouts == ["0", "0", "0"]
        assert "classic/1:tie=carry" in page.text("#settle-result .ruleset-note")
        assert "§13.4" in page.text("#settle-result .sections")

        # In Russian the carried pot is «свара»; the same answer, re-rendered.
        page.language("ru")
        verdict = page.text("#settle-result .verdict")
        assert "свара" in verdict and "25" in verdict


def test_the_sheet_shows_the_ruleset_id_and_its_whole_digest(
    chromium: str, open_server: LiveServer
) -> None:
    with english_page(chromium, open_server) as (cdp, page):
        # The odds work under every ruleset: they send it, and the verdict names it.
        page.select("rules-preset", "literal/1")
        page.view("settle")
        page.cards("odds", ["KH", "QH", "9S", "10D"])
        submit(page, "odds")
        body = last_sent(cdp, "/v1/hands/odds")
        assert body["ruleset"] == "literal/1"
        odds = api(open_server, "/v1/hands/odds", body)
        assert "literal/1" in page.text("#odds-result .ruleset-note")
        shown = sheet(page)
        assert "literal/1" in shown and odds["ruleset_sha256"] in shown
        assert "§13.5" in shown  # the preset's rule among the sections applied

        # The default's verdict: no digest in its answer, the sheet gives classic/1's anyway.
        page.select("rules-preset", "classic/1")
        score(page, "classic/1")
        shown = sheet(page)
        assert "classic/1" in shown and CLASSIC_SHA in shown and "§13" not in shown


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_the_picker_in_every_language_reads_whole(
    lang: str, chromium: str, open_server: LiveServer, axe_source: str
) -> None:
    """Every label and every value of the picker in the page's language (nothing of another),
    each select wide enough for every value it offers, no sideways scroll at 390 or 768 px,
    axe-core clean."""
    catalog = CATALOGS[lang]
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language(lang)
        open_picker(page)
        labels = page.eval("[...document.querySelectorAll('#rules-box label')]"
                           ".map(l => [l.htmlFor, l.textContent])")  # fmt: skip
        assert labels == [["rules-preset", catalog["rules.preset"]]] + [
            [f"rules-{name}", catalog[f"rules.{name}"]] for name in CLASSIC
        ]
        options = texts(page, "#rules-switches option")
        assert options == [catalog[f"rules.{name}.{value}"] for name, values in (
            ("three_aces", ("6", "0")), ("coronka", ("consecutive", "from_king")),
            ("trump_doubles", ("pure_trump", "any_trump_card")),
            ("tie", ("split", "carry")))
            for value in values]  # fmt: skip
        presets = texts(page, "#rules-preset option")
        assert presets == [catalog["rules.preset.classic"], catalog["rules.preset.literal"],
                           catalog["rules.preset.custom"]]  # fmt: skip
        assert page.text("#rules-tie-about").startswith(catalog["rules.tie.split.about"])

        found = []
        for choice in ("literal/1", "classic/1"):
            page.select("rules-preset", choice)
            for width in (PHONE, TABLET, DESKTOP):
                page.width(width)
                assert page.sideways() <= 0, f"{choice} scrolls sideways at {width} px"
                found += page.cut_fields("#rules-box select")
                found += page.overflowing("#rules-box p, #rules-box summary")
                found += foreign_words(page.visible_text(), lang, NAMES[lang])
        page.select("rules-tie", "carry")
        assert page.text("#rules-chosen") == catalog["rules.preset.custom"]
        found += foreign_words(page.visible_text(), lang, NAMES[lang])
        assert found == []
        for width in (PHONE, DESKTOP):
            page.width(width)
            assert page.axe_violations(axe_source) == []


def rewrite_next_request(cdp: Browser, change: dict[str, Any]) -> None:
    """Let the next paused request go on with ``change`` merged into its JSON body."""
    paused = cdp.wait_for_event("Fetch.requestPaused")
    cdp.events.remove(paused)
    body = json.loads(paused["params"]["request"]["postData"]) | change
    data = base64.b64encode(json.dumps(body).encode()).decode()
    cdp.send("Fetch.continueRequest",
             {"requestId": paused["params"]["requestId"], "postData": data})  # fmt: skip


def test_a_refused_ruleset_is_shown_at_the_picker_in_the_pages_language(
    chromium: str, open_server: LiveServer
) -> None:
    """A 422 whose pointer is /ruleset/... is shown next to the switch it names, in the page's
    words, the picker opened; the form says where to look. The next request takes it away."""
    ru = CATALOGS["ru"]
    with browser(chromium) as cdp:
        page = Page(cdp, open_server.url)
        page.open()
        page.language("ru")
        assert not page.eval("document.getElementById('rules-box').open")
        cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*/v1/hands/score"}]})
        page.click("#hand-form button[type=submit]")
        rewrite_next_request(cdp, {"ruleset": {"base": "classic/1", "tie": "share"}})
        page.wait("document.getElementById('rules-tie-err').textContent")
        assert page.text("#rules-tie-err") == ru["rules.error.INVALID_SWITCH_VALUE"]
        assert page.eval("document.getElementById('rules-tie').getAttribute('aria-invalid')")
        assert page.eval("document.getElementById('rules-box').open")
        assert page.text("#hand-err") == ru["rules.refused"]

        page.click("#hand-form button[type=submit]")
        rewrite_next_request(cdp, {"ruleset": "classic/9"})
        page.wait("document.getElementById('rules-preset-err').textContent")
        assert page.text("#rules-preset-err") == ru["rules.error.UNKNOWN_RULESET"]
        assert page.text("#rules-tie-err") == ""  # the old refusal taken away
        cdp.send("Fetch.disable")

        score(page, "classic/1")
        assert page.text("#rules-preset-err") == ""
        assert not page.eval("document.getElementById('rules-preset').hasAttribute('aria-invalid')")


def test_the_page_works_when_the_service_lists_no_rulesets(
    chromium: str, open_server: LiveServer
) -> None:
    """GET /v1/rulesets failing: the page's own two presets, and literal/1 still scores 20."""
    with browser(chromium) as cdp:
        cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*/v1/rulesets"}]})
        cdp.send("Page.navigate", {"url": f"{open_server.url}/adjudicate"})
        paused = cdp.wait_for_event("Fetch.requestPaused", timeout=60)
        cdp.send("Fetch.fulfillRequest", {
            "requestId": paused["params"]["requestId"], "responseCode": 503,
            "responseHeaders": [{"name": "Content-Type", "value": "text/plain"}],
            "body": base64.b64encode(b"unavailable").decode()})  # fmt: skip
        cdp.send("Fetch.disable")
        page = Page(cdp, open_server.url)
        page.wait("document.body.dataset.ready === 'true'")
        presets = texts(page, "#rules-preset option", "value")
        assert presets == ["classic/1", "literal/1", "custom"]
        page.select("rules-preset", "literal/1")
        assert "20" in score(page, "literal/1")

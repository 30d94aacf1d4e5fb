"""Driving the adjudication page in Chromium the way a person does: typing into inputs (CDP's
``Input.insertText``, which fires the same input events as a keyboard), clicking buttons, and
waiting for what the page shows, on a phone's width or a desktop's. Also axe-core, injected
through the protocol, never fetched, and the words a person sees, for the one-language check.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from tests.api.chromium_cdp import Browser

IMPACTS_REFUSED = ("serious", "critical")
PHONE = 390
SMALL_TABLET = 700
TABLET = 768
DESKTOP = 1100
WIDTHS = (PHONE, SMALL_TABLET, TABLET, DESKTOP)
"""The screens every view must read whole on: a phone, a small and a usual tablet, a desktop."""

VISIBLE_TEXT = """(() => {
  const lang = document.documentElement.lang;
  const out = [];
  const shown = (node) => node.getClientRects().length > 0 || node.closest('.sr');
  const skip = (node) => node.closest('pre, .mono, [hidden]')
    || (node.closest('[lang]') && node.closest('[lang]').getAttribute('lang') !== lang);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (!parent || parent.closest('script, style, noscript, datalist') || skip(parent)) continue;
    if (!shown(parent)) continue;
    out.push(n.textContent);
  }
  for (const node of document.querySelectorAll('input, select, [aria-label], [title]')) {
    if (skip(node) || !shown(node)) continue;
    if (node.matches('input:not([type=password])')) out.push(node.value);
    if (node.matches('select')) out.push(node.selectedOptions[0]?.textContent || '');
    for (const name of ['aria-label', 'title']) {
      if (node.getAttribute(name)) out.push(node.getAttribute(name));
    }
  }
  return out.join('\\n');
})()"""
"""Every text a person sees (and what screen readers read) in the page's language: text nodes,
input values, chosen options, labels and tooltips; code (``pre``, ``.mono``) and elements in
another language (the language switch's own names) left out."""

BROKEN_WORDS = """((selector) => {
  const out = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement?.closest('pre, .mono')) continue;
      for (const m of n.textContent.matchAll(/[\\p{L}\\p{N}]+/gu)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (lines.size > 1) out.push(m[0]);
      }
    }
  }
  return out;
})"""
"""The words (runs of letters and digits) under ``selector`` that a person sees split across
lines: a word whose range lies on more than one line was broken inside it. Code (``pre``,
``.mono``: a digest, a receipt, the request as sent) is left out: it has no words to keep."""

OVERFLOWING = """((selector) => [...document.querySelectorAll(selector)]
  .filter((cell) => cell.getClientRects().length && (cell.scrollWidth > cell.clientWidth
    || cell.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5))
  .map((cell) => `${cell.textContent.slice(0, 40)}: ${cell.scrollWidth} > ${cell.clientWidth}`
    + ` or right ${cell.getBoundingClientRect().right}`))"""
"""The elements matching ``selector`` whose content is wider than their box, or whose box passes
the screen's right edge (cut or spilling)."""

CUT_FIELDS = """((selector) => [...document.querySelectorAll(selector)]
  .filter((field) => field.getClientRects().length).flatMap((field) => {
    const has = field.getBoundingClientRect().width;
    if (field.matches('select')) {
      // The same select holding only its chosen option, as wide as it wants: the width its text
      // needs, with the select's own padding, border and arrow.
      const chosen = field.selectedOptions[0];
      const probe = field.cloneNode(false);
      probe.removeAttribute('id');
      probe.append(chosen.cloneNode(true));
      Object.assign(probe.style, {width: 'auto', minWidth: '0', maxWidth: 'none',
        position: 'absolute', visibility: 'hidden'});
      field.parentElement.append(probe);
      const needed = probe.getBoundingClientRect().width;
      probe.remove();
      const text = chosen.textContent;
      return needed > has + 1 ? [`${field.id} "${text}": needs ${needed}, has ${has}`] : [];
    }
    return field.scrollWidth > field.clientWidth + 1
      ? [`${field.id} "${field.value}": ${field.scrollWidth} > ${field.clientWidth}`] : [];
  }))"""
"""The inputs and selects matching ``selector`` that cut off what they hold: an input whose value
is wider than its box, a select too narrow for the text of its chosen option."""

WORD = re.compile(r"[^\W\d_]+(?:[ʼ'’][^\W\d_]+)*")
LATIN = re.compile(r"[A-Za-z]")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")
ONLY = {"uk": re.compile(r"[іїєґІЇЄҐ]"), "ru": re.compile(r"[ыэъёЫЭЪЁ]")}
"""Letters one of the two Cyrillic languages has and the other has not."""
LATIN_ALLOWED = {"API", "SHA", "UTC", "HTTP", "HTTPS", "PDF", "QR", "A"}
"""Latin words a Russian or Ukrainian view may show: acronyms, and A of the A4 paper size."""
CARD_CODE = re.compile(r"(?:10|9|[AKQJT])?[SCHD]?|(?:10|9|[AKQJT])[SCHDscdh]")
RUSSIAN_CARD_LETTER = re.compile(r"[ТКДВПЧБ]")
"""A rank or suit letter of the Russian card notation, which the service's English texts name."""


def foreign_words(text: str, lang: str, names: tuple[str, ...] = ()) -> list[str]:
    """The words of ``text`` that belong to another language than ``lang``: Latin words in a
    Russian or Ukrainian view (acronyms, card codes and ``names`` aside), Cyrillic ones in an
    English view (``names`` aside), and words with letters only the other of ru and uk has."""
    found = []
    for word in WORD.findall(text):
        if word in names:
            continue
        if lang == "en":
            if CYRILLIC.search(word) and not RUSSIAN_CARD_LETTER.fullmatch(word):
                found.append(word)
        elif LATIN.search(word):
            if word not in LATIN_ALLOWED and not CARD_CODE.fullmatch(word):
                found.append(word)
        elif ONLY["uk" if lang == "ru" else "ru"].search(word):
            found.append(word)
    return sorted(set(found))


def js(value: object) -> str:
    """A Python value as a JavaScript literal."""
    return json.dumps(value, ensure_ascii=False)


class Page:
    def __init__(self, browser: Browser, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url

    def open(self, accept_language: str | None = None) -> None:
        if accept_language is not None:
            self.browser.send(
                "Emulation.setUserAgentOverride",
                {
                    "userAgent": "Mozilla/5.0 (adjudicate-test) Chrome",
                    "acceptLanguage": accept_language,
                },
            )
        self.browser.send("Page.navigate", {"url": f"{self.base_url}/adjudicate"})
        self.browser.wait_for_event("Page.loadEventFired")
        self.wait("document.body.dataset.ready === 'true'")

    def wait(self, expression: str, timeout: float = 60) -> Any:
        return self.browser.wait_until(f"!!({expression})", timeout=timeout)

    def eval(self, expression: str) -> Any:
        return self.browser.evaluate(expression)

    def text(self, selector: str) -> str:
        return str(self.eval(f"document.querySelector({js(selector)})?.innerText ?? ''"))

    def click(self, selector: str) -> None:
        found = self.eval(f"(() => {{ const n = document.querySelector({js(selector)}); "
                          f"if (!n) return false; n.click(); return true; }})()")  # fmt: skip
        assert found, f"nothing to click at {selector}"

    def type(self, element_id: str, text: str) -> None:
        """Clear an input and type ``text`` into it."""
        node = f"document.getElementById({js(element_id)})"
        focused = self.eval(f"(() => {{ const n = {node}; if (!n) return false; "
                            "n.value = ''; n.focus(); return true; })()")  # fmt: skip
        assert focused, f"no input {element_id}"
        if text:
            self.browser.send("Input.insertText", {"text": text})

    def select(self, element_id: str, value: str) -> None:
        node = f"document.getElementById({js(element_id)})"
        self.eval(f"(() => {{ const n = {node}; n.value = {js(value)}; "
                  "n.dispatchEvent(new Event('change', {bubbles: true})); })()")  # fmt: skip

    def view(self, name: str) -> None:
        self.click(f'[data-view="{name}"]')
        self.wait(f"!document.getElementById('view-{name}').hidden")

    def language(self, lang: str) -> None:
        self.click(f"#lang-{lang}")
        self.wait(f"document.documentElement.lang === {js(lang)}")

    def cards(self, prefix: str, cards: list[str]) -> None:
        for i, card in enumerate(cards):
            self.type(f"{prefix}-card-{i}", card)

    def axe_violations(self, source: str) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations of the page as it is now."""
        if not self.eval("typeof window.axe === 'object'"):
            self.eval(source + "\n;true")
        result = self.browser.send(
            "Runtime.evaluate",
            {
                "expression": "axe.run(document, {resultTypes: ['violations']})"
                ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
                " nodes: v.nodes.map(n => n.target.join(' '))})))",
                "awaitPromise": True,
                "returnByValue": True,
            },
            timeout=120,
        )
        violations: list[dict[str, Any]] = result["result"]["value"]
        return [v for v in violations if v["impact"] in IMPACTS_REFUSED]

    def width(self, width: int, height: int = 820) -> None:
        """Lay the page out as on a screen ``width`` CSS pixels wide (a phone below 500)."""
        self.browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500},
        )

    def sideways(self) -> int:
        """How many CSS pixels the page is wider than the screen (0: no sideways scroll). The
        screen is the layout viewport (``clientWidth``): on an emulated phone ``innerWidth`` grows
        with a page too wide for it, and measured against it nothing ever scrolled sideways."""
        root = "document.documentElement"
        return int(self.eval(f"{root}.scrollWidth - {root}.clientWidth"))

    def broken_words(self, selector: str) -> list[str]:
        """The words under ``selector`` split across lines inside the word."""
        return list(self.eval(f"{BROKEN_WORDS}({js(selector)})"))

    def overflowing(self, selector: str) -> list[str]:
        """The elements matching ``selector`` whose content is wider than their box."""
        return list(self.eval(f"{OVERFLOWING}({js(selector)})"))

    def cut_fields(self, selector: str) -> list[str]:
        """The inputs and selects matching ``selector`` that do not show their whole value."""
        return list(self.eval(f"{CUT_FIELDS}({js(selector)})"))

    def visible_text(self) -> str:
        return str(self.eval(VISIBLE_TEXT))

    def screenshot(self, width: int = DESKTOP, height: int = 820) -> bytes:
        self.width(width, height)
        data = self.browser.send("Page.captureScreenshot", {"format": "png"})["data"]
        return base64.b64decode(data)

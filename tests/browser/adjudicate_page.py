"""Driving the adjudication page in Chromium the way a person does: typing into inputs (CDP's
``Input.insertText``, which fires the same input events as a keyboard), clicking buttons, and
waiting for what the page shows. Also axe-core, injected through the protocol, never fetched.
"""

from __future__ import annotations

import json
from typing import Any

from tests.api.chromium_cdp import Browser

IMPACTS_REFUSED = ("serious", "critical")


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

    def screenshot(self, width: int = 1100, height: int = 820) -> bytes:
        return self.browser.screenshot(width, height)

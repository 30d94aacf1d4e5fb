"""The docs page in a real browser: headless Chromium loads /docs from the running gunicorn server
with the network otherwise closed; every operation must be listed, nothing fetched from elsewhere,
nothing broken (console errors, CSP violations, failed loads). The screenshot kept in
docs/docs-page.png is the one the README shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.api.api_support import LiveServer
from tests.api.chromium_cdp import browser, install_chromium

pytestmark = pytest.mark.browser

OPERATIONS_JS = """
[...document.querySelectorAll('.opblock')].map(block =>
  block.querySelector('.opblock-summary-method').textContent.trim() + ' ' +
  block.querySelector('.opblock-summary-path').getAttribute('data-path'))
"""


@pytest.fixture(scope="module")
def chromium() -> str:
    executable = install_chromium()
    if executable is None:
        pytest.skip("chromium is not installed and cannot be (needs root and apt-get)")
    return executable


def documented_operations(repo_root: Path) -> set[str]:
    spec = yaml.safe_load((repo_root / "openapi.yaml").read_text(encoding="utf-8"))
    return {f"{method.upper()} {path}" for path, item in spec["paths"].items() for method in item}


def test_docs_page_lists_every_operation_offline(
    chromium: str, live_server: LiveServer, repo_root: Path
) -> None:
    expected = documented_operations(repo_root)
    with browser(chromium) as page:
        page.send("Page.navigate", {"url": f"{live_server.url}/docs"})
        page.wait_for_event("Page.loadEventFired")
        count = f"document.querySelectorAll('.opblock').length >= {len(expected)}"
        page.wait_until(count)
        listed = page.evaluate(OPERATIONS_JS)
        title = page.evaluate("document.querySelector('.info .title').textContent")
        height = page.evaluate("document.documentElement.scrollHeight")
        png = page.screenshot(1280, max(900, min(int(height), 4000)))
        urls = page.requested_urls()
        problems = page.problems()

    assert set(listed) == expected
    assert len(listed) == len(expected)
    assert "Quart-Bezique adjudication service" in title
    outside = [u for u in urls if not u.startswith(live_server.url + "/") and not
               u.startswith(("data:", "blob:", "about:"))]  # fmt: skip
    assert outside == [], f"fetched from outside the service: {outside}"
    assert f"{live_server.url}/openapi.json" in urls
    assert problems == []
    assert png.startswith(b"\x89PNG")
    (repo_root / "docs").mkdir(exist_ok=True)
    (repo_root / "docs" / "docs-page.png").write_bytes(png)

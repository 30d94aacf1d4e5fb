"""The README's Python examples are run as doctests: the library API works as documented."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_examples_run_as_shown() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "the README shows the library API"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    globs: dict[str, object] = {}
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, globs, f"README block {i}", str(README), 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_readme_curl_examples_show_the_real_answers() -> None:
    """Every ``$ curl`` in the README, replayed against the app: same status family, same JSON."""
    import json
    import shlex

    from quart_bezique.api.app import create_app
    from quart_bezique.api.config import Config

    client = create_app(Config()).test_client()
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```console\n(.*?)```", text, re.S)
    assert block, "the README shows curl examples"
    lines = block.group(1).splitlines()
    checked = 0
    for i, line in enumerate(lines):
        if not line.startswith("$ curl") or "| head" in line:
            continue
        words = shlex.split(line[2:])
        url = next(w for w in words if w.startswith("localhost:8000"))
        path = url.removeprefix("localhost:8000")
        shown = json.loads(lines[i + 1])
        if "-d" in words:
            body = words[words.index("-d") + 1]
            response = client.post(path, data=body, content_type="application/json")
        else:
            response = client.get(path)
        assert response.get_json() == shown, line
        checked += 1
    assert checked >= 8

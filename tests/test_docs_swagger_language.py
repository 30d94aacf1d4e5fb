"""The docs page's Try-it-out asks in the language the integrator types, and in no other.

Swagger UI fills a header parameter with its schema's example (the contract's Accept-Language
example is Russian) and a browser adds its own Accept-Language: either made an English
integrator's first 422 Russian. ``static/docs.js`` is run here by Node with a stand-in for Swagger
UI, on the contract the app serves; without Node it skips, except under CI
(``QB_CONTAINER_TEST_REQUIRED=1``), where a skip would hide a regression.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config

DOCS_JS = (
    Path(__file__).resolve().parent.parent / "service/quart_bezique/api/endpoints/static/docs.js"
)
HARNESS = r"""
const fs = require("fs"), vm = require("vm");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
let config = null, onLoad = null;
const context = {
  window: { addEventListener: (name, f) => { if (name === "load") onLoad = f; } },
  SwaggerUIBundle: Object.assign((c) => { config = c; return {}; }, { presets: { apis: {} } }),
};
vm.runInNewContext(fs.readFileSync(input.script, "utf8"), context);
onLoad();
const loaded = config.responseInterceptor({
  ok: true, url: "http://127.0.0.1/openapi.json", text: input.spec,
});
const sent = input.requests.map((r) => config.requestInterceptor(r).headers);
process.stdout.write(JSON.stringify({ spec: JSON.parse(loaded.text), sent: sent }));
"""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("QB_CONTAINER_TEST_REQUIRED") == "1":
            pytest.fail("Node.js is needed to run the docs page's script (CI requires it)")
        pytest.skip("Node.js is not installed: the docs page's script is not run")
    return node


def _run(requests: list[dict[str, Any]]) -> dict[str, Any]:
    client = create_app(Config(), audit_sink=lambda line: None).test_client()
    spec = client.get("/openapi.json").get_data(as_text=True)
    payload = json.dumps({"script": str(DOCS_JS), "spec": spec, "requests": requests})
    ran = subprocess.run(
        [_node(), "-e", HARNESS],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, Any] = json.loads(ran.stdout)
    return result


def _language_parameters(spec: dict[str, Any]) -> list[dict[str, Any]]:
    shared = list(spec["components"]["parameters"].values())
    inline = [
        parameter
        for item in spec["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
        for parameter in operation.get("parameters", [])
    ]
    return [p for p in shared + inline if p.get("name", "").lower() == "accept-language"]


def test_the_contract_has_an_example_swagger_ui_would_fill_in() -> None:
    """What the script works around: without it, Try-it-out starts with a Russian header."""
    client = create_app(Config(), audit_sink=lambda line: None).test_client()
    spec = client.get("/openapi.json").get_json()
    (parameter,) = _language_parameters(spec)
    assert parameter["schema"]["example"].startswith("ru")


def test_try_it_out_fills_in_no_language() -> None:
    spec = _run([])["spec"]
    (parameter,) = _language_parameters(spec)
    assert "example" not in parameter and "examples" not in parameter
    assert "example" not in parameter["schema"]
    assert "For example: `ru-RU,ru;q=0.9,en;q=0.8`." in parameter["description"]


def test_a_request_asks_only_for_the_language_typed() -> None:
    sent = _run(
        [
            {"url": "/v1/hands/score", "headers": {"Content-Type": "application/json"}},
            {"url": "/v1/hands/score", "headers": {"Accept-Language": ""}},
            {"url": "/v1/hands/score", "headers": {"Accept-Language": "ru"}},
            {"url": "/v1/hands/score", "headers": {"accept-language": "en-GB"}},
        ]
    )["sent"]
    assert sent == [
        {"Content-Type": "application/json", "Accept-Language": "*"},
        {"Accept-Language": "*"},
        {"Accept-Language": "ru"},
        {"accept-language": "en-GB"},
    ]


def test_what_an_empty_field_sends_is_answered_in_english() -> None:
    client = create_app(Config(), audit_sink=lambda line: None).test_client()
    bad = {"cards": ["KS"]}
    answered = client.post("/v1/hands/score", json=bad, headers={"Accept-Language": "*"})
    unasked = client.post("/v1/hands/score", json=bad)
    assert answered.status_code == 422
    assert answered.headers["Content-Language"] == "en"
    assert answered.get_data() == unasked.get_data()

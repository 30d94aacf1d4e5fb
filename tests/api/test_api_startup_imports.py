"""What a worker loads to get ready: not the OpenAPI builder (apispec, PyYAML: loaded when the
document is first asked for) and, when nothing is signed, not the cryptography library. Both
are a good part of a fresh worker's start-up time and memory."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from quart_bezique.api.app import create_app
app = create_app()
loaded = sorted({m.split(".")[0] for m in sys.modules})
app.test_client().get("/openapi.json")
after = sorted({m.split(".")[0] for m in sys.modules})
print(json.dumps([loaded, after]))
"""


def _loaded(env: dict[str, str]) -> tuple[set[str], set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, env=env
    )
    before, after = json.loads(done.stdout.strip().splitlines()[-1])
    return set(before), set(after)


def test_a_worker_that_signs_nothing_loads_no_crypto_and_no_builder() -> None:
    env = {"PATH": "/usr/bin:/bin", "AUDIT_LOG": "false"}
    before, after = _loaded(env)
    assert {"flask", "marshmallow", "orjson"} <= before  # the probe sees what is loaded
    assert not {"cryptography", "apispec", "yaml"} & before
    assert {"apispec", "yaml"} <= after  # the document, once asked for
    assert "cryptography" not in after

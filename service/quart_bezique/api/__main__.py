"""``python -m quart_bezique.api``: print the OpenAPI document of the default configuration.

The committed ``openapi.yaml`` is this output (``make openapi``); a test keeps the two equal. The
contract is the defaults', not the calling shell's: no environment variable changes it, and no
audit line can reach the printed text (its answer examples never pass through the envelope).
"""

from __future__ import annotations

import sys

from quart_bezique.api.app import EXTENSION, create_app
from quart_bezique.api.config import Config


def main() -> None:
    app = create_app(Config(build_tables=False), audit_sink=lambda line: None)
    sys.stdout.write(app.extensions[EXTENSION].spec_yaml.decode("utf-8"))


if __name__ == "__main__":
    main()

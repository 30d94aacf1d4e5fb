"""``python -m service.api``: print the OpenAPI document of the default configuration.

The committed ``openapi.yaml`` is this output (``make openapi``); a test keeps the two equal. The
contract is the defaults', not the calling shell's: no environment variable changes it.
"""

from __future__ import annotations

import sys

from service.api.app import EXTENSION, create_app
from service.api.config import Config


def main() -> None:
    app = create_app(Config(build_tables=False))
    sys.stdout.write(app.extensions[EXTENSION].spec_yaml.decode("utf-8"))


if __name__ == "__main__":
    main()

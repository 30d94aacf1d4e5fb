"""``python -m quart_bezique``: the ``quart-bezique`` command line."""

import sys

from quart_bezique.cli import main

if __name__ == "__main__":
    sys.exit(main())

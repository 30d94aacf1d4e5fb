"""``python -m service``: the ``quart-bezique`` command line."""

import sys

from service.cli import main

if __name__ == "__main__":
    sys.exit(main())

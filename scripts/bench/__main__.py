"""``python -m scripts.bench``."""

import sys

from scripts.bench.cli import main

sys.exit(main())

"""``python -m scripts.loadtest``: the closed-loop load and fault test."""

import sys

from scripts.loadtest.closed_loop import run

sys.exit(run())

"""The ``quart-bezique`` command line (docs/verification.md has the reference).

``main(argv)`` runs one command and returns its exit status; ``python -m quart_bezique`` and the
``quart-bezique`` console script call it.
"""

from .main import main
from .problems import ExitCode

__all__ = ["ExitCode", "main"]

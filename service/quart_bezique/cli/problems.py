"""What the command line says when it cannot give a verdict, and the exit code scripts see.

A body the service refuses gets the service's own problem document (``contract.py``: same
type, title, code and pointers); an input the command line itself cannot use gets a problem
document of the same shape with a code of its own (``INPUT_ERROR``, ``INVALID_JWKS``,
``INVALID_RECORD``, ``MANIFEST_ERROR``, ``CONFIG_ERROR``). Printed for
people, its text is escaped (``safe.py``): a detail may quote the input.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final

from .safe import shown

PROBLEM_PREFIX: Final = "urn:quart-bezique:problem:"


class ExitCode(IntEnum):
    """The process's exit status, for scripts to branch on."""

    OK = 0
    """A verdict (a valid betting sequence; a receipt that verifies; a matching digest)."""
    REFUSED = 1
    """A verdict of "invalid": an illegal betting sequence, a receipt that does not verify, a
    build digest other than the expected one."""
    INPUT_ERROR = 2
    """No verdict: bad usage, an unreadable file, or input the rules refuse (the API's 4xx)."""


class CliError(Exception):
    """No verdict can be given; ``document`` is the problem to print with ``--json``."""

    def __init__(self, document: dict[str, Any]) -> None:
        super().__init__(document["detail"])
        self.document = document
        self.code: str = document["code"]

    @classmethod
    def input(cls, code: str, detail: str) -> CliError:
        """A command-line input that is not a request body (a file, a JWKS, a record)."""
        slug = code.lower().replace("_", "-")
        return cls(
            {
                "type": PROBLEM_PREFIX + slug,
                "title": "Unusable input",
                "status": 400,
                "detail": detail,
                "code": code,
            }
        )

    def human(self) -> str:
        detail: str = self.document["detail"]
        errors = self.document.get("errors") or []
        where = errors[0]["pointer"] if errors else ""
        at = f" (at {where})" if where and where not in detail else ""
        return shown(f"error {self.code}: {detail}{at}")

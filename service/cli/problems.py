"""What the command line says when it cannot give a verdict, and the exit code scripts see.

A refusal by the rules is the API's own 422 problem document (same type, title, code and
pointer into the equivalent request body); an input the command line itself cannot read gets a
problem document of the same shape with a code of its own (``INPUT_ERROR``, ``INVALID_JWKS``,
``INVALID_RECORD``, ``MANIFEST_ERROR``, ``CONFIG_ERROR``).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final

from service.game.errors import PathElement, RulesError, json_pointer

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
    def rules(cls, error: RulesError, *prefix: PathElement) -> CliError:
        """The API's ``rules_problem``: ``prefix`` roots the core's path in the request body
        the API would have been sent."""
        where = json_pointer((*prefix, *error.path))
        return cls(
            {
                "type": PROBLEM_PREFIX + "rules-violation",
                "title": "Refused by the rules",
                "status": 422,
                "detail": error.message,
                "code": error.code,
                "errors": [{"pointer": where, "message": error.message, "code": error.code}],
            }
        )

    @classmethod
    def validation(cls, where: str, message: str) -> CliError:
        """The API's schema refusal (``VALIDATION_ERROR``) of one field."""
        return cls(
            {
                "type": PROBLEM_PREFIX + "validation-error",
                "title": "Invalid request",
                "status": 422,
                "detail": f"{where or 'the body'}: {message}",
                "code": "VALIDATION_ERROR",
                "errors": [{"pointer": where, "message": message}],
            }
        )

    @classmethod
    def malformed_json(cls, detail: str) -> CliError:
        return cls(
            {
                "type": PROBLEM_PREFIX + "malformed-json",
                "title": "Malformed JSON",
                "status": 400,
                "detail": detail,
                "code": "MALFORMED_JSON",
            }
        )

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
        return f"error {self.code}: {detail}{at}"

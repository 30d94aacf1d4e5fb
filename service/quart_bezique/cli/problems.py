"""What the command line says when it cannot give a verdict, and the exit code scripts see.

A body the service refuses gets the service's own problem document (``contract.py``: same
type, title, code and pointers); an input the command line itself cannot use gets a problem
document of the same shape with a code of its own (``INPUT_ERROR``, ``INVALID_JWKS``,
``INVALID_RECORD``, ``MANIFEST_ERROR``, ``CONFIG_ERROR``). Printed for
people, its text is escaped (``safe.py``): a detail may quote the input.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING, Any, Final

from quart_bezique.api.contract.i18n.translations import translations
from quart_bezique.game.messages import N_, render

from .safe import shown

if TYPE_CHECKING:
    from quart_bezique.api.contract.problems import Problem

ENGLISH: Final = "en"

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
    """No verdict can be given; ``document_in(language)`` is the problem to print with ``--json``.

    A refusal by the service's contract keeps its ``Problem``, so it is rendered in the chosen
    language exactly as the service would answer; the command line's own refusals carry a
    message template (``N_``) for the same reason."""

    def __init__(
        self, problem: Problem | None = None, *, where: str = "", own: dict[str, Any] | None = None
    ) -> None:
        self.problem = problem
        self.where = where
        self.own = own
        self.document: dict[str, Any] = self.document_in(ENGLISH)
        """The problem document in English (``document_in`` gives it in another language)."""
        super().__init__(self.document["detail"])
        self.code: str = self.document["code"]

    @classmethod
    def input(cls, code: str, detail: str) -> CliError:
        """A command-line input that is not a request body (a file, a JWKS, a record)."""
        slug = code.lower().replace("_", "-")
        own = {
            "type": PROBLEM_PREFIX + slug,
            "title": N_("Unusable input"),
            "status": 400,
            "detail": detail,
            "code": code,
        }
        return cls(own=own)

    def document_in(self, language: str) -> dict[str, Any]:
        """The problem document in ``language`` (the service's own, for a body it refuses)."""
        if self.problem is not None:
            document = self.problem.document(language)
        else:
            assert self.own is not None
            words = translations(language)
            document = {
                k: render(v, words) if isinstance(v, str) else v for k, v in self.own.items()
            }
        if self.where:
            document["detail"] = f"{self.where}: {document['detail']}"
        return document

    def human(self, language: str = ENGLISH) -> str:
        document = self.document_in(language)
        detail: str = document["detail"]
        errors = document.get("errors") or []
        where = errors[0]["pointer"] if errors else ""
        label = render(N_("error"), translations(language))
        at = ""
        if where and where not in detail:
            at = " " + render(N_("(at {pointer})").format(pointer=where), translations(language))
        return shown(f"{label} {self.code}: {detail}{at}")

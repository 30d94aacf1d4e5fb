"""Problem documents in the client's language (English, or Russian when it prefers it).

The rules core and the schemas keep speaking English: their messages are values with a stable
meaning that tests, logs and library users rely on. Translation happens once, at the HTTP edge,
when a problem document is rendered: ``language.negotiate`` reads ``Accept-Language`` and
``catalog.translator`` maps each English message onto its Russian template from the gettext
catalog (``service/quart_bezique/api/contract/locale``, read by ``po``), falling back to the English
text for anything the catalog does not know.
"""

from .language import ENGLISH, LANGUAGES, RUSSIAN, negotiate
from .marker import N_

__all__ = ["ENGLISH", "LANGUAGES", "N_", "RUSSIAN", "negotiate"]

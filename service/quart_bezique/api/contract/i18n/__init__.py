"""Problem documents in the client's language (English, Russian or Ukrainian).

Every message is a ``quart_bezique.game.messages.Message``: English text that keeps its template
and values. ``language.negotiate`` reads ``Accept-Language``; ``translations`` gives the chosen
language's compiled gettext catalog; the message renders itself from its template's translation.
"""

from quart_bezique.game.messages import N_, NP_

from .language import ENGLISH, LANGUAGES, RUSSIAN, UKRAINIAN, negotiate

__all__ = ["ENGLISH", "LANGUAGES", "NP_", "N_", "RUSSIAN", "UKRAINIAN", "negotiate"]

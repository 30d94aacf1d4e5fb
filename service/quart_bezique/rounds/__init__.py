"""Round records (docs/round-record.md): read one played round and judge all of it at once.

``read_record`` reads a record as strictly as the API reads a request (a ``RecordError``, a
``RulesError``, names the first refusal's code and pointer); ``adjudicate_record`` gives the
``RoundVerdict``; ``render.verdict`` its wire form. The HTTP endpoint and the command line are
thin shells over these three.
"""

from __future__ import annotations

from .adjudicate import Difference, RoundVerdict, adjudicate_record
from .record import FORMAT, RecordError, RoundRecord, read_record

__all__ = [
    "FORMAT",
    "Difference",
    "RecordError",
    "RoundRecord",
    "RoundVerdict",
    "adjudicate_record",
    "read_record",
]

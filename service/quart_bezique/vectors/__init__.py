"""Conformance vectors: every answer of the reference, written down so that another engine can
be certified offline against files instead of against a running service (docs/conformance.md).
"""

from __future__ import annotations

from .corpus import DEFAULT_SEED, FILES, FORMAT, Plan, write_corpus
from .digests import CHUNK_LINES

__all__ = ["CHUNK_LINES", "DEFAULT_SEED", "FILES", "FORMAT", "Plan", "write_corpus"]

"""What the web layer needs to know of receipts until it signs or checks one: the header a
receipt travels in and the reasons a check can give (the contract lists them). Nothing here
loads the cryptography library, which a service that signs nothing never needs."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

RECEIPT_HEADER: Final = "Verdict-Receipt"


class Reason(StrEnum):
    """Why a receipt is refused (``VALID`` when it is not)."""

    VALID = "VALID"
    MALFORMED_RECEIPT = "MALFORMED_RECEIPT"
    ALGORITHM_NOT_ALLOWED = "ALGORITHM_NOT_ALLOWED"
    UNKNOWN_KEY = "UNKNOWN_KEY"
    BAD_SIGNATURE = "BAD_SIGNATURE"
    MALFORMED_CLAIMS = "MALFORMED_CLAIMS"
    HEADER_MISMATCH = "HEADER_MISMATCH"
    ENDPOINT_MISMATCH = "ENDPOINT_MISMATCH"
    REQUEST_MISMATCH = "REQUEST_MISMATCH"
    RESPONSE_MISMATCH = "RESPONSE_MISMATCH"
    RULESET_MISMATCH = "RULESET_MISMATCH"
    BUILD_MISMATCH = "BUILD_MISMATCH"

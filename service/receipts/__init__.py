"""Verdict receipts: a signed, independently checkable statement of what was asked, what was
answered, and by which software (docs/verification.md).

A receipt is a compact JWS (RFC 7515) signed with Ed25519 (``alg: EdDSA``, RFC 8037); any
standard JOSE library verifies it with the service's JWKS, and ``verify_receipt`` checks it
against the request and response it covers, with no server.
"""

from __future__ import annotations

from service.integrity import build_digest, service_version

from .claims import TYPE, Claims
from .config import Keyring, ReceiptConfigError, keyring_from_env
from .jose import ALGORITHM, thumbprint
from .keys import KeyMaterialError, SigningKey, VerificationKey
from .signer import RECEIPT_HEADER, Signer
from .verify import (
    DigestCheck,
    JwksError,
    Reason,
    Verification,
    request_digest,
    trusted_keys,
    verify_receipt,
)

__all__ = [
    "ALGORITHM",
    "RECEIPT_HEADER",
    "TYPE",
    "Claims",
    "DigestCheck",
    "JwksError",
    "KeyMaterialError",
    "Keyring",
    "Reason",
    "ReceiptConfigError",
    "Signer",
    "SigningKey",
    "Verification",
    "VerificationKey",
    "keyring_from_env",
    "request_digest",
    "signer_from_env",
    "thumbprint",
    "trusted_keys",
    "verify_receipt",
]


def signer_from_env() -> tuple[Signer, Keyring] | None:
    """The signer for this build and its keyring, from the environment (None: receipts off).

    Computes the build digest now (``service.integrity``), so call it at start-up, before
    gunicorn forks its workers."""
    keyring = keyring_from_env()
    if keyring is None:
        return None
    signer = Signer(keyring.signing, version=service_version(), build=build_digest())
    return signer, keyring

"""Verdict receipts: a signed, independently checkable statement of what was asked, what was
answered, and by which software (docs/verification.md).

A receipt is a compact JWS (RFC 7515) signed with Ed25519 (``alg: EdDSA``, RFC 8037); any
standard JOSE library verifies it with the service's JWKS, and ``verify_receipt`` checks it
against the request and response it covers, with no server.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from .header import RECEIPT_HEADER, Reason

if TYPE_CHECKING:
    from .claims import TYPE, Claims
    from .config import Keyring, ReceiptConfigError, keyring_from_env
    from .jose import ALGORITHM, thumbprint
    from .keys import KeyMaterialError, SigningKey, VerificationKey
    from .signer import Signer
    from .verify import (
        DigestCheck,
        JwksError,
        Verification,
        claimed,
        request_digest,
        trusted_keys,
        verify_receipt,
    )

_HOMES = {
    "TYPE": "claims",
    "Claims": "claims",
    "Keyring": "config",
    "ReceiptConfigError": "config",
    "keyring_from_env": "config",
    "ALGORITHM": "jose",
    "thumbprint": "jose",
    "KeyMaterialError": "keys",
    "SigningKey": "keys",
    "VerificationKey": "keys",
    "Signer": "signer",
    "DigestCheck": "verify",
    "claimed": "verify",
    "JwksError": "verify",
    "Verification": "verify",
    "request_digest": "verify",
    "trusted_keys": "verify",
    "verify_receipt": "verify",
}
"""Where each name lives. The package loads a module (and with most of them the cryptography
library) on first use of one of its names: a service that signs nothing never loads it."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


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
    "claimed",
    "keyring_from_env",
    "request_digest",
    "signer_from_env",
    "thumbprint",
    "trusted_keys",
    "verify_receipt",
]


def signer_from_env() -> tuple[Signer, Keyring] | None:
    """The signer for this build and its keyring, from the environment (None: receipts off).

    Computes the build digest now (``quart_bezique.integrity``), so call it at start-up, before
    gunicorn forks its workers."""
    if not any(name.startswith("SIGNING_") and value.strip() for name, value in os.environ.items()):
        return None  # receipts off, decided without loading the key machinery
    from quart_bezique.integrity import build_digest, service_version

    from .config import keyring_from_env
    from .signer import Signer

    keyring = keyring_from_env()
    if keyring is None:
        return None
    signer = Signer(keyring.signing, version=service_version(), build=build_digest())
    return signer, keyring

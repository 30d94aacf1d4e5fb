"""Receipt keys from the environment: read once at start-up, validated, failing closed.

A Secret that failed to mount must never silently mean "answers without receipts", and key
material must never reach a log: a ``SIGNING_KEY_FILE`` that is set but unusable, or either of
``SIGNING_KEY_ID`` and ``SIGNING_PUBLIC_KEYS_FILE`` set without it, is a ``ReceiptConfigError``
naming the variable, and the service does not start. With none of the three set, nothing is
signed. docs/verification.md, "Keys", lists the variables and the steps of a rotation.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from quart_bezique.wire.settings import ConfigError

from .jose import thumbprint
from .keys import (
    KeyMaterialError,
    SigningKey,
    VerificationKey,
    check_kid,
    jwks_keys,
    private_key_from_pem,
    public_keys_from_pem,
    unique,
)

MAX_KEY_FILE_BYTES: Final = 1024 * 1024


class ReceiptConfigError(ConfigError):
    """The signing configuration cannot be used (a ``ConfigError``: start-up refuses it)."""


@dataclass(frozen=True, slots=True)
class Keyring:
    """The active signing key and every key receipts may be verified with (it included)."""

    signing: SigningKey
    verification: tuple[VerificationKey, ...]

    def jwks(self) -> dict[str, Any]:
        """RFC 7517 JWKS of every configured public key, the active one first."""
        return {"keys": [key.jwk() for key in self.verification]}


def _read(path: str, variable: str) -> bytes:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as error:
        raise ReceiptConfigError(
            f"{variable}={path} cannot be read ({error.strerror}); refusing to start without "
            f"the keys it should hold (unset {variable} to run without receipts)"
        ) from None
    if len(data) > MAX_KEY_FILE_BYTES:
        raise ReceiptConfigError(f"{variable}={path} is larger than {MAX_KEY_FILE_BYTES} bytes")
    return data


def _public_keys(data: bytes, source: str) -> list[VerificationKey]:
    """A JWKS when the file is a JSON object, else a PEM bundle."""
    if data.lstrip().startswith(b"{"):
        try:
            document = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise KeyMaterialError(f"{source}: not valid JSON") from None
        return jwks_keys(document, source, skip_foreign=False)
    return [VerificationKey(thumbprint(k), k) for k in public_keys_from_pem(data, source)]


def keyring_from_env(env: Mapping[str, str] | None = None) -> Keyring | None:
    """The configured keys (``os.environ`` unless given); None when receipts are not configured."""
    env = os.environ if env is None else env
    key_file = env.get("SIGNING_KEY_FILE", "").strip()
    kid = env.get("SIGNING_KEY_ID", "").strip()
    public_file = env.get("SIGNING_PUBLIC_KEYS_FILE", "").strip()
    if not key_file:
        if kid or public_file:
            raise ReceiptConfigError(
                "SIGNING_KEY_ID or SIGNING_PUBLIC_KEYS_FILE is set without SIGNING_KEY_FILE; "
                "refusing to start without the signing key"
            )
        return None
    try:
        private = private_key_from_pem(
            _read(key_file, "SIGNING_KEY_FILE"), f"SIGNING_KEY_FILE={key_file}"
        )
        signing = SigningKey(
            check_kid(kid, "SIGNING_KEY_ID") if kid else thumbprint(private.public_key()), private
        )
        others: list[VerificationKey] = []
        if public_file:
            source = f"SIGNING_PUBLIC_KEYS_FILE={public_file}"
            others = _public_keys(_read(public_file, "SIGNING_PUBLIC_KEYS_FILE"), source)
        keys = unique([signing.public, *others], "SIGNING_KEY_ID and SIGNING_PUBLIC_KEYS_FILE")
    except KeyMaterialError as error:
        raise ReceiptConfigError(str(error)) from None
    return Keyring(signing, tuple(keys))

"""Signing and verification keys: loading PEM and JWKS material, refusing anything but Ed25519.

Every loader fails closed, with messages that never quote key material: a receipt signed with the
wrong key, or not at all, must never come from a Secret that was mounted wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    load_pem_private_key,
    load_pem_public_key,
)

from .jose import ALGORITHM, CURVE, KEY_TYPE, EncodingError, b64decode, public_jwk, raw_public_key

KID: Final = re.compile(r"[A-Za-z0-9._:+=/-]{1,128}")
"""What a key id may be: printable, no spaces or quotes, short enough for a header."""
_PEM_PUBLIC: Final = re.compile(
    rb"-----BEGIN PUBLIC KEY-----\s.*?-----END PUBLIC KEY-----", re.DOTALL
)
RAW_KEY_BYTES: Final = 32


class KeyMaterialError(ValueError):
    """Key material that cannot be used: not Ed25519, malformed, encrypted, or ambiguous."""


@dataclass(frozen=True, slots=True)
class VerificationKey:
    """A public key and the id receipts name it by."""

    kid: str
    key: Ed25519PublicKey

    def jwk(self) -> dict[str, str]:
        return public_jwk(self.key, self.kid)

    def same_key(self, other: VerificationKey) -> bool:
        return raw_public_key(self.key) == raw_public_key(other.key)


@dataclass(frozen=True, slots=True)
class SigningKey:
    """The private key receipts are signed with, and its id."""

    kid: str
    key: Ed25519PrivateKey

    @property
    def public(self) -> VerificationKey:
        return VerificationKey(self.kid, self.key.public_key())


def check_kid(kid: object, source: str) -> str:
    if not isinstance(kid, str) or not KID.fullmatch(kid):
        raise KeyMaterialError(
            f"{source}: a key id must be 1 to 128 of A-Z a-z 0-9 . _ : + = / -, got {kid!r}"
        )
    return kid


def private_key_from_pem(data: bytes, source: str) -> Ed25519PrivateKey:
    """An unencrypted PKCS#8 PEM Ed25519 private key (``openssl genpkey -algorithm ed25519``)."""
    try:
        key = load_pem_private_key(data, password=None)
    except TypeError:
        raise KeyMaterialError(f"{source}: the private key is encrypted") from None
    except (ValueError, UnsupportedAlgorithm):
        raise KeyMaterialError(f"{source}: not a PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyMaterialError(f"{source}: the private key is not Ed25519")
    return key


def public_keys_from_pem(data: bytes, source: str) -> list[Ed25519PublicKey]:
    """Every ``PUBLIC KEY`` block of a PEM bundle; at least one, all Ed25519."""
    blocks = _PEM_PUBLIC.findall(data)
    if not blocks:
        raise KeyMaterialError(f"{source}: no PEM public key (-----BEGIN PUBLIC KEY-----)")
    keys = []
    for number, block in enumerate(blocks, start=1):
        try:
            key = load_pem_public_key(block)
        except (ValueError, UnsupportedAlgorithm):
            raise KeyMaterialError(f"{source}: public key {number} is not valid PEM") from None
        if not isinstance(key, Ed25519PublicKey):
            raise KeyMaterialError(f"{source}: public key {number} is not Ed25519")
        keys.append(key)
    return keys


def _jwk_key(jwk: Mapping[str, Any], where: str) -> Ed25519PublicKey:
    if jwk.get("kty") != KEY_TYPE or jwk.get("crv") != CURVE:
        raise KeyMaterialError(f"{where}: not an OKP Ed25519 key (kty, crv)")
    if "alg" in jwk and jwk["alg"] != ALGORITHM:
        raise KeyMaterialError(f"{where}: alg must be {ALGORITHM}, got {jwk['alg']!r}")
    if "use" in jwk and jwk["use"] != "sig":
        raise KeyMaterialError(f"{where}: use must be sig, got {jwk['use']!r}")
    if "d" in jwk:
        raise KeyMaterialError(f"{where}: holds a private key (d); publish public keys only")
    x = jwk.get("x")
    try:
        raw = b64decode(x) if isinstance(x, str) else b""
    except EncodingError:
        raw = b""
    if len(raw) != RAW_KEY_BYTES:
        raise KeyMaterialError(f"{where}: x is not a base64url 32-byte Ed25519 public key")
    return Ed25519PublicKey.from_public_bytes(raw)


def jwks_keys(jwks: object, source: str, *, skip_foreign: bool) -> list[VerificationKey]:
    """The Ed25519 keys of an RFC 7517 JWKS, each with its ``kid`` (required).

    ``skip_foreign``: ignore keys of other types (a verifier may be handed a platform's whole
    JWKS); otherwise any such key is an error (our own configuration holds only ours).
    """
    if not isinstance(jwks, Mapping) or not isinstance(jwks.get("keys"), list):
        raise KeyMaterialError(f"{source}: not a JWKS (an object with a keys list)")
    found: list[VerificationKey] = []
    for index, jwk in enumerate(jwks["keys"]):
        where = f"{source}: key {index}"
        if not isinstance(jwk, Mapping):
            raise KeyMaterialError(f"{where}: not an object")
        if skip_foreign and (jwk.get("kty"), jwk.get("crv")) != (KEY_TYPE, CURVE):
            continue
        key = _jwk_key(jwk, where)
        found.append(VerificationKey(check_kid(jwk.get("kid"), where), key))
    return unique(found, source)


def unique(keys: Iterable[VerificationKey], source: str) -> list[VerificationKey]:
    """Keys by id, in order: one id naming two different keys is refused (a receipt could not
    say which it means); the same key listed twice is kept once."""
    by_kid: dict[str, VerificationKey] = {}
    for key in keys:
        known = by_kid.get(key.kid)
        if known is None:
            by_kid[key.kid] = key
        elif not known.same_key(key):
            raise KeyMaterialError(f"{source}: key id {key.kid!r} names two different keys")
    return list(by_kid.values())

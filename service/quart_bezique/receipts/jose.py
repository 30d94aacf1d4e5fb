"""The few JOSE encodings receipts need (RFC 7515, 7517, 7638, 8037), over ``cryptography``.

Only encodings live here, no cryptography of our own: base64url without padding (strict on the
way in, so that one receipt has exactly one spelling), the canonical JSON both the header and the
claims are serialised in, and the RFC 7638 thumbprint that names a key by default.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from typing import Any, Final

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ALGORITHM: Final = "EdDSA"
"""RFC 8037's JWS algorithm name for Ed25519 signatures; the only one a receipt may carry."""
KEY_TYPE: Final = "OKP"
CURVE: Final = "Ed25519"
_BASE64URL: Final = re.compile(r"[A-Za-z0-9_-]*")


class EncodingError(ValueError):
    """Not the one base64url spelling of some bytes (padding, stray characters, loose bits)."""


def b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64decode(text: str) -> bytes:
    """Strict base64url (RFC 7515 section 2): no padding, no whitespace, and the unused low bits
    of the last character zero -- else two spellings would carry the same bytes, and a changed
    character could pass for the original."""
    if not _BASE64URL.fullmatch(text) or len(text) % 4 == 1:
        raise EncodingError("not unpadded base64url")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise EncodingError("not unpadded base64url") from None
    if b64encode(data) != text:
        raise EncodingError("not the canonical base64url spelling")
    return data


def canonical_json(value: Any) -> bytes:
    """Keys sorted by code point at every level, no whitespace, UTF-8 (non-ASCII unescaped):
    orjson with ``OPT_SORT_KEYS``, the serialisation the audit record uses for bodies."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def thumbprint(key: Ed25519PublicKey) -> str:
    """RFC 7638 JWK thumbprint (SHA-256, base64url): a key id anyone can derive from the key."""
    members = {"crv": CURVE, "kty": KEY_TYPE, "x": b64encode(raw_public_key(key))}
    return b64encode(hashlib.sha256(canonical_json(members)).digest())


def public_jwk(key: Ed25519PublicKey, kid: str) -> dict[str, str]:
    """RFC 8037 OKP public key, for a JWKS (RFC 7517)."""
    return {
        "kty": KEY_TYPE,
        "crv": CURVE,
        "x": b64encode(raw_public_key(key)),
        "kid": kid,
        "alg": ALGORITHM,
        "use": "sig",
    }

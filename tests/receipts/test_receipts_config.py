"""Key configuration: every way a Secret can be mounted wrong stops the start, naming no key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
)
from quart_bezique.api.config import ConfigError
from quart_bezique.receipts import Keyring, ReceiptConfigError, keyring_from_env, thumbprint

from tests.receipts.receipt_keys import private_pem, public_pem


def _configure(**env: str) -> Keyring | None:
    return keyring_from_env(env)


def test_nothing_configured_means_no_receipts() -> None:
    assert _configure() is None
    assert _configure(SIGNING_KEY_FILE="  ") is None


def test_key_file_gives_the_thumbprint_as_id(
    key_file: Path, private_key: Ed25519PrivateKey
) -> None:
    keyring = _configure(SIGNING_KEY_FILE=str(key_file))
    assert keyring is not None
    assert keyring.signing.kid == thumbprint(private_key.public_key())
    assert [k["kid"] for k in keyring.jwks()["keys"]] == [keyring.signing.kid]


def test_explicit_key_id(key_file: Path) -> None:
    keyring = _configure(SIGNING_KEY_FILE=str(key_file), SIGNING_KEY_ID="2026-11")
    assert keyring is not None and keyring.signing.kid == "2026-11"


@pytest.mark.parametrize("kid", ["has space", "x" * 129, 'quote"', "é"])
def test_bad_key_id_is_refused(key_file: Path, kid: str) -> None:
    with pytest.raises(ReceiptConfigError, match="SIGNING_KEY_ID"):
        _configure(SIGNING_KEY_FILE=str(key_file), SIGNING_KEY_ID=kid)


def test_missing_key_file_fails_closed(tmp_path: Path) -> None:
    with pytest.raises(ReceiptConfigError, match="cannot be read") as caught:
        _configure(SIGNING_KEY_FILE=str(tmp_path / "absent.pem"))
    assert isinstance(caught.value, ConfigError)


@pytest.mark.parametrize(
    ("env", "match"),
    [
        ({"SIGNING_KEY_ID": "k1"}, "without SIGNING_KEY_FILE"),
        ({"SIGNING_PUBLIC_KEYS_FILE": "/x"}, "without SIGNING_KEY_FILE"),
    ],
)
def test_partial_configuration_fails_closed(env: dict[str, str], match: str) -> None:
    with pytest.raises(ReceiptConfigError, match=match):
        _configure(**env)


def _refused(tmp_path: Path, content: bytes, match: str) -> str:
    path = tmp_path / "key.pem"
    path.write_bytes(content)
    with pytest.raises(ReceiptConfigError, match=match) as caught:
        _configure(SIGNING_KEY_FILE=str(path))
    return str(caught.value)


def test_not_a_key_is_refused(tmp_path: Path) -> None:
    _refused(tmp_path, b"hello", "not a PEM private key")


def test_other_key_types_are_refused(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"pw"))
    _refused(tmp_path, pem, "encrypted")
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    _refused(tmp_path, pem, "not Ed25519")


def test_errors_never_quote_the_key(tmp_path: Path, private_key: Ed25519PrivateKey) -> None:
    pem = private_pem(private_key)
    message = _refused(tmp_path, pem[: len(pem) // 2], "not a PEM private key")
    body = b"".join(pem.splitlines()[1:-1]).decode()
    assert body[:16] not in message


def test_public_keys_from_a_pem_bundle(tmp_path: Path, key_file: Path) -> None:
    old, older = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    bundle = tmp_path / "public.pem"
    bundle.write_bytes(public_pem(old) + b"\n" + public_pem(older))
    keyring = _configure(SIGNING_KEY_FILE=str(key_file), SIGNING_PUBLIC_KEYS_FILE=str(bundle))
    assert keyring is not None
    kids = [k["kid"] for k in keyring.jwks()["keys"]]
    assert kids == [
        keyring.signing.kid,
        thumbprint(old.public_key()),
        thumbprint(older.public_key()),
    ]


def _jwks_file(tmp_path: Path, keys: list[dict[str, str]]) -> Path:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": keys}))
    return path


def test_public_keys_from_a_jwks(tmp_path: Path, key_file: Path) -> None:
    old = _configure(SIGNING_KEY_FILE=str(key_file), SIGNING_KEY_ID="old")
    assert old is not None
    new_file = tmp_path / "new.pem"
    new_file.write_bytes(private_pem(Ed25519PrivateKey.generate()))
    jwks = _jwks_file(tmp_path, old.jwks()["keys"])
    keyring = _configure(SIGNING_KEY_FILE=str(new_file), SIGNING_PUBLIC_KEYS_FILE=str(jwks))
    assert keyring is not None
    assert [k["kid"] for k in keyring.jwks()["keys"]] == [keyring.signing.kid, "old"]


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"kty": "RSA"}, "not an OKP Ed25519"),
        ({"crv": "Ed448"}, "not an OKP Ed25519"),
        ({"alg": "ES256"}, "alg must be EdDSA"),
        ({"use": "enc"}, "use must be sig"),
        ({"x": "AAAA"}, "32-byte"),
        ({"d": "AAAA"}, "private key"),
        ({"kid": ""}, "key id"),
    ],
)
def test_bad_jwks_entries_are_refused(
    tmp_path: Path, key_file: Path, change: dict[str, str], match: str
) -> None:
    source = _configure(SIGNING_KEY_FILE=str(key_file), SIGNING_KEY_ID="old")
    assert source is not None
    jwks = _jwks_file(tmp_path, [{**source.jwks()["keys"][0], **change}])
    with pytest.raises(ReceiptConfigError, match=match):
        _configure(SIGNING_KEY_FILE=str(key_file), SIGNING_PUBLIC_KEYS_FILE=str(jwks))


def test_one_id_for_two_keys_is_refused(tmp_path: Path, key_file: Path) -> None:
    other = tmp_path / "other.pem"
    other.write_bytes(private_pem(Ed25519PrivateKey.generate()))
    published = _configure(SIGNING_KEY_FILE=str(other), SIGNING_KEY_ID="k")
    assert published is not None
    jwks = _jwks_file(tmp_path, published.jwks()["keys"])
    with pytest.raises(ReceiptConfigError, match="names two different keys"):
        _configure(
            SIGNING_KEY_FILE=str(key_file), SIGNING_KEY_ID="k", SIGNING_PUBLIC_KEYS_FILE=str(jwks)
        )


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"keys": 3}', b"-----BEGIN X-----"])
def test_unusable_public_keys_file_is_refused(
    tmp_path: Path, key_file: Path, content: bytes
) -> None:
    path = tmp_path / "public"
    path.write_bytes(content)
    with pytest.raises(ReceiptConfigError, match="SIGNING_PUBLIC_KEYS_FILE"):
        _configure(SIGNING_KEY_FILE=str(key_file), SIGNING_PUBLIC_KEYS_FILE=str(path))

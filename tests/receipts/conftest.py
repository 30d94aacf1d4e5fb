"""Fresh Ed25519 keys and a signer for the receipt tests (generated, never committed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from quart_bezique.receipts import Keyring, Signer, SigningKey, thumbprint

from tests.receipts.receipt_keys import BUILD, private_pem


@pytest.fixture
def private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture
def signing_key(private_key: Ed25519PrivateKey) -> SigningKey:
    return SigningKey(thumbprint(private_key.public_key()), private_key)


@pytest.fixture
def signer(signing_key: SigningKey) -> Signer:
    return Signer(signing_key, version="1.0.0", build=BUILD)


@pytest.fixture
def keyring(signing_key: SigningKey) -> Keyring:
    return Keyring(signing_key, (signing_key.public,))


@pytest.fixture
def key_file(tmp_path: Path, private_key: Ed25519PrivateKey) -> Path:
    path = tmp_path / "signing.pem"
    path.write_bytes(private_pem(private_key))
    return path

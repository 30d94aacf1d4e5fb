"""Tests of the running container image. ``scripts/container_test.sh`` builds and starts the image
and runs the ``container``-marked tests with ``QB_BASE_URL`` pointing at it; without that variable
they skip. The unmarked tests here (manifests, Dockerfile) need no container: ``make unit`` runs
them."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def base_url() -> str:
    url = os.environ.get("QB_BASE_URL", "").rstrip("/")
    if not url:
        pytest.skip("QB_BASE_URL is not set: run scripts/container_test.sh (make container-test)")
    return url

"""HTTP smoke tests against the running container (``make container-test`` starts it, read-only, as
non-root, with a memory limit, and sets ``QB_BASE_URL``). They check that the image serves, not the
rules: those are covered in depth by tests/game and tests/api."""

from __future__ import annotations

from typing import Any

import pytest
import requests

pytestmark = pytest.mark.container

TIMEOUT = 10


def post(base_url: str, path: str, body: Any) -> requests.Response:
    return requests.post(f"{base_url}{path}", json=body, timeout=TIMEOUT)


def test_liveness_answers(base_url: str) -> None:
    response = requests.get(f"{base_url}/healthz", timeout=TIMEOUT)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")


def test_readiness_answers(base_url: str) -> None:
    response = requests.get(f"{base_url}/readyz", timeout=TIMEOUT)
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("cards", "trump", "score"),
    [
        (["KS", "QS", "JS", "JC"], None, 10),  # docs/rules.md §7: coronka + bezique sharing Q♠
        (["QS", "JC", "QH", "JD"], None, 9),  # double bezique
        (["KS", "QS", "JS", "JC"], "S", 16),  # coronka in trumps + bezique
        (["AS", "AC", "AH", "AD"], None, 0),  # four aces
    ],
)
def test_scores_a_worked_example(
    base_url: str, cards: list[str], trump: str | None, score: int
) -> None:
    response = post(base_url, "/v1/hands/score", {"cards": cards, "trump": trump})
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json()["score"] == score


def test_rejects_a_bad_card_with_a_problem_document(base_url: str) -> None:
    response = post(base_url, "/v1/hands/score", {"cards": ["KS", "QS", "JS", "XX"]})
    assert response.status_code in (400, 422), response.text
    assert response.headers["Content-Type"].startswith("application/problem+json")


def test_unknown_path_is_404(base_url: str) -> None:
    response = requests.get(f"{base_url}/no/such/path", timeout=TIMEOUT)
    assert response.status_code == 404


def test_keeps_serving_many_requests(base_url: str) -> None:
    """Enough sequential requests to cycle through every worker: none is broken by the read-only
    root filesystem or the memory limit."""
    with requests.Session() as session:
        for _ in range(50):
            response = session.post(
                f"{base_url}/v1/hands/score",
                json={"cards": ["KH", "QH", "KD", "10D"], "trump": "D"},
                timeout=TIMEOUT,
            )
            assert response.status_code == 200, response.text
            assert response.json()["score"] == 8
